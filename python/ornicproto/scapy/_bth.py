# SPDX-License-Identifier: MIT
"""The BTH layer (docs/PROTOCOL.md 2.2). It owns the packet's tail: on build it fills PadCnt,
the pad bytes (2.5) and the iCRC (2.6); on dissection it takes them off the end of the UDP
payload and hands the extension headers the opcode lists (3.2, 2.4) to the next layers."""
from scapy.config import conf
from scapy.error import warning
from scapy.fields import (BitField, ByteEnumField, ConditionalField, Field, ThreeBytesField, X3BytesField,
                          XShortField, XStrLenField)
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Packet

from .. import icrc as _icrc
from .. import opcodes
from ._ext import HEADER_CLASSES
from ._grh import GRH


class _TrailerField(Field):
    """A field after the payload: BTH.post_build writes it, BTH.extract_padding reads it."""

    def addfield(self, pkt, s, val):
        return s

    def getfield(self, pkt, s):
        return s, None


class _ICRCField(_TrailerField):
    """The iCRC as libornicproto's value: the 4 wire bytes read little-endian (PROTOCOL.md 2.6)."""

    def i2repr(self, pkt, x):
        return "None (computed on build)" if x is None else "0x%08x" % x


def _header_bytes(layer, payload_len):
    """The bytes `layer` (IPv4/IPv6/GRH) will have on the wire above a payload of payload_len bytes:
    its own post_build fills the lengths, IHL and checksum it leaves to Scapy."""
    out = layer.post_build(layer.self_build(), bytes(payload_len))
    return out[:len(out) - payload_len]


def _udp_header(udp, udp_len):
    hdr = udp.self_build()
    return hdr if udp.len is not None else hdr[:4] + udp_len.to_bytes(2, "big") + hdr[6:]


class _DCField(XStrLenField):
    """The DC bytes after the BTH (docs/PROTOCOL.md 2.8), opcodes.dc_len of them; None builds
    zeros, as libornicproto's encoder writes them."""

    def __init__(self, name):
        super().__init__(name, None, length_from=lambda p: opcodes.dc_len(p.opcode, p.se))

    def i2m(self, pkt, x):
        return bytes(opcodes.dc_len(pkt.opcode, pkt.se)) if x is None else bytes(x)


class BTH(Packet):
    """Base Transport Header. padcnt, pad and icrc None are computed on build."""
    name = "BTH"
    is_bth = True
    fields_desc = [
        ByteEnumField("opcode", 0, {code: row[1] for code, row in opcodes.OPCODES.items()}),
        BitField("se", 0, 1), BitField("m", 0, 1), BitField("padcnt", None, 2), BitField("tver", 0, 4),
        XShortField("pkey", 0xFFFF),
        BitField("fecn", 0, 1), BitField("becn", 0, 1), BitField("resv6", 0, 6), X3BytesField("destqp", 0),
        BitField("ackreq", 0, 1), BitField("resv7", 0, 7), ThreeBytesField("psn", 0),
        ConditionalField(_DCField("dc"), lambda p: opcodes.dc_len(p.opcode, p.se) > 0),
        _TrailerField("pad", None),   # bytes after the payload, PadCnt of them (zero on build)
        _ICRCField("icrc", None),
    ]

    def guess_payload_class(self, payload):
        hdrs = opcodes.headers(self.opcode)
        return HEADER_CLASSES[hdrs[0]] if hdrs else conf.raw_layer

    def extract_padding(self, s):
        """s runs to the end of the UDP payload: ... payload, pad, iCRC (PROTOCOL.md 2.1)."""
        if len(s) < 4:
            return s, None  # no room for an iCRC: keep the bytes as they are
        body, n = s[:-4], min(self.padcnt, len(s) - 4)
        self.fields["icrc"] = int.from_bytes(s[-4:], "little")
        self.fields["pad"] = body[len(body) - n:]
        self.raw_packet_cache = None  # rebuild through post_build, which writes pad and iCRC back
        return body[:len(body) - n], None

    def post_build(self, p, pay):
        n = (-len(pay)) % 4 if self.padcnt is None else self.padcnt  # PROTOCOL.md 2.5
        if self.padcnt is None:
            p = p[:1] + bytes([p[1] & 0xCF | n << 4]) + p[2:]
        body = p + pay + (bytes(n) if self.pad is None else bytes(self.pad))
        self._udp_checksum_zero_on_ipv4()
        value = self.icrc_of(body) if self.icrc is None else self.icrc
        return body + _icrc.wire(value)

    def _udp_checksum_zero_on_ipv4(self):
        """RoCEv2 sends UDP checksum 0 on IPv4 (PROTOCOL.md 2.1): an unset checksum of the UDP
        layer being built (Scapy builds a copy) becomes 0 instead of Scapy's computed one."""
        udp = self.underlayer
        if isinstance(udp, UDP) and isinstance(udp.underlayer, IP) and udp.chksum is None:
            udp.overloaded_fields = dict(udp.overloaded_fields, chksum=0)

    def icrc_of(self, body):
        """iCRC of this BTH's bytes `body` (BTH to pad) under its UDP/IP or GRH (PROTOCOL.md 2.6)."""
        under, tail = self.underlayer, body + bytes(4)
        if isinstance(under, GRH):
            return _icrc.icrc(_header_bytes(under, len(tail)) + tail, _icrc.GRH)
        l3 = under.underlayer if isinstance(under, UDP) else None
        if not isinstance(l3, (IP, IPv6)):
            warning("BTH: no UDP over IPv4/IPv6 nor GRH below it, iCRC left 0")
            return 0
        udp_len = 8 + len(tail)
        kind = _icrc.IPV4 if isinstance(l3, IP) else _icrc.IPV6
        return _icrc.icrc(_header_bytes(l3, udp_len) + _udp_header(under, udp_len) + tail, kind)

    def mysummary(self):
        from ._summary import summary_line
        return summary_line(self)
