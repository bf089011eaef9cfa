#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The analysis' memory per conversation at scale (issue 33; docs/PERFORMANCE.md, "Scale").

    ornic_decode_scale_memory.py DECODER PCAPGEN WORKDIR [--no-rss WHY]

scripts/scale-capture.py writes 4,096 conversations, 16 QPs per host pair, 65,536 frames: each QP
pair one 2 KiB WRITE of 8 packets of 256 bytes on one path, each ACKed (16 frames), nothing
reordered. The oracle is that construction and the issue's goal: every frame's iCRC checks (the
script recomputed them, python/ornicproto/icrc.py, and libornicproto verifies them), the
analysis tracks 4,096 conversations with 8 requests, 8 responses and no out-of-order arrival
each, nothing untracked (--max-memory 0); and the decoder's max RSS over its own run with
--no-analysis is at most 8 KiB per conversation (a PSN window of 256 slots of 32 bytes alone
is 8 KiB). Not in an ASan build (--no-rss): its shadow memory is most of the resident set.
"""
import json
import os
import subprocess
import sys

from checks import check, finish

DEC, GEN, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
RSS = "--no-rss" not in sys.argv[4:]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CONVS, FRAMES = 4096, 65536
os.makedirs(WORK, exist_ok=True)


def max_rss_kib(args):
    out = subprocess.run(["/usr/bin/time", "-f", "%M", DEC, *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, check=True)
    return int(out.stderr.strip().splitlines()[-1])


cap = os.path.join(WORK, "scale-4096.pcap")
subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "scale-capture.py"), GEN, str(CONVS),
                "16", str(FRAMES), cap], check=True, stdout=subprocess.DEVNULL)

s = json.loads(subprocess.run([DEC, "--stats", "--json", "--max-memory", "0", cap],
                              capture_output=True, text=True, check=True).stdout)
check(s["packets"]["roce"] == FRAMES and s["icrc"]["ok"] == FRAMES,
      "%d frames, every iCRC good: %s" % (FRAMES, s["icrc"]))
an, convs = s["analysis"], s["conversations"]
check(an["conversations"] == CONVS and an["untracked_packets"] == 0 and len(convs) == CONVS,
      "%d conversations tracked, none untracked" % CONVS)
dirs = [c["directions"]["a_to_b"] for c in convs]
check(all((d["requests"], d["responses"], d["ooo"]) == (8, 8, 0) for d in dirs),
      "each: 8 requests, 8 responses, nothing out of order")

if RSS:
    with_an = max_rss_kib(["--stats", "--max-memory", "0", cap])
    without = max_rss_kib(["--stats", "--no-analysis", cap])
    per = (with_an - without) * 1024 / CONVS
    check(per <= 8192, "max RSS %d KiB, %d KiB with --no-analysis: %.0f bytes per conversation "
          "(at most 8192)" % (with_an, without, per))
else:
    print("skip RSS:", " ".join(sys.argv[5:]) or "--no-rss")

finish()
