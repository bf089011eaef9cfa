#!/usr/bin/env bash
# Speed of the ORNIC Wireshark plugin, measured in one run against stock tshark
# (a benchmark, not a pass/fail test):
#   1. a standard RoCEv2 capture (ornic-pcapgen --profile roce): tshark with the
#      plugin vs tshark without it, same file, runs interleaved; prints the ratio
#      of the medians (target <= 1.3);
#   2. an ORNIC capture: packets/s with the plugin, with and without tshark's
#      start-up time (measured on a one-packet file).
# Usage: scripts/dissector-speed.sh [--runs N] [--wqes N] [--build DIR] [--plugin ornic.so] [-- TSHARK ARGS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=5 wqes=64 build=$root/build plugin= targs=()
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --wqes) wqes=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --plugin) plugin=$2; shift 2 ;;
    --) shift; targs=("$@"); break ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "dissector-speed: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n $plugin ]] || plugin=$(ls "$build"/lib/wireshark/plugins/*/epan/ornic.so 2>/dev/null | head -1)
[[ -f $plugin ]] || { echo "dissector-speed: plugin not found" >&2; exit 1; }
ws_version=$(basename "$(dirname "$(dirname "$plugin")")")

tmp=$(mktemp -d /tmp/ornic-speed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/home/.local/lib/wireshark/plugins/$ws_version/epan" "$tmp/empty"
cp "$plugin" "$tmp/home/.local/lib/wireshark/plugins/$ws_version/epan/"
chmod -R a+rwX "$tmp"
run_as=()
[[ $(id -u) == 0 ]] && run_as=(runuser -u nobody --)
ts() { local home=$1; shift; "${run_as[@]}" env HOME="$home" tshark "$@"; }
ts "$tmp/home" -G plugins | grep -q "$tmp/home/.*ornic.so" || { echo "plugin not loaded" >&2; exit 1; }

gen="$build/bin/ornic-pcapgen"
# One path: in-order RC, so go-back-N does not multiply the capture.
"$gen" -q -o "$tmp/roce.pcap" --profile roce --paths 1 --wqes "$wqes" --wqe-size 1M --pmtu 1024 --loss 0
"$gen" -q -o "$tmp/ornic.pcap" --wqes "$wqes" --wqe-size 1M --pmtu 1024
"$gen" -q -o "$tmp/one.pcap" --wqes 1 --wqe-size 1K --pmtu 1024 --loss 0
chmod 644 "$tmp"/*.pcap
count() { ts "$tmp/empty" -r "$1" -T fields -e frame.number | wc -l; }
n_roce=$(count "$tmp/roce.pcap") n_ornic=$(count "$tmp/ornic.pcap")

# Median wall time of `tshark -r FILE ARGS > /dev/null` over $runs runs, in seconds.
declare -A times
measure() { # key home file
  local key=$1 home=$2 file=$3 s e
  s=$(date +%s.%N)
  ts "$home" -r "$file" "${targs[@]}" >/dev/null
  e=$(date +%s.%N)
  times[$key]+="$(echo "$e - $s" | bc) "
}
median() { tr ' ' '\n' <<<"${times[$1]}" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for ((i = 0; i < runs; i++)); do
  measure stock "$tmp/empty" "$tmp/roce.pcap"
  measure plugin "$tmp/home" "$tmp/roce.pcap"
  measure ornic "$tmp/home" "$tmp/ornic.pcap"
  measure start "$tmp/home" "$tmp/one.pcap"
done
st=$(median stock) pl=$(median plugin) or=$(median ornic) su=$(median start)
echo "tshark args: ${targs[*]:-(none: one summary line per packet)}; $runs runs each, medians"
printf 'RoCEv2 capture, %d packets: stock tshark %.3f s, with the ORNIC plugin %.3f s, ratio %.3f (target <= 1.3)\n' \
  "$n_roce" "$st" "$pl" "$(echo "$pl / $st" | bc -l)"
printf 'ORNIC capture, %d packets: %.3f s with the plugin = %.0f packets/s (%.0f packets/s without tshark start-up, %.3f s)\n' \
  "$n_ornic" "$or" "$(echo "$n_ornic / $or" | bc -l)" "$(echo "$n_ornic / ($or - $su)" | bc -l)" "$su"
