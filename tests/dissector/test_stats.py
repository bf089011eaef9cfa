#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Statistics of the ORNIC Wireshark plugin (dissector/ornic_stats.c).

  test_stats.py --plugin ornic.so --bin BUILD/bin CHECK

CHECK is one of
  conv     -z conv,ornic and -z endpoints,ornic: one row per QP pair (one per QP), packets and
           bytes per direction, start and duration, as tshark's fields count them; one pass
           (rows made again when the engine pairs QPs or merges conversations) == two passes
  filter   each conversation's display filter (-z ornic,stat; the Conversations table and the
           Conversation Filter build the same) selects exactly its frames, all paths, both ways
  paths    the per-path rows: counted from the fields per UDP source port, summing to their
           direction's row, as many as pcapgen's --paths; rows sorted by conversation, direction
  csv      -z ornic,stat,csv parses with Python's csv module and says what the text form says;
           -z ornic,stat,csv,FILTER counts the filtered packets only
  tree     -z ornic,tree: the OOO histogram's rows in bucket order, its counts and the per-path
           nodes as -z ornic,stat counts them

The oracle is tshark's own fields: a QP pair's frames are those between its two addresses whose
BTH DestQP is the receiver's QP (its label names both), whatever the analysis says."""
import argparse
import csv
import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dissector_common import Fail, Tshark, check, run_main, run_pcapgen  # noqa: E402

PATHS = 4
# Two QP pairs sprayed over PATHS paths with loss (OOO, NAKs, retransmissions), and pcapgen's
# two-way RC profile, whose conversations the engine pairs and merges as packets come.
TRACES = {
    "ornic": ["--wqes", "4", "--wqe-size", "128K", "--paths", str(PATHS), "--loss", "0.01",
              "--qps", "2", "--pmtu", "1024"],
    "rc": ["--profile", "rc", "--wqes", "4", "--wqe-size", "16K", "--pmtu", "1024"],
}
BUCKETS = ["1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128+"]
LABEL = re.compile(r"^(\S+) QP (0x[0-9a-f]+|\?)$")
# DestQP: ORNIC's own opcodes show ornic.bth, standard ones stock's infiniband.bth.
FIELDS = ["frame.number", "frame.len", "frame.time_relative", "ip.src", "ip.dst", "udp.srcport",
          "ornic.bth.destqp", "infiniband.bth.destqp", "ornic.analysis.role", "ornic.analysis.ooo",
          "ornic.analysis.loss", "ornic.analysis.retransmission"]


def pcapgen(a, ts, name):
    return run_pcapgen(a.bin, ts.path(name + ".pcap"), TRACES[name])


def run(ts, cap, taps, extra=()):
    """Every RoCE frame as tshark's fields show it, and the output of the taps (-z), from one
    tshark run (taps see every packet, whatever -Y prints)."""
    args = list(extra) + ["-r", cap, "-Y", "ornic", "-T", "fields", "-E", "occurrence=f"]
    for f in FIELDS:
        args += ["-e", f]
    for z in taps:
        args += ["-z", z]
    lines = ts.run(args).splitlines()
    n = 0
    while n < len(lines) and re.match(r"^\d+\t", lines[n]):
        n += 1
    res = []
    for line in lines[:n]:
        c = line.split("\t")
        c += [""] * (len(FIELDS) - len(c))
        res.append({"num": int(c[0]), "len": int(c[1]), "t": float(c[2]), "src": c[3], "dst": c[4],
                    "sport": int(c[5] or 0), "qp": int(c[6] or c[7], 0), "role": int(c[8] or 0),
                    "ooo": c[9] != "", "loss": c[10] != "", "retrans": c[11] != ""})
    check(res, f"no RoCE frame in {cap}")
    return res, "\n".join(lines[n:])


def section(out, title):
    """A tap's output: from its title to the next line of '='."""
    check(title in out, f"no {title!r} in the tap output:\n{out}")
    rest = out[out.index(title):]
    m = re.search(r"\n={20,}", rest)
    return rest[:m.start()] if m else rest


def end(text):
    m = LABEL.match(text.strip())
    check(m and m.group(2) != "?", f"not a known QP end: {text!r}")
    return m.group(1), int(m.group(2), 16)


def pair(label):
    """'10.0.0.1 QP 0x000100 <-> 10.0.0.2 QP 0x000200' -> ((ip, qp) of A, (ip, qp) of B)."""
    a, b = label.split(" <-> ")
    return end(a), end(b)


def sent(fr, frm, to):
    """The frame travels from QP end frm to QP end to (its DestQP is to's QP)."""
    return fr["src"] == frm[0] and fr["dst"] == to[0] and fr["qp"] == to[1]


