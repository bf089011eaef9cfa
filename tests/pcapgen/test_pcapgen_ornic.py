#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of ornic-pcapgen, the ornic profile's protocol: one --drop gives one NAK
and one retransmission, no loss gives none, every WQE survives random loss byte for byte,
--records, the responder's timeout NAKs and ACK engine, our rules switched off (the paper's
ORNIC), --otd and --window auto (Eqs. 3, 5-6), stale ACKs that still bring ADDR_CACHED, and
the fabric's --reorder-max and --reorder-share.

Usage: test_pcapgen_ornic.py --case NAME --pcapgen BIN [--decoder BIN] --workdir DIR
(pcapgen_common.py). Exit 0 pass, 1 fail, 77 skip (a required tool is missing)."""
import subprocess
import sys

from pcapgen_common import check, data_pkts, main, naks, need, psn_add


def single_drop(env, name, start, wqe, off, capture, reason, extra=()):
    s, _ = env.run(name, "--loss", 0, "--paths", 4, "--delay-spread-us", 0, "--spray", "rr",
                   "--start-psn", start, "--drop", f"{wqe}:{off}", "--wqes", 3,
                   "--capture", capture, *extra)
    lost = (start + 256 * wqe + off) % (1 << 24)
    pkts = env.decode(name)
    nk = naks(pkts)
    check(len(nk) == 1 and s["naks"] == 1, f"{name}: exactly one NAK ({len(nk)}, summary {s['naks']})")
    if nk:
        n = nk[0]["naketh"]
        check(n["missing_psns"] == [lost], f"{name}: the NAK marks exactly PSN {lost:#x} missing "
              f"(got {[hex(p) for p in n['missing_psns']]})")
        check(n["reason"] == reason, f"{name}: NAK reason {n['reason']} (want {reason})")
    check(s["retransmissions"] == 1 and s["drops_rule"] == 1 and s["timeouts"] == 0,
          f"{name}: one drop, one retransmission, no timeout "
          f"({s['drops_rule']}, {s['retransmissions']}, {s['timeouts']})")
    copies = [p for p in data_pkts(pkts) if p["bth"]["psn"] == lost]
    psns = [p["bth"]["psn"] for p in data_pkts(pkts)]
    want = 2 if capture == "requester" else 1
    check(len(copies) == want, f"{name}: PSN {lost:#x} captured {len(copies)} times (want {want})")
    check(len(psns) - len(set(psns)) == want - 1, f"{name}: no other PSN was sent twice")
    if nk and copies:
        check(copies[-1]["frame"] > nk[0]["frame"], f"{name}: the retransmission follows the NAK")
    check(s["wqes_verified"] == 3, f"{name}: 3 WQEs verified")


def case_single_drop(env):
    """One --drop: one NAK showing exactly that PSN, one retransmission."""
    need(env.decoder)
    single_drop(env, "d_req.pcap", 0x123456, 1, 10, "requester", 1)
    single_drop(env, "d_resp.pcap", 0x123456, 1, 10, "responder", 1)
    single_drop(env, "d_wrap.pcap", 0xffff80, 0, 150, "requester", 1)  # PSN 0x000016
    # Fewer than OTD packets follow: found when T_last expires after the Last.
    # OTD 64 given: without a delay spread --otd auto is 1 (Eq. 3), and the 5
    # packets after the hole would exceed it (reason 1).
    single_drop(env, "d_tail.pcap", 0x000100, 2, 250, "requester", 3, ("--otd", 64))
    # The Last itself: no hole before the highest PSN and no Last seen, so only
    # the requester's RTO (a probe with A = 1) recovers it (PROTOCOL.md 4.2).
    s, _ = env.run("d_last.pcap", "--loss", 0, "--paths", 4, "--delay-spread-us", 0,
                   "--drop", "1:255", "--wqes", 2, "--capture", "requester")
    pkts = env.decode("d_last.pcap")
    probes = [p for p in data_pkts(pkts) if p["bth"]["a"] == 1]
    check(s["naks"] == 0 and s["timeouts"] >= 1 and probes,
          f"d_last.pcap: recovered by timeout ({s['timeouts']}) and probe, no NAK ({s['naks']})")
    check(s["wqes_verified"] == 2, "d_last.pcap: 2 WQEs verified")


def case_no_loss(env):
    """No loss and no reordering: no NAK, no retransmission, no timeout."""
    need(env.decoder)
    for name, opts in [("nl_w.pcap", []), ("nl_r.pcap", ["--op", "read"]),
                       ("nl_roce.pcap", ["--profile", "roce"]),
                       ("nl_q.pcap", ["--qps", 3, "--ack-per-wqe"])]:
        s, _ = env.run(name, "--paths", 1, "--loss", 0, "--wqes", 6, "--capture", "requester", *opts)
        pkts = env.decode(name)
        psns = [(p["bth"]["destqp"], p["bth"]["psn"]) for p in data_pkts(pkts)]
        check(s["naks"] == 0 and not naks(pkts), f"{name}: no NAK")
        check(s["retransmissions"] == 0 and s["timeouts"] == 0, f"{name}: no retransmission or timeout")
        check(len(psns) == len(set(psns)), f"{name}: every data PSN sent once")
        if "read" in opts:
            check(s["read_requests"] == 6, f"{name}: one READ request per WQE")


def case_integrity(env):
    """1% loss on 4 paths: the run's own memory check passes for every WQE."""
    for name, opts in [("i_w.pcap", []), ("i_r.pcap", ["--op", "read"]),
                       ("i_q.pcap", ["--qps", 4, "--burst-len", 3, "--spray", "least-loaded"]),
                       ("i_256.pcap", ["--pmtu", 256, "--wqe-size", 100000, "--start-psn", 0xfffe00]),
                       ("i_roce.pcap", ["--profile", "roce", "--wqes", 4])]:
        s, _ = env.run(name, "--loss", 0.01, "--paths", 4, *opts)
        check(s["outcome"] == "complete", f"{name}: run complete")
        check(s["wqes_verified"] == s["wqes_completed"] == s["wqes_total"],
              f"{name}: {s['wqes_verified']} of {s['wqes_total']} WQEs verified byte for byte")
        check(s["drops_random"] > 0, f"{name}: losses happened ({s['drops_random']})")


