#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of ornic-pcapgen, the two-way rc profile and the truth: both hosts request
on one QP pair (SEND, WRITE, READ, many outstanding); capture artefacts (--capture-start,
--capture-drop); the summary's truth (network losses, NAKs, retransmissions) for every
profile.

Usage: test_pcapgen_rc.py --case NAME --pcapgen BIN [--decoder BIN] --workdir DIR
(pcapgen_common.py). Exit 0 pass, 1 fail, 77 skip (a required tool is missing)."""
import os
import shutil
import struct
import subprocess
import sys

from pcapgen_common import ETH_IP_UDP, HOST_A, HOST_B, acks, check, is_request, main, need, psn_add


# ------------------------------------------------------------------ rc profile and capture artefacts
# Profile rc: standard RC between host A (10.0.0.1, QPs 0x100 + q) and host B
# (10.0.0.2, QPs 0x200 + q), both requesters; the tap is host A's port.
RC_OPS = set(range(0x00, 0x12)) - {0x0C + 6}


def is_nak(p):
    op = p["bth"]["opcode"]
    return op == 0xCA or (op == 0x11 and (p["aeth"]["syndrome"] & 0xE0) == 0x60)


def raw_records(path):
    """(timestamp ns, frame bytes) of a nanosecond pcap, read without any RoCE code."""
    data = open(path, "rb").read()
    off, out = 24, []
    while off + 16 <= len(data):
        sec, nsec, incl = struct.unpack_from("<III", data, off)
        out.append((sec * 10**9 + nsec, data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return out


def bth_of(frame):
    """(destqp, psn, opcode) straight from the bytes (Ethernet + IPv4 + UDP)."""
    b = frame[ETH_IP_UDP:]
    return (int.from_bytes(b[5:8], "big"), int.from_bytes(b[9:12], "big"), b[0])


def tshark_quiet(env, name):
    """Stock tshark, unprivileged, finds nothing malformed and no warning."""
    if not shutil.which("tshark") or not shutil.which("runuser"):
        print("note: tshark or runuser missing: stock-tshark check skipped")
        return
    tmp = f"/tmp/pcapgen-{os.getpid()}-{name}"
    shutil.copyfile(env.path(name), tmp)
    os.chmod(tmp, 0o644)
    r = subprocess.run(["runuser", "-u", "nobody", "--", "tshark", "-r", tmp, "-Y",
                        "_ws.malformed || _ws.expert.severity >= warning"],
                       capture_output=True, text=True, timeout=600)
    os.unlink(tmp)
    check(r.returncode == 0 and r.stdout == "",
          f"{name}: stock tshark finds nothing malformed and no warning {r.stdout[:300]}{r.stderr[-300:]}")


def read_ranges(pkts, pmtu):
    """Per READ request (first transmissions): (requester QP, PSN, N = PSNs it reserves)."""
    out, seen = [], set()
    for p in pkts:
        b = p["bth"]
        if b["opcode"] == 0x0C and (b["destqp"], b["psn"]) not in seen:
            seen.add((b["destqp"], b["psn"]))
            n = max(1, -(-p["reth"]["dmalen"] // pmtu))
            out.append((b["destqp"], b["psn"], n))
    return out


def case_rc_wire(env):
    """rc: every frame decodes with a good iCRC; both hosts send requests on one
    QP pair; READ responses carry exactly the PSNs their request reserved; the
    next request follows the reserved range; A bit on the last packet of each
    message; ACK PSNs never go back; stock tshark has nothing to say."""
    need(env.decoder)
    pmtu = 1024
    name = "rc.pcap"
    s, _ = env.run(name, "--profile", "rc", "--wqes", 12, "--wqe-size", 5000, "--pmtu", pmtu,
                   "--qps", 2, "--loss", 0, "--rc-ops", "send,write,read,write_imm,send_imm")
    pkts = env.decode(name)
    check(s["wqes_verified"] == s["wqes_total"] == 48, f"{name}: 48 WQEs, all verified "
          f"({s['wqes_verified']} of {s['wqes_total']})")
    check(len(pkts) == s["packets_captured"] == s["truth"]["captured_frames"],
          f"{name}: {len(pkts)} frames decoded = summary = truth")
    bad = [p["frame"] for p in pkts if p.get("error") or not p["icrc"]["ok"]]
    check(not bad, f"{name}: every frame decodes with a good iCRC (bad: {bad[:5]})")
    ops = {p["bth"]["opcode"] for p in pkts}
    check(ops <= RC_OPS and {0x00, 0x01, 0x02, 0x03, 0x06, 0x07, 0x08, 0x09, 0x0C, 0x0D, 0x0E, 0x0F, 0x11} <= ops,
          f"{name}: standard RC opcodes, every kind present ({sorted(ops)})")
    for q in range(2):
        a2b = [p for p in pkts if is_request(p) and p["bth"]["destqp"] == 0x200 + q]
        b2a = [p for p in pkts if is_request(p) and p["bth"]["destqp"] == 0x100 + q]
        check(a2b and b2a and all(p["src"] == HOST_A for p in a2b) and
              all(p["src"] == HOST_B for p in b2a),
              f"{name}: QP pair {q}: requests both ways ({len(a2b)} A->B, {len(b2a)} B->A)")
    for qpn, psn, n in read_ranges(pkts, pmtu):
        resp_qp = qpn ^ 0x300  # responses go back to the requester's QP
        got = [p["bth"]["psn"] for p in pkts if p["bth"]["destqp"] == resp_qp and
               0x0D <= p["bth"]["opcode"] <= 0x10 and
               (p["bth"]["psn"] - psn) % (1 << 24) < n]
        want = [psn_add(psn, i) for i in range(n)]
        check(got == want, f"{name}: READ at PSN {psn} on QP {qpn:#x}: responses carry "
              f"PSNs {want[0]}..{want[-1]} ({len(got)} of {n})")
        nxt = [p["bth"]["psn"] for p in pkts if is_request(p) and p["bth"]["destqp"] == qpn and
               (p["bth"]["psn"] - psn) % (1 << 24) in range(1, 1 << 23)]
        check(not nxt or min(nxt, key=lambda x: (x - psn) % (1 << 24)) == psn_add(psn, n),
              f"{name}: the request after the READ at PSN {psn} has PSN {psn_add(psn, n)}")
    noa = [p["frame"] for p in pkts if p["bth"]["opcode"] in (0x02, 0x03, 0x04, 0x05, 0x08, 0x09,
                                                              0x0A, 0x0B, 0x0C) and not p["bth"]["a"]]
    mida = [p["frame"] for p in pkts if p["bth"]["opcode"] in (0x00, 0x01, 0x06, 0x07) and p["bth"]["a"]]
    check(not noa and not mida, f"{name}: A bit exactly on the last packet of a message "
          f"(missing {noa[:3]}, extra {mida[:3]})")
    for qpn in (0x100, 0x200, 0x101, 0x201):
        cum = [p["bth"]["psn"] for p in acks(pkts) if p["bth"]["destqp"] == qpn]
        back = [i for i in range(1, len(cum)) if (cum[i] - cum[i - 1]) % (1 << 24) >= (1 << 23)]
        check(cum and not back and all(p["aeth"]["syndrome"] == 0x1F for p in acks(pkts)),
              f"QP {qpn:#x}: {len(cum)} ACKs (syndrome 0x1F), PSN never goes back")
    tshark_quiet(env, name)


def case_rc_outstanding(env):
    """rc: with 16 outstanding READs, host A has at least 8 READs outstanding at
    some moment; a ping-pong SEND run strictly alternates as ib_send_lat."""
    need(env.decoder)
    name = "reads.pcap"
    s, _ = env.run(name, "--profile", "rc", "--rc-ops", "read", "--rc-outstanding", 16,
                   "--rc-dirs", "a2b", "--wqes", 40, "--wqe-size", "64K", "--loss", 0)
    pkts = env.decode(name)
    out = peak = 0
    for p in pkts:
        op = p["bth"]["opcode"]
        if op == 0x0C and p["src"] == HOST_A:
            out += 1
        elif op in (0x0F, 0x10) and p["dst"] == HOST_A:
            out -= 1
        peak = max(peak, out)
    check(peak >= 8, f"{name}: at most {peak} READs outstanding at once (want >= 8)")
    check(out == 0 and s["wqes_verified"] == 40, f"{name}: every READ answered and verified")
    name = "pingpong.pcap"
    s, _ = env.run(name, "--profile", "rc", "--rc-ops", "send", "--rc-outstanding", 1,
                   "--wqe-size", 64, "--wqes", 10, "--loss", 0)
    pkts = env.decode(name)
    got = [(p["src"], p["bth"]["opcode"]) for p in pkts]
    want = [(HOST_A, 0x04), (HOST_B, 0x11), (HOST_B, 0x04), (HOST_A, 0x11)] * 10
    check(got == want, f"{name}: SEND A->B, ACK, SEND B->A, ACK, strictly alternating "
          f"({len(got)} frames; first difference at "
          f"{next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), None)})")
    tshark_quiet(env, name)
    for bad in (["--rc-ops", "send,cas"], ["--rc-outstanding", 0], ["--rc-dirs", "b2a"],
                ["--capture-drop", 2], ["--capture-drop-frames", "3,0"], ["--capture-start", -1]):
        _, p = env.run("bad.pcap", "--profile", "rc", *bad, rc=2)
        check(p.stderr.startswith("ornic-pcapgen: ") and not os.path.exists(env.path("bad.pcap")),
              f"{bad}: exit 2 with a message, nothing written")


def resent_at_sender(pkts, src, pmtu=4096):
    """Frames `src` sends for a PSN it already sent (a READ request: a PSN
    its earlier READ reserved): what a requester-side tap shows as
    retransmissions."""
    seen, out = set(), []
    for p in pkts:
        if p["src"] != src or p["bth"]["opcode"] in (0x11, 0xC9, 0xCA):
            continue
        # Requests and READ responses to one QP are in two PSN spaces.
        k = (p["bth"]["destqp"], p["bth"]["psn"], 0x0D <= p["bth"]["opcode"] <= 0x10)
        if k in seen:
            out.append(p["frame"])
        seen.add(k)
        if p["bth"]["opcode"] == 0x0C:
            n = max(1, -(-p["reth"]["dmalen"] // pmtu))
            seen.update((k[0], psn_add(k[1], i), False) for i in range(n))
    return out


def case_rc_drop(env):
    """rc with --drop: the truth lists the network loss, the NAK and the
    retransmissions, and they match what ornic-decode shows."""
    need(env.decoder)
    name = "drop.pcap"
    s, _ = env.run(name, "--profile", "rc", "--wqes", 6, "--wqe-size", 20000, "--loss", 0,
                   "--start-psn", 100, "--drop", "0:1:2")
    pkts = env.decode(name)
    t = s["truth"]
    by = {p["frame"]: p for p in pkts}
    check(len(t["network_lost"]) == 1 and s["drops_rule"] == 1, f"{name}: one network loss")
    if not t["network_lost"]:
        return
    lost = t["network_lost"][0]
    # WQE 1 of host A starts at PSN 100 + 5 (WQE 0: 20000 B = 5 packets); offset 2.
    check((lost["qp"], lost["psn"]) == (0x200, 107), f"{name}: lost packet is QP 0x200 PSN 107 ({lost})")
    sent = [p for p in pkts if p["src"] == HOST_A and p["bth"]["psn"] == 107 and
            p["bth"]["destqp"] == 0x200 and is_request(p)]
    check(len(sent) == 2 and sent[0]["bth"]["opcode"] == lost["opcode"] == sent[1]["bth"]["opcode"],
          f"{name}: the tap saw it leave and be sent again, same opcode {lost['opcode']}")
    nk = [p["frame"] for p in pkts if is_nak(p)]
    check(t["naks"] == nk and len(nk) == 1 and s["naks"] == 1,
          f"{name}: truth NAKs {t['naks']} = decoded NAKs {nk}")
    if nk:
        n = by[nk[0]]
        check(n["bth"]["destqp"] == 0x100 and n["bth"]["psn"] == 107 and n["aeth"]["syndrome"] == 0x60,
              f"{name}: the NAK is a PSN sequence error expecting PSN 107")
    retx = resent_at_sender(pkts, HOST_A) + resent_at_sender(pkts, HOST_B)
    check(sorted(retx) == t["retransmissions"] and sent and sent[1]["frame"] in retx,
          f"{name}: truth retransmissions {t['retransmissions'][:8]}... = frames sent again {sorted(retx)[:8]}...")
    check(t["duplicates"] == [] and t["capture_dropped"] == [], f"{name}: no duplicates, no capture drop")
    # Random loss on a READ-heavy run: READ retries and resent responses are listed too.
    name = "rdloss.pcap"
    s, _ = env.run(name, "--profile", "rc", "--rc-ops", "read,send", "--wqes", 30,
                   "--wqe-size", "32K", "--loss", 0.01, "--seed", 3)
    pkts = env.decode(name)
    t = s["truth"]
    check(len(t["network_lost"]) == s["drops_random"] > 0, f"{name}: {len(t['network_lost'])} losses listed")
    # Host A's frames all reach its own tap; host B's first copy may have been
    # lost on the way, and then its retransmission is the first copy seen.
    by = truth_frames(pkts)
    ta = [f for f in t["retransmissions"] if by[f]["src"] == HOST_A]
    tb = [f for f in t["retransmissions"] if by[f]["src"] == HOST_B]
    ra, rb = resent_at_sender(pkts, HOST_A), resent_at_sender(pkts, HOST_B)
    # (a resent READ response may change opcode: a retry's answer starts with a First)
    resp = lambda op: 0x0D <= op <= 0x10
    lost = {(x["qp"], x["psn"], resp(x["opcode"])) for x in t["network_lost"]}
    extra = [f for f in tb if f not in rb]
    check(ta == ra, f"{name}: truth retransmissions from A = frames A sent again ({len(ta)} vs {len(ra)})")
    check(set(rb) <= set(tb) and all((by[f]["bth"]["destqp"], by[f]["bth"]["psn"], resp(by[f]["bth"]["opcode"]))
                                     in lost for f in extra),
          f"{name}: truth retransmissions from B = frames B sent again, or whose first copy "
          f"the network lost ({len(tb)} vs {len(rb)} + {len(extra)})")
    check(t["naks"] == [p["frame"] for p in pkts if is_nak(p)], f"{name}: truth NAKs = decoded NAKs")
    check(s["wqes_verified"] == s["wqes_total"], f"{name}: every WQE verified")


def truth_frames(name_pkts):
    return {p["frame"]: p for p in name_pkts}


def case_capture_artefacts(env):
    """--capture-drop* and --capture-start change the file only: for every
    profile the file is the full capture minus exactly the frames the truth
    lists, and the simulation's counters are the same."""
    need(env.decoder)
    for prof in env.profiles():
        base = ["--profile", prof, "--wqes", 4, "--wqe-size", "256K", "--loss", 0.002, "--seed", 5]
        full, _ = env.run(f"{prof}-full.pcap", *base)
        fr = raw_records(env.path(f"{prof}-full.pcap"))
        pick = [3, 4, 10, len(fr) // 2, len(fr)]
        dr, _ = env.run(f"{prof}-drop.pcap", *base, "--capture-drop-frames",
                        ",".join(map(str, pick)), "--capture-drop", 0.02)
        if not full or not dr:
            continue
        got = raw_records(env.path(f"{prof}-drop.pcap"))
        dropped = [d["frame"] for d in dr["truth"]["capture_dropped"]]
        keep = [r for i, r in enumerate(fr, 1) if i not in set(dropped)]
        check(set(pick) <= set(dropped) and len(dropped) > len(pick) and got == keep,
              f"{prof}: the file with capture drops is the full file minus the {len(dropped)} "
              f"frames listed (listed {pick} among them)")
        check(all((d["qp"], d["psn"], d["opcode"]) == bth_of(fr[d["frame"] - 1][1])
                  for d in dr["truth"]["capture_dropped"]),
              f"{prof}: each capture_dropped entry names its frame's QP, PSN and opcode")
        same = [k for k in ("packets_on_wire", "retransmissions", "naks", "acks", "timeouts",
                            "wqes_verified", "sim_time_us", "drops_random")
                if full[k] != dr[k]]
        check(not same and dr["truth"]["captured_frames"] == len(got) and
              dr["truth"]["full_capture_frames"] == len(fr) and
              full["truth"]["network_lost"] == dr["truth"]["network_lost"],
              f"{prof}: same simulation with and without capture drops (differs: {same})")
        renum = {old: new for new, old in enumerate(
            [i for i in range(1, len(fr) + 1) if i not in set(dropped)], 1)}
        for key in ("retransmissions", "naks", "probes"):
            want = [renum[f] for f in full["truth"][key] if f in renum]
            check(dr["truth"][key] == want, f"{prof}: truth {key} renumbered in the file with drops")
        t0 = 1704067200 * 10**9  # the run starts at 2024-01-01T00:00:00Z
        start_us = 40
        st, _ = env.run(f"{prof}-late.pcap", *base, "--capture-start", start_us)
        late = raw_records(env.path(f"{prof}-late.pcap"))
        check(late == [r for r in fr if r[0] - t0 >= start_us * 1000] and late and
              st["truth"]["capture_start_us"] == start_us,
              f"{prof}: --capture-start {start_us}: the file is the full capture from {start_us} us "
              f"on ({len(late)} of {len(fr)} frames)")


def case_rc_midstream(env):
    """rc --capture-start: the file starts mid-message, with ACKs for data that
    is not in it."""
    need(env.decoder)
    name = "mid.pcap"
    s, _ = env.run(name, "--profile", "rc", "--rc-outstanding", 16, "--wqes", 16,
                   "--wqe-size", "1M", "--loss", 0, "--capture-start", 50)
    pkts = env.decode(name)
    first = {}
    for p in pkts:
        if p["bth"]["opcode"] != 0x11:
            first.setdefault(p["bth"]["destqp"], p)
    mids = [p["bth"]["opcode"] for p in first.values() if p["bth"]["opcode"] in (0x01, 0x02, 0x07, 0x08, 0x0E, 0x0F)]
    check(len(mids) >= 1, f"{name}: first frames of the QPs are mid-message "
          f"(opcodes {[hex(p['bth']['opcode']) for p in first.values()]})")
    psns = {(p["bth"]["destqp"], p["bth"]["psn"]) for p in pkts if p["bth"]["opcode"] != 0x11}
    unseen = [p["frame"] for p in acks(pkts) if (p["bth"]["destqp"] ^ 0x300, p["bth"]["psn"]) not in psns]
    check(unseen, f"{name}: some ACKs acknowledge PSNs not in the file ({len(unseen)})")
    check(s["truth"]["captured_frames"] == len(pkts) < s["truth"]["full_capture_frames"],
          f"{name}: {len(pkts)} of {s['truth']['full_capture_frames']} frames written")


def case_truth_profiles(env):
    """For every profile, one --drop: truth lists one network loss that the
    requester-side tap shows leaving, NAKs equal to the decoded NAKs, and
    retransmissions equal to frames the requester sent again."""
    need(env.decoder)
    for prof in env.profiles():
        name = f"{prof}.pcap"
        s, _ = env.run(name, "--profile", prof, "--wqes", 3, "--wqe-size", "64K", "--loss", 0,
                       "--drop", "1:5", "--capture", "requester", "--paths", 1)
        if not s:
            continue
        pkts = env.decode(name)
        t = s["truth"]
        check(len(t["network_lost"]) == 1, f"{name}: one network loss listed ({t['network_lost']})")
        lost = t["network_lost"][0] if t["network_lost"] else {}
        left = [p for p in pkts if p["src"] == HOST_A and (p["bth"]["destqp"], p["bth"]["psn"],
                p["bth"]["opcode"]) == (lost.get("qp"), lost.get("psn"), lost.get("opcode"))]
        check(len(left) >= 1, f"{name}: the lost packet is in the file as it left host A")
        nk = [p["frame"] for p in pkts if is_nak(p)]
        check(t["naks"] == nk, f"{name}: truth NAKs {t['naks']} = decoded NAKs {nk}")
        retx = resent_at_sender(pkts, HOST_A)
        check(retx == t["retransmissions"] and retx,
              f"{name}: truth retransmissions {t['retransmissions'][:6]} = frames sent again {retx[:6]}")
        check(set(t["probes"]) <= set(t["retransmissions"]), f"{name}: probes are retransmissions")


if __name__ == "__main__":
    sys.exit(main(globals()))
