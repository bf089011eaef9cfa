#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of the ORNIC Wireshark plugin (dissector/).

  test_dissector.py --plugin ornic.so --bin BUILD/bin --readme dissector/README.md CHECK [ARG]

CHECK is one of
  plugin           tshark loads it; the registered ornic.* fields are exactly the documented ones
  profile NAME     an ornic-pcapgen trace of profile NAME: every ornic.* field equals
                   ornic-decode --json, zero malformed, infiniband.* identical to stock tshark,
                   implied addresses, two-pass == one-pass, -z ornic,stat against the summary
  read             OOO READ: implied source addresses of READ responses, retries, two-pass
  synthetic        IPv6, CNP, XRCETH, FECN/BECN frames from the library's encoder; the UDP
                   port preference, Decode As, a reserved ORNIC opcode
  icrc             a corrupted byte gives ornic.invariant.crc.status Bad; iCRC-masked fields do not
  nak              --drop rules: the NAK's missing PSNs are exactly the dropped ones; late
                   copies of an older WQE keep its implied address
  disable          --disable-protocol ornic gives back stock's decoding of UDP 4791: the same
                   frame.protocols and infiniband.* fields as tshark without the plugin;
                   infiniband.rroce.port moved elsewhere leaves 4791 to ORNIC
  encap            the same frames over every link and tunnel the plugin locates the IP header
                   in (VLAN, raw IP, Linux cooked, IPv4 options, IP-in-IP, VXLAN): iCRC good,
                   same fields; cut frames truncated, not malformed; the library's D3 text and
                   lint list (ornic-decode's warnings) as expert infos
A listed profile that pcapgen cannot generate fails the test (it is never skipped)."""
import argparse
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from dissector_common import (OWN_OPCODES, Fail, Tshark, check, compare_frame,  # noqa: E402
                              expected_fields, ornic_decode, pcap_records, run_main, run_pcapgen,
                              value, write_records)

PMTU = 1024


def pcapgen(a, ts, name, args):
    return run_pcapgen(a.bin, ts.path(name), ["--pmtu", str(PMTU)] + args)


def documented_fields(readme):
    """The ornic.* names of the '## Fields' table of dissector/README.md."""
    import re
    with open(readme) as f:
        text = f.read()
    check("\n## Fields\n" in text, f"{readme} has no '## Fields' section")
    return set(re.findall(r"^\| `(ornic(?:\.[a-z0-9_.]+)?)` \|", text.split("\n## Fields\n", 1)[1], re.M))


def field_names(a):
    """Every ornic.* field: the README's table, which dissector_plugin checks against
    `tshark -G fields` (one tshark start-up less per test)."""
    return sorted(n for n in documented_fields(a.readme) if n != "ornic")


def compare_with_decoder(a, ts, cap, names, extra=()):
    dec = ornic_decode(os.path.join(a.bin, "ornic-decode"), cap)
    got = ts.fields(cap, names, extra)
    errs = []
    for fr, j in dec.items():
        errs += compare_frame(fr, expected_fields(j), got.get(fr, {}))
    check(not errs, f"{len(errs)} field mismatches, first: " + "\n".join(errs[:10]))
    check(len(dec) > 0, "ornic-decode found no RoCE packet")
    return dec, got


def no_malformed(ts, cap):
    out = ts.run(["-r", cap, "-Y", "_ws.malformed || ornic.malformed || _ws.expert.severity == error",
                  "-T", "fields", "-e", "frame.number"])
    check(out.strip() == "", f"malformed packets in {os.path.basename(cap)}: frames {out.split()[:10]}")


def flatten(d, prefix, out):
    if isinstance(d, dict):
        for k, v in d.items():
            flatten(v, k, out)
    elif isinstance(d, list):
        for v in d:
            flatten(v, prefix, out)
    else:
        out.append((prefix, d))


def ib_layers(js):
    """frame number -> flattened infiniband.* layer (plus any 'data' layer after it)."""
    res = {}
    for pkt in js:
        layers = pkt["_source"]["layers"]
        fr = int(layers["frame"]["frame.number"])
        items = []
        for name in ("infiniband", "data"):
            if name in layers:
                layer = layers[name]
                if isinstance(layer, dict):  # the plugin's own item sits inside stock's tree
                    layer = {k: v for k, v in layer.items() if k != "ornic" and not k.startswith("ornic.")}
                flatten(layer, name, items)
        res[fr] = items
    return res


def check_stock_equal(ts, cap, dec):
    stock = ib_layers(ts.json(cap, plugin=False))
    mine = ib_layers(ts.json(cap))
    n = 0
    for fr, j in dec.items():
        if j["bth"]["opcode"] in OWN_OPCODES:
            continue
        n += 1
        check(stock.get(fr) == mine.get(fr),
              f"frame {fr}: infiniband.* differs from stock tshark:\n stock {stock.get(fr)[:12]}\n"
              f" plugin {mine.get(fr)[:12]}")
        check(any(k.startswith("infiniband.bth.") for k, _ in mine[fr]),
              f"frame {fr}: no infiniband.bth fields with the plugin")
    return n


def wqe_ranges(dec):
    """From FSpot / Last with Address (ORNIC) and WRITE First (RC): (start_psn, n, start_addr, frame)."""
    wqes = []
    for fr in sorted(dec):
        j = dec[fr]
        op = j["bth"]["opcode"]
        if "reth" not in j or op in (0xC6, 0x0C):
            continue
        va, length, psn = int(j["reth"]["va"], 16), j["reth"]["dmalen"], j["bth"]["psn"]
        off = j.get("offeth", {}).get("offset", 0)
        start = (psn - off // PMTU) & 0xFFFFFF
        n = max(1, -(-length // PMTU))
        wqes.append((start, n, va - off, fr))
    return wqes


def psn_in(psn, start, n):
    return (psn - start) & 0xFFFFFF < n


def check_addresses(dec, got, data_ops):
    """Every WRITE data packet's ornic.analysis.addr equals Start_Addr + (PSN - Start_PSN) * PMTU
    once a packet carrying the WQE's address was seen; before that, no address."""
    wqes = wqe_ranges(dec)
    checked = unknown = older = 0
    for fr in sorted(dec):
        j = dec[fr]
        if j["bth"]["opcode"] not in data_ops:
            continue
        psn = j["bth"]["psn"]
        known = [w for w in wqes if psn_in(psn, w[0], w[1]) and w[3] <= fr]
        got_addr = got.get(fr, {}).get("ornic.analysis.addr")
        if known:
            start, _, addr, _ = known[-1]
            want = addr + ((psn - start) & 0xFFFFFF) * PMTU
            check(got_addr and value(got_addr[0]) == want,
                  f"frame {fr} PSN {psn}: implied address {got_addr}, expected {hex(want)}")
            checked += 1
            # A late copy: a later WQE's address was learnt before it arrived.
            older += any(w[3] <= fr and (w[0] - start) & 0xFFFFFF < 0x800000 and w[0] != start
                         for w in wqes)
        else:
            check(not got_addr, f"frame {fr}: address {got_addr} shown before its WQE was known")
            unknown += 1
    check(checked > 0, "no implied address checked")
    return checked, unknown, older


# Opcodes the analysis tracks in the pair's data PSN space: WRITE and SEND requests with
# payload (ORNIC and RC), READ responses (ORNIC and RC).
SEQ_OPS = set(range(0xC0, 0xC6)) | {0xC7, 0xC8} | set(range(0x00, 0x0C)) | set(range(0x0D, 0x11))


def check_sequence(dec, got):
    """Against a replay of the trace in Python (one QP pair, far less than a window): a
    PSN seen before is a repeat (duplicate or retransmission) naming its first copy; a first
    arrival below the highest
    PSN seen is OOO with ornic.analysis.ooo_distance = highest - PSN, or a retransmission
    with ornic.analysis.repeat_distance = highest - PSN (a repeat's distance is never an
    OOO distance); any other arrival is neither."""
    first, hpsn, n_ooo, n_dup = {}, None, 0, 0
    for fr in sorted(dec):
        op, psn = dec[fr]["bth"]["opcode"], dec[fr]["bth"]["psn"]
        if op not in SEQ_OPS:
            continue
        g = got.get(fr, {})
        dist = None if hpsn is None else (hpsn - psn) & 0xFFFFFF
        late = dist is not None and dist < 0x800000
        ooo_got = [value(x) for x in g.get("ornic.analysis.ooo_distance", [])]
        rep_got = [value(x) for x in g.get("ornic.analysis.repeat_distance", [])]
        check(not (ooo_got and rep_got), f"frame {fr}: both an OOO and a repeat distance")
        check(bool(ooo_got) == ("ornic.analysis.ooo" in g),
              f"frame {fr}: OOO distance {ooo_got} without the OOO flag, or the reverse")
        dist_got = ooo_got or rep_got
        if psn in first:
            # A repeat: retransmission when asked for (NAK, READ retry, timeout), else duplicate.
            check(g.get("ornic.analysis.first_frame") == [str(first[psn])] and dist_got == [dist] and
                  ("ornic.analysis.duplicate" in g or "ornic.analysis.retransmission" in g),
                  f"frame {fr} PSN {psn}: a repeat of frame {first[psn]} at distance {dist}, "
                  f"the plugin says first_frame {g.get('ornic.analysis.first_frame')}, distance {dist_got}, "
                  f"{sorted(k for k in g if k.startswith('ornic.analysis.'))}")
            n_dup += 1
        elif late and dist > 0:
            check(dist_got == [dist] and ("ornic.analysis.ooo" in g or "ornic.analysis.retransmission" in g),
                  f"frame {fr} PSN {psn}: first arrival {dist} below the highest PSN {hpsn}, the plugin "
                  f"says distance {dist_got}, ooo {g.get('ornic.analysis.ooo')}, "
                  f"retransmission {g.get('ornic.analysis.retransmission')}")
            n_ooo += 1
            first[psn] = fr
        else:
            check(not dist_got and "ornic.analysis.ooo" not in g and "ornic.analysis.duplicate" not in g,
                  f"frame {fr} PSN {psn}: in order (highest before {hpsn}), the plugin says {g}")
            first[psn] = fr
        if hpsn is None or not late:
            hpsn = psn
    return n_ooo, n_dup


def check_two_pass(ts, cap, names, one_pass):
    """one_pass: ts.fields(cap, names) of a one-pass run."""
    an = [n for n in names if n.startswith("ornic.") and n != "ornic.analysis.acked_in"]
    # Standard opcodes' BTH is stock's (infiniband.bth.*); the ORNIC item shows only what stock lacks.
    fw = ts.fields(cap, names + ["infiniband.bth.opcode", "infiniband.bth.psn"], ["-2"])
    bth = lambda f, k: value((f.get("ornic.bth." + k) or f["infiniband.bth." + k])[0])
    strip = lambda d: {fr: {k: v for k, v in f.items() if k in an} for fr, f in d.items()}
    one, two = strip(one_pass), strip(fw)
    check(one == two, "two-pass analysis differs from one-pass: first frames " +
          str([(f, one[f], two.get(f)) for f in one if one[f] != two.get(f)][:3]))
    # ornic.analysis.acked_in points forward, so only a second pass can show it; it must
    # name an ACK/NAK whose cumulative PSN covers the packet.
    check(not any("ornic.analysis.acked_in" in f for f in one_pass.values()),
          "acked_in shown in one pass, before its ACK was read")
    n = 0
    for fr, f in fw.items():
        if "ornic.analysis.acked_in" not in f:
            continue
        ack = fw[value(f["ornic.analysis.acked_in"][0])]
        op = bth(ack, "opcode")
        cum = bth(ack, "psn") - (1 if op == 0xCA else 0)
        psn = bth(f, "psn")
        check(op in (0xC9, 0xCA, 0x11) and (cum - psn) & 0xFFFFFF < 0x800000,
              f"frame {fr} PSN {psn}: acked_in frame {ack} does not cover it")
        n += 1
    return n


STAT_COLS = ["packets", "wqes", "ooo", "retrans", "dups", "naks", "loss", "not_captured", "stale",
             "icrc_bad", "malformed", "cnp"]


def stat_table(ts, cap, extra=()):
    """-z ornic,stat: {"<conversation label> <dir>": [counts in STAT_COLS order]}, one row per
    conversation direction (and one for packets not analysed)."""
    out = ts.run(list(extra) + ["-r", cap, "-q", "-z", "ornic,stat"])
    rows, n = {}, len(STAT_COLS)
    for l in out.split("OOO distance histogram")[0].splitlines():
        parts = l.split()
        if len(parts) > n + 1 and all(x.isdigit() for x in parts[-n:]) and parts[-n - 1] in ("A->B", "B->A", "-"):
            rows[" ".join(parts[:-n])] = [int(x) for x in parts[-n:]]
    check(rows, f"no conversation row in -z ornic,stat:\n{out}")
    return rows


def check_stats(ts, cap, summary, dec):
    rows = stat_table(ts, cap)
    tot = {c: sum(r[i] for r in rows.values()) for i, c in enumerate(STAT_COLS)}
    check(tot["packets"] == len(dec), f"ornic,stat counts {tot['packets']} packets, ornic-decode {len(dec)}")
    check(tot["icrc_bad"] == 0 and tot["malformed"] == 0, f"ornic,stat: {tot}")
    nak_frames = sum(1 for j in dec.values() if j["bth"]["opcode"] == 0xCA or
                     (j["bth"]["opcode"] == 0x11 and j["aeth"]["syndrome"] == 0x60))
    check(tot["naks"] == nak_frames, f"ornic,stat NAKs {tot['naks']}, NAK frames {nak_frames}")
    if summary is not None:
        check(tot["naks"] == summary["naks"], f"ornic,stat NAKs {tot['naks']}, pcapgen {summary['naks']}")
        # Every FSpot and every retransmitted First repeats its WQE's address: still one WQE.
        check(tot["wqes"] == summary["wqes_total"],
              f"ornic,stat WQEs {tot['wqes']}, pcapgen {summary['wqes_total']}")
    # The table counts the engine's verdicts, as ornic-decode does (tests/e2e/
    # test_analysis_truth.py holds those against pcapgen's truth).
    dup_frames = sum(1 for j in dec.values() if "duplicate" in ((j.get("analysis") or {}).get("flags") or []))
    check(tot["dups"] == dup_frames, f"ornic,stat duplicates {tot['dups']}, ornic-decode {dup_frames}")
    return tot


# ---------------------------------------------------------------- checks

def do_plugin(a, ts):
    # main() checked that tshark loads it, and that the stock run does not.
    reg = ts.registered_fields()
    doc = documented_fields(a.readme)
    check(reg == doc, f"registered but undocumented: {sorted(reg - doc)}; documented but not "
                      f"registered: {sorted(doc - reg)}")
    print(f"{len(reg)} ornic fields registered and documented")


def do_profile(a, ts, profile):
    import json
    names = field_names(a)
    summ = ts.path(f"{profile}.json")
    # Exact drops (no random loss) make pcapgen's summary an oracle for the counters.
    # RC is in order on one path: go-back-N over 4 sprayed paths multiplies the trace by 14
    # (irn, mprdma and ioi carry RC opcodes out of order).
    paths = ["--paths", "1"] if profile == "roce" else []
    cap = pcapgen(a, ts, f"{profile}.pcap", ["--profile", profile, "--wqes", "3", "--wqe-size", "64K",
                                            "--loss", "0", "--drop", "0:5", "--drop", "1:40",
                                            "--summary-json", summ] + paths)
    with open(summ) as f:
        summary = json.load(f)
    dec, got = compare_with_decoder(a, ts, cap, names)
    no_malformed(ts, cap)
    nstd = check_stock_equal(ts, cap, dec)
    ops = {j["bth"]["opcode"] for j in dec.values()}
    data_ops = {0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B} & ops
    addrs = check_addresses(dec, got, data_ops) if data_ops else (0, 0, 0)
    seq = check_sequence(dec, got)
    nacked = check_two_pass(ts, cap, names, got)
    tot = check_stats(ts, cap, summary, dec)
    counted = {c: sum(1 for f in got.values() if fld in f) for c, fld in
               (("ooo", "ornic.analysis.ooo"), ("dups", "ornic.analysis.duplicate"),
                ("retrans", "ornic.analysis.retransmission"), ("loss", "ornic.analysis.loss"))}
    check(all(tot[c] == n for c, n in counted.items()) and tot["ooo"] <= seq[0],
          f"ornic,stat {tot}, fields {counted}, replay: late first arrivals and repeats {seq}")
    print(f"profile {profile}: {len(dec)} packets, opcodes {sorted(hex(o) for o in ops)}, "
          f"{nstd} standard frames equal to stock, addresses checked/unknown/late {addrs}, "
          f"late first arrivals/duplicates {seq}, "
          f"{nacked} acked_in checked, stats {tot}")


def do_read(a, ts):
    names = field_names(a)
    cap = pcapgen(a, ts, "read.pcap", ["--op", "read", "--wqes", "3", "--wqe-size", "64K",
                                       "--loss", "0", "--drop", "1:7"])
    dec, got = compare_with_decoder(a, ts, cap, names)
    no_malformed(ts, cap)
    reads = []  # original READs: (P, n, va, frame)
    checked = 0
    for fr in sorted(dec):
        j = dec[fr]
        op, psn = j["bth"]["opcode"], j["bth"]["psn"]
        if op == 0xC6:
            if not any(psn_in(psn, r[0], r[1]) for r in reads):
                reads.append((psn, max(1, -(-j["reth"]["dmalen"] // PMTU)), int(j["reth"]["va"], 16), fr))
        elif op in (0xC7, 0xC8):
            r = [r for r in reads if psn_in(psn, r[0], r[1])]
            check(r, f"frame {fr}: READ response PSN {psn} outside every READ")
            want = r[-1][2] + ((psn - r[-1][0]) & 0xFFFFFF) * PMTU
            g = got[fr].get("ornic.analysis.addr")
            check(g and value(g[0]) == want, f"frame {fr}: READ response address {g}, expected {hex(want)}")
            check(value(got[fr]["ornic.analysis.read_frame"][0]) == r[-1][3],
                  f"frame {fr}: read_frame {got[fr].get('ornic.analysis.read_frame')}, expected {r[-1][3]}")
            checked += 1
    check(checked > 0 and len(reads) == 3, f"{checked} responses, {len(reads)} READs")
    check_sequence(dec, got)
    check_two_pass(ts, cap, names, got)
    rows = stat_table(ts, cap)
    nw = sum(r[STAT_COLS.index("wqes")] for r in rows.values())
    check(nw == 3, f"ornic,stat counts {nw} READ WQEs (retries are not WQEs): {rows}")
    print(f"read: {len(reads)} READs, {checked} response addresses checked, two-pass equal")


def synth_frames(helper):
    v6 = ["ipv=6", "src=fd000000000000000000000000000001", "dst=fd000000000000000000000000000002"]
    pay = "ab" * PMTU
    specs = [
        v6 + ["opcode=0xc0", "psn=100", "destqp=0x12", "reth.va=0x7f0000001000", "reth.rkey=0x1234",
              "reth.dmalen=4000", "offeth=1024", "payload=" + pay],
        v6 + ["opcode=0xc1", "psn=101", "destqp=0x12", "payload=" + pay],
        v6 + ["opcode=0xc3", "psn=102", "destqp=0x12", "immdt=0xdeadbeef", "se=1",
              "payload=" + "cd" * (4000 - 3 * PMTU)],
        v6 + ["opcode=0xc9", "psn=101", "destqp=0x11", "aeth.syn=0x1f", "aeth.msn=0",
              "oack.flags=1", "oack.count=2", "src=fd000000000000000000000000000002",
              "dst=fd000000000000000000000000000001"],
        v6 + ["opcode=0xca", "psn=99", "destqp=0x11", "aeth.syn=0x60", "aeth.msn=0", "nak.reason=2",
              "nak.trigger=102", "nak.base=99", "nak.limit=102", "nak.bitmap=000a", "src=fd000000000000000000000000000002",
              "dst=fd000000000000000000000000000001"],
        ["opcode=0x81", "becn=1", "destqp=0x118", "psn=0", "cnp=" + "00" * 16],
        ["opcode=0xa4", "xrceth.srq=0x4567", "destqp=0x20", "psn=7", "payload=" + "11" * 18],
        ["opcode=0x04", "fecn=1", "destqp=0x21", "psn=8", "payload=" + "22" * 20],
        v6 + ["opcode=0x0a", "destqp=0x22", "psn=9", "reth.va=0x1000", "reth.rkey=1",
              "reth.dmalen=16", "payload=" + "33" * 16],
    ]
    return [helper.encode(s) for s in specs]


def do_synthetic(a, ts):
    from e2e_common import Helper
    names = field_names(a)
    h = Helper(a.helper)
    frames = synth_frames(h)
    h.close()
    cap = ts.trace("synthetic.pcap", frames)
    dec, got = compare_with_decoder(a, ts, cap, names)
    no_malformed(ts, cap)
    check(len(dec) == len(frames), f"ornic-decode sees {len(dec)} of {len(frames)} frames")
    for fr in dec:
        check(value(got[fr]["ornic.invariant.crc.status"][0]) == 1, f"frame {fr}: iCRC not good: {got[fr]}")
    # The IPv6 FSpot (PSN 100, offset 1024) gives Start_PSN 99 and Start_Addr va - 1024;
    # Spot 101 and Last 102 are placed from their PSN alone.
    start = 0x7f0000001000 - 1024
    check(value(got[2]["ornic.analysis.addr"][0]) == start + 2 * PMTU, f"{got[2]}")
    check(value(got[3]["ornic.analysis.addr"][0]) == start + 3 * PMTU, f"{got[3]}")
    check(value(got[3]["ornic.analysis.wqe_last_psn"][0]) == 102, f"{got[3]}")
    # NAK bitmap 0x000a: PSNs 100 and 102 received; Limit 102: lost set {99, 101}.
    check([value(x) for x in got[5]["ornic.nak.missing_psn"]] == [99, 101], f"{got[5]}")
    check([value(x) for x in got[5]["ornic.nak.received_psn"]] == [100, 102], f"{got[5]}")
    check(value(got[6]["ornic.bth.becn"][0]) == 1 and "ornic.cnp.resv" in got[6], f"{got[6]}")
    check(value(got[7]["ornic.xrceth.xrcsrq"][0]) == 0x4567, f"{got[7]}")
    check(value(got[8]["ornic.bth.fecn"][0]) == 1, f"{got[8]}")
    cols = ts.run(["-r", cap, "-T", "fields", "-e", ts.col("protocol"), "-e", ts.col("info")])
    lines = cols.splitlines()
    check(lines[1].startswith("ORNIC\tOOO WRITE Spot QP=0x000012 PSN=101 addr=0x7f0000001400"),
          f"Info column: {lines[1]}")
    check(lines[5].startswith("RoCEv2 CNP"), f"CNP column: {lines[5]}")
    nstd = check_stock_equal(ts, cap, dec)
    ports = check_ports_and_reserved(a, ts)
    print(f"synthetic: {len(frames)} frames (IPv6, CNP, XRC, FECN), {nstd} standard equal to stock; {ports}")


def check_ports_and_reserved(a, ts):
    """The UDP port preference and Decode As; a reserved ORNIC opcode (0xCB) stays ORNIC."""
    from e2e_common import Helper
    h = Helper(a.helper)
    fspot = ["opcode=0xc0", "psn=5", "destqp=0x12", "reth.va=0x1000", "reth.rkey=1",
             "reth.dmalen=2048", "offeth=0", "payload=" + "ab" * PMTU]
    frames = [h.encode(fspot + ["dport=4792"]), h.encode(fspot + ["dport=4793"])]
    ack = bytearray(h.encode(["opcode=0xc9", "psn=5", "destqp=0x11", "aeth.syn=0x1f", "aeth.msn=0",
                              "oack.flags=0", "oack.count=1"]))
    h.close()
    ack[14 + 20 + 8] = 0xCB  # covered by the iCRC: it turns bad
    frames.append(bytes(ack))
    cap = ts.trace("ports.pcap", frames)
    opts = ["-o", "ornic.udp.port:4791,4792", "-d", "udp.port==4793,ornic"]
    cols = ["-T", "fields", "-e", ts.col("protocol"), "-e", "ornic.invariant.crc.status", "-e",
            ts.col("info")]
    rows = [l.split("\t") for l in ts.run(opts + ["-r", cap] + cols).splitlines()]
    check([r[:2] for r in rows[:2]] == [["ORNIC", "1"], ["ORNIC", "1"]],
          f"UDP port preference / Decode As: {rows[:2]}")
    check(rows[2][0] == "ORNIC" and rows[2][1] == "0" and
          rows[2][2].startswith("[BAD iCRC] Reserved opcode 0xcb QP=0x000011 PSN=5"),
          f"reserved opcode: {rows[2]}")
    ex = ts.run(opts + ["-r", cap, "-Y", "ornic.unknown_opcode && !ornic.malformed && !_ws.malformed",
                        "-T", "fields", "-e", "frame.number"]).split()
    check(ex == ["3"], f"reserved opcode: expert ornic.unknown_opcode on frames {ex}, expected [3]")
    rows = [l.split("\t") for l in ts.run(["-r", cap] + cols).splitlines()]
    check([r[0] for r in rows] == ["UDP", "UDP", "ORNIC"], f"default ports: {rows}")
    return "ornic.udp.port, Decode As and reserved opcode 0xcb checked"


def do_icrc(a, ts):
    cap = pcapgen(a, ts, "icrc.pcap", ["--wqes", "1", "--wqe-size", "16K", "--loss", "0"])
    head, recs = pcap_records(cap)
    check(len(recs) >= 6, "trace too short")
    # frame 2: a payload byte (covered); frame 3: IPv4 ID (covered); frame 4: TTL (masked);
    # frame 5: BTH byte 4, FECN (masked); frame 6: the iCRC itself.
    recs[1][1][14 + 20 + 8 + 12 + 40 if len(recs[1][1]) > 100 else -5] ^= 0x01
    recs[2][1][14 + 4] ^= 0x10
    recs[3][1][14 + 8] ^= 0x05
    recs[4][1][14 + 20 + 8 + 4] ^= 0x80
    recs[5][1][-1] ^= 0x40
    bad = ts.path("icrc-bad.pcap")
    write_records(bad, head, recs)
    os.chmod(bad, 0o644)
    got = ts.fields(bad, ["ornic.invariant.crc.status", "ornic.invariant.crc.expected", "ornic.bth.fecn"])
    want = {1: 1, 2: 0, 3: 0, 4: 1, 5: 1, 6: 0}
    for fr, st in want.items():
        check(value(got[fr]["ornic.invariant.crc.status"][0]) == st,
              f"frame {fr}: ornic.invariant.crc.status {got[fr].get('ornic.invariant.crc.status')}, expected {st}")
    check(value(got[5]["ornic.bth.fecn"][0]) == 1, "FECN not shown")
    # Wire order: the last wire byte flipped is the low byte of ornic.invariant.crc (stock's convention).
    six = ts.fields(bad, ["ornic.invariant.crc", "ornic.invariant.crc.expected"])[6]
    check(value(six["ornic.invariant.crc"][0]) ^ value(six["ornic.invariant.crc.expected"][0]) == 0x40,
          f"frame 6: ornic.invariant.crc and ornic.invariant.crc.expected in wire order: {six}")
    # Cut by the snaplen after every header: a note that the iCRC was not captured, never
    # Malformed, no decode error, nothing shown as an iCRC.
    snap = pcapgen(a, ts, "icrc-snap.pcap", ["--wqes", "1", "--wqe-size", "16K", "--loss", "0",
                                             "--snaplen", "200"])
    cutf = ts.fields(snap, ["_ws.expert.message", "_ws.malformed", "ornic.decode_error", "ornic.invariant.crc",
                            "ornic.invariant.crc.not_captured", "ornic.truncated", "frame.cap_len", "frame.len"])
    cut_frames = {fr: f for fr, f in cutf.items() if f.get("frame.cap_len") != f.get("frame.len")}
    wrong = [fr for fr, f in cut_frames.items()
             if "ornic.invariant.crc.not_captured" not in f or "_ws.malformed" in f or "ornic.decode_error" in f
             or "ornic.invariant.crc" in f or "ornic.truncated" in f]
    check(cut_frames and not wrong, f"{len(cut_frames)} snaplen-cut frames: iCRC-not-captured note "
          f"only (wrong: {[(fr, cut_frames[fr]) for fr in wrong[:2]]})")
    expert = ts.run(["-r", snap, "-q", "-z", "expert"])
    check("Malformed" not in expert, f"-z expert lists no Malformed row:\n{expert}")
    # Standard opcodes: ornic.invariant.crc shows the value stock's infiniband.invariant.crc shows.
    std = pcapgen(a, ts, "icrc-roce.pcap", ["--profile", "roce", "--wqes", "1", "--wqe-size", "16K",
                                           "--loss", "0"])
    both = ts.fields(std, ["ornic.invariant.crc", "infiniband.invariant.crc"])
    diff = [fr for fr, f in both.items() if f.get("ornic.invariant.crc") and
            [value(x) for x in f["ornic.invariant.crc"]] != [value(x) for x in f.get("infiniband.invariant.crc", [])]]
    check(both and not diff, f"ornic.invariant.crc == infiniband.invariant.crc on {len(both)} frames "
          f"(differ: {diff[:5]})")
    ex = ts.run(["-r", bad, "-Y", "_ws.expert.message == \"Bad iCRC\" || ornic.invariant.crc.bad",
                 "-T", "fields", "-e", "frame.number"]).split()
    check(ex == ["2", "3", "6"], f"expert ornic.invariant.crc.bad on frames {ex}")
    rows = stat_table(ts, bad)
    check(sum(r[STAT_COLS.index("icrc_bad")] for r in rows.values()) == 3, f"stats: {rows}")
    check_rocev1(a, ts)
    print("icrc: covered-byte corruption flagged, masked fields (TTL, FECN) tolerated, RoCEv1 verified")


def check_rocev1(a, ts):
    """RoCEv1 (EtherType 0x8915): stock decodes it and keeps its frame.protocols; the plugin
    verifies the iCRC over the GRH (PROTOCOL.md 2.6) as ornic-decode does, inside stock's tree."""
    from e2e_common import Helper, write_pcap
    h = Helper(a.helper)
    eth = bytes.fromhex("020000000002" "020000000001" "8915")
    specs = (["opcode=0x04", "destqp=0x21", "psn=8", "payload=" + "22" * 20],
             ["opcode=0x0a", "destqp=0x22", "psn=9", "reth.va=0x1000", "reth.rkey=1",
              "reth.dmalen=16", "payload=" + "33" * 16])
    v1 = [eth + h.encode(sp + ["link=grh"]) for sp in specs]
    broken = bytearray(v1[1])
    broken[-6] ^= 0x01  # a payload byte: covered
    path = ts.path("rocev1.pcap")
    write_pcap(path, v1 + [bytes(broken)])
    os.chmod(path, 0o644)
    got = ts.fields(path, ["ornic.invariant.crc.status", "frame.protocols"])
    stock = ts.fields(path, ["frame.protocols"], plugin=False)
    st = [value(got.get(i, {}).get("ornic.invariant.crc.status", ["-1"])[0]) for i in (1, 2, 3)]
    check(st == [1, 1, 0], f"RoCEv1 iCRC verdicts {st}, expected good, good, bad")
    check({k: v["frame.protocols"] for k, v in got.items()} == {k: v["frame.protocols"]
                                                              for k, v in stock.items()},
          f"RoCEv1 frame.protocols as stock's: {got}")


def do_nak(a, ts):
    start = 1000
    cap = pcapgen(a, ts, "nak.pcap", ["--paths", "1", "--loss", "0", "--wqes", "1", "--wqe-size", "64K",
                                      "--start-psn", str(start), "--drop", "0:5", "--drop", "0:40"])
    got = ts.fields(cap, ["ornic.bth.opcode", "ornic.bth.psn", "ornic.nak.missing_psn",
                          "ornic.analysis.nak_frame", "ornic.analysis.retransmission"])
    naks = {fr: f for fr, f in got.items() if value(f["ornic.bth.opcode"][0]) == 0xCA}
    check(naks, "no NAK in the trace")
    missing = set()
    for f in naks.values():
        missing |= {value(x) for x in f.get("ornic.nak.missing_psn", [])}
    check(missing == {start + 5, start + 40}, f"NAK missing PSNs {sorted(missing)}, dropped {start + 5}, {start + 40}")
    # The tree shows runs ("Missing: 1005", "received 1006-1015"), not one line per PSN; the
    # per-PSN fields stay filterable (hidden).
    fr = min(naks)
    text = ts.run(["-r", cap, "-Y", f"frame.number == {fr}", "-O", "ornic", "-V"])
    per_psn = [l for l in text.splitlines() if "Missing PSN:" in l or "Received PSN:" in l]
    runs = [l.strip() for l in text.splitlines() if l.strip().startswith("Missing: ")]
    check(not per_psn and runs and any("received " in l for l in text.splitlines()),
          f"NAK frame {fr}: ranges, not PSN lines ({len(per_psn)} PSN lines, runs {runs})")
    hit = ts.run(["-r", cap, "-Y", f"ornic.nak.missing_psn == {start + 5}", "-T", "fields",
                  "-e", "frame.number"]).split()
    check(str(fr) in hit, f"ornic.nak.missing_psn == {start + 5} still finds NAK frame {fr}: {hit}")
    for psn in (start + 5, start + 40):
        rt = [fr for fr, f in got.items() if value(f["ornic.bth.psn"][0]) == psn and
              value(f["ornic.bth.opcode"][0]) in range(0xC0, 0xC6)]
        check(len(rt) == 1, f"PSN {psn} seen {len(rt)} times")
        f = got[rt[0]]
        check("ornic.analysis.nak_frame" in f and value(f["ornic.analysis.nak_frame"][0]) in naks,
              f"retransmission of {psn} (frame {rt[0]}) not tied to a NAK: {f}")
    # OTD exceeded (-o ornic.otd:4): replayed in Python, once per hole, at the first new
    # arrival more than OTD past the expected PSN (the first one not yet seen).
    otd = 4
    lo = ts.fields(cap, ["ornic.bth.opcode", "ornic.bth.psn", "ornic.analysis.otd_exceeded",
                         "ornic.analysis.hole_first", "ornic.analysis.hole_count"],
                   ["-o", f"ornic.otd:{otd}"])
    seen, epsn, flagged, want = set(), start, None, {}
    for fr in sorted(lo):
        f = lo[fr]
        if value(f["ornic.bth.opcode"][0]) not in range(0xC0, 0xC6):
            continue
        psn = value(f["ornic.bth.psn"][0])
        if psn in seen:
            continue
        seen.add(psn)
        while epsn in seen:
            epsn += 1
        if psn - epsn > otd and flagged != epsn:
            want[fr] = (epsn, len([q for q in range(epsn, psn) if q not in seen]))
            flagged = epsn
    got_loss = {fr: (value(f["ornic.analysis.hole_first"][0]), value(f["ornic.analysis.hole_count"][0]))
                for fr, f in lo.items() if "ornic.analysis.otd_exceeded" in f}
    check(want and got_loss == want, f"OTD exceeded (OTD {otd}): plugin {got_loss}, replay {want}")
    # Four paths: duplicates of WQE 1's packets arrive after WQE 2's address was learnt;
    # they still have WQE 1's address. OTD 64, below Eq. 3's 245 for this fabric (pcapgen's
    # --otd auto), so that T_last ends before the slow paths' packets arrive: they are
    # resent, and their late originals are the duplicates.
    cap = pcapgen(a, ts, "late.pcap", ["--wqes", "2", "--wqe-size", "16K", "--loss", "0",
                                       "--start-psn", str(start), "--drop", "0:3", "--otd", "64"])
    names = field_names(a)
    dec, got = compare_with_decoder(a, ts, cap, names)
    addrs = check_addresses(dec, got, set(range(0xC0, 0xC6)))
    check(addrs[2] > 0, f"no late copy of an older WQE in the trace (addresses {addrs})")
    print(f"nak: {len(naks)} NAK(s), missing {sorted(missing)}, retransmissions tied to them; "
          f"OTD exceeded with OTD {otd} at {got_loss}; "
          f"late copies: addresses checked/unknown/late {addrs}")


# ---------------------------------------------------------------- analysis verdicts

# ornic_an_flag_name() -> the plugin field that shows that flag.
FLAG_FIELDS = {
    "retransmission": "ornic.analysis.retransmission", "duplicate": "ornic.analysis.duplicate",
    "loss": "ornic.analysis.loss", "nak": "ornic.analysis.nak", "ack_stale": "ornic.analysis.ack_stale",
    "not_captured": "ornic.analysis.not_captured", "ooo": "ornic.analysis.ooo",
    "prev_not_captured": "ornic.analysis.prev_not_captured",
    "probe": "ornic.analysis.rto_probe", "otd_exceeded": "ornic.analysis.otd_exceeded",
    "addr_unknown": "ornic.analysis.addr_unknown", "pmtu_unknown": "ornic.analysis.pmtu_unknown",
    "new_wqe": "ornic.analysis.new_wqe", "ecn": "ornic.analysis.ecn",
    "read_retry": "ornic.analysis.read_retry", "before_capture": "ornic.analysis.before_capture",
    "untracked": "ornic.analysis.untracked", "paired": "ornic.analysis.paired",
    "over_budget": "ornic.analysis.over_budget", "work_limit": "ornic.analysis.work_limit",
    "acked_before_seen": "ornic.analysis.acked_before_seen",
}
PROBLEM_FLAGS = ("retransmission", "duplicate", "loss", "nak", "not_captured", "prev_not_captured")
DIRS = {"a_to_b": 0, "b_to_a": 1}
ROLES = {"none": 0, "request": 1, "response": 2, "cnp": 3}
# ornic-decode --json "analysis" key (dotted for nested objects) -> plugin field.
AN_VALUES = {
    "conv": "ornic.analysis.conv", "pmtu": "ornic.analysis.pmtu", "hpsn": "ornic.analysis.hpsn",
    "epsn": "ornic.analysis.epsn", "ooo_distance": "ornic.analysis.ooo_distance",
    "first_frame": "ornic.analysis.first_frame", "asked_frame": "ornic.analysis.nak_frame",
    "hole.first_psn": "ornic.analysis.hole_first", "hole.count": "ornic.analysis.hole_count",
    "addr": "ornic.analysis.addr", "wqe.id": "ornic.analysis.wqe",
    "wqe.start_psn": "ornic.analysis.wqe_start_psn", "wqe.npkts": "ornic.analysis.wqe_npkts",
    "wqe.pkt": "ornic.analysis.wqe_pkt", "wqe.start_addr": "ornic.analysis.wqe_start_addr",
    "wqe.len": "ornic.analysis.wqe_len", "wqe.frame": "ornic.analysis.wqe_frame",
    "read_frame": "ornic.analysis.read_frame", "ack.prev": "ornic.analysis.ack_prev",
    "ack.newly": "ornic.analysis.ack_newly", "ack.frame_of": "ornic.analysis.ack_frame_of",
    "not_captured.first": "ornic.analysis.not_captured_first",
    "not_captured.count": "ornic.analysis.not_captured_count",
    "loss.first_psn": "ornic.analysis.loss_first_psn", "loss.count": "ornic.analysis.loss_count",
    "msn_delta": "ornic.analysis.msn_delta", "wqe_completed": "ornic.analysis.wqe_completed",
    "nak_lost": "ornic.analysis.nak_lost", "in_flight": "ornic.analysis.in_flight",
}
AN_FIELDS = sorted(set(FLAG_FIELDS.values()) | set(AN_VALUES.values()) |
                   {"ornic.analysis.repeat_distance", "ornic.analysis.dir", "ornic.analysis.role", "ornic.analysis.wqe_last_psn",
                    "ornic.analysis.flags"})


def flat_analysis(an):
    out = {}
    for k, v in an.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                out[f"{k}.{k2}"] = v2
        else:
            out[k] = v
    return out


def compare_analysis(a, ts, cap, extra=()):
    """The plugin's verdict fields equal ornic-decode --json's "analysis" object, packet for
    packet (both run libornicproto's engine over the same capture). None when ornic-decode
    has no "analysis" yet."""
    dec = ornic_decode(os.path.join(a.bin, "ornic-decode"), cap)
    if not any("analysis" in j for j in dec.values()):
        return None
    got = ts.fields(cap, AN_FIELDS, extra)
    errs, n = [], 0
    for fr, j in sorted(dec.items()):
        an, g = j.get("analysis"), got.get(fr, {})
        if an is None or an.get("role") == "none":
            if "ornic.analysis.conv" in g and an is None:
                errs.append(f"frame {fr}: plugin analysed it, ornic-decode did not")
            continue
        n += 1
        flat = flat_analysis(an)
        if value(g.get("ornic.analysis.dir", ["-1"])[0]) != DIRS.get(an["dir"]) or \
                value(g.get("ornic.analysis.role", ["-1"])[0]) != ROLES.get(an["role"]):
            errs.append(f"frame {fr}: dir/role {g.get('ornic.analysis.dir')}/{g.get('ornic.analysis.role')}, "
                        f"ornic-decode {an['dir']}/{an['role']}")
        want = {x for x in an["flags"] if x in FLAG_FIELDS}
        have = {x for x, fld in FLAG_FIELDS.items() if fld in g}
        if want != have:
            errs.append(f"frame {fr}: flags {sorted(have)}, ornic-decode {sorted(want)}")
        if ("ornic.analysis.flags" in g) != bool(want & set(PROBLEM_FLAGS)):
            errs.append(f"frame {fr}: ornic.analysis.flags {'ornic.analysis.flags' in g}, flags {sorted(want)}")
        for k, fld in AN_VALUES.items():
            if k == "ooo_distance" and "ooo" not in an["flags"]:
                fld = "ornic.analysis.repeat_distance"  # a repeat's distance (ornic_tree.c)
            w = flat.get(k)
            w = int(w, 16) if isinstance(w, str) else w
            hv = g.get(fld)
            hv = value(hv[0]) if hv else None
            if k.endswith("frame") or k.endswith("frame_of") or k == "wqe.npkts":
                w = w or None  # 0 (unknown) is null in JSON, absent in the plugin
            if w != hv:
                errs.append(f"frame {fr}: {fld} = {hv}, ornic-decode {k} = {w}")
        if flat.get("wqe.npkts") and value(g.get("ornic.analysis.wqe_last_psn", ["-1"])[0]) != flat["wqe.last_psn"]:
            errs.append(f"frame {fr}: wqe_last_psn {g.get('ornic.analysis.wqe_last_psn')}, "
                        f"ornic-decode {flat['wqe.last_psn']}")
    check(not errs, f"{len(errs)} verdict mismatches with ornic-decode, first:\n" + "\n".join(errs[:12]))
    check(n > 0, "no analysed packet")
    return n


def flagged(ts, cap, extra=()):
    """Frames with ornic.analysis.flags, and which problem flags each has."""
    got = ts.fields(cap, ["ornic.analysis.flags"] + [FLAG_FIELDS[x] for x in PROBLEM_FLAGS], extra)
    return {fr: sorted(x for x in PROBLEM_FLAGS if FLAG_FIELDS[x] in f)
            for fr, f in got.items() if "ornic.analysis.flags" in f}


def load_truth(path):
    import json
    with open(path) as f:
        summ = json.load(f)
    check("truth" in summ, f"{path}: no truth object (pcapgen too old?)")
    return summ, summ["truth"]


def decoder_note(n):
    return f"{n} verdicts equal to ornic-decode" if n is not None else \
        "ornic-decode has no analysis object yet: comparison not run"


# Per profile: options of a lossless run that also makes no spurious NAK (ORNIC: reordering
# under the OTD; IRN NACKs any reordering, RC goes back N on it: one path; LEFT on one path
# NAKs the first arrival past a hole, T = 1).
# ORNIC's round trip (20 us and more) is also well above its reordering (4 us), so the
# copy a NAK asks for is never taken for a late original (PROTOCOL.md 8.3).
LOSSLESS = {"ornic": ["--base-delay-us", "10", "--delay-spread-us", "4"], "roce": ["--paths", "1"],
            "irn": ["--paths", "1"], "left": ["--paths", "1"]}


def gap_frames(ts, cap, truth, fl):
    """Frames flagged with prev_not_captured alone whose hole starts at a PSN pcapgen lost
    in the network or its tap missed (PROTOCOL.md 8.5: the request after a gap says so).
    A hole may be longer than what was lost: a lost READ request's reservation with it."""
    lost = {(d["qp"], d["psn"]) for d in truth.get("network_lost", []) + truth.get("capture_dropped", [])}
    gaps = [fr for fr, v in fl.items() if v == ["prev_not_captured"]]
    if not gaps:
        return set()
    got = ts.fields(cap, ["ornic.analysis.hole_first", "ornic.bth.destqp", "infiniband.bth.destqp"])
    out = set()
    for fr in gaps:
        f = got[fr]
        qp = value((f.get("ornic.bth.destqp") or f["infiniband.bth.destqp"])[0])
        if (qp, value(f["ornic.analysis.hole_first"][0])) in lost:
            out.add(fr)
    return out


def check_flags_truth(ts, cap, truth, what):
    """The frames with ornic.analysis.flags are exactly pcapgen's NAKs, retransmissions and
    duplicates (its truth), each with the right flag, and the requests after a PSN lost
    before the tap (previous PSN not captured)."""
    want = set(truth["retransmissions"]) | set(truth["naks"]) | set(truth["duplicates"])
    fl = flagged(ts, cap)
    want |= gap_frames(ts, cap, truth, fl)
    check(set(fl) == want, f"{what}: flagged frames {sorted(fl)[:30]}, pcapgen's NAKs, retransmissions and "
                           f"duplicates {sorted(want)[:30]} (not flagged {sorted(want - set(fl))[:10]}, flagged "
                           f"{sorted((f, fl[f]) for f in set(fl) - want)[:8]})")
    for fr in truth["naks"]:
        check("nak" in fl[fr], f"{what}: frame {fr}: a NAK without the nak flag: {fl[fr]}")
    for fr in truth["retransmissions"]:
        check({"retransmission", "duplicate"} & set(fl[fr]), f"{what}: frame {fr}: a retransmission "
                                                             f"flagged {fl[fr]}")
    return want


def check_sprayed_truth(ts, cap, truth, what):
    """Sprayed, no loss: the NAK frames are exactly the truth's, no duplicate, and about as
    many retransmissions as the truth has. Which of two copies of a PSN is the original
    cannot be told when the copy overtakes it, nor a late original from a copy when the
    round trip is as short as the reordering is wide (PROTOCOL.md 8.7): counted, within 5%
    on these short traces."""
    fl = flagged(ts, cap)
    naks = {f for f, v in fl.items() if "nak" in v}
    check(naks == set(truth["naks"]), f"{what}: NAK frames {sorted(naks)[:10]}, truth {truth['naks'][:10]}")
    retx, want = [f for f, v in fl.items() if "retransmission" in v], len(truth["retransmissions"])
    check(abs(len(retx) - want) <= max(1, want // 20),
          f"{what}: {len(retx)} retransmissions flagged, truth {want} (5% allowed)")
    # A late original taken for the copy makes the copy a duplicate (and the
    # original's absence a loss): allowed here, exact in tests/e2e/test_analysis_truth.py.
    other = {f: v for f, v in fl.items() if set(v) - {"nak", "retransmission", "loss", "duplicate"}}
    check(not other, f"{what}: other flags {sorted(other.items())[:8]}")
    return set(fl)


def do_flags(a, ts, profile):
    """(a) no loss: zero ornic.analysis.flags; (b) --drop 0:37, and the default sprayed fabric
    without loss: exactly the NAK and retransmission frames of pcapgen's truth are flagged.
    Every trace: verdicts equal ornic-decode's."""
    base = ["--profile", profile, "--wqes", "3", "--wqe-size", "64K", "--loss", "0"]
    notes = []
    for name, extra in (("lossless", LOSSLESS[profile]), ("drop", LOSSLESS[profile] + ["--drop", "0:37"]),
                        ("sprayed", [])):
        summ = ts.path(f"{name}-{profile}.json")
        cap = pcapgen(a, ts, f"{name}-{profile}.pcap", base + extra + ["--summary-json", summ])
        _, truth = load_truth(summ)
        if name == "lossless":
            check(not truth["retransmissions"] and not truth["naks"], f"pcapgen truth of a lossless run: {truth}")
            fl = flagged(ts, cap)
            check(not fl, f"--loss 0: {len(fl)} frames with ornic.analysis.flags, first {sorted(fl.items())[:8]}")
        elif name == "drop":
            check(truth["naks"] and truth["retransmissions"], f"--drop 0:37 made no NAK/retransmission: {truth}")
        if name == "sprayed":
            want = check_sprayed_truth(ts, cap, truth, f"{profile} sprayed")
        else:
            want = check_flags_truth(ts, cap, truth, f"{profile} {name} {' '.join(extra)}")
        notes.append(f"{name}: {len(want)} flagged as truth, {decoder_note(compare_analysis(a, ts, cap))}")
    print(f"flags {profile}: " + "; ".join(notes))


def pcapgen_has(a, *opts):
    p = subprocess.run([os.path.join(a.bin, "ornic-pcapgen"), "--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return all(o in p.stdout for o in opts)


# Request opcodes whose PSNs an ACK covers: RC SEND/WRITE data (the rc profile's).
RC_DATA_REQ = set(range(0x00, 0x0C)) | {0x16, 0x17}


def do_rc(a, ts):
    """pcapgen's two-way RC profile: both hosts request on one QP pair, many READs
    outstanding. No loss: zero flags in both directions; tap drops: only not_captured, on
    exactly the dropped request PSNs; a capture that starts late: no flags."""
    if not pcapgen_has(a, "rc:", "--capture-start", "--capture-drop"):
        print("SKIP: ornic-pcapgen has no --profile rc / --capture-start / --capture-drop yet")
        sys.exit(77)
    base = ["--profile", "rc", "--loss", "0", "--wqes", "24", "--wqe-size", "16K", "--qps", "2",
            "--rc-outstanding", "16"]
    summ = ts.path("rc.json")
    cap = pcapgen(a, ts, "rc.pcap", base + ["--summary-json", summ])
    _, truth = load_truth(summ)
    dec = ornic_decode(os.path.join(a.bin, "ornic-decode"), cap)
    ops = {j["bth"]["opcode"] for j in dec.values()}
    check(0x0C in ops and ops & {0x0D, 0x0F, 0x10}, f"no READ in the rc trace: {sorted(ops)}")
    got = ts.fields(cap, ["ornic.analysis.dir", "ornic.analysis.role", "ornic.analysis.conv"])
    dirs = {value(f["ornic.analysis.dir"][0]) for f in got.values() if "ornic.analysis.dir" in f}
    check(dirs == {0, 1}, f"rc: directions seen {dirs}, expected both")
    # READs outstanding at once: READ requests whose first response comes after the next READ request.
    outstanding, pending, most = 0, 0, 0
    for fr in sorted(dec):
        op = dec[fr]["bth"]["opcode"]
        if op == 0x0C:
            pending += 1
        elif op in (0x0D, 0x10):
            pending = max(0, pending - 1)
        most = max(most, pending)
    check(most >= 2, f"rc: at most {most} READs outstanding")
    fl = flagged(ts, cap)
    check(not fl, f"rc --loss 0: {len(fl)} frames flagged, first {sorted(fl.items())[:8]}")
    n0 = compare_analysis(a, ts, cap)
    rows = stat_table(ts, cap)
    check(len([k for k in rows if not k.endswith(" -")]) >= 2, f"rc: ornic,stat rows {list(rows)}")

    # The tap misses 3% of the frames: only not_captured, on exactly the PSNs it missed.
    summ = ts.path("rc-cdrop.json")
    cap = pcapgen(a, ts, "rc-cdrop.pcap", base + ["--capture-drop", "0.03", "--summary-json", summ])
    _, truth = load_truth(summ)
    check(truth["capture_dropped"], "rc --capture-drop 0.03: the tap missed nothing")
    fl = flagged(ts, cap)
    gaps = gap_frames(ts, cap, truth, fl)
    check(gaps, "rc --capture-drop: no request says a previous PSN was not captured")
    other = {fr: f for fr, f in fl.items() if f != ["not_captured"] and fr not in gaps}
    check(not other, f"rc --capture-drop: flags other than not_captured and gaps the tap made: "
                     f"{sorted(other.items())[:8]}")
    nc = ts.fields(cap, ["ornic.analysis.not_captured_first", "ornic.analysis.not_captured_count"])
    got_psns = set()
    for fr in fl:
        if fr in gaps:
            continue
        f = nc[fr]
        first, cnt = value(f["ornic.analysis.not_captured_first"][0]), value(f["ornic.analysis.not_captured_count"][0])
        got_psns |= {(first + i) & 0xFFFFFF for i in range(cnt)}
    # A drop before the first packet the file holds of its QP's requests cannot be told from
    # a capture that started later: not judged.
    dec = ornic_decode(os.path.join(a.bin, "ornic-decode"), cap)
    first_psn = {}
    for fr in sorted(dec):
        b = dec[fr]["bth"]
        if b["opcode"] in RC_DATA_REQ:
            first_psn.setdefault(b["destqp"], b["psn"])
    want_psns = {d["psn"] for d in truth["capture_dropped"] if d["opcode"] in RC_DATA_REQ and
                 d["qp"] in first_psn and (d["psn"] - first_psn[d["qp"]]) & 0xFFFFFF < 0x800000}
    check(got_psns == want_psns, f"rc --capture-drop: not_captured PSNs {sorted(got_psns)[:20]}, the "
                                 f"tap missed data PSNs {sorted(want_psns)[:20]} (missing "
                                 f"{sorted(want_psns - got_psns)[:10]}, extra {sorted(got_psns - want_psns)[:10]})")
    n1 = compare_analysis(a, ts, cap)

    # The tap starts 20 us into the run: the conversation is already going, no flags.
    summ = ts.path("rc-late.json")
    cap = pcapgen(a, ts, "rc-late.pcap", base + ["--capture-start", "20", "--summary-json", summ])
    _, truth = load_truth(summ)
    check(truth["captured_frames"] < truth["full_capture_frames"], f"--capture-start 20 cut nothing: {truth}")
    fl = flagged(ts, cap)
    check(not fl, f"rc --capture-start: {len(fl)} frames flagged, first {sorted(fl.items())[:8]}")
    n2 = compare_analysis(a, ts, cap)
    print(f"rc: both directions, up to {most} READs outstanding, no flags; --capture-drop: "
          f"not_captured on exactly {len(want_psns)} missed data PSNs ({len(truth['capture_dropped'])} "
          f"frames missed), nothing else; --capture-start: no flags; "
          f"{decoder_note(n0)}, {decoder_note(n1)}, {decoder_note(n2)}")
    do_rc_issue30(a, ts)


def do_rc_issue30(a, ts):
    """Issue 30's shapes (docs/PROTOCOL.md 8.5, 8.1), each with zero flags and the same
    verdicts from the plugin and ornic-decode: perftest write_bw from the QP's first PSN (0),
    the requester's host capture writing its transmitted frames up to 29 us late (ACKs before
    their requests), one host sending RoCEv1 with IPv4-mapped GIDs against RoCEv2, and an
    RDMA-CM exchange setting the pair up (8.10)."""
    if not pcapgen_has(a, "--capture-tx-late", "--capture-rocev1"):
        print("rc issue 30: ornic-pcapgen has no --capture-tx-late / --capture-rocev1: not run")
        return
    # One ACK per WQE (its last packet), MSNs 1-5, as perftest write_bw's.
    base = ["--profile", "rc", "--loss", "0", "--rc-ops", "write", "--rc-dirs", "a2b", "--wqes", "5",
            "--start-psn", "0", "--capture", "requester", "--rc-ack-every", "65535"]
    notes = []
    for name, extra in (("rc-wbw", []), ("rc-txlate", ["--capture-tx-late", "29"]),
                        ("rc-v1v2", ["--capture-rocev1", "requester"]), ("rc-cm", ["--rc-cm"])):
        cap = pcapgen(a, ts, f"{name}.pcap", base + extra)
        fl = flagged(ts, cap)
        check(not fl, f"{name}: {len(fl)} frames flagged, first {sorted(fl.items())[:8]}")
        n = compare_analysis(a, ts, cap)
        out = ts.run(["-r", cap, "-q", "-z", "ornic,stat"])
        rows = stat_table(ts, cap)
        convs = [k for k in rows if not k.endswith(" -")]
        check(convs and {k.split()[0] for k in convs} == {"1"} and
              all("QP ?" not in k for k in convs),
              f"{name}: one paired QP pair (conversation 1) expected, rows {list(rows)}")
        q = out.split("Requests stored after the ACK that covers them")
        late = sum(int(l.split()[2]) for l in q[1].split("\n\n")[0].splitlines()[2:]) if len(q) > 1 else 0
        if name == "rc-txlate":
            check(late > 0, f"{name}: no request stored after its ACK: the shape did not happen")
        else:
            check(late == 0, f"{name}: {late} requests counted as stored after their ACK")
        if name == "rc-v1v2":
            check(all("(RoCEv1+v2)" in k for k in convs), f"{name}: mixed versions not noted: {convs}")
        dec = subprocess.run([os.path.join(a.bin, "ornic-decode"), "--stats", cap], stdout=subprocess.PIPE,
                             text=True, check=True).stdout
        # Every WQE completed (8.6 "the first MSN"): done == wqes on each direction row.
        for l in dec.split("\ntraffic ")[0].splitlines():  # the conversations table
            p = l.split()
            if len(p) > 6 and p[1] in ("A->B", "B->A") and p[5] != "0":
                check(p[5] == p[6], f"{name}: {p[5]} WQEs, {p[6]} completions counted: {l}")
        m = re.search(r"requests stored after their ACK: A->B (\d+), B->A (\d+)", dec)
        check((int(m.group(1)) + int(m.group(2)) if m else 0) == late,
              f"{name}: the plugin counts {late} stored after their ACK, ornic-decode --stats: {m and m.group(0)}")
        notes.append(f"{name}: no flags, {late} stored after their ACK, {decoder_note(n)}")
    print("rc issue 30: " + "; ".join(notes))


def build_vendor(a):
    """Frames in the RD opcode block (0x40-0x5F) as ConnectX's DC transport sends them, and
    unassigned opcodes; the stock InfiniBand dissector decodes each without complaint. Stock
    (packet-infiniband.c) reads the whole block as DC: 8 more BTH bytes, then RD's header
    sequence (the Acknowledge: AETH alone), and a DC connect (RESYNC 0x55, SE clear) 16 more;
    libornicproto follows it (docs/PROTOCOL.md 2.8). The first frames have DC's layout (the
    library: OK); the last three are too short for it, which stock reads into the iCRC and the
    library reports malformed. Built from an RC SEND Only of the library's encoder, opcode,
    SE and PadCnt patched, iCRC recomputed by e2e_common.ref_icrc (which the e2e tests hold
    equal to the library's). Returns [(frame, library rc, DC name stock's Info column shows)]."""
    from e2e_common import Helper, ref_icrc
    h = Helper(a.helper)

    def frame(opcode, body, padcnt=0, se=0):
        fr = bytearray(h.encode(["opcode=0x04", "destqp=0x1234", "psn=77", "payload=" + body.hex()]))
        bth = 14 + 20 + 8
        fr[bth] = opcode
        fr[bth + 1] = (fr[bth + 1] & 0x4F) | (padcnt << 4) | (se << 7)
        fr[-4:] = ref_icrc(bytes(fr[14:]), 4)
        dec = h.decode(bytes(fr))
        return bytes(fr), dec["rc"]

    dc = bytes.fromhex("00000000000000a1")  # the 8 DC bytes; their meaning is not decoded
    specs = [
        (0x51, dc + bytes.fromhex("1f000005"), 0, 0, "DC Acknowledge"),
        (0x44, dc + bytes.fromhex("000000aa" "1111111100000099") + b"payload!", 0, 0, "DC Send Only"),
        (0x52, dc + bytes.fromhex("000000aa1f000005") + bytes(8), 0, 0, "DC Atomic Acknowledge"),
        (0x55, dc + bytes(range(16)) + b"conn", 0, 0, "DC Unknown Opcode"),  # DC connect
        (0x55, dc + b"sync", 0, 1, "DC Unknown Opcode"),                    # SE set: no DCCETH
        (0x4E, dc + bytes.fromhex("000000aa") + b"mid.", 0, 0, "DC RDMA Read Response Middle"),
        (0x5F, bytes(16), 0, 0, None),                                     # unassigned in the block
        (0x56, bytes(16), 0, 0, None),
        (0x51, bytes.fromhex("0000000a1f000005"), 3, 0, None),   # PadCnt 3: no room for the AETH
        (0x52, bytes.fromhex("0000000a1f000005") + bytes(12), 0, 0, None),  # 4 bytes short
        (0x4D, bytes.fromhex("1f000005") + b"\x55" * 8, 0, 0, None),  # RD's layout, short for DC
    ]
    out = [frame(op, body, pad, se) + (name,) for op, body, pad, se, name in specs]
    h.close()
    return out


def do_vendor(a, ts):
    """RD-block (ConnectX DC) and unassigned opcodes the stock dissector decodes cleanly: the
    plugin adds no malformed/warning/error expert, no analysis, and leaves infiniband.* as
    stock has it; DC frames of DC's layout decode without a library error."""
    from e2e_common import write_pcap
    built = build_vendor(a)
    rcs = [rc for _, rc, _ in built]
    check(rcs == ["ORNIC_OK"] * 6 + ["ORNIC_ERR_UNKNOWN_OPCODE"] * 2 + ["ORNIC_ERR_MALFORMED"] * 3,
          f"library results on the DC/vendor frames: {rcs}")
    cap = ts.path("vendor.pcap")
    write_pcap(cap, [fr for fr, _, _ in built])
    os.chmod(cap, 0o644)
    cols = ["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|", "-e", "frame.number",
            "-e", "_ws.expert.severity", "-e", "_ws.expert.message", "-e", "_ws.malformed"]
    stock = [l.split("\t") for l in ts.run(["-r", cap] + cols, plugin=False).splitlines()]
    mine = [l.split("\t") for l in ts.run(["-r", cap] + cols).splitlines()]
    check(len(stock) == len(mine) == len(built), f"rows: stock {len(stock)}, plugin {len(mine)}")
    for s_row, m_row in zip(stock, mine):
        check(s_row[1:] == ["", "", ""], f"stock tshark is not clean on the test frame: {s_row}")
        sev = [int(x) for x in m_row[1].split("|") if x]
        # PI_WARN = 0x00600000; chats, notes and comments are allowed
        check(all(x < 0x00600000 for x in sev) and m_row[3] == "",
              f"frame {m_row[0]}: the plugin adds expert info {m_row[1:]}")
    # stock's Info column names the DC opcodes ("DC Acknowledge", ...)
    info = ts.run(["-r", cap, "-T", "fields", "-e", "_ws.col.Info"], plugin=False).splitlines()
    for i, (_, _, name) in enumerate(built):
        if name:
            check(info[i].startswith(name), f"frame {i + 1}: stock Info {info[i]!r}, expected {name!r}")
    got = ts.fields(cap, ["ornic.analysis", "ornic.bth.fecn", "ornic.decode_error"])
    for fr, f in got.items():
        check("ornic.analysis" not in f, f"frame {fr}: RD-block/vendor opcode analysed: {f}")
        # under stock's tree, the BTH bits stock lacks
        check("ornic.bth.fecn" in f, f"frame {fr}: no ORNIC tree: {f}")
        check(("ornic.decode_error" in f) == (rcs[fr - 1] != "ORNIC_OK"),
              f"frame {fr}: library {rcs[fr - 1]}, plugin fields {f}")
    dec = {i + 1: {"bth": {"opcode": fr[14 + 28]}} for i, (fr, _, _) in enumerate(built)}
    n = check_stock_equal(ts, cap, dec)
    errs = sum(1 for f in got.values() if "ornic.decode_error" in f)
    print(f"vendor: {n} RD-block/vendor frames ({rcs.count('ORNIC_OK')} DC frames decoded by the "
          f"library), infiniband.* as stock, no warning from the plugin ({errs} library decode "
          f"errors shown as ornic.decode_error only)")


def _csum(b):
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def _ipv4(proto, payload, opts=b""):
    hdr = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45 + len(opts) // 4, 0, 20 + len(opts) + len(payload),
                                1, 0x4000, 64, proto, 0, bytes([192, 168, 0, 1]),
                                bytes([192, 168, 0, 2]))) + opts
    hdr[10:12] = struct.pack(">H", _csum(bytes(hdr)))
    return bytes(hdr) + payload


ETH_HDR = bytes.fromhex("020000000002020000000001")


def build_encaps(helper):
    """{name: (linktype, [frames])}: the same RoCE packets (IPv4 and IPv6, ORNIC and standard
    opcodes) over each encapsulation, every one with a good iCRC."""
    from e2e_common import Helper, ref_icrc
    v6 = ["ipv=6", "src=fd000000000000000000000000000001", "dst=fd000000000000000000000000000002"]
    specs = [
        ["opcode=0xc0", "psn=100", "destqp=0x12", "reth.va=0x7f0000001000", "reth.rkey=0x1234",
         "reth.dmalen=4000", "offeth=1024", "payload=" + "ab" * 64],
        v6 + ["opcode=0xc9", "psn=101", "destqp=0x11", "aeth.syn=0x1f", "aeth.msn=0", "oack.flags=1",
              "oack.count=2"],
        ["opcode=0xca", "psn=99", "destqp=0x11", "aeth.syn=0x60", "aeth.msn=0", "nak.reason=2",
         "nak.trigger=118", "nak.base=99", "nak.limit=118", "nak.bitmap=000a8001"],
        ["opcode=0x04", "destqp=0x21", "psn=8", "payload=" + "22" * 20],
        v6 + ["opcode=0x0a", "destqp=0x22", "psn=9", "reth.va=0x1000", "reth.rkey=1",
              "reth.dmalen=16", "payload=" + "33" * 16],
    ]
    h = Helper(helper)
    eth = [h.encode(sp) for sp in specs]
    raw = [h.encode(sp + ["link=raw"]) for sp in specs]
    vlan = [h.encode(sp + ["vlan=0x2064"]) for sp in specs]
    qinq = [h.encode(sp + ["vlan=0x0005", "tpid=0x88a8"]) for sp in specs]
    h.close()
    ethertype = lambda ip: b"\x86\xdd" if ip[0] >> 4 == 6 else b"\x08\x00"
    sll = [struct.pack(">HHH8s", 0, 1, 6, bytes(8)) + ethertype(r) + r for r in raw]
    sll2 = [ethertype(r) + struct.pack(">HIHBB8s", 0, 3, 1, 0, 6, bytes(8)) + r for r in raw]
    ipip = [ETH_HDR + b"\x08\x00" + _ipv4(41 if r[0] >> 4 == 6 else 4, r) for r in raw]
    vxlan = [ETH_HDR + b"\x08\x00" +
             _ipv4(17, struct.pack(">HHHH", 49999, 4789, 16 + len(e), 0) +
                   struct.pack(">BBHI", 0x08, 0, 0, 0x123400) + e) for e in eth]
    opts = []
    for e in eth:  # IPv4 with 4 bytes of options (IHL 6): the iCRC covers them as they stand
        if e[14] >> 4 != 4:
            continue
        l3 = _ipv4(17, e[34:], opts=b"\x01\x01\x01\x00")
        opts.append(e[:14] + l3[:-4] + ref_icrc(l3, 4))
    return {"ethernet": (1, eth), "vlan": (1, vlan), "802.1ad": (1, qinq), "raw": (101, raw),
            "sll": (113, sll), "sll2": (276, sll2), "ip-in-ip": (1, ipip), "vxlan": (1, vxlan),
            "ipv4-options": (1, opts)}


def do_timing(a, ts):
    """The analysis engine's timing (PROTOCOL.md 8.8) as relative-time fields, frame by frame
    equal to ornic-decode's analysis.time (ns) on an ORNIC WRITE trace with a loss and on the
    two-way RC trace with READs; the WQE time on each WQE_DONE ACK, READ latency on each READ
    response Last, and its value = ACK time - the time of the WQE's frame for a WQE whose
    first packet is its FSpot."""
    fields = ["ornic.analysis.time_delta", "ornic.analysis.ack_rtt", "ornic.analysis.wqe_time",
              "ornic.analysis.read_time", "frame.time_epoch", "ornic.analysis.wqe_completed"]
    keys = {"since_prev_ns": "ornic.analysis.time_delta", "ack_rtt_ns": "ornic.analysis.ack_rtt"}
    seen = {k: 0 for k in fields[:4]}
    for name, opts in (("timing-ornic.pcap", ["--wqes", "3", "--wqe-size", "64K", "--loss", "0",
                                              "--drop", "1:7"]),
                       ("timing-rc.pcap", ["--profile", "rc", "--wqes", "6", "--wqe-size", "16K",
                                           "--loss", "0"])):
        cap = pcapgen(a, ts, name, opts)
        dec = ornic_decode(os.path.join(a.bin, "ornic-decode"), cap)
        got = ts.fields(cap, fields)
        ns = lambda f, k: round(float(f[k][0]) * 1e9) if k in f else None
        for fr, j in dec.items():
            t = j.get("analysis", {}).get("time", {})
            f = got.get(fr, {})
            for jk, fk in keys.items():
                check(ns(f, fk) == t.get(jk), f"{name} frame {fr}: {fk} {f.get(fk)} vs ornic-decode {t}")
            msg = "ornic.analysis.read_time" if "ornic.analysis.read_time" in f else "ornic.analysis.wqe_time"
            check(ns(f, msg) == t.get("msg_time_ns"), f"{name} frame {fr}: {msg} {f.get(msg)} vs {t}")
            if "ornic.analysis.wqe_time" in f:
                check("ornic.analysis.wqe_completed" in f, f"{name} frame {fr}: WQE time without a WQE done")
            for k in seen:
                seen[k] += k in f
        n_prev, n_read = stock_timing_oracle(ts, name, cap, dec)
        print(f"timing: {name}: {n_prev} times since the previous packet and {n_read} READ times "
              f"equal to stock tshark's timestamps")
    check(all(seen.values()), f"every timing field appears: {seen}")
    print(f"timing: {seen} equal to ornic-decode's analysis.time")


def stock_timing_oracle(ts, name, cap, dec):
    """PROTOCOL.md 8.8 computed from stock tshark alone (no plugin, no library), on a capture of
    one QP pair: the time since the conversation's previous packet is the difference of
    consecutive frame.time_epoch values, and a READ response Last or Only is timed from the
    READ request whose PSN range holds it, sent to the other QP (loss-free traces: no copies).
    Checked against ornic-decode's analysis.time, which do_timing holds equal to the plugin's."""
    from decimal import Decimal
    got = ts.fields(cap, ["frame.time_epoch", "infiniband.bth.opcode", "infiniband.bth.psn",
                          "infiniband.bth.destqp"], plugin=False)
    ns = {fr: int(Decimal(f["frame.time_epoch"][0]) * 10**9) for fr, f in got.items()}
    frames = sorted(ns)
    n_prev = n_either = 0
    last_of = {}  # ornic-decode's conversation number -> its latest frame
    for prev, fr in zip([None] + frames, frames):
        a = dec.get(fr, {}).get("analysis", {})
        t, conv = a.get("time", {}), a.get("conv")
        same = last_of.get(conv)
        last_of[conv] = fr
        # Traffic into A's QP is a conversation of its own until a packet proves the pair
        # (8.1): such a packet, and the first of each conversation, have no previous one in
        # their conversation as stock sees it. Where the previous frame belongs to another
        # conversation number (the pair being proven around it), the time is from either.
        want = {ns[fr] - ns[p] for p in (prev, same) if p is not None}
        if same is None and "since_prev_ns" not in t:
            continue
        if prev is not None and dec.get(prev, {}).get("analysis", {}).get("conv") == conv:
            want = {ns[fr] - ns[prev]}
        else:
            n_either += 1
        check(t.get("since_prev_ns") in want,
              f"{name} frame {fr}: since previous {t.get('since_prev_ns')}, stock timestamps say "
              f"{sorted(want)}")
        n_prev += 1
    qps = {f["infiniband.bth.destqp"][0] for f in got.values() if "infiniband.bth.destqp" in f}
    check(len(qps) <= 2, f"{name}: {len(qps)} QPs, the oracle takes one QP pair")
    reads = []  # (psn, destqp, frame) of each READ request, in capture order
    n_read = 0
    for fr in frames:
        f = got[fr]
        if "infiniband.bth.opcode" not in f:
            continue
        op, psn, qp = int(f["infiniband.bth.opcode"][0], 0), int(f["infiniband.bth.psn"][0], 0), \
            f["infiniband.bth.destqp"][0]
        if op == 0x0C:  # RC RDMA READ Request
            reads.append((psn, qp, fr))
        elif op in (0x0F, 0x10):  # RC READ response Last, Only
            # the newest request at or below this PSN (24-bit distance below 2^23), other QP
            cand = [r for r in reads if r[1] != qp and (psn - r[0]) % (1 << 24) < (1 << 23)]
            check(cand, f"{name} frame {fr}: a READ response with no READ request before it")
            req = min(cand, key=lambda r: (psn - r[0]) % (1 << 24))
            t = dec.get(fr, {}).get("analysis", {}).get("time", {})
            check(t.get("msg_time_ns") == ns[fr] - ns[req[2]],
                  f"{name} frame {fr}: READ time {t.get('msg_time_ns')}, stock says "
                  f"{ns[fr] - ns[req[2]]} (request frame {req[2]})")
            n_read += 1
    check(n_either * 10 <= n_prev, f"{name}: {n_either} of {n_prev} times allowed either of two values")
    return n_prev, n_read


def do_analyze(a, ts):
    """ornic.analyze FALSE: no analysis (fields, Info tags, engine), headers and iCRC as usual."""
    cap = pcapgen(a, ts, "analyze.pcap", ["--wqes", "2", "--wqe-size", "64K", "--loss", "0", "--drop", "0:9"])
    info = ts.col("info")
    on = ts.fields(cap, ["ornic.analysis", "ornic.invariant.crc.status", info])
    off = ts.fields(cap, ["ornic.analysis", "ornic.invariant.crc.status", info],
                    extra=["-o", "ornic.analyze:FALSE"])
    check(sum("ornic.analysis" in f for f in on.values()) == len(on), "analysis on: every frame analysed")
    check(not any("ornic.analysis" in f for f in off.values()), "analysis off: no ornic.analysis")
    check(all(f.get("ornic.invariant.crc.status") == on[k].get("ornic.invariant.crc.status")
              for k, f in off.items()), "analysis off: the iCRC verdicts stay")
    check(not any("[Retransmission]" in f[info][0] or "[OOO" in f[info][0]
                  for f in off.values()), "analysis off: no analysis tags in Info")
    check(any("[Retransmission]" in f[info][0] for f in on.values()), "analysis on: tags")
    print(f"analyze: {len(on)} frames analysed with the default, none with ornic.analyze:FALSE")


def do_disable(a, ts):
    """Disabling ORNIC (--disable-protocol, or unticking it in Enabled Protocols) hands the
    port back to stock's RoCEv2 dissector instead of leaving plain UDP (ports_follow_enabled
    in dissector/ornic_dissect.c)."""
    names = ["frame.protocols", "infiniband.bth.opcode", "infiniband.bth.psn",
             "infiniband.invariant.crc", "data.len"]
    for prof in ("roce", "ornic"):
        cap = pcapgen(a, ts, f"disable-{prof}.pcap", ["--profile", prof, "--wqes", "1",
                                                     "--wqe-size", "64K", "--loss", "0.01"])
        off = ts.fields(cap, names, extra=["--disable-protocol", "ornic"])
        stock = ts.fields(cap, names, plugin=False)
        on = ts.fields(cap, ["frame.protocols", "ornic.invariant.crc.status"])
        check(off == stock, f"{prof}: ornic disabled decodes as stock "
              f"(first difference: {next(((k, off.get(k), stock.get(k)) for k in stock if off.get(k) != stock.get(k)), None)})")
        check(all("infiniband" in f["frame.protocols"][0] for f in off.values()),
              f"{prof}: every frame reaches infiniband with ornic disabled")
        # Enabled, every frame is the plugin's: its iCRC verdict is on every frame. Standard
        # opcodes keep stock's frame.protocols (udp:infiniband, no ornic layer); ORNIC's are
        # udp:ornic.
        check(all("ornic.invariant.crc.status" in f for f in on.values()),
              f"{prof}: enabled, every frame is the plugin's")
        want = ":udp:ornic" if prof == "ornic" else ":udp:infiniband"
        check(all(want in f["frame.protocols"][0] and
                  (prof == "ornic" or "ornic" not in f["frame.protocols"][0]) for f in on.values()),
              f"{prof}: frame.protocols reads {want} "
              f"({next(iter(on.values()), {}).get('frame.protocols')})")
        if prof == "roce":
            stock_p = {k: v["frame.protocols"] for k, v in stock.items()}
            check(stock_p == {k: v["frame.protocols"] for k, v in on.items()},
                  "roce: frame.protocols as stock's with the plugin enabled")
            phs = ts.run(["-r", cap, "-q", "-z", "io,phs"])
            check("ornic" not in phs and "infiniband" in phs,
                  f"roce: Protocol Hierarchy is stock's (no ornic under infiniband's payload):\n{phs}")
        # Moving stock's RoCEv2 port elsewhere must not take 4791 from ORNIC (it did: udp:data).
        moved = ts.fields(cap, ["ornic.invariant.crc.status"],
                          extra=["-o", "infiniband.rroce.port:4792"])
        check(len(moved) == len(on) and all("ornic.invariant.crc.status" in f for f in moved.values()),
              f"{prof}: with infiniband.rroce.port 4792, 4791 stays ORNIC's")
    print("disable: --disable-protocol ornic gives stock's RoCEv2 decoding back")


def do_encap(a, ts):
    """Wherever the plugin can locate the IP header (the record's link type, or the IP header
    Wireshark's IP dissector read, inside tunnels), the iCRC is verified and every ornic.*
    header field is the same as on plain Ethernet."""
    from e2e_common import write_pcap
    enc = build_encaps(a.helper)
    fields = ["ornic.invariant.crc.status", "ornic.bth.opcode", "ornic.bth.psn", "ornic.bth.destqp",
              "ornic.reth.va", "ornic.offeth.offset", "ornic.aeth.msn", "ornic.oacketh.flags",
              "ornic.oacketh.addr_cached", "ornic.naketh.trigger_psn", "ornic.nak.missing_psn",
              "ornic.nak.received_psn", "ornic.payload_len", "ornic.invariant.crc.no_ip", "ornic.malformed"]
    ref = None
    for name, (lt, frames) in enc.items():
        cap = ts.path(f"encap-{name}.pcap")
        write_pcap(cap, frames, linktype=lt)
        os.chmod(cap, 0o644)
        got = ts.fields(cap, fields)
        check(len(got) == len(frames), f"{name}: {len(got)} of {len(frames)} frames dissected")
        for fr, f in got.items():
            check(f.get("ornic.invariant.crc.status") == ["1"], f"{name} frame {fr}: iCRC not good: {f}")
        no_malformed(ts, cap)
        if name == "ethernet":
            ref = got
        elif name != "ipv4-options":
            check(got == ref, f"{name}: fields differ from Ethernet's:\n{got}\n{ref}")
    # Cut by the capture (on Ethernet and inside a tunnel): truncated, never malformed.
    eth, ipip = enc["ethernet"][1], enc["ip-in-ip"][1]
    # Both cut 16 bytes after the BTH: its RETH whole, the OFFETH and the rest not captured.
    head, recs = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1), []
    for fr, n in ((eth[0], 70), (ipip[0], 90)):
        recs.append((struct.pack("<IIII", 1700000000, 0, n, len(fr)), fr[:n]))
    cut = ts.path("encap-cut.pcap")
    write_records(cut, head, recs)
    os.chmod(cut, 0o644)
    got = ts.fields(cut, ["ornic.bth.psn", "ornic.reth.va", "ornic.invariant.crc.status", "ornic.truncated",
                          "ornic.malformed", "ornic.decode_error"])
    for fr, f in got.items():
        check(f.get("ornic.bth.psn") == ["100"] and f.get("ornic.invariant.crc.status") == ["2"] and
              "ornic.truncated" in f and "ornic.malformed" not in f, f"cut frame {fr}: {f}")
    for fr, f in got.items():
        check("ornic.reth.va" in f, f"cut frame {fr}: its whole RETH not shown: {f}")
    # The library's words: a UDP length past the IP payload (D3), and the lint rules, the same
    # list as ornic-decode's warnings.
    from e2e_common import Helper
    h = Helper(a.helper)
    lint = [h.encode(["opcode=0xc9", "psn=5", "destqp=0x2", "aeth.syn=0x1f", "aeth.msn=5",
                      "oack.flags=3", "oack.count=1", "a=1", "becn=1"]),
            h.encode(["opcode=0xca", "psn=200", "destqp=0x11", "aeth.syn=0x60", "aeth.msn=3",
                      "nak.reason=1", "nak.trigger=150", "nak.base=199", "nak.limit=150",
                      "nak.bitmap=0001"]),
            h.encode(["opcode=0xc1", "psn=7", "destqp=0x2", "se=1", "payload=" + "00" * 8])]
    h.close()
    long_udp = bytearray(eth[0])
    long_udp[38:40] = struct.pack(">H", struct.unpack(">H", long_udp[38:40])[0] + 64)
    cap = ts.path("encap-rules.pcap")
    write_pcap(cap, [bytes(long_udp)] + lint)
    os.chmod(cap, 0o644)
    rows = ts.run(["-r", cap, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|",
                   "-e", "ornic.malformed", "-e", "_ws.expert.message"]).splitlines()
    msgs = [r.split("\t")[1].split("|") for r in rows]
    check(any("(D3)" in m and "UDP length" in m for m in msgs[0]),
          f"UDP length past the IP payload: no D3 explanation in {msgs[0]}")
    dec = ornic_decode(os.path.join(a.bin, "ornic-decode"), cap)
    nlint = ts.fields(cap, ["ornic.lint"])
    for fr in (2, 3, 4):
        want = dec[fr].get("warnings") or []
        got = nlint.get(fr, {}).get("ornic.lint", [])
        check(len(want) >= 1 and len(got) == len(want),
              f"frame {fr}: {len(got)} ornic.lint expert infos, ornic-decode warns {want}")
    print(f"encap: {len(enc)} encapsulations with good iCRCs and equal fields; cut frames "
          f"truncated; D3 and lint ({sum(len(dec[f].get('warnings', [])) for f in (2, 3, 4))} "
          f"rules) in the library's words")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--helper")
    ap.add_argument("--readme", required=True)
    ap.add_argument("--ws-version", default=None)
    ap.add_argument("check")
    ap.add_argument("arg", nargs="?")
    a = ap.parse_args()
    if not os.path.exists(a.plugin):
        raise Fail(f"plugin {a.plugin} not built")
    ts = Tshark(a.plugin, a.ws_version)
    try:
        ts.check_loaded(stock_too=a.check == "plugin")
        {"plugin": lambda: do_plugin(a, ts), "profile": lambda: do_profile(a, ts, a.arg),
         "read": lambda: do_read(a, ts), "synthetic": lambda: do_synthetic(a, ts),
         "icrc": lambda: do_icrc(a, ts), "nak": lambda: do_nak(a, ts),
         "flags": lambda: do_flags(a, ts, a.arg), "rc": lambda: do_rc(a, ts),
         "vendor": lambda: do_vendor(a, ts), "encap": lambda: do_encap(a, ts),
         "disable": lambda: do_disable(a, ts), "timing": lambda: do_timing(a, ts),
         "analyze": lambda: do_analyze(a, ts)}[a.check]()
    finally:
        ts.close()


if __name__ == "__main__":
    run_main(main)
