#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Line and branch coverage reached by replaying the fuzz corpus (and the
# regression inputs) through the harnesses' replay mains, built with clang's
# source-based coverage. Reports libornicproto (the figure docs/FUZZING.md
# quotes), then the ornic-decode reading path and pcapgen's responder.
#
# Usage: scripts/fuzz-coverage.sh [--extra DIR]... [--fail-under PERCENT] [--html DIR]
#   --extra DIR      also replay DIR/<target>/ (e.g. an AFL queue copied per target)
#   --fail-under P   exit 1 if libornicproto's line coverage is below P
#   --html DIR       also write an HTML report
# Build directory: build/fuzz-cov (ORNIC_FUZZ_COV_BUILD overrides).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${ORNIC_FUZZ_COV_BUILD:-build/fuzz-cov}
extra=() fail_under="" html=""
while [[ $# -gt 0 ]]; do
  case $1 in
  --extra) extra+=("$2"); shift 2 ;;
  --fail-under) fail_under=$2; shift 2 ;;
  --html) html=$2; shift 2 ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
profdata=$(command -v llvm-profdata-14 || command -v llvm-profdata)
cov=$(command -v llvm-cov-14 || command -v llvm-cov)

flags="-fprofile-instr-generate -fcoverage-mapping"
mkdir -p "$(dirname "$build")"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DORNIC_FUZZ=OFF \
  -DORNIC_BUILD_TESTS=OFF -DORNIC_BUILD_DISSECTOR=OFF -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j2 --target fuzz_all >"$build.build.log" 2>&1 || { cat "$build.build.log"; exit 1; }

prof=$build/profiles
rm -rf "$prof" && mkdir -p "$prof"
objects=()
for bin in "$build"/bin/fuzz_*; do
  t=${bin##*/fuzz_}
  dirs=(fuzz/corpus/"$t")
  [[ -d tests/fuzz-regressions/$t ]] && dirs+=(tests/fuzz-regressions/"$t")
  for e in "${extra[@]}"; do [[ -d $e/$t ]] && dirs+=("$e/$t"); done
  LLVM_PROFILE_FILE="$prof/$t-%p.profraw" "$bin" "${dirs[@]}" 2>"$prof/$t.log" ||
    { tail -20 "$prof/$t.log"; exit 1; }
  echo "fuzz_$t: $(tail -1 "$prof/$t.log" | sed 's/^fuzz replay: //')"
  objects+=(-object "$bin")
done
"$profdata" merge -sparse "$prof"/*.profraw -o "$prof/all.profdata"

# llvm-cov wants the first binary without -object.
first=${objects[1]}
objects=("${objects[@]:2}")
report() {
  local title=$1
  shift
  echo
  echo "== $title"
  "$cov" report "$first" "${objects[@]}" -instr-profile="$prof/all.profdata" "$@" | sed "s#$root/##"
}
report "libornicproto" "$root"/libornicproto/src
report "tools/ornic-decode (capture path)" "$root"/tools/ornic-decode
report "pcapgen responder and simulator" "$root"/pcapgen/profiles/ornic/ornic_resp.c "$root"/libs/ornic-bitmap/ornic_bitmap.c "$root"/pcapgen/sim/sim.c
if [[ -n $html ]]; then
  "$cov" show "$first" "${objects[@]}" -instr-profile="$prof/all.profdata" -format=html \
    -output-dir="$html" "$root"/libornicproto/src "$root"/tools/ornic-decode "$root"/pcapgen
  echo "HTML report: $html/index.html"
fi
if [[ -n $fail_under ]]; then
  line=$("$cov" report "$first" "${objects[@]}" -instr-profile="$prof/all.profdata" \
    "$root"/libornicproto/src | awk '/^TOTAL/ {print $10}' | tr -d %)
  awk -v l="$line" -v m="$fail_under" 'BEGIN {exit !(l + 0 >= m + 0)}' ||
    { echo "libornicproto line coverage $line% < $fail_under%"; exit 1; }
fi
