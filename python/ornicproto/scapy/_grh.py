# SPDX-License-Identifier: MIT
"""The RoCEv1 Global Route Header: IPv6's layout, EtherType 0x8915, next header 0x1B = BTH
(docs/IBA_NOTES.md 1, docs/PROTOCOL.md 2.7.1). Unlike scapy.contrib.roce's GRH, PayLen is filled
in on build and NxtHdr defaults to 0x1B, so Ether()/GRH()/BTH() is a valid RoCEv1 packet."""
from scapy.fields import BitField, ByteField, ShortField, XBitField
from scapy.packet import Packet

BTH_NEXT_HEADER = 0x1B


class GRH(Packet):
    name = "GRH"
    fields_desc = [BitField("ipver", 6, 4), BitField("tclass", 0, 8), BitField("flowlabel", 0, 20),
                   ShortField("paylen", None), ByteField("nexthdr", BTH_NEXT_HEADER), ByteField("hoplmt", 64),
                   XBitField("sgid", 0, 128), XBitField("dgid", 0, 128)]

    def post_build(self, p, pay):
        if self.paylen is None:  # bytes after the GRH through the iCRC
            p = p[:4] + len(pay).to_bytes(2, "big") + p[6:]
        return p + pay

    def extract_padding(self, s):
        return s[:self.paylen], s[self.paylen:]
