# SPDX-License-Identifier: MIT
"""The lint rules of docs/PROTOCOL.md section 5 ("Lint rules"), as libornicproto's ornic_lint():
what one frame can break and still decode. Names are ornic_lint_name()'s, in its bit order."""
from .. import opcodes
from ..psn import psn_diff

LINT_NAMES = ("pad_not_aligned", "pad_not_zero", "nak_psn_not_base", "nak_trigger_not_after_base",
              "nak_base_bit_set", "ack_flags_both_set", "se_without_immdt", "ackreq_on_response",
              "becn_outside_cnp", "offset_beyond_dma", "offset_not_pmtu", "spot_not_pmtu",
              "nak_limit_out_of_range")


def _pad_rules(p):
    """L1 (IBA opcodes; on ORNIC's it is D7, malformed), L2."""
    bad = set()
    if not p.ornic_op and (p.ext_len + len(p.payload) + len(p.pad)) % 4:
        bad.add("pad_not_aligned")
    if any(p.pad):
        bad.add("pad_not_zero")
    return bad


def _nak_rules(bth, nak):
    """L3, L4, L5, L13."""
    base, bad = nak.base(), set()
    if bth.psn != base:
        bad.add("nak_psn_not_base")
    if psn_diff(nak.trigger_psn, base) <= 0:
        bad.add("nak_trigger_not_after_base")
    if nak.blocks and nak.blocks[0] & 1:
        bad.add("nak_base_bit_set")
    if psn_diff(nak.limit_psn, base) <= 0 or psn_diff(nak.limit_psn, nak.trigger_psn) > 0:
        bad.add("nak_limit_out_of_range")
    return bad


def _offset_rules(hdrs, pmtu):
    """L10, L11."""
    off, bad = hdrs["OFFETH"].offset, set()
    if "RETH" in hdrs and off >= max(hdrs["RETH"].dmalen, 1):
        bad.add("offset_beyond_dma")
    if pmtu and off % pmtu:
        bad.add("offset_not_pmtu")
    return bad


def _ornic_rules(bth, info):
    """L7, L8, L9: BTH bits an ORNIC opcode must not carry (PROTOCOL.md 2.2)."""
    bad = set()
    if bth.se and "IMMDT" not in info[2]:
        bad.add("se_without_immdt")
    if bth.ackreq and "RESPONSE" in info[3]:
        bad.add("ackreq_on_response")
    if bth.becn:
        bad.add("becn_outside_cnp")
    return bad


def lint(p, pmtu=0):
    """Rule names the dissected packet `p` (a _summary.Parts) breaks; pmtu enables L11, L12."""
    bth, hdrs, bad = p.bth, p.hdrs, set()
    info = opcodes.info(bth.opcode)
    if p.located:
        bad |= _pad_rules(p)
    if bth.opcode == 0xCA and "NAKETH" in hdrs:
        bad |= _nak_rules(bth, hdrs["NAKETH"])
    if "OACKETH" in hdrs and int(hdrs["OACKETH"].flags) & 3 == 3:
        bad.add("ack_flags_both_set")
    if p.ornic_op:
        bad |= _ornic_rules(bth, info)
    if "OFFETH" in hdrs:
        bad |= _offset_rules(hdrs, pmtu)
    if pmtu and bth.opcode in (0xC0, 0xC1) and p.located and len(p.payload) != pmtu:
        bad.add("spot_not_pmtu")
    return [name for name in LINT_NAMES if name in bad]
