#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ornic-decode --plot: the time-sequence graph (CTest e2e_ornic_decode_plot).

    test_plot.py DECODER PCAPGEN WORKDIR

On ornic-pcapgen captures with known retransmissions, NAKs and out-of-order
arrivals (ORNIC sprayed over 4 paths with loss; rc two-way with READs; 8 QPs,
more directions than panels), the SVG must be well-formed XML with one panel
per expected direction (the 6 busiest), and each panel's retransmission,
duplicate, out-of-order and NAK series must hold exactly as many points as
ornic-decode's own --json flags for that direction: the plot draws the
verdicts. Then: gnuplot missing from PATH, gnuplot failing after writing half
an image, and --no-analysis each give a clear error, a non-zero exit status
and no file at FILE (nor a hidden temporary one beside it). Nothing here
depends on timing. Exit 77 (skipped) when gnuplot is not installed: the
cases that need no gnuplot still run first.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
PANEL_TITLE = re.compile(r"^conv (\d+) (A->B|B->A): ")
# The key's text of each point series, before " (N)".
SERIES = {"retransmission": "retransmission", "duplicate": "duplicate",
          "out of order": "ooo", "NAK": "nak"}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(args, env=None, **kw):
    return subprocess.run(args, capture_output=True, text=True, env=env, **kw)


def leftovers(folder, name):
    """Files in folder named name or a hidden temporary of it."""
    return [f for f in os.listdir(folder) if f == name or f.startswith("." + name + ".tmp")]


def final_direction(convs, pk, an):
    """The conversation and direction a packet belongs to at the end of the capture, from its
    addresses and DestQP against the QP pairs --stats lists: the engine may have filed it under
    a conversation it merged later (docs/PROTOCOL.md 8.1), as --json says at the packet."""
    src, dst, qp = pk.get("src"), pk.get("dst"), pk["bth"]["destqp"]
    for c in convs:
        forward = (src, dst) == (c["a"], c["b"]) and qp == c["qp_b"]
        backward = (src, dst) == (c["b"], c["a"]) and qp == c["qp_a"]
        if forward or backward:
            a_to_b = forward == (an["role"] == "request")
            return (c["id"], "A->B" if a_to_b else "B->A")
    return (an["conv"], "A->B" if an["dir"] == "a_to_b" else "B->A")


def json_counts(dec, cap, convs):
    """Per final (conv, dir): how many packets --json flags with each series' flag."""
    out = run([dec, "--json", cap], check=True).stdout
    counts = collections.defaultdict(collections.Counter)
    for line in out.splitlines():
        pk = json.loads(line)
        an = pk.get("analysis")
        if not an or not an.get("conv") or an["role"] not in ("request", "response"):
            continue
        fl = an["flags"]
        key = final_direction(convs, pk, an)
        if "retransmission" in fl:
            counts[key]["retransmission"] += 1
        elif "duplicate" in fl:
            counts[key]["duplicate"] += 1
        elif an["role"] == "request" and "ooo" in fl:
            counts[key]["ooo"] += 1
        if "nak" in fl:
            counts[key]["nak"] += 1
    return counts


def expected_panels(dec, cap):
    """Directions with requests, busiest first (as plot.c ranks them), the conversations
    (--stats --json) and how many were merged."""
    st = json.loads(run([dec, "--stats", "--json", cap], check=True).stdout)
    dirs = []
    for c in st["conversations"]:
        for d, name in (("a_to_b", "A->B"), ("b_to_a", "B->A")):
            x = c["directions"][d]
            if x["requests"]:
                dirs.append((-(x["requests"] + x["responses"]), c["id"], name))
    dirs.sort()
    return [(cid, name) for _, cid, name in dirs], st["conversations"], st["analysis"]["merged"]


