# SPDX-License-Identifier: MIT
"""ornicproto: Python side of ornic-tools, the ORNIC wire-protocol toolkit.

docs/PROTOCOL.md is the source of truth for every byte. Submodules:
  ornicproto.scapy    Scapy layers for the BTH, every IBA extension header and ORNIC's
                      OFFETH, OACKETH and NAKETH, with PadCnt, pad and iCRC filled in on build
  ornicproto.opcodes  the opcode table: accessors over _opcodes.py, the data that
                      python/gen_opcodes.py generates from scripts/gen_opcode_table.py
  ornicproto.icrc     the RoCEv2 invariant CRC over raw bytes (PROTOCOL.md 2.6)
  ornicproto.psn      24-bit PSN arithmetic (PROTOCOL.md 1)
Only ornicproto.scapy needs Scapy. The version is libornicproto's, whose wire format and opcode table
the package follows (pyproject.toml reads it from here)."""

__version__ = "1.2.0"
