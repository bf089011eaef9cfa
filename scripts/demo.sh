#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quick start, part one: install what is missing, build, and decode a built-in
# demo: every frame of docs/PROTOCOL.md, then a simulated multipath ORNIC
# conversation with one loss, decoded.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/deps.sh build
mkdir -p build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DORNIC_BUILD_TESTS=OFF >build/configure.log 2>&1 ||
  { cat build/configure.log; exit 1; }
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >build/build.log 2>&1 || { cat build/build.log; exit 1; }
demo=build/demo-examples.pcap
build/bin/ornic-examples --pcap "$demo"
echo "== 1. ornic-decode $demo  (every frame of docs/PROTOCOL.md section 6)"
build/bin/ornic-decode "$demo"

trace=build/demo-ornic.pcap
echo
echo "== 2. ornic-pcapgen: 4 x 256 KiB OOO WRITEs (PMTU 4096) sprayed over 4 paths, PSN offset 37 of WQE 0 dropped"
build/bin/ornic-pcapgen -o "$trace" --wqes 4 --wqe-size 256K --loss 0 --drop 0:37 --seed 7
echo
echo "== 3. ornic-decode --stats $trace"
build/bin/ornic-decode --stats "$trace"
echo
echo "== 4. the NAK and the retransmission it asked for"
build/bin/ornic-decode "$trace" | grep -E "ORNIC_NAK" | head -3
lost=$(build/bin/ornic-decode "$trace" | grep -m1 ORNIC_NAK | sed -E 's/.* missing=([0-9]+).*/\1/')
echo "-- every packet with PSN $lost (the original was dropped, so only the retransmission is there):"
build/bin/ornic-decode "$trace" | grep -E "ORNIC_OOO_WRITE.* psn=$lost " || true
echo
echo "== built programs are in build/bin/; see README.md for more"