def case_records(env):
    """--records wqe,nak: one record per completed WQE whose bytes add up to
    the workload, and one per NAK sent equal to the NAK frames of the
    responder's capture as ornic-decode --json reads them (time, PSNs,
    reason, blocks, lost PSNs); refused without --summary-json."""
    need(env.decoder)
    s, _ = env.run("rec.pcap", "--wqes", 6, "--qps", 2, "--loss", 0.003, "--seed", 3,
                   "--records", "wqe,nak", "--capture", "responder")
    w = s["wqe_records"]
    check(len(w) == s["wqes_completed"] == 12 and sum(r["bytes"] for r in w) == s["bytes_completed"],
          f"{len(w)} WQE records, {sum(r['bytes'] for r in w)} bytes (summary {s['bytes_completed']})")
    check(sum(r["retransmissions"] for r in w) == s["retransmissions"],
          "per-WQE retransmissions add up to the run's")
    check(all(r["data_sent"] >= r["packets"] and r["done_us"] > r["first_send_us"] >= r["post_us"]
              for r in w), "every WQE sent each packet at least once, in time order")
    frames = [p for p in env.decode("rec.pcap") if "naketh" in p]
    recs = s["nak_records"]
    check(len(recs) == len(frames) == s["naks"] > 0,
          f"{len(recs)} NAK records, {len(frames)} NAK frames, summary {s['naks']}")
    bad = []
    for r, p in zip(recs, frames):
        sec, ns = p["time"].split(".")  # exact: a double cannot hold 19 digits
        t_us = (int(sec) - 1704067200) * 1e6 + int(ns) / 1e3
        n = p["naketh"]
        if (abs(t_us - r["t_us"]) > 0.001 or r["psn"] != p["bth"]["psn"]
                or r["reason"] != n["reason"] or r["trigger_psn"] != n["trigger_psn"]
                or r["base_psn"] != n["base_psn"] or r["limit_psn"] != n["limit_psn"]
                or r["blocks"] != n["nblocks"] or r["lost"] != len(n["missing_psns"])):
            bad.append((r, p["frame"]))
    check(not bad, f"NAK records equal the decoded frames (first mismatch: {bad[:1]})")
    _, p = env.run("rec_no.pcap", "--wqes", 1, "--records", "nak", rc=2, json_out=False)
    check("--summary-json" in p.stderr, f"without --summary-json: {p.stderr.strip()}")
    _, p = env.run("rec_bad.pcap", "--wqes", 1, "--records", "wqe,wqe", rc=2)
    check("--records" in p.stderr, f"a kind twice: {p.stderr.strip()}")


