#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every pcapgen profile that --plot draws (`ornic-pcapgen --list-profiles`,
# capability `plot`: all but rc, whose data flows both ways) on one workload
# and network and writes the side-by-side tables and plots of docs/PROFILES.md:
#   docs/profiles/summary.md          the table (Markdown), regenerated
#   docs/profiles/<profile>.png       PSN against time by path, OOO-distance histogram
#   docs/profiles/<profile>.json      each run's --summary-json, without the "truth" object
#   docs/profiles/pmtu1024/summary.md the same workload with 1 KiB packets (no plots)
#   docs/profiles/pmtu1024/<profile>.json
# The workload: 1 QP posting 8 RDMA WRITEs of 4 MiB, one at a time, over the
# default network (4 paths, one-way delays 2 to 22 us, random spraying, 100
# Gb/s, 0.05% loss), seed 1; PMTU 4096 (the default), then PMTU 1024 with
# OTD 256 (OTD must exceed the delay spread in packets: about 220 at 1 KiB;
# Eq. 3, ornic's default --otd auto, gives 245 and 62 at 4 KiB; 256 is kept
# given so that run 2 stays the same for every profile: it is also a term of
# the roce, mprdma and ioi timeouts).
# Each table has, beside `ornic`, the column `ornic` (paper only): the ornic
# profile with every rule that is ours, not the paper's (docs/PROTOCOL.md 1.1),
# switched off ($paper below; its JSON is docs/profiles/ornic-paper.json, no
# plot). And one table more, what each of those rules buys:
#   docs/profiles/additions.md        ornic at 2% loss on the default workload
#                                     (16 WRITEs of 1 MiB, seed 1) with each
#                                     rule off alone, all off, and irn
# Usage: scripts/compare-profiles.sh [BUILD_DIR] [-- extra ornic-pcapgen options]
# Extra options apply to both runs, after the workload's (so they override it),
# not to additions.md.
# Deterministic: the same build and options give the same files. About 5 s
# on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
[[ "${1:-}" == -- ]] && shift
gen=$build/bin/ornic-pcapgen
[[ -x $gen ]] || { echo "compare-profiles: $gen not found (build first)" >&2; exit 1; }
out=$root/docs/profiles
mkdir -p "$out" "$out/pmtu1024"
# The profile table is pcapgen's (--list-profiles: name, description,
# capabilities, tab-separated).
listing=$("$gen" --list-profiles)
profiles=()
while IFS=$'\t' read -r name _ caps; do
  [[ " $caps " == *" plot "* ]] && profiles+=("$name")
done <<<"$listing"
workload=(--seed 1 --wqe-size 4M --wqes 8)
# ornic as in the paper: each of our rules off (ornic-pcapgen --help; docs/PROFILES.md,
# "What our additions buy", has what each does).
paper=(--resp-timeout-nak off --last-timeout-nak off --nak-pacing off --nak-loss-limit off
       --nak-blocks one --rto-probe off)
# The runs of each table: a profile, and after ornic its paper-only form.
runs=()
for p in "${profiles[@]}"; do
  runs+=("$p")
  [[ $p == ornic ]] && runs+=(ornic-paper)
done
# opts RUN: its ornic-pcapgen options.
opts() { if [[ $1 == ornic-paper ]]; then echo --profile ornic "${paper[@]}"; else echo --profile "$1"; fi; }

