#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What changed between Wireshark versions in the differential campaign (issue 32, docs/FUZZING.md
"Triage"): the batches of scripts/diff-wireshark.py through several tsharks at once, each frame's
disagreement classes under each, and the frames whose classes differ between them, grouped by the change.

    scripts/diff-wireshark-versions.py --bin build/bin --frames 1000000 [--seed 1] [--batch 50000]
        [--ipv6] [--work DIR] ROOT...

ROOT: a root filesystem holding a tshark (scripts/wireshark-matrix.sh's cached Debian roots), or `host`
for the tshark on PATH. Prints, per change (the classes under each tshark, in the order given), its count
of frames and up to 3 examples as (batch, frame, the mutation log line). Counts cover the first --frames
frames, as diff-wireshark.py's table does, so they are the differences between its tables. Exit 77
without a tshark."""
import argparse
import collections
import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
from diff_campaign import Campaign  # noqa: E402

# diff-wireshark.py's tshark runner and per-frame comparison (its name has a hyphen: loaded from its path).
_spec = importlib.util.spec_from_file_location("diff_wireshark", os.path.join(HERE, "diff-wireshark.py"))
dw = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dw)


def tsharks(roots):
    """{label: (fields command, HOME to remove)}, the label being the tshark's version line."""
    out = {}
    for r in roots:
        base, home = dw.tshark_base(None if r == "host" else r)
        if base is None:
            raise SystemExit(77)
        version, _ = dw.tshark_info(base)
        out[version] = (dw.fields_cmd(base, dw.FIELDS), home)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--frames", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=50000)
    ap.add_argument("--ipv6", action="store_true")
    ap.add_argument("--work")
    ap.add_argument("roots", nargs="+", help="root filesystems with a tshark, or host")
    a = ap.parse_args()
    try:
        ts = tsharks(a.roots)
    except SystemExit as e:
        print("SKIP: a tshark is missing")
        return e.code
    work = a.work or tempfile.mkdtemp(prefix="ornic-diff-wsv-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    c = Campaign(a.bin, work, a.seed, a.batch, ipv6=a.ipv6)
    c.make_seeds()
    changes, examples, frames, index = collections.Counter(), {}, 0, 0
    while frames < a.frames:
        _, path, log, _ = c.mutate(index)
        os.chmod(path, 0o644)
        ours = c.ours(path)
        theirs = {v: dw.theirs(cmd, dw.FIELDS, path) for v, (cmd, _) in ts.items()}
        for i, o in enumerate(ours[:a.frames - frames]):
            key = tuple(tuple(dw.compare(o, theirs[v][i])) for v in ts)
            if len(set(key)) > 1:
                changes[key] += 1
                examples.setdefault(key, []).append((index, o["frame"], log[o["frame"] - 1]))
        frames += min(len(ours), a.frames - frames)
        index += 1
    for _, home in ts.values():
        shutil.rmtree(home, ignore_errors=True)
    print(f"{frames} frames, {index} batches, seed {a.seed}: {sum(changes.values())} frames whose classes differ")
    for key, n in changes.most_common():
        print(f"\n{n} frames")
        for v, classes in zip(ts, key):
            print(f"  {v}: {list(classes) or 'agree'}")
        for e in examples[key][:3]:
            print(f"    e.g. batch {e[0]}, frame {e[1]}: {e[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
