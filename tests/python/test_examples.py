# SPDX-License-Identifier: MIT
"""docs/PROTOCOL.md section 6 built with ornicproto.scapy: every worked example, crafted from the
values its text gives, must be byte for byte the frame ornic-examples --pcap writes; dissected,
it must rebuild to the same bytes and summarise as ornic-decode prints it."""
import os
import re
import tempfile
import unittest

from helpers import ROOT, decode_text, from_scratch, run

from scapy.compat import raw
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.utils import rdpcap

from ornicproto.scapy import AETH, BTH, CNP, NAKETH, OACKETH, OFFETH, RETH, ImmDt, icrc_ok

# Section 6.0: the QP both ends of examples 6.1-6.10 use.
REQ_MAC, RSP_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02"
REQ_IP, RSP_IP = "10.0.0.1", "10.0.0.2"
QP_REQ, QP_RSP = 0x000011, 0x000012
RKEY_W, RKEY_R = 0x1234ABCD, 0x5678EF01


def wqe(offset, n):
    """Byte j of every WQE (and of the READ's remote buffer) is j mod 251 (6.1)."""
    return bytes((offset + i) % 251 for i in range(n))


def to_responder(ip_id, sport):
    return (Ether(dst=RSP_MAC, src=REQ_MAC) / IP(src=REQ_IP, dst=RSP_IP, tos=0x6A, id=ip_id, flags="DF")
            / UDP(sport=sport))


def to_requester(ip_id, sport):
    return (Ether(dst=REQ_MAC, src=RSP_MAC) / IP(src=RSP_IP, dst=REQ_IP, tos=0x6A, id=ip_id, flags="DF")
            / UDP(sport=sport))


def wqe1(opcode, i, **bth):
    """Packet i of 6.1's WQE: 1001 bytes to 0x00007F3A12340000, PMTU 256, Start_PSN 0xFFFFFE."""
    off = 256 * i
    b = BTH(opcode=opcode, destqp=QP_RSP, psn=(0xFFFFFE + i) & 0xFFFFFF, **bth)
    if opcode == 0xC0:
        b = b / RETH(va=0x00007F3A12340000 + off, rkey=RKEY_W, dmalen=1001) / OFFETH(offset=off)
    return b / wqe(off, min(256, 1001 - off))


EXAMPLES = {
    "fspot-ipv4": lambda: to_responder(0x0001, 0xC001) / wqe1(0xC0, 2),                        # 6.1
    "spot-ipv4": lambda: to_responder(0x0002, 0xC002) / wqe1(0xC1, 1),                         # 6.2
    "last-ipv4": lambda: to_responder(0x0003, 0xC003) / wqe1(0xC2, 3, ackreq=1),              # 6.3, PadCnt 3
    "last-addr-imm-ipv6": lambda: (                                                            # 6.4
        Ether(dst=RSP_MAC, src=REQ_MAC) / IPv6(src="fd00::1", dst="fd00::2", tc=0x6A, fl=0x12345, hlim=64)
        / UDP(sport=0xC004) / BTH(opcode="ORNIC_OOO_WRITE_LAST_WITH_ADDRESS_IMMEDIATE", se=1, destqp=QP_RSP, psn=2)
        / RETH(va=0x00007F3A12350000, rkey=RKEY_W, dmalen=64) / OFFETH(offset=0) / ImmDt(data=0xDEADBEEF)
        / wqe(0, 64)),
    "read-req-ipv4": lambda: (to_responder(0x0005, 0xC005) / BTH(opcode=0xC6, destqp=QP_RSP, psn=3)   # 6.5
                              / RETH(va=0x00007F3A12360000, rkey=RKEY_R, dmalen=602)),
    "read-resp-last-ipv4": lambda: (to_requester(0x0101, 0xC101) / BTH(opcode=0xC8, destqp=QP_REQ, psn=5)  # 6.6
                                    / AETH(syndrome=0x1F, msn=3) / wqe(512, 90)),
    "ack-addr-cached-ipv4": lambda: (to_requester(0x0102, 0xC102) / BTH(opcode="ORNIC_ACK", destqp=QP_REQ,  # 6.7
                                                                        psn=0x10)
                                     / AETH(syndrome=0x1F, msn=3) / OACKETH(flags="ADDR_CACHED", count=16)),
    "nak-1block-ipv4": lambda: (to_requester(0x0103, 0xC103) / BTH(opcode="ORNIC_NAK", destqp=QP_REQ, psn=0x48)  # 6.8
                                / AETH(syndrome=0x60, msn=4)
                                / NAKETH.from_psns(0x48, set(range(0x46, 0x52)) - {0x48, 0x4B}, trigger=0x51,
                                                   reason=3)),
    "nak-3blocks-ipv4": lambda: (to_requester(0x0104, 0xC104) / BTH(opcode=0xCA, destqp=QP_REQ, psn=0x60)   # 6.9
                                 / AETH(syndrome=0x60, msn=5)
                                 / NAKETH(reason=1, trigger_psn=0x81, limit_psn=0x61, blocks=[0xFF7C, 0xFFDF, 0x002B])),
    "nak-all-ones-ipv4": lambda: (to_requester(0x0105, 0xC105) / BTH(opcode=0xCA, destqp=QP_REQ, psn=0xFFFFF0)  # 6.10
                                  / AETH(syndrome=0x60, msn=0x123)
                                  / NAKETH(reason=2, trigger_psn=0x2F, limit_psn=0x2F, blocks=[0xFFFF] * 4)),
    "rc-write-first-vlan": lambda: (                                                            # 6.11
        Ether(dst=RSP_MAC, src=REQ_MAC) / Dot1Q(prio=3, vlan=100)
        / IP(src=REQ_IP, dst=RSP_IP, tos=0x6A, id=0x0010, flags="DF") / UDP(sport=0xC010)
        / BTH(opcode="RC_RDMA_WRITE_FIRST", destqp=QP_RSP, psn=0x1000)
        / RETH(va=0x00007F3A12370000, rkey=RKEY_W, dmalen=1024) / wqe(0, 256)),
    "cnp-connectx4": lambda: (                                                                  # 6.12
        Ether(dst="e4:1d:2d:ab:2b:c2", src="7c:fe:90:64:3b:32")
        / IP(src="10.0.17.1", dst="10.0.18.1", tos=0xC2, id=0x718C, flags="DF") / UDP(sport=0)
        / BTH(opcode="CNP", becn=1, destqp=0x000118, psn=0) / CNP()),
    "uc-send-only-scapy": lambda: (                                                             # 6.13
        Ether(dst="24:8a:07:a8:fa:22", src="24:8a:07:a8:fa:22")
        / IP(src="192.168.0.7", dst="192.168.0.7", tos=0x01, id=0x0478, flags="DF") / UDP(sport=0xC000, chksum=0xACA2)
        / BTH(opcode="UC_SEND_ONLY", m=1, destqp=0x0000D3, psn=0xCF1710)
        / bytes.fromhex("4630818be28935d90e9a95505401be885e50")),
}


