#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How fast ornic-pcapgen writes a capture, next to the cost of writing the
# same bytes at all (a benchmark, not a pass/fail test; issue 18):
#   1. `ornic-pcapgen --bench N -q -o /dev/null` (1 KiB frames and their ACKs,
#      PMTU 1024, no loss) against `dd if=/dev/zero bs=1M` of the same number
#      of bytes to a new file on tmpfs (/dev/shm), in interleaved rounds:
#      GB/s = bytes written / CPU time (user + system, every thread), median
#      and best of the rounds, and the ratio pcapgen / dd. CPU time, because
#      the machine is shared: wall time measures the neighbours;
#   2. the largest resident set (max RSS) of `--qps 1000 --wqes 2` with
#      256 KiB and 1 MiB WQEs, with their CPU time per captured frame.
# With --baseline DIR, a second build (e.g. the tree before a change) runs in
# the same rounds, and the ratios new / baseline are printed too.
# Usage: scripts/bench-pcapgen-io.sh [--build DIR] [--baseline DIR] [--rounds N] [--packets N]
#          [--summary FILE]   (also the figures as one JSON object, for bench-all.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/median.sh"
build=$root/build baseline='' rounds=7 packets=1000000 summary=''
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --packets) packets=$2; shift 2 ;;
    --summary) summary=$2; shift 2 ;;
    -h|--help) sed -n '3,16p' "$0"; exit 0 ;;
    *) echo "bench-pcapgen-io: unknown argument $1" >&2; exit 2 ;;
  esac
done
gens=("$build/bin/ornic-pcapgen")
[[ -n $baseline ]] && gens+=("$baseline/bin/ornic-pcapgen")
for g in "${gens[@]}"; do
  [[ -x $g ]] || { echo "bench-pcapgen-io: $g not found (build first)" >&2; exit 1; }
