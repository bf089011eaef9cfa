#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The conversation analysis at scale (issue 33, "Memory and time per
# conversation"): `ornic-decode --stats` on captures of about 1M frames that
# hold 1, 1,024 and 65,536 conversations (QP pairs), the last two with 16 QPs
# per host pair and 65,536 also with 4,096 (scripts/scale-capture.py makes
# them from ornic-pcapgen). Per capture: conversations, frames, CPU time
# (user + system, the median of interleaved rounds), CPU per frame and its
# ratio to the 1-conversation capture's, max RSS, and RSS per conversation
# (max RSS over the same run with --no-analysis, per conversation). The
# analysis runs with --max-memory 0: the default budget (128 MiB) tracks only
# part of 65,536 conversations. A benchmark, not a test: exit 1 only if
# something could not run. About 2 minutes on 2 cores (--quick: 1).
# Usage: scripts/bench-scale.sh [--build DIR] [--frames N] [--rounds N]
#                               [--compare DECODER] [--keep DIR] [--markdown]
#   --build DIR        a release build (default: build)
#   --frames N         frames per capture (default 1048576)
#   --rounds N         rounds per capture and program (default 3)
#   --compare DECODER  another ornic-decode measured in the same rounds (an
#                      older build): its rows follow, marked with its path
#   --keep DIR         make (or reuse) the captures there and keep them
#   --markdown         the table as Markdown (docs/PERFORMANCE.md, "Scale")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build frames=1048576 rounds=3 compare='' keep='' md=''
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --compare) compare=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --markdown) md=1; shift ;;
    -h|--help) sed -n '3,22p' "$0"; exit 0 ;;
    *) echo "bench-scale: unknown argument $1" >&2; exit 2 ;;
  esac
done
dec=$build/bin/ornic-decode gen=$build/bin/ornic-pcapgen
for b in "$dec" "$gen" ${compare:+"$compare"}; do
  [[ -x $b ]] || { echo "bench-scale: $b not built" >&2; exit 1; }
done
[[ -x /usr/bin/time ]] || { echo "bench-scale: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if [[ -n $keep ]]; then
  dir=$keep
  mkdir -p "$dir"
else
  dir=$(mktemp -d /tmp/ornic-bench-scale.XXXXXX)
  trap 'rm -rf "$dir"' EXIT
fi
# shellcheck source=lib/median.sh
source "$root/scripts/lib/median.sh"

shapes=("1 1" "1024 16" "65536 16" "65536 4096")
for s in "${shapes[@]}"; do
  read -r convs qps <<< "$s"
  f=$dir/c$convs-q$qps-f$frames.pcap
  [[ -s $f ]] || python3 "$root/scripts/scale-capture.py" "$gen" "$convs" "$qps" "$frames" "$f" \
    > /dev/null || { echo "bench-scale: making $f failed" >&2; exit 1; }
done

# run PROGRAM FILE ARGS...: "cpu_seconds max_rss_kb" of one --stats run
run() {
  local prog=$1 file=$2; shift 2
  /usr/bin/time -f '%U %S %M' -o "$dir/time.txt" "$prog" --stats "$@" "$file" > /dev/null
  awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$dir/time.txt"
}

progs=("$dec")
[[ -n $compare ]] && progs+=("$compare")
declare -A cpu rss base
for ((r = 0; r < rounds; r++)); do # interleaved: every file and program in each round
  for s in "${shapes[@]}"; do
    read -r convs qps <<< "$s"
    f=$dir/c$convs-q$qps-f$frames.pcap
    for p in "${progs[@]}"; do
      read -r c m < <(run "$p" "$f" --max-memory 0)
      cpu[$p/$s]+="$c " rss[$p/$s]=$m
    done
    read -r _ m < <(run "$dec" "$f" --no-analysis)
    base[$s]=$m
  done
done

if [[ -n $md ]]; then
  echo "| conversations | QPs per host pair | frames | program | CPU (s) | ns per frame | x 1 conversation | max RSS (MB) | RSS per conversation (KB) |"
  echo "|---|---|---|---|---|---|---|---|---|"
else
  printf '%13s %6s %9s %8s %9s %8s %10s %14s  %s\n' conversations qps/pair frames 'CPU s' 'ns/frame' \
    'x 1 conv' 'max RSS MB' 'RSS/conv KB' program
fi
for p in "${progs[@]}"; do
  one=''
  for s in "${shapes[@]}"; do
    read -r convs qps <<< "$s"
    f=$dir/c$convs-q$qps-f$frames.pcap
    # conversations and frames as the program counts them
    out=$("$p" --stats --max-memory 0 "$f" | grep -E '^(packets|conversations) ')
    n=$(awk '/^conversations /{ print $2 }' <<< "$out")
    nf=$(awk '/^packets /{ print $2 }' <<< "$out")
    c=$(median "${cpu[$p/$s]}")
    ns=$(awk -v c="$c" -v f="$nf" 'BEGIN { printf "%.0f", c * 1e9 / f }')
    [[ -z $one ]] && one=$ns
    x=$(awk -v a="$ns" -v b="$one" 'BEGIN { printf "%.2f", a / b }')
    mb=$(awk -v m="${rss[$p/$s]}" 'BEGIN { printf "%.1f", m / 1024 }')
    per=$(awk -v m="${rss[$p/$s]}" -v b="${base[$s]}" -v n="$n" \
      'BEGIN { printf "%.2f", (m - b) / n }')
    name=${p/#$root\//}
    if [[ -n $md ]]; then
      echo "| $n | $qps | $nf | \`$name\` | $c | $ns | $x | $mb | $per |"
    else
      printf '%13s %6s %9s %8s %9s %8s %10s %14s  %s\n' "$n" "$qps" "$nf" "$c" "$ns" "$x" "$mb" "$per" "$name"
    fi
  done
done
