#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ornic-decode --max-conversations N: the engine's conversation table (cfg.max_convs).

    ornic_decode_max_convs.py DECODER ICRC_HELPER WORKDIR

The oracle is the capture's construction: hostile.py grow 50 writes 50 conversations, each
from its own source address to its own QP, of 2 requests each (PSN 0 and 16,000), one after
the other. With --max-conversations 10 the first 10 are tracked and the other 40
conversations' 80 packets are untracked for the table, not the memory budget: in the
--stats summary, the "limits" line and --json's analysis object; each of them carries
[Untracked: conversation table full]. Without the option (65536) nothing is untracked.
0 and 2^24 + 1 are usage errors (exit 2) naming the option.
"""
import json
import os
import re
import subprocess
import sys

from checks import check, finish

DEC, HELPER, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile.py")
os.makedirs(WORK, exist_ok=True)


def run(*args):
    return subprocess.run([DEC, *args], capture_output=True, text=True)


cap = os.path.join(WORK, "grow-50.pcap")
subprocess.run([sys.executable, HOSTILE, HELPER, "grow", "50", cap], check=True)

text = run("--stats", "--max-conversations", "10", cap).stdout
check("conversations 10 (" in text and "at most 10 tracked, 80 packets untracked)" in text,
      "--stats: 10 conversations tracked, 80 packets untracked")
check(re.search(r"^limits .*untracked 0 packets for the budget, 80 for the table;", text, re.M)
      is not None, "the limits line: 80 packets for the table, 0 for the budget")

an = json.loads(run("--stats", "--json", "--max-conversations", "10", cap).stdout)["analysis"]
check((an["max_convs"], an["conversations"], an["untracked_packets"], an["untracked_table"],
       an["untracked_memory"]) == (10, 10, 80, 80, 0),
      "--json analysis: max_convs 10, 10 conversations, 80 untracked, all for the table: %s"
      % {k: an[k] for k in ("max_convs", "conversations", "untracked_packets",
                            "untracked_table", "untracked_memory")})

lines = run("--max-conversations", "10", cap).stdout.splitlines()
tagged = [i + 1 for i, line in enumerate(lines) if "[Untracked: conversation table full]" in line]
check(tagged == list(range(21, 101)), "frames 21-100 (conversations 11-50) tagged table full")

an = json.loads(run("--stats", "--json", cap).stdout)["analysis"]
check((an["max_convs"], an["conversations"], an["untracked_packets"]) == (65536, 50, 0),
      "default: max_convs 65536, 50 conversations, none untracked")

for bad in ("0", str((1 << 24) + 1)):
    r = run("--max-conversations", bad, cap)
    check(r.returncode == 2 and f"--max-conversations: expected" in r.stderr
          and f"got '{bad}'" in r.stderr, f"--max-conversations {bad}: usage error, exit 2")

finish()
