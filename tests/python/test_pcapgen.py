# SPDX-License-Identifier: MIT
"""Every frame of every ornic-pcapgen profile (small runs), of a lossy ORNIC run (NAKs) and of an
ORNIC READ run, read with rdpcap and dissected by ornicproto.scapy, must show the fields
ornic-decode --json shows (BTH, every extension header, NAK lost set, payload length, PadCnt,
iCRC value and verdict), summarise as ornic-decode's text line, and rebuild byte for byte both
as dissected and with every automatic field (lengths, checksums, PadCnt, pad, iCRC) left unset."""
import os
import tempfile
import unittest

from helpers import decode_json, decode_text, decoder_view, from_scratch, layers_view, run

from scapy.compat import raw
from scapy.utils import rdpcap

from ornicproto.scapy import BTH, NAKETH, icrc_ok

SMALL = ["--wqes", "2", "--wqe-size", "16K", "--pmtu", "1024", "--seed", "1"]
# (name, options, opcodes the run must contain, so that the comparison covers them)
EXTRA_RUNS = [
    # two packets of 256 dropped: a NAK of 16 blocks (PROTOCOL.md 3.5), then their retransmissions
    ("ornic-loss", ["--profile", "ornic", "--wqes", "1", "--wqe-size", "64K", "--pmtu", "256", "--loss", "0",
                    "--drop", "0:10", "--drop", "0:100", "--seed", "2"], {0xCA, 0xC1}),
    ("ornic-read", ["--profile", "ornic", "--op", "read"] + SMALL, {0xC6, 0xC7, 0xC8}),
    ("rc-immediate", ["--profile", "rc", "--rc-ops", "write_imm,send_imm,read"] + SMALL, {0x03, 0x09, 0x0C}),
]


def profiles():
    """Profile names, the first column of ornic-pcapgen --list-profiles."""
    return [line.split("\t", 1)[0] for line in run("ornic-pcapgen", "--list-profiles").splitlines() if line]


class PcapgenProfiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.runs = [(p, ["--profile", p] + SMALL, set()) for p in profiles()] + EXTRA_RUNS

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def capture(self, name, extra):
        pcap = os.path.join(self.tmp.name, name + ".pcap")
        run("ornic-pcapgen", "-o", pcap, "-q", *extra)
        return pcap, rdpcap(pcap)

    def check_frame(self, pkt, want_json, want_line):
        frame = raw(pkt)
        self.assertIn(BTH, pkt)
        self.assertEqual(layers_view(pkt), decoder_view(want_json))
        self.assertTrue(icrc_ok(pkt))
        self.assertEqual(pkt[BTH].mysummary(), want_line)
        self.assertEqual(raw(from_scratch(pkt)).hex(), frame.hex())

    def test_profiles_listed(self):
        self.assertIn("ornic", [r[0] for r in self.runs])
        self.assertGreaterEqual(len(self.runs), 6)

    def test_every_frame(self):
        for name, extra, must_have in self.runs:
            with self.subTest(run=name):
                pcap, pkts = self.capture(name, extra)
                decoded, lines = decode_json(pcap), decode_text(pcap)
                self.assertEqual(len(pkts), len(decoded))
                self.assertGreater(len(pkts), 10)
                self.assertLessEqual(must_have, {p[BTH].opcode for p in pkts})
                if name == "ornic-loss":
                    self.assertTrue(any(len(p[NAKETH].blocks) > 1 for p in pkts if NAKETH in p))
                for i, pkt in enumerate(pkts):
                    with self.subTest(run=name, frame=i + 1):
                        self.check_frame(pkt, decoded[i], lines[i])


if __name__ == "__main__":
    unittest.main()
