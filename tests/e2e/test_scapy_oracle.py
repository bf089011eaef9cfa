#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Scapy as an independent oracle for libornicproto.

(a) Scapy -> library: frames built by Scapy's RoCE layer (scapy.contrib.roce
    BTH/AETH/CNP/GRH, extension headers as Raw bytes laid out from docs/IBA_NOTES.md),
    every IBA opcode and every ORNIC opcode (layouts from docs/IBA_NOTES.md and
    docs/PROTOCOL.md 3.2, not from the library), payload lengths 0..9, IPv4 with and without options,
    VLAN, random field values, are written to a pcap with wrpcap, read back with
    rdpcap and decoded by the library through ornic-test-icrc: every field must
    come back and the iCRC must verify. Scapy 2.5 computes the iCRC for IPv4
    only; IPv6 and RoCEv1 (GRH) frames carry the iCRC of a second implementation
    (e2e_common.ref_icrc, zlib.crc32 over the docs/IBA_NOTES.md masked pseudo-header),
    which is itself checked against Scapy on every IPv4 frame and against the
    two real ConnectX RoCEv1 captures of Scapy's roce.uts.
(b) library -> Scapy: the library encodes frames from random values; Scapy
    builds the same frame from the same values; the bytes must be identical
    (IP checksum, lengths, PadCnt, IPv6 UDP checksum and iCRC included).

(c) PAUSE and PFC (MAC Control, docs/PROTOCOL.md 2.9): Scapy's
    MACControlPause and MACControlClassBasedFlowControl (scapy.contrib.mac_control)
    with random addresses, vectors (reserved bits included) and times; the
    library's ornic_pause_encode of the same values must give the same 60 bytes,
    and ornic_pause_decode of Scapy's bytes the same values. Skipped, and said,
    when this Scapy has no mac_control layer.

