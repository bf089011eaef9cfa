#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The three plots of docs/SCENARIOS.md, "Incast: ECN, DCQCN and PFC": a 16:1
# incast of RDMA WRITEs (profile roce, one QP per sender, 1 MiB WQEs, seed 1)
# through one switch queue (pcapgen/fabric/README.md), drawn by
# ornic-pcapgen --plot (queue with Kmin and Kmax, each sender's delivered
# rate, with DCQCN its rate Rc):
#   OUTDIR/incast-dcqcn.png   DCQCN on, PFC off, marking 100K,400K,0.2, 40 WQEs each
#   OUTDIR/incast-dcqcn-paper.png  the same with the default marking (the
#                             DCQCN paper's 5K,200K,0.01), 12 WQEs each
#   OUTDIR/incast-pfc.png     DCQCN off, PFC on, 4 WQEs each, a 2 ms RTO
#   OUTDIR/incast-lossy.png   both off, 4 WQEs each: tail drops, go-back-N
# A few seconds. Usage: scripts/incast-plots.sh [BUILD_DIR] [OUTDIR]
# (defaults: build, docs/images)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/docs/images}
gen=$build/bin/ornic-pcapgen
[[ -x $gen ]] || { echo "incast-plots: $gen not found (build first)" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "incast-plots: needs gnuplot (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
common=(-q -o /dev/null --senders 16 --profile roce --wqe-size 1M --seed 1)
"$gen" "${common[@]}" --wqes 40 --ecn 100K,400K,0.2 --plot "$out/incast-dcqcn.png"
"$gen" "${common[@]}" --wqes 12 --plot "$out/incast-dcqcn-paper.png"
"$gen" "${common[@]}" --wqes 4 --dcqcn off --pfc on --rnic-rto-us 2000 --plot "$out/incast-pfc.png"
"$gen" "${common[@]}" --wqes 4 --dcqcn off --pfc off --plot "$out/incast-lossy.png"
echo "incast-plots: $out/incast-dcqcn.png, incast-dcqcn-paper.png, incast-pfc.png, incast-lossy.png" >&2