def case_resp_timeout_nak(env):
    """--resp-timeout-nak: on (the default) the responder sends reason-2 NAKs
    when T_resp passes without arrivals and a hole is open; off, only probes
    get one, and the same seed recovers through more requester timeouts."""
    common = ["--loss", 0.02, "--seed", 1, "--records", "nak"]
    on, _ = env.run("tn_on.pcap", *common)
    off, _ = env.run("tn_off.pcap", *common, "--resp-timeout-nak", "off")
    r2 = lambda s: sum(1 for r in s["nak_records"] if r.get("reason") == 2)
    # Off, reason 2 remains only as the answer to a probe (A = 1 with a hole, PROTOCOL.md 4.3).
    probes = len(off["truth"]["probes"])
    check(r2(on) > r2(off) and r2(off) <= probes,
          f"reason-2 NAKs: on {r2(on)}, off {r2(off)} (probes answered: at most {probes})")
    check(off["timeouts"] > on["timeouts"], f"requester timeouts: on {on['timeouts']}, "
          f"off {off['timeouts']}")
    check(on["wqes_verified"] == off["wqes_verified"] == on["wqes_total"], "every WQE verified")


def case_paper_rules(env):
    """The responder's rules that are ours, not the paper's (PROTOCOL.md 1.1), each switched off
    alone: --last-timeout-nak off sends no reason-3 NAK; --nak-blocks one, a one-block bitmap
    in every NAK; --nak-loss-limit off, reason-1 NAKs whose Limit PSN is their trigger;
    --nak-pacing off, more reason-1 NAKs than on; --rto-probe off, timeouts answered by
    resends and no probe. Every run verifies every WQE."""
    common = ["--loss", 0.02, "--seed", 1, "--records", "nak", "--wqes", 8]
    on, _ = env.run("pr_on.pcap", *common)
    nk = lambda s, reason=None: [r for r in s["nak_records"] if reason is None or r.get("reason") == reason]
    check(nk(on, 3) and any(r["blocks"] > 1 for r in nk(on)), "on: reason-3 NAKs and NAKs of several blocks")
    check(all(r["limit_psn"] != r["trigger_psn"] for r in nk(on, 1)),
          "on: reason-1 limits before the trigger")
    last, _ = env.run("pr_last.pcap", *common, "--last-timeout-nak", "off")
    check(not nk(last, 3), f"--last-timeout-nak off: {len(nk(last, 3))} reason-3 NAKs")
    one, _ = env.run("pr_one.pcap", *common, "--nak-blocks", "one")
    check(nk(one) and all(r["blocks"] == 1 for r in nk(one)), "--nak-blocks one: one block per NAK")
    lim, _ = env.run("pr_lim.pcap", *common, "--nak-loss-limit", "off")
    check(nk(lim, 1) and all(r["limit_psn"] == r["trigger_psn"] for r in nk(lim, 1)),
          "--nak-loss-limit off: every reason-1 NAK's limit is its trigger")
    pace, _ = env.run("pr_pace.pcap", *common, "--nak-pacing", "off")
    check(len(nk(pace, 1)) > len(nk(on, 1)),
          f"--nak-pacing off: reason-1 NAKs {len(nk(pace, 1))} against {len(nk(on, 1))} on")
    # Without the reason-2 timer a timeout comes; --rto-probe off answers it without a probe.
    probe, _ = env.run("pr_probe.pcap", *common, "--resp-timeout-nak", "off")
    bulk, _ = env.run("pr_bulk.pcap", *common, "--resp-timeout-nak", "off", "--rto-probe", "off")
    check(probe["timeouts"] and probe["truth"]["probes"], f"probes: {len(probe['truth']['probes'])}")
    check(bulk["timeouts"] and not bulk["truth"]["probes"] and
          bulk["retransmissions"] > probe["retransmissions"],
          f"--rto-probe off: {bulk['timeouts']} timeouts, {len(bulk['truth']['probes'])} probes, "
          f"{bulk['retransmissions']} resends against {probe['retransmissions']}")
    for name, s in (("on", on), ("last", last), ("one", one), ("lim", lim), ("pace", pace),
                    ("probe", probe), ("bulk", bulk)):
        check(s["wqes_verified"] == s["wqes_total"], f"{name}: every WQE verified")
    p = subprocess.run([env.gen, "-o", "/dev/null", "--nak-blocks", "some"], capture_output=True, text=True)
    check(p.returncode == 2 and "--nak-blocks" in p.stderr, f"--nak-blocks some: exit {p.returncode}")


