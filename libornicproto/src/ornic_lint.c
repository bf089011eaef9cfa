/* SPDX-License-Identifier: MIT */
/* The lint rules of docs/PROTOCOL.md section 5 ("Lint rules"): what one frame
 * can break without being undecodable. Each rule reads only what decode
 * filled in (ext.present, the payload view), so a malformed or truncated
 * frame is linted as far as it was read. */
#include "ornic/lint.h"

#include "ornic/opcode.h"
#include "ornic/psn.h"

typedef struct {
  const char *name, *text, *rule;
} lint_row;

static const lint_row rows[ORNIC_LINT_COUNT] = {
    {"pad_not_aligned", "BTH to iCRC is not whole 4-byte words (PadCnt wrong)", "PROTOCOL.md D7"},
    {"pad_not_zero", "Pad bytes are not zero", "PROTOCOL.md 2.5"},
    {"nak_psn_not_base", "NAK BTH.PSN differs from its Base PSN", "PROTOCOL.md 3.5"},
    {"nak_trigger_not_after_base", "NAK Trigger PSN is not after its Base PSN", "PROTOCOL.md 3.5"},
    {"nak_base_bit_set", "NAK bitmap marks the Base PSN received", "PROTOCOL.md 3.5"},
    {"ack_flags_both_set", "OACKETH ADDR_CACHED and WQE_DONE both set", "PROTOCOL.md 3.4"},
    {"se_without_immdt", "SE set on an ORNIC opcode without ImmDt", "PROTOCOL.md 2.2"},
    {"ackreq_on_response", "AckReq set on an ORNIC ACK, NAK or READ response", "PROTOCOL.md 2.2"},
    {"becn_outside_cnp", "BECN set on an ORNIC opcode (only a CNP carries it)", "PROTOCOL.md 2.2"},
    {"offset_beyond_dma", "OFFETH Offset is not below the RETH DMA length", "PROTOCOL.md 3.3"},
    {"offset_not_pmtu", "OFFETH Offset is not a multiple of PMTU", "PROTOCOL.md 3.3"},
    {"spot_not_pmtu", "FSpot/Spot payload differs from PMTU", "PROTOCOL.md 2.5"},
    {"nak_limit_out_of_range", "NAK Limit PSN not in (Base PSN, Trigger PSN]", "PROTOCOL.md 3.5"},
};

const char *ornic_lint_name(unsigned i) { return i < ORNIC_LINT_COUNT ? rows[i].name : NULL; }
const char *ornic_lint_text(unsigned i) { return i < ORNIC_LINT_COUNT ? rows[i].text : NULL; }
const char *ornic_lint_rule(unsigned i) { return i < ORNIC_LINT_COUNT ? rows[i].rule : NULL; }

/* L1, L2: pad of a frame whose payload was located (f->payload set). */
static uint32_t lint_pad(const ornic_frame *f, const uint8_t *data, bool ornic_op) {
  uint32_t w = 0;
  if (!f->payload) return 0;
  /* ORNIC opcodes with a misaligned length are malformed already (D7). */
  if (!ornic_op && (f->icrc_off - f->ext_off) % 4) w |= ORNIC_LINT_PAD_ALIGN;
  size_t pad = f->payload_off + f->payload_len;
  for (size_t i = 0; i < f->pad_len && pad + i < f->caplen; i++)
    if (data[pad + i]) w |= ORNIC_LINT_PAD_NONZERO;
  return w;
}

/* L3-L5, L13. */
static uint32_t lint_nak(const ornic_frame *f) {
  const ornic_naketh *nak = &f->ext.naketh;
  uint32_t w = 0;
  if (f->bth.psn != nak->base_psn) w |= ORNIC_LINT_NAK_PSN;
  if (ornic_psn_diff(nak->trigger_psn, nak->base_psn) <= 0) w |= ORNIC_LINT_NAK_TRIGGER;
  if (ornic_naketh_block(nak, 0) & 1) w |= ORNIC_LINT_NAK_BASE_BIT;
  if (ornic_psn_diff(nak->limit_psn, nak->base_psn) <= 0 ||
      ornic_psn_diff(nak->limit_psn, nak->trigger_psn) > 0)
    w |= ORNIC_LINT_NAK_LIMIT;
  return w;
}

/* L10-L12: where this packet's payload lies in its WQE. */
static uint32_t lint_offset(const ornic_frame *f, uint32_t pmtu) {
  uint32_t w = 0, off = f->ext.offeth.offset;
  if (f->ext.present & ORNIC_HDR_RETH) {
    uint32_t dma = f->ext.reth.dmalen;
    if (off >= (dma ? dma : 1)) w |= ORNIC_LINT_OFFSET_DMA;
  }
  if (pmtu && off % pmtu) w |= ORNIC_LINT_OFFSET_PMTU;
  return w;
}

static bool is_spot(uint8_t op) {
  return op == ORNIC_OP_OOO_WRITE_FSPOT || op == ORNIC_OP_OOO_WRITE_SPOT;
}

uint32_t ornic_lint(const ornic_frame *f, const uint8_t *data, uint32_t pmtu) {
  if (!(f->layers & ORNIC_LAYER_BTH)) return 0;
  uint8_t op = f->bth.opcode;
  const ornic_opcode_info *info = ornic_opcode_info_get(op);
  bool ornic_op = info->name && info->transport == ORNIC_TRANSPORT_ORNIC;
  uint16_t have = f->ext.present;
  uint32_t w = lint_pad(f, data, ornic_op);
  if (op == ORNIC_OP_NAK && (have & ORNIC_HDR_NAKETH)) w |= lint_nak(f);
  if ((have & ORNIC_HDR_OACKETH) &&
      (f->ext.oacketh.flags & (ORNIC_OACK_ADDR_CACHED | ORNIC_OACK_WQE_DONE)) ==
          (ORNIC_OACK_ADDR_CACHED | ORNIC_OACK_WQE_DONE))
    w |= ORNIC_LINT_OACK_FLAGS;
  if (ornic_op) {
    if (f->bth.se && !(info->hdrs & ORNIC_HDR_IMMDT)) w |= ORNIC_LINT_SE;
    if (f->bth.ackreq && (info->flags & ORNIC_OPF_RESPONSE)) w |= ORNIC_LINT_ACKREQ;
    if (f->bth.becn) w |= ORNIC_LINT_BECN;
  }
  if (have & ORNIC_HDR_OFFETH) w |= lint_offset(f, pmtu);
  if (pmtu && is_spot(op) && f->payload && f->payload_len != pmtu) w |= ORNIC_LINT_SPOT_PMTU;
  return w;
}
