# SPDX-License-Identifier: MIT
"""python/ornicproto/_opcodes.py is generated, not retyped: it must be exactly what
python/gen_opcodes.py writes today from scripts/gen_opcode_table.py (the source of the C
library's ornic_opcode_table.inc) and libornicproto's ORNIC_HDR_* bits, and every header the
table names must have a layer."""
import difflib
import os
import re
import subprocess
import sys
import unittest

from helpers import ROOT

from ornicproto import opcodes
from ornicproto.scapy import HEADER_CLASSES

GENERATED = os.path.join(ROOT, "python", "ornicproto", "_opcodes.py")


class GeneratedTable(unittest.TestCase):
    def test_committed_file_is_what_the_generator_writes(self):
        fresh = subprocess.run([sys.executable, os.path.join(ROOT, "python", "gen_opcodes.py")], check=True,
                               capture_output=True, text=True).stdout
        with open(GENERATED, encoding="utf-8") as f:
            committed = f.read()
        diff = "".join(difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True), GENERATED, "fresh"))
        self.assertEqual(diff, "", "regenerate: python3 python/gen_opcodes.py > python/ornicproto/_opcodes.py")

    def test_same_opcodes_as_the_c_table(self):
        with open(os.path.join(ROOT, "libornicproto", "src", "ornic_opcode_table.inc"), encoding="utf-8") as f:
            rows = re.findall(r'\[0x([0-9A-F]{2})\] = \{"[^"]*", "([^"]*)"', f.read())
        self.assertEqual({int(c, 16): s for c, s in rows}, {c: r[1] for c, r in opcodes.OPCODES.items()})
        self.assertEqual(len(rows), 96)

    def test_ornic_opcodes(self):
        """PROTOCOL.md 3.2: 0xC0-0xCA and their headers."""
        self.assertEqual([c for c in opcodes.OPCODES if c >> 5 == 6], list(range(0xC0, 0xCB)))
        self.assertEqual(opcodes.headers(0xC5), ("RETH", "OFFETH", "IMMDT"))
        self.assertEqual(opcodes.headers(0xCA), ("AETH", "NAKETH"))
        self.assertEqual(opcodes.headers(0x1C), ("FETH", "RETH"))  # RC FLUSH: FETH before RETH (2.4)

    def test_every_header_has_a_layer(self):
        self.assertEqual(set(HEADER_CLASSES), set(opcodes.HEADER_ORDER))
        used = {h for row in opcodes.OPCODES.values() for h in row[2]}
        self.assertLessEqual(used, set(HEADER_CLASSES))


class Version(unittest.TestCase):
    def test_the_library_s(self):
        """The package's version is libornicproto's (CMakeLists.txt's project(VERSION)); pyproject.toml
        reads it from ornicproto.__version__ (test_layers checks the installed metadata)."""
        import ornicproto
        with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
            cmake = re.search(r"^project\(ornic-tools VERSION ([0-9.]+)", f.read(), re.M).group(1)
        self.assertEqual(ornicproto.__version__, cmake,
                         "python/ornicproto/__init__.py's __version__ is not the library's (CMakeLists.txt)")
        with open(os.path.join(ROOT, "python", "pyproject.toml"), encoding="utf-8") as f:
            toml = f.read()
        self.assertIn('dynamic = ["version"]', toml)
        self.assertIn('version = {attr = "ornicproto.__version__"}', toml)


if __name__ == "__main__":
    unittest.main()