Also: the library's opcode short names equal Scapy's for every opcode Scapy
knows. Prints 'N passed, N failed'; exits 1 on any failure."""
import argparse
import json
import logging
import os
import random
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from e2e_common import (HDR_BIT, JSON_KEY, Helper, Results, dc_len, header_json_matches, layout,  # noqa: E402
                        pack_header, random_header, ref_icrc, spec_tokens)
from scapy.all import Dot1Q, Ether, IP, IPOption, IPv6, Raw, UDP, rdpcap, wrpcap  # noqa: E402
from scapy.contrib import roce  # noqa: E402
from scapy.contrib.roce import AETH, BTH, GRH, cnp  # noqa: E402

# Two real ConnectX RoCEv1 frames from secdev/scapy test/contrib/roce.uts
# (commit a7fbb7cc), as hex dumps without offsets.
UTS_ROCEV1 = ["""
7c fe 90 75 3c d8 7c fe 90 75 3c d8 89 15 60 20
00 00 00 28 1b 40 00 00 00 00 00 00 00 00 00 00
ff ff 0f 00 00 02 00 00 00 00 00 00 00 00 00 00
ff ff 0f 00 00 02 0a 70 ff ff 00 00 01 0a 80 a7
88 bc 00 00 55 d4 c0 72 60 00 00 00 47 b3 00 00
00 05 00 00 00 00 01 00 00 00 e3 d8 56 bb
""", """
7c fe 90 75 3c d8 7c fe 90 75 3c d8 89 15 60 20
00 00 00 14 1b 40 00 00 00 00 00 00 00 00 00 00
ff ff 0f 00 00 02 00 00 00 00 00 00 00 00 00 00
ff ff 0f 00 00 02 11 40 ff ff 00 00 01 09 00 a7
88 c0 00 00 00 05 25 f0 c0 38
"""]
# The ConnectX-4 Lx CNP from the same file (iCRC wire bytes 82 fd 00 2a).
UTS_CNP = """
e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2
003c 718c 4000 4011 9161 0a00 1101 0a00
1201 0000 12b7 0028 0000 8100 ffff 4000
0118 0000 0000 0000 0000 0000 0000 0000
0000 0000 0000 82fd 002a
"""


def unhexdump(s):
    return bytes.fromhex("".join(s.split()))


def all_layouts():
    """Every opcode with a layout: docs/IBA_NOTES.md for the standard ones, PROTOCOL.md
    section 3.2 for ORNIC's (both independent of the library's table)."""
    return {op: layout(op) for op in range(256) if layout(op)}


def with_ref_icrc(pkt, l3_off, kind):
    """Bytes of a Scapy packet whose iCRC Scapy cannot compute (IPv6, GRH):
    build once, compute the reference iCRC, store it in the BTH (an FCSField
    holding the wire bytes big-endian) and build again, so that Scapy's IPv6
    UDP checksum covers the final iCRC bytes."""
    pkt[BTH].icrc = 0
    wire = ref_icrc(bytes(pkt)[l3_off:], kind)
    pkt[BTH].icrc = int.from_bytes(wire, "big")
    b = bytes(pkt)
    assert b[-4:] == wire
    return b


def rand_bth(rng, opcode, pad, icrc=None, se=None):
    r = rng.getrandbits
    return BTH(opcode=opcode, solicited=r(1) if se is None else se, migreq=r(1), padcount=pad, version=r(4), pkey=r(16),
               fecn=r(1), becn=r(1), resv6=r(6), dqpn=r(24), ackreq=r(1), resv7=r(7), psn=r(24),
               icrc=icrc)


def bth_matches(b, got):
    return (got is not None and got["opcode"] == b.opcode and got["se"] == b.solicited
            and got["m"] == b.migreq and got["padcnt"] == b.padcount and got["tver"] == b.version
            and got["pkey"] == b.pkey and got["fecn"] == b.fecn and got["becn"] == b.becn
            and got["resv6"] == b.resv6 and got["destqp"] == b.dqpn and got["a"] == b.ackreq
            and got["resv7"] == b.resv7 and got["psn"] == b.psn)


def ipv4_options(rng):
    """Random IPv4 options (None = no options): Router Alert (the IHL 6 case of
    docs/IBA_NOTES.md section 5), NOP padding, a 40-byte block (IHL 15)."""
    choice = rng.randrange(5)
    if choice == 0:
        return None
    if choice == 1:
        return [IPOption(b"\x94\x04\x00\x00")]                   # Router Alert, IHL 6
    if choice == 2:
        return [IPOption(b"\x01\x01\x01\x00")]                   # NOP NOP NOP EOL
    if choice == 3:
        n = rng.choice([4, 8, 12, 20, 36])
        return [IPOption(b"\x01" * (n - 1) + b"\x00")]
    return [IPOption(b"\x01" * 39 + b"\x00")]                    # IHL 15, the maximum


# ------------------------------------------------------------------ part (a)

def build_scapy_frames(rng, layouts):
    """Returns [(frame bytes, expectation dict)]."""
    frames = []
    r = rng.getrandbits
    encaps = ["ip4", "ip4opt", "ip4vlan", "ip4csum", "ip6", "grh"]
    for op, (hdrs, payload_ok) in sorted(layouts.items()):
        lengths = range(10) if payload_ok else [0]
        for enc in encaps:
            for paylen in lengths:
                vals = {h: random_header(h, rng) for h in hdrs}
                ext = b"".join(pack_header(h, vals[h]) for h in hdrs)
                payload = bytes(r(8) for _ in range(paylen))
                pad = (-(len(ext) + paylen)) % 4
                se = r(1)
                # the DC bytes (e2e_common.dc_len), random: ornic_frame keeps no value of them
                dc = bytes(r(8) for _ in range(dc_len(op, se)))
                body = dc + ext + payload + b"\x00" * pad
                if op == 0x11 and enc == "ip4" and paylen == 0:
                    # Scapy's own AETH layer for the RC Acknowledge
                    bth = rand_bth(rng, op, pad)
                    upper = bth / AETH(syndrome=vals["AETH"]["syndrome"], msn=vals["AETH"]["msn"])
                elif op == 0x81 and enc == "ip4":
                    # Scapy's cnp() helper (BECN set, 16 zero bytes)
                    upper = cnp(r(24))
                    bth = upper
                    vals = {"CNP": "00" * 16}
                else:
                    bth = rand_bth(rng, op, pad, se=se)
                    upper = bth / Raw(body) if body else bth
                eth = Ether(dst="02:%02x:%02x:00:00:02" % (r(8), r(8)), src="02:00:00:%02x:%02x:01" % (r(8), r(8)))
                opts = None
                if enc.startswith("ip4"):
                    opts = ipv4_options(rng) if enc == "ip4opt" else None
                    ip = IP(src="10.%d.%d.%d" % (r(8), r(8), r(8)), dst="192.168.%d.%d" % (r(8), r(8)),
                            tos=r(8), ttl=r(8), id=r(16), flags=rng.choice([0, 2, 4, 6]), options=opts or [])
                    udp = UDP(sport=r(16), dport=4791, chksum=None if enc == "ip4csum" else 0)
                    l2 = eth / Dot1Q(prio=r(3), id=r(1), vlan=r(12)) if enc == "ip4vlan" else eth
                    pkt = l2 / ip / udp / upper
                    b = bytes(pkt)            # Scapy computes the iCRC
                    kind, l3_off = 4, 18 if enc == "ip4vlan" else 14
                elif enc == "ip6":
                    pkt = eth / IPv6(tc=0xA6, fl=0x12345, hlim=9, src="fd00::%x" % op, dst="fd00::1:%x" % paylen) \
                        / UDP(sport=0xC000 | op) / upper
                    b = with_ref_icrc(pkt, 14, 6)
                    kind, l3_off = 6, 14
                else:  # RoCEv1: Ethernet 0x8915 + GRH
                    pkt = eth / GRH(tclass=r(8), flowlabel=r(20), paylen=12 + len(body) + 4, nexthdr=0x1B,
                                    hoplmt=r(8), sgid=r(128), dgid=r(128)) / upper
                    b = with_ref_icrc(pkt, 14, 1)
                    kind, l3_off = 1, 14
                frames.append((b, dict(op=op, enc=enc, paylen=paylen, hdrs=hdrs, vals=vals, payload=payload,
                                       bth=bth, kind=kind, l3_off=l3_off,
                                       optlen=sum(len(bytes(o)) for o in opts) if opts else 0)))
    return frames


def part_a(res, helper, rng, layouts, workdir):
    frames = build_scapy_frames(rng, layouts)
    pcap = os.path.join(workdir, "scapy_frames.pcap")
    wrpcap(pcap, [Ether(b) for b, _ in frames])
    back = [bytes(p) for p in rdpcap(pcap)]
    res.check(len(back) == len(frames), f"pcap holds {len(back)} of {len(frames)} frames")
    ip4_ref_checked = 0
    for (orig, x), b in zip(frames, back):
        what = f"(a) opcode 0x{x['op']:02x} {x['enc']} payload {x['paylen']}"
        res.check(b == orig, f"{what}: pcap round trip changed the bytes")
        if x["kind"] == 4:
            # the reference iCRC agrees with Scapy's
            ip4_ref_checked += res.check(ref_icrc(b[x["l3_off"]:], 4) == b[-4:],
                                         f"{what}: reference iCRC {ref_icrc(b[x['l3_off']:], 4).hex()} "
                                         f"!= Scapy {b[-4:].hex()}")
        d = helper.decode(b)
        if not res.check(d["rc"] == "ORNIC_OK", f"{what}: decode {d['rc']}"):
            continue
        res.check(d["verify"] == "ORNIC_OK", f"{what}: iCRC verify {d['verify']} (wire {b[-4:].hex()})")
        res.check(d["icrc"] == int.from_bytes(b[-4:], "little"), f"{what}: icrc field")
        res.check(d["icrc_computed"] == int.from_bytes(b[-4:], "little"), f"{what}: icrc_computed")
        res.check(bth_matches(x["bth"], d.get("bth")), f"{what}: BTH {d.get('bth')}")
        for h in x["hdrs"]:
            res.check(header_json_matches(h, x["vals"][h], d.get(JSON_KEY[h])),
                      f"{what}: {h} {x['vals'][h]} != {d.get(JSON_KEY[h])}")
        res.check(d["payload"] == x["payload"].hex(), f"{what}: payload")
        res.check(d["l3"] == x["kind"], f"{what}: l3 {d['l3']}")
        if x["kind"] == 4:
            res.check(d["ip"]["hdr_len"] == 20 + x["optlen"], f"{what}: IPv4 header length with options")
    res.check(ip4_ref_checked > 1000, f"reference iCRC checked against Scapy on {ip4_ref_checked} frames")
    print(f"(a) {len(frames)} Scapy-built frames decoded", flush=True)

    # wrong iCRCs and covered bytes are caught
    for b, x in frames[::7]:
        what = f"(a-neg) opcode 0x{x['op']:02x} {x['enc']}"
        bad = bytearray(b)
        bad[-1] ^= 0x40
        d = helper.decode(bytes(bad))
        res.check(d["rc"] == "ORNIC_OK" and d["verify"] == "ORNIC_ERR_BAD_ICRC", f"{what}: flipped iCRC bit: {d['verify']}")
        bad = bytearray(b)
        bth_off = d["bth_off"]
        bad[bth_off + 11] ^= 0x01  # PSN low bit: covered
        d = helper.decode(bytes(bad))
        res.check(d["verify"] == "ORNIC_ERR_BAD_ICRC", f"{what}: flipped PSN bit: {d['verify']}")

    # Scapy's roce.uts captures
    for i, h in enumerate(UTS_ROCEV1):
        b = unhexdump(h)
        res.check(ref_icrc(b[14:], 1) == b[-4:], f"uts RoCEv1 #{i}: reference iCRC")
        d = helper.decode(b)
        res.check(d["rc"] == "ORNIC_OK" and d["verify"] == "ORNIC_OK", f"uts RoCEv1 #{i}: {d['rc']} {d['verify']}")
    b = unhexdump(UTS_CNP)
    res.check(ref_icrc(b[14:], 4) == b[-4:] == bytes.fromhex("82fd002a"), "uts CNP: reference iCRC")
    d = helper.decode(b)
    res.check(d["rc"] == "ORNIC_OK" and d["verify"] == "ORNIC_OK" and d["bth"]["becn"] == 1, f"uts CNP: {d}")


# ------------------------------------------------------------------ part (b)

def part_b(res, helper, rng, layouts):
    r = rng.getrandbits
    encaps = [("eth", 4, None), ("eth", 4, 0x8100), ("eth", 4, 0x88A8), ("eth", 6, None),
              ("eth", 6, 0x8100), ("raw", 4, None), ("raw", 6, None), ("grh", 6, None)]
    count = 0
    for op, (hdrs, payload_ok) in sorted(layouts.items()):
        for link, ipv, tpid in encaps:
            if not payload_ok:
                lengths = [0]
            elif link == "eth" and ipv == 4 and tpid is None:
                lengths = range(10)
            else:
                lengths = rng.sample(range(10), 3) + [rng.randrange(10, 300)]
            for paylen in lengths:
                vals = {h: random_header(h, rng) for h in hdrs}
                ext = b"".join(pack_header(h, vals[h]) for h in hdrs)
                payload = bytes(r(8) for _ in range(paylen))
                pad = (-(len(ext) + paylen)) % 4
                f = dict(se=r(1), m=r(1), tver=r(4), pkey=r(16), fecn=r(1), becn=r(1), resv6=r(6),
                         destqp=r(24), a=r(1), resv7=r(7), psn=r(24))
                dmac, smac = bytes(r(8) for _ in range(6)), bytes(r(8) for _ in range(6))
                tos, ttl, sport, tci = r(8), r(8), r(16), r(16)
                flow, ipid, frag = r(20), r(16), rng.choice([0, 0x4000, 0x8000, 0xC000])
                src = bytes(r(8) for _ in range(4 if ipv == 4 and link != "grh" else 16))
                dst = bytes(r(8) for _ in range(len(src)))
                toks = [f"link={link}", f"ipv={ipv}", f"opcode={op}", f"dmac={dmac.hex()}", f"smac={smac.hex()}",
                        f"tos={tos}", f"ttl={ttl}", f"sport={sport}", f"src={src.hex()}", f"dst={dst.hex()}",
                        f"flow={flow}", f"id={ipid}", f"frag={frag}"] + [f"{k}={v}" for k, v in f.items()]
                if tpid:
                    toks += [f"vlan={tci}", f"tpid={tpid}"]
                if paylen:
                    toks.append(f"payload={payload.hex()}")
                for h in hdrs:
                    toks += spec_tokens(h, vals[h])
                got = helper.encode(toks)

                # the same frame, built by Scapy from the same values
                bth = BTH(opcode=op, solicited=f["se"], migreq=f["m"], padcount=pad, version=f["tver"],
                          pkey=f["pkey"], fecn=f["fecn"], becn=f["becn"], resv6=f["resv6"], dqpn=f["destqp"],
                          ackreq=f["a"], resv7=f["resv7"], psn=f["psn"])
                # the library writes the DC bytes (e2e_common.dc_len) as zeros
                body = bytes(dc_len(op, f["se"])) + ext + payload + b"\x00" * pad
                upper = bth / Raw(body) if body else bth
                eth = Ether(dst=dmac, src=smac)
                if tpid:
                    eth = Ether(dst=dmac, src=smac, type=tpid) / Dot1Q(prio=tci >> 13, id=(tci >> 12) & 1, vlan=tci & 0xFFF)
                if link == "grh":
                    pkt = GRH(tclass=tos, flowlabel=flow, paylen=12 + len(body) + 4, nexthdr=0x1B, hoplmt=ttl,
                              sgid=int.from_bytes(src, "big"), dgid=int.from_bytes(dst, "big")) / upper
                    want = with_ref_icrc(pkt, 0, 1)
                elif ipv == 4:
                    l3 = IP(src=".".join(map(str, src)), dst=".".join(map(str, dst)), tos=tos, ttl=ttl, id=ipid,
                            flags=frag >> 13, frag=frag & 0x1FFF) / UDP(sport=sport, dport=4791, chksum=0) / upper
                    want = bytes(eth / l3 if link == "eth" else l3)  # Scapy computes the iCRC
                else:
                    l3 = IPv6(tc=tos, fl=flow, hlim=ttl, src=socket.inet_ntop(socket.AF_INET6, src),
                              dst=socket.inet_ntop(socket.AF_INET6, dst)) / UDP(sport=sport, dport=4791) / upper
                    want = with_ref_icrc(eth / l3 if link == "eth" else l3, 0 if link == "raw" else (18 if tpid else 14), 6)
                what = f"(b) opcode 0x{op:02x} {link}/IPv{ipv}{'/tag %04x' % tpid if tpid else ''} payload {paylen}"
                if not res.check(got == want, f"{what}: library and Scapy differ"):
                    diff = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), None)
                    print(f"      first difference at byte {diff}; lengths {len(got)} / {len(want)}\n"
                          f"      library {got.hex()}\n      scapy   {want.hex()}")
                # and the library decodes its own frame back
                d = helper.decode(got, link)
                res.check(d["rc"] == "ORNIC_OK" and d["verify"] == "ORNIC_OK", f"{what}: self decode {d['rc']}")
                count += 1
    print(f"(b) {count} library-encoded frames compared with Scapy", flush=True)


def pause_frames(res, helper, rng, count=400):
    """(c) PAUSE/PFC frames: Scapy's bytes == ornic_pause_encode's; decode gives the values back."""
    try:
        from scapy.contrib.mac_control import MACControlClassBasedFlowControl, MACControlPause
    except ImportError:
        print("(c) skipped: this Scapy has no scapy.contrib.mac_control", flush=True)
        return
    reserved = "0180c2000001"
    for n in range(count):
        src = bytes([rng.randrange(256) for _ in range(6)])
        dst = bytes([rng.randrange(256) for _ in range(6)]) if rng.random() < 0.3 else None
        quanta = [rng.choice((0, 0xffff, rng.randrange(65536))) for _ in range(8)]
        eth = Ether(src=src.hex(":"), dst=(dst or bytes.fromhex(reserved)).hex(":"))
        toks = [f"src={src.hex()}"] + ([f"dst={dst.hex()}"] if dst else [])
        if n % 2:
            enable = rng.randrange(65536) if rng.random() < 0.2 else rng.randrange(256)
            bits = {f"c{i}_enabled": enable >> i & 1 for i in range(8)}
            times = {f"c{i}_pause_time": q for i, q in enumerate(quanta)}
            frame = bytes(eth / MACControlClassBasedFlowControl(_reserved=enable >> 8, **bits, **times))
            toks += [f"opcode={0x0101}", f"enable={enable}"] + [f"q{i}={q}" for i, q in enumerate(quanta)]
            want = {"opcode": 0x0101, "enable": enable, "quanta": quanta}
        else:
            frame = bytes(eth / MACControlPause(pause_time=quanta[0]))
            toks += [f"opcode={0x0001}", f"q0={quanta[0]}"]
            want = {"opcode": 0x0001, "enable": 0, "quanta": quanta[:1] + [0] * 7}
        out = helper.call("pause " + " ".join(toks))
        what = f"pause frame {n} ({' '.join(toks)})"
        res.check(len(frame) == 60, f"{what}: Scapy built {len(frame)} bytes, not 60")
        res.check(out == "ok " + frame.hex(), f"{what}: library {out[3:]}, Scapy {frame.hex()}")
        d = json.loads(helper.call("pausedec " + frame.hex()))
        want.update(rc="ORNIC_OK", src=src.hex(), dst=(dst.hex() if dst else reserved))
        res.check(d == want, f"{what}: decode of Scapy's frame {d}, want {want}")
    print(f"(c) {count} PAUSE/PFC frames compared with Scapy", flush=True)


def opcode_names(res, helper_ops):
    """The library's short names are Scapy's for every opcode Scapy knows."""
    for op, name in sorted(roce._bth_opcodes.items()):
        got = helper_ops.get(f"0x{op:02x}")
        res.check(got is not None and got["short"] == name,
                  f"opcode 0x{op:02x}: Scapy {name}, library {got and got['short']}")
    # the library's table has exactly the layouts of docs/IBA_NOTES.md + PROTOCOL.md 3.2
    for op in range(256):
        lay, v = layout(op), helper_ops.get(f"0x{op:02x}")
        if lay is None:
            res.check(v is None, f"opcode 0x{op:02x}: library has a layout ({v}), IBA notes/PROTOCOL.md none")
            continue
        want = sum(HDR_BIT[h] for h in lay[0])
        res.check(v is not None and v["hdrs"] == want and bool(v["flags"] & 1) == lay[1],
                  f"opcode 0x{op:02x}: library {v}, IBA notes/PROTOCOL.md {lay}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--helper", required=True, help="path to ornic-test-icrc")
    ap.add_argument("--seed", type=int, default=20240611)
    args = ap.parse_args()
    res = Results("scapy oracle")
    rng = random.Random(args.seed)
    helper = Helper(args.helper)
    ops = helper.opcodes()
    layouts = all_layouts()
    opcode_names(res, ops)
    with tempfile.TemporaryDirectory() as tmp:
        part_a(res, helper, rng, layouts, tmp)
    part_b(res, helper, rng, layouts)
    pause_frames(res, helper, rng)
    helper.close()
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