def case_ack_engine(env):
    """--ack-engine-ns: the register scheduler. An engine faster than the
    packets answers each one (an ACK per data packet); a busy one (10 us per
    ACK, ~30 packet times) sends scheduler ACKs at least 10 us apart, each
    counting every packet accepted since the QP's previous ACK, so the
    OACKETH counts add up to the packets."""
    need(env.decoder)
    fast, _ = env.run("ae_fast.pcap", "--wqes", 2, "--loss", 0, "--paths", 1, "--ack-engine-ns", 1)
    check(fast["acks"] >= fast["data_packets"],
          f"idle engine: {fast['acks']} ACKs for {fast['data_packets']} data packets")
    slow, _ = env.run("ae_slow.pcap", "--wqes", 2, "--loss", 0, "--paths", 1, "--ack-engine-ns",
                      10000, "--capture", "responder")
    pkts = env.decode("ae_slow.pcap")
    acks = [p for p in pkts if p["bth"]["opcode"] == 0xC9]
    counts = sum(p["oacketh"]["count"] for p in acks)
    check(counts == slow["data_packets"] and len(acks) < slow["data_packets"] / 10,
          f"busy engine: {len(acks)} ACKs whose counts add up to {counts} "
          f"(data packets {slow['data_packets']})")
    # ACKs the scheduler sent: not a WQE's first ACK (sent at once when the
    # FSpot fills the address cache) nor its WQE_DONE one.
    sched, first = [], True
    for p in acks:
        if p["oacketh"]["wqe_done"]:
            first = True
        elif first:
            first = False
        else:
            sched.append(p)
    ts = [int(p["time"].split(".")[1]) for p in sched]
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    check(sched and min(gaps or [10**9]) >= 10000 - 1,
          f"scheduler ACKs at least 10 us apart (smallest gap {min(gaps or [0])} ns)")
    _, p = env.run("ae_roce.pcap", "--profile", "roce", "--ack-engine-ns", 100, rc=2)
    check("--ack-engine-ns" in p.stderr, f"refused by roce: {p.stderr.strip()}")
    # The ornic default: the scheduler at one ACK frame's wire time (8 ns at
    # 100 Gb/s), which keeps up with any data rate: an ACK per packet, and the
    # text summary says so. --ack-every 16 is EVERY_N again.
    dflt, p = env.run("ae_default.pcap", "--wqes", 2, "--loss", 0)
    check(dflt["ack_engine_ns"] == 8 and dflt["ack_every"] == 0
          and dflt["acks"] >= dflt["data_packets"],
          f"default: engine {dflt['ack_engine_ns']} ns, {dflt['acks']} ACKs for "
          f"{dflt['data_packets']} data packets")
    out = subprocess.run([env.gen, "-o", env.path("ae_text.pcap"), "--wqes", "1"], capture_output=True,
                         text=True).stdout
    check("register scheduler, one per 8 ns at most (auto" in out, f"text summary: {out.strip()[-160:]}")
    e16, _ = env.run("ae_16.pcap", "--wqes", 2, "--loss", 0, "--ack-every", 16)
    check(e16["ack_engine_ns"] == 0 and e16["acks"] <= e16["data_packets"] / 16 + 4,
          f"--ack-every 16: {e16['acks']} ACKs for {e16['data_packets']} data packets")
    _, p = env.run("ae_both.pcap", "--ack-every", 4, "--ack-engine-ns", 100, rc=2)
    check("give one" in p.stderr, f"two ACK policies refused: {p.stderr.strip()}")


