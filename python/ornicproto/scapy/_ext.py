# SPDX-License-Identifier: MIT
"""Extension header layers: IBA's (docs/PROTOCOL.md 2.3, docs/IBA_NOTES.md 3) and ORNIC's
OFFETH, OACKETH and NAKETH (docs/PROTOCOL.md 3.3-3.5). Field names are libornicproto's
(ornic/headers.h). Which header follows which is the opcode table's business (_bth.py)."""
from scapy.config import conf
from scapy.fields import (ByteEnumField, ByteField, FieldLenField, FieldListField, FlagsField, IntField,
                          ShortField, ThreeBytesField, X3BytesField, XByteField, XIntField, XLongField,
                          XShortField, XStrFixedLenField)
from scapy.packet import Packet

from .. import opcodes
from ..psn import psn_add, psn_diff, psn_runs

NAK_REASONS = {1: "OTD exceeded", 2: "timeout", 3: "Last seen, WQE incomplete"}  # PROTOCOL.md 3.5
_NAK_CODES = ("NAK PSN sequence error", "NAK invalid request", "NAK remote access error",
              "NAK remote operational error", "NAK invalid RD request")


def syndrome_name(syndrome):
    """AETH syndrome text, as libornicproto's ornic_aeth_syndrome_name (PROTOCOL.md 2.3)."""
    kind, value = syndrome & 0xE0, syndrome & 0x1F
    if kind == 0x00:
        return "ACK"
    if kind == 0x20:
        return "RNR NAK"
    if kind == 0x60:
        return _NAK_CODES[value] if value < len(_NAK_CODES) else "NAK reserved code"
    return "reserved"


def find_bth(layer):
    """The BTH a header layer sits under, and how many layers below it the header is (1 = first)."""
    depth, under = 0, layer
    while under is not None and not getattr(under, "is_bth", False):
        depth, under = depth + 1, under.underlayer
    return under, depth


class _ExtHeader(Packet):
    """An extension header: the next layer is the next header the opcode lists, then the payload."""
    show_summary = False  # BTH.mysummary prints the headers (ornic-decode's line)

    def guess_payload_class(self, payload):
        bth, depth = find_bth(self)
        hdrs = opcodes.headers(bth.opcode) if bth is not None else ()
        return HEADER_CLASSES[hdrs[depth]] if depth < len(hdrs) else conf.raw_layer


class _SyndromeField(XByteField):
    def i2repr(self, pkt, x):
        return "0x%02x (%s)" % (x, syndrome_name(x))


class _BasePSNField(ThreeBytesField):
    """NAKETH Base PSN: equal to BTH.PSN (PROTOCOL.md 3.5), which None takes on build."""

    def i2m(self, pkt, x):
        if x is None:
            bth, _ = find_bth(pkt)
            x = bth.psn if bth is not None else 0
        return super().i2m(pkt, x)


class RDETH(_ExtHeader):
    name = "RDETH"
    fields_desc = [ByteField("resv", 0), X3BytesField("een", 0)]


class DETH(_ExtHeader):
    name = "DETH"
    fields_desc = [XIntField("qkey", 0), ByteField("resv", 0), X3BytesField("srcqp", 0)]


class XRCETH(_ExtHeader):
    name = "XRCETH"
    fields_desc = [ByteField("resv", 0), X3BytesField("xrcsrq", 0)]


class FETH(_ExtHeader):
    name = "FETH"
    fields_desc = [XIntField("value", 0)]  # kept whole, as libornicproto's ornic_feth


class RETH(_ExtHeader):
    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dmalen", 0)]


class OFFETH(_ExtHeader):
    """PROTOCOL.md 3.3: byte offset of this packet's payload within its WQE (FSpot, Last with Address)."""
    name = "OFFETH"
    fields_desc = [IntField("offset", 0)]


class AtomicETH(_ExtHeader):
    name = "AtomicETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), XLongField("swap_add", 0), XLongField("compare", 0)]


class AETH(_ExtHeader):
    name = "AETH"
    fields_desc = [_SyndromeField("syndrome", 0x1F), ThreeBytesField("msn", 0)]


class AtomicAckETH(_ExtHeader):
    name = "AtomicAckETH"
    fields_desc = [XLongField("orig", 0)]


class OACKETH(_ExtHeader):
    """PROTOCOL.md 3.4: Flags (0x01 ADDR_CACHED, 0x02 WQE_DONE), resv, Count."""
    name = "OACKETH"
    fields_desc = [FlagsField("flags", 0, 8, ["ADDR_CACHED", "WQE_DONE", "R2", "R3", "R4", "R5", "R6", "R7"]),
                   ByteField("resv", 0), ShortField("count", 0)]


class ImmDt(_ExtHeader):
    name = "ImmDt"
    fields_desc = [XIntField("data", 0)]


class IETH(_ExtHeader):
    name = "IETH"
    fields_desc = [XIntField("rkey", 0)]


