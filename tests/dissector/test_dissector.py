#!/usr/bin/env python3
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
  icrc             a corrupted byte gives ornic.icrc.status Bad; iCRC-masked fields do not
  nak              --drop rules: the NAK's missing PSNs are exactly the dropped ones; late
                   copies of an older WQE keep its implied address
A listed profile that pcapgen cannot generate fails the test (it is never skipped)."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from dissector_common import (OWN_OPCODES, Fail, Tshark, check, compare_frame,  # noqa: E402
                              expected_fields, ornic_decode, pcap_records, run_main, value,
                              write_records)

PMTU = 1024


def pcapgen(a, ts, name, args):
    out = ts.path(name)
    cmd = [os.path.join(a.bin, "ornic-pcapgen"), "-o", out, "-q", "--pmtu", str(PMTU)] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    os.chmod(out, 0o644)
    return out


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
                flatten(layers[name], name, items)
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
    PSN seen before is a duplicate naming its first copy; a first arrival below the highest
    PSN seen has ornic.analysis.ooo_distance = highest - PSN (and is OOO or a
    retransmission); any other arrival is neither."""
    first, hpsn, n_ooo, n_dup = {}, None, 0, 0
    for fr in sorted(dec):
        op, psn = dec[fr]["bth"]["opcode"], dec[fr]["bth"]["psn"]
        if op not in SEQ_OPS:
            continue
        g = got.get(fr, {})
        dist = None if hpsn is None else (hpsn - psn) & 0xFFFFFF
        late = dist is not None and dist < 0x800000
        dist_got = [value(x) for x in g.get("ornic.analysis.ooo_distance", [])]
        if psn in first:
            check(g.get("ornic.analysis.first_frame") == [str(first[psn])] and dist_got == [dist],
                  f"frame {fr} PSN {psn}: a duplicate of frame {first[psn]} at distance {dist}, "
                  f"the plugin says first_frame {g.get('ornic.analysis.first_frame')}, distance {dist_got}")
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
    fw = ts.fields(cap, names, ["-2"])
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
        op = value(ack["ornic.bth.opcode"][0])
        cum = value(ack["ornic.bth.psn"][0]) - (1 if op == 0xCA else 0)
        psn = value(f["ornic.bth.psn"][0])
        check(op in (0xC9, 0xCA, 0x11) and (cum - psn) & 0xFFFFFF < 0x800000,
              f"frame {fr} PSN {psn}: acked_in frame {ack} does not cover it")
        n += 1
    return n


def stat_table(ts, cap, extra=()):
    out = ts.run(list(extra) + ["-r", cap, "-q", "-z", "ornic,stat"])
    rows = {}
    for l in out.splitlines():
        parts = l.split()
        if "QP" in parts and len(parts) >= 15 and parts[-1].isdigit() and "->" in l:
            rows[" ".join(parts[:-10])] = [int(x) for x in parts[-10:]]
    check(rows, f"no per-QP row in -z ornic,stat:\n{out}")
    return rows


STAT_COLS = ["packets", "wqes", "ooo", "retrans", "dups", "naks", "loss", "icrc_bad", "malformed", "cnp"]


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
        # pcapgen's RC responder drops packets after a hole without counting them, so its
        # duplicates equal ours only for ORNIC, which places every packet.
        check(summary["profile"] != "ornic" or tot["dups"] == summary["duplicates_received"],
              f"ornic,stat duplicates {tot['dups']}, pcapgen {summary['duplicates_received']}")
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
    check(tot["ooo"] <= seq[0] and tot["dups"] == seq[1], f"ornic,stat {tot}, replay: late first "
          f"arrivals and duplicates {seq}")
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
              "nak.trigger=102", "nak.base=99", "nak.bitmap=000a", "src=fd000000000000000000000000000002",
              "dst=fd000000000000000000000000000001"],
        ["opcode=0x81", "becn=1", "destqp=0x118", "psn=0", "cnp=" + "00" * 16],
        ["opcode=0xa4", "xrceth.srq=0x4567", "destqp=0x20", "psn=7", "payload=" + "11" * 18],
        ["opcode=0x04", "fecn=1", "destqp=0x21", "psn=8", "payload=" + "22" * 20],
        v6 + ["opcode=0x0a", "destqp=0x22", "psn=9", "reth.va=0x1000", "reth.rkey=1",
              "reth.dmalen=16", "payload=" + "33" * 16],
    ]
    return [helper.encode(s) for s in specs]


def do_synthetic(a, ts):
    from e2e_common import Helper, write_pcap
    names = field_names(a)
    h = Helper(a.helper)
    frames = synth_frames(h)
    h.close()
    cap = ts.path("synthetic.pcap")
    write_pcap(cap, frames)
    os.chmod(cap, 0o644)
    dec, got = compare_with_decoder(a, ts, cap, names)
    no_malformed(ts, cap)
    check(len(dec) == len(frames), f"ornic-decode sees {len(dec)} of {len(frames)} frames")
    for fr in dec:
        check(value(got[fr]["ornic.icrc.status"][0]) == 1, f"frame {fr}: iCRC not good: {got[fr]}")
    # The IPv6 FSpot (PSN 100, offset 1024) gives Start_PSN 99 and Start_Addr va - 1024;
    # Spot 101 and Last 102 are placed from their PSN alone.
    start = 0x7f0000001000 - 1024
    check(value(got[2]["ornic.analysis.addr"][0]) == start + 2 * PMTU, f"{got[2]}")
    check(value(got[3]["ornic.analysis.addr"][0]) == start + 3 * PMTU, f"{got[3]}")
    check(value(got[3]["ornic.analysis.wqe_last_psn"][0]) == 102, f"{got[3]}")
    # NAK bitmap 0x000a: PSNs 100 and 102 received; trigger 102: lost set {99, 101}.
    check([value(x) for x in got[5]["ornic.nak.missing_psn"]] == [99, 101], f"{got[5]}")
    check([value(x) for x in got[5]["ornic.nak.received_psn"]] == [100, 102], f"{got[5]}")
    check(value(got[6]["ornic.bth.becn"][0]) == 1 and "ornic.cnp.resv" in got[6], f"{got[6]}")
    check(value(got[7]["ornic.xrceth.xrcsrq"][0]) == 0x4567, f"{got[7]}")
    check(value(got[8]["ornic.bth.fecn"][0]) == 1, f"{got[8]}")
    cols = ts.run(["-r", cap, "-T", "fields", "-e", "_ws.col.Protocol", "-e", "_ws.col.Info"])
    lines = cols.splitlines()
    check(lines[1].startswith("ORNIC\tOOO WRITE Spot QP=0x000012 PSN=101 addr=0x7f0000001400"),
          f"Info column: {lines[1]}")
    check(lines[5].startswith("RoCEv2 CNP"), f"CNP column: {lines[5]}")
    nstd = check_stock_equal(ts, cap, dec)
    ports = check_ports_and_reserved(a, ts)
    print(f"synthetic: {len(frames)} frames (IPv6, CNP, XRC, FECN), {nstd} standard equal to stock; {ports}")


def check_ports_and_reserved(a, ts):
    """The UDP port preference and Decode As; a reserved ORNIC opcode (0xCB) stays ORNIC."""
    from e2e_common import Helper, write_pcap
    h = Helper(a.helper)
    fspot = ["opcode=0xc0", "psn=5", "destqp=0x12", "reth.va=0x1000", "reth.rkey=1",
             "reth.dmalen=2048", "offeth=0", "payload=" + "ab" * PMTU]
    frames = [h.encode(fspot + ["dport=4792"]), h.encode(fspot + ["dport=4793"])]
    ack = bytearray(h.encode(["opcode=0xc9", "psn=5", "destqp=0x11", "aeth.syn=0x1f", "aeth.msn=0",
                              "oack.flags=0", "oack.count=1"]))
    h.close()
    ack[14 + 20 + 8] = 0xCB  # covered by the iCRC: it turns bad
    frames.append(bytes(ack))
    cap = ts.path("ports.pcap")
    write_pcap(cap, frames)
    os.chmod(cap, 0o644)
    opts = ["-o", "ornic.udp.port:4791,4792", "-d", "udp.port==4793,ornic"]
    cols = ["-T", "fields", "-e", "_ws.col.Protocol", "-e", "ornic.icrc.status", "-e", "_ws.col.Info"]
    rows = [l.split("\t") for l in ts.run(opts + ["-r", cap] + cols).splitlines()]
    check([r[:2] for r in rows[:2]] == [["ORNIC", "1"], ["ORNIC", "1"]],
          f"UDP port preference / Decode As: {rows[:2]}")
    check(rows[2][0] == "ORNIC" and rows[2][1] == "0" and
          rows[2][2].startswith("Reserved opcode 0xcb QP=0x000011 PSN=5"), f"reserved opcode: {rows[2]}")
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
    got = ts.fields(bad, ["ornic.icrc.status", "ornic.icrc.expected", "ornic.bth.fecn"])
    want = {1: 1, 2: 0, 3: 0, 4: 1, 5: 1, 6: 0}
    for fr, st in want.items():
        check(value(got[fr]["ornic.icrc.status"][0]) == st,
              f"frame {fr}: ornic.icrc.status {got[fr].get('ornic.icrc.status')}, expected {st}")
    check(value(got[5]["ornic.bth.fecn"][0]) == 1, "FECN not shown")
    ex = ts.run(["-r", bad, "-Y", "_ws.expert.message == \"Bad iCRC\" || ornic.icrc.bad",
                 "-T", "fields", "-e", "frame.number"]).split()
    check(ex == ["2", "3", "6"], f"expert ornic.icrc.bad on frames {ex}")
    rows = stat_table(ts, bad)
    check(sum(r[STAT_COLS.index("icrc_bad")] for r in rows.values()) == 3, f"stats: {rows}")
    print("icrc: covered-byte corruption flagged, masked fields (TTL, FECN) tolerated")


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
    for psn in (start + 5, start + 40):
        rt = [fr for fr, f in got.items() if value(f["ornic.bth.psn"][0]) == psn and
              value(f["ornic.bth.opcode"][0]) in range(0xC0, 0xC6)]
        check(len(rt) == 1, f"PSN {psn} seen {len(rt)} times")
        f = got[rt[0]]
        check("ornic.analysis.nak_frame" in f and value(f["ornic.analysis.nak_frame"][0]) in naks,
              f"retransmission of {psn} (frame {rt[0]}) not tied to a NAK: {f}")
    # Loss inferred (-o ornic.otd:4): replayed in Python, once per hole, at the first new
    # arrival more than OTD past the expected PSN (the first one not yet seen).
    otd = 4
    lo = ts.fields(cap, ["ornic.bth.opcode", "ornic.bth.psn", "ornic.analysis.loss",
                         "ornic.analysis.loss_first_psn", "ornic.analysis.loss_count"],
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
    got_loss = {fr: (value(f["ornic.analysis.loss_first_psn"][0]), value(f["ornic.analysis.loss_count"][0]))
                for fr, f in lo.items() if "ornic.analysis.loss" in f}
    check(want and got_loss == want, f"loss inferred (OTD {otd}): plugin {got_loss}, replay {want}")
    # Four paths: duplicates of WQE 1's packets arrive after WQE 2's address was learnt;
    # they still have WQE 1's address.
    cap = pcapgen(a, ts, "late.pcap", ["--wqes", "2", "--wqe-size", "16K", "--loss", "0",
                                       "--start-psn", str(start), "--drop", "0:3"])
    names = field_names(a)
    dec, got = compare_with_decoder(a, ts, cap, names)
    addrs = check_addresses(dec, got, set(range(0xC0, 0xC6)))
    check(addrs[2] > 0, f"no late copy of an older WQE in the trace (addresses {addrs})")
    print(f"nak: {len(naks)} NAK(s), missing {sorted(missing)}, retransmissions tied to them; "
          f"loss inferred with OTD {otd} at {got_loss}; "
          f"late copies: addresses checked/unknown/late {addrs}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--helper")
    ap.add_argument("--readme", required=True)
    ap.add_argument("--ws-version", default="4.0")
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
         "icrc": lambda: do_icrc(a, ts), "nak": lambda: do_nak(a, ts)}[a.check]()
    finally:
        ts.close()


if __name__ == "__main__":
    run_main(main)
