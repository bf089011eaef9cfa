# SPDX-License-Identifier: MIT
"""ornicproto.scapy on its own (no programs needed): PadCnt and pad (PROTOCOL.md 2.5), the
iCRC's coverage (2.6) against Scapy's own contrib implementation, UDP length and checksums
(2.1), the NAK bitmap helpers (3.5, 4.4), dissection whichever RoCE module was imported first,
and python/README.md's two offline install recipes, run as written without a network."""
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

from helpers import ROOT, require

from scapy.compat import raw
from scapy.contrib import roce as contrib
from scapy.layers.inet import IP, UDP, IPOption_Router_Alert
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

from ornicproto import icrc
from ornicproto.scapy import AETH, BTH, NAKETH, OACKETH, compute_icrc, icrc_ok, lint

V4 = Ether() / IP(src="10.0.0.1", dst="10.0.0.2", tos=0x6A)
V6 = Ether() / IPv6(src="fd00::1", dst="fd00::2", tc=0x6A, fl=0x12345)


def inet_csum(data):
    data += b"\0" * (len(data) % 2)
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def contrib_icrc(frame):
    """The iCRC scapy.contrib.roce's BTH.compute_icrc gives an Ethernet/IPv4 frame (wire bytes)."""
    ip = IP(frame[14:])
    udp = ip[UDP]
    payload = raw(udp.payload)
    udp.remove_payload()
    udp.add_payload(contrib.BTH(payload))
    return ip[contrib.BTH].compute_icrc(None)


def nak_69():
    """Example 6.9's NAKETH: Base 0x60, trigger 0x81, Limit 0x61, blocks FF7C FFDF 002B."""
    return NAKETH(reason=1, trigger_psn=0x81, base_psn=0x60, limit_psn=0x61, blocks=[0xFF7C, 0xFFDF, 0x002B])


class PadAndLengths(unittest.TestCase):
    def test_padcnt_from_payload(self):
        for n in range(9):  # RC SEND Only, n payload bytes: PadCnt = (4 - n mod 4) mod 4
            with self.subTest(payload=n):
                b = raw(V4 / UDP() / BTH(opcode="RC_SEND_ONLY") / (b"x" * n))
                self.assertEqual(b[34 + 8 + 1] >> 4 & 3, -n % 4)
                self.assertEqual(len(b), 34 + 8 + 12 + n + (-n % 4) + 4)
                self.assertEqual(b[-4 - (-n % 4):-4], bytes(-n % 4))
                self.assertEqual(struct.unpack("!H", b[38:40])[0], len(b) - 34)  # UDP length

    def test_nak_block_count_sets_padcnt(self):
        for n in range(1, 6):  # NAKETH is 12 + 2n bytes: PadCnt 2 when n is odd
            with self.subTest(blocks=n):
                p = Ether(raw(V4 / UDP() / BTH(opcode="ORNIC_NAK", psn=5) / AETH(syndrome=0x60)
                              / NAKETH(trigger_psn=9, limit_psn=9, blocks=[0] * n)))
                self.assertEqual(p[BTH].padcnt, 2 if n % 2 else 0)
                self.assertEqual((p[NAKETH].nblocks, p[NAKETH].base_psn), (n, 5))

    def test_explicit_values_are_kept(self):
        b = raw(V4 / UDP(chksum=0x1234) / BTH(opcode="RC_SEND_ONLY", padcnt=1, pad=b"\x07", icrc=0xDEADBEEF) / b"abc")
        self.assertEqual(b[40:42], b"\x12\x34")
        self.assertEqual(b[-5:], b"\x07\xef\xbe\xad\xde")

    def test_udp_checksum(self):
        b4 = raw(V4 / UDP() / BTH(opcode="ORNIC_ACK") / AETH() / OACKETH())
        self.assertEqual(b4[40:42], b"\0\0")  # IPv4: 0, as RoCEv2 NICs send (PROTOCOL.md 2.1)
        b6 = raw(V6 / UDP() / BTH(opcode="ORNIC_ACK") / AETH() / OACKETH())
        pseudo = b6[22:54] + struct.pack("!IxxxB", len(b6) - 54, 17)
        self.assertNotEqual(b6[60:62], b"\0\0")
        self.assertEqual(inet_csum(pseudo + b6[54:]), 0)  # IPv6: computed over the iCRC too


