#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of ornic-pcapgen's left profile (pcapgen/profiles/left.c: LEFT's reorder buffer,
Huang et al., slides 2024, on standard RoCEv2 RC): the listing, the wire encoding, the responder's
cumulative ACKs against an ePSN walked here over the capture, one exact loss recovered by one NAK
and one resend of that PSN alone, a loss in a WQE's tail recovered by a timeout, a lossy run,
ornic-decode without false flags, and the slides' two-link experiment (out-of-order arrivals
trigger nothing).

Usage: test_pcapgen_left.py --case NAME --pcapgen BIN [--decoder BIN] --workdir DIR
(pcapgen_common.py). Exit 0 pass, 1 fail, 77 skip (a required tool is missing)."""
import shutil
import subprocess
import sys

from pcapgen_common import ROCE_OPS, acks, check, data_pkts, main, need

# The analysis flags (ornic_an_flag_name) that say something went wrong on the wire or in the capture.
PROBLEMS = {"retransmission", "duplicate", "loss", "nak", "not_captured", "prev_not_captured",
            "ack_stale", "otd_exceeded", "read_retry", "before_capture", "acked_before_seen",
            "pmtu_unknown", "work_limit"}


def nak_frames(pkts):
    return [p for p in acks(pkts) if p["aeth"]["syndrome"] == 0x60]


def flags_of(pkts):
    return {p["frame"]: set(p["analysis"]["flags"]) & PROBLEMS for p in pkts
            if set(p["analysis"]["flags"]) & PROBLEMS}


def decode_clean(env, name, summary):
    """Every frame decodes with a good iCRC, standard RC opcodes only, --stats --strict exit 0."""
    pkts = env.decode(name)
    check(len(pkts) == summary["packets_captured"], f"{name}: {len(pkts)} frames decoded of "
          f"{summary['packets_captured']}")
    bad = [p["frame"] for p in pkts if p.get("error") or not p["icrc"]["ok"]]
    check(not bad, f"{name}: every frame decodes with a good iCRC (bad: {bad[:5]})")
    ops = {p["bth"]["opcode"] for p in pkts}
    check(ops <= ROCE_OPS, f"{name}: standard RC opcodes only: {sorted(hex(o) for o in ops)}")
    st = subprocess.run([env.decoder, "--stats", "--strict", env.path(name)], capture_output=True,
                        text=True, timeout=600)
    check(st.returncode == 0, f"{name}: ornic-decode --stats --strict exit {st.returncode}")
    return pkts


def expected_acks(pkts, start_psn):
    """The responder's rule, walked over a responder-side capture: the ACK PSN (ePSN - 1) after
    every arrival that moves ePSN, the NAKs left aside. One QP, PSNs without wrap."""
    got, epsn, out = set(), start_psn, []
    for p in data_pkts(pkts):
        got.add(p["bth"]["psn"])
        before = epsn
        while epsn in got:
            epsn += 1
        if epsn != before:
            out.append(epsn - 1)
    return out


def case_left_listed(env):
    """--list-profiles has left: plot, otd, selective NAK recovery, sprayed, no receiver drops."""
    caps = env.profiles()
    check("left" in caps, f"left is listed: {sorted(caps)}")
    c = caps.get("left", set())
    check({"plot", "otd", "recovery=selective-nak", "paths=sprayed"} <= c and
          not c & {"read", "window", "bitmap-pool", "rnic", "nack-threshold", "receiver-drops"},
          f"left's capabilities: {sorted(c)}")
    h = subprocess.run([env.gen, "--help"], capture_output=True, text=True).stdout
    check(" left:" in h, "--help describes left")


def case_left_lossless(env):
    """No loss, 4 sprayed paths: every WQE verified; standard RC (no per-packet address: a Middle's
    payload is PMTU bytes, irn's and mprdma's carry 16 more); no NAK, no retransmission; the
    ACKs are exactly the ePSN moves walked here over the capture (out-of-order arrivals answered by
    nothing), their MSN counts WQEs; zero problem flags in ornic-decode; stock tshark reads it."""
    need(env.decoder)
    s, _ = env.run("l0.pcap", "--profile", "left", "--loss", 0, "--wqes", 4, "--start-psn", 0x1000)
    check(s["wqes_verified"] == s["wqes_total"] == 4, f"{s['wqes_verified']} of 4 WQEs verified")
    check(s["naks"] == 0 and s["retransmissions"] == 0, f"no NAK ({s['naks']}), no retransmission "
          f"({s['retransmissions']})")
    pkts = decode_clean(env, "l0.pcap", s)
    mids = [p for p in data_pkts(pkts) if p["bth"]["opcode"] == 0x07]
    check(mids and all(p["payload_len"] == 4096 for p in mids),
          f"{len(mids)} Middles, each PMTU bytes of data and nothing else")
    want = expected_acks(pkts, 0x1000)
    got = [p["bth"]["psn"] for p in acks(pkts)]
    first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
    check(got == want, f"{len(got)} ACKs at the ePSN moves walked from the capture ({len(want)}; "
          f"first differing at {first})")
    ndata = len(data_pkts(pkts))
    check(len(got) < ndata // 2, f"out-of-order arrivals are not answered: {len(got)} ACKs for "
          f"{ndata} packets")
    msns = [p["aeth"]["msn"] for p in acks(pkts)]
    check(msns == sorted(msns) and msns[-1] == 4, f"AETH MSN counts WQEs: last {msns[-1]}")
    # The reorder buffer: Middles that arrive before their First are held, placed after it.
    firsts = [p for p in data_pkts(pkts) if p["bth"]["opcode"] == 0x06]
    early = sum(1 for f in firsts for p in data_pkts(pkts)
                if p["frame"] < f["frame"] and 0 < p["bth"]["psn"] - f["bth"]["psn"] < 256)
    check(early > 0, f"{early} packets arrived before their WQE's First (held, then placed)")
    fl = flags_of(pkts)
    check(not fl, f"ornic-decode: no problem flag ({sorted(fl.items())[:5]})")
    if shutil.which("tshark"):
        mal = subprocess.run(["tshark", "-r", env.path("l0.pcap"), "-Y", "_ws.malformed"],
                             capture_output=True, text=True, timeout=600)
        check(mal.returncode == 0 and mal.stdout == "", "tshark finds no malformed packet")


def case_left_drop(env):
    """One --drop in a 256-packet WQE: the responder NAKs the lost PSN (RC NAK 0x60, BTH.PSN = the
    hole) once, at the arrival that puts a PSN OTD (T = 62, Eq. 3 at the defaults) past it, not
    before; the requester sends that PSN again and nothing else (no go-back-N); no timeout. A drop
    in the last T packets cannot be NAKed: one timeout, and again that PSN alone."""
    need(env.decoder)
    start, off = 0x2000, 100
    lost = start + 256 + off
    s, _ = env.run("ld.pcap", "--profile", "left", "--loss", 0, "--wqes", 3, "--wqe-size", "1M",
                   "--start-psn", start, "--drop", f"1:{off}", "--capture", "responder")
    t = s["otd"]
    check(t == 62, f"T = the OTD, Eq. 3 at the defaults: 20 us x 100 Gb/s / 4096 B = 62 ({t})")
    check(s["drops_rule"] == 1 and s["retransmissions"] == 1 and s["naks"] == 1 and
          s["timeouts"] == 0,
          f"one drop, one NAK, one retransmission, no timeout ({s['drops_rule']}, {s['naks']}, "
          f"{s['retransmissions']}, {s['timeouts']})")
    check(s["wqes_verified"] == 3, "every WQE verified")
    pkts = decode_clean(env, "ld.pcap", s)
    nk = nak_frames(pkts)
    check(len(nk) == 1 and nk[0]["bth"]["psn"] == lost,
          f"one NAK, naming {lost:#x}: {[hex(n['bth']['psn']) for n in nk]}")
    copies = [p for p in data_pkts(pkts) if p["bth"]["psn"] == lost]
    psns = [p["bth"]["psn"] for p in data_pkts(pkts)]
    check(len(copies) == 1 and len(psns) == len(set(psns)),
          f"the tap (responder) sees {lost:#x} once, the resend, and every other PSN once")
    if len(nk) == 1 and copies:
        n = nk[0]["frame"]
        print(f"NAK: frame {n} {hex(nk[0]['bth']['psn'])}; resend: frame {copies[0]['frame']}")
        check(copies[0]["frame"] > n, "the resend arrives after the NAK")
        before = [p["bth"]["psn"] for p in data_pkts(pkts) if p["frame"] < n]
        check(max(before) - lost >= t, f"the NAK follows an arrival {max(before) - lost} PSNs past "
              f"the hole (>= {t})")
        prev = [p["bth"]["psn"] for p in data_pkts(pkts) if p["frame"] < n - 1]
        check(max(prev) - lost < t, f"and not earlier: {max(prev) - lost} PSNs past it before that")
        fl = flags_of(pkts)
        rf = fl.get(copies[0]["frame"], set())
        check(fl.get(n) == {"nak"} and "retransmission" in rf,
              f"ornic-decode: the NAK and the resend flagged ({fl.get(n)}, {rf})")
    tail = 250
    s, _ = env.run("lt.pcap", "--profile", "left", "--loss", 0, "--wqes", 2, "--wqe-size", "1M",
                   "--start-psn", start, "--drop", f"0:{tail}", "--capture", "requester")
    check(s["naks"] == 0 and s["timeouts"] == 1 and s["retransmissions"] == 1 and
          s["wqes_verified"] == 2, f"a loss {256 - tail} PSNs before the WQE's end: no NAK "
          f"({s['naks']}), one timeout ({s['timeouts']}), one resend ({s['retransmissions']})")
    pkts = decode_clean(env, "lt.pcap", s)
    psns = [p["bth"]["psn"] for p in data_pkts(pkts)]
    check(psns.count(start + tail) == 2 and len(psns) - len(set(psns)) == 1,
          f"at the requester's tap: {start + tail:#x} sent twice, every other PSN once")


def case_left_lossy(env):
    """1% loss, 2 QPs: every WQE verified; every resend answers a loss or a timeout
    (retransmissions <= data packets lost + timeouts); ornic-decode's NAK frames are exactly
    pcapgen's and no duplicate is flagged (pcapgen makes none)."""
    need(env.decoder)
    s, _ = env.run("ll.pcap", "--profile", "left", "--loss", 0.01, "--qps", 2, "--wqes", 4,
                   "--wqe-size", "1M")
    check(s["outcome"] == "complete" and s["wqes_verified"] == s["wqes_total"] == 8,
          f"{s['wqes_verified']} of 8 WQEs verified")
    lost_data = sum(1 for x in s["truth"]["network_lost"] if x["opcode"] in (6, 7, 8, 10))
    check(lost_data > 0 and 0 < s["retransmissions"] <= lost_data + s["timeouts"],
          f"{s['retransmissions']} resends for {lost_data} data packets lost and "
          f"{s['timeouts']} timeouts")
    pkts = decode_clean(env, "ll.pcap", s)
    naks = sorted(p["frame"] for p in pkts if "nak" in p["analysis"]["flags"])
    check(naks == s["truth"]["naks"], f"ornic-decode's NAK frames are pcapgen's ({len(naks)}, "
          f"{len(s['truth']['naks'])})")
    dups = [p["frame"] for p in pkts if "duplicate" in p["analysis"]["flags"]]
    check(not dups, f"no duplicate flagged ({dups[:5]})")
    other = {f: v for f, v in flags_of(pkts).items() if v - {"nak", "retransmission", "loss"}}
    check(not other, f"no flag but NAK, retransmission, loss ({sorted(other.items())[:5]})")


