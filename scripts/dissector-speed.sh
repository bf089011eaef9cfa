#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Speed of the ORNIC Wireshark plugin, measured in one run against stock tshark
# (a benchmark, not a pass/fail test):
#   1. a standard RoCEv2 capture (ornic-pcapgen --profile roce): tshark with the
#      plugin vs tshark without it, same file, runs interleaved; prints the ratio
#      of the medians of wall time and of CPU time (user+sys; the cost ratio,
#      unaffected by other jobs on the machine; target <= 1.3), and the CPU ratio
#      without tshark's start-up (measured on a one-packet file);
#   2. an ORNIC capture: packets/s with the plugin, with and without tshark's
#      start-up time.
# Usage: scripts/dissector-speed.sh [--runs N] [--wqes N] [--build DIR] [--plugin ornic.so]
#          [--summary FILE] [-- TSHARK ARGS]
#   --summary: also the figures as one JSON object (for scripts/bench-all.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=5 wqes=64 build=$root/build plugin='' summary='' targs=()
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --wqes) wqes=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --plugin) plugin=$2; shift 2 ;;
    --summary) summary=$2; shift 2 ;;
    --) shift; targs=("$@"); break ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "dissector-speed: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n $plugin ]] || plugin=$(ls "$build"/lib/wireshark/plugins/*/epan/ornic.so 2>/dev/null | sed -n 1p)
[[ -f $plugin ]] || { echo "dissector-speed: plugin not found" >&2; exit 1; }
# Wireshark's plugin directory is named after its major.minor version: the
# build's layout (plugins/4.0/epan/ornic.so) gives it, else tshark does (a
# --plugin copied elsewhere, e.g. an old build kept for comparison).
ws_version=$(basename "$(dirname "$(dirname "$plugin")")")
[[ $ws_version =~ ^[0-9]+\.[0-9]+$ ]] ||
  ws_version=$(tshark -v 2>/dev/null | sed -nE '1s/.* ([0-9]+\.[0-9]+)\.[0-9]+.*/\1/p')

tmp=$(mktemp -d /tmp/ornic-speed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/home/.local/lib/wireshark/plugins/$ws_version/epan" "$tmp/empty"
cp "$plugin" "$tmp/home/.local/lib/wireshark/plugins/$ws_version/epan/ornic.so"
chmod -R a+rwX "$tmp"
run_as=()
[[ $(id -u) == 0 ]] && run_as=(runuser -u nobody --)
ts() { local home=$1; shift; "${run_as[@]}" env HOME="$home" tshark "$@"; }
loaded=$(ts "$tmp/home" -G plugins) # whole, then grep: `tshark | grep -q` dies of SIGPIPE under pipefail
grep -q "$tmp/home/.*ornic.so" <<<"$loaded" || { echo "plugin not loaded" >&2; exit 1; }

gen="$build/bin/ornic-pcapgen"
# One path: in-order RC, so go-back-N does not multiply the capture.
"$gen" -q -o "$tmp/roce.pcap" --profile roce --paths 1 --wqes "$wqes" --wqe-size 1M --pmtu 1024 --loss 0
"$gen" -q -o "$tmp/ornic.pcap" --wqes "$wqes" --wqe-size 1M --pmtu 1024
"$gen" -q -o "$tmp/one.pcap" --wqes 1 --wqe-size 1K --pmtu 1024 --loss 0
chmod 644 "$tmp"/*.pcap
count() { ts "$tmp/empty" -r "$1" -T fields -e frame.number | wc -l; }
n_roce=$(count "$tmp/roce.pcap") n_ornic=$(count "$tmp/ornic.pcap")

# Each run: wall time and CPU time (user + sys of tshark and its children) of
# `tshark -r FILE ARGS > /dev/null`. The machine may be shared: wall time then
# includes waiting for a core, CPU time does not, so the CPU ratio is the cost
# ratio; both are printed. Medians over $runs interleaved runs.
declare -A wall cpu
TIMEFORMAT='%R %U %S'
measure() { # key home file
  local key=$1 home=$2 file=$3 t r u s
  t=$( { time ts "$home" -r "$file" "${targs[@]}" >/dev/null 2>/dev/null; } 2>&1 )
  read -r r u s <<<"$t"
  wall[$key]+="$r "
  cpu[$key]+="$(echo "$u + $s" | bc) "
}
source "$root/scripts/lib/median.sh"
for ((i = 0; i < runs; i++)); do
  measure stock "$tmp/empty" "$tmp/roce.pcap"
  measure plugin "$tmp/home" "$tmp/roce.pcap"
  measure ornic "$tmp/home" "$tmp/ornic.pcap"
  measure start "$tmp/home" "$tmp/one.pcap"
  measure stock_start "$tmp/empty" "$tmp/one.pcap"
done
declare -A W C
for k in stock plugin ornic start stock_start; do
  W[$k]=$(median "${wall[$k]}") C[$k]=$(median "${cpu[$k]}")
done
ratio() { echo "$1 / $2" | bc -l; }
echo "tshark args: ${targs[*]:-(none: one summary line per packet)}; $runs interleaved runs each, medians"
printf 'RoCEv2 capture, %d packets: stock tshark %.3f s, with the ORNIC plugin %.3f s (wall), ratio %.3f\n' \
  "$n_roce" "${W[stock]}" "${W[plugin]}" "$(ratio "${W[plugin]}" "${W[stock]}")"
printf '  CPU time (user+sys): stock %.3f s, with the plugin %.3f s, ratio %.3f (target <= 1.3)\n' \
  "${C[stock]}" "${C[plugin]}" "$(ratio "${C[plugin]}" "${C[stock]}")"
printf '  CPU time without start-up (minus a one-packet file: stock %.3f s, plugin %.3f s): %.3f s vs %.3f s, ratio %.3f\n' \
  "${C[stock_start]}" "${C[start]}" "$(echo "${C[stock]} - ${C[stock_start]}" | bc -l)" \
  "$(echo "${C[plugin]} - ${C[start]}" | bc -l)" \
  "$(echo "(${C[plugin]} - ${C[start]}) / (${C[stock]} - ${C[stock_start]})" | bc -l)"
printf 'ORNIC capture, %d packets: %.3f s wall with the plugin = %.0f packets/s; CPU %.3f s = %.0f packets/s (%.0f packets/s without start-up)\n' \
  "$n_ornic" "${W[ornic]}" "$(ratio "$n_ornic" "${W[ornic]}")" "${C[ornic]}" \
  "$(ratio "$n_ornic" "${C[ornic]}")" "$(echo "$n_ornic / (${C[ornic]} - ${C[start]})" | bc -l)"
if [[ -n $summary ]]; then
  printf '{"runs": %d, "roce_packets": %d, "stock_cpu_s": %.3f, "plugin_cpu_s": %.3f, "cpu_ratio": %.4f, "stock_wall_s": %.3f, "plugin_wall_s": %.3f}\n' \
    "$runs" "$n_roce" "${C[stock]}" "${C[plugin]}" "$(ratio "${C[plugin]}" "${C[stock]}")" \
    "${W[stock]}" "${W[plugin]}" > "$summary"
fi
