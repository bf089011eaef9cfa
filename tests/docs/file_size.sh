#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The size of the file a command writes, as the documents state it: "406 MB",
# "1.07 GB" (decimal units). The file is removed afterwards.
# Usage: file_size.sh FILE COMMAND...   (e.g. file_size.sh x.pcap ornic-pcapgen -q -o x.pcap)
set -euo pipefail
file=$1
shift
"$@" >/dev/null
size=$(stat -c %s "$file")
rm -f "$file"
awk -v b="$size" 'BEGIN { if (b >= 1e9) printf "%.2f GB\n", b / 1e9; else printf "%.0f MB\n", b / 1e6 }'