def svg_panels(path):
    """Panel titles in order, and per panel {series key text: (points drawn, count in the key)}.
    gnuplot's SVG names each plot's group gnuplot_plot_<N><panel letter>: a, b, ..."""
    root = ET.parse(path).getroot()  # raises on malformed XML
    panels = [t.text for t in root.iter(SVG + "text") if t.text and PANEL_TITLE.match(t.text)]
    groups = collections.defaultdict(lambda: [[], 0])  # gnuplot group id -> [texts, uses]
    for g in root.iter(SVG + "g"):
        gid = g.get("id", "")
        if re.match(r"^gnuplot_plot_\d+[a-z]$", gid):
            groups[gid][0] += [t.text for t in g.iter(SVG + "text") if t.text]
            groups[gid][1] += sum(1 for _ in g.iter(SVG + "use"))
    series = [dict() for _ in panels]
    for gid, (texts, uses) in groups.items():
        p = ord(gid[-1]) - ord("a")
        for t in texts:
            m = re.match(r"^(.*) \((\d+)\)$", t)
            if m and p < len(series):  # a point series: its key sample is one <use> too
                series[p][m.group(1)] = (uses - 1, int(m.group(2)))
    return root, panels, series


def check_capture(dec, label, cap, workdir):
    svg = os.path.join(workdir, label + ".svg")
    r = run([dec, "--plot", svg, cap])
    check(r.returncode == 0, "%s: exit status %d: %s" % (label, r.returncode, r.stderr))
    check(os.path.isfile(svg), "%s: %s not written" % (label, svg))
    check(leftovers(workdir, label + ".svg") == [label + ".svg"],
          "%s: files left beside the image: %s" % (label, leftovers(workdir, label + ".svg")))
    if not os.path.isfile(svg):
        return
    try:
        root, panels, series = svg_panels(svg)
    except ET.ParseError as e:
        check(False, "%s: the SVG is not well-formed XML: %s" % (label, e))
        return
    want, convs, merged = expected_panels(dec, cap)
    if label == "rc":  # B's first requests make a conversation of their own until paired
        check(merged > 0, "rc: no conversation was merged: the merge path is not tested")
    shown = sorted(want[:6])
    got = [(int(m.group(1)), m.group(2)) for m in map(PANEL_TITLE.match, panels)]
    check(got == shown, "%s: panels %s, expected %s" % (label, got, shown))
    alltext = " ".join(t.text for t in root.iter(SVG + "text") if t.text)
    if len(want) > 6:
        check("the 6 busiest of %d directions" % len(want) in alltext,
              "%s: the title does not say which 6 of %d directions" % (label, len(want)))
    check("drawn: 1 in" not in alltext, "%s: sampled, the counts below cannot hold" % label)
    counts = json_counts(dec, cap, convs)
    for i, key in enumerate(got):
        for title, flag in SERIES.items():
            drawn, in_key = series[i].get(title, (0, 0)) if i < len(series) else (0, 0)
            n = counts[key][flag]
            check(drawn == n and in_key == n,
                  "%s: conv %d %s: %d %s points drawn (key says %d), --json flags %d"
                  % (label, key[0], key[1], drawn, title, in_key, n))
    # Something to see: the captures were chosen for these.
    total = collections.Counter()
    for key in got:
        total.update(counts[key])
    return total


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: test_plot.py DECODER PCAPGEN WORKDIR")
    dec, gen, work = (os.path.abspath(a) for a in sys.argv[1:])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    caps = {
        # ORNIC sprayed over 4 paths, 1% loss: OOO, NAKs and retransmissions in both QPs.
        "ornic": ["--qps", "2", "--wqes", "4", "--wqe-size", "64K", "--pmtu", "1024",
                  "--loss", "0.01", "--seed", "3"],
        # rc: both hosts request (two directions per conversation), READ responses, go-back-N.
        "rc": ["--profile", "rc", "--qps", "1", "--wqes", "6", "--wqe-size", "16K",
               "--pmtu", "1024", "--loss", "0.01", "--rc-spray", "--seed", "2"],
        # 8 directions with requests: the 6 busiest are drawn.
        "many": ["--qps", "8", "--wqes", "2", "--wqe-size", "16K", "--pmtu", "1024",
                 "--loss", "0.02", "--seed", "5"],
    }
    for label, opts in caps.items():
        run([gen, "-q", "-o", label + ".pcap"] + opts, check=True)

    # No gnuplot on PATH: refused before anything is read, nothing written.
    empty = os.path.join(work, "empty-bin")
    os.makedirs(empty)
    r = run([dec, "--plot", "nognuplot.svg", "ornic.pcap"], env=dict(os.environ, PATH=empty))
    check(r.returncode == 1, "no gnuplot: exit status %d, expected 1" % r.returncode)
    check("gnuplot" in r.stderr and "nognuplot.svg" in r.stderr,
          "no gnuplot: stderr does not name gnuplot and the file: %r" % r.stderr)
    check(r.stdout == "", "no gnuplot: something was decoded: %r" % r.stdout[:200])
    check(leftovers(work, "nognuplot.svg") == [], "no gnuplot: a file was left")

    # gnuplot that writes half an image and fails: an error naming the file, nothing left.
    fake = os.path.join(work, "fake-bin")
    os.makedirs(fake)
    with open(os.path.join(fake, "gnuplot"), "w") as f:
        f.write("#!/bin/sh\nout=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\")\n"
                "printf '<svg' > \"$out\"\nexit 1\n")
    os.chmod(os.path.join(fake, "gnuplot"), 0o755)
    r = run([dec, "--plot", "half.svg", "ornic.pcap"],
            env=dict(os.environ, PATH=fake + os.pathsep + os.environ.get("PATH", "")))
    check(r.returncode == 1, "failing gnuplot: exit status %d, expected 1" % r.returncode)
    check("gnuplot failed" in r.stderr and "half.svg" in r.stderr,
          "failing gnuplot: stderr %r" % r.stderr)
    check(leftovers(work, "half.svg") == [],
          "failing gnuplot: left %s" % leftovers(work, "half.svg"))

    # --no-analysis: nothing to draw, a usage error (either order).
    for args in (["--no-analysis", "--plot", "na.svg"], ["--plot", "na.svg", "--no-analysis"]):
        r = run([dec] + args + ["ornic.pcap"])
        check(r.returncode == 2 and "--no-analysis" in r.stderr and r.stdout == "",
              "%s: exit status %d, stderr %r" % (" ".join(args), r.returncode, r.stderr))
    check(leftovers(work, "na.svg") == [], "--no-analysis: a file was left")
    r = run([dec, "--plot", "x.pdf", "ornic.pcap"])
    check(r.returncode == 2 and ".svg or .png" in r.stderr, "x.pdf: %r" % r.stderr)

    if not shutil.which("gnuplot"):
        print("gnuplot is not installed: the drawings are not tested (skipped)")
        return 1 if failures else 77

    total = collections.Counter()
    for label in caps:
        total.update(check_capture(dec, label, label + ".pcap", work) or {})
    for flag in ("retransmission", "ooo", "nak"):
        check(total[flag] > 0, "the captures show no %s: the counts above test nothing" % flag)

    # The plot changes nothing else: --json's lines are the same with it.
    plain = run([dec, "--json", "rc.pcap"]).stdout
    r = run([dec, "--json", "--plot", "json.png", "rc.pcap"])
    check(r.returncode == 0 and r.stdout == plain, "--json --plot: stdout differs from --json")
    with open("json.png", "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "json.png is not a PNG")
    # --qp: only that QP's conversations.
    r = run([dec, "--stats", "--qp", "0x000201", "--plot", "qp.svg", "many.pcap"])
    check(r.returncode == 0, "--qp: exit status %d: %s" % (r.returncode, r.stderr))
    if r.returncode == 0:
        _, panels, _ = svg_panels("qp.svg")
        check(len(panels) == 1 and "QP 0x000201" in panels[0], "--qp 0x000201: panels %s" % panels)

    print("test_plot: %d failure(s)" % len(failures) if failures else "test_plot: all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