def of_pair(frs, a, b):
    return [f for f in frs if sent(f, a, b) or sent(f, b, a)]


def psn_dir(fr, a):
    """A->B when host A is the requester of the frame's PSN space (a request it sends, or a
    response or CNP it receives)."""
    requester = fr["src"] if fr["role"] == 1 else fr["dst"]
    return "A->B" if requester == a[0] else "B->A"


def ws_size(n):
    """tshark 4.0's format_size(n, bytes, SI), as -z conv prints bytes."""
    for unit, div in (("TB", 10 ** 12), ("GB", 10 ** 9), ("MB", 10 ** 6), ("kB", 10 ** 3)):
        if n >= 10 * div:
            return f"{n // div} {unit}"
    return f"{n} bytes"


# ---- -z ornic,stat (text and CSV) ------------------------------------------------------------

COUNTS = ["packets", "wqes", "ooo", "retrans", "dups", "naks", "loss", "not_captured", "stale",
          "icrc_bad", "malformed", "cnp"]


def stat_text(out):
    """-z ornic,stat's text: direction rows, histogram, path rows, display filters."""
    out = section(out, "ORNIC statistics per conversation")
    check("OOO distance histogram" in out and "Per path" in out and "Display filters" in out,
          f"-z ornic,stat misses a section:\n{out}")
    main, rest = out.split("OOO distance histogram", 1)
    hist_part, rest = rest.split("Per path", 1)
    path_part, filt_part = rest.split("Display filters", 1)
    dirs = []
    row = re.compile(r"^\s*(\d+)\s+(.+?)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(A->B|B->A|-)((?:\s+\d+){12})$")
    for line in main.splitlines():
        m = row.match(line)
        if m:
            d = {"conv": int(m.group(1)), "label": m.group(2), "start": m.group(3),
                 "duration": m.group(4), "bytes": int(m.group(5)), "dir": m.group(6)}
            d.update(zip(COUNTS, map(int, m.group(7).split())))
            dirs.append(d)
    hist = {}
    for line in hist_part.splitlines():
        p = line.split()
        if len(p) == 2 + len(BUCKETS) and p[0].isdigit():
            hist[(int(p[0]), p[1])] = [int(x) for x in p[2:]]
    paths = []
    for line in path_part.splitlines():
        p = line.split()
        if len(p) == 10 and p[0].isdigit():
            paths.append({"conv": int(p[0]), "dir": p[1], "path": int(p[2]), "packets": int(p[3]),
                          "bytes": int(p[4]), "ooo": int(p[5]), "ooo_pct": p[6], "loss": int(p[7]),
                          "retrans": int(p[8]), "naks": int(p[9])})
    filters = {}
    for line in filt_part.splitlines():
        m = re.match(r"^\s*(\d+)\s+(ornic\..+)$", line)
        if m:
            filters[int(m.group(1))] = m.group(2).strip()
    check(dirs and paths and filters, f"-z ornic,stat: rows {dirs}, paths {paths}, filters {filters}")
    return {"dirs": dirs, "hist": hist, "paths": paths, "filters": filters}


def stat_csv(out, arg="ornic,stat,csv"):
    """-z ornic,stat,csv's table: its header line and the dir and path records after it."""
    lines = out.splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith("record,")]
    check(len(head) == 1, f"-z {arg}: {len(head)} CSV header lines:\n{out}")
    body = [lines[head[0]]] + [l for l in lines[head[0] + 1:] if re.match(r"^(dir|path),", l)]
    rows = list(csv.DictReader(io.StringIO("\n".join(body) + "\n")))
    check(rows, f"-z {arg}: no CSV row:\n{out}")
    want = ["record", "conv", "conversation", "dir", "path", "start", "duration"] + \
        ["packets", "bytes"] + COUNTS[1:] + ["ooo_" + b for b in BUCKETS] + ["filter"]
    check(list(rows[0].keys()) == want, f"-z {arg}: header {list(rows[0].keys())}, expected {want}")
    for r in rows:
        check(r["record"] in ("dir", "path") and None not in r and None not in r.values(),
              f"-z {arg}: malformed row {r}")
        for k in ["conv", "packets", "bytes"] + COUNTS[1:] + ["ooo_" + b for b in BUCKETS]:
            r[k] = int(r[k])
        r["path"] = int(r["path"]) if r["record"] == "path" else None
    return rows


def known_pairs(st):
    """conv id -> (A, B) of every analysed conversation of the text form."""
    return {d["conv"]: pair(d["label"]) for d in st["dirs"] if d["conv"]}


