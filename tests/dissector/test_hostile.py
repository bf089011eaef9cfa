#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The plugin on hostile captures (issue 28): the analysis engine's limits as the plugin shows
them (dissector/README.md, "Limits of the analysis").

  test_hostile.py --plugin ornic.so --bin BUILD/bin --helper ornic-test-icrc CHECK

The captures come from tests/reliability/hostile.py (its docstring says what each KIND is).
CHECK is one of
  budget  `grow 4000` (4,000 conversations) with -o ornic.max_memory:1: the packets the budget
          keeps out carry ornic.analysis.untracked and .over_budget, are exactly those
          ornic-decode --max-memory 1M marks over_budget (the same engine and budget), and lead
          Info with "[Untracked: memory budget]"; every other packet is analysed; exactly one
          expert note in `tshark -z expert`, "Analysis memory budget (1 MiB) reached ...", on
          the first of them; the same in one pass and two. With the default budget (128 MiB)
          and with 0 (no limit): no packet untracked, no note. With -o ornic.max_conversations:10
          the packets untracked are ornic-decode --max-conversations 10's (7,980), Info led by
          "[Untracked: conversation table full]", one "Conversation table full" note, none over
          the budget
  memory  `grow 65536`, tshark -2 at the default budget: the peak RSS of tshark with the
          plugin minus stock tshark's (HOME without the plugin) is at most 200 MB, and the
          budget's note is on one packet (the budget, not the capture, bounds the engine).
          Prints the figures for grow 4000 and 65536, and for --disable-protocol ornic
  work    `read 2000` (READs of 4 GiB, each 20,000 PSNs past the previous): at least one
          packet is ornic.analysis.work_limit, with its expert note on each
          (filter = expert = tshark -z expert), exactly ornic-decode's work_limit packets,
          Info led by "[Work limit: window cut]"; every packet analysed, in one pass and two
  cost    not a test (no CTest entry): CPU time, user + system, of tshark -2 with the plugin
          and stock, median of 3 interleaved rounds, per capture of the issue's table; prints
          the table dissector/README.md quotes. Assertions on time would fail on a loaded
          machine, so no test makes them.

Peak RSS and CPU time come from wait4() of the tshark command (see peak())."""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dissector_common import Tshark, check, run_main  # noqa: E402

HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reliability",
                       "hostile.py")
BUDGET_NOTE = "Analysis memory budget ({} MiB) reached: new conversations are not analysed " \
              "(preference ornic.max_memory)"
WORK_NOTE = "Analysis work limit: this direction's PSN window shrank; older PSNs are not judged"
MB = 1000 * 1000
RSS_LIMIT = 200 * MB  # plugin minus stock, tshark -2 on grow 65536 at the default budget


def hostile(a, ts, kind, count):
    """tests/reliability/hostile.py KIND COUNT into the private folder (once per run)."""
    out = ts.path(f"{kind}-{count}.pcap")
    if not os.path.exists(out):
        p = subprocess.run([sys.executable, HOSTILE, a.helper, kind, str(count), out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode == 0, f"hostile.py {kind} {count} failed: {p.stderr[-2000:]}")
        os.chmod(out, 0o644)
    return out


def decode_flags(a, cap, extra=()):
    """frame -> ornic-decode --json's analysis flags (the library's engine, the oracle)."""
    p = subprocess.run([os.path.join(a.bin, "ornic-decode"), "--json"] + list(extra) + [cap],
                       stdout=subprocess.PIPE, text=True)
    check(p.returncode == 0, f"ornic-decode {' '.join(extra)} {cap} exited {p.returncode}")
    res = {}
    for line in p.stdout.splitlines():
        j = json.loads(line)
        if "analysis" in j:
            res[j["frame"]] = set(j["analysis"].get("flags") or ())
    return res


def fields(ts, cap, names, extra=()):
    """{frame: {field: value}} for every frame (first occurrence of each field)."""
    args = list(extra) + ["-r", cap, "-T", "fields", "-E", "occurrence=f", "-E", "separator=/t",
                          "-e", "frame.number"]
    for n in names:
        args += ["-e", n]
    res = {}
    for line in ts.run(args).splitlines():
        cols = line.split("\t")
        res[int(cols[0])] = {n: v for n, v in zip(names, cols[1:]) if v != ""}
    return res


def expert_notes(ts, cap, extra=()):
    """summary -> frequency of ORNIC's entries in tshark -z expert."""
    out = ts.run(list(extra) + ["-r", cap, "-q", "-z", "expert"])
    res = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+\S+\s+ORNIC\s+(.*\S)\s*$", line)
        if m:
            res[m.group(2)] = res.get(m.group(2), 0) + int(m.group(1))
    return res