class CNP(_ExtHeader):
    """The 16 reserved bytes after a RoCEv2 CNP's BTH (docs/IBA_NOTES.md 6)."""
    name = "CNP"
    fields_desc = [XStrFixedLenField("resv", b"\0" * 16, 16)]


CNPPadding = CNP  # the name scapy.contrib.roce gives it


class NAKETH(_ExtHeader):
    """PROTOCOL.md 3.5: Reason, Trigger PSN, nblocks, Base PSN, resv, Limit PSN, then nblocks
    16-bit blocks. Bit i of block k set = PSN Base + 16k + i received. nblocks None counts the
    blocks; base_psn None takes BTH.PSN."""
    name = "NAKETH"
    fields_desc = [ByteEnumField("reason", 1, NAK_REASONS), ThreeBytesField("trigger_psn", 0),
                   FieldLenField("nblocks", None, count_of="blocks", fmt="B"), _BasePSNField("base_psn", None),
                   ByteField("resv", 0), ThreeBytesField("limit_psn", 0),
                   FieldListField("blocks", [0], XShortField("block", 0), count_from=lambda p: p.nblocks)]

    @classmethod
    def from_psns(cls, base, received, trigger, limit=None, reason=1, nblocks=None, **kw):
        """A NAKETH whose bitmap marks `received` (PSNs; those outside the bitmap are ignored).
        nblocks defaults to PROTOCOL.md 4.4's min(255, floor((trigger - base) / 16) + 1), the
        Limit PSN to the trigger (the loss limit of reasons 2 and 3)."""
        if nblocks is None:
            nblocks = min(255, max(0, psn_diff(trigger, base)) // 16 + 1)
        blocks = [0] * nblocks
        for psn in received:
            d = (psn - base) & 0xFFFFFF
            if d < 16 * nblocks:
                blocks[d // 16] |= 1 << (d % 16)
        limit = trigger if limit is None else limit
        return cls(reason=reason, trigger_psn=trigger, base_psn=base, limit_psn=limit, blocks=blocks, **kw)

    def do_dissect(self, s):
        """Scapy stops dissecting where the bytes end, so a NAKETH with nblocks 0 at the end of
        its bytes kept the field's default, one zero block that is not on the wire (and its 16
        PSNs counted as missing): start from no blocks instead."""
        self.fields["blocks"] = []
        return super().do_dissect(s)

    def base(self):
        """The Base PSN, also while base_psn is None (BTH.PSN)."""
        return self.fields_desc[3].i2m(self, self.base_psn)

    def received(self, d):
        """True when bit d of the bitmap (PSN Base + d) is set."""
        return bool(self.blocks[d // 16] >> (d % 16) & 1)

    def block_psns(self):
        """The bitmap as a list of PSN sets, one per block: the PSNs block k marks received."""
        base = self.base()
        return [{psn_add(base, 16 * k + i) for i in range(16) if v >> i & 1} for k, v in enumerate(self.blocks)]

    def received_psns(self):
        """Every PSN the bitmap marks received, in PSN order from Base."""
        base = self.base()
        return [psn_add(base, d) for d in range(16 * len(self.blocks)) if self.received(d)]

    def missing_psns(self):
        """Base and every PSN the bitmap marks not received (bit 0 of block 0 is Base: missing;
        Base is missing without blocks too)."""
        base = self.base()
        return [psn_add(base, d) for d in range(max(1, 16 * len(self.blocks))) if d == 0 or not self.received(d)]

    def lost_span(self):
        """Limit PSN - Base, clamped to 1 .. 16 n (PROTOCOL.md 3.5): the lost set lies below it.
        At least 1 without blocks too (nblocks 0 is malformed, 3.5): Base is lost by definition
        (4.4), as libornicproto's ornic_naketh_lost_span says."""
        span = psn_diff(self.limit_psn, self.base())
        return max(1, min(span, 16 * len(self.blocks)))

    def lost_psns(self):
        """The lost set of PROTOCOL.md 4.4, what the requester resends and ornic-decode calls
        missing: Base, plus every PSN Base + d, 0 < d < span, whose bit is 0."""
        base = self.base()
        return [psn_add(base, d) for d in range(self.lost_span()) if d == 0 or not self.received(d)]

    def lost_runs(self):
        """lost_psns() as [(first, count), ...] runs."""
        return psn_runs(self.lost_psns())


# The layer of each ORNIC_HDR_* name of the opcode table (ornicproto/_opcodes.py).
HEADER_CLASSES = {"RDETH": RDETH, "DETH": DETH, "XRCETH": XRCETH, "FETH": FETH, "RETH": RETH, "OFFETH": OFFETH,
                  "ATOMICETH": AtomicETH, "AETH": AETH, "ATOMICACKETH": AtomicAckETH, "OACKETH": OACKETH,
                  "NAKETH": NAKETH, "IMMDT": ImmDt, "IETH": IETH, "CNP": CNP}
