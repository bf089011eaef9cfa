#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What ornic-decode costs beside the least work it cannot avoid (issue 33; a
# benchmark, not a pass/fail test). Generates a capture of N frames with
# ornic-pcapgen --bench, then measures the CPU time (user + system, from
# getrusage of each child) of
#   floor            ornic-decode-floor FILE: page-aligned read()s, the
#                    record walk, each frame's iCRC (libornicproto's CRC
#                    backend), Ethernet/IP/UDP/BTH, per-QP counters in a
#                    hash (tools/ornic-bench/floor_main.c): the reference
#   floor_mmap       the same over mmap (MADV_SEQUENTIAL)
#   stats            ornic-decode --stats FILE: + the whole decode, the
#                    analysis and its report
#   text, json       ornic-decode FILE, --json FILE: + a line per packet
#   text_file, json_file   the same, stdout a file on tmpfs (/dev/shm)
#                    instead of /dev/null
#   cat              cat FILE (reported only: its cost moves with the age of
#                    the file's pages, docs/PERFORMANCE.md)
# in interleaved rounds (each round runs them all, starting with a different
# one), the file in the page cache. Prints the median and the minimum of
# each, --stats against the floor, text and --json against --stats, each
# ratio of medians and of minima taken in the same rounds. CPU time, not
# wall time: the machine may be shared, and a process waiting for a core
# does not count. Compare ratios measured in one run, never across runs.
# With --callgrind N, also the instructions per frame of the floor and of
# --stats (callgrind, on captures of N and 2N frames: the difference over N,
# so start-up and the report's fixed part cancel out).
# Usage: scripts/bench-decode-io.sh [--build DIR] [--frames N] [--rounds R]
#          [--file PCAP] [--decoder BIN] [--compare OLD_BIN] [--keep]
#          [--cases "floor stats ..."] [--callgrind N] [--summary FILE]
#   --file: use (or create, with --frames) this capture; --keep: do not
#   delete a generated one; --compare: also measure OLD_BIN (e.g. a build of
#   the previous commit) in the same rounds; --cases: measure only these
#   (also: floor_populate, the floor with MAP_POPULATE). ORNIC_DECODE_READER=
#   libpcap in the environment measures ornic-decode's libpcap reader
#   instead of its own (core/reader.c). --summary: also write the figures as
#   one JSON object (what scripts/bench-all.sh reads).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build frames=1000000 rounds=7 file='' dec='' keep='' old='' summary='' cases='' cg=''
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --file) file=$2; shift 2 ;;
    --decoder) dec=$2; shift 2 ;;
    --compare) old=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --cases) cases=$2; shift 2 ;;
    --callgrind) cg=$2; shift 2 ;;
    --summary) summary=$2; shift 2 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "bench-decode-io: unknown argument $1" >&2; exit 2 ;;
  esac
done
dec=${dec:-$build/bin/ornic-decode}
floor=$build/bin/ornic-decode-floor
gen=$build/bin/ornic-pcapgen
for b in "$dec" "$floor"; do [[ -x $b ]] || { echo "bench-decode-io: $b not built" >&2; exit 1; }; done
command -v python3 >/dev/null || { echo "bench-decode-io: needs python3" >&2; exit 1; }
tmp=$(mktemp -d /tmp/ornic-bdio.XXXXXX)
shm=$(mktemp -d /dev/shm/ornic-bdio.XXXXXX) # tmpfs: the output files of text_file, json_file
trap 'rm -rf "$tmp" "$shm"' EXIT
if [[ -z $file ]]; then
  file=$tmp/bench.pcap
  [[ -n $keep ]] && file=$PWD/bench-decode-io-$frames.pcap
fi
if [[ ! -s $file ]]; then
  [[ -x $gen ]] || { echo "bench-decode-io: $gen not built" >&2; exit 1; }
  "$gen" --bench "$frames" -o "$file" > /dev/null
fi
nframes=$("$floor" "$file" | sed -n '1s/^records=\([0-9]*\) .*/\1/p')

# The measuring child: runs one command with stdout to a file (/dev/null or
# one on tmpfs, emptied first) and prints its user + system CPU seconds
# (RUSAGE_CHILDREN: microseconds, the python interpreter's own time
# excluded).
cat > "$tmp/cpu.py" << 'EOF'
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = subprocess.call(sys.argv[2:], stdout=out)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
if rc != 0:
    sys.exit(f"{sys.argv[2:]}: exit status {rc}")
print(f"{(r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime):.6f}")
EOF
if [[ -n $cases ]]; then
  read -r -a names <<< "$cases"
else
  names=(floor floor_mmap stats text json text_file json_file cat)
  [[ -n $old ]] && names+=(old_stats old_text old_json)
