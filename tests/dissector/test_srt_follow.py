#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Service Response Time and Follow ORNIC QP stream of the ORNIC Wireshark plugin
(dissector/ornic_srt.c, dissector/ornic_follow.c).

  test_srt_follow.py --plugin ornic.so --bin BUILD/bin CHECK

CHECK is one of
  srt     -z ornic,srt: per conversation table and in "All QP pairs", the READ rows hold as many
          samples as READ responses carry ornic.analysis.read_time, the ACK rows as many as ACKs
          carry ornic.analysis.wqe_time, with the min, max, average and sum tshark prints computed
          here from those fields; a trace of one operation fills that operation's row only; no
          completion is of a request the tap did not see
  follow  -z follow,ornic,raw,N (the conversation id), -z follow,ornic,raw,ADDR:QP,ADDR:QP, and
          -z follow,infiniband,raw,N (the same follower under stock's protocol) equal to it
          (the whole QP pair): each host's records are the payloads it sent, each PSN once, in PSN
          order within each PSN space: on RC both ways, ORNIC READ, an ORNIC WRITE over 4 paths
          with loss, and RC with a dropped packet whose go-back-N resend the capture holds

The oracle is tshark's own per-packet fields (ornic.analysis.read_time / wqe_time, the PSN, the
payload bytes), not the tap's arithmetic."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dissector_common import Tshark, check, run_main, run_pcapgen  # noqa: E402

BASE = ["--wqes", "4", "--pmtu", "1024"]
TRACES = {
    # SEND, WRITE and READ from both hosts: two PSN spaces, conversations merged as packets come.
    "rc": ["--profile", "rc", "--wqe-size", "16K"] + BASE,
    "rc_write": ["--profile", "rc", "--rc-ops", "write", "--wqe-size", "8K"] + BASE,
    "rc_send": ["--profile", "rc", "--rc-ops", "send", "--wqe-size", "8K"] + BASE,
    "rc_read": ["--profile", "rc", "--rc-ops", "read", "--wqe-size", "8K"] + BASE,
    # RC with the first copy of one packet dropped: go-back-N resends what followed it.
    "rc_drop": ["--profile", "rc", "--wqe-size", "16K", "--loss", "0", "--drop", "0:3"] + BASE,
    "ornic_read": ["--op", "read", "--wqe-size", "32K", "--loss", "0"] + BASE,
    # Two QP pairs sprayed over 4 paths with loss: OOO arrivals, retransmissions.
    "ornic_write": ["--wqe-size", "64K", "--paths", "4", "--loss", "0.01", "--qps", "2"] + BASE,
    # Captured at the sender: the dropped first copy and its retransmission are both there.
    "ornic_drop": ["--wqe-size", "16K", "--loss", "0", "--drop", "0:3", "--capture",
                   "requester"] + BASE,
}
READ_ROWS = {"RDMA READ -> last response", "ORNIC READ -> last response"}
UNSEEN = re.compile(r"request not seen")
ROW = re.compile(r"^\s*(\d+)\s+(.*?)\s+(\d+)\s+(\d+\.\d{6})\s+(\d+\.\d{6})\s+(\d+\.\d{6})\s+"
                 r"(\d+\.\d{6})\s*$")
TITLE = re.compile(r"^Index\s+(.*?)\s+Calls\s+Min SRT")


def pcapgen(a, ts, name):
    return run_pcapgen(a.bin, ts.path(name + ".pcap"), TRACES[name])


def ns(text):
    """'0.000023100' (seconds) -> 23100."""
    s, _, f = text.partition(".")
    return int(s) * 10**9 + int((f + "000000000")[:9])


def us(text):
    """tshark's SRT columns: '0.000023' (seconds, 6 decimals) -> 23 microseconds."""
    s, _, f = text.partition(".")
    return int(s) * 10**6 + int(f)


def fields(ts, cap, names):
    """One dict per analysed frame: frame.number and the first value of each field ('' none)."""
    args = ["-r", cap, "-Y", "ornic.analysis.conv", "-T", "fields", "-E", "occurrence=f",
            "-e", "frame.number"]
    for n in names:
        args += ["-e", n]
    rows = []
    for line in ts.run(args).splitlines():
        c = line.split("\t")
        c += [""] * (len(names) + 1 - len(c))
        rows.append(dict(zip(["frame"] + names, c)))
    check(rows, f"no analysed ORNIC frame in {cap}")
    return rows


