#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Generation speed of ornic-pcapgen next to Scapy writing frames of the same
# size and layers, measured in one run (the machine is shared: compare the
# ratio, not the absolute figures). Not a pass/fail test.
#   scripts/bench-pcapgen.sh [BUILD_DIR] [PACKETS] [SCAPY_FRAMES]
# The files go to a new directory in $TMPDIR (default /tmp; its file system
# type is printed): TMPDIR=/dev/shm measures a tmpfs file, page cache only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
packets=${2:-2000000}
scapy_frames=${3:-5000}
gen=$build/bin/ornic-pcapgen
[[ -x $gen ]] || { echo "bench-pcapgen: $gen not found (build first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --bench: 1 KiB payloads, no loss; prints "bench: N packets, X MB ... : P packets/s, M MB/s".
rate() { "$gen" -q --bench "$packets" -o "$1" | sed -n 's/.*: \([0-9.]*\) packets\/s, \([0-9.]*\) MB\/s/\1 \2/p'; }
read -r null_pps null_mbs < <(rate /dev/null)
read -r file_pps file_mbs < <(rate "$tmp/bench.pcap")
fstype=$(stat -f -c %T "$tmp" 2>/dev/null || echo unknown)
echo "ornic-pcapgen to /dev/null:  $null_pps packets/s, $null_mbs MB/s"
echo "ornic-pcapgen to a file:     $file_pps packets/s, $file_mbs MB/s ($tmp, $fstype)"
if /usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null; then
  read -r scapy_pps scapy_mbs < <(/usr/bin/python3 "$root/scripts/scapy_gen_bench.py" "$scapy_frames" "$tmp/scapy.pcap")
  echo "Scapy to a file:             $scapy_pps frames/s, $scapy_mbs MB/s ($scapy_frames frames)"
  awk -v a="$file_pps" -v b="$scapy_pps" 'BEGIN { printf "ratio ornic-pcapgen / Scapy:  %.0fx (target >= 1000x)\n", a / b }'
else
  echo "Scapy (python3-scapy) is not installed: no ratio"
fi
