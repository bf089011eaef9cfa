#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cost of libornicproto's conversation analysis inside `ornic-decode --stats`
# (a benchmark, not a pass/fail test). One run, interleaved rounds, CPU time
# (user+sys of each process, from bash's `times` of a subshell), medians and
# minima:
#   with      ornic-decode --stats FILE                (the engine on)
#   without   ornic-decode --stats --no-analysis FILE  (decode, iCRC, counters)
#   old       an older ornic-decode --stats FILE, if --old BIN is given (e.g.
#             one built from the commit before the engine, whose --stats had
#             its own per-QP OOO/duplicate counting)
# and the ratios with/without and with/old (target: at most 1.3).
# The capture (default: 1M frames from `ornic-pcapgen --bench 1000000 --pmtu
# 1024`, an ORNIC run whose reordering makes NAKs and retransmissions: the
# engine's hard case) is read once before timing, so the page cache holds it.
# Usage: scripts/analysis-speed.sh [--rounds N] [--build DIR] [--old BIN] [--file CAP]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/median.sh
. "$root/scripts/lib/median.sh"
rounds=7 build=$root/build old= file=
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --old) old=$2; shift 2 ;;
    --file) file=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "analysis-speed: unknown argument $1" >&2; exit 2 ;;
  esac
done
dec=$build/bin/ornic-decode
[[ -x $dec ]] || { echo "analysis-speed: $dec not built" >&2; exit 1; }
tmp=$(mktemp -d /tmp/ornic-aspeed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [[ -z $file ]]; then
  file=$tmp/1m.pcap
  "$build/bin/ornic-pcapgen" --bench 1000000 --pmtu 1024 -o "$file" >/dev/null
fi
cat "$file" >/dev/null

# cpu CMD...: CPU seconds (user+sys) the command used.
cpu() {
  local t
  t=$( (
    "$@" >/dev/null
    times
  ) | tail -1)
  # `times` prints the children's "user sys" as e.g. "0m0.210s 0m0.040s".
  awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' <<<"$t"
}

with="" without="" older=""
for ((r = 1; r <= rounds; r++)); do
  with+=" $(cpu "$dec" --stats "$file")"
  without+=" $(cpu "$dec" --stats --no-analysis "$file")"
  [[ -n $old ]] && older+=" $(cpu "$old" --stats "$file")"
done
min() { tr ' ' '\n' <<<"$1" | grep . | sort -g | sed -n 1p; } # sed reads to the end: no SIGPIPE upstream
frames=$("$dec" --stats --json --no-analysis "$file" | grep -o '"total":[0-9]*' | sed -n 1p | cut -d: -f2)
printf 'capture: %s (%s frames), %d interleaved rounds, CPU seconds (user+sys)\n' "$file" "$frames" "$rounds"
printf '%-9s median %6s  min %6s\n' with "$(median "$with")" "$(min "$with")"
printf '%-9s median %6s  min %6s\n' without "$(median "$without")" "$(min "$without")"
[[ -n $old ]] && printf '%-9s median %6s  min %6s\n' old "$(median "$older")" "$(min "$older")"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf 'with/without: median %s, min %s\n' "$(ratio "$(median "$with")" "$(median "$without")")" \
  "$(ratio "$(min "$with")" "$(min "$without")")"
if [[ -n $old ]]; then
  printf 'with/old:     median %s, min %s\n' "$(ratio "$(median "$with")" "$(median "$older")")" \
    "$(ratio "$(min "$with")" "$(min "$older")")"
fi