def ooo_distances(psns):
    """Per packet (in arrival order): the highest PSN that arrived before it minus
    its own, 0 when none higher did (pcapgen/README.md, "OOO distance"); and how
    many later PSNs arrived before it. PSNs already unwrapped."""
    dist, overtaken, high, seen = [], [], None, []
    for p in psns:
        dist.append(max(0, high - p) if high is not None else 0)
        overtaken.append(sum(1 for q in seen if q > p))
        seen.append(p)
        high = p if high is None else max(high, p)
    return dist, overtaken


def case_reorder_bound(env):
    """--reorder-max D (the emulator, one path): no first transmission arrives D or
    more PSNs out of order, and no more than D - 1 later packets overtake one;
    reordering does happen; ornic's --otd auto (D - 1) absorbs it without a NAK."""
    need(env.decoder)
    for d in (2, 9, 33, 64):
        name = f"ro{d}.pcap"
        s, _ = env.run(name, "--paths", 1, "--loss", 0, "--reorder-max", d, "--wqes", 2,
                       "--wqe-size", "1M", "--capture", "responder", "--seed", d)
        raw = [p["bth"]["psn"] for p in data_pkts(env.decode(name))]
        signed = [(p - raw[0] + (1 << 23)) % (1 << 24) - (1 << 23) for p in raw]
        psns = [x - min(signed) for x in signed]
        dist, over = ooo_distances(psns)
        check(len(psns) == 512 and sorted(psns) == list(range(512)),
              f"{name}: every PSN arrived once ({len(psns)} packets)")
        check(max(dist) <= d - 1 and max(over) <= d - 1,
              f"{name}: OOO distance at most {d - 1} (max {max(dist)}), overtaken by at most "
              f"{d - 1} (max {max(over)})")
        moved = sum(1 for x in dist if x)
        check(max(dist) >= (d - 1) // 2 and moved > (len(dist) // 4 if d > 2 else 0),
              f"{name}: reordered ({moved} packets out of order, max {max(dist)})")
        check(s["otd"] == d - 1 and s["otd_source"] == "auto" and s["reorder_max"] == d,
              f"{name}: --otd auto = D - 1 = {s['otd']}")
        check(s["naks"] == 0 and s["retransmissions"] == 0, f"{name}: no NAK, no retransmission")
    # The same seed gives the same order; another seed another one.
    a, _ = env.run("roa.pcap", "--paths", 1, "--loss", 0, "--reorder-max", 9, "--wqes", 1)
    b, _ = env.run("rob.pcap", "--paths", 1, "--loss", 0, "--reorder-max", 9, "--wqes", 1)
    c, _ = env.run("roc.pcap", "--paths", 1, "--loss", 0, "--reorder-max", 9, "--wqes", 1, "--seed", 2)
    raw = [open(env.path(n), "rb").read() for n in ("roa.pcap", "rob.pcap", "roc.pcap")]
    check(raw[0] == raw[1] and raw[0] != raw[2], "the emulator follows the seed")


