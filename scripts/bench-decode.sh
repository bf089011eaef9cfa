#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What ornic_frame_decode costs per frame, beside tools/ornic-bench's reference
# parse (a benchmark, not a pass/fail test; issue 18):
#   1. ornic-bench: Mpps in ring and shuffled order, median and best, and the
#      library's share of the reference (CPU time, interleaved; noisy on a
#      shared machine, so read the medians and the shares);
#   2. callgrind on `ornic-bench --quick`: instructions, loads and stores per
#      call of ornic_frame_decode and of bench_ref_parse, inclusive of what
#      they call. These counts repeat exactly from run to run, so they are the
#      figures to compare across commits.
# The callgrind frames are the bench's own: its 1024-frame mix (each frame
# decoded while the ring is built and checked, then in the timed loops) and
# three single-opcode iCRC frames.
# Usage: scripts/bench-decode.sh [--build DIR] [--quick] [--no-callgrind] [--no-bench]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build quick='' callgrind=1 bench=1
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --quick) quick=--quick; shift ;;
    --no-callgrind) callgrind=''; shift ;;
    --no-bench) bench=''; shift ;;
    -h|--help) sed -n '3,15p' "$0"; exit 0 ;;
    *) echo "bench-decode: unknown argument $1" >&2; exit 2 ;;
  esac
done
bin=$build/bin/ornic-bench
[[ -x $bin ]] || { echo "bench-decode: $bin not built" >&2; exit 1; }
if [[ -n $bench ]]; then
  echo "\$ $bin $quick"
  "$bin" $quick
fi
[[ -n $callgrind ]] || exit 0
command -v valgrind >/dev/null || { echo "bench-decode: valgrind not installed" >&2; exit 1; }
tmp=$(mktemp -d /tmp/ornic-bdecode.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# per_call FUNCTION: "calls Ir Dr Dw" per call of FUNCTION, its callees included.
per_call() {
  local out=$tmp/cg.$1
  valgrind --tool=callgrind --cache-sim=yes --compress-strings=no --compress-pos=no \
    --toggle-collect="$1" --callgrind-out-file="$out" "$bin" --quick >/dev/null 2>&1
  # With collection on only inside FUNCTION, the totals are its inclusive
  # cost; the calls= line after each cfn=FUNCTION counts one call site.
  awk -v fn="cfn=$1" '
    $0 == fn { want = 1; next }
    want && /^calls=/ { split($1, c, "="); calls += c[2]; want = 0; next }
    /^totals:/ { ir = $2; dr = $3; dw = $4 }
    END { printf "%d %.1f %.1f %.1f\n", calls, ir / calls, dr / calls, dw / calls }' "$out"
}

echo
echo "callgrind, per call (inclusive), on ornic-bench --quick's frames:"
printf '  %-20s %8s %8s %8s %8s\n' function calls instr loads stores
for fn in ornic_frame_decode bench_ref_parse; do
  read -r calls ir dr dw < <(per_call "$fn")
  printf '  %-20s %8d %8s %8s %8s\n' "$fn" "$calls" "$ir" "$dr" "$dw"
done
