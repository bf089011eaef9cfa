# SPDX-License-Identifier: MIT
"""Checking a packet's iCRC (docs/PROTOCOL.md 2.6) from its bytes, located as 2.1 says: by the
IP/UDP lengths (RoCEv1: the GRH PayLen), never by the frame length."""
from scapy.compat import raw
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6

from .. import icrc as _icrc
from ._bth import BTH
from ._grh import GRH


def carrier(pkt):
    """(layer, kind): the IPv4 / IPv6 header (kind 4 / 6) or RoCEv1 GRH (kind 1) under pkt's BTH."""
    bth = pkt.getlayer(BTH)
    if bth is None:
        raise ValueError("no BTH in %s" % pkt.summary())
    under = bth.underlayer
    if isinstance(under, UDP) and isinstance(under.underlayer, IP):
        return under.underlayer, _icrc.IPV4
    if isinstance(under, UDP) and isinstance(under.underlayer, IPv6):
        return under.underlayer, _icrc.IPV6
    if isinstance(under, GRH):
        return under, _icrc.GRH
    raise ValueError("the BTH is not carried by UDP over IPv4/IPv6 nor by a GRH")


def _bounds(b, kind):
    """(BTH offset, end of the iCRC): the UDP datagram's end (the GRH payload's for RoCEv1)."""
    if kind == _icrc.IPV4:
        udp = (b[0] & 0x0F) * 4
        return udp + 8, udp + int.from_bytes(b[udp + 4:udp + 6], "big")
    if kind == _icrc.IPV6:
        return 48, 40 + int.from_bytes(b[44:46], "big")
    return 40, 40 + int.from_bytes(b[4:6], "big")


def icrc_check(pkt):
    """(got, want): the iCRC in pkt's bytes and the one they call for, as little-endian values
    (libornicproto's and ornic-decode's numbers); None when the lengths do not locate it."""
    layer, kind = carrier(pkt)
    b = raw(layer)
    bth, end = _bounds(b, kind)
    if end > len(b) or end < bth + 16:  # BTH and iCRC at least (PROTOCOL.md 5, D3)
        return None
    return int.from_bytes(b[end - 4:end], "little"), _icrc.icrc(b[:end], kind)


def _located(pkt):
    """icrc_check(pkt), or None also when pkt has no BTH, or one no IP/UDP header or GRH carries
    (carrier's ValueError): there is no iCRC to locate."""
    try:
        return icrc_check(pkt)
    except ValueError:
        return None


def compute_icrc(pkt):
    """The iCRC value pkt's bytes call for (PROTOCOL.md 2.6); None when it cannot be located."""
    check = _located(pkt)
    return None if check is None else check[1]


def icrc_ok(pkt):
    """True when the iCRC in pkt's bytes is right; False when wrong or not locatable."""
    check = _located(pkt)
    return check is not None and check[0] == check[1]