def case_left_two_links(env):
    """The slides' experiment ("Evaluation-Benefit Throughput"): two links, one 32 times slower,
    packets spread evenly. No loss: LEFT's out-of-order arrivals trigger no NAK and no resend,
    where irn, which NACKs every one, sends thousands of NACKs."""
    opts = ["--loss", 0, "--pmtu", 1024, "--spray", "rr", "--wqe-size", "4M", "--wqes", 2,
            "--path", "delay=1", "--path", "delay=32"]
    s, _ = env.run("l2.pcap", "--profile", "left", *opts)
    check(s["wqes_verified"] == 2 and s["naks"] == 0 and s["retransmissions"] == 0 and
          s["timeouts"] == 0, f"left: verified, no NAK ({s['naks']}), no resend "
          f"({s['retransmissions']}), no timeout ({s['timeouts']})")
    # Round robin: every other packet takes the slow link and is overtaken by the next one, so
    # an ACK follows each slow arrival, which moves ePSN past itself and the fast packet after it.
    check(s["acks"] <= s["data_packets"] // 2 + 2,
          f"left: {s['acks']} ACKs for {s['data_packets']} packets, one per slow-link arrival")
    i, _ = env.run("i2.pcap", "--profile", "irn", *opts)
    check(i["naks"] > 1000, f"irn on the same links: {i['naks']} NACKs")


if __name__ == "__main__":
    sys.exit(main(globals()))
