#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What ornic-decode costs beside `cat` of the same capture (issue 18; a
# benchmark, not a pass/fail test). Generates a capture of N frames with
# ornic-pcapgen --bench, then measures the CPU time (user + system, from
# getrusage of each child) of
#   cat FILE >/dev/null            reading the bytes, nothing else
#   ornic-decode --stats FILE      reading, decoding, iCRC, analysis
#   ornic-decode FILE              + one text line per packet
#   ornic-decode --json FILE       + one JSON object per packet
# in interleaved rounds (each round runs all four, starting with a different
# one), the file in the page cache. Prints the median and the minimum of
# each, and each one's ratio to cat's median and minimum of the same run.
# CPU time, not wall time: the machine may be shared, and a process waiting
# for a core does not count.
# The kernel's copy out of the page cache is most of cat's time, and its
# cost depends on the state of those pages (on a VM a file written minutes
# ago read twice as fast as one written an hour before): compare ratios
# measured in one run, never across runs.
# Usage: scripts/bench-decode-io.sh [--build DIR] [--frames N] [--rounds R]
#          [--file PCAP] [--decoder BIN] [--compare OLD_BIN] [--keep]
#          [--summary FILE]
#   --file: use (or create, with --frames) this capture; --keep: do not
#   delete a generated one; --compare: also measure OLD_BIN (e.g. a build of
#   the previous commit) in the same rounds. ORNIC_DECODE_READER=libpcap in
#   the environment measures the libpcap reader instead of the tool's own
#   (core/reader.c). --summary: also write the figures as one JSON object
#   (what scripts/bench-all.sh reads).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build frames=1000000 rounds=7 file='' dec='' keep='' old='' summary=''
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --file) file=$2; shift 2 ;;
    --decoder) dec=$2; shift 2 ;;
    --compare) old=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --summary) summary=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "bench-decode-io: unknown argument $1" >&2; exit 2 ;;
  esac
done
dec=${dec:-$build/bin/ornic-decode}
gen=$build/bin/ornic-pcapgen
[[ -x $dec ]] || { echo "bench-decode-io: $dec not built" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-decode-io: needs python3" >&2; exit 1; }
tmp=$(mktemp -d /tmp/ornic-bdio.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [[ -z $file ]]; then
  file=$tmp/bench.pcap
  [[ -n $keep ]] && file=$PWD/bench-decode-io-$frames.pcap
fi
if [[ ! -s $file ]]; then
  [[ -x $gen ]] || { echo "bench-decode-io: $gen not built" >&2; exit 1; }
  "$gen" --bench "$frames" -o "$file" > /dev/null
fi

# The measuring child: runs one command with stdout to /dev/null and prints
# its user + system CPU seconds (RUSAGE_CHILDREN: microseconds, the
# python interpreter's own time excluded).
cat > "$tmp/cpu.py" << 'EOF'
import resource, subprocess, sys
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
if rc != 0:
    sys.exit(f"{sys.argv[1:]}: exit status {rc}")
print(f"{(r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime):.6f}")
EOF
names=(cat stats text json)
[[ -n $old ]] && names+=(old_stats old_text old_json)
cmd_of() {
  case $1 in
    cat) echo "cat $file" ;;
    stats) echo "$dec --stats $file" ;;
    text) echo "$dec $file" ;;
    json) echo "$dec --json $file" ;;
    old_stats) echo "$old --stats $file" ;;
    old_text) echo "$old $file" ;;
    old_json) echo "$old --json $file" ;;
  esac
}
cat "$file" > /dev/null # into the page cache
for n in "${names[@]}"; do : > "$tmp/t.$n"; done
for ((r = 0; r < rounds; r++)); do
  for ((i = 0; i < ${#names[@]}; i++)); do
    n=${names[$(((i + r) % ${#names[@]}))]}
    # shellcheck disable=SC2046 # the command is split into words on purpose
    python3 "$tmp/cpu.py" $(cmd_of "$n") >> "$tmp/t.$n"
  done
done

size=$(stat -c %s "$file")
echo "capture: $file ($size bytes, $frames frames); $rounds interleaved rounds"
echo "decoder: $dec${ORNIC_DECODE_READER:+ (ORNIC_DECODE_READER=$ORNIC_DECODE_READER)}"
[[ -n $old ]] && echo "compared with: $old"
python3 - "$tmp" "$summary" "$frames" "$rounds" "${names[@]}" << 'EOF'
import json, statistics, sys
tmp, summary, frames, rounds, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
t = {n: [float(x) for x in open(f"{tmp}/t.{n}")] for n in names}
med = {n: statistics.median(v) for n, v in t.items()}
low = {n: min(v) for n, v in t.items()}
labels = {"cat": "cat FILE", "stats": "ornic-decode --stats", "text": "ornic-decode (text)",
          "json": "ornic-decode --json", "old_stats": "old --stats", "old_text": "old (text)",
          "old_json": "old --json"}
print(f"{'CPU seconds':22} {'median':>8} {'min':>8} {'x cat (median)':>15} {'x cat (min)':>12}")
for n in names:
    print(f"{labels[n]:22} {med[n]:8.3f} {low[n]:8.3f} {med[n] / med['cat']:15.2f} "
          f"{low[n] / low['cat']:12.2f}")
if summary:
    with open(summary, "w") as f:
        json.dump({"frames": int(frames), "rounds": int(rounds),
                   "cpu_s_median": med, "cpu_s_min": low,
                   "x_cat_median": {n: med[n] / med["cat"] for n in names}}, f)
EOF
