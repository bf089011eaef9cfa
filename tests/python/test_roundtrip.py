# SPDX-License-Identifier: MIT
"""Random field values (seeded: ORNIC_TEST_SEED, default below) through the layers and the C
decoder: frames of every opcode of the table, IPv4 (with and without options), IPv6 and RoCEv1,
with and without a VLAN tag, NAKs of 1-255 blocks around the PSN wrap, random reserved fields
and pad bytes, are built with ornicproto.scapy, written with wrpcap and decoded by
ornic-decode --json. Every value must come back as drawn; PadCnt must be PROTOCOL.md 2.5's and
the iCRC must verify (2.6). The expected values come from the draw, not from the layers."""
import os
import random
import socket
import tempfile
import unittest

from helpers import JSON_KEY, REASONS, decode_json, decode_text, decoder_view, from_scratch, layers_view

from scapy.compat import raw
from scapy.layers.inet import IP, UDP, IPOption_Router_Alert
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.utils import wrpcap

from ornicproto import opcodes
from ornicproto.scapy import BTH, GRH, HEADER_CLASSES, syndrome_name

SEED = int(os.environ.get("ORNIC_TEST_SEED", "17"))
FRAMES = 600
# Field widths of each header (docs/IBA_NOTES.md 3, docs/PROTOCOL.md 3.3-3.4); NAKETH is drawn apart.
WIDTHS = {"RDETH": {"resv": 8, "een": 24}, "DETH": {"qkey": 32, "resv": 8, "srcqp": 24},
          "XRCETH": {"resv": 8, "xrcsrq": 24}, "FETH": {"value": 32},
          "RETH": {"va": 64, "rkey": 32, "dmalen": 32}, "OFFETH": {"offset": 32},
          "ATOMICETH": {"va": 64, "rkey": 32, "swap_add": 64, "compare": 64}, "AETH": {"syndrome": 8, "msn": 24},
          "ATOMICACKETH": {"orig": 64}, "OACKETH": {"flags": 8, "resv": 8, "count": 16},
          "IMMDT": {"data": 32}, "IETH": {"rkey": 32}, "CNP": {}}
SIZES = {"RDETH": 4, "DETH": 8, "XRCETH": 4, "FETH": 4, "RETH": 16, "OFFETH": 4, "ATOMICETH": 28, "AETH": 4,
         "ATOMICACKETH": 8, "OACKETH": 4, "IMMDT": 4, "IETH": 4, "CNP": 16}
OPS = sorted(opcodes.OPCODES) + [0xCA] * 24  # every opcode, and NAKs (ORNIC's one variable layout) often
BTH_WIDTHS = {"se": 1, "m": 1, "tver": 4, "pkey": 16, "fecn": 1, "becn": 1, "resv6": 6, "destqp": 24,
              "ackreq": 1, "resv7": 7}


def psn(rng):
    """A PSN, often at or near the wrap (PROTOCOL.md 1: modulo 2^24)."""
    return rng.choice([0, 0xFFFFFF, 0xFFFFF0 + rng.randrange(16), rng.randrange(32), rng.getrandbits(24)])


def rand_value(rng, bits):
    return rng.choice([0, (1 << bits) - 1, rng.getrandbits(bits), rng.getrandbits(bits)])


def draw_nak(rng, bth_psn):
    """NAKETH values: 1-255 blocks, Base near the wrap, trigger and limit around the bitmap."""
    n = rng.choice([1, 2, 3, 4, 5, 16, rng.randint(1, 255)])
    base = bth_psn if rng.random() < 0.8 else psn(rng)
    blocks = [rng.choice([0, 0xFFFF, 0xFFFE, rng.getrandbits(16)]) for _ in range(n)]
    return {"reason": rng.choice([1, 2, 3, rng.getrandbits(8)]), "resv": rand_value(rng, 8), "base_psn": base,
            "trigger_psn": (base + rng.randint(-3, 16 * n + 3)) & 0xFFFFFF, "blocks": blocks,
            "limit_psn": (base + rng.randint(-3, 16 * n + 20)) & 0xFFFFFF}


