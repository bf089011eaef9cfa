#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An AFL++ campaign on one harness: builds the AFL++ persistent-mode
# harnesses (build/fuzz-afl, CC=afl-clang-fast), runs afl-fuzz from the
# committed seeds and the regression inputs with the dictionary, on N cores
# (one main instance, N-1 secondaries), then reports execs/s, paths found,
# crashes and hangs. Exit status 1 if any crash or hang was saved.
#
# Usage: scripts/fuzz.sh TARGET SECONDS [--cores N] [--resume] [--out DIR]
#   TARGET   frame, ext, roundtrip, capture, responder, responder_frames or reader
#            (fuzz_TARGET), or
#            baseline: the empty harness of scripts/fuzz-speed.sh, on frame's seeds
#   SECONDS  wall-clock length of the campaign
#   --cores  instances to run (default: every core, nproc)
#   --resume continue the campaign in DIR instead of starting from the seeds
#   --out    output directory (default build/fuzz-afl/campaign-TARGET)
# Environment: ORNIC_FUZZ_ASAN=1 builds the harnesses with ASan + UBSan
# (AFL_USE_ASAN/AFL_USE_UBSAN, in build/fuzz-afl-asan): memory errors that do
# not crash are found too, at little cost where AFL++'s per-exec overhead
# dominates. ORNIC_FUZZ_CMPLOG=0 turns off the CmpLog companion binary
# (AFL_LLVM_CMPLOG, in BUILD-cmplog) that the first instance uses to solve
# comparisons with input bytes. ORNIC_FUZZ_BUILD overrides the build
# directory; NICE (default 0) the afl-fuzz niceness.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 2 ]] || usage
target=$1 seconds=$2
shift 2
asan=${ORNIC_FUZZ_ASAN:-0}
default_build=build/fuzz-afl
[[ $asan = 1 ]] && default_build=build/fuzz-afl-asan
cores=$(nproc 2>/dev/null || echo 1) resume=0 build=${ORNIC_FUZZ_BUILD:-$default_build} out=""
while [[ $# -gt 0 ]]; do
  case $1 in
  --cores) cores=$2; shift 2 ;;
  --resume) resume=1; shift ;;
  --out) out=$2; shift 2 ;;
  *) usage ;;
  esac
done
[[ $seconds =~ ^[0-9]+$ && $cores =~ ^[1-9][0-9]*$ ]] || usage
seeds=$target
[[ $target = baseline ]] && seeds=frame
[[ -d fuzz/corpus/$seeds ]] || { echo "fuzz.sh: no harness '$target' (fuzz/corpus/$target)" >&2; exit 2; }
out=${out:-$build/campaign-$target}
bin=$build/bin/fuzz_$target

if ! command -v afl-fuzz >/dev/null || ! command -v afl-clang-fast >/dev/null; then
  echo "fuzz.sh: AFL++ is missing: scripts/deps.sh test installs it" >&2
  exit 1
fi
if [[ $asan = 1 ]]; then
  export AFL_USE_ASAN=1 AFL_USE_UBSAN=1
  export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1
fi
mkdir -p "$(dirname "$build")"
if [[ ! -f $build/CMakeCache.txt ]]; then
  CC=afl-clang-fast cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DORNIC_FUZZ=AFL \
    -DORNIC_BUILD_TESTS=OFF -DORNIC_BUILD_DISSECTOR=OFF >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; exit 1; }
else # regenerate: a target added since the last configure is unknown to make
  cmake -S . -B "$build" >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
fi
cmake --build "$build" -j2 --target "fuzz_$target" >"$build.build.log" 2>&1 ||
  { cat "$build.build.log"; exit 1; }
cmplog=()
if [[ ${ORNIC_FUZZ_CMPLOG:-1} = 1 ]]; then
  cbuild=$build-cmplog
  if [[ ! -f $cbuild/CMakeCache.txt ]]; then
    env -u AFL_USE_ASAN -u AFL_USE_UBSAN AFL_LLVM_CMPLOG=1 CC=afl-clang-fast cmake -S . -B "$cbuild" \
      -DCMAKE_BUILD_TYPE=Release -DORNIC_FUZZ=AFL -DORNIC_BUILD_TESTS=OFF \
      -DORNIC_BUILD_DISSECTOR=OFF >"$cbuild.configure.log" 2>&1 || { cat "$cbuild.configure.log"; exit 1; }
  fi
  env -u AFL_USE_ASAN -u AFL_USE_UBSAN AFL_LLVM_CMPLOG=1 cmake --build "$cbuild" -j2 \
    --target "fuzz_$target" >"$cbuild.build.log" 2>&1 || { cat "$cbuild.build.log"; exit 1; }
  cmplog=(-c "$cbuild/bin/fuzz_$target")
