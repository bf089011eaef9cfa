#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Quick start, part one: install what is missing, build, and decode a built-in
# demo: every frame of docs/PROTOCOL.md, then a simulated multipath ORNIC
# conversation with one loss, decoded.
#
# ORNIC_DEMO_BUILD=DIR runs the same demo on the programs already built in
# DIR/bin (a configured and built tree), installing and building nothing; its
# files go to DIR. CTest docs_demo (tests/docs) runs README.md's quick-start
# line that way.
#
# No pipe here ends before its writer: under pipefail, `ornic-decode | grep -m1`
# (or `| head`) fails with 141 whenever grep exits while ornic-decode is still
# writing (SIGPIPE). The decoded text goes to a file, read by one program.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [[ -n ${ORNIC_DEMO_BUILD:-} ]]; then
  build=$ORNIC_DEMO_BUILD
  [[ -x $build/bin/ornic-decode && -x $build/bin/ornic-pcapgen && -x $build/bin/ornic-examples ]] ||
    { echo "demo: ORNIC_DEMO_BUILD=$build has no bin/ornic-decode, ornic-pcapgen, ornic-examples" >&2; exit 1; }
else
  build=build
  scripts/deps.sh build
  mkdir -p "$build"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DORNIC_BUILD_TESTS=OFF >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" >"$build/build.log" 2>&1 ||
    { cat "$build/build.log"; exit 1; }
fi
bin=$build/bin
demo=$build/demo-examples.pcap
"$bin/ornic-examples" --pcap "$demo"
echo "== 1. ornic-decode $demo  (every frame of docs/PROTOCOL.md section 6)"
"$bin/ornic-decode" "$demo"

trace=$build/demo-ornic.pcap
echo
echo "== 2. ornic-pcapgen: 4 x 256 KiB OOO WRITEs (PMTU 4096) sprayed over 4 paths, PSN offset 37 of WQE 0 dropped"
"$bin/ornic-pcapgen" -o "$trace" --wqes 4 --wqe-size 256K --loss 0 --drop 0:37 --seed 7
echo
echo "== 3. ornic-decode --stats $trace"
"$bin/ornic-decode" --stats "$trace"
echo
echo "== 4. the NAK and the retransmission it asked for"
decoded=$build/demo-ornic.txt
"$bin/ornic-decode" "$trace" >"$decoded"
grep -m3 ORNIC_NAK "$decoded" || { echo "demo: no NAK in $decoded" >&2; exit 1; }
lost=$(sed -nE '/ORNIC_NAK/{s/.* missing=([0-9]+).*/\1/p;q;}' "$decoded")
echo "-- every packet with PSN $lost (the original was dropped, so only the retransmission is there):"
grep -E "ORNIC_OOO_WRITE.* psn=$lost " "$decoded" || { echo "demo: no packet with PSN $lost" >&2; exit 1; }
echo
echo "== built programs are in $bin/; see README.md for more"