# ---------------------------------------------------------------- budget

def do_budget(a, ts):
    cap = hostile(a, ts, "grow", 4000)
    info = ts.col("info")
    names = ["ornic.analysis.conv", "ornic.analysis.untracked", "ornic.analysis.over_budget",
             "ornic.analysis.over_budget.expert", "ornic.analysis.table_full.expert", info]
    want = sorted(fr for fr, fl in decode_flags(a, cap, ["--max-memory", "1M"]).items()
                  if "over_budget" in fl)
    check(want, "ornic-decode --max-memory 1M: no packet over the budget on grow 4000")
    for extra in (["-o", "ornic.max_memory:1"], ["-o", "ornic.max_memory:1", "-2"]):
        got = fields(ts, cap, names, extra)
        check(len(got) == 8000, f"{extra}: {len(got)} frames, hostile.py wrote 8000")
        over = sorted(fr for fr, f in got.items() if "ornic.analysis.over_budget" in f)
        untracked = sorted(fr for fr, f in got.items() if "ornic.analysis.untracked" in f)
        check(over == want, f"{extra}: {len(over)} packets over_budget (first {over[:3]}), "
              f"ornic-decode --max-memory 1M: {len(want)} (first {want[:3]})")
        check(untracked == over, f"{extra}: untracked {len(untracked)} != over_budget {len(over)}")
        lost = [fr for fr, f in got.items() if fr not in over and
                int(f.get("ornic.analysis.conv", "0")) == 0]
        check(not lost, f"{extra}: packets neither analysed nor over the budget: {lost[:5]}")
        noted = [fr for fr, f in got.items() if "ornic.analysis.over_budget.expert" in f]
        check(noted == over[:1], f"{extra}: the budget's note is on {noted[:5]}, not on the first "
              f"packet over the budget ({over[0]}) alone")
        untagged = [fr for fr in over if not got[fr].get(info, "").startswith(
            "[Untracked: memory budget]")]
        check(not untagged, f"{extra}: Info of {untagged[:3]} is not led by "
              f"'[Untracked: memory budget]': {got[untagged[0]].get(info) if untagged else ''}")
        check(not any("ornic.analysis.table_full.expert" in f for f in got.values()),
              f"{extra}: a table-full note on a capture of 4000 conversations")
        notes = expert_notes(ts, cap, extra)
        budget = {k: n for k, n in notes.items() if k.startswith("Analysis memory budget")}
        check(budget == {BUDGET_NOTE.format(1): 1},
              f"{extra}: tshark -z expert's budget notes {budget}, want one {BUDGET_NOTE.format(1)!r}")
    for extra in ([], ["-o", "ornic.max_memory:0"]):
        got = fields(ts, cap, names[:3], extra)
        untracked = [fr for fr, f in got.items() if "ornic.analysis.untracked" in f]
        check(not untracked and all("ornic.analysis.conv" in f for f in got.values()),
              f"{extra or 'default budget'}: {len(untracked)} packets untracked on grow 4000")
        notes = expert_notes(ts, cap, extra)
        check(not any(k.startswith("Analysis memory budget") for k in notes),
              f"{extra or 'default budget'}: a budget note: {notes}")
    print(f"budget: grow 4000 with ornic.max_memory 1 MiB: {len(want)} of 8000 packets over the "
          f"budget (as ornic-decode --max-memory 1M), one note on frame {want[0]}, one pass and "
          f"two; none untracked at 128 MiB or without a limit")
    do_table(a, ts, cap, names, info)