fi

# Seeds: the committed corpus plus every regression input, in one directory.
input=-
if [[ $resume = 0 || ! -f $(ls "$out"/*/fuzzer_stats 2>/dev/null | sed -n 1p) ]]; then
  rm -rf "$out"
  mkdir -p "$out/seeds"
  cp fuzz/corpus/"$seeds"/* "$out/seeds/"
  if [[ -d tests/fuzz-regressions/$seeds ]]; then
    for f in tests/fuzz-regressions/"$seeds"/*; do cp "$f" "$out/seeds/regression-$(basename "$f")"; done
  fi
  input=$out/seeds
fi

export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
export AFL_IMPORT_FIRST=1
# Capture and responder inputs do real work (libpcap, a simulation): a longer limit.
timeout_ms=1000
[[ $target = capture || $target = responder* ]] && timeout_ms=5000
pids=()
for ((i = 0; i < cores; i++)); do
  # One instance: plain (no deterministic stages); several: a main and secondaries.
  role=(-S "s$i")
  [[ $i = 0 ]] && role=(-M main)
  [[ $cores = 1 ]] && role=()
  [[ $i = 0 ]] && role+=("${cmplog[@]}")
  nice -n "${NICE:-0}" afl-fuzz "${role[@]}" -i "$input" -o "$out" -x fuzz/ornic.dict \
    -t "$timeout_ms" -V "$seconds" -- "$bin" >"$out.$i.log" 2>&1 &
  pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null || true' INT TERM
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
# AFL++ 4.04c can leave a persistent-mode child behind, stopped and holding the
# output directory (a later --resume then finds it "in use"). Its CPU time
# would be lost with it: count it (clock ticks), then kill it.
left_ticks=0
abs_out=$(realpath "$out")
for pid in $(find /proc/[0-9]*/fd -maxdepth 1 \( -lname "$abs_out" -o -lname "$abs_out/*" \) 2>/dev/null |
  cut -d/ -f3 | sort -u); do
  t=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 + $14 + $15 }') || continue
  if kill -KILL "$pid" 2>/dev/null; then left_ticks=$((left_ticks + ${t:-0})); fi
done
if [[ $status != 0 ]]; then
  echo "fuzz.sh: afl-fuzz failed; its output:" >&2
  tail -n 30 "$out".*.log >&2
  exit 1
fi

# Totals over the instances (fuzzer_stats of each).
stat() { sed -n "s/^$2 *: *//p" "$1"; }
execs=0 run=0 paths=0 crashes=0 hangs=0 cycles=0
for s in "$out"/*/fuzzer_stats; do
  execs=$((execs + $(stat "$s" execs_done)))
  run=$((run + $(stat "$s" run_time)))
  crashes=$((crashes + $(stat "$s" saved_crashes)))
  hangs=$((hangs + $(stat "$s" saved_hangs)))
  c=$(stat "$s" corpus_count)
  ((c > paths)) && paths=$c
  cycles=$((cycles + $(stat "$s" cycles_done)))
done
rate=$((run > 0 ? execs / run : 0))
# CPU time of afl-fuzz and the harness: children's user + system time from
# bash's `times`, plus the children left behind. A lower bound: a fork server
# that afl-fuzz does not reap takes its share with it.
times >"$out.times" # in this shell: a $(...) subshell has no children
cpu=$(tail -1 "$out.times" | awk -v left="$left_ticks" -v hz="$(getconf CLK_TCK)" '{
  split($1, u, /[ms]/); split($2, s, /[ms]/);
  printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] + left / hz }')
first=$(ls "$out"/*/fuzzer_stats | sed -n 1p)
edges=$(stat "$first" bitmap_cvg)
echo "fuzz_$target: $cores instance(s), ${seconds} s: $execs execs, $rate execs/s per instance" \
     "(mean), $paths paths (largest queue), edge coverage $edges, $cycles cycles," \
     "$crashes crashes, $hangs hangs; wall time $run s per instance, CPU time $cpu s; output in $out"
if ((crashes + hangs > 0)); then
  ls "$out"/*/crashes/id* "$out"/*/hangs/id* 2>/dev/null
  echo "reproduce: $build/bin/fuzz_$target FILE   (or a replay/ASan build: build/fuzz-off)" >&2
  exit 1
fi
