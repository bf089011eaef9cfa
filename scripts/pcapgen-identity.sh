#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Do two builds of ornic-pcapgen write the same bytes? Runs a set of small
# configurations with each (every profile of --list-profiles, loss, many QPs,
# READ, pcapng, gzip, snaplen, every scenario of pcapgen/scenarios/, the
# other tap, capture artefacts, records, the reordering emulator, stdout,
# --bench) and compares, run by run, the capture, the --summary-json file,
# the text summary and the exit status. Use it around a change that must not
# alter the output (a faster writer, a new event queue):
#   scripts/pcapgen-identity.sh OLD_BUILD_DIR NEW_BUILD_DIR
# e.g. build the tree before the change into build/h-gen-old, after it into
# build/h-gen. Exit 0 when every run matches, 1 when one differs (named),
# 2 on bad usage. Not a CTest test: it needs two builds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
(($# == 2)) || { sed -n '3,13p' "$0" >&2; exit 2; }
old=$1/bin/ornic-pcapgen new=$2/bin/ornic-pcapgen
for b in "$old" "$new"; do
  [[ -x $b ]] || { echo "pcapgen-identity: $b not found (build first)" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/pcapgen-identity.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
scn=$root/pcapgen/scenarios

# name, output file name (its suffix picks the format), options.
runs=()
for p in $("$old" --list-profiles | cut -f1); do
  runs+=("profile-$p|x.pcap|--profile $p --wqes 4 --wqe-size 256K --loss 0.002")
done
runs+=(
  "default-small|x.pcap|--wqes 4 --wqe-size 512K"
  "loss|x.pcap|--loss 0.01 --wqes 4"
  "qps16|x.pcap|--qps 16 --wqes 2 --wqe-size 256K --loss 0.001"
  "read|x.pcap|--op read --wqes 4 --loss 0.01"
  "read-qps|x.pcap|--op read --qps 8 --wqes 2 --wqe-size 300000 --pmtu 1024"
  "format-pcapng|x.pcap|--format pcapng --wqes 4 --loss 0.005"
  "pcapng-name|x.pcapng|--wqes 2 --pmtu 2048"
  "gzip|x.pcap.gz|--wqes 2 --wqe-size 256K"
  "pcapng-gzip|x.pcapng.gz|--wqes 2 --wqe-size 256K"
  "snaplen|x.pcap|--snaplen 128 --wqes 4 --loss 0.005"
  "snaplen-pcapng|x.pcapng|--snaplen 128 --wqes 2"
  "capture-requester|x.pcap|--capture requester --wqes 4 --loss 0.005"
  "read-capture-responder|x.pcap|--op read --capture responder --wqes 2"
  "capture-artefacts|x.pcap|--capture-start 200 --capture-drop 0.01 --wqes 4 --loss 0.003"
  "records|x.pcap|--records wqe,nak --loss 0.003 --wqes 4"
  "reorder|x.pcap|--reorder-max 16 --paths 1 --pmtu 1024 --wqes 2"
  "pmtu256-wrap|x.pcap|--pmtu 256 --wqe-size 100000 --start-psn 0xfffe00 --loss 0.01 --wqes 2"
  "roce-rnic|x.pcap|--profile roce --rnic commodity --wqes 2 --loss 0.002"
  "irn-qps|x.pcap|--profile irn --qps 3 --wqes 3 --pmtu 1024 --wqe-size 3000K --burst-len 2 --loss 0.01"
  "mprdma-drop|x.pcap|--profile mprdma --wqes 2 --drop 0:37"
  "ioi-qps|x.pcap|--profile ioi --qps 4 --wqes 2 --wqe-size 256K --loss 0.002"
  "rc-read|x.pcap|--profile rc --rc-ops read,write --qps 2 --wqes 6 --wqe-size 64K --loss 0.001"
  "slow-paths|x.pcap|--path-rate-gbps 25 --qps 4 --wqes 2 --wqe-size 256K"
  "stdout|-|--wqes 2 --wqe-size 256K"
  "bench|x.pcap|--bench 20000"
)
for f in "$scn"/*.scn; do
  runs+=("scenario-$(basename "$f" .scn)|x.pcap|--scenario $f")
done

# run BIN DIR OUT OPTS: the capture, summary, text and status of one run in DIR.
run() {
  local bin=$1 dir=$2 out=$3 opts=$4 rc=0
  mkdir -p "$dir"
  if [[ $out == - ]]; then
    # shellcheck disable=SC2086
    "$bin" -q -o - --summary-json "$dir/s.json" $opts >"$dir/capture" 2>"$dir/stderr" || rc=$?
  else
    # shellcheck disable=SC2086
    "$bin" -o "$dir/$out" --summary-json "$dir/s.json" $opts >"$dir/text" 2>"$dir/stderr" || rc=$?
    [[ -e $dir/$out ]] && mv "$dir/$out" "$dir/capture"
  fi
  echo "$rc" >"$dir/status"
  # --bench prints its wall-clock rate: not part of the output.
  [[ -e $dir/text ]] && sed -i '/^bench: /d' "$dir/text"
  return 0
}

fail=0
for r in "${runs[@]}"; do
  IFS='|' read -r name out opts <<<"$r"
  run "$old" "$tmp/$name/old" "$out" "$opts"
  run "$new" "$tmp/$name/new" "$out" "$opts"
  diffs=()
  for part in capture s.json text status; do
    a=$tmp/$name/old/$part b=$tmp/$name/new/$part
    [[ -e $a || -e $b ]] || continue
    cmp -s "$a" "$b" || diffs+=("$part")
  done
  size=$(stat -c %s "$tmp/$name/old/capture" 2>/dev/null || echo 0)
  if ((${#diffs[@]})); then
    echo "DIFF $name: ${diffs[*]} (ornic-pcapgen $opts)"
    fail=1
  else
    echo "same $name: $size bytes, exit $(cat "$tmp/$name/old/status")"
  fi
done
((fail == 0)) && echo "pcapgen-identity: all ${#runs[@]} runs byte-identical"
exit "$fail"
