#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Robustness of the ORNIC Wireshark plugin, as Wireshark's tools/fuzz-test.sh
# tests dissectors: ornic-pcapgen traces corrupted by `editcap -E RATE`; each
# pass joins the corrupted traces into one file (mergecap -a: one tshark
# start-up per pass, and the traces' QP state mixes) read with `tshark -nVxr`
# and the plugin; any crash, abort or dissector bug fails, and the offending
# file is kept. Then a few passes under valgrind must show no invalid read or
# write.
#
# Usage: scripts/dissector-fuzz.sh [--passes N] [--valgrind N] [--rate R]
#                                  [--build DIR] [--plugin ornic.so] [--keep DIR]
# Defaults: 200 passes, 3 valgrind passes, rate 0.02, build dir ./build.
# CI runs a short version (tests/dissector: 12 passes, 1 under valgrind).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
passes=200 vpasses=3 rate=0.02 build=$root/build plugin= keep=
while (($#)); do
  case $1 in
    --passes) passes=$2; shift 2 ;;
    --valgrind) vpasses=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --plugin) plugin=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "dissector-fuzz: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n $plugin ]] || plugin=$(ls "$build"/lib/wireshark/plugins/*/epan/ornic.so 2>/dev/null | sed -n 1p)
[[ -f $plugin ]] || { echo "dissector-fuzz: plugin not found (build it first, or --plugin)" >&2; exit 1; }
ws_version=$(basename "$(dirname "$(dirname "$plugin")")")
for t in tshark editcap mergecap "$build/bin/ornic-pcapgen"; do
  command -v "$t" >/dev/null || { echo "dissector-fuzz: $t not found" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/ornic-fuzz.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/home/.local/lib/wireshark/plugins/$ws_version/epan" "$tmp/empty"
cp "$plugin" "$tmp/home/.local/lib/wireshark/plugins/$ws_version/epan/"
chmod -R a+rwX "$tmp"
run_as=()
[[ $(id -u) == 0 ]] && run_as=(runuser -u nobody --)
# ORNIC_TSHARK_PRELOAD: a sanitizer build's plugin needs that runtime preloaded
# into tshark (tests/dissector/CMakeLists.txt); valgrind cannot run with it.
san=()
[[ -n ${ORNIC_TSHARK_PRELOAD:-} ]] && san=(LD_PRELOAD="$ORNIC_TSHARK_PRELOAD"
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  WIRESHARK_EXTCAP_DIR="$tmp/empty") # the preload would reach (and hang) the extcap helpers
ts() { "${run_as[@]}" env HOME="$tmp/home" WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 \
         WIRESHARK_ABORT_ON_TOO_MANY_ITEMS=1 "${san[@]}" "$@"; }

loaded=$(ts tshark -G plugins) # whole, then grep: `tshark | grep -q` dies of SIGPIPE under pipefail
grep -q "$tmp/home/.*ornic.so" <<<"$loaded" ||
  { echo "dissector-fuzz: tshark does not load $plugin" >&2; exit 1; }

gen() { "$build/bin/ornic-pcapgen" -q --pmtu 1024 --wqe-size 32K --wqes 2 "$@"; }
gen -o "$tmp/ornic.pcap" --drop 0:3
gen -o "$tmp/roce.pcap" --profile roce --paths 1 --drop 0:3
gen -o "$tmp/read.pcap" --op read --drop 1:2
gen -o "$tmp/small.pcap" --pmtu 256 --wqe-size 4K --wqes 2 --drop 0:2 --snaplen 200
chmod 644 "$tmp"/*.pcap
traces=(ornic roce read small)

fail() {
  local f=$1 why=$2
  if [[ -n $keep ]]; then mkdir -p "$keep"; cp "$f" "$keep/"; f=$keep/$(basename "$f"); fi
  echo "dissector-fuzz: FAIL: $why on $f" >&2
  exit 1
}

start=$SECONDS
for ((p = 1; p <= passes; p++)); do
  parts=()
  for t in "${traces[@]}"; do
    editcap -E "$rate" "$tmp/$t.pcap" "$tmp/fuzz-$t-$p.pcap" >/dev/null 2>&1
    parts+=("$tmp/fuzz-$t-$p.pcap")
  done
  f="$tmp/fuzz-$p.pcap"
  mergecap -a -F pcap -w "$f" "${parts[@]}"
  rm -f "${parts[@]}"
  chmod 644 "$f"
  rc=0
  ts tshark -nVxr "$f" >/dev/null 2>"$tmp/err" || rc=$?
  if ((rc >= 128)) || grep -q -i -E "dissector bug|assert|Segmentation|Aborted" "$tmp/err"; then
    [[ -n $keep ]] || keep=$root/build/dissector-fuzz-failures
    fail "$f" "tshark exit $rc: $(head -c 400 "$tmp/err")"
  fi
  rm -f "$f"
done
echo "dissector-fuzz: $passes passes x ${#traces[@]} traces, no crash ($((SECONDS - start)) s)"

if ((vpasses > 0)); then
  command -v valgrind >/dev/null || { echo "dissector-fuzz: valgrind not found" >&2; exit 1; }
  start=$SECONDS
  for ((p = 1; p <= vpasses; p++)); do
    f="$tmp/vg-$p.pcap"
    editcap -E "$rate" -r "$tmp/ornic.pcap" "$f" 1-60 >/dev/null 2>&1
    chmod 644 "$f"
    log="$tmp/vg-$p.log"
    touch "$log"; chmod 666 "$log"
    # tshark runs as nobody, who may not reach the source tree (a CI clone in a 0700 folder).
    cp "$root/scripts/valgrind-wireshark.supp" "$tmp/vg.supp"; chmod 644 "$tmp/vg.supp"
    ts valgrind --log-file="$log" --leak-check=no --error-limit=no --num-callers=20 \
      --suppressions="$tmp/vg.supp" \
      tshark -nVxr "$f" >"$tmp/vg-out" 2>&1 || true
    grep -q "ORNIC out-of-order RDMA" "$tmp/vg-out" ||
      fail "$f" "no ORNIC tree under valgrind: $(head -c 800 "$tmp/vg-out") $(head -c 800 "$log")"
    if grep -q -E "Invalid (read|write|free)|uninitialised value|Process terminating" "$log"; then
      [[ -n $keep ]] || keep=$root/build/dissector-fuzz-failures
      mkdir -p "$keep"; cp "$log" "$keep/"
      fail "$f" "valgrind: $(grep -m3 -A6 -E 'Invalid|uninitialised|terminating' "$log")"
    fi
    grep -q "ERROR SUMMARY" "$log" || fail "$f" "valgrind did not finish"
  done
  echo "dissector-fuzz: $vpasses valgrind passes, no invalid access ($((SECONDS - start)) s)"
fi
