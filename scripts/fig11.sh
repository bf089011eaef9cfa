#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ORNIC paper's Fig. 11 (Ma et al., Electronics 14(1):88, 2025) by mechanism:
# RDMA WRITE goodput at 100 Gb/s, PMTU 4096, through a network emulator that
# reorders packets, against the largest OOO distance X it allows (0: in order,
# 8, 16, 32, 63), for ornic, roce --rnic ideal, roce --rnic commodity and
# the two NICs the paper measured, roce --rnic ernic and roce --rnic cx5
# (pcapgen/README.md, "Profile roce: --rnic"; docs/PROFILES.md, "Fig. 11").
#
#   OUTDIR/fig11.csv           one line per X: goodput of the five, and the
#                              retransmissions, NAKs, NAKs ignored and timeouts
#                              of roce ideal and commodity
#   OUTDIR/fig11-ablation.csv  roce commodity with one behaviour at a time put
#                              back to ideal, to show which one costs what
#   OUTDIR/fig11.md            both as Markdown tables (docs/PROFILES.md shows them)
#   OUTDIR/fig11.png           the goodput plot (gnuplot; log scale)
#   OUTDIR/fig11/*.json        every run's --summary-json, without the "truth" object
#
# The network: one path (2 us one way, no delay spread) and --reorder-max X+1,
# the emulator (net.h): no packet X+1 or more PSNs out of order; no loss; seed 1.
# The work: one QP, 2 RDMA WRITEs of 16 MiB (8192 packets), one at a time. With
# 16 MiB WQEs the closed loop's idle round trip at each WQE's end, which the
# emulator's hold lengthens, costs ornic little: 95.98 Gb/s at X = 63 against
# 97.71 in order (with 4 x 1 MiB WQEs: 71.73 at X = 63); roce commodity, whose runs cost
# most (every timeout resends up to --window packets), gives the same tiny
# fraction whatever the size (X = 8: 0.033 Gb/s with 1 MiB, 0.025 with 16 MiB,
# 0.022 with 64 MiB). The ablation uses 2 x 4 MiB. About 40 s on 2 cores (two
# runs at a time).
# Usage: scripts/fig11.sh [BUILD_DIR] [OUTDIR]   (defaults: build, docs/profiles)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/docs/profiles}
gen=$build/bin/ornic-pcapgen
[[ -x $gen ]] || { echo "fig11: $gen not found (build first)" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "fig11: needs gnuplot (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out/fig11"
distances=(0 8 16 32 63)
net=(--paths 1 --delay-spread-us 0 --base-delay-us 2 --rate-gbps 100 --pmtu 4096 --loss 0 --seed 1)
main_work=(--wqes 2 --wqe-size 16M)
ablation_work=(--wqes 2 --wqe-size 4M)
models=("ornic:--profile ornic" "ideal:--profile roce --rnic ideal"
        "commodity:--profile roce --rnic commodity" "ernic:--profile roce --rnic ernic"
        "cx5:--profile roce --rnic cx5")
ablations=("commodity:" "nak-delay-0:--rnic-nak-delay-us 0" "ack-req-0:--rnic-ack-req 0"
           "nak-in-retry-act:--rnic-nak-in-retry act" "rto-adaptive:--rnic-rto-us 0")

# One line per run: NAME then its options; xargs runs two at a time.
runs() {
  for x in "${distances[@]}"; do
    for m in "${models[@]}"; do
      echo "${m%%:*}-$x ${m#*:} ${main_work[*]} --reorder-max $((x + 1))"
    done
    ((x)) || continue
    for a in "${ablations[@]}"; do
      echo "ablation-${a%%:*}-$x --profile roce --rnic commodity ${a#*:} ${ablation_work[*]}" \
        "--reorder-max $((x + 1))"
    done
  done
}
# Each summary is kept without its "truth" object (the per-frame ground truth:
# up to a million frame numbers for a roce commodity run).
strip_truth='
import sys
path = sys.argv[1]
text = open(path).read()
cut = text.find(",\n  \"truth\": {")
if cut >= 0:
    open(path, "w").write(text[:cut] + "\n}\n")
'
netopts="${net[*]}"
export gen out netopts strip_truth
runs | xargs -P 2 -L 1 bash -c 'name=$0; echo "fig11: $name" >&2;
  "$gen" -q -o /dev/null $netopts "$@" --summary-json "$out/fig11/$name.json" &&
  /usr/bin/python3 -c "$strip_truth" "$out/fig11/$name.json"'

/usr/bin/python3 - "$out" "${distances[*]}" <<'PY'
import json, sys
out, distances = sys.argv[1], [int(x) for x in sys.argv[2].split()]
run = lambda name: json.load(open(f"{out}/fig11/{name}.json"))
with open(f"{out}/fig11.csv", "w") as f:
    f.write("ooo_distance,ornic_gbps,roce_ideal_gbps,roce_commodity_gbps,ideal_retransmissions,"
            "ideal_naks,commodity_retransmissions,commodity_naks,commodity_naks_ignored,"
            "commodity_timeouts,roce_ernic_gbps,roce_cx5_gbps\n")
    for x in distances:
        o, i, c = run(f"ornic-{x}"), run(f"ideal-{x}"), run(f"commodity-{x}")
        e, x5 = run(f"ernic-{x}"), run(f"cx5-{x}")
        f.write(f"{x},{o['goodput_gbps']:.3f},{i['goodput_gbps']:.3f},{c['goodput_gbps']:.4f},"
                f"{i['retransmissions']},{i['naks']},{c['retransmissions']},{c['naks']},"
                f"{c['naks_ignored']},{c['timeouts']},{e['goodput_gbps']:.4f},"
                f"{x5['goodput_gbps']:.4f}\n")
variants = ["commodity", "nak-delay-0", "ack-req-0", "nak-in-retry-act", "rto-adaptive"]
with open(f"{out}/fig11-ablation.csv", "w") as f:
    f.write("ooo_distance," + ",".join(v.replace("-", "_") + "_gbps" for v in variants) + "\n")
    for x in distances[1:]:
        f.write(f"{x}," + ",".join(f"{run(f'ablation-{v}-{x}')['goodput_gbps']:.4f}"
                                   for v in variants) + "\n")
with open(f"{out}/fig11.md", "w") as f:
    f.write("| OOO distance | ornic (Gb/s) | roce ideal (Gb/s) | roce commodity (Gb/s) | ideal: "
            "resent / NAKs | commodity: resent / NAKs / ignored / timeouts | roce ernic (Gb/s) | "
            "roce cx5 (Gb/s) |\n")
    f.write("|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for x in distances:
        o, i, c = run(f"ornic-{x}"), run(f"ideal-{x}"), run(f"commodity-{x}")
        e, x5 = run(f"ernic-{x}"), run(f"cx5-{x}")
        f.write(f"| {x} | {o['goodput_gbps']:.2f} | {i['goodput_gbps']:.2f} | "
                f"{c['goodput_gbps']:.3f} | {i['retransmissions']} / {i['naks']} | "
                f"{c['retransmissions']} / {c['naks']} / {c['naks_ignored']} / {c['timeouts']} | "
                f"{e['goodput_gbps']:.3f} | {x5['goodput_gbps']:.3f} |\n")
    f.write("\n| OOO distance | commodity | NAK at once | ACK per --ack-every | NAKs in a resend "
            "acted on | adaptive RTO |\n|---:|---:|---:|---:|---:|---:|\n")
    for x in distances[1:]:
        f.write(f"| {x} | " + " | ".join(f"{run(f'ablation-{v}-{x}')['goodput_gbps']:.3f}"
                                          for v in variants) + " |\n")
PY

gnuplot <<EOF
set terminal pngcairo size 900,560 font ",11"
set output "$out/fig11.png"
set datafile separator ","
set title "WRITE goodput through a reordering emulator (100 Gb/s, PMTU 4096, 2 x 16 MiB)"
set xlabel "largest OOO distance (PSNs; --reorder-max = distance + 1)"
set ylabel "goodput (Gb/s)"
set logscale y
set yrange [0.01:200]
set xrange [-2:66]
set xtics (0, 8, 16, 32, 63)
set grid
set key at graph 0.55,0.43 right box opaque
plot "$out/fig11.csv" using 1:2 skip 1 with linespoints lw 2 pt 7 title "ornic", \
     "" using 1:3 skip 1 with linespoints lw 2 pt 5 title "roce --rnic ideal", \
     "" using 1:4 skip 1 with linespoints lw 2 pt 9 title "roce --rnic commodity", \
     "" using 1:11 skip 1 with linespoints lw 2 pt 11 title "roce --rnic ernic", \
     "" using 1:12 skip 1 with linespoints lw 2 pt 13 title "roce --rnic cx5"
EOF
echo "fig11: wrote $out/fig11.csv, $out/fig11-ablation.csv, $out/fig11.md, $out/fig11.png" >&2