class InvariantCRC(unittest.TestCase):
    def test_equals_scapy_contrib_on_ipv4(self):
        """scapy.contrib.roce computes the IPv4 iCRC independently (docs/IBA_NOTES.md 5)."""
        rng = random.Random(5)
        for i in range(50):
            ip = IP(src="10.0.0.1", dst="10.0.0.2", tos=rng.getrandbits(8), ttl=rng.randrange(256),
                    id=rng.getrandbits(16), options=[IPOption_Router_Alert()] if i % 3 == 0 else [])
            frame = raw(Ether() / ip / UDP(sport=rng.getrandbits(16)) / BTH(
                opcode="RC_SEND_ONLY", fecn=i & 1, resv6=rng.getrandbits(6), psn=rng.getrandbits(24))
                / os.urandom(rng.randrange(40)))
            with self.subTest(frame=i):
                self.assertTrue(icrc_ok(Ether(frame)))
                self.assertEqual(contrib_icrc(frame), frame[-4:])

    def test_variant_fields_are_masked(self):
        frame = raw(V6 / UDP() / BTH(opcode="ORNIC_OOO_WRITE_SPOT") / (b"p" * 256))
        want = compute_icrc(Ether(frame))
        # traffic class (both nibbles), flow label, hop limit, UDP checksum, BTH byte 4 (PROTOCOL.md 2.6)
        for off, value in ((14, 0x63), (15, 0xA6), (17, 0x99), (21, 1), (60, 0xBE), (66, 0xC0)):
            with self.subTest(offset=off):
                hit = bytearray(frame)
                hit[off] = value
                self.assertTrue(icrc_ok(Ether(bytes(hit))))
                self.assertEqual(compute_icrc(Ether(bytes(hit))), want)

    def test_covered_fields_break_it(self):
        frame = raw(V4 / UDP() / BTH(opcode="ORNIC_OOO_WRITE_SPOT") / (b"p" * 256))
        # IP id, source, UDP source port, BTH opcode, TVer, DestQP, payload first and last byte
        for off in (18, 26, 34, 42, 43, 48, 54, len(frame) - 5):
            with self.subTest(offset=off):
                hit = bytearray(frame)
                hit[off] ^= 0x01
                self.assertFalse(icrc_ok(Ether(bytes(hit))))
                self.assertNotEqual(compute_icrc(Ether(bytes(hit))), int.from_bytes(frame[-4:], "little"))

    def test_known_value(self):
        # PROTOCOL.md 2.6: the LRH stand-in alone gives 0x2144DF1C; 6.12's CNP ends in 82 fd 00 2a
        self.assertEqual(icrc.wire(0x2A00FD82), bytes.fromhex("82fd002a"))
        self.assertEqual(icrc._LRH, 0x2144DF1C)


