#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the ORNIC Wireshark plugin costs in memory per frame over stock tshark
# (issue 18: at most 80 bytes; a benchmark, not a pass/fail test). The
# capture is dissector/README.md's: `ornic-pcapgen --wqes 50 --wqe-size 4M
# --loss 0.001` (about 102,000 ORNIC frames, every frame analysed). Each run
# is `tshark -2 -r FILE -Y "frame.number == 0"`: two passes (the analysis
# keeps every frame's verdict for the second), nothing printed. The figure is
# (median max RSS with the plugin - median max RSS of stock) / frames, the
# runs interleaved; with -o ornic.analyze:FALSE too, to show what is the
# analysis' and what is the dissector's.
# Usage: scripts/dissector-memory.sh [--build DIR] [--plugin ornic.so] [--runs N] [--wqes N]
#          [--summary FILE]   (also the figures as one JSON object, for bench-all.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/median.sh"
build=$root/build plugin='' runs=5 wqes=50 summary=''
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --plugin) plugin=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --wqes) wqes=$2; shift 2 ;;
    --summary) summary=$2; shift 2 ;;
    -h|--help) sed -n '3,13p' "$0"; exit 0 ;;
    *) echo "dissector-memory: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n $plugin ]] || plugin=$(ls "$build"/lib/wireshark/plugins/*/epan/ornic.so 2>/dev/null | sed -n 1p)
[[ -f $plugin ]] || { echo "dissector-memory: plugin not found (build with the dissector first)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "dissector-memory: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
ws_version=$(basename "$(dirname "$(dirname "$plugin")")")
tmp=$(mktemp -d /tmp/ornic-mem.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/home/.local/lib/wireshark/plugins/$ws_version/epan" "$tmp/empty"
cp "$plugin" "$tmp/home/.local/lib/wireshark/plugins/$ws_version/epan/"
"$build/bin/ornic-pcapgen" -q -o "$tmp/big.pcap" --wqes "$wqes" --wqe-size 4M --loss 0.001
chmod -R a+rwX "$tmp"
run_as=()
[[ $(id -u) == 0 ]] && run_as=(runuser -u nobody --) # root ignores personal plugins
ts() { local home=$1; shift; "${run_as[@]}" env HOME="$home" tshark "$@"; }
loaded=$(ts "$tmp/home" -G plugins) # whole, then grep: `tshark | grep -q` dies of SIGPIPE under pipefail
grep -q "$tmp/home/.*ornic.so" <<<"$loaded" || { echo "dissector-memory: plugin not loaded" >&2; exit 1; }
frames=$(ts "$tmp/empty" -r "$tmp/big.pcap" -T fields -e frame.number | wc -l)

declare -A rss
rss_of() { # key home [tshark options]
  local key=$1 home=$2; shift 2
  /usr/bin/time -f '%M' -o "$tmp/rss" "${run_as[@]}" env HOME="$home" \
    tshark -2 -r "$tmp/big.pcap" -Y 'frame.number == 0' "$@" > /dev/null
  rss[$key]+="$(cat "$tmp/rss") "
}
for ((i = 0; i < runs; i++)); do
  rss_of stock "$tmp/empty"
  rss_of plugin "$tmp/home"
  rss_of noan "$tmp/home" -o ornic.analyze:FALSE
done
s=$(median "${rss[stock]}") p=$(median "${rss[plugin]}") n=$(median "${rss[noan]}")
echo "capture: ornic-pcapgen --wqes $wqes --wqe-size 4M --loss 0.001: $frames frames; $runs interleaved runs, medians of max RSS"
printf 'stock tshark %d KB, with the plugin %d KB, without its analysis %d KB\n' "$s" "$p" "$n"
printf 'plugin over stock: %.1f bytes per frame (target <= 80); without the analysis: %.1f\n' \
  "$(echo "($p - $s) * 1024 / $frames" | bc -l)" "$(echo "($n - $s) * 1024 / $frames" | bc -l)"
if [[ -n $summary ]]; then
  printf '{"runs": %d, "frames": %d, "stock_kb": %d, "plugin_kb": %d, "no_analysis_kb": %d, "bytes_per_frame": %.2f}\n' \
    "$runs" "$frames" "$s" "$p" "$n" "$(echo "($p - $s) * 1024 / $frames" | bc -l)" > "$summary"
fi