def lost_set(nak):
    """PROTOCOL.md 4.4 from the drawn values: Base, then PSNs Base + d, 0 < d < span, bit d clear."""
    n, base = len(nak["blocks"]), nak["base_psn"]
    span = (nak["limit_psn"] - base) & 0xFFFFFF
    span = 1 if span == 0 or span > 0x800000 else min(span, 16 * n)
    clear = [d for d in range(1, span) if not nak["blocks"][d // 16] >> (d % 16) & 1]
    return [(base + d) & 0xFFFFFF for d in [0] + clear]


def expect_header(name, v):
    """What ornic-decode --json prints for a header drawn as v."""
    if name == "NAKETH":
        return {"reason": v["reason"], "reason_name": REASONS.get(v["reason"], "reserved"),
                "trigger_psn": v["trigger_psn"], "nblocks": len(v["blocks"]), "base_psn": v["base_psn"],
                "limit_psn": v["limit_psn"], "blocks": v["blocks"], "missing_psns": lost_set(v)}
    hex16 = {k: "0x%016x" % v[k] for k in ("va", "swap_add", "compare", "orig") if k in v}
    table = {"RDETH": {"een": v.get("een")}, "DETH": {"q_key": v.get("qkey"), "srcqp": v.get("srcqp")},
             "XRCETH": {"xrcsrq": v.get("xrcsrq")}, "FETH": {"value": v.get("value")},
             "RETH": {"va": hex16.get("va"), "r_key": v.get("rkey"), "dmalen": v.get("dmalen")},
             "OFFETH": {"offset": v.get("offset")},
             "ATOMICETH": {"va": hex16.get("va"), "r_key": v.get("rkey"), "swap_add": hex16.get("swap_add"),
                           "compare": hex16.get("compare")},
             "AETH": {"syndrome": v.get("syndrome"), "syndrome_name": syndrome_name(v.get("syndrome", 0)),
                      "msn": v.get("msn")},
             "ATOMICACKETH": {"orig_rdata": hex16.get("orig")},
             "OACKETH": {"flags": v.get("flags"), "addr_cached": bool(v.get("flags", 0) & 1),
                         "wqe_done": bool(v.get("flags", 0) & 2), "count": v.get("count")},
             "IMMDT": v.get("data"), "IETH": v.get("rkey"), "CNP": {}}
    return table[name]


def draw_l3(rng, want):
    """Ethernet [802.1Q] IPv4 (options sometimes) | IPv6 | RoCEv1 GRH, and the expected keys."""
    eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    if rng.random() < 0.2:
        want["vlan"] = rng.randint(1, 4094)
        eth = eth / Dot1Q(prio=rng.randrange(8), vlan=want["vlan"])
    kind = rng.choice(["ipv4", "ipv4", "ipv4", "ipv6", "ipv6", "grh"])
    want["l3"] = kind
    if kind == "grh":
        want.update(src="fe80::1", dst="fe80::%x" % rng.randint(2, 0xFFFF))
        gid = [int.from_bytes(socket.inet_pton(socket.AF_INET6, want[k]), "big") for k in ("src", "dst")]
        return eth / GRH(tclass=rng.getrandbits(8), flowlabel=rng.getrandbits(20), hoplmt=rng.getrandbits(8),
                         sgid=gid[0], dgid=gid[1])
    want["udp_sport"] = rng.getrandbits(16)
    udp = UDP(sport=want["udp_sport"])
    if kind == "ipv6":
        want.update(src="fd00::1", dst="fd00::%x" % rng.randint(2, 0xFFFF))
        return eth / IPv6(src=want["src"], dst=want["dst"], tc=rng.getrandbits(8), fl=rng.getrandbits(20),
                          hlim=rng.getrandbits(8)) / udp
    want.update(src="10.0.0.1", dst="10.%d.%d.%d" % tuple(rng.randrange(256) for _ in range(3)))
    opts = [IPOption_Router_Alert()] if rng.random() < 0.15 else []  # PROTOCOL.md 2.6: covered as they stand
    return eth / IP(src=want["src"], dst=want["dst"], tos=rng.getrandbits(8), ttl=rng.randint(1, 255),
                    id=rng.getrandbits(16), flags=rng.choice(["DF", 0]), options=opts) / udp


def draw_frame(rng, op):
    """(packet, expected decoder_view minus the iCRC value, pad bytes are zero) for opcode op."""
    want = {"error": None}
    pkt = draw_l3(rng, want)
    fields = {k: rand_value(rng, w) for k, w in BTH_WIDTHS.items()}
    fields["psn"] = psn(rng)
    headers, ext_len = [], 0
    for name in opcodes.headers(op):
        v = draw_nak(rng, fields["psn"]) if name == "NAKETH" else {
            k: rand_value(rng, w) for k, w in WIDTHS[name].items()}
        if name == "CNP":
            v["resv"] = bytes(rng.getrandbits(8) for _ in range(16))  # reserved: preserved (D8)
        headers.append(HEADER_CLASSES[name](**v))
        want[JSON_KEY[name]] = expect_header(name, v)
        ext_len += 12 + 2 * len(v["blocks"]) if name == "NAKETH" else SIZES[name]
    payload = bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 2, 3, 5, rng.randrange(700)]))) \
        if opcodes.has_payload(op) else b""
    padcnt = -(ext_len + len(payload)) % 4                      # PROTOCOL.md 2.5
    if opcodes.transport(op) != "ORNIC" and rng.random() < 0.05:
        fields["padcnt"] = padcnt = rng.randrange(4)  # IBA opcodes: a wrong PadCnt decodes (D7; lint L1)
    pad = bytes(rng.getrandbits(8) for _ in range(padcnt)) if rng.random() < 0.1 else None
    bth = BTH(opcode=op, pad=pad, **fields)
    for h in headers:
        bth = bth / h
    want["bth"] = dict(fields, opcode=op, padcnt=padcnt, opcode_name=opcodes.info(op)[0])
    want["payload_len"] = len(payload)
    return pkt / (bth / payload if payload else bth), want, pad is None and "padcnt" not in fields