class NakBitmap(unittest.TestCase):
    def test_lost_set_uses_the_limit(self):
        n = nak_69()  # 6.9: only Base is lost; 0x61, 0x67, 0x75 are missing but not yet lost
        self.assertEqual(n.lost_psns(), [0x60])
        self.assertEqual(n.missing_psns()[:4], [0x60, 0x61, 0x67, 0x75])
        self.assertEqual(n.block_psns()[2], {0x80, 0x81, 0x83, 0x85})
        n.limit_psn = 0x86  # block 2 = 0x002B: 0x82 and 0x84 missing, below the limit
        self.assertEqual(n.lost_psns(), [0x60, 0x61, 0x67, 0x75, 0x82, 0x84])
        n.limit_psn = 0x5F  # at or before Base: Base alone (PROTOCOL.md 3.5)
        self.assertEqual(n.lost_psns(), [0x60])

    def test_from_psns_and_wrap(self):
        n = NAKETH.from_psns(0xFFFFFE, {0xFFFFFF, 0, 3, 17}, trigger=17)
        self.assertEqual(n.blocks, [0x0026, 0x0008])  # distances 1, 2, 5 and 19: two blocks
        self.assertEqual(n.lost_psns(), [0xFFFFFE, 1, 2] + list(range(4, 17)))
        self.assertEqual(n.lost_runs(), [(0xFFFFFE, 1), (1, 2), (4, 13)])
        self.assertEqual(n.received_psns(), [0xFFFFFF, 0, 3, 17])

    def test_lint(self):
        pkt = V4 / UDP() / BTH(opcode="ORNIC_NAK", psn=0x60, ackreq=1) / AETH(syndrome=0x60) / nak_69()
        self.assertEqual(lint(pkt), ["ackreq_on_response"])
        pkt[NAKETH].blocks = [0xFFFF]
        pkt[NAKETH].limit_psn = 0x90
        self.assertEqual(lint(pkt), ["nak_base_bit_set", "ackreq_on_response", "nak_limit_out_of_range"])


    def test_no_blocks_declares_base(self):
        """nblocks 0 (malformed, PROTOCOL.md 3.5, but readable): Base is lost by definition (4.4),
        whatever the Limit PSN, as libornicproto's lost_span says (at least 1). lost_psns() was []
        for a Limit after Base and [Base] for one at or before it; missing_psns() was []."""
        for limit in (0x5F, 0x60, 0x61, 0x90, 0x800060):
            for n in (NAKETH(reason=2, trigger_psn=0x70, base_psn=0x60, limit_psn=limit, blocks=[]),
                      NAKETH(raw(NAKETH(reason=2, trigger_psn=0x70, base_psn=0x60, limit_psn=limit,
                                        blocks=[])))):
                with self.subTest(limit=hex(limit), built=n.nblocks is None):
                    self.assertEqual(n.lost_span(), 1)
                    self.assertEqual(n.lost_psns(), [0x60])
                    self.assertEqual(n.lost_runs(), [(0x60, 1)])
                    self.assertEqual(n.missing_psns(), [0x60])
                    self.assertEqual(n.received_psns(), [])


class NoBTH(unittest.TestCase):
    """Packets without a BTH, or with one no IP/UDP header or GRH carries: icrc_ok() is False
    ("False when wrong or not locatable"), compute_icrc() None ("None when it cannot be
    located"), lint() an empty list (no rule of a BTH is broken). They raised ValueError and
    AttributeError."""
    PACKETS = (Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=53) / b"dns?",
               IP() / b"abc", Ether(b"\x00" * 20), BTH(opcode="RC_SEND_ONLY") / b"x")

    def test_icrc_ok_is_false(self):
        for pkt in self.PACKETS:
            with self.subTest(pkt=pkt.summary()):
                self.assertIs(icrc_ok(pkt), False)
                self.assertIsNone(compute_icrc(pkt))

    def test_lint_is_empty(self):
        for pkt in self.PACKETS[:3]:
            with self.subTest(pkt=pkt.summary()):
                self.assertEqual(lint(pkt), [])
        self.assertEqual(lint(BTH(opcode="RC_SEND_ONLY", se=1) / b"x"), [])  # lint of the BTH itself


class Binding(unittest.TestCase):
    FRAME = raw(V4 / UDP() / BTH(opcode="ORNIC_ACK", psn=7) / AETH() / OACKETH(count=3))

    def dissect_in_child(self, imports):
        code = ("import sys; sys.path.insert(0, %r)\n%s\nfrom scapy.layers.l2 import Ether\n"
                "import ornicproto.scapy as o\np = Ether(bytes.fromhex(%r))\n"
                "print(type(p[o.BTH].payload).__name__, p[o.OACKETH].count)") % (
                    os.path.join(ROOT, "python"), imports, self.FRAME.hex())
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout

    def test_contrib_first_or_last(self):
        contrib_last = "import ornicproto.scapy\nfrom scapy.all import load_contrib\nload_contrib('roce')"
        for imports in ("from scapy.contrib import roce", contrib_last, "from scapy.all import *"):
            with self.subTest(imports=imports):
                self.assertEqual(self.dissect_in_child(imports), "AETH 3\n")


