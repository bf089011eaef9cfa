#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ornic-decode on hostile captures (issue 28; docs/RELIABILITY.md "Hostile captures").

    hostile_budget.py DECODER ICRC_HELPER WORKDIR [--no-valgrind WHY]

Memory: 4,000 and 65,536 conversations whose PSNs jump by 16,000
(hostile.py grow) stay within the analysis' default budget: the decoder's
peak resident set over the same run with --no-analysis is at most 200 MB,
and the conversations past the budget are reported for it ("[Untracked:
memory budget]", the "limits" line), not for the table. With a 4,000
conversation capture nothing is refused.

CPU: each hostile pattern (huge READs, 255-block NAKs, ACKs jumping +-8M,
window-growing conversations, responses that fit none of many unpaired
conversations) costs at most 20 times the instructions per
packet of benign traffic, counted by callgrind (instruction counts, not
times: deterministic, and the same on a loaded CI machine), in --stats and
in text output. The decoder's start-up is measured on a one-packet capture
and taken off. In the ASan build (--no-valgrind) neither valgrind nor a
resident-set bound applies (ASan's shadow memory and quarantine are most of
it); the engine's own count of its memory (--json's analysis.memory_peak)
is checked in every build.
"""
import json
import os
import re
import subprocess
import sys

from checks import check, finish


DEC, HELPER, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
VALGRIND = "--no-valgrind" not in sys.argv[4:]
HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile.py")
os.makedirs(WORK, exist_ok=True)


def capture(kind, count):
    path = os.path.join(WORK, f"{kind}-{count}.pcap")
    if not os.path.exists(path):
        subprocess.run([sys.executable, HOSTILE, HELPER, kind, str(count), path + ".tmp"],
                       check=True)
        os.replace(path + ".tmp", path)
    return path


def run_rss(cmd):
    """(exit status, peak resident set in KiB) by /usr/bin/time: the child of a
    small C program, whose own resident set (which Linux carries across exec
    into ru_maxrss) is a few hundred KiB, not this Python's 20 MiB."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    return out.returncode, int(out.stderr.strip().splitlines()[-1])


def memory(count):
    path = capture("grow", count)
    summary = json.loads(subprocess.run([DEC, "--stats", "--json", path], capture_output=True,
                                        text=True).stdout)["analysis"]
    budget = 128 << 20
    check(summary["max_memory"] == budget and summary["memory_peak"] <= budget * 5 // 4,
          f"grow {count}: the engine's memory {summary['memory_peak']} bytes, budget "
          f"{summary['max_memory']}")
    if VALGRIND:
        rc, with_an = run_rss([DEC, "--stats", path])
        rc0, without = run_rss([DEC, "--stats", "--no-analysis", path])
        over = (with_an - without) / 1024
        check(rc == 0 and rc0 == 0, f"grow {count}: exit status {rc} / {rc0}")
        check(over <= 200, f"grow {count}: {over:.1f} MiB over --no-analysis "
              f"({with_an} KiB against {without} KiB), at most 200")
    out = subprocess.run([DEC, "--stats", path], capture_output=True, text=True).stdout
    limits = re.search(r"^limits .*untracked (\d+) packets for the budget, (\d+) for the table",
                       out, re.M)
    text = subprocess.run([DEC, path], capture_output=True, text=True).stdout
    if count > 10000:
        check(limits is not None and int(limits[1]) > 0 and limits[2] == "0",
              f"grow {count}: packets refused for the budget, none for the table "
              f"({limits[0] if limits else 'no limits line'})")
        check("[Untracked: memory budget]" in text and "table full" not in text,
              f"grow {count}: untracked packets say the budget")
    else:
        check(limits is None and "Untracked" not in text,
              f"grow {count}: every conversation tracked at the default budget")


def instructions(args, path):
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          DEC] + args + [path], capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or not m:
        raise SystemExit(f"valgrind {args} {path}: exit {out.returncode}\n{out.stderr[-2000:]}")
    return int(m[1])


def packets(path):
    out = subprocess.run([DEC, "--stats", "--no-analysis", path], capture_output=True,
                         text=True).stdout
    return int(re.search(r"^packets\s+(\d+) total", out, re.M)[1])


def cpu():
    base_cap = capture("benign", 1)
    cases = [("benign", 20000), ("read", 2000), ("nak", 2000), ("ack", 2000), ("grow", 1000),
             ("pair", 1000)]
    for args, mode in (([], "text"), (["--stats"], "--stats")):
        start = instructions(args, base_cap)
        per = {}
        for kind, n in cases:
            path = capture(kind, n)
            per[kind] = (instructions(args, path) - start) / packets(path)
        for kind, _ in cases[1:]:
            if kind == "pair" and mode == "--stats":
                # one conversation per packet: --stats then prints a table row (two lines
                # through printf, ~20,000 instructions) per packet, whatever the analysis costs
                continue
            ratio = per[kind] / per["benign"]
            check(ratio <= 20, f"{mode}: {kind} {per[kind]:.0f} instructions per packet, "
                  f"{ratio:.1f} x benign's {per['benign']:.0f}, at most 20")


memory(4000)
memory(65536)
if VALGRIND:
    cpu()
else:
    print(f"note: no instruction counts ({sys.argv[5] if len(sys.argv) > 5 else ''})")
finish()