done
[[ -x /usr/bin/time ]] || { echo "bench-pcapgen-io: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[[ -d /dev/shm ]] || { echo "bench-pcapgen-io: no /dev/shm" >&2; exit 1; }
tmp=$(mktemp -d /tmp/bench-pcapgen-io.XXXXXX)
shm=$(mktemp -u /dev/shm/bench-pcapgen-io.XXXXXX)
trap 'rm -rf "$tmp" "$shm"' EXIT

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm), $(nproc) CPUs:" \
  "$(sed -n '/^model name/{s/^model name[^:]*: //p;q;}' /proc/cpuinfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $0 $*" | sed "s|$root/||"

# The bytes of the capture: the 24-byte header and a 16-byte header per frame.
"${gens[0]}" --bench "$packets" -q -o /dev/null --summary-json "$tmp/b.json" >/dev/null
bytes=$(python3 -c "import json; d = json.load(open('$tmp/b.json')); \
print(24 + 16 * d['packets_captured'] + d['bytes_captured'])")
if [[ -n $baseline ]]; then
  "${gens[1]}" --bench "$packets" -q -o /dev/null --summary-json "$tmp/b0.json" >/dev/null
  cmp -s "$tmp/b.json" "$tmp/b0.json" ||
    echo "# note: the two builds' --bench summaries differ: they do not simulate the same run"
fi
echo "# --bench $packets: $bytes bytes of pcap per run"

# cpu CMD...: "user+system wall" seconds of CMD (its output discarded), to
# the millisecond (bash's `time`): /usr/bin/time prints hundredths, 3% of a
# 0.3 s run, as large as the differences this script is for.
cpu() {
  local TIMEFORMAT='%3U %3S %3R'
  { time "$@" >/dev/null 2>&1; } 2>"$tmp/time"
  awk '{printf "%.3f %.3f\n", $1 + $2, $3}' "$tmp/time"
}
gbs() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.2f", (s > 0 ? b / s / 1e9 : 0) }'; }

declare -A cpus walls
for ((r = 1; r <= rounds; r++)); do
  for i in "${!gens[@]}"; do
    read -r c w < <(cpu "${gens[$i]}" --bench "$packets" -q -o /dev/null)
    cpus[g$i]+=" $c" walls[g$i]+=" $w"
  done
  read -r c w < <(cpu dd if=/dev/zero of="$shm" bs=1M count="$bytes" iflag=count_bytes)
  rm -f "$shm"
  cpus[dd]+=" $c" walls[dd]+=" $w"
done

best() { tr ' ' '\n' <<<"$1" | grep . | sort -g | sed -n 1p; } # the least of a list (sed reads it all: no SIGPIPE)

# row NAME KEY: median and best GB/s of CPU time, median of wall time.
row() {
  local med best wmed
  med=$(median "${cpus[$2]}")
  best=$(best "${cpus[$2]}")
  wmed=$(median "${walls[$2]}")
  printf '  %-34s %6s GB/s median %6s best   (CPU s: %s; wall median %s s)\n' "$1" \
    "$(gbs "$med")" "$(gbs "$best")" "${cpus[$2]# }" "$wmed"
}
ratio() { # KEY_A KEY_B: A's rate / B's rate, on medians and on bests
  local am bm ab bb
  am=$(median "${cpus[$1]}") bm=$(median "${cpus[$2]}")
  ab=$(best "${cpus[$1]}") bb=$(best "${cpus[$2]}")
  awk -v am="$am" -v bm="$bm" -v ab="$ab" -v bb="$bb" \
    'BEGIN { printf "%.2fx median, %.2fx best", bm / am, bb / ab }'
}
echo "write rate, bytes / CPU time, $rounds interleaved rounds:"
row "ornic-pcapgen -> /dev/null" g0
[[ -n $baseline ]] && row "baseline ornic-pcapgen -> /dev/null" g1
row "dd bs=1M -> /dev/shm (tmpfs)" dd
echo "  ornic-pcapgen / dd:          $(ratio g0 dd)"
if [[ -n $baseline ]]; then
  echo "  baseline / dd:               $(ratio g1 dd)"
  echo "  ornic-pcapgen / baseline:    $(ratio g0 g1)"
fi

echo "memory at --qps 1000 --wqes 2 (max RSS, /usr/bin/time), one run each:"
declare -A rss_kb
for size in 256K 1M; do
  for i in "${!gens[@]}"; do
    name=ornic-pcapgen
    ((i)) && name=baseline
    /usr/bin/time -f '%M %U %S' -o "$tmp/time" "${gens[$i]}" --qps 1000 --wqe-size "$size" --wqes 2 \
      -q -o /dev/null --summary-json "$tmp/q.json"
    read -r kb u s <"$tmp/time"
    ((i == 0)) && rss_kb[$size]=$kb
    frames=$(python3 -c "import json; print(json.load(open('$tmp/q.json'))['packets_captured'])")
    awk -v n="$name" -v z="$size" -v kb="$kb" -v u="$u" -v s="$s" -v f="$frames" 'BEGIN {
      cs = u + s
      printf "  %-14s --wqe-size %-4s %7.1f MB max RSS, %6.2f s CPU, %5.0f ns CPU per frame (%d frames)\n",
             n, z, kb / 1024, cs, cs * 1e9 / f, f }'
  done
done
if [[ -n $summary ]]; then
  printf '{"packets": %d, "rounds": %d, "bytes": %d, "pcapgen_gbs_median": %s, "pcapgen_gbs_best": %s, "dd_gbs_median": %s, "dd_gbs_best": %s, "rss_kb_256K": %d, "rss_kb_1M": %d}\n' \
    "$packets" "$rounds" "$bytes" "$(gbs "$(median "${cpus[g0]}")")" "$(gbs "$(best "${cpus[g0]}")")" \
    "$(gbs "$(median "${cpus[dd]}")")" "$(gbs "$(best "${cpus[dd]}")")" "${rss_kb[256K]}" "${rss_kb[1M]}" > "$summary"
fi
