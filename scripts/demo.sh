#!/usr/bin/env bash
# Quick start, part one: install what is missing, build, and decode a built-in
# demo conversation (every ORNIC frame of docs/PROTOCOL.md plus standard RoCEv2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/deps.sh build
mkdir -p build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >build/configure.log 2>&1 ||
  { cat build/configure.log; exit 1; }
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >build/build.log 2>&1 || { cat build/build.log; exit 1; }
demo=build/demo.pcap
build/bin/ornic-examples --pcap "$demo"
echo "== ornic-decode $demo"
build/bin/ornic-decode "$demo"
echo "== ornic-decode --stats $demo"
build/bin/ornic-decode --stats "$demo"
echo "== built programs are in build/bin/; see README.md for more"
