#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite, as CI runs it: install what is missing, build with
# -Werror, run every test, the CRC-32 tests again with zlib's CRC-32 instead
# of ISA-L, then the sanitizer suite under AddressSanitizer +
# UndefinedBehaviorSanitizer (the C unit tests, every fuzz replay, and a smoke
# of the programs and of the Wireshark plugin end to end; tests/README.md).
# Under CI=true a skipped test fails the run.
# Wireshark 4.4 and 4.6: the plugin's suite again in Debian 13 and Debian
# unstable root filesystems (scripts/wireshark-matrix.sh; built once, then
# cached in /var/cache/ornic-ws-matrix).
# Usage: scripts/test.sh [--no-sanitize] [--no-matrix]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)

scripts/deps.sh test

# In CI (CI=true) a test that reports itself skipped is a failure: a missing
# package or build option must not turn a suite green by running nothing.
check_skips() { # ctest log
  local skipped
  skipped=$(grep -E '\*\*\*Skipped|Not Run' "$1" || true)
  [[ -z $skipped ]] && return 0
  echo "$skipped"
  if [[ ${CI:-} == true ]]; then
    echo "=== CI=true: skipped tests are failures"
    return 1
  fi
  echo "=== (skipped tests would fail under CI=true)"
}

run_suite() { # name, configure preset (CMakePresets.json), ctest args (a quoted string)
  # $target (optional, set by the caller): build only that target
  local name=$1 preset=$2 ctest_args=$3 dir=build/$2
  echo "=== $name: configure + build ($dir, cmake --preset $preset)"
  cmake --preset "$preset" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
  if ! cmake --build "$dir" -j"$jobs" ${target:+--target "$target"} >"$dir.build.log" 2>&1; then
    cat "$dir.build.log"
    return 1
  fi
  echo "=== $name: tests"
  # Longest tests first: CTest orders by the cost data in its build tree, and a
  # fresh clone has none, so a long test drawn last left one of two cores idle
  # (about 40 s of the release suite). tests/ci-costs/ holds each suite's
  # times from a CI run; refresh by copying a run's
  # $dir/Testing/Temporary/CTestCostData.txt there. Only the order changes.
  local costs="tests/ci-costs/${dir##*/}.txt"
  if [[ -f $costs && ! -f $dir/Testing/Temporary/CTestCostData.txt ]]; then
    mkdir -p "$dir/Testing/Temporary" && cp "$costs" "$dir/Testing/Temporary/CTestCostData.txt"
  fi
  # shellcheck disable=SC2086 # ctest_args is a list of words
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" $ctest_args 2>&1 | tee "$dir.test.log" # pipefail
  check_skips "$dir.test.log"
}

mkdir -p build
matrix=1 sanitize=1
for arg in "$@"; do
  case $arg in
    --no-matrix) matrix=0 ;;
    --no-sanitize) sanitize=0 ;;
    *) echo "usage: scripts/test.sh [--no-sanitize] [--no-matrix]" >&2; exit 2 ;;
  esac
