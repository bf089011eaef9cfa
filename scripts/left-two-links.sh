#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The two-link experiment of the LEFT slides (Huang et al., "LEFT: LightwEight
# and FasT packet Reordering for RDMA", APNet 2024; slides in
# ../shared/seeds/left-slides-2024.txt, "Evaluation-Benefit Throughput": two
# servers joined by two links, one of them 1 to 32 times slower, packets spread
# evenly over both) run on ornic-pcapgen: profiles left, irn, ornic and mprdma,
# goodput in Gb/s for link delay ratios 1, 2, 4, 8, 16 and 32.
#   links   --path delay=1 --path delay=R (one-way us; the slides' 1 us link
#           latency, and 1 us x R for the other), 100 Gb/s each (the NIC's)
#   spread  --spray rr ("evenly distribute all packets on two path")
#   packets --pmtu 1024 (the slides' NS3 MTU, 1 KB)
#   work    1 QP, 8 RDMA WRITEs of 4 MiB one after the other, seed 1
# Two tables: --loss 0 (the slides name no loss), and --loss 0.001 (ours: the
# same links with 0.1% random loss each way, where recovery matters).
# Each table is tests/docs/pcapgen_table.py's output, the generator of the
# other tables of docs/PROFILES.md; every run verifies every WQE byte for byte.
# Usage: scripts/left-two-links.sh [BUILD_DIR] [--print]
#   writes docs/profiles/left-two-links.md; --print writes it to stdout instead
#   (docs/PROFILES.md's region runs that). Deterministic; about 3 s on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
gen=$build/bin/ornic-pcapgen
[[ -x $gen ]] || { echo "left-two-links: $gen not found (build first)" >&2; exit 1; }
out=$root/docs/profiles/left-two-links.md
[[ ${2:-} == --print ]] && out=/dev/stdout

runs=()
for p in left irn ornic mprdma; do runs+=(--run "\`$p\`=--profile $p"); done
cross=()
for r in 1 2 4 8 16 32; do cross+=(--cross "$r=--path delay=1 --path delay=$r"); done
common=(--seed 1 --pmtu 1024 --spray rr --wqe-size 4M --wqes 8)

# table LOSS: one goodput table, a row per ratio, a column per profile.
table() {
  /usr/bin/python3 "$root/tests/docs/pcapgen_table.py" --pcapgen "$gen" \
    --first "delay ratio (loss $1)" "${runs[@]}" "${cross[@]}" --metrics goodput --align right \
    -- "${common[@]}" --loss "$1"
}
{
  table 0
  echo
  table 0.001
} >"$out"
