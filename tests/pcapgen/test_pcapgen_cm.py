#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of ornic-pcapgen --rc-cm, the RDMA-CM setup of each rc QP pair (REQ, REP,
RTU: UD SEND Only MADs to QP 1, docs/PROTOCOL.md 2.10), against stock tshark as the oracle (run
unprivileged with an empty HOME: Wireshark's own InfiniBand dissector, without our plugin):
every CM frame decodes cleanly; what the messages say (QPNs, starting PSNs, path MTU, READ
depth) is what the data packets after them do; libornicproto's ornic_cm_decode, printed by
ornic-test-cm-dump (cm_dump.c; its path in ORNIC_CM_DUMP), reads every field as tshark does.

Usage: test_pcapgen_cm.py --case NAME --pcapgen BIN [--decoder BIN] --workdir DIR
(pcapgen_common.py). Exit 0 pass, 1 fail, 77 skip (a required tool is missing)."""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

from pcapgen_common import SKIP, check, main

# Host A (10.0.0.1, QPs 0x100 + q) is the active side; host B (10.0.0.2, QPs 0x200 + q).
QPN_A, QPN_B = 0x100, 0x200
IB_MTU = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}
REQ, REP, RTU = 0x0010, 0x0013, 0x0014
# RC request opcodes (IBA_NOTES section 4): SEND, WRITE, READ request, atomics.
REQUESTS = set(range(0x00, 0x0D)) | {0x13, 0x14, 0x16, 0x17}

# tshark's fields of a CM frame (tshark -G fields, Wireshark 4.0), per message, and the key
# of ornic-test-cm-dump's line each one is compared with.
COMMON = [("frame.number", "frame"), ("infiniband.mad.attributeid", "attr"),
          ("infiniband.mad.method", "method"), ("infiniband.mad.transactionid", "tid"),
          ("infiniband.mad.mgmtclass", None), ("infiniband.bth.destqp", None),
          ("infiniband.bth.opcode", None), ("ip.src", None)]
PER_ATTR = {
    REQ: [("infiniband.cm.req", "local"), ("infiniband.cm.req.localqpn", "qpn"),
          ("infiniband.cm.req.startpsn", "psn"), ("infiniband.cm.req.responderres", "resp"),
          ("infiniband.cm.req.initdepth", "init"), ("infiniband.cm.req.transpsvctype", "transport"),
          ("infiniband.cm.req.pppmtu", "path_mtu"), ("infiniband.cm.req.localcaguid", "guid")],
    REP: [("infiniband.cm.rep", "local"), ("infiniband.cm.rep.remotecommid", "remote"),
          ("infiniband.cm.rep.localqpn", "qpn"), ("infiniband.cm.rep.startpsn", "psn"),
          ("infiniband.cm.rep.respres", "resp"), ("infiniband.cm.rep.initdepth", "init"),
          ("infiniband.cm.rep.localcaguid", "guid")],
    RTU: [("infiniband.cm.rtu.localcommid", "local"), ("infiniband.cm.rtu.remotecommid", "remote")],
}


def num(v):
    return int(v, 0) if v else None


class StockTshark:
    """tshark without our plugin: as nobody (when root) with an empty HOME of its own, on a copy
    of the capture it can read."""

    def __init__(self):
        self.tshark = shutil.which("tshark")
        self.dir = tempfile.mkdtemp(prefix="pcapgen-cm-")
        os.chmod(self.dir, 0o755)
        self.home = os.path.join(self.dir, "home")
        os.mkdir(self.home)
        self.prefix = []
        if os.geteuid() == 0:
            if not shutil.which("runuser"):
                self.tshark = None
                return
            os.chown(self.home, pwd.getpwnam("nobody").pw_uid, -1)
            self.prefix = ["runuser", "-u", "nobody", "--"]

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run(self, path, *args):
        copy = os.path.join(self.dir, os.path.basename(path))
        shutil.copyfile(path, copy)
        os.chmod(copy, 0o644)
        cmd = self.prefix + ["env", f"HOME={self.home}", self.tshark, "-r", copy] + list(args)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        os.unlink(copy)
        check(r.returncode == 0,
              f"tshark {' '.join(args[:2])}: exit {r.returncode} {r.stderr[-300:]}")
        return r.stdout

    def fields(self, path, yfilter, names):
        out = self.run(path, "-Y", yfilter, "-T", "fields", "-E", "occurrence=f",
                       *[a for n in names for a in ("-e", n)])
        return [dict(zip(names, line.split("\t"))) for line in out.splitlines()]


def cm_dump(path):
    """ornic_cm_decode's reading of every CM frame: {frame number: {key: value}}."""
    r = subprocess.run([os.environ["ORNIC_CM_DUMP"], path], capture_output=True, text=True,
                       timeout=600)
    check(r.returncode == 0, f"ornic-test-cm-dump: exit {r.returncode} {r.stderr[-300:]}")
    out = {}
    for line in r.stdout.splitlines():
        kv = dict(item.split("=", 1) for item in line.split())
        out[int(kv["frame"])] = kv
    return out


def need_tools():
    dump = os.environ.get("ORNIC_CM_DUMP")
    if not dump or not os.access(dump, os.X_OK):
        print("SKIP: ornic-test-cm-dump was not built (libpcap's development files)")
        sys.exit(SKIP)
    ts = StockTshark()
    if not ts.tshark:
        ts.close()
        print("SKIP: tshark (or runuser, as root) is not available")
        sys.exit(SKIP)
    return ts


def read_cm(ts, path):
    """Every CM frame as tshark reads it, its message's fields included."""
    names = [n for n, _ in COMMON] + [n for fs in PER_ATTR.values() for n, _ in fs]
    return ts.fields(path, "infiniband.mad.mgmtclass == 0x07", names)


def first_requests(ts, path):
    """{destqp: (frame, psn) of the first RC request to it} from tshark's BTH fields."""
    rows = ts.fields(path, "infiniband.bth.opcode < 0x20", ["frame.number", "infiniband.bth.opcode",
                                                             "infiniband.bth.destqp",
                                                             "infiniband.bth.psn"])
    first = {}
    for r in rows:
        if num(r["infiniband.bth.opcode"]) in REQUESTS:
            qp = num(r["infiniband.bth.destqp"])
            first.setdefault(qp, (int(r["frame.number"]), num(r["infiniband.bth.psn"])))
    return first


def clean(ts, name, path):
    """No frame malformed, no expert warning or error; none at all on a CM frame."""
    bad = ts.run(path, "-Y", "_ws.malformed || _ws.expert.severity >= warning")
    check(bad == "", f"{name}: stock tshark finds nothing malformed and no warning {bad[:300]}")
    cm = ts.run(path, "-Y", "infiniband.mad && (_ws.malformed || _ws.expert)")
    check(cm == "", f"{name}: no CM frame has an expert info {cm[:300]}")


def agree(name, cms, dump):
    """ornic_cm_decode reads every field of every CM frame as tshark does."""
    check(sorted(dump) == sorted(int(c["frame.number"]) for c in cms),
          f"{name}: ornic_cm_decode finds the {len(cms)} CM frames tshark finds ({len(dump)})")
    diffs = []
    for c in cms:
        d = dump.get(int(c["frame.number"]))
        if d is None:
            continue
        attr = num(c["infiniband.mad.attributeid"])
        for field, key in COMMON + PER_ATTR.get(attr, []):
            if key and num(c[field]) != int(d[key], 0):
                diffs.append(f"frame {c['frame.number']} {field} {c[field]} != {key}={d[key]}")
        if attr == REQ:  # tshark has no Remote Communication ID in a REQ: ornic says 0
            if int(d["remote"], 0) != 0 or int(d["pmtu"]) != 128 << int(d["path_mtu"]):
                diffs.append(f"frame {c['frame.number']}: REQ remote {d['remote']} "
                             f"pmtu {d['pmtu']}")
        if d["icrc"] != "ok":
            diffs.append(f"frame {c['frame.number']}: iCRC {d['icrc']}")
    check(not diffs, f"{name}: ornic_cm_decode agrees with tshark on every field it reads "
          f"({len(cms)} frames) {diffs[:5]}")


def by_pair(cms, qps):
    """{q: {attr: [rows]}}: REQs by their Local QPN, REPs and RTUs by their Communication IDs."""
    pairs = {q: {REQ: [], REP: [], RTU: []} for q in range(qps)}
    ids, strays = {}, []
    for c in cms:
        attr = num(c["infiniband.mad.attributeid"])
        if attr == REQ:
            q = num(c["infiniband.cm.req.localqpn"]) - QPN_A
            ids[num(c["infiniband.cm.req"])] = q
        elif attr == REP:
            q = ids.get(num(c["infiniband.cm.rep.remotecommid"]), -1)
        elif attr == RTU:
            q = ids.get(num(c["infiniband.cm.rtu.localcommid"]), -1)
        else:
            q = -1
        if q in pairs:
            pairs[q][attr].append(c)
        else:
            strays.append(c["frame.number"])
    check(not strays, f"every CM message belongs to a QP pair of the run {strays[:10]}")
    return pairs


def case_rc_cm(env):
    """--rc-cm: before each QP pair's first data packet, REQ (A to B), REP, RTU, each a UD SEND
    Only from QP 1 to QP 1 that stock tshark decodes without complaint; their QPNs, starting
    PSNs, path MTU and READ depth are the run's; ornic_cm_decode agrees with tshark on every
    field; without the option, no CM frame."""
    ts = need_tools()
    try:
        qps, pmtu, depth = 3, 1024, 8
        opts = ["--profile", "rc", "--rc-cm", "--qps", qps, "--wqes", 6, "--wqe-size", "20K",
                "--pmtu", pmtu, "--rc-outstanding", depth, "--loss", 0, "--seed", 7]
        s, _ = env.run("cm.pcap", *opts)
        check(s is not None and s["outcome"] == "complete", "rc --rc-cm: the run completes")
        path = env.path("cm.pcap")
        clean(ts, "cm.pcap", path)
        cms = read_cm(ts, path)
        check(len(cms) == 3 * qps, f"3 CM messages per QP pair without loss: {len(cms)}")
        agree("cm.pcap", cms, cm_dump(path))
        first = first_requests(ts, path)
        pairs = by_pair(cms, qps)
        for q, p in pairs.items():
            if not check(all(len(p[a]) == 1 for a in (REQ, REP, RTU)),
                         f"pair {q}: one REQ, one REP, one RTU"):
                continue
            req, rep, rtu = p[REQ][0], p[REP][0], p[RTU][0]
            a_to_b, b_to_a = first.get(QPN_B + q), first.get(QPN_A + q)
            if not check(a_to_b and b_to_a, f"pair {q}: data requests in both directions"):
                continue
            frames = [int(x["frame.number"]) for x in (req, rep, rtu)]
            check(frames == sorted(frames) and frames[2] < min(a_to_b[0], b_to_a[0]),
                  f"pair {q}: REQ, REP, RTU (frames {frames}) before the first data packet "
                  f"(frames {a_to_b[0]}, {b_to_a[0]})")
            check([x["ip.src"] for x in (req, rep, rtu)] == ["10.0.0.1", "10.0.0.2", "10.0.0.1"],
                  f"pair {q}: REQ and RTU from host A, REP from host B")
            check(all(num(x["infiniband.bth.opcode"]) == 0x64 and
                      num(x["infiniband.bth.destqp"]) == 1 for x in (req, rep, rtu)),
                  f"pair {q}: UD SEND Only to QP 1")
            check(num(req["infiniband.cm.req.localqpn"]) == QPN_A + q and
                  num(rep["infiniband.cm.rep.localqpn"]) == QPN_B + q,
                  f"pair {q}: REQ's QPN is the one B's requests go to, REP's the one A's go to")
            check(num(req["infiniband.cm.req.startpsn"]) == a_to_b[1],
                  f"pair {q}: REQ's Starting PSN {req['infiniband.cm.req.startpsn']} is A's first "
                  f"request PSN {a_to_b[1]:#x}")
            check(num(rep["infiniband.cm.rep.startpsn"]) == b_to_a[1],
                  f"pair {q}: REP's Starting PSN {rep['infiniband.cm.rep.startpsn']} is B's first "
                  f"request PSN {b_to_a[1]:#x}")
            check(num(req["infiniband.cm.req.pppmtu"]) == IB_MTU[pmtu],
                  f"pair {q}: path MTU {req['infiniband.cm.req.pppmtu']} is PMTU {pmtu}")
            check(num(req["infiniband.cm.req.transpsvctype"]) == 0, f"pair {q}: transport RC")
            check(all(num(x) == depth for x in (req["infiniband.cm.req.responderres"],
                                                 req["infiniband.cm.req.initdepth"],
                                                 rep["infiniband.cm.rep.respres"],
                                                 rep["infiniband.cm.rep.initdepth"])),
                  f"pair {q}: responder resources and initiator depth are --rc-outstanding {depth}")
            check(num(rep["infiniband.cm.rep.remotecommid"]) == num(req["infiniband.cm.req"]) and
                  num(rtu["infiniband.cm.rtu.remotecommid"]) == num(rep["infiniband.cm.rep"]),
                  f"pair {q}: the Communication IDs answer each other")
            check(len({x["infiniband.mad.transactionid"] for x in (req, rep, rtu)}) == 1,
                  f"pair {q}: one TransactionID for the setup")
        guid_of = {REQ: "infiniband.cm.req.localcaguid", REP: "infiniband.cm.rep.localcaguid"}
        guids = {num(p[a][0][guid_of[a]]) for p in pairs.values() for a in (REQ, REP) if p[a]}
        check(len(guids) == 2 and 0 not in guids,
              f"one CA GUID per host: {sorted(map(hex, guids))}")
        env.run("plain.pcap", *[o for o in opts if o != "--rc-cm"])
        check(read_cm(ts, env.path("plain.pcap")) == [], "without --rc-cm: no CM frame")
    finally:
        ts.close()


def case_rc_cm_loss(env):
    """--rc-cm under heavy loss: lost REQs, REPs and RTUs are made good (a REQ or REP sent again,
    an RTU answered again, a passive side set up by the first request), every run completes,
    each pair's data start after an RTU, and ornic_cm_decode still agrees with tshark."""
    ts = need_tools()
    try:
        qps, retried = 4, 0
        for seed in range(1, 7):
            name = f"loss{seed}.pcap"
            s, _ = env.run(name, "--profile", "rc", "--rc-cm", "--qps", qps, "--wqes", 2,
                           "--wqe-size", "8K", "--pmtu", 1024, "--loss", 0.2, "--seed", seed)
            path = env.path(name)
            if not os.path.exists(path):
                continue
            cms = read_cm(ts, path)
            agree(name, cms, cm_dump(path))
            pairs = by_pair(cms, qps)
            first = first_requests(ts, path)
            retried += sum(len(p[REQ]) > 1 or len(p[REP]) > 1 or len(p[RTU]) > 1
                           for p in pairs.values())
            for q, p in pairs.items():
                a_to_b = first.get(QPN_B + q)
                rtus = [int(x["frame.number"]) for x in p[RTU]]
                check(bool(p[REQ]) and bool(rtus) and (a_to_b is None or min(rtus) < a_to_b[0]),
                      f"{name} pair {q}: REQ, then an RTU before A's first request")
                if p[REQ] and a_to_b:
                    check(num(p[REQ][0]["infiniband.cm.req.startpsn"]) == a_to_b[1],
                          f"{name} pair {q}: REQ's Starting PSN is A's first request PSN")
        check(retried > 0, f"the loss made some pair send a CM message again ({retried} pairs)")
    finally:
        ts.close()


if __name__ == "__main__":
    sys.exit(main(globals()))