class RandomRoundTrip(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = random.Random(SEED)
        ops = sorted(opcodes.OPCODES) + [rng.choice(OPS) for _ in range(FRAMES - len(opcodes.OPCODES))]
        cls.drawn = [draw_frame(rng, op) for op in ops]
        cls.frames = [raw(p) for p, _, _ in cls.drawn]
        with tempfile.TemporaryDirectory() as tmp:
            pcap = os.path.join(tmp, "random.pcap")
            wrpcap(pcap, [Ether(f) for f in cls.frames])
            cls.decoded, cls.lines = decode_json(pcap), decode_text(pcap)

    def test_coverage(self):
        self.assertEqual(len(self.decoded), FRAMES)
        ops = {p[BTH].opcode for p, _, _ in self.drawn}
        self.assertEqual(ops, set(opcodes.OPCODES))
        naks = [w["naketh"] for _, w, _ in self.drawn if "naketh" in w]
        self.assertTrue(any(n["nblocks"] > 16 for n in naks))
        self.assertTrue(any(n["base_psn"] > 0xFFFF00 and len(n["missing_psns"]) > 1 and
                            min(n["missing_psns"]) < 0x100 for n in naks), "no lost set across the wrap")

    def test_decoder_reads_what_was_drawn(self):
        for i, (_, want, _) in enumerate(self.drawn):
            with self.subTest(frame=i + 1, opcode=hex(want["bth"]["opcode"])):
                got = decoder_view(self.decoded[i])
                self.assertEqual(got["icrc"], {"value": "0x%08x" % int.from_bytes(self.frames[i][-4:], "little"),
                                               "ok": True})
                del got["icrc"]
                self.assertEqual(got, want)

    def test_layers_read_what_the_decoder_reads(self):
        for i, frame in enumerate(self.frames):
            with self.subTest(frame=i + 1):
                pkt = Ether(frame)
                self.assertEqual(layers_view(pkt), decoder_view(self.decoded[i]))
                self.assertEqual(pkt[BTH].mysummary(), self.lines[i])
                self.assertEqual(raw(pkt), frame)

    def test_rebuild_from_scratch(self):
        for i, (_, _, zero_pad) in enumerate(self.drawn):
            if zero_pad:
                with self.subTest(frame=i + 1):
                    self.assertEqual(raw(from_scratch(Ether(self.frames[i]))), self.frames[i])


if __name__ == "__main__":
    unittest.main()
