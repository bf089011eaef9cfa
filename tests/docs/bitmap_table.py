#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown tables of ornic-bitmap-sim runs (docs/BITMAP_MODELS.md, sections 4b and 4c), from their --json.
Every run is `ornic-bitmap-sim FLAGS --sweep none --no-detectors --json` (the main table does not depend on
the sweep or the detectors).

  bitmap_table.py flags FLAGS...       a row per FLAGS (one shell word each; '' for none): mean access cost
                                       of ORNIC, MELO+, LEFT, LEFT+ and most blocks one QP held, no loss / loss
  bitmap_table.py threshold N...       LEFT and LEFT+ under --paper --left-threshold N (N or `every`)
  bitmap_table.py paper                the ORNIC paper's Tables 2 and 3 beside --paper's figures
  bitmap_table.py scale FLAGS...       section 4d: a row per FLAGS at the paper's pool scale, every run
                                       `ornic-bitmap-sim --qps 2048 --active 2048 FLAGS --sweep none
                                       --no-detectors --json`: the reordering bound, WQEs aborted (mean per
                                       seed) and arrivals that found the pool empty, no loss / loss
  bitmap_table.py check-paper FILE     exit 1 unless FILE (the paper's text) holds PAPER's figures

PAPER is Ma et al., "ORNIC: ...", Electronics 14(1):88, 2025, section 4.3: Table 2 (average clock cycles for
an out-of-order packet to locate its bitmap block, no packet loss / with packet loss) and Table 3 (maximum
bitmap blocks occupied by a QP), as printed; scripts/docs-regen.sh checks them against the stored text of the
paper (../shared/seeds/ornic-paper-electronics-2025.txt) when it is there."""
import json
import shlex
import subprocess
import sys

MODELS = ("ornic", "melo+", "left", "left+")
NAMES = {"ornic": "ORNIC", "melo+": "MELO+", "left": "LEFT", "left+": "LEFT+"}
# model: ((Table 2 no loss, with loss), (Table 3 no loss, with loss)), and the footnote mark the table prints
PAPER = {
    "melo+": ((1.75, 7.75), (4, 20), "1"),
    "left": ((1.25, 5.25), (4, 20), "2"),
    "left+": ((1.25, 1.65), (4, 20), "3"),
    "ornic": ((1, 1), (4, 5), ""),
}


def sim(flags):
    out = subprocess.run(["ornic-bitmap-sim"] + flags + ["--sweep", "none", "--no-detectors", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["models"]


def pair(m, key, fmt):
    return "%s / %s" % (fmt % m["no_loss"][key], fmt % m["loss"][key])


def flags_table(rows):
    print("| FLAGS | cost ORNIC | cost MELO+ | cost LEFT | cost LEFT+ | blocks ORNIC | blocks lists |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        m = sim(shlex.split(row))
        blocks = {pair(m[k], "max_blocks", "%d") for k in MODELS[1:]}
        assert len(blocks) == 1, "the lists hold different blocks: %s" % blocks
        label = "`%s`" % row if row else "(none: the default, `--reorder auto`)"
        cells = [pair(m[k], "mean_access_cost", "%.3f") for k in MODELS]
        print("| %s | %s | %s | %s |" % (label, " | ".join(cells), pair(m["ornic"], "max_blocks", "%d"),
                                         blocks.pop()))


def threshold_table(values):
    runs = [sim(["--paper", "--left-threshold", v, "--models", "left,left+"]) for v in values]
    print("| N | %s |" % " | ".join("**1**" if v == "1" else v for v in values))
    print("|---|%s" % ("---|" * len(values)))
    for k in ("left", "left+"):
        print("| %s | %s |" % (NAMES[k], " | ".join(pair(r[k], "mean_access_cost", "%.3f") for r in runs)))


def scale_table(rows):
    print("| FLAGS | reorder | model | WQEs aborted per seed (of 2048) | arrivals finding the pool empty, per seed "
          "| pool peak |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        out = subprocess.run(["ornic-bitmap-sim", "--qps", "2048", "--active", "2048"] + shlex.split(row)
                             + ["--sweep", "none", "--no-detectors", "--json"],
                             check=True, capture_output=True, text=True).stdout
        doc = json.loads(out)
        label, seeds = "`%s`" % row if row else "(none)", doc["params"]["seeds"]
        cells = []
        for k in MODELS:
            m = doc["models"][k]
            cells.append((
                " / ".join("%.1f" % (m[sc]["aborted_wqes"] / seeds) for sc in ("no_loss", "loss")),
                " / ".join("%.0f" % (m[sc]["pool_empty_arrivals"] / seeds) for sc in ("no_loss", "loss")),
                " / ".join("%.0f" % m[sc]["pool_peak"]["mean"] for sc in ("no_loss", "loss"))))
        # The lists hold the same blocks at every moment (section 1), so they drop and abort alike.
        assert cells[1] == cells[2] == cells[3], "the lists differ: %s" % cells[1:]
        for name, c in (("ORNIC", cells[0]), ("MELO+, LEFT, LEFT+", cells[1])):
            print("| %s | %d | %s | %s | %s | %s |" % ((label, doc["params"]["reorder"], name) + c))


def num(x):
    return "%g" % x if x == int(x) else "%.2f" % x


def paper_table():
    m = sim(["--paper"])
    print("| model | Table 2: cycles (paper) | `--paper`: pointer accesses | Table 3: most blocks (paper) "
          "| `--paper`: most blocks |")
    print("|---|---|---|---|---|")
    for k in MODELS:
        cyc, blk, _ = PAPER[k]
        print("| %s | %s / %s | %s | %d / %d | %s |" % (NAMES[k], num(cyc[0]), num(cyc[1]),
                                                        pair(m[k], "mean_access_cost", "%.3f"), blk[0], blk[1],
                                                        pair(m[k], "max_blocks", "%d")))


def check_paper(path):
    """The paper's tables as its text prints them: name, footnote mark and the two figures run together."""
    with open(path, encoding="utf-8") as f:
        lines = {ln.strip() for ln in f}
    missing = []
    for k, (cyc, blk, mark) in PAPER.items():
        sep = " " if mark else ""
        t2 = "%s%s%s%s%s" % (NAMES[k], sep, mark, num(cyc[0]), num(cyc[1]))
        t3 = "%s%d%d" % (NAMES[k], blk[0], blk[1])
        missing += [t for t in (t2, t3) if t not in lines]
    if missing:
        print("bitmap_table: %s lacks the rows %s: PAPER in tests/docs/bitmap_table.py is not the paper's"
              % (path, missing), file=sys.stderr)
        return 1
    print("bitmap_table: %s: Tables 2 and 3 are PAPER's" % path, file=sys.stderr)
    return 0


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    mode, rest = argv[0], argv[1:]
    if mode == "flags":
        flags_table(rest)
    elif mode == "threshold":
        threshold_table(rest)
    elif mode == "scale":
        scale_table(rest)
    elif mode == "paper":
        paper_table()
    elif mode == "check-paper":
        return check_paper(rest[0])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