def readme_install_lines():
    """The command lines of python/README.md's Install block (```sh after "## Install"), comments cut."""
    with open(os.path.join(ROOT, "python", "README.md"), encoding="utf-8") as f:
        text = f.read()
    block = re.search(r"^## Install\n.*?^```sh\n(.*?)^```", text, re.S | re.M).group(1)
    return [ln.split("  #")[0].strip() for ln in block.splitlines() if ln.strip()]


def offline(argv):
    """argv with no network: a network namespace of its own (unshare -n: only a loopback that is down),
    else proxies on a closed port, so that anything fetched fails at once."""
    for unshare in (["unshare", "-n"], ["unshare", "-rn"]):
        if shutil.which(unshare[0]) and subprocess.run(unshare + ["true"], capture_output=True).returncode == 0:
            return unshare + argv, {}
    dead = "http://127.0.0.1:9"
    return argv, {"http_proxy": dead, "https_proxy": dead, "HTTP_PROXY": dead, "HTTPS_PROXY": dead,
                  "PIP_RETRIES": "0", "PIP_TIMEOUT": "2"}


class OfflineInstall(unittest.TestCase):
    """python/README.md's install recipes, run as written (DIR and VENV in a temporary directory, ./python
    a copy of it) with the network cut off; the installed package then imports and has the version."""

    def setUp(self):
        self.lines = readme_install_lines()
        self.assertEqual(len(self.lines), 2, self.lines)
        r = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
        require(r.returncode == 0, "%s has no pip (apt-get install python3-pip python3-setuptools python3-venv)"
                % sys.executable)
        # The README names Debian's interpreter; the test runs the one CTest gave it (ORNIC_PYTHON).
        self.lines = [ln.replace("/usr/bin/python3 ", sys.executable + " ") for ln in self.lines]

    def run_recipe(self, line, tmp, **names):
        src = os.path.join(tmp, "src", "python")
        # a copy: pip builds in the source directory (build/, *.egg-info)
        shutil.copytree(os.path.join(ROOT, "python"), src,
                        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        for name, value in names.items():
            line = re.sub(r"\b%s\b" % name, value, line)
        argv, env = offline(["bash", "-euo", "pipefail", "-c", line])
        r = subprocess.run(argv, cwd=os.path.dirname(src), capture_output=True, text=True,
                           env=dict(os.environ, PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **env))
        self.assertEqual(r.returncode, 0, "%s\n%s%s" % (line, r.stdout, r.stderr))
        return line

    def check_installed(self, python, tmp, pythonpath=None):
        code = ("import importlib.metadata as m, ornicproto, ornicproto.scapy as o, ornicproto.opcodes as t; "
                "print(o.__file__, len(t.OPCODES), ornicproto.__version__, m.version('ornicproto'))")
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        out = subprocess.run([python, "-c", code], cwd=tmp, env=env, capture_output=True, text=True, check=True)
        path, nops, version, dist_version = out.stdout.split()
        self.assertFalse(path.startswith(os.path.join(ROOT, "python")), path)
        self.assertEqual(int(nops), 96)
        self.assertEqual(version, ornicproto_version())
        self.assertEqual(dist_version, version)  # pyproject.toml reads the package's __version__
        return path

    def test_pip_target(self):
        """/usr/bin/python3 -m pip install --no-build-isolation --no-deps --target DIR ./python"""
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "site")
            self.run_recipe(self.lines[0], tmp, DIR=target)
            self.assertTrue(self.check_installed(sys.executable, tmp, target).startswith(target))

    def test_venv(self):
        """/usr/bin/python3 -m venv --system-site-packages VENV && VENV/bin/pip install ... ./python"""
        r = subprocess.run([sys.executable, "-c", "import ensurepip"], capture_output=True)
        require(r.returncode == 0, "%s cannot make a venv with pip (apt-get install python3-venv)" % sys.executable)
        with tempfile.TemporaryDirectory() as tmp:
            venv = os.path.join(tmp, "venv")
            self.run_recipe(self.lines[1], tmp, VENV=venv)
            self.assertTrue(self.check_installed(os.path.join(venv, "bin", "python"), tmp).startswith(venv))


def ornicproto_version():
    with open(os.path.join(ROOT, "python", "ornicproto", "__init__.py"), encoding="utf-8") as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


if __name__ == "__main__":
    unittest.main()