# ---- checks ----------------------------------------------------------------------------------

def conv_rows(out):
    rows = []
    size = r"(\d+ (?:bytes|kB|MB|GB|TB))"
    pat = re.compile(r"^(\S+ QP \S+)\s+<->\s+(\S+ QP \S+)\s+(\d+)\s+" + size + r"\s+(\d+)\s+" + size +
                     r"\s+(\d+)\s+" + size + r"\s+([\d.]+)\s+([\d.]+)\s*$")
    for line in out.splitlines():
        m = pat.match(line)
        if m:
            rows.append(m.groups())
    return rows


def check_conv_table(out, frs, pairs, name):
    table = section(out, "ORNIC Conversations")
    rows = conv_rows(table)
    check(len(rows) == len(pairs), f"{name}: {len(rows)} conversation rows, {len(pairs)} QP pairs:\n"
          f"{table}")
    covered = 0
    for left, right, rxf, rxb, txf, txb, totf, totb, start, dur in rows:
        s, d = end(left), end(right)
        check({s, d} in [set(p) for p in pairs], f"{name}: row {left} <-> {right} is no QP pair")
        tx = [f for f in frs if sent(f, s, d)]
        rx = [f for f in frs if sent(f, d, s)]
        both = tx + rx
        covered += len(both)
        got = (int(txf), txb, int(rxf), rxb, int(totf), totb)
        want = (len(tx), ws_size(sum(f["len"] for f in tx)), len(rx),
                ws_size(sum(f["len"] for f in rx)), len(both), ws_size(sum(f["len"] for f in both)))
        check(got == want, f"{name}: {left} <-> {right}: (->, <-, total) {got}, fields {want}")
        t0, t1 = min(f["t"] for f in both), max(f["t"] for f in both)
        check(abs(float(start) - t0) < 1e-9 and abs(float(dur) - (t1 - t0)) < 1e-4,
              f"{name}: {left} <-> {right}: start {start} duration {dur}, fields {t0} {t1 - t0}")
    check(covered == len(frs), f"{name}: the rows hold {covered} of the {len(frs)} RoCE frames")


def check_endpoint_table(out, frs, pairs, name):
    table = section(out, "ORNIC Endpoints")
    # Bytes are plain numbers up to 4.4, sizes as in the conversation table ("592 kB") on 4.6.
    num = r"(\d+(?: (?:bytes|kB|MB|GB|TB))?)"
    pat = re.compile(r"^(\S+ QP \S+)\s+" + r"\s+".join([num] * 6) + r"\s*$")
    rows = [m.groups() for m in map(pat.match, table.splitlines()) if m]
    peer = {a: b for a, b in pairs} | {b: a for a, b in pairs}
    check(len(rows) == len(peer), f"{name}: {len(rows)} endpoints, {len(peer)} QPs:\n{table}")
    for label, *nums in rows:
        e = end(label)
        check(e in peer, f"{name}: endpoint {label} is in no QP pair")
        tx = [f for f in frs if sent(f, e, peer[e])]
        rx = [f for f in frs if sent(f, peer[e], e)]
        want = [len(tx) + len(rx), sum(f["len"] for f in tx + rx), len(tx),
                sum(f["len"] for f in tx), len(rx), sum(f["len"] for f in rx)]
        want = [str(w) if i % 2 == 0 or nums[i].isdigit() else ws_size(w) for i, w in enumerate(want)]
        check(nums == want, f"{name}: endpoint {label}: {nums}, fields {want}")


def do_conv(a, ts):
    for name in TRACES:
        cap = pcapgen(a, ts, name)
        taps = ["conv,ornic", "endpoints,ornic", "ornic,stat"]
        frs, one = run(ts, cap, taps)
        two = ts.run(["-2", "-r", cap, "-q"] + [x for z in taps for x in ("-z", z)])
        check(one.strip() == two.strip(),
              f"{name}: one-pass tables differ from two-pass:\n{one}\n---\n{two}")
        pairs = list(known_pairs(stat_text(one)).values())
        check_conv_table(one, frs, pairs, name)
        check_endpoint_table(one, frs, pairs, name)
        print(f"conv {name}: {len(pairs)} QP pairs, {len(frs)} frames: conversation and endpoint "
              f"rows equal the fields; one pass == two passes")