def final_convs(ts, cap):
    """{conversation id: final conversation id}, from -z ornic,stat's display filters (a QP pair
    whose ids were merged lists them all: 'ornic.analysis.conv in {1, 2}')."""
    out = ts.run(["-r", cap, "-q", "-z", "ornic,stat"])
    m = {}
    for line in out.split("Display filters")[-1].splitlines():
        f = re.match(r"^\s*(\d+)\s+ornic\.analysis\.conv (?:== (\d+)|in \{([\d, ]+)\})", line)
        if f:
            for i in (f.group(2) or f.group(3)).split(","):
                m[int(i)] = int(f.group(1))
    check(m, f"-z ornic,stat lists no conversation filter for {cap}:\n{out}")
    return m


# ---- srt ------------------------------------------------------------------------------------

def srt_tables(out):
    """{table title: {row name: (calls, min us, max us, avg us, sum us)}} of -z ornic,srt."""
    check("ORNIC SRT Statistics" in out, f"no ORNIC SRT table in:\n{out}")
    tables, cur = {}, None
    for line in out.splitlines():
        t = TITLE.match(line)
        if t:
            cur = tables.setdefault(t.group(1), {})
            continue
        r = ROW.match(line)
        if r and cur is not None:
            cur[r.group(2)] = (int(r.group(3)),) + tuple(us(r.group(i)) for i in range(4, 8))
    check("All QP pairs" in tables, f"no 'All QP pairs' table in:\n{out}")
    return tables


def round_us(v):
    """tshark's rounding of one time (min, max) to microseconds."""
    return v // 10**9 * 10**6 + (v % 10**9 + 500) // 1000