def case_reorder_share(env):
    """--reorder-share P with --reorder-max 64 (one path): the share of packets that arrive
    behind a later PSN is within 3 points of P (P = 0.1, 0.25, 0.5), none at P = 0, and the
    bound D still holds; P = 1 writes the same bytes as no option (the emulator as before)."""
    need(env.decoder)
    ro = ["--paths", 1, "--loss", 0, "--reorder-max", 64, "--wqes", 2, "--wqe-size", "1M",
          "--pmtu", 1024, "--capture", "responder"]
    for share in (0, 0.1, 0.25, 0.5):
        name = f"rs{share}.pcap"
        s, _ = env.run(name, *ro, "--reorder-share", share)
        raw = [p["bth"]["psn"] for p in data_pkts(env.decode(name))]
        psns = [(p - raw[0] + (1 << 23)) % (1 << 24) - (1 << 23) for p in raw]
        high, moved, dmax = None, 0, 0
        for p in psns:
            if high is not None and p < high:
                moved += 1
                dmax = max(dmax, high - p)
            high = p if high is None else max(high, p)
        got = moved / len(psns)
        check(len(psns) == 2048 and sorted(psns) == list(range(min(psns), min(psns) + 2048)),
              f"{name}: every PSN arrived once ({len(psns)} packets)")
        check(abs(got - share) <= 0.03, f"{name}: displaced share {got:.3f} (want {share} +- 0.03)")
        check(dmax <= 63 and s["naks"] == 0 and s["retransmissions"] == 0,
              f"{name}: OOO distance at most 63 (max {dmax}), no NAK, no retransmission")
    env.run("rs_none.pcap", *ro)
    env.run("rs_one.pcap", *ro, "--reorder-share", 1)
    same = open(env.path("rs_none.pcap"), "rb").read() == open(env.path("rs_one.pcap"), "rb").read()
    check(same, "--reorder-share 1: the same capture as without it")
    p = subprocess.run([env.gen, "-o", "/dev/null", "--reorder-share", "1.5"], capture_output=True, text=True)
    check(p.returncode == 2 and "--reorder-share" in p.stderr, f"--reorder-share 1.5: exit {p.returncode}")


