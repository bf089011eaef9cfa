# SPDX-License-Identifier: MIT
"""BTH.mysummary(): ornic-decode's one-line text format (tools/ornic-decode/README.md, "Text
format") without the frame number and time, e.g.
  10.0.0.1 > 10.0.0.2 ORNIC_OOO_WRITE_FSPOT qp=0x000200 psn=15663415 va=0x00007f0000000400
  rkey=0x1234abcd dmalen=65536 offset=1024 len=1024 icrc=ok
(one line). The conversation analysis (conv=, wqe=, tags) needs a whole capture: not here."""
import socket

from scapy.compat import raw
from scapy.layers.inet import IP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q

from .. import opcodes
from ..psn import psn_add
from ._bth import BTH
from ._check import icrc_check
from ._ext import HEADER_CLASSES, syndrome_name
from ._grh import GRH
from ._lint import lint

_NAMES = {cls: name for name, cls in HEADER_CLASSES.items()}
_OACK = ("-", "addr_cached", "wqe_done", "addr_cached,wqe_done")


class Parts:
    """A dissected BTH as ornic-decode sees it: headers by name, payload and pad bytes."""

    def __init__(self, bth):
        self.bth, self.hdrs = bth, {}
        layer = bth.payload
        while type(layer) in _NAMES:
            self.hdrs[_NAMES[type(layer)]] = layer
            layer = layer.payload
        self.payload = layer.do_build()
        self.ext_len = sum(len(h.self_build()) for h in self.hdrs.values())
        self.pad = bytes(bth.pad or b"")
        info = opcodes.info(bth.opcode)
        self.ornic_op = bool(info) and info[4] == "ORNIC"
        self.located = bool(info) and len(self.hdrs) == len(info[2]) and (
            "PAYLOAD" in info[3] or not self.payload)


def dissected(bth):
    """bth itself when it came from bytes; else the BTH of its packet built and dissected again."""
    if bth.icrc is not None and bth.padcnt is not None:
        return bth
    top = bth
    while top.underlayer is not None:
        top = top.underlayer
    return top.__class__(raw(top)).getlayer(BTH)


def _addr(value, v4):
    if isinstance(value, int):  # GRH GIDs are 128-bit integers
        value = socket.inet_ntop(socket.AF_INET6, value.to_bytes(16, "big"))
    return value if v4 else socket.inet_ntop(socket.AF_INET6, socket.inet_pton(socket.AF_INET6, value))


def _prefix(bth):
    """'SRC > DST [RoCEv1] [vlan=ID]'."""
    out, layer = "", bth.underlayer
    while layer is not None:
        if isinstance(layer, (IP, IPv6)):
            out = "%s > %s" % (_addr(layer.src, isinstance(layer, IP)), _addr(layer.dst, isinstance(layer, IP)))
        elif isinstance(layer, GRH):
            out = "%s > %s RoCEv1" % (_addr(layer.sgid, False), _addr(layer.dgid, False))
        elif isinstance(layer, Dot1Q):
            out += " vlan=%d" % layer.vlan
        layer = layer.underlayer
    return out


def _bth_tokens(b):
    """'OPCODE qp=0x.. psn=N [A,SE,M,FECN,BECN] [pkey=] [tver=] [resv6=] [resv7=]' (PROTOCOL.md 2.2)."""
    out = " %s qp=0x%06x psn=%d" % (opcodes.short_name(b.opcode), b.destqp, b.psn)
    flags = [n for n, v in (("A", b.ackreq), ("SE", b.se), ("M", b.m), ("FECN", b.fecn), ("BECN", b.becn)) if v]
    out += " [%s]" % ",".join(flags) if flags else ""
    out += " pkey=0x%04x" % b.pkey if b.pkey != 0xFFFF else ""
    out += " tver=%d" % b.tver if b.tver else ""
    out += " resv6=0x%02x" % b.resv6 if b.resv6 else ""
    return out + (" resv7=0x%02x" % b.resv7 if b.resv7 else "")


# Runs a summary line shows, as ornic-decode's text (tools/ornic-decode/README.md):
# the rest are ",...", and nmissing= counts the whole set.
_NAK_RUNS = 16


def _nak_tokens(n):
    """PROTOCOL.md 3.5; missing= is the lost set of 4.4, in runs."""
    all_runs = list(n.lost_runs())
    runs = ",".join("%d" % f if c == 1 else "%d-%d" % (f, psn_add(f, c - 1))
                    for f, c in all_runs[:_NAK_RUNS])
    runs += ",..." if len(all_runs) > _NAK_RUNS else ""
    lost = len(n.lost_psns())
    out = " nak=0x%x(%s) trigger=%d base=%d limit=%d nblocks=%d missing=%s" % (
        n.reason, {1: "OTD exceeded", 2: "timeout", 3: "Last seen, WQE incomplete"}.get(n.reason, "reserved"),
        n.trigger_psn, n.base(), n.limit_psn, len(n.blocks) if n.nblocks is None else n.nblocks, runs or "none")
    return out + (" nmissing=%d" % lost if lost else "")


_TOKENS = {
    "RDETH": lambda h: " een=0x%06x" % h.een,
    "DETH": lambda h: " qkey=0x%08x srcqp=0x%06x" % (h.qkey, h.srcqp),
    "XRCETH": lambda h: " xrcsrq=0x%06x" % h.xrcsrq,
    "FETH": lambda h: " feth=0x%08x" % h.value,
    "RETH": lambda h: " va=0x%016x rkey=0x%08x dmalen=%d" % (h.va, h.rkey, h.dmalen),
    "OFFETH": lambda h: " offset=%d" % h.offset,
    "ATOMICETH": lambda h: " va=0x%016x rkey=0x%08x swap_add=0x%x compare=0x%x" % (
        h.va, h.rkey, h.swap_add, h.compare),
    "AETH": lambda h: " aeth=0x%02x(%s) msn=%d" % (h.syndrome, syndrome_name(h.syndrome), h.msn),
    "ATOMICACKETH": lambda h: " orig=0x%x" % h.orig,
    "OACKETH": lambda h: " oack=0x%02x(%s) count=%d" % (int(h.flags), _OACK[int(h.flags) & 3], h.count),
    "NAKETH": _nak_tokens,
    "IMMDT": lambda h: " imm=0x%08x" % h.data,
    "IETH": lambda h: " inv_rkey=0x%08x" % h.rkey,
    "CNP": lambda h: "",
}


def _icrc_state(bth):
    try:
        check = icrc_check(bth)
    except ValueError:
        check = None
    if check is None:
        return " icrc=n/a"
    got, want = check
    return " icrc=ok" if got == want else " icrc=BAD(got 0x%08x want 0x%08x)" % (got, want)


def summary_line(bth, pmtu=0):
    """The ornic-decode text line of bth's packet, from the addresses to the warnings."""
    p = Parts(dissected(bth))
    out = _prefix(p.bth) + _bth_tokens(p.bth) + "".join(_TOKENS[n](h) for n, h in p.hdrs.items())
    out += " len=%d" % len(p.payload) if p.located else ""
    out += _icrc_state(p.bth)
    warns = lint(p, pmtu)
    return out.lstrip() + (" warn=" + ",".join(warns) if warns else "")
