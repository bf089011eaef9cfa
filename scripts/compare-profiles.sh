#!/usr/bin/env bash
# Runs every pcapgen profile on one workload and network and writes the
# side-by-side table and plots of docs/PROFILES.md:
#   docs/profiles/summary.md      the table (Markdown), regenerated
#   docs/profiles/<profile>.png   PSN against time by path, OOO-distance histogram
#   docs/profiles/<profile>.json  each run's --summary-json
# Usage: scripts/compare-profiles.sh [BUILD_DIR] [-- extra ornic-pcapgen options]
# Deterministic: the same build and options give the same files.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
[[ "${1:-}" == -- ]] && shift
gen=$build/bin/ornic-pcapgen
[[ -x $gen ]] || { echo "compare-profiles: $gen not found (build first)" >&2; exit 1; }
out=$root/docs/profiles
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
profiles=(ornic roce irn mprdma ioi)
common=(--seed 1 "$@")
for p in "${profiles[@]}"; do
  echo "compare-profiles: $p" >&2
  "$gen" -q -o "$tmp/$p.pcap" --profile "$p" "${common[@]}" \
    --summary-json "$out/$p.json" --plot "$out/$p.png"
done
/usr/bin/python3 - "$out" "${profiles[@]}" <<'PY' > "$out/summary.md"
import json, sys
out, profiles = sys.argv[1], sys.argv[2:]
runs = [json.load(open(f"{out}/{p}.json")) for p in profiles]
rows = [
    ("goodput (Gb/s)", lambda r: f"{r['goodput_gbps']:.2f}"),
    ("simulated time (us)", lambda r: f"{r['sim_time_us']:.0f}"),
    ("WQE completion mean (us)", lambda r: f"{r['wqe_completion_us']['mean']:.1f}"),
    ("WQE completion p99 (us)", lambda r: f"{r['wqe_completion_us']['p99']:.1f}"),
    ("WQE completion max (us)", lambda r: f"{r['wqe_completion_us']['max']:.1f}"),
    ("packets on the wire", lambda r: f"{r['packets_on_wire']}"),
    ("bytes on the wire", lambda r: f"{r['bytes_on_wire']}"),
    ("header overhead (%)", lambda r: f"{r['header_overhead_pct']:.2f}"),
    ("data packets sent", lambda r: f"{r['data_packets']}"),
    ("retransmissions", lambda r: f"{r['retransmissions']}"),
    ("ACKs", lambda r: f"{r['acks']}"),
    ("NAKs / NACKs", lambda r: f"{r['naks']}"),
    ("timeouts", lambda r: f"{r['timeouts']}"),
    ("packets lost in the fabric", lambda r: f"{r['drops_random'] + r['drops_rule']}"),
    ("duplicates received", lambda r: f"{r['duplicates_received']}"),
    ("most bitmap blocks one QP held", lambda r: f"{r['max_bitmap_blocks_per_qp']}" if r['profile'] == 'ornic' else "-"),
    ("WQEs verified", lambda r: f"{r['wqes_verified']} of {r['wqes_total']}"),
]
print("| | " + " | ".join(f"`{p}`" for p in profiles) + " |")
print("|---|" + "---:|" * len(profiles))
for name, f in rows:
    print(f"| {name} | " + " | ".join(f(r) for r in runs) + " |")
PY
echo "compare-profiles: wrote $out/summary.md and one .png and .json per profile" >&2
