#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The crafted inputs of template.sh, built here from the RoCEv2 layout with
zlib's CRC-32, sharing no code with libornicproto or fuzz/template: an RC
Acknowledge (opcode 0x11, BTH + AETH) over IPv4, and the same ACK with 4
bytes after its AETH, which docs/PROTOCOL.md D5 forbids (0x11 carries no
payload) and fuzz/template/example_dut.c's planted bug accepts.
Usage: template_frames.py OUT_DIR"""
import os
import struct
import sys
import zlib


def ipv4_checksum(hdr: bytes) -> int:
    s = sum(struct.unpack("!10H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def icrc(ip: bytes, udp: bytes, roce: bytes) -> bytes:
    """PROTOCOL.md 2.6: 8 x 0xFF, IPv4 with TOS, TTL, checksum masked, UDP with
    its checksum masked, BTH with byte 4 masked, then the rest; little-endian."""
    ip_m = bytearray(ip)
    ip_m[1] = 0xFF
    ip_m[8] = 0xFF
    ip_m[10:12] = b"\xff\xff"
    udp_m = bytearray(udp)
    udp_m[6:8] = b"\xff\xff"
    roce_m = bytearray(roce)
    roce_m[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip_m) + bytes(udp_m) + bytes(roce_m))
    return struct.pack("<I", crc)


def frame(after_aeth: bytes) -> bytes:
    bth = struct.pack("!BBHI I", 0x11, 0x00, 0xFFFF, 0x000200, 0x123453)  # ACK, DestQP 0x200
    aeth = struct.pack("!I", 0x1F << 24 | 0x000007)  # ACK, no credit count, MSN 7
    roce = bth + aeth + after_aeth
    udp_len = 8 + len(roce) + 4
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0, 0x4000, 64, 17, 0,
                               bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    ip[10:12] = struct.pack("!H", ipv4_checksum(bytes(ip)))
    udp = struct.pack("!HHHH", 0xC000, 4791, udp_len, 0)
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    return eth + bytes(ip) + udp + roce + icrc(bytes(ip), udp, roce)


def main() -> None:
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in (("rc-ack", frame(b"")), ("rc-ack-payload-4", frame(b"\x01\x02\x03\x04"))):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