def do_filter(a, ts):
    for name in TRACES:
        cap = pcapgen(a, ts, name)
        frs, out = run(ts, cap, ["ornic,stat"])
        st = stat_text(out)
        union = set()
        for conv, (pa, pb) in known_pairs(st).items():
            flt = st["filters"].get(conv)
            check(flt, f"{name}: no display filter for conversation {conv}")
            got = {int(x) for x in ts.run(["-r", cap, "-Y", flt, "-T", "fields", "-e",
                                           "frame.number"]).split()}
            mine = of_pair(frs, pa, pb)
            want = {f["num"] for f in mine}
            check(got == want, f"{name}: {flt!r} selects {len(got)} frames, the pair has "
                  f"{len(want)}: extra {sorted(got - want)[:8]}, missing {sorted(want - got)[:8]}")
            ports = {f["sport"] for f in mine}
            if name == "ornic":
                check(len(ports) == PATHS, f"{name}: conversation {conv} used ports {ports}")
            union |= got
        check(union == {f["num"] for f in frs}, f"{name}: the filters select {len(union)} of "
              f"{len(frs)} RoCE frames")
        print(f"filter {name}: {len(st['filters'])} filters ({', '.join(st['filters'].values())}) "
              f"select exactly their QP pair's frames")


def check_sorted(rows, what):
    keys = [(r["conv"] == 0, r["conv"], r["dir"]) for r in rows]
    check(keys == sorted(keys), f"{what}: rows not sorted by conversation, direction: {keys}")


def do_paths(a, ts):
    for name in TRACES:
        cap = pcapgen(a, ts, name)
        frs, out = run(ts, cap, ["ornic,stat"])
        st = stat_text(out)
        pairs = known_pairs(st)
        check_sorted(st["dirs"], f"{name} text")
        for d in st["dirs"]:
            mine = [p for p in st["paths"] if (p["conv"], p["dir"]) == (d["conv"], d["dir"])]
            for k in ("packets", "bytes", "ooo", "loss", "retrans", "naks"):
                check(sum(p[k] for p in mine) == d[k],
                      f"{name}: conv {d['conv']} {d['dir']}: paths sum {k} to "
                      f"{sum(p[k] for p in mine)}, the row says {d[k]}")
            if name == "ornic" and d["dir"] == "A->B":
                check(len(mine) == PATHS, f"{name}: conv {d['conv']}: {len(mine)} paths, "
                      f"pcapgen --paths {PATHS}: {mine}")
        n = 0
        for p in st["paths"]:
            pa, pb = pairs[p["conv"]]
            mine = [f for f in of_pair(frs, pa, pb)
                    if psn_dir(f, pa) == p["dir"] and f["sport"] == p["path"]]
            want = {"packets": len(mine), "bytes": sum(f["len"] for f in mine),
                    "ooo": sum(f["ooo"] for f in mine), "loss": sum(f["loss"] for f in mine),
                    "retrans": sum(f["retrans"] for f in mine)}
            got = {k: p[k] for k in want}
            check(got == want, f"{name}: conv {p['conv']} {p['dir']} path {p['path']}: {got}, "
                  f"fields {want}")
            pct = 100.0 * want["ooo"] / want["packets"]
            check(p["ooo_pct"] == f"{pct:.2f}%", f"{name}: OOO share {p['ooo_pct']}, {pct:.2f}%")
            n += want["packets"]
        check(n == len(frs), f"{name}: path rows hold {n} of {len(frs)} RoCE frames")
        print(f"paths {name}: {len(st['paths'])} path rows equal the fields and sum to their "
              f"direction")


def do_csv(a, ts):
    cap = pcapgen(a, ts, "ornic")
    frs, out = run(ts, cap, ["ornic,stat", "ornic,stat,csv"])
    st = stat_text(out)
    rows = stat_csv(out)
    dirs = [r for r in rows if r["record"] == "dir"]
    check_sorted(dirs, "csv")
    check(len(dirs) == len(st["dirs"]), f"csv: {len(dirs)} dir rows, text {len(st['dirs'])}")
    for r, t in zip(dirs, st["dirs"]):
        got = [r["conv"], r["conversation"], r["dir"], f"{float(r['start']):.9f}",
               f"{float(r['duration']):.9f}", r["bytes"]] + [r[k] for k in COUNTS]
        want = [t["conv"], t["label"], t["dir"], t["start"], t["duration"], t["bytes"]] + \
            [t[k] for k in COUNTS]
        check(got == want, f"csv row {got}\n text row {want}")
        if r["conv"]:
            check([r["ooo_" + b] for b in BUCKETS] == st["hist"][(r["conv"], r["dir"])],
                  f"csv histogram of {r['conv']} {r['dir']} differs from the text's")
            check(r["filter"] == st["filters"][r["conv"]], f"csv filter {r['filter']!r}")
    paths = [r for r in rows if r["record"] == "path"]
    check(len(paths) == len(st["paths"]), f"csv: {len(paths)} path rows, text {len(st['paths'])}")
    for r, t in zip(paths, st["paths"]):
        got = {k: r[k] for k in ("conv", "dir", "path", "packets", "bytes", "ooo", "loss", "retrans",
                                 "naks")}
        want = {k: t[k] for k in got}
        check(got == want, f"csv path row {got}, text {want}")
    # A filter: only its packets are counted.
    port = 0xC000 + 1
    arg = f"ornic,stat,csv,udp.srcport=={port}"
    sub = stat_csv(ts.run(["-r", cap, "-q", "-z", arg]), arg)
    sp = [r for r in sub if r["record"] == "path"]
    check(sp and all(r["path"] == port for r in sp), f"csv filtered: paths {[r['path'] for r in sp]}")
    want = sum(1 for f in frs if f["sport"] == port)
    check(sum(r["packets"] for r in sp) == want, f"csv filtered: {sum(r['packets'] for r in sp)} "
          f"packets, {want} frames from port {port}")
    print(f"csv: {len(dirs)} direction and {len(paths)} path rows parse and equal the text form; "
          f"a filter counts its {want} packets")


