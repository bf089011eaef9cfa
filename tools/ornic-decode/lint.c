/* Per-frame protocol lint; see lint.h. Only a few compares per frame. */
#include "lint.h"

#include <ornic/ornic.h>

static const char *const warn_names[DEC_WARN_COUNT] = {"pad_not_aligned", "pad_not_zero",
                                                       "nak_psn_not_base", "ack_flags_both_set"};

const char *dec_warn_name(unsigned i) { return i < DEC_WARN_COUNT ? warn_names[i] : "?"; }

static unsigned lint_pad(const ornic_frame *f, const uint8_t *l2) {
  unsigned w = 0;
  /* ORNIC opcodes with a misaligned length are already malformed (D7). */
  if ((f->icrc_off - f->ext_off) % 4) w |= DEC_WARN_PAD_ALIGN;
  const uint8_t *pad = l2 + f->payload_off + f->payload_len;
  for (unsigned i = 0; i < f->pad_len; i++)
    if (pad[i]) w |= DEC_WARN_PAD_NONZERO;
  return w;
}

unsigned dec_lint(const ornic_frame *f, const uint8_t *l2) {
  unsigned w = lint_pad(f, l2);
  if (f->bth.opcode == ORNIC_OP_NAK && (f->ext.present & ORNIC_HDR_NAKETH) &&
      f->bth.psn != f->ext.naketh.base_psn)
    w |= DEC_WARN_NAK_PSN;
  if (f->bth.opcode == ORNIC_OP_ACK && (f->ext.present & ORNIC_HDR_OACKETH) &&
      (f->ext.oacketh.flags & ORNIC_OACK_ADDR_CACHED) && (f->ext.oacketh.flags & ORNIC_OACK_WQE_DONE))
    w |= DEC_WARN_OACK_FLAGS;
  return w;
}