def expect(samples):
    """(calls, min, max, avg, sum) as tshark prints them for these nanosecond samples."""
    n, tot = len(samples), sum(samples)
    return (n, round_us(min(samples)), round_us(max(samples)), (tot // n + 500) // 1000,
            (tot + 500) // 1000)


def check_group(rows, names, samples, what):
    """The rows `names` of one table together against the samples: counts, extremes, sums
    (each row's sum rounded on its own: 1 us per row)."""
    mine = [v for k, v in rows.items() if k in names]
    calls = sum(v[0] for v in mine)
    check(calls == len(samples), f"{what}: {calls} samples in the SRT rows {sorted(names & set(rows))}"
          f", {len(samples)} packets carry the time")
    if not samples:
        return
    e = expect(samples)
    check(min(v[1] for v in mine) == e[1] and max(v[2] for v in mine) == e[2],
          f"{what}: min/max {min(v[1] for v in mine)}/{max(v[2] for v in mine)} us, the fields "
          f"say {e[1]}/{e[2]} us")
    got = sum(v[4] for v in mine)
    check(abs(got - e[4]) <= len(mine), f"{what}: sum {got} us, the fields say {e[4]} us")
    if len(mine) == 1:
        check(mine[0] == e, f"{what}: SRT row {mine[0]}, computed from the fields {e}")


def srt_samples(ts, cap):
    """{final conversation (0: all): (READ latencies, WQE completion times)} in ns."""
    finals = final_convs(ts, cap)
    res = {0: ([], [])}
    for r in fields(ts, cap, ["ornic.analysis.conv", "ornic.analysis.read_time",
                              "ornic.analysis.wqe_time"]):
        conv = finals.get(int(r["ornic.analysis.conv"]), int(r["ornic.analysis.conv"]))
        if not (r["ornic.analysis.read_time"] or r["ornic.analysis.wqe_time"]):
            continue
        for k in (0, conv):
            res.setdefault(k, ([], []))
            if r["ornic.analysis.read_time"]:
                res[k][0].append(ns(r["ornic.analysis.read_time"]))
            if r["ornic.analysis.wqe_time"]:
                res[k][1].append(ns(r["ornic.analysis.wqe_time"]))
    return res


def table_of(tables, conv):
    if conv == 0:
        return tables["All QP pairs"]
    t = [v for k, v in tables.items() if k.startswith(f"Conv {conv}: ")]
    check(len(t) == 1, f"{len(t)} SRT tables for conversation {conv}: {sorted(tables)}")
    return t[0]


def check_srt(ts, name, cap, only=None):
    tables = srt_tables(ts.run(["-r", cap, "-q", "-z", "ornic,srt"]))
    samples = srt_samples(ts, cap)
    check(len(tables) == len(samples), f"{name}: SRT tables {sorted(tables)}, conversations with "
          f"samples {sorted(samples)}")
    for conv, (reads, wqes) in sorted(samples.items()):
        rows = table_of(tables, conv)
        what = f"{name}, {'all' if conv == 0 else f'conversation {conv}'}"
        check_group(rows, READ_ROWS, reads, what + ", READ latency")
        check_group(rows, set(rows) - READ_ROWS, wqes, what + ", WQE completion")
        unseen = [k for k in rows if UNSEEN.search(k)]
        check(not unseen, f"{what}: completions of requests the tap did not see: {unseen}")
        if only:
            check(set(rows) == {only}, f"{what}: a trace of {only} only fills rows {sorted(rows)}")
    total = tables["All QP pairs"]
    print(f"{name}: {sum(v[0] for v in total.values())} samples in "
          f"{len(tables) - 1} conversation(s): {', '.join(f'{k} {v[0]}' for k, v in total.items())}")


def do_srt(a, ts):
    check_srt(ts, "rc", pcapgen(a, ts, "rc"))
    for name, row in (("rc_write", "RDMA WRITE -> ACK"), ("rc_send", "SEND -> ACK"),
                      ("ornic_read", "ORNIC READ -> last response")):
        check_srt(ts, name, pcapgen(a, ts, name), only=row)
    cap = pcapgen(a, ts, "rc_read")
    check_srt(ts, "rc_read", cap)
    rows = table_of(srt_tables(ts.run(["-r", cap, "-q", "-z", "ornic,srt"])), 0)
    check("RDMA READ -> last response" in rows, f"rc_read: no RDMA READ row: {sorted(rows)}")
    check_srt(ts, "ornic_write", pcapgen(a, ts, "ornic_write"))
    # A tap filter: the framework's -z ornic,srt,FILTER; only that conversation's samples.
    cap = pcapgen(a, ts, "ornic_write")
    tables = srt_tables(ts.run(["-r", cap, "-q", "-z", "ornic,srt,ornic.analysis.conv == 2"]))
    check(set(tables) - {"All QP pairs"} and
          all(k.startswith("Conv 2: ") for k in set(tables) - {"All QP pairs"}),
          f"-z ornic,srt,ornic.analysis.conv == 2: tables {sorted(tables)}")


# ---- follow ---------------------------------------------------------------------------------

PAYLOAD_FIELDS = ["ornic.analysis.conv", "ornic.analysis.dir", "ornic.analysis.role",
                  "ornic.bth.psn", "infiniband.bth.psn", "ornic.payload", "infiniband.payload",
                  "data.data"]


def follow_records(out):
    """-z follow,ornic,raw,...: ([client records], [server records], node lines), hex."""
    check("Follow: ornic,raw" in out, f"no follow output:\n{out}")
    body = out.split("Follow: ornic,raw", 1)[1].splitlines()
    nodes = [l for l in body if l.startswith("Node ")]
    client, server = [], []
    for l in body:
        if re.fullmatch(r"\t?[0-9a-f]+", l):
            (server if l.startswith("\t") else client).append(l.strip())
    return client, server, nodes


def sent_payloads(ts, cap, convs):
    """{sender 0 (host A) / 1 (host B): {PSN space: {psn: hex}}}, the first copy of each PSN, for
    the frames of conversation ids convs. Role 1 is a request (host A sends direction 0's), role
    2 a response (host B answers direction 0)."""
    res = {0: {}, 1: {}}
    repeats = 0
    for r in fields(ts, cap, PAYLOAD_FIELDS):
        if int(r["ornic.analysis.conv"]) not in convs:
            continue
        data = r["ornic.payload"] or r["infiniband.payload"] or r["data.data"]
        role, space = int(r["ornic.analysis.role"] or 0), int(r["ornic.analysis.dir"])
        if not data or role not in (1, 2):
            continue
        sender = int((space == 1) == (role == 1))
        psn = int(r["ornic.bth.psn"] or r["infiniband.bth.psn"])
        seen = res[sender].setdefault(space, {})
        if psn in seen:
            repeats += 1
            continue
        seen[psn] = data.replace(":", "")
    return res, repeats


def psn_order(psns):
    """PSNs in sequence order on the 24-bit circle, from the first one of the list."""
    base = psns[0]
    return sorted(psns, key=lambda p: (p - base + (1 << 23)) % (1 << 24))


def check_sender(recs, spaces, what):
    """A host's records: every PSN of each of its spaces once, each space in PSN order; with one
    space, the concatenation equals the space's payloads in PSN order."""
    where = {}
    for space, by_psn in spaces.items():
        for psn, data in by_psn.items():
            where[data] = (space, psn)
    check(len(recs) == len(set(recs)), f"{what}: a payload shown twice")
    unknown = [r[:16] for r in recs if r not in where]
    check(not unknown, f"{what}: {len(unknown)} records are no packet's payload: {unknown[:3]}")
    for space, by_psn in spaces.items():
        mine = [where[r][1] for r in recs if where[r][0] == space]
        want = psn_order(list(by_psn))
        check(sorted(mine) == sorted(want), f"{what}, PSN space {space}: {len(mine)} records, "
              f"{len(want)} distinct PSNs carry payload")
        check(mine == psn_order(mine) and mine == want,
              f"{what}, PSN space {space}: records not in PSN order: {mine[:12]}")
    if len(spaces) == 1:
        (by_psn,) = spaces.values()
        check("".join(recs) == "".join(by_psn[p] for p in psn_order(list(by_psn))),
              f"{what}: the concatenated records differ from the payloads in PSN order")


def check_follow(ts, name, cap, want_repeats=False):
    finals = final_convs(ts, cap)
    total_repeats = 0
    for final in sorted(set(finals.values())):
        ids = sorted(i for i, f in finals.items() if f == final)
        # By conversation id: the packets analysed under that id (tshark builds the filter
        # before it reads the capture, so an id merged later is followed on its own).
        for conv in ids:
            client, server, _ = follow_records(ts.run(["-r", cap, "-q", "-z",
                                                       f"follow,ornic,raw,{conv}"]))
            sent, repeats = sent_payloads(ts, cap, {conv})
            total_repeats += repeats
            check_sender(client, sent[0], f"{name}, follow {conv}, host A")
            check_sender(server, sent[1], f"{name}, follow {conv}, host B")
        # By addresses and QPs: the whole QP pair, whatever ids its packets carry.
        out = ts.run(["-r", cap, "-q", "-z", f"follow,ornic,raw,{final}"])
        # The same follower under stock's protocol, which the GUI enables on standard
        # opcodes (ornic_follow.c): the same records.
        ib = ts.run(["-r", cap, "-q", "-z", f"follow,infiniband,raw,{final}"])
        check(ib.replace("Follow: infiniband,", "Follow: ornic,") == out,
              f"{name}, follow {final}: follow,infiniband differs from follow,ornic")
        _, _, nodes = follow_records(out)
        ends = [re.match(r"Node \d: \[?([^\]]+?)\]?:(\d+)$", n) for n in nodes]
        check(len(ends) == 2 and all(ends) and all(int(e.group(2)) for e in ends),
              f"{name}, follow {final}: nodes {nodes} (address and QP of each host)")
        arg = ",".join(f"{e.group(1)}:{e.group(2)}" for e in ends)
        client, server, _ = follow_records(ts.run(["-r", cap, "-q", "-z",
                                                   f"follow,ornic,raw,{arg}"]))
        sent, _ = sent_payloads(ts, cap, set(ids))
        check_sender(client, sent[0], f"{name}, follow {arg}, host A")
        check_sender(server, sent[1], f"{name}, follow {arg}, host B")
        print(f"{name}: conversation {final} (ids {ids}): {len(client)} + {len(server)} records, "
              f"{sum(len(r) for r in client + server) // 2} bytes")
    if want_repeats:
        check(total_repeats, f"{name}: the capture repeats no PSN: not a retransmission test")
        print(f"{name}: {total_repeats} repeated PSN(s) left out")


def do_follow(a, ts):
    for name in ("rc", "ornic_read", "ornic_write"):
        check_follow(ts, name, pcapgen(a, ts, name))
    for name in ("rc_drop", "ornic_drop"):
        check_follow(ts, name, pcapgen(a, ts, name), want_repeats=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("check", choices=["srt", "follow"])
    a = ap.parse_args()
    ts = Tshark(a.plugin)
    try:
        ts.check_loaded()
        {"srt": do_srt, "follow": do_follow}[a.check](a, ts)
    finally:
        ts.close()


if __name__ == "__main__":
    run_main(main)