fi
# The output file and the command of a case.
out_of() {
  case $1 in
    *_file) echo "$shm/out" ;;
    *) echo /dev/null ;;
  esac
}
cmd_of() {
  case $1 in
    cat) echo "cat $file" ;;
    floor) echo "$floor $file" ;;
    floor_mmap) echo "$floor --mmap $file" ;;
    floor_populate) echo "$floor --mmap-populate $file" ;;
    stats) echo "$dec --stats $file" ;;
    text|text_file) echo "$dec $file" ;;
    json|json_file) echo "$dec --json $file" ;;
    old_stats) echo "$old --stats $file" ;;
    old_text) echo "$old $file" ;;
    old_json) echo "$old --json $file" ;;
    *) echo "bench-decode-io: unknown case $1" >&2; exit 2 ;;
  esac
}
cat "$file" > /dev/null # into the page cache
for n in "${names[@]}"; do cmd_of "$n" > /dev/null; : > "$tmp/t.$n"; done
for ((r = 0; r < rounds; r++)); do
  for ((i = 0; i < ${#names[@]}; i++)); do
    n=${names[$(((i + r) % ${#names[@]}))]}
    # shellcheck disable=SC2046 # the command is split into words on purpose
    python3 "$tmp/cpu.py" "$(out_of "$n")" $(cmd_of "$n") >> "$tmp/t.$n"
    rm -f "$shm/out"
  done
done

# Instructions per frame (callgrind): the runs on N and 2N frames, their
# difference over N.
: > "$tmp/ins"
if [[ -n $cg ]]; then
  command -v valgrind > /dev/null || { echo "bench-decode-io: --callgrind needs valgrind" >&2; exit 1; }
  [[ -x $gen ]] || { echo "bench-decode-io: $gen not built" >&2; exit 1; }
  "$gen" --bench "$cg" -o "$tmp/cg1.pcap" > /dev/null
  "$gen" --bench $((2 * cg)) -o "$tmp/cg2.pcap" > /dev/null
  ir() { # total instructions of a command under callgrind
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  f1=$("$floor" "$tmp/cg1.pcap" | sed -n '1s/^records=\([0-9]*\) .*/\1/p')
  f2=$("$floor" "$tmp/cg2.pcap" | sed -n '1s/^records=\([0-9]*\) .*/\1/p')
  for c in floor stats; do
    if [[ $c == floor ]]; then a=$(ir "$floor" "$tmp/cg1.pcap"); b=$(ir "$floor" "$tmp/cg2.pcap")
    else a=$(ir "$dec" --stats "$tmp/cg1.pcap"); b=$(ir "$dec" --stats "$tmp/cg2.pcap"); fi
    echo "$c $a $b $f1 $f2" >> "$tmp/ins"
  done
fi

size=$(stat -c %s "$file")
echo "capture: $file ($size bytes, $nframes frames); $rounds interleaved rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "decoder: $dec${ORNIC_DECODE_READER:+ (ORNIC_DECODE_READER=$ORNIC_DECODE_READER)}; floor: $floor"
[[ -n $old ]] && echo "compared with: $old"
python3 - "$tmp" "$summary" "$nframes" "$rounds" "${names[@]}" << 'EOF'
import json, statistics, sys
tmp, summary, frames, rounds, names = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
t = {n: [float(x) for x in open(f"{tmp}/t.{n}")] for n in names}
med = {n: statistics.median(v) for n, v in t.items()}
low = {n: min(v) for n, v in t.items()}
labels = {"cat": "cat FILE", "floor": "floor (read)", "floor_mmap": "floor (mmap)",
          "floor_populate": "floor (MAP_POPULATE)", "stats": "ornic-decode --stats",
          "text": "ornic-decode (text)", "json": "ornic-decode --json", "text_file": "text > tmpfs file",
          "json_file": "--json > tmpfs file", "old_stats": "old --stats", "old_text": "old (text)",
          "old_json": "old --json"}
# Each case's reference: --stats against the floor, the lines against --stats.
ref_of = {"stats": "floor", "old_stats": "floor", "floor_mmap": "floor", "floor_populate": "floor",
          "cat": "floor", "text": "stats", "json": "stats", "text_file": "stats", "json_file": "stats",
          "old_text": "old_stats", "old_json": "old_stats"}
def ratio(d, n):
    r = ref_of.get(n)
    return d[n] / d[r] if r in d and d[r] > 0 else None
print(f"{'CPU seconds':22} {'median':>8} {'min':>8} {'ns/frame':>9} {'reference':>12} {'x ref (median)':>15} {'x ref (min)':>12}")
for n in names:
    rm, rl = ratio(med, n), ratio(low, n)
    print(f"{labels[n]:22} {med[n]:8.3f} {low[n]:8.3f} {med[n] / frames * 1e9:9.1f} {ref_of.get(n, '-'):>12} "
          f"{'-' if rm is None else f'{rm:.2f}':>15} {'-' if rl is None else f'{rl:.2f}':>12}")
ins = {}
for line in open(f"{tmp}/ins"):
    c, a, b, f1, f2 = line.split()
    ins[c] = (int(b) - int(a)) / (int(f2) - int(f1))
if ins:
    print("instructions per frame (callgrind; runs on two captures, their difference per frame): "
          + ", ".join(f"{c} {v:.0f}" for c, v in ins.items()))
if summary:
    with open(summary, "w") as f:
        json.dump({"frames": frames, "rounds": int(rounds), "cpu_s_median": med, "cpu_s_min": low,
                   "x_ref_median": {n: ratio(med, n) for n in names if ratio(med, n) is not None},
                   "x_ref_min": {n: ratio(low, n) for n in names if ratio(low, n) is not None},
                   "x_cat_median": {n: med[n] / med["cat"] for n in names} if "cat" in med else {},
                   "instructions_per_frame": ins}, f)
EOF
