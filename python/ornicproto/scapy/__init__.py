# SPDX-License-Identifier: MIT
"""Scapy layers for ORNIC and RoCEv2 (docs/PROTOCOL.md sections 2 and 3).

    from ornicproto.scapy import *
    pkt = Ether()/IP(src="10.0.0.1", dst="10.0.0.2")/UDP(sport=0xC001)/BTH(opcode="ORNIC_OOO_WRITE_FSPOT",
          destqp=0x12, psn=0)/RETH(va=0x7F3A12340200, rkey=0x1234ABCD, dmalen=1001)/OFFETH(offset=512)/payload

UDP destination port 4791 dissects as this module's BTH, followed by the extension headers its
opcode lists in the opcode table libornicproto uses (ornicproto.opcodes), then the payload.
On build, PadCnt, the pad, the iCRC (IPv4, IPv6, RoCEv1), UDP length, and UDP checksum 0 on
IPv4 (computed on IPv6) are filled in. Importing this module takes UDP port 4791 and EtherType
0x8915 (RoCEv1) away from scapy.contrib.roce's layers, so every capture dissects the same way."""
from scapy.contrib import roce as _contrib
from scapy.layers.inet import UDP
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import bind_bottom_up, bind_layers, bind_top_down, split_layers

from ._bth import BTH
from ._check import compute_icrc, icrc_check, icrc_ok
from ._ext import (AETH, CNP, DETH, FETH, HEADER_CLASSES, IETH, NAK_REASONS, NAKETH, OACKETH, OFFETH, RDETH,
                   RETH, XRCETH, AtomicAckETH, AtomicETH, CNPPadding, ImmDt, syndrome_name)
from ._grh import GRH
from ._lint import LINT_NAMES
from ._lint import lint as _lint
from ._summary import Parts, dissected, summary_line

ROCE_PORT = 4791  # PROTOCOL.md 2.1

__all__ = ["BTH", "RDETH", "DETH", "XRCETH", "FETH", "RETH", "OFFETH", "AtomicETH", "AETH", "AtomicAckETH",
           "OACKETH", "NAKETH", "ImmDt", "IETH", "CNP", "CNPPadding", "GRH", "HEADER_CLASSES", "NAK_REASONS",
           "LINT_NAMES", "ROCE_PORT", "compute_icrc", "icrc_check", "icrc_ok", "lint", "summary_line",
           "syndrome_name"]


def lint(pkt, pmtu=0):
    """Names of the PROTOCOL.md section 5 lint rules pkt breaks (pmtu > 0 adds L11 and L12); a
    packet without a BTH breaks none of them."""
    bth = pkt.getlayer(BTH)
    return [] if bth is None else _lint(Parts(dissected(bth)), pmtu)


def _bind():
    """UDP 4791 and EtherType 0x8915 lead to these layers only; new UDP/BTH packets get dport
    4791 and, as PROTOCOL.md 2.1 recommends, a source port from 0xC000."""
    split_layers(UDP, _contrib.BTH, dport=ROCE_PORT)
    split_layers(_contrib.GRH, _contrib.BTH)
    bind_bottom_up(UDP, BTH, dport=ROCE_PORT)
    bind_top_down(UDP, BTH, dport=ROCE_PORT, sport=0xC000)
    split_layers(Ether, _contrib.GRH, type=0x8915)
    bind_layers(Ether, GRH, type=0x8915)  # RoCEv1 (docs/IBA_NOTES.md 1)
    bind_layers(Dot1Q, GRH, type=0x8915)
    bind_layers(GRH, BTH, nexthdr=0x1B)


_bind()
