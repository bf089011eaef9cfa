#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every performance figure of issues 18 and 33, each as a ratio against a reference
# measured in the same run (a benchmark, not a pass/fail test: it exits 0
# whatever it measures, 1 only if a benchmark could not run). Runs, one
# after the other so that they do not measure each other:
#   ornic-bench --json             library decode (ring and shuffled order)
#                                  beside a minimal reference parse; iCRC
#                                  beside a raw CRC-32 on mixed frames
#   scripts/bench-decode-io.sh     ornic-decode --stats beside the decode
#                                  floor (ornic-decode-floor: read, iCRC,
#                                  Eth/IP/UDP/BTH, per-QP counters), text
#                                  and --json beside --stats, to /dev/null
#                                  and to a tmpfs file; callgrind's
#                                  instructions per frame of both
#   scripts/bench-pcapgen-io.sh    ornic-pcapgen beside dd; RSS at 1000 QPs
#   scripts/dissector-speed.sh     tshark with the plugin beside stock (CPU)
#   scripts/dissector-memory.sh    the plugin's bytes per frame over stock
#   scripts/bench-scale.sh         the analysis at 1, 1k and 64k conversations
#                                  (its own table, after the summary)
# Each one's whole output is kept in the log directory; the summary table at
# the end has the figure, its goal and whether this run met it. All times
# are CPU times (user + system), medians of interleaved rounds: the machine
# may be shared. About 10 minutes on 2 cores (--quick: about 2).
# Usage: scripts/bench-all.sh [--build DIR] [--quick] [--log DIR] [--markdown]
#   --build DIR  a release build with the plugin (default: build)
#   --quick      fewer rounds and frames: a smoke run, not figures to quote
#   --log DIR    keep the outputs there (default: a temporary directory)
#   --markdown   the summary as a Markdown table (docs/PERFORMANCE.md's)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build quick='' log='' md=''
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --log) log=$2; shift 2 ;;
    --markdown) md=1; shift ;;
    -h|--help) sed -n '3,29p' "$0"; exit 0 ;;
    *) echo "bench-all: unknown argument $1" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" && pwd) || { echo "bench-all: no build directory $build" >&2; exit 1; }
for b in ornic-bench ornic-decode ornic-decode-floor ornic-pcapgen; do
  [[ -x $build/bin/$b ]] || { echo "bench-all: $build/bin/$b not built" >&2; exit 1; }
done
if [[ -z $log ]]; then
  log=$(mktemp -d /tmp/ornic-bench-all.XXXXXX)
  trap 'rm -rf "$log"' EXIT
fi
mkdir -p "$log"
if [[ -n $quick ]]; then
  frames=200000 rounds=3 pkts=200000 druns=1 dwqes=24 mwqes=10 cgframes=10000
else
  frames=1000000 rounds=9 pkts=1000000 druns=5 dwqes=184 mwqes=50 cgframes=50000
fi

# step NAME COMMAND...: runs it with its output in $log/NAME.txt
step() {
  local name=$1; shift
  echo "== $name: ${*/#$root\//}" >&2
  if ! "$@" > "$log/$name.txt" 2>&1; then
    echo "bench-all: $name failed:" >&2
    tail -5 "$log/$name.txt" >&2
    return 1
  fi
}
step ornic-bench "$build/bin/ornic-bench" --json
step decode-io bash "$root/scripts/bench-decode-io.sh" --build "$build" --frames "$frames" --rounds "$rounds" \
  --callgrind "$cgframes" --summary "$log/decode-io.json"
step pcapgen-io bash "$root/scripts/bench-pcapgen-io.sh" --build "$build" --packets "$pkts" --rounds "$rounds" \
  --summary "$log/pcapgen-io.json"
