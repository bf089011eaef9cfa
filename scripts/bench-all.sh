#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every performance figure of issue 18, each as a ratio against a reference
# measured in the same run (a benchmark, not a pass/fail test: it exits 0
# whatever it measures, 1 only if a benchmark could not run). Runs, one
# after the other so that they do not measure each other:
#   ornic-bench --json             library decode (ring and shuffled order)
#                                  beside a minimal reference parse; iCRC
#                                  beside a raw CRC-32 on mixed frames
#   scripts/bench-decode-io.sh     ornic-decode --stats, text, --json beside cat
#   scripts/bench-pcapgen-io.sh    ornic-pcapgen beside dd; RSS at 1000 QPs
#   scripts/dissector-speed.sh     tshark with the plugin beside stock (CPU)
#   scripts/dissector-memory.sh    the plugin's bytes per frame over stock
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
    -h|--help) sed -n '3,22p' "$0"; exit 0 ;;
    *) echo "bench-all: unknown argument $1" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" && pwd) || { echo "bench-all: no build directory $build" >&2; exit 1; }
for b in ornic-bench ornic-decode ornic-pcapgen; do
  [[ -x $build/bin/$b ]] || { echo "bench-all: $build/bin/$b not built" >&2; exit 1; }
done
if [[ -z $log ]]; then
  log=$(mktemp -d /tmp/ornic-bench-all.XXXXXX)
  trap 'rm -rf "$log"' EXIT
fi
mkdir -p "$log"
if [[ -n $quick ]]; then
  frames=200000 rounds=3 pkts=200000 druns=1 dwqes=24 mwqes=10
else
  frames=1000000 rounds=9 pkts=1000000 druns=5 dwqes=184 mwqes=50
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
step decode-io bash "$root/scripts/bench-decode-io.sh" --build "$build" --frames "$frames" --rounds "$rounds"
step pcapgen-io bash "$root/scripts/bench-pcapgen-io.sh" --build "$build" --packets "$pkts" --rounds "$rounds"
plugin=$(ls "$build"/lib/wireshark/plugins/*/epan/ornic.so 2>/dev/null | head -1 || true)
if [[ -n $plugin ]] && command -v tshark > /dev/null; then
  step dissector-speed bash "$root/scripts/dissector-speed.sh" --build "$build" --runs "$druns" --wqes "$dwqes"
  step dissector-memory bash "$root/scripts/dissector-memory.sh" --build "$build" --runs "$druns" --wqes "$mwqes"
else
  echo "bench-all: no plugin in $build or no tshark: the dissector rows are left out" >&2
fi

# The summary: the figures read back from the logs (the scripts' own words;
# a figure a script no longer prints shows as '?').
python3 - "$log" "$md" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(uname -srm)" "$(nproc)" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" "$quick" << 'EOF'
import json, os, re, sys
log, md, when, kernel, ncpu, cpu, quick = sys.argv[1:8]

def text(name):
    p = os.path.join(log, name + ".txt")
    return open(p).read() if os.path.exists(p) else ""

def grab(name, pattern, group=1):
    m = re.search(pattern, text(name), re.M)
    return float(m.group(group)) if m else None

rows = []  # (figure, measured, reference, ratio, goal, met)
def row(fig, measured, ref, ratio, goal, met):
    rows.append((fig, measured, ref, ratio, goal, met))

def fmt(v, f="{:.2f}"):
    return "?" if v is None else f.format(v)

b = {}
try:
    b = json.loads(text("ornic-bench"))
except ValueError:
    pass
g = b.get
for order, key, ref in (("ring order", "decode", "ref"), ("shuffled", "decode_shuffled", "ref_shuffled")):
    share = g(key + "_share_median")
    row(f"library decode, 88-byte mixed frames, {order}",
        f"{fmt(g(key + '_mpps_median'), '{:.1f}')} Mpps",
        f"reference parse {fmt(g(ref + '_mpps_median'), '{:.1f}')} Mpps",
        fmt(share), ">= 0.60", share is not None and share >= 0.6)
r = g("icrc_ratio_mixed_median")
row("iCRC verify, mixed frames", f"{fmt(g('icrc_gbps_mixed_median'), '{:.1f}')} GB/s",
    f"raw CRC-32 {fmt(g('raw_crc_gbps_mixed_median'), '{:.1f}')} GB/s", fmt(r), "(reported)", None)

for what, pat, goal in (("--stats", r"ornic-decode --stats", 1.6), ("text", r"ornic-decode \(text\)", 2.5),
                        ("--json", r"ornic-decode --json", 4.0)):
    m = re.search(r"^" + pat + r"\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", text("decode-io"), re.M)
    c = re.search(r"^cat FILE\s+([\d.]+)", text("decode-io"), re.M)
    ratio = float(m.group(3)) if m else None
    row(f"ornic-decode {what}, 1 KiB-frame capture" + (" (200k frames)" if quick else " (1M frames)"),
        f"{m.group(1)} s CPU" if m else "?", f"cat {c.group(1)} s" if c else "?",
        fmt(ratio), f"<= {goal}", ratio is not None and ratio <= goal)

t = text("pcapgen-io")
m = re.search(r"^\s*ornic-pcapgen -> /dev/null\s+([\d.]+) GB/s median", t, re.M)
d = re.search(r"^\s*dd bs=.*?\s([\d.]+) GB/s median", t, re.M)
q = re.search(r"ornic-pcapgen / dd:\s+([\d.]+)x median", t)
gbs = float(m.group(1)) if m else None
row("ornic-pcapgen --bench, 1 KiB frames to /dev/null", f"{fmt(gbs)} GB/s",
    f"dd of the same bytes {d.group(1)} GB/s" if d else "?", fmt(float(q.group(1)) if q else None),
    ">= 2.5 GB/s", gbs is not None and gbs >= 2.5)
m = re.search(r"--wqe-size 1M\s+([\d.]+) MB max RSS", t)
mb = float(m.group(1)) if m else None
row("ornic-pcapgen --qps 1000, 1 MiB WQEs: max RSS", f"{fmt(mb, '{:.1f}')} MB", "", "", "< 64 MB",
    mb is not None and mb < 64)

if text("dissector-speed"):
    m = re.search(r"CPU time \(user\+sys\): stock ([\d.]+) s, with the plugin ([\d.]+) s, ratio ([\d.]+)",
                  text("dissector-speed"))
    ratio = float(m.group(3)) if m else None
    row("tshark with the plugin, RoCEv2 capture", f"{m.group(2)} s CPU" if m else "?",
        f"stock tshark {m.group(1)} s" if m else "?", fmt(ratio), "<= 1.3", ratio is not None and ratio <= 1.3)
    m = re.search(r"plugin over stock: ([\d.]+) bytes per frame", text("dissector-memory"))
    bpf = float(m.group(1)) if m else None
    s = re.search(r"stock tshark (\d+) KB, with the plugin (\d+) KB", text("dissector-memory"))
    row("plugin memory, tshark -2 on ORNIC frames", f"{s.group(2)} KB" if s else "?",
        f"stock {s.group(1)} KB" if s else "?", f"+{fmt(bpf, '{:.0f}')} B/frame", "<= +80 B/frame",
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
echo "logs: $log" >&2