def do_table(a, ts, cap, names, info):
    """-o ornic.max_conversations:10 on grow 4000: the table, not the budget, keeps the others out."""
    want = sorted(fr for fr, fl in decode_flags(a, cap, ["--max-conversations", "10"]).items()
                  if "untracked" in fl)
    check(len(want) == 2 * (4000 - 10), f"ornic-decode --max-conversations 10: {len(want)} packets "
          f"untracked, hostile.py wrote 2 for each of 3,990 conversations past the 10th")
    extra = ["-o", "ornic.max_conversations:10"]
    got = fields(ts, cap, names, extra)
    untracked = sorted(fr for fr, f in got.items() if "ornic.analysis.untracked" in f)
    check(untracked == want, f"{extra}: {len(untracked)} packets untracked (first {untracked[:3]}), "
          f"ornic-decode --max-conversations 10: {len(want)} (first {want[:3]})")
    check(not any("ornic.analysis.over_budget" in f for f in got.values()),
          f"{extra}: packets marked over the budget")
    noted = [fr for fr, f in got.items() if "ornic.analysis.table_full.expert" in f]
    check(noted == untracked[:1], f"{extra}: the table's note is on {noted[:5]}, not on the first "
          "untracked packet alone")
    untagged = [fr for fr in untracked
                if not got[fr].get(info, "").startswith("[Untracked: conversation table full]")]
    check(not untagged, f"{extra}: Info of {untagged[:3]} is not led by "
          "'[Untracked: conversation table full]'")
    notes = expert_notes(ts, cap, extra)
    table = {k: n for k, n in notes.items() if k.startswith("Conversation table full")}
    want_note = "Conversation table full (10 conversations): new conversations are not analysed"
    check(table == {want_note: 1}, f"{extra}: tshark -z expert's table notes {table}")
    print(f"table: grow 4000 with ornic.max_conversations 10: {len(untracked)} packets untracked "
          f"(as ornic-decode --max-conversations 10), one note on frame {noted[:1]}")


# ---------------------------------------------------------------- memory

def peak(ts, cap, extra=(), plugin=True):
    """(peak RSS in bytes, user + system CPU seconds, stdout) of tshark -2 -r CAP EXTRA, run as
    the tests run it. From wait4() of the child: its rusage covers the child and every
    descendant it reaped (runuser's tshark), and ru_maxrss is the largest of them, which may
    include this Python's RSS at the fork (ru_maxrss survives exec): hence the check below
    that tshark's figure is above ours. GNU time is not in the matrix's roots."""
    p = subprocess.Popen(ts.cmd(list(extra) + ["-2", "-r", cap], plugin), stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, cwd=ts.tmp)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    check(p.returncode == 0, f"tshark {' '.join(extra)} -2 -r {cap} exited {p.returncode}")
    mine = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    check(ru.ru_maxrss > 2 * mine, f"tshark's peak RSS {ru.ru_maxrss} KiB is not clearly above "
          f"this script's {mine} KiB: the figure may be the script's")
    return ru.ru_maxrss * 1024, ru.ru_utime + ru.ru_stime, out


def do_memory(a, ts):
    if os.environ.get("ORNIC_TSHARK_PRELOAD"):
        print("SKIP: a sanitizer runtime in tshark makes its RSS meaningless")
        sys.exit(77)
    none = ["-Y", "frame.number == 0"]  # prints nothing: tshark's memory, not its output's
    rows = []
    for count in (4000, 65536):
        cap = hostile(a, ts, "grow", count)
        stock, _, _ = peak(ts, cap, none, plugin=False)
        mine, _, _ = peak(ts, cap, none)
        off, _, _ = peak(ts, cap, none + ["--disable-protocol", "ornic"])
        frames = ts.run(["-r", cap, "-Y", "ornic.analysis.over_budget.expert", "-T", "fields",
                         "-e", "frame.number"]).split()
        rows.append((count, stock, mine, off, len(frames)))
        print(f"grow {count} ({2 * count} packets), tshark -2, peak RSS: stock {stock / MB:.1f} MB, "
              f"plugin {mine / MB:.1f} MB (+{(mine - stock) / MB:.1f} MB, "
              f"{(mine - stock) / (2 * count):.0f} bytes/packet), plugin with --disable-protocol "
              f"ornic {off / MB:.1f} MB; budget notes: {len(frames)}")
    count, stock, mine, off, nnotes = rows[-1]
    check(nnotes == 1, f"grow {count} at the default budget: {nnotes} budget notes, want 1 (the "
          "budget must be what bounds the engine on this capture)")
    check(mine - stock <= RSS_LIMIT, f"grow {count}: the plugin adds {(mine - stock) / MB:.1f} MB "
          f"to tshark's peak RSS, more than {RSS_LIMIT / MB:.0f} MB")
    check(rows[0][4] == 0, f"grow 4000: {rows[0][4]} budget notes at the default budget")