done
# The matrix needs root (mmdebstrap, chroot, mounts); sudo when there is one.
# Without either it is skipped with a note, which CI (CI=true) refuses.
as_root=()
if [[ $matrix == 1 && $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  elif [[ ${CI:-} == true ]]; then
    echo "=== CI=true: the Wireshark 4.4/4.6 matrix needs root or passwordless sudo" >&2; exit 1
  else
    echo "=== Wireshark 4.4/4.6 matrix skipped: needs root or passwordless sudo (--no-matrix)"
    matrix=0
  fi
fi
if [[ $matrix == 1 ]]; then
  # The roots download and unpack while the release suite builds and runs;
  # a failed or interrupted run does not leave that job behind.
  "${as_root[@]}" scripts/wireshark-matrix.sh --roots-only >build/ws-roots.log 2>&1 &
  roots_pid=$!
  trap 'kill "$roots_pid" 2>/dev/null || true' EXIT
fi
run_suite release ci-release ""
if [[ $matrix == 1 ]]; then
  echo "=== Wireshark 4.4 (Debian 13) and 4.6 (Debian unstable): the dissector suite"
  wait "$roots_pid" || { cat build/ws-roots.log; exit 1; }
  trap - EXIT
  "${as_root[@]}" scripts/wireshark-matrix.sh
fi
# The other CRC-32 backend: zlib's (the release suite uses ISA-L when present).
# What the backend changes: the tests labelled crc, and target crc_suite
# builds what they run (tests/CMakeLists.txt).
target=crc_suite run_suite "zlib CRC backend" ci-zlib "-L crc"
if [[ $sanitize == 1 ]]; then
  # The sanitizer suite (label asan; the list and the reasons: tests/README.md,
  # "The sanitizer suite"). What the sanitizers add is a check of every memory
  # access and undefined operation of the C code, so the suite is what runs the
  # C code on the most inputs for its time: every C unit test (library,
  # pcapgen, bitmap models, number parser), every fuzz replay (seeds and past
  # crashes), and a smoke end to end: ornic-decode's end-to-end script, live
  # capture, ornic-decode against tshark, the analysis against pcapgen's
  # truth, pcapgen's captures decoded, and the plugin inside tshark (clang's
  # shared ASan+UBSan runtime preloaded,
  # tests/dissector/CMakeLists.txt) on every header, truncated and corrupted
  # frames, the analysis and the conversation tables. Every other test ran in
  # the release suite above; when this suite ran them all, they took seven
  # eighths of its test time. Target asan_suite builds what the suite runs.
  # The whole suite under the sanitizers, by hand: cmake --preset ci-asan,
  # cmake --build build/ci-asan, ctest --test-dir build/ci-asan.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    target=asan_suite run_suite asan+ubsan ci-asan "-L ^asan$"
fi
# ---- fuzz (fuzz/, docs/FUZZING.md) -------------------------------------------
# The release and sanitizer suites above replay every seed and regression
# input (CTest fuzz_replay_*, tests/fuzz), the second under ASan+UBSan. Here
# the harnesses are built for libFuzzer (clang, ASan+UBSan) and each fuzzes from its seeds for
# ORNIC_FUZZ_SMOKE_SECONDS (20 here, to keep CI under 15 minutes; 0 skips
# this part; longer campaigns: scripts/fuzz.sh): a crash, leak, sanitizer
# report or an input slower than 10 s fails the build. About 70 s for the five
# harnesses on 2 cores (fuzz_reader, the sixth, adds its 20 s on one core,
# fuzz_frame_mut, fuzz_frame with fuzz/mutator's libFuzzer hooks, its own 20 s),
# and 1 minute more for the AFL++ check at the end.
smoke=${ORNIC_FUZZ_SMOKE_SECONDS:-20}
if [[ $sanitize == 1 && "$smoke" != 0 ]]; then
  echo "=== fuzz: libFuzzer build (build/ci-fuzz)"
  cmake -S . -B build/ci-fuzz -DORNIC_WERROR=ON -DCMAKE_C_COMPILER=clang -DORNIC_FUZZ=LIBFUZZER \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORNIC_BUILD_DISSECTOR=OFF -DORNIC_FUZZ_SMOKE_SECONDS="$smoke" \
    >build/ci-fuzz.configure.log 2>&1 || { cat build/ci-fuzz.configure.log; exit 1; }
  cmake --build build/ci-fuzz -j"$jobs" --target fuzz_all fuzz_frame_mut fuzz_responder_frames_mut \
    >build/ci-fuzz.build.log 2>&1 ||
    { cat build/ci-fuzz.build.log; exit 1; }
  echo "=== fuzz: replay + ${smoke} s smoke run per harness"
  ctest --test-dir build/ci-fuzz -L fuzz --output-on-failure -j"$jobs" 2>&1 | tee build/ci-fuzz.test.log
  check_skips build/ci-fuzz.test.log
  # The AFL++ driver too, so that it cannot rot: a -Werror build with
  # afl-clang-fast, every seed replayed through it, and a short persistent-mode
  # campaign through scripts/fuzz.sh (which fails on any crash or hang).
  echo "=== fuzz: AFL++ build (build/ci-afl), replay, 10 s persistent-mode run of fuzz_frame"
  CC=afl-clang-fast cmake -S . -B build/ci-afl -DORNIC_WERROR=ON -DORNIC_FUZZ=AFL -DCMAKE_BUILD_TYPE=Release \
    -DORNIC_BUILD_DISSECTOR=OFF >build/ci-afl.configure.log 2>&1 || { cat build/ci-afl.configure.log; exit 1; }
  cmake --build build/ci-afl -j"$jobs" --target fuzz_all fuzz_baseline >build/ci-afl.build.log 2>&1 ||
    { cat build/ci-afl.build.log; exit 1; }
  ctest --test-dir build/ci-afl -L fuzz-replay --output-on-failure -j"$jobs" 2>&1 | tee build/ci-afl.test.log
  check_skips build/ci-afl.test.log
  AFL_NO_AFFINITY=1 ORNIC_FUZZ_BUILD=build/ci-afl ORNIC_FUZZ_CMPLOG=0 \
    scripts/fuzz.sh frame 10 --cores 1 --out build/ci-afl/smoke-frame
fi
echo "=== all suites passed"