plugin=$(ls "$build"/lib/wireshark/plugins/*/epan/ornic.so 2>/dev/null | sed -n 1p || true)
if [[ -n $plugin ]] && command -v tshark > /dev/null; then
  step dissector-speed bash "$root/scripts/dissector-speed.sh" --build "$build" --runs "$druns" --wqes "$dwqes" \
    --summary "$log/dissector-speed.json"
  step dissector-memory bash "$root/scripts/dissector-memory.sh" --build "$build" --runs "$druns" --wqes "$mwqes" \
    --summary "$log/dissector-memory.json"
else
  echo "bench-all: no plugin in $build or no tshark: the dissector rows are left out" >&2
fi

# The summary: the figures read back from each script's --summary JSON (and
# ornic-bench's --json); a figure a script no longer writes shows as '?'.
python3 - "$log" "$md" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(uname -srm)" "$(nproc)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" "$quick" << 'EOF'
import json, os, sys
log, md, when, kernel, ncpu, cpu, quick = sys.argv[1:8]

def text(name):
    p = os.path.join(log, name + ".txt")
    return open(p).read() if os.path.exists(p) else ""

def summary(name, ext=".json"):  # a script's --summary file (ornic-bench: its --json output)
    p = os.path.join(log, name + ext)
    try:
        return json.load(open(p))
    except (OSError, ValueError):
        return {}

rows = []  # (figure, measured, reference, ratio, goal, met)
def row(fig, measured, ref, ratio, goal, met):
    rows.append((fig, measured, ref, ratio, goal, met))

def fmt(v, f="{:.2f}"):
    return "?" if v is None else f.format(v)

g = summary("ornic-bench", ".txt").get
for order, key, ref in (("ring order", "decode", "ref"), ("shuffled", "decode_shuffled", "ref_shuffled")):
    share = g(key + "_share_median")
    row(f"library decode, 88-byte mixed frames, {order}",
        f"{fmt(g(key + '_mpps_median'), '{:.1f}')} Mpps",
        f"reference parse {fmt(g(ref + '_mpps_median'), '{:.1f}')} Mpps",
        fmt(share), ">= 0.60", share is not None and share >= 0.6)
r = g("icrc_ratio_mixed_median")
row("iCRC verify, mixed frames", f"{fmt(g('icrc_gbps_mixed_median'), '{:.1f}')} Gb/s",
    f"raw CRC-32 {fmt(g('raw_crc_gbps_mixed_median'), '{:.1f}')} Gb/s", fmt(r), "(reported)", None)

d = summary("decode-io")
med, low = d.get("cpu_s_median", {}), d.get("cpu_s_min", {})
xmed, xlow = d.get("x_ref_median", {}), d.get("x_ref_min", {})
def both(m, l, f="{:.3f}"):  # a median and the minimum of the same rounds
    return f"{fmt(m, f)} (min {fmt(l, f)})"
cap = "1 KiB-frame capture" + (" (200k frames)" if quick else " (1M frames)")
fl = both(med.get("floor"), low.get("floor"))
cm, cl = med.get("cat"), low.get("cat")
row(f"decode floor (ornic-decode-floor, read()), {cap}", f"{fl} s CPU",
    f"cat {both(cm, cl)} s (reported)",
    both(med["floor"] / cm if cm and med.get("floor") else None,
         low["floor"] / cl if cl and low.get("floor") else None, "{:.2f}"), "(reported)", None)
for key, what in (("floor_mmap", "decode floor over mmap"),):
    row(what, f"{both(med.get(key), low.get(key))} s CPU", f"floor {fl} s",
        both(xmed.get(key), xlow.get(key), "{:.2f}"), "(reported)", None)
row(f"ornic-decode --stats, {cap}", f"{both(med.get('stats'), low.get('stats'))} s CPU", f"floor {fl} s",
    both(xmed.get("stats"), xlow.get("stats"), "{:.2f}"), "<= 1.3",
    xmed.get("stats") is not None and xmed["stats"] <= 1.3)
st = both(med.get("stats"), low.get("stats"))
for key, what, goal in (("text", "text to /dev/null", 1.15), ("text_file", "text to a tmpfs file", 1.15),
                        ("json", "--json to /dev/null", 1.35), ("json_file", "--json to a tmpfs file", 1.35)):
    r = xmed.get(key)
    row(f"ornic-decode {what}", f"{both(med.get(key), low.get(key))} s CPU", f"--stats {st} s",
        both(r, xlow.get(key), "{:.2f}"), f"<= {goal}", r is not None and r <= goal)
ins = d.get("instructions_per_frame", {})
si, fi = ins.get("stats"), ins.get("floor")
row("ornic-decode --stats, instructions per frame (callgrind)", fmt(si, "{:.0f}"),
    f"floor {fmt(fi, '{:.0f}')}", fmt(si / fi if si and fi else None), "<= 1000", si is not None and si <= 1000)

p = summary("pcapgen-io").get
gbs, dd = p("pcapgen_gbs_median"), p("dd_gbs_median")
row("ornic-pcapgen --bench, 1 KiB frames to /dev/null", f"{fmt(gbs)} GB/s",
    f"dd of the same bytes {fmt(dd)} GB/s", fmt(gbs / dd if gbs and dd else None),
    ">= 2.5 GB/s", gbs is not None and gbs >= 2.5)
mb = p("rss_kb_1M") / 1024 if p("rss_kb_1M") else None
row("ornic-pcapgen --qps 1000, 1 MiB WQEs: max RSS", f"{fmt(mb, '{:.1f}')} MB", "", "", "< 64 MB",
    mb is not None and mb < 64)

if text("dissector-speed"):
    s = summary("dissector-speed").get
    ratio = s("cpu_ratio")
    row("tshark with the plugin, RoCEv2 capture", f"{fmt(s('plugin_cpu_s'), '{:.3f}')} s CPU",
        f"stock tshark {fmt(s('stock_cpu_s'), '{:.3f}')} s", fmt(ratio), "<= 1.3",
        ratio is not None and ratio <= 1.3)
    m = summary("dissector-memory").get
    bpf = m("bytes_per_frame")
    row("plugin memory, tshark -2 on ORNIC frames", f"{fmt(m('plugin_kb'), '{:.0f}')} KB",
        f"stock {fmt(m('stock_kb'), '{:.0f}')} KB", f"+{fmt(bpf, '{:.0f}')} B/frame", "<= +80 B/frame",
        bpf is not None and bpf <= 80)

head = ("figure", "measured", "reference (same run)", "ratio", "goal", "met")
def met(x):
    return "" if x is None else ("yes" if x else "NO")
print(f"# {when}; {cpu}, {ncpu} CPUs; {kernel}" + ("; --quick: not figures to quote" if quick else ""))
if md:
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(list(r[:5]) + [met(r[5])]) + " |")
else:
    w = [max(len(str(x)) for x in col) for col in zip(head, *[r[:5] + (met(r[5]),) for r in rows])]
    for r in [head] + [r[:5] + (met(r[5]),) for r in rows]:
        print("  ".join(str(x).ljust(n) for x, n in zip(r, w)).rstrip())
EOF

# ---- Scale (issue 33): the conversation analysis at 1, 1,024 and 65,536 conversations in about 1M
# frames; its table (per conversation, not against a reference) follows the summary.
if [[ -n $quick ]]; then scale_args=(--frames 262144 --rounds 1); else scale_args=(--rounds 3); fi
step scale bash "$root/scripts/bench-scale.sh" --build "$build" "${scale_args[@]}" ${md:+--markdown}
echo
echo "# scale: ornic-decode --stats --max-memory 0 (scripts/bench-scale.sh)"
cat "$log/scale.txt"
echo "logs: $log" >&2