# ---------------------------------------------------------------- work

def do_work(a, ts):
    cap = hostile(a, ts, "read", 2000)
    info = ts.col("info")
    names = ["ornic.analysis.conv", "ornic.analysis.work_limit",
             "ornic.analysis.work_limit.expert", info]
    want = sorted(fr for fr, fl in decode_flags(a, cap).items() if "work_limit" in fl)
    check(want, "ornic-decode: no work_limit packet on read 2000")
    for extra in ([], ["-2"]):
        got = fields(ts, cap, names, extra)
        check(sorted(got) == list(range(1, 2001)), f"{extra}: frames {min(got)}..{max(got)} "
              f"({len(got)}), hostile.py wrote 2000")
        unanalysed = [fr for fr, f in got.items() if f.get("ornic.analysis.conv") != "1"]
        check(not unanalysed, f"{extra}: packets not analysed as conversation 1: {unanalysed[:5]}")
        limited = sorted(fr for fr, f in got.items() if "ornic.analysis.work_limit" in f)
        noted = sorted(fr for fr, f in got.items() if "ornic.analysis.work_limit.expert" in f)
        check(limited == want, f"{extra}: work_limit on {limited[:5]} ({len(limited)}), "
              f"ornic-decode on {want[:5]} ({len(want)})")
        nz = expert_notes(ts, cap, extra).get(WORK_NOTE, 0)
        check(noted == limited and nz == len(limited),
              f"{extra}: work_limit on {len(limited)} packets, its note on {len(noted)}, "
              f"tshark -z expert counts {nz}")
        untagged = [fr for fr in limited
                    if not got[fr].get(info, "").startswith("[Work limit: window cut]")]
        check(not untagged, f"{extra}: Info of {untagged[:3]} not led by '[Work limit: window cut]'")
    print(f"work: read 2000: work_limit and its note on frames {want} (as ornic-decode), "
          f"all 2000 packets analysed, one pass and two")


# ---------------------------------------------------------------- cost

COST = [("benign", 200000), ("read", 20000), ("nak", 20000), ("ack", 20000), ("grow", 4000)]


def do_cost(a, ts, rounds=3):
    caps = [(k, n, hostile(a, ts, k, n)) for k, n in COST]
    cpu = {}
    for r in range(rounds):
        for k, n, cap in caps:
            # Interleaved, and the order of the two alternates, so that a change of the
            # machine's load falls on both.
            for plugin in ((False, True) if r % 2 == 0 else (True, False)):
                _, t, _ = peak(ts, cap, ["-Y", "frame.number == 0"], plugin)
                cpu.setdefault((k, plugin), []).append(t)
    print("| capture | packets | stock CPU (s) | plugin CPU (s) | plugin - stock per packet | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for k, n, cap in caps:
        npk = sum(1 for _ in open_frames(cap))
        s = statistics.median(cpu[(k, False)])
        p = statistics.median(cpu[(k, True)])
        print(f"| `{k} {n}` | {npk:,} | {s:.2f} | {p:.2f} | {(p - s) / npk * 1e6:.1f} us | "
              f"{p / s:.2f} |")
    print(f"(tshark -2 -r CAP -Y 'frame.number == 0' as nobody, user + system time; median of "
          f"{rounds} interleaved rounds; runs: {json.dumps({f'{k}/{int(p)}': v for (k, p), v in cpu.items()})})")


def open_frames(cap):
    """The records of a classic pcap (hostile.py writes them)."""
    from dissector_common import pcap_records
    return pcap_records(cap)[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--helper", required=True)
    ap.add_argument("--ws-version", default=None)
    ap.add_argument("--rounds", type=int, default=3, help="cost: interleaved rounds")
    ap.add_argument("check", choices=["budget", "memory", "work", "cost"])
    a = ap.parse_args()
    ts = Tshark(a.plugin, a.ws_version)
    try:
        ts.check_loaded(stock_too=True)
        {"budget": lambda: do_budget(a, ts), "memory": lambda: do_memory(a, ts),
         "work": lambda: do_work(a, ts), "cost": lambda: do_cost(a, ts, a.rounds)}[a.check]()
    finally:
        ts.close()


if __name__ == "__main__":
    run_main(main)