def tree_of(out):
    """-z ornic,tree -> its root's children: [{"name", "count", "kids"}], in output order."""
    lines = out.splitlines()
    head = next((l for l in lines if l.startswith("Topic / Item")), None)
    check(head, f"no stats_tree header:\n{out}")
    col = head.index("Count")
    root = {"kids": []}
    stack = [(-1, root)]
    for l in lines[lines.index(head) + 2:]:
        if not l.strip() or l[0] in "-=":
            continue
        name = l[:col].rstrip()
        depth = len(name) - len(name.lstrip(" "))
        node = {"name": name.strip(), "count": int(l[col:].split()[0]), "kids": []}
        while stack[-1][0] >= depth:
            stack.pop()
        stack[-1][1]["kids"].append(node)
        stack.append((depth, node))
    return root["kids"]


def kid(node, name):
    return next((k for k in node["kids"] if k["name"] == name), None)


def check_tree_dir(node, key, st):
    """One direction node: its histogram in bucket order with -z ornic,stat's counts, its paths.
    Whether the counts differ from their own descending order (which a count sort would give)."""
    ranges = [b.replace("+", "-") for b in BUCKETS]
    hist = kid(node, "OOO packets (by distance)")
    check(hist, f"tree: {key} has no OOO histogram: {[k['name'] for k in node['kids']]}")
    names, counts = [h["name"] for h in hist["kids"]], [h["count"] for h in hist["kids"]]
    check(names == ranges, f"tree: histogram rows {names}, expected {ranges}")
    check(counts == st["hist"][key], f"tree: histogram {counts}, -z ornic,stat {st['hist'][key]}")
    paths = kid(node, "Paths (UDP source port)")
    got = {int(p["name"]): p["count"] for p in (paths or {"kids": []})["kids"]}
    want = {p["path"]: p["packets"] for p in st["paths"] if (p["conv"], p["dir"]) == key}
    check(got == want, f"tree: paths of {key} {got}, -z ornic,stat {want}")
    return counts != sorted(counts, reverse=True)


def do_tree(a, ts):
    cap = pcapgen(a, ts, "ornic")
    out = ts.run(["-2", "-r", cap, "-q", "-z", "ornic,stat", "-z", "ornic,tree"])
    st = stat_text(out)
    labels = {d["label"]: d["conv"] for d in st["dirs"]}
    seen = reorder = 0
    for conv in tree_of(section(out, "ORNIC conversations:")):
        check(conv["name"] in labels, f"tree: node {conv['name']!r} is not a -z ornic,stat row")
        for d in conv["kids"]:
            reorder += check_tree_dir(d, (labels[conv["name"]], d["name"]), st)
            seen += 1
    check(seen == 2 and reorder, f"tree: {seen} directions, {reorder} histograms not in count "
          f"order (the trace must tell bucket order from count order)")
    print(f"tree: {seen} OOO histograms in bucket order with -z ornic,stat's counts; per-path nodes "
          f"equal")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--ws-version", default=None)
    ap.add_argument("check", choices=["conv", "filter", "paths", "csv", "tree"])
    a = ap.parse_args()
    if not os.path.exists(a.plugin):
        raise Fail(f"plugin {a.plugin} not built")
    ts = Tshark(a.plugin, a.ws_version)
    try:
        ts.check_loaded()
        {"conv": do_conv, "filter": do_filter, "paths": do_paths, "csv": do_csv,
         "tree": do_tree}[a.check](a, ts)
    finally:
        ts.close()


if __name__ == "__main__":
    run_main(main)