# table DIR: DIR/summary.md from DIR/<profile>.json
table() {
  /usr/bin/python3 - "$1" "$listing" "${runs[@]}" <<'PY' > "$1/summary.md"
import json, sys
out, listing, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
label = lambda p: "`ornic` (paper only)" if p == "ornic-paper" else f"`{p}`"
caps = {line.split("\t")[0]: line.split("\t")[2].split() for line in listing.splitlines()}
runs = [json.load(open(f"{out}/{p}.json")) for p in profiles]
rows = [
    ("goodput (Gb/s)", lambda r: f"{r['goodput_gbps']:.2f}"),
    ("simulated time (us)", lambda r: f"{r['sim_time_us']:.0f}"),
    ("WQE completion mean (us)", lambda r: f"{r['wqe_completion_us']['mean']:.1f}"),
    ("WQE completion p99 (us)", lambda r: f"{r['wqe_completion_us']['p99']:.1f}"),
    ("WQE completion max (us)", lambda r: f"{r['wqe_completion_us']['max']:.1f}"),
    ("packets on the wire", lambda r: f"{r['packets_on_wire']}"),
    ("bytes on the wire", lambda r: f"{r['bytes_on_wire']}"),
    ("bytes on the wire per byte written", lambda r: f"{r['bytes_on_wire'] / r['bytes_completed']:.3f}"),
    ("header overhead (%)", lambda r: f"{r['header_overhead_pct']:.2f}"),
    ("data packets sent", lambda r: f"{r['data_packets']}"),
    ("retransmissions", lambda r: f"{r['retransmissions']}"),
    ("ACKs", lambda r: f"{r['acks']}"),
    ("NAKs / NACKs", lambda r: f"{r['naks']}"),
    ("timeouts", lambda r: f"{r['timeouts']}"),
    ("packets lost in the fabric", lambda r: f"{r['drops_random'] + r['drops_rule']}"),
    ("dropped by the receiver", lambda r: f"{r['receiver_drops']}" if "receiver-drops" in caps[r['profile']] else "-"),
    ("duplicates received", lambda r: f"{r['duplicates_received']}"),
    ("most bitmap blocks one QP held", lambda r: f"{r['max_bitmap_blocks_per_qp']}" if "bitmap-pool" in caps[r['profile']] else "-"),
    ("WQEs verified", lambda r: f"{r['wqes_verified']} of {r['wqes_total']}"),
]
print("| | " + " | ".join(label(p) for p in profiles) + " |")
print("|---|" + "---:|" * len(profiles))
for name, f in rows:
    print(f"| {name} | " + " | ".join(f(r) for r in runs) + " |")
PY
}

# strip_truth FILE: a --summary-json without its "truth" object (the per-frame
# ground truth: megabytes for roce, and not what the document shows).
strip_truth() {
  /usr/bin/python3 - "$1" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
cut = text.find(',\n  "truth": {')
if cut >= 0:
    open(path, "w").write(text[:cut] + "\n}\n")
PY
}

# The captures are not kept: the summaries and plots are what the document shows.
for p in "${runs[@]}"; do
  echo "compare-profiles: $p" >&2
  plot=(--plot "$out/$p.png")
  [[ $p == ornic-paper ]] && plot=()
  # shellcheck disable=SC2046
  "$gen" -q -o /dev/null $(opts "$p") "${workload[@]}" "$@" \
    --summary-json "$out/$p.json" "${plot[@]}"
  strip_truth "$out/$p.json"
done
table "$out"
for p in "${runs[@]}"; do
  echo "compare-profiles: $p, PMTU 1024" >&2
  # shellcheck disable=SC2046
  "$gen" -q -o /dev/null $(opts "$p") "${workload[@]}" --pmtu 1024 --otd 256 "$@" \
    --summary-json "$out/pmtu1024/$p.json"
  strip_truth "$out/pmtu1024/$p.json"
done
table "$out/pmtu1024"

# What each rule of ours buys: docs/tests/pcapgen_table.py's table (the same
# command as docs/PROFILES.md's region, so the two cannot differ).
echo "compare-profiles: ornic's additions, 2% loss" >&2
# shellcheck disable=SC2016 # the backticks are Markdown, not a command
/usr/bin/python3 "$root/tests/docs/pcapgen_table.py" --pcapgen "$gen" --first 'run (2% loss, seed 1)' \
  --run '`ornic` (all ours on: the default)=--profile ornic' \
  --run '`--resp-timeout-nak off`=--profile ornic --resp-timeout-nak off' \
  --run '`--last-timeout-nak off`=--profile ornic --last-timeout-nak off' \
  --run '`--nak-pacing off`=--profile ornic --nak-pacing off' \
  --run '`--nak-loss-limit off`=--profile ornic --nak-loss-limit off' \
  --run '`--nak-blocks one`=--profile ornic --nak-blocks one' \
  --run '`--rto-probe off`=--profile ornic --rto-probe off' \
  --run "\`ornic\` (paper only: all six off)=--profile ornic ${paper[*]}" \
  --run '`irn`=--profile irn' \
  --metrics goodput,bytes_per_byte,retx,dups,naks,timeouts --align right \
  -- --seed 1 --loss 0.02 >"$out/additions.md"
echo "compare-profiles: wrote $out/summary.md, $out/pmtu1024/summary.md, $out/additions.md," \
  "one .png (not for ornic-paper) and .json per run" >&2