def case_otd_auto(env):
    """--otd auto (ornic's default, Eq. 3) and --window auto (Eqs. 5-6) in the
    summaries; a given OTD below Eq. 3 draws a warning, one above it does not."""
    s, p = env.run("auto.pcap", "--wqes", 1, "--window", "auto")
    check(s["otd"] == 62 and s["otd_source"] == "auto" and s["otd_eq3"] == 62
          and abs(s["mdd_us"] - 20) < 1e-9, f"default fabric: OTD {s['otd']} ({s['otd_source']})")
    # ornic's default ACK policy is the register scheduler at one ACK frame's
    # wire time (8 ns at 100 Gb/s): one packet may wait for it (sizing.h).
    check(s["window"] == 62 + s["bdp_packets"] + 1 and s["bdp_packets"] == 137
          and s["window_source"] == "auto" and s["ack_engine_ns"] == 8,
          f"--window auto = OTD + BDP + 1 (ACK scheduler, {s['ack_engine_ns']} ns) = {s['window']}")
    s16, _ = env.run("auto_a16.pcap", "--wqes", 1, "--ack-every", 16)
    check(s16["window"] == 62 + 137 + 15 and s16["ack_engine_ns"] == 0 and s16["ack_every"] == 16,
          f"--ack-every 16: OTD + BDP + 15 = {s16['window']}")
    s1, _ = env.run("auto_a1.pcap", "--wqes", 1, "--ack-every", 1)
    check(s1["window"] == 62 + 137 and s1["window_source"] == "auto",
          f"default window with an ACK per packet = OTD + BDP = {s1['window']}")
    check("warning" not in p.stderr, f"no warning: {p.stderr.strip()}")
    s, p = env.run("auto1k.pcap", "--wqes", 1, "--pmtu", 1024, "--wqe-size", "256K")
    check(s["otd"] == 245, f"PMTU 1024: OTD {s['otd']} (Eq. 3: 244.1 rounded up)")
    s, p = env.run("low.pcap", "--wqes", 1, "--otd", 16)
    check(s["otd"] == 16 and s["otd_source"] == "given" and "warning: --otd 16 is below Eq. 3's 62"
          in p.stderr, f"a low OTD is warned about: {p.stderr.strip()[:120]}")
    s, p = env.run("high.pcap", "--wqes", 1, "--otd", 100)
    check("warning" not in p.stderr, "a high OTD is not")
    s, p = env.run("roce.pcap", "--wqes", 1, "--profile", "roce", "--otd", 16)
    check(s["otd"] == 16 and "warning" not in p.stderr, "roce: OTD only pads the timeout, no warning")
    out = subprocess.run([env.gen, "-o", env.path("text.pcap"), "--wqes", "1"], capture_output=True,
                         text=True).stdout
    check("OTD                62 packets (auto; Eq. 3" in out, f"text summary: {out.strip()[-200:]}")


def case_addr_cached_stale(env):
    """PROTOCOL.md 4.2: a stale ACK (its PSN before the cumulative PSN a NAK already
    moved) moves nothing but still delivers ADDR_CACHED. Seed 2 with OTD 16 has
    such ACKs; a requester that dropped them sent 63 FSpots the responder no longer
    needed. At the requester's tap, every FSpot sent after an ACK with ADDR_CACHED
    for the current WQE reached it is needless: there must be none."""
    name = "stale_addr_cached.pcap"
    need(env.decoder)
    # ACKs every 16: aggregated ACKs are what a NAK overtakes (with the
    # scheduler's ACK per packet, none is stale).
    s, _ = env.run(name, "--otd", 16, "--seed", 2, "--qps", 1, "--capture", "requester",
                   "--ack-every", 16)
    if s is None:
        return
    pkts = env.decode(name)
    diff = lambda a, b: (a - b + (1 << 23)) % (1 << 24) - (1 << 23)  # a - b as in psn.h
    msn, cum, cached, stale_cached, needless = 0, None, False, 0, 0
    for p in pkts:
        op = p["bth"]["opcode"]
        if op == 0xCA:
            base = psn_add(p["naketh"]["base_psn"], -1)
            cum = base if cum is None or diff(base, cum) > 0 else cum
        elif op == 0xC9:
            a, o, psn = p["aeth"], p["oacketh"], p["bth"]["psn"]
            stale = cum is not None and diff(psn, cum) < 0
            if o["wqe_done"] and a["msn"] == (msn + 1) % (1 << 24):
                msn, cached = a["msn"], False
            elif o["addr_cached"] and a["msn"] == msn:
                stale_cached += stale and not cached
                cached = True
            if not stale:
                cum = psn
        elif op == 0xC0 and cached:
            needless += 1
    check(stale_cached > 0, f"{name}: a stale ACK is the first to bring ADDR_CACHED ({stale_cached} "
          "times): the run tests what it says")
    check(needless == 0, f"{name}: no FSpot after the requester got ADDR_CACHED ({needless})")


if __name__ == "__main__":
    sys.exit(main(globals()))
