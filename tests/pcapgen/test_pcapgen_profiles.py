#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of ornic-pcapgen, the other profiles: --list-profiles and the capabilities
it states, roce's go-back-N and its --rnic commodity behaviours, and the research profiles
irn, mprdma and ioi (wire encoding, integrity, determinism, NACKs, the NACK threshold, the
receive bitmap, ioi's in-order head and tail).

Usage: test_pcapgen_profiles.py --case NAME --pcapgen BIN [--decoder BIN] --workdir DIR
(pcapgen_common.py). Exit 0 pass, 1 fail, 77 skip (a required tool is missing)."""
import struct
import subprocess
import sys

from pcapgen_common import ETH_IP_UDP, ROCE_OPS, acks, check, data_pkts, main, need, raw_frames


def case_roce_gbn(env):
    """RoCE RC on a sprayed fabric: go-back-N, and a collapse next to ORNIC."""
    need(env.decoder)
    common = ["--wqes", 4, "--loss", 0, "--capture", "requester"]
    r, _ = env.run("g_roce.pcap", "--profile", "roce", *common)
    o, _ = env.run("g_ornic.pcap", *common)
    check(r["naks"] > 0 and r["retransmissions"] > 0,
          f"roce: sequence-error NAKs ({r['naks']}) and retransmissions ({r['retransmissions']})")
    pkts = env.decode("g_roce.pcap")
    nk = [p for p in pkts if p["bth"]["opcode"] == 0x11 and p["aeth"]["syndrome"] == 0x60]
    check(len(nk) == r["naks"], f"roce: {len(nk)} NAKs with syndrome 0x60 in the capture")
    data = [p["bth"]["psn"] for p in data_pkts(pkts)]
    rewinds = sum(1 for a, b in zip(data, data[1:]) if 0 < (a - b) % (1 << 24) < (1 << 23))
    check(rewinds > 0, f"roce: the requester goes back ({rewinds} rewinds in the PSN sequence)")
    after = {p["bth"]["psn"] for p in nk}
    check(bool(after & set(data[1:])), "roce: NAKed PSNs are sent again")
    check(r["goodput_gbps"] * 5 < o["goodput_gbps"],
          f"roce collapses: {r['goodput_gbps']:.2f} Gb/s against ornic {o['goodput_gbps']:.2f}")
    check(o["naks"] == 0 and o["retransmissions"] == 0, "ornic: the same fabric costs no NAK")


def case_list_profiles(env):
    """--list-profiles: one line per profile (name, description, capabilities,
    tab-separated), exit 0; --help and the error for an unknown profile list
    the same names; the capabilities say what the option checks accept."""
    p = subprocess.run([env.gen, "--list-profiles"], capture_output=True, text=True, timeout=60)
    lines = p.stdout.splitlines()
    check(p.returncode == 0 and not p.stderr, f"exit status {p.returncode}, stderr {p.stderr!r}")
    rows = [line.split("\t") for line in lines]
    check(rows and all(len(r) == 3 and r[0] and r[1] for r in rows),
          f"{len(rows)} lines of name, description, capabilities")
    names = [r[0] for r in rows]
    check(len(set(names)) == len(names), f"names are unique: {names}")
    check({"ornic", "roce", "irn", "mprdma", "ioi", "rc"} <= set(names),
          f"the six profiles of docs/PROFILES.md and pcapgen/README.md are listed: {names}")
    words = {"read", "plot", "two-hosts", "ack-every", "window", "bitmap-pool", "otd", "rnic", "nack-threshold",
             "receiver-drops"}
    for name, _, caps in rows:
        c = caps.split()
        keys = {w.split("=")[0] for w in c if "=" in w}
        check(set(w for w in c if "=" not in w) <= words and keys == {"recovery", "paths"},
              f"{name}: capabilities {c}")
    help_text = subprocess.run([env.gen, "--help"], capture_output=True, text=True).stdout
    check(all(f" {n}:" in help_text for n in names), "--help describes every listed profile")
    check("--list-profiles" in help_text, "--help documents --list-profiles")
    _, bad = env.run("nope.pcap", "--profile", "nope", rc=2)
    check(all(n in bad.stderr for n in names), f"an unknown profile's error lists every name: "
          f"{bad.stderr.strip()}")
    for name, caps in env.profiles().items():
        _, r = env.run(f"read-{name}.pcap", "--profile", name, "--op", "read", "--wqes", 1,
                       "--wqe-size", 4096, rc=0 if "read" in caps else 2)
        check(("read" in caps) == (r.returncode == 0), f"{name}: --op read accepted exactly when "
              f"'read' is listed ({r.stderr.strip()[:100]})")
        _, r = env.run(f"rnic-{name}.pcap", "--profile", name, "--rnic", "commodity", "--wqes", 1,
                       "--wqe-size", 4096, rc=0 if "rnic" in caps else 2)
        check(("rnic" in caps) == (r.returncode == 0), f"{name}: --rnic accepted exactly when "
              f"'rnic' is listed ({r.stderr.strip()[:100]})")
        _, r = env.run(f"nt-{name}.pcap", "--profile", name, "--irn-nack-threshold", 4, "--wqes", 1,
                       "--wqe-size", 4096, rc=0 if "nack-threshold" in caps else 2)
        check(("nack-threshold" in caps) == (r.returncode == 0), f"{name}: --irn-nack-threshold "
              f"accepted exactly when 'nack-threshold' is listed ({r.stderr.strip()[:100]})")
        r = subprocess.run([env.gen, "-q", "-o", env.path(f"plot-{name}.pcap"), "--profile", name,
                            "--wqes", "1", "--wqe-size", "4096", "--plot", env.path(f"{name}.svg")],
                           capture_output=True, text=True, timeout=120)
        check(("plot" in caps) == (r.returncode != 2), f"{name}: --plot refused (exit 2) exactly "
              f"when 'plot' is not listed (exit {r.returncode})")
    check(not env.leftovers(), f"no temporary files left: {env.leftovers()}")


# ---------------------------------------------- research profiles (irn, mprdma, ioi)
# Their wire encoding (pcapgen/README.md): RC WRITE First/Middle/Last/Only; irn
# and mprdma put a RETH-layout address at the start of every Middle/Last
# payload; ACK/NAK are RC Acknowledge with a second PSN in the AETH MSN field;
# ioi marks in-order packets with DSCP 24.
RESEARCH = ["irn", "mprdma", "ioi"]
DSCP_INORDER = 24


def dscp(frame):
    return frame[15] >> 2


def prefix_addr(frame):
    """VA, R_Key, DMA length of the RETH layout at the start of the payload."""
    return struct.unpack_from(">QII", frame, ETH_IP_UDP + 12)


def tshark_clean(env, name, count):
    f = env.path(name)
    mal = subprocess.run(["tshark", "-r", f, "-Y", "_ws.malformed"], capture_output=True,
                         text=True, timeout=600)
    check(mal.returncode == 0 and mal.stdout == "", f"{name}: tshark finds no malformed packet "
          f"{mal.stdout[:200]}{mal.stderr[-200:]}")
    cnt = subprocess.run(["tshark", "-r", f, "-T", "fields", "-e", "frame.number"],
                         capture_output=True, text=True, timeout=600)
    n = len(cnt.stdout.split())
    check(n == count, f"{name}: tshark reads {n} packets of {count}")


def case_research_wire(env):
    """irn, mprdma, ioi: every frame decodes with a good iCRC, stock tshark sees
    nothing malformed, only standard RC opcodes, and the per-packet addresses
    say where each packet goes."""
    need(env.decoder)
    need("tshark")
    runs = [(p, f"w_{p}.pcap", ["--wqes", 3, "--loss", 0.005, "--capture", "requester"])
            for p in RESEARCH]
    runs += [("ioi", "w_ioi_long.pcap", ["--wqe-size", "4M", "--wqes", 2, "--loss", 0.005]),
             ("irn", "w_irn_wrap.pcap", ["--pmtu", 256, "--wqe-size", 5000, "--qps", 3,
                                         "--start-psn", 0xfffff0, "--loss", 0.01]),
             ("mprdma", "w_mp_small.pcap", ["--wqe-size", 100, "--wqes", 5])]
    for prof, name, opts in runs:
        s, _ = env.run(name, "--profile", prof, *opts)
        pkts = env.decode(name)
        check(len(pkts) == s["packets_captured"], f"{name}: {len(pkts)} packets decoded of "
              f"{s['packets_captured']}")
        bad = [p["frame"] for p in pkts if p.get("error") or not p["icrc"]["ok"]]
        check(not bad, f"{name}: every frame decodes with a good iCRC (bad: {bad[:5]})")
        seen = {p["bth"]["opcode"] for p in pkts}
        check(seen <= ROCE_OPS, f"{name}: standard RC opcodes only: {sorted(hex(o) for o in seen)}")
        check(s["wqes_verified"] == s["wqes_total"], f"{name}: all {s['wqes_total']} WQEs verified")
        tshark_clean(env, name, s["packets_captured"])
        if prof == "ioi":
            continue
        # Every Middle/Last carries the RETH of its own first byte: VA = the
        # WQE's VA (in the First's RETH) + offset, the same R_Key and length.
        frames = raw_frames(env.path(name))
        pmtu = 256 if "--pmtu" in opts else 4096
        firsts = [(p["bth"]["destqp"], p["bth"]["psn"], int(str(p["reth"]["va"]), 0),
                   p["reth"]["r_key"], p["reth"]["dmalen"]) for p in pkts if "reth" in p]
        wrong, checked = [], 0
        for p in data_pkts(pkts):
            if p["bth"]["opcode"] not in (0x07, 0x08):
                continue
            checked += 1
            va, rkey, dmalen = prefix_addr(frames[p["frame"] - 1])
            ok = False
            for qp, psn0, va0, rkey0, len0 in firsts:
                d = (p["bth"]["psn"] - psn0) % (1 << 24)
                if qp != p["bth"]["destqp"] or not 0 < d < (len0 + pmtu - 1) // pmtu:
                    continue
                want_len = 16 + (pmtu if p["bth"]["opcode"] == 0x07 else len0 - d * pmtu)
                ok = (va, rkey, dmalen) == (va0 + d * pmtu, rkey0, len0) and \
                    p["payload_len"] == want_len
                break
            if not ok:
                wrong.append(p["frame"])
        only = all(p["bth"]["opcode"] == 0x0A for p in data_pkts(pkts))
        if 100 in opts:  # one-packet WQEs: RDMA WRITE Only, address in its RETH
            check(only, f"{name}: one-packet WQEs are RDMA WRITE Only")
        else:
            check(checked > 0 and not wrong, f"{name}: {checked} Middle/Last payloads start with "
                  f"their own address (wrong: {wrong[:5]})")


def case_research_integrity(env):
    """1% loss on 4 paths: every WQE of irn, mprdma and ioi verified byte for byte."""
    for prof in RESEARCH:
        for name, opts in [(f"i_{prof}.pcap", ["--wqes", 8]),
                           (f"iq_{prof}.pcap", ["--qps", 3, "--wqes", 3, "--pmtu", 1024,
                                                "--wqe-size", "3000K", "--burst-len", 2])]:
            s, _ = env.run(name, "--profile", prof, "--loss", 0.01, "--paths", 4, *opts)
            check(s is not None and s["outcome"] == "complete", f"{name}: run complete")
            if s:
                check(s["wqes_verified"] == s["wqes_completed"] == s["wqes_total"],
                      f"{name}: {s['wqes_verified']} of {s['wqes_total']} WQEs verified")
                check(s["drops_random"] > 0 and s["retransmissions"] > 0,
                      f"{name}: losses ({s['drops_random']}) were repaired "
                      f"({s['retransmissions']} retransmissions)")


def case_research_determinism(env):
    """irn, mprdma, ioi: one seed gives byte-identical files, another seed does not."""
    for prof in RESEARCH:
        files = []
        for k, seed in enumerate([7, 7, 8]):
            name = f"det_{prof}{k}.pcap"
            env.run(name, "--profile", prof, "--seed", seed, "--wqes", 3, "--loss", 0.01)
            files.append(open(env.path(name), "rb").read())
        check(files[0] == files[1], f"{prof}: two runs with seed 7 are byte-identical")
        check(files[0] != files[2], f"{prof}: seed 8 gives another capture")


def case_irn_drop(env):
    """irn: one --drop gives NACKs naming the lost PSN as cumulative PSN, the
    first with the next PSN as trigger, and exactly one retransmission."""
    need(env.decoder)
    start, off = 0x123456, 10
    lost = start + 256 + off
    s, _ = env.run("irn_d.pcap", "--profile", "irn", "--loss", 0, "--paths", 4,
                   "--delay-spread-us", 0, "--spray", "rr", "--start-psn", start, "--drop", f"1:{off}",
                   "--wqes", 3, "--capture", "requester")
    pkts = env.decode("irn_d.pcap")
    nk = [p for p in acks(pkts) if p["aeth"]["syndrome"] == 0x60]
    check(s["retransmissions"] == 1 and s["drops_rule"] == 1 and s["timeouts"] == 0,
          f"one drop, one retransmission, no timeout ({s['drops_rule']}, "
          f"{s['retransmissions']}, {s['timeouts']})")
    check(len(nk) == s["naks"] > 0, f"{len(nk)} NACKs in the capture, summary {s['naks']}")
    check(all(n["bth"]["psn"] == lost for n in nk),
          f"every NACK's cumulative PSN (BTH.PSN) is the lost PSN {lost:#x}")
    if nk:
        check(nk[0]["aeth"]["msn"] == lost + 1, f"the first NACK's trigger PSN is {lost + 1:#x} "
              f"(got {nk[0]['aeth']['msn']:#x})")
        trig = [n["aeth"]["msn"] for n in nk]
        check(trig == list(range(lost + 1, lost + 1 + len(nk))),
              "one NACK per packet that arrived after the hole, each naming its trigger")
    copies = [p for p in data_pkts(pkts) if p["bth"]["psn"] == lost]
    psns = [p["bth"]["psn"] for p in data_pkts(pkts)]
    check(len(copies) == 2 and len(psns) - len(set(psns)) == 1,
          f"PSN {lost:#x} sent twice, every other PSN once ({len(copies)})")
    if nk and len(copies) == 2:
        check(copies[1]["frame"] > nk[0]["frame"], "the retransmission follows the first NACK")
    data = len(data_pkts(pkts))
    check(len(acks(pkts)) == data - 1, f"one ACK or NACK per data packet delivered "
          f"({len(acks(pkts))} for {data} sent, one lost)")
    s, _ = env.run("irn_nl.pcap", "--profile", "irn", "--loss", 0, "--paths", 1, "--wqes", 3)
    check(s["naks"] == 0 and s["retransmissions"] == 0, "no loss, one path: no NACK, no retransmission")


def case_irn_threshold(env):
    """irn: IRN's reordering tolerance (--irn-nack-threshold, its section 8).
    On a sprayed lossless fabric the published rule (T = 1) resends late
    packets, auto (T = the OTD) resends nothing; with one drop and T = 8 the
    lost packet is resent once, only after the 8th NACK naming its hole."""
    need(env.decoder)
    base = ["--profile", "irn", "--loss", 0, "--wqes", 2, "--wqe-size", "1M"]
    one, _ = env.run("irn_t1.pcap", *base, "--irn-nack-threshold", 1)
    auto, _ = env.run("irn_tauto.pcap", *base)
    check(one["irn_nack_threshold"] == 1 and one["retransmissions"] > 0,
          f"T = 1 on a sprayed fabric: {one['retransmissions']} spurious retransmissions")
    check(auto["irn_nack_threshold"] == auto["otd"] > 1 and auto["retransmissions"] == 0,
          f"auto: T = OTD ({auto['irn_nack_threshold']}, OTD {auto['otd']}), "
          f"{auto['retransmissions']} retransmissions")
    start, off, t = 0x10000, 10, 8
    lost = start + 256 + off
    s, _ = env.run("irn_t8.pcap", "--profile", "irn", "--loss", 0, "--paths", 4,
                   "--delay-spread-us", 0, "--spray", "rr", "--start-psn", start, "--drop", f"1:{off}",
                   "--wqes", 3, "--capture", "requester", "--irn-nack-threshold", t)
    pkts = env.decode("irn_t8.pcap")
    nk = [p for p in acks(pkts) if p["aeth"]["syndrome"] == 0x60 and p["bth"]["psn"] == lost]
    copies = [p for p in data_pkts(pkts) if p["bth"]["psn"] == lost]
    check(s["retransmissions"] == 1 and s["timeouts"] == 0 and s["wqes_verified"] == 3,
          f"T = {t}: one retransmission ({s['retransmissions']}), no timeout, WQEs verified")
    check(len(nk) >= t and len(copies) == 2, f"{len(nk)} NACKs for the hole, {len(copies)} copies")
    if len(nk) >= t and len(copies) == 2:
        check(nk[t - 1]["frame"] < copies[1]["frame"], f"the retransmission follows the {t}th NACK")
        before = [n for n in nk if n["frame"] < copies[1]["frame"]]
        check(len(before) >= t, f"{len(before)} NACKs before the retransmission (want >= {t})")


def case_mprdma_bitmap(env):
    """mprdma: the receive bitmap is --otd packets, Eq. 3's value by default
    (the same tolerance as ornic's): a delay spread of more packets than an
    explicit 64-packet bitmap makes the receiver drop packets, which are
    retransmitted; the default bitmap absorbs it; a small spread drops
    nothing; every data packet gets one ACK on its own path naming its PSN."""
    need(env.decoder)
    # 1 KiB PMTU: 20 us of spread is about 220 packets.
    wide, _ = env.run("mp_wide.pcap", "--profile", "mprdma", "--pmtu", 1024, "--wqes", 3,
                      "--loss", 0, "--delay-spread-us", 20, "--otd", 64)
    check(wide["receiver_drops"] > 0 and wide["retransmissions"] > 0,
          f"wide spread, --otd 64: drops by the bitmap ({wide['receiver_drops']}) and "
          f"retransmissions ({wide['retransmissions']})")
    check(wide["wqes_verified"] == 3, "wide spread: 3 WQEs verified")
    auto, _ = env.run("mp_auto.pcap", "--profile", "mprdma", "--pmtu", 1024, "--wqes", 3,
                      "--loss", 0, "--delay-spread-us", 20)
    orn, _ = env.run("mp_ornic.pcap", "--profile", "ornic", "--pmtu", 1024, "--wqes", 1,
                     "--loss", 0, "--delay-spread-us", 20)
    check(auto["otd"] == orn["otd"] > 200,
          f"default bitmap = ornic's OTD from Eq. 3 ({auto['otd']} vs {orn['otd']})")
    check(auto["receiver_drops"] == 0 and auto["retransmissions"] == 0,
          f"wide spread, --otd auto: no drops ({auto['receiver_drops']}), no retransmissions "
          f"({auto['retransmissions']})")
    small, _ = env.run("mp_small.pcap", "--profile", "mprdma", "--pmtu", 1024, "--wqes", 3,
                       "--loss", 0, "--delay-spread-us", 2, "--capture", "responder")
    check(small["receiver_drops"] == 0 and small["retransmissions"] == 0,
          f"small spread: no drops ({small['receiver_drops']}), no retransmissions "
          f"({small['retransmissions']})")
    pkts = env.decode("mp_small.pcap")
    sport, echoed, wrong = {}, 0, []
    for p in pkts:
        if p["bth"]["opcode"] in (0x06, 0x07, 0x08, 0x0A):
            sport[p["bth"]["psn"]] = p["udp_sport"]
        elif p["bth"]["opcode"] == 0x11:
            echoed += 1
            if sport.get(p["aeth"]["msn"]) != p["udp_sport"]:
                wrong.append(p["frame"])
    check(echoed == len(sport) == small["data_packets"],
          f"one ACK per data packet ({echoed} ACKs, {len(sport)} data)")
    check(not wrong, f"each ACK names its packet's PSN and returns on its path (wrong: {wrong[:5]})")
    check(len(set(sport.values())) == 4, "data is spread over the 4 paths")


def ioi_wqes(pkts, frames, pmtu, size):
    """Data frames of each WQE in capture order, as (frame, psn, dscp, sport, opcode)."""
    per = (size + pmtu - 1) // pmtu
    data = [p for p in data_pkts(pkts)]
    if not data:
        return []
    first = data[0]["bth"]["psn"]
    out = {}
    for p in data:
        k = ((p["bth"]["psn"] - first) % (1 << 24)) // per
        out.setdefault(k, []).append((p["frame"], p["bth"]["psn"], dscp(frames[p["frame"] - 1]),
                                      p["udp_sport"], p["bth"]["opcode"]))
    return [out[k] for k in sorted(out)]


def case_ioi_paths(env):
    """ioi: a short WQE goes in order on one path, marked; a long one has an
    in-order head and tail on one path and a sprayed, unmarked middle; the tail
    is the head's outstanding count long and leaves only after every sprayed
    packet was acknowledged."""
    need(env.decoder)
    s, _ = env.run("ioi_short.pcap", "--profile", "ioi", "--wqe-size", "64K", "--wqes", 4,
                   "--loss", 0, "--capture", "requester")
    pkts = env.decode("ioi_short.pcap")
    frames = raw_frames(env.path("ioi_short.pcap"))
    wqes = ioi_wqes(pkts, frames, 4096, 65536)
    check(len(wqes) == 4 and all(len(w) == 16 for w in wqes), "4 short WQEs of 16 packets")
    for i, w in enumerate(wqes):
        check(len({x[3] for x in w}) == 1, f"short WQE {i}: one path")
        check(all(x[2] == DSCP_INORDER for x in w), f"short WQE {i}: every packet DSCP {DSCP_INORDER}")
        check([x[1] for x in w] == sorted(x[1] for x in w), f"short WQE {i}: sent in PSN order")
    check(s["wqes_verified"] == 4, "short: 4 WQEs verified")

    size = 4 << 20
    s, _ = env.run("ioi_long.pcap", "--profile", "ioi", "--wqe-size", "4M", "--wqes", 3,
                   "--loss", 0, "--capture", "requester")
    pkts = env.decode("ioi_long.pcap")
    frames = raw_frames(env.path("ioi_long.pcap"))
    wqes = ioi_wqes(pkts, frames, 4096, size)
    check(len(wqes) == 3 and s["retransmissions"] == 0, f"3 long WQEs, nothing retransmitted")
    # When the requester knew each PSN was received: its own ACK (the PSN in
    # the AETH MSN field) or a cumulative ACK (BTH.PSN) that covers it.
    ack_frames, cum_frames, cum = {}, [], None
    for p in acks(pkts):
        ack_frames.setdefault(p["aeth"]["msn"], p["frame"])
        c = p["bth"]["psn"]
        if cum is None or 0 < (c - cum) % (1 << 24) < (1 << 23):
            cum = c
            cum_frames.append((p["frame"], c))

    def known(psn):
        own = ack_frames.get(psn, 1 << 60)
        by_cum = next((f for f, c in cum_frames if (c - psn) % (1 << 24) < (1 << 23)), 1 << 60)
        return min(own, by_cum)
    for i, w in enumerate(wqes):
        marks = "".join("I" if x[2] == DSCP_INORDER else "O" for x in w)
        runs = [marks[0]] + [b for a, b in zip(marks, marks[1:]) if a != b]
        check(runs == ["I", "O", "I"], f"long WQE {i}: in-order head, sprayed middle, in-order "
              f"tail ({marks.count('I')} in order, {marks.count('O')} sprayed)")
        inorder_ports = {x[3] for x in w if x[2] == DSCP_INORDER}
        check(len(inorder_ports) == 1, f"long WQE {i}: head and tail on one path {inorder_ports}")
        check(len({x[3] for x in w if x[2] != DSCP_INORDER}) > 1, f"long WQE {i}: the middle is sprayed")
        # US 12218828 claims 1-4: the tail is as long as the head packets outstanding at the
        # first ACK (the whole head, then) minus one, and waits for every sprayed packet's ACK.
        head = len(marks) - len(marks.lstrip("I"))
        tail = len(marks) - len(marks.rstrip("I"))
        check(tail == head - 1, f"long WQE {i}: tail {tail} = head {head} - 1 (the threshold)")
        first_tail = w[len(w) - tail] if tail else None
        sprayed = [x[1] for x in w if x[2] != DSCP_INORDER]
        late = [psn for psn in sprayed if known(psn) > (first_tail[0] if first_tail else 0)]
        check(first_tail is not None and not late, f"long WQE {i}: the tail leaves after the ACKs "
              f"of all {len(sprayed)} sprayed packets (not before: {late[:5]})")
    check(s["wqes_verified"] == 3, "long: 3 WQEs verified")


def ns(pkt):
    """A decoded packet's capture time, nanoseconds."""
    sec, frac = pkt["time"].split(".")
    return int(sec) * 10**9 + int(frac.ljust(9, "0"))


def roce_run(env, name, capture, *opts):
    """A roce run on one path without random loss; returns (summary, decoded packets, start PSN)."""
    s, _ = env.run(name, "--profile", "roce", "--paths", 1, "--loss", 0, "--wqes", 1,
                   "--capture", capture, *opts)
    pkts = env.decode(name)
    return s, pkts, data_pkts(pkts)[0]["bth"]["psn"]


def rel(p, start):
    return (p["bth"]["psn"] - start) % (1 << 24)


def is_nak_rc(p):
    return p["bth"]["opcode"] == 0x11 and p["aeth"]["syndrome"] == 0x60


def short(psns):
    """A list of relative PSNs for a message: whole when short."""
    return psns if len(psns) <= 16 else f"{len(psns)} packets: {psns[:3]} .. {psns[-2:]}"


def case_rnic_behaviours(env):
    """--rnic: each behaviour of the commodity, ernic and cx5 presets on a
    hand-built sequence (one path, exact --drop rules), against the ideal
    endpoint; every value is read from the capture (pcapgen/README.md,
    "Profile roce: --rnic", has the presets' table)."""
    need(env.decoder)
    # 1. One NAK per sequence error, then silence: packet 5 of 16 lost; packets
    #    6..15 (the Last with the A bit too) are dropped without an answer, and
    #    the requester goes back to 5. Every model.
    for model in ("ideal", "commodity", "ernic", "cx5"):
        name = f"one_nak_{model}.pcap"
        s, pkts, start = roce_run(env, name, "responder", "--rnic", model, "--wqe-size", "64K",
                                  "--drop", "0:5")
        nk = [p for p in pkts if is_nak_rc(p)]
        check(len(nk) == 1 and rel(nk[0], start) == 5 and s["naks"] == 1,
              f"{name}: one NAK, naming PSN 5 ({[rel(p, start) for p in nk]})")
        resent = next(p for p in data_pkts(pkts) if p["frame"] > nk[0]["frame"] and rel(p, start) == 5)
        answers = [p for p in pkts if p["bth"]["opcode"] == 0x11 and nk[0]["frame"] < p["frame"]
                   < resent["frame"]]
        check(not answers,
              f"{name}: nothing answered until PSN 5 came again ({len(answers)} answers)")
        check(s["retransmissions"] == 11 and s["wqes_verified"] == 1,
              f"{name}: go-back-N resends 5..15 ({s['retransmissions']})")
    # 2. The responder's slow path: the NAK leaves --rnic-nak-delay-us after the
    #    packet that broke the sequence (commodity and cx5: 20 us; ideal and
    #    ernic: at once).
    for model, opts, want_us in (("ideal", [], 0), ("commodity", [], 20),
                                 ("commodity", ["--rnic-nak-delay-us", 7], 7), ("ernic", [], 0),
                                 ("cx5", [], 20)):
        name = f"nak_delay_{model}_{want_us}.pcap"
        s, pkts, start = roce_run(env, name, "responder", "--rnic", model, *opts, "--wqe-size",
                                  "64K", "--drop", "0:5")
        trigger = next(p for p in data_pkts(pkts) if rel(p, start) == 6)
        nk = next(p for p in pkts if is_nak_rc(p))
        got = (ns(nk) - ns(trigger)) / 1000
        check(abs(got - want_us) < 0.01, f"{name}: the NAK left {got:.3f} us after PSN 6 arrived "
              f"(want {want_us})")
    # 3. The requester's start-up: the first resent packet leaves
    #    --rnic-retx-delay-us after the NAK arrives; new packets leave meanwhile.
    for delay in (0, 5):
        name = f"retx_delay_{delay}.pcap"
        s, pkts, start = roce_run(env, name, "requester", "--rnic", "commodity",
                                  "--rnic-nak-delay-us", 0, "--rnic-retx-delay-us", delay,
                                  "--wqe-size", "256K", "--drop", "0:5")
        nk = next(p for p in pkts if is_nak_rc(p))
        after = [p for p in data_pkts(pkts) if p["frame"] > nk["frame"]]
        first_old = next(p for p in after if rel(p, start) == 5)
        new = [p for p in after if p["frame"] < first_old["frame"]]
        got = (ns(first_old) - ns(nk)) / 1000
        frame_us = 4198 * 8 / 100e3
        check(delay <= got <= delay + frame_us, f"{name}: resent {got:.3f} us after the NAK "
              f"(want {delay} to {delay + frame_us:.3f})")
        check(len(new) == (0 if delay == 0 else int(delay / frame_us)) or
              (delay and abs(len(new) - delay / frame_us) <= 1),
              f"{name}: {len(new)} new packets left before the resend")
    # 4. ACK coalescing: the A bit on every 66th packet and on the Last; the
    #    responder ACKs exactly those (ideal: every --ack-every 16, and the Last;
    #    ernic and cx5: the A bit on every packet, each ACKed).
    every = list(range(256))
    for model, want_a, want_acks in (("commodity", [65, 131, 197, 255], [65, 131, 197, 255]),
                                     ("ideal", [255], list(range(15, 256, 16))),
                                     ("ernic", every, every), ("cx5", every, every)):
        name = f"ackreq_{model}.pcap"
        s, pkts, start = roce_run(env, name, "responder", "--rnic", model, "--wqe-size", "1M")
        a = [rel(p, start) for p in data_pkts(pkts) if p["bth"]["a"]]
        acks = [rel(p, start) for p in pkts if p["bth"]["opcode"] == 0x11]
        check(a == want_a, f"{name}: A bit on {short(a)}")
        check(acks == want_acks and s["acks"] == len(want_acks), f"{name}: ACKs for {short(acks)}")
    # 5. A NAK during a NAK-started resend, no ACK having advanced since: packet
    #    5 lost, then (in the resend) the first transmission of 30. commodity
    #    ignores the second NAK, keeps sending past 30, the responder drops it all,
    #    and only the timeout (2000 us after the last packet or NAK) goes back, to
    #    30: the ignored NAK's implicit ACK counts. ideal, ernic and cx5 go back
    #    at once; the last two with commodity's A-bit cadence, so that no ACK
    #    advances between the NAKs there either and only the rule differs.
    for model, ignored, timeouts in (("commodity", 1, 1), ("ideal", 0, 0), ("ernic", 0, 0),
                                     ("cx5", 0, 0)):
        name = f"ignore_{model}.pcap"
        cadence = ["--rnic-ack-req", 66] if model in ("ernic", "cx5") else []
        s, pkts, start = roce_run(env, name, "requester", "--rnic", model, "--rnic-nak-delay-us", 0,
                                  *cadence, "--wqe-size", "256K", "--drop", "0:5", "--drop", "0:30")
        nk = [p for p in pkts if is_nak_rc(p)]
        check([rel(p, start) for p in nk] == [5, 30] and s["naks_ignored"] == ignored
              and s["timeouts"] == timeouts, f"{name}: NAKs {[rel(p, start) for p in nk]}, "
              f"{s['naks_ignored']} ignored, {s['timeouts']} timeouts")
        after = [p for p in data_pkts(pkts) if p["frame"] > nk[1]["frame"]]
        back = next(i for i, p in enumerate(after) if rel(p, start) == 30)
        if model == "commodity":
            check(back > 0 and rel(after[back - 1], start) > 30,
                  f"{name}: the requester went on past 30 ({back} packets) before going back")
            last = max(ns(nk[1]), ns(after[back - 1]))
            got = (ns(after[back]) - last) / 1000
            check(abs(got - 2000) < 0.01, f"{name}: back to 30 {got:.3f} us after the last packet "
                  "or NAK (RTO 2000 us)")
        else:
            check(back == 0, f"{name}: back to 30 at once")
        check(s["wqes_verified"] == 1, f"{name}: WQE verified")
    # 6. The timeout's cap: 4.096 us x 2^N (--rnic-timeout) below --rnic-rto-us. The
    #    Last lost: no later packet, no NAK, only the timeout recovers it, counted
    #    from the last frame sent or received (each restarts the timer).
    for opts, want in ((["--rnic-rto-us", 100000, "--rnic-timeout", 10], 4.096 * 1024),
                       ([], 2000)):
        name = f"rto_{want:.0f}.pcap"
        s, pkts, start = roce_run(env, name, "requester", "--rnic", "commodity", *opts,
                                  "--wqe-size", "64K", "--drop", "0:15")
        data = data_pkts(pkts)
        first_again = next((p for i, p in enumerate(data) if rel(p, start) <= rel(data[i - 1], start)
                            and i), None)
        before = [p for p in pkts if first_again and p["frame"] < first_again["frame"]]
        got = (ns(first_again) - ns(before[-1])) / 1000 if before else -1
        check(abs(got - want) < 0.01 and s["timeouts"] == 1 and s["naks"] == 0,
              f"{name}: the resend began {got:.3f} us after the last frame (want {want:.3f}), "
              "by a timeout")
        check(sum(1 for p in data if rel(p, start) == 15) == 2 and s["wqes_verified"] == 1,
              f"{name}: the Last sent twice, WQE verified")
    # 7. Timeouts in a row: the Last lost, then its first resend too (the path a
    #    black hole until after the first timeout). cx5 doubles its 2000 us
    #    (ConnectX-5's measured 2, 4, 8 ms); ernic's IBA local ACK timeout,
    #    4.096 us x 2^14, stays fixed.
    for model, until_us, want in (("cx5", 3000, [2000, 4000]),
                                  ("ernic", 100000, [4.096 * 2**14] * 2)):
        name = f"rto_row_{model}.pcap"
        s, pkts, start = roce_run(env, name, "requester", "--rnic", model, "--wqe-size", "64K",
                                  "--drop", "0:15", "--path-event", f"0:fail@100:recover@{until_us}")
        sends = [p for p in data_pkts(pkts) if rel(p, start) == 15]
        # The first timeout runs from the last frame before the resend (each
        # restarts the timer, as in 6.), the second from the first resend.
        before = [p for p in pkts if len(sends) == 3 and p["frame"] < sends[1]["frame"]]
        got = [(ns(b) - ns(a)) / 1000 for a, b in zip([before[-1], sends[1]], sends[1:])] \
            if before else []
        check(len(got) == 2 and all(abs(g - w) < 0.01 for g, w in zip(got, want))
              and s["timeouts"] == 2 and s["wqes_verified"] == 1,
              f"{name}: the Last resent after {got} us (want {want}), {s['timeouts']} timeouts")


if __name__ == "__main__":
    sys.exit(main(globals()))
