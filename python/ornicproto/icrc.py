# SPDX-License-Identifier: MIT
"""The RoCE invariant CRC over raw bytes (docs/PROTOCOL.md 2.6; RoCEv1: docs/IBA_NOTES.md 5).

CRC-32 (zlib's) over 8 bytes of 0xFF, the IP header, the UDP header and the BTH with their
variant fields counted as ones, then everything up to the iCRC. The iCRC travels least
significant byte first, so the value here is the 4 wire bytes read little-endian: the
number libornicproto and ornic-decode print."""
import zlib

IPV4, IPV6, GRH = 4, 6, 1
_LRH = zlib.crc32(b"\xff" * 8)  # crc32(0, 8 x 0xFF) = 0x2144DF1C (PROTOCOL.md 2.6)


def _mask_ipv4(m):
    """IPv4 header as it stands (options included): TOS, TTL, checksum as ones. Returns the BTH offset."""
    ihl = (m[0] & 0x0F) * 4
    m[1] = 0xFF                          # TOS: DSCP + ECN
    m[8] = 0xFF                          # TTL
    m[10:12] = b"\xff\xff"               # header checksum
    m[ihl + 6:ihl + 8] = b"\xff\xff"     # UDP checksum
    return ihl + 8


def _mask_ipv6(m, udp):
    """IPv6/GRH: traffic class, flow label, hop limit as ones (bytes 0-3 = 6F FF FF FF, byte 7)."""
    m[0] |= 0x0F
    m[1:4] = b"\xff\xff\xff"
    m[7] = 0xFF
    if udp:
        m[46:48] = b"\xff\xff"           # UDP checksum
        return 48
    return 40


def icrc(l3, kind=IPV4):
    """iCRC value of a packet whose bytes `l3` start at the IPv4/IPv6 header (kind 4/6) or the
    RoCEv1 GRH (kind 1) and end with the 4 iCRC bytes, which are not read."""
    m = bytearray(l3[:-4])
    bth = _mask_ipv4(m) if kind == IPV4 else _mask_ipv6(m, kind == IPV6)
    m[bth + 4] = 0xFF                    # BTH byte 4: FECN, BECN, resv6 (PROTOCOL.md 2.2)
    return zlib.crc32(bytes(m), _LRH)


def wire(value):
    """The 4 wire bytes of an iCRC value (least significant first)."""
    return value.to_bytes(4, "little")