def example_names():
    """The NAME list of ornic-examples --help, in document order."""
    text = run("ornic-examples", "--help")
    block = text.split("NAME is one of:\n", 1)[1]
    return [line.strip() for line in block.splitlines() if line.startswith("  ")]


def doc_frames():
    """name -> bytes of every ```hex name=...``` block of docs/PROTOCOL.md."""
    with open(os.path.join(ROOT, "docs", "PROTOCOL.md"), encoding="utf-8") as f:
        text = f.read()
    out = {}
    for name, body in re.findall(r"```hex name=(\S+)\n(.*?)```", text, re.S):
        out[name] = bytes(int(t, 16) for line in body.splitlines() for t in line.split()[1:])
    return out


class SectionSixExamples(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.names = example_names()
        with tempfile.TemporaryDirectory() as tmp:
            pcap = os.path.join(tmp, "examples.pcap")
            run("ornic-examples", "--pcap", pcap)
            cls.frames = dict(zip(cls.names, (raw(p) for p in rdpcap(pcap))))
            cls.lines = dict(zip(cls.names, decode_text(pcap)))

    def test_every_example_has_a_builder(self):
        self.assertEqual(sorted(self.names), sorted(EXAMPLES))
        self.assertEqual(len(self.frames), len(self.names))

    def test_built_equals_ornic_examples(self):
        for name in self.names:
            with self.subTest(name):
                self.assertEqual(raw(EXAMPLES[name]()).hex(" "), self.frames[name].hex(" "))

    def test_built_equals_protocol_md(self):
        doc = doc_frames()
        self.assertEqual(sorted(doc), sorted(self.names))
        for name in self.names:
            with self.subTest(name):
                self.assertEqual(raw(EXAMPLES[name]()), doc[name])

    def test_dissect_rebuild_and_check(self):
        for name in self.names:
            with self.subTest(name):
                pkt = Ether(self.frames[name])
                self.assertTrue(icrc_ok(pkt))
                self.assertEqual(raw(pkt), self.frames[name])
                self.assertEqual(raw(from_scratch(pkt)), self.frames[name])

    def test_summary_equals_ornic_decode(self):
        for name in self.names:
            with self.subTest(name):
                self.assertEqual(Ether(self.frames[name])[BTH].mysummary(), self.lines[name])
                self.assertEqual(EXAMPLES[name]()[BTH].mysummary(), self.lines[name])  # built, not dissected


if __name__ == "__main__":
    unittest.main()
