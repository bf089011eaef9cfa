#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of ornic-pcapgen, the capture file: every frame of every format decodes
with a good iCRC (ornic-decode), stock tshark reads it without a malformed packet, Scapy
computes the same iCRCs, the same seed gives the same bytes, and --udp-sport / --qpn-base
change only the UDP source port (and the iCRC), checked from the bytes.

Usage: test_pcapgen_capture.py --case NAME --pcapgen BIN [--decoder BIN] --workdir DIR
(pcapgen_common.py). Exit 0 pass, 1 fail, 77 skip (a required tool is missing)."""
import gzip
import os
import struct
import subprocess
import sys
import zlib

from pcapgen_common import (ETH_IP_UDP, HOST_A, ROCE_OPS, SKIP, check, is_request, main, naks,
                           need, raw_frames)


ORNIC_OPS = set(range(0xC0, 0xCB))


def case_decode(env):
    """Every packet decodes with a valid iCRC; opcodes belong to the profile."""
    need(env.decoder)
    runs = [
        ("w.pcap", ["--wqes", 4, "--loss", 0.005], ORNIC_OPS),
        ("r.pcap", ["--op", "read", "--wqes", 4, "--loss", 0.005], ORNIC_OPS),
        ("roce.pcap", ["--profile", "roce", "--wqes", 2], ROCE_OPS),
        ("wrap.pcap", ["--pmtu", 256, "--wqe-size", 5000, "--start-psn", 0xfffff0, "--qps", 3,
                       "--loss", 0.01, "--capture", "requester"], ORNIC_OPS),
        ("small.pcap", ["--wqe-size", 100, "--wqes", 8, "--capture", "requester"], ORNIC_OPS),
        ("zero.pcap", ["--wqe-size", 0, "--wqes", 3, "--op", "read"], ORNIC_OPS),
    ]
    for name, opts, ops in runs:
        s, _ = env.run(name, *opts)
        pkts = env.decode(name)
        check(len(pkts) == s["packets_captured"], f"{name}: {len(pkts)} packets decoded, "
              f"summary says {s['packets_captured']}")
        bad = [p["frame"] for p in pkts if p.get("error") or not p["icrc"]["ok"]]
        check(not bad, f"{name}: every frame decodes with a good iCRC (bad: {bad[:5]})")
        seen = {p["bth"]["opcode"] for p in pkts}
        check(seen <= ops, f"{name}: opcodes {sorted(hex(o) for o in seen)} belong to the profile")
        check(s["wqes_verified"] == s["wqes_total"], f"{name}: all {s['wqes_total']} WQEs verified")
    # ACKs leave the responder in order, so their cumulative PSN never goes back.
    pkts = env.decode("w.pcap")
    cum = [p["bth"]["psn"] for p in pkts if p["bth"]["opcode"] == 0xC9]
    back = [i for i in range(1, len(cum)) if (cum[i] - cum[i - 1]) % (1 << 24) >= (1 << 23)]
    check(not back, "w.pcap: the ACKs' cumulative PSN never moves back")
    check(all(n["naketh"]["base_psn"] == n["bth"]["psn"] for n in naks(pkts)),
          "w.pcap: every NAK has BTH.PSN = Base PSN")


def case_tshark(env):
    """Stock tshark reads every format without a malformed packet."""
    need("tshark")
    for name, opts in [("t.pcap", []), ("t.pcapng", []), ("t.pcap.gz", []), ("t.pcapng.gz", []),
                       ("snap.pcap", ["--snaplen", 96]), ("roce.pcapng", ["--profile", "roce"]),
                       ("read.pcap", ["--op", "read", "--loss", 0.01])]:
        s, _ = env.run(name, "--wqes", 4, *opts)
        f = env.path(name)
        mal = subprocess.run(["tshark", "-r", f, "-Y", "_ws.malformed"], capture_output=True,
                             text=True, timeout=600)
        check(mal.returncode == 0 and mal.stdout == "",
              f"{name}: tshark finds no malformed packet {mal.stdout[:200]}{mal.stderr[-200:]}")
        cnt = subprocess.run(["tshark", "-r", f, "-T", "fields", "-e", "frame.number"],
                             capture_output=True, text=True, timeout=600)
        n = len(cnt.stdout.split())
        check(n == s["packets_captured"], f"{name}: tshark reads {n} packets of {s['packets_captured']}")
    raw = open(env.path("t.pcap"), "rb").read()
    check(gzip.open(env.path("t.pcap.gz")).read() == raw, "t.pcap.gz inflates to t.pcap byte for byte")
    check(raw[:4] == bytes.fromhex("4d3cb2a1"), "pcap uses the nanosecond magic")


def case_determinism(env):
    """The same seed gives byte-identical files; another seed does not."""
    for ext in ["pcap", "pcapng", "pcap.gz"]:
        for k in (1, 2):
            env.run(f"det{k}.{ext}", "--seed", 99, "--wqes", 4, "--loss", 0.01)
        a = open(env.path(f"det1.{ext}"), "rb").read()
        b = open(env.path(f"det2.{ext}"), "rb").read()
        check(a == b, f"{ext}: two runs with seed 99 are byte-identical ({len(a)} bytes)")
    env.run("det3.pcap", "--seed", 100, "--wqes", 4, "--loss", 0.01)
    check(open(env.path("det3.pcap"), "rb").read() != open(env.path("det1.pcap"), "rb").read(),
          "seed 100 gives another capture")


def case_scapy_icrc(env):
    """Scapy, an independent implementation, reads the traces of every profile
    and computes the same iCRC as the one on the wire for a sample of frames
    (its BTH layer masks the variant fields itself; IPv4 only)."""
    try:
        from scapy.all import rdpcap, Ether, Raw  # noqa: F401
        from scapy.contrib.roce import BTH
    except ImportError:
        print("SKIP: python3-scapy is not installed")
        sys.exit(SKIP)
    import random
    rng = random.Random(7)
    for profile, caps in env.profiles().items():
        for op in (["write", "read"] if "read" in caps else ["write"]):
            name = f"scapy-{profile}-{op}.pcap"
            s, _ = env.run(name, "--profile", profile, "--op", op, "--wqes", 2, "--wqe-size", 65536,
                           "--pmtu", 1024, "--loss", 0.02, "--seed", 3)
            frames = raw_frames(env.path(name))
            check(len(frames) == s["packets_captured"], f"{name}: {len(frames)} frames read")
            sample = rng.sample(range(len(frames)), min(150, len(frames)))
            bad, opcodes = [], set()
            for i in sample:
                pkt = Ether(frames[i])
                if BTH not in pkt:
                    bad.append((i, "no BTH"))
                    continue
                wire = pkt[BTH].icrc
                opcodes.add(pkt[BTH].opcode)
                pkt[BTH].icrc = None  # Scapy recomputes it on build
                again = Ether(bytes(pkt))[BTH].icrc
                if again != wire:
                    bad.append((i, hex(wire), hex(again)))
            check(not bad, f"{name}: Scapy computes the wire iCRC for {len(sample)} sampled frames "
                  f"(opcodes {sorted(hex(o) for o in opcodes)}; mismatches {bad[:3]})")
            check(len(opcodes) >= 2, f"{name}: the sample holds data and control frames")


# ------------------------------------------------------------------ --udp-sport and --qpn-base
# QPs 0x45 (host A, the requester) and 0x35 (host B, the responder): under
# --udp-sport qpn their frames leave from UDP ports 69 and 53, which stock
# tshark takes for TFTP and DNS, so these checks read the bytes themselves.
QPN_A, QPN_B = 0x45, 0x35


def ref_icrc(frame):
    """The iCRC of an Ethernet + IPv4 RoCEv2 frame, computed here from IBA's
    definition (docs/IBA_NOTES.md section 5) with zlib's CRC-32: 8 bytes of
    0xFF, the IPv4 header with TOS, TTL and checksum masked, the UDP header
    with its checksum masked (its ports are covered), the BTH with byte 4
    masked, the rest up to the iCRC; least-significant byte first."""
    l3 = bytearray(frame[14:-4])
    l3[1] = l3[8] = 0xFF
    l3[10:12] = l3[26:28] = b"\xff\xff"
    l3[32] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(l3)))


def ipv4_sum_ok(frame):
    total = sum(struct.unpack_from(">10H", frame, 14))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total == 0xFFFF


def sender_qpn(src, destqp, qpns):
    """The QP a frame comes from: QP q of host A (the requester) talks only to
    QP q of host B, so a frame to B's QP b + q comes from A's a + q."""
    a, b = qpns
    return a + destqp - b if src == HOST_A else b + destqp - a


def wire_faults(frames, want_sport):
    """(frame index, what) for each frame whose UDP source port is not
    want_sport(src, destqp), or whose iCRC, IPv4 or UDP checksum is wrong."""
    bad = []
    for i, fr in enumerate(frames):
        sport, dport, _, udp_sum = struct.unpack_from(">HHHH", fr, 34)
        src = ".".join(str(b) for b in fr[26:30])
        destqp = int.from_bytes(fr[ETH_IP_UDP + 5:ETH_IP_UDP + 8], "big")
        want = want_sport(src, destqp)
        if fr[12:14] != b"\x08\x00" or fr[14] != 0x45 or dport != 4791:
            bad.append((i, "not Ethernet + IPv4 (no options) + UDP 4791"))
        elif sport != want:
            bad.append((i, f"source port {sport}, want {want} (DestQP {destqp:#x} from {src})"))
        elif fr[-4:] != ref_icrc(fr):
            bad.append((i, f"iCRC {fr[-4:].hex()}, want {ref_icrc(fr).hex()}"))
        elif not ipv4_sum_ok(fr) or udp_sum != 0:  # RoCEv2 over IPv4: UDP checksum 0
            bad.append((i, f"IPv4 or UDP checksum (UDP {udp_sum:#x})"))
    return bad


def same_but_port_and_icrc(a, b):
    """Frame indexes where captures a and b differ outside the UDP source port
    and the iCRC (or that one of them lacks)."""
    diff = [i for i, (x, y) in enumerate(zip(a, b))
            if len(x) != len(y) or x[:34] != y[:34] or x[36:-4] != y[36:-4]]
    return diff + list(range(min(len(a), len(b)), max(len(a), len(b))))


def case_udp_sport(env):
    """--udp-sport qpn --qpn-base 0x45,0x35, every profile: each frame's UDP
    source port is the low 16 bits of the QP that sends it (a request: the
    requester's QP; an ACK, NAK or READ response: the responder's; rc: each
    host's own), read from the bytes; the iCRC (computed here), the IPv4 and
    UDP checksums are right and ornic-decode agrees. Only the wire changes:
    the run with the default ports has the same summary and the same frames
    but for the source port and the iCRC, its ports 0xC000 + path. --udp-sport
    N puts N on every frame; the rc profile sends SEND Only WQEs of 1-4 bytes."""
    need(env.decoder)
    qpns = (QPN_A, QPN_B)
    common = ["--qpn-base", f"{QPN_A:#x},{QPN_B:#x}", "--qps", 2, "--wqes", 3,
              "--wqe-size", "64K", "--pmtu", 1024, "--loss", 0.01, "--seed", 5]
    for profile, caps in env.profiles().items():
        if "two-hosts" in caps:
            runs = [["--rc-ops", "send,write,read,write_imm,send_imm"]]
        else:
            runs = [["--op", op] for op in (["write", "read"] if "read" in caps else ["write"])]
        for extra in runs:
            name = f"{profile}-{extra[1].replace(',', '-')[:10]}"
            opts = ["--profile", profile] + common + extra
            s, _ = env.run(name + "-qpn.pcap", "--udp-sport", "qpn", *opts)
            ref, _ = env.run(name + "-path.pcap", *opts)
            frames = raw_frames(env.path(name + "-qpn.pcap"))
            bad = wire_faults(frames, lambda src, q: sender_qpn(src, q, qpns) & 0xFFFF)
            check(frames and not bad, f"{name}: {len(frames)} frames, each from the port of its "
                  f"sending QP, iCRC and checksums right (wrong: {bad[:3]})")
            ports = {struct.unpack_from(">H", f, 34)[0] for f in frames}
            check(ports == {0x45, 0x46, 0x35, 0x36}, f"{name}: ports {sorted(ports)}: 69, 70 "
                  "from host A's QPs 0x45, 0x46 and 53, 54 from host B's 0x35, 0x36")
            pkts = env.decode(name + "-qpn.pcap")
            check(len(pkts) == len(frames) and all(p["icrc"]["ok"] and not p.get("error")
                                                   for p in pkts),
                  f"{name}: ornic-decode reads {len(pkts)} frames, icrc=ok on each")
            check(s is not None and s == ref, f"{name}: the same summary as with the default ports")
            old = raw_frames(env.path(name + "-path.pcap"))
            diff = same_but_port_and_icrc(frames, old)
            check(not diff, f"{name}: the same {len(old)} frames but for the source port and iCRC "
                  f"(differ: {diff[:5]})")
            paths = {struct.unpack_from(">H", f, 34)[0] - 0xC000 for f in old}
            check(paths <= set(range(4)), f"default ports: 0xC000 + path (paths {sorted(paths)})")
    s, _ = env.run("fixed.pcap", "--udp-sport", 4791, *common)
    frames = raw_frames(env.path("fixed.pcap"))
    bad = wire_faults(frames, lambda src, q: 4791)
    check(frames and not bad, f"--udp-sport 4791: every one of {len(frames)} frames from port "
          f"4791, iCRC right (wrong: {bad[:3]})")
    for size in range(1, 5):
        name = f"send{size}.pcap"
        s, _ = env.run(name, "--profile", "rc", "--rc-ops", "send", "--wqe-size", size,
                       "--wqes", 4, "--loss", 0, "--udp-sport", "qpn",
                       "--qpn-base", f"{QPN_A:#x},{QPN_B:#x}")
        reqs = [p for p in env.decode(name) if is_request(p)]
        check(len(reqs) == 8 and all(p["bth"]["opcode"] == 0x04 and p["payload_len"] == size and
                                     p["bth"]["padcnt"] == -size % 4 and p["icrc"]["ok"]
                                     for p in reqs),
              f"{name}: 8 RC SEND Only of {size} byte(s), PadCnt {-size % 4}, iCRC ok")
        check(s["wqes_verified"] == s["wqes_total"] == 8, f"{name}: 8 WQEs verified")
        bad = wire_faults(raw_frames(env.path(name)), lambda src, q: sender_qpn(src, q, qpns))
        check(not bad, f"{name}: host A's frames from port 69, host B's from 53 (wrong: {bad[:3]})")
    for opts, what in ((["--udp-sport", 0], "port number 1-65535"),
                       (["--qpn-base", "1,0x200"], "two QP numbers from 2"),
                       (["--udp-sport", "qpn", "--qpn-base", "0xffff,0x200", "--qps", 2],
                        "UDP port 0")):
        _, p = env.run("refused.pcap", *opts, rc=2, json_out=False)
        check(what in p.stderr and not os.path.exists(env.path("refused.pcap")),
              f"{' '.join(map(str, opts))}: refused, saying '{what}' ({p.stderr.strip()})")


if __name__ == "__main__":
    sys.exit(main(globals()))
