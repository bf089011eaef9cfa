# SPDX-License-Identifier: MIT
"""The BTH opcode table (docs/PROTOCOL.md 3.1-3.2, 2.4), the same data libornicproto uses.

_opcodes.py is generated from scripts/gen_opcode_table.py by python/gen_opcodes.py."""
from ._opcodes import HEADER_ORDER, OPCODES

__all__ = ["HEADER_ORDER", "OPCODES", "info", "headers", "short_name", "has_payload", "transport", "dc_len"]


def info(opcode):
    """(name, short name, headers, flags, transport), or None for an opcode without a layout."""
    return OPCODES.get(opcode)


def headers(opcode):
    """Extension header names after the BTH, in wire order; () when the opcode has no layout."""
    row = OPCODES.get(opcode)
    return row[2] if row else ()


def short_name(opcode):
    """'ORNIC_OOO_WRITE_FSPOT', ...; 'UNKNOWN_0xNN' as ornic-decode prints an opcode without a layout."""
    row = OPCODES.get(opcode)
    return row[1] if row else "UNKNOWN_0x%02x" % opcode


def has_payload(opcode):
    """True when the opcode carries a payload (flag PAYLOAD); False also for unknown opcodes."""
    row = OPCODES.get(opcode)
    return bool(row) and "PAYLOAD" in row[3]


def transport(opcode):
    """'RC', 'UC', 'RD', 'UD', 'CNP', 'XRC' or 'ORNIC'; None for an opcode without a layout."""
    row = OPCODES.get(opcode)
    return row[4] if row else None


def dc_len(opcode, se):
    """Bytes between the BTH and the extension headers, as libornicproto's ornic_opcode_dc_len:
    the RD block 0x40-0x5F is ConnectX's DC transport, as Wireshark decodes it (docs/PROTOCOL.md
    2.8): 8 bytes, and 16 more on a DC connect (RESYNC 0x55 with SE clear); 0 elsewhere."""
    if opcode & 0xE0 != 0x40:
        return 0
    return 8 + (16 if opcode == 0x55 and not se else 0)
