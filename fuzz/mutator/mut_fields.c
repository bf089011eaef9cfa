/* SPDX-License-Identifier: MIT */
/* Field mutations of a decoded frame (m->f), each with the protocol
 * knowledge that makes it likely to reach a parser's transport logic:
 * opcodes from the table of ornic/opcode.h, PSNs at the 24-bit wrap
 * (docs/PROTOCOL.md section 4), NAK bitmaps and Limit PSN (PROTOCOL.md 3.5
 * and 4.4), AETH syndromes (IBA 9.7.5.1, ../shared/IBA_NOTES.md section 3),
 * ORNIC offsets one PMTU off (PROTOCOL.md 3.2). The frame is re-encoded by
 * the caller, which keeps lengths, checksums and the iCRC consistent. */
#include <string.h>

#include "mut_internal.h"

#define PSN_MASK 0xffffffu

static const ornic_opcode_info *info(uint8_t op) { return ornic_opcode_info_get(op); }

/* Makes the extension headers and payload fit the new opcode's layout so
 * that ornic_frame_encode accepts it: a NAKETH needs at least one block, an
 * opcode without payload carries none. */
static void fit_layout(ornic_mut *m) {
  const ornic_opcode_info *oi = info(m->f.bth.opcode);
  if ((oi->hdrs & ORNIC_HDR_NAKETH) && m->f.ext.naketh.nblocks == 0) {
    m->f.ext.naketh.nblocks = 1;
    m->f.ext.naketh.base_psn = m->f.bth.psn;
    m->f.ext.naketh.limit_psn = (m->f.bth.psn + 1) & PSN_MASK;
    m->f.ext.naketh.reason = ORNIC_NAKETH_OTD_EXCEEDED;
    memset(m->bitmap, 0, 2);
  }
  m->f.ext.naketh.bitmap = m->bitmap;
  if (!(oi->flags & ORNIC_OPF_PAYLOAD)) m->f.payload_len = 0;
}

/* Transport blocks an opcode may move to (opcode.h): RC, UC, UD, XRC; the
 * ORNIC block and the CNP are drawn separately. */
static const uint8_t blocks[] = {0x00, 0x20, 0x60, 0xa0};

static int pick_opcode(ornic_mut *m, uint8_t old, uint8_t *out) {
  for (int tries = 0; tries < 16; tries++) {
    uint8_t op;
    switch (mut_rng_below(&m->rng, 4)) {
    case 0: /* within the transport */
      op = (uint8_t)((old & 0xe0) | mut_rng_below(&m->rng, 32));
      break;
    case 1: /* the same operation in another transport */
      op = (uint8_t)(blocks[mut_rng_below(&m->rng, 4)] | (old & 0x1f));
      break;
    case 2: /* the ORNIC block, PROTOCOL.md section 3 */
      op = (uint8_t)(ORNIC_OP_OOO_WRITE_FSPOT + mut_rng_below(&m->rng, 11));
      break;
    default: op = mut_rng_below(&m->rng, 8) ? (uint8_t)mut_rng_below(&m->rng, 0x18) : ORNIC_OP_CNP;
    }
    if (op != old && info(op)->name && !ornic_opcode_dc_len(op, 0)) {
      *out = op;
      return 1;
    }
  }
  return 0;
}

static int step_opcode(ornic_mut *m) {
  uint8_t old = m->f.bth.opcode, op;
  if (!pick_opcode(m, old, &op)) return 0;
  m->f.bth.opcode = op;
  m->wire_op_set = 0;
  fit_layout(m);
  mut_log(m, "opcode 0x%02x->0x%02x %s", old, op,
          ornic_opcode_transport(old) == ornic_opcode_transport(op) ? "within" : "across");
  return 1;
}

/* A 24-bit value near v or near the wrap. */
static uint32_t near_psn(ornic_mut *m, uint32_t v) {
  static const uint32_t fixed[] = {0xffffff, 0xfffffe, 0, 1, 0x7fffff, 0x800000};
  uint32_t d = 1 + mut_rng_below(&m->rng, 16);
  switch (mut_rng_below(&m->rng, 6)) {
  case 0: return fixed[mut_rng_below(&m->rng, 6)];
  case 1: return (v + d) & PSN_MASK;
  case 2: return (v - d) & PSN_MASK;
  case 3: return (v + 0x800000u + mut_rng_below(&m->rng, 3) - 1) & PSN_MASK; /* half the space */
  case 4: return (PSN_MASK - mut_rng_below(&m->rng, 64)) & PSN_MASK;
  default: return (uint32_t)mut_rng_next(&m->rng) & PSN_MASK;
  }
}

static int step_psn(ornic_mut *m) {
  uint32_t old = m->f.bth.psn;
  m->f.bth.psn = near_psn(m, old);
  mut_log(m, "psn 0x%06x->0x%06x", old, m->f.bth.psn);
  return 1;
}

/* Written over the derived PadCnt after encoding (mut_wire.c). */
static int step_padcnt(ornic_mut *m) {
  uint8_t derived = (uint8_t)((4 - m->f.payload_len % 4) % 4);
  uint8_t v = (uint8_t)((derived + 1 + mut_rng_below(&m->rng, 3)) & 3);
  m->wire_padcnt = v;
  mut_log(m, "padcnt %u->%u", derived, v);
  return 1;
}

static const uint32_t pmtus[] = {256, 512, 1024, 2048, 4096};

static int step_dmalen(ornic_mut *m) {
  if (!(info(m->f.bth.opcode)->hdrs & ORNIC_HDR_RETH)) return 0;
  uint32_t old = m->f.ext.reth.dmalen, pl = (uint32_t)m->f.payload_len, v;
  switch (mut_rng_below(&m->rng, 6)) {
  case 0: v = pl; break;
  case 1: v = pl + 1; break;
  case 2: v = pl ? pl - 1 : 0xffffffffu; break;
  case 3: v = 0; break;
  case 4: v = pmtus[mut_rng_below(&m->rng, 5)] * (1 + mut_rng_below(&m->rng, 4)); break;
  default: v = mut_rng_below(&m->rng, 2) ? 0xffffffffu : 0x80000000u + pl;
  }
  m->f.ext.reth.dmalen = v;
  mut_log(m, "dmalen %u->%u (payload %u)", old, v, pl);
  return 1;
}

/* Another opcode whose layout is this one's without `bit`. */
static int opcode_without(uint8_t op, uint16_t bit, uint8_t *out) {
  uint16_t want = (uint16_t)(info(op)->hdrs & ~bit);
  for (unsigned o = 0; o < 256; o++) {
    const ornic_opcode_info *oi = info((uint8_t)o);
    if (oi->name && oi->hdrs == want && !ornic_opcode_dc_len((uint8_t)o, 0)) {
      *out = (uint8_t)o;
      return 1;
    }
  }
  return 0;
}

/* An extension header the opcode lacks, written at the front of the payload:
 * on the wire it follows the opcode's own headers. */
static int ext_add(ornic_mut *m) {
  static const uint16_t extra[] = {ORNIC_HDR_IMMDT, ORNIC_HDR_IETH,   ORNIC_HDR_RETH,
                                   ORNIC_HDR_DETH,  ORNIC_HDR_OFFETH, ORNIC_HDR_AETH};
  if (!(info(m->f.bth.opcode)->flags & ORNIC_OPF_PAYLOAD)) return 0;
  uint16_t bit = extra[mut_rng_below(&m->rng, 6)];
  size_t n = ornic_hdr_size(bit);
  if (m->f.payload_len + n > MUT_MAX_FRAME - 256) return 0;
  memmove(m->pay + n, m->pay, m->f.payload_len);
  if (ornic_ext_encode_one(m->pay, n, &m->f.ext, bit) != (ornic_ssize)n) return 0;
  m->f.payload_len += n;
  mut_log(m, "ext +%s", ornic_hdr_name(bit));
  return 1;
}

/* One of the opcode's headers left out: encode the opcode that lacks it,
 * then write the original opcode back on the wire (mut_wire.c). */
static int ext_remove(ornic_mut *m) {
  uint16_t hdrs = info(m->f.bth.opcode)->hdrs;
  if (!hdrs) return 0;
  unsigned nbits = 0;
  for (unsigned b = 0; b < ORNIC_HDR_COUNT; b++) nbits += (hdrs >> b) & 1u;
  unsigned k = mut_rng_below(&m->rng, nbits);
  uint16_t bit = 0;
  for (unsigned b = 0; b < ORNIC_HDR_COUNT && !bit; b++)
    if (((hdrs >> b) & 1u) && k-- == 0) bit = (uint16_t)(1u << b);
  uint8_t op;
  if (!opcode_without(m->f.bth.opcode, bit, &op)) return 0;
  m->wire_op = m->f.bth.opcode;
  m->wire_op_set = 1;
  m->f.bth.opcode = op;
  fit_layout(m);
  mut_log(m, "ext -%s", ornic_hdr_name(bit));
  return 1;
}

static int ext_reorder(ornic_mut *m) {
  uint16_t hdrs = info(m->f.bth.opcode)->hdrs;
  if ((hdrs & (hdrs - 1)) == 0 || (hdrs & ORNIC_HDR_NAKETH)) return 0;
  m->wire_reorder = 1;
  mut_log(m, "ext reordered");
  return 1;
}

static int step_ext(ornic_mut *m) {
  switch (mut_rng_below(&m->rng, 3)) {
  case 0: return ext_add(m);
  case 1: return ext_remove(m);
  default: return ext_reorder(m);
  }
}

static void nak_bitmap(ornic_mut *m, unsigned nblocks) {
  unsigned shape = mut_rng_below(&m->rng, 5), nbytes = 2 * nblocks;
  for (unsigned i = 0; i < nbytes; i++) {
    switch (shape) {
    case 0: m->bitmap[i] = 0; break;
    case 1: m->bitmap[i] = 0xff; break;
    case 2: m->bitmap[i] = 0x55; break;
    case 3: m->bitmap[i] = 0xff; break; /* one hole, below */
    default: m->bitmap[i] = (uint8_t)mut_rng_next(&m->rng);
    }
  }
  if (shape == 3)
    m->bitmap[mut_rng_below(&m->rng, nbytes)] ^= (uint8_t)(1u << mut_rng_below(&m->rng, 8));
}

static int step_nak(ornic_mut *m) {
  if (!(info(m->f.bth.opcode)->hdrs & ORNIC_HDR_NAKETH)) return 0;
  ornic_naketh *n = &m->f.ext.naketh;
  switch (mut_rng_below(&m->rng, 4)) {
  case 0: {
    static const unsigned counts[] = {1, 2, 3, 16, 255};
    unsigned old = n->nblocks, nb = counts[mut_rng_below(&m->rng, 5)];
    n->nblocks = (uint8_t)nb;
    nak_bitmap(m, nb);
    mut_log(m, "nak blocks %u->%u", old, nb);
    break;
  }
  case 1: {
    uint32_t old = n->limit_psn, span = 16u * n->nblocks;
    static const int32_t d[] = {0, -1, 1, 2};
    switch (mut_rng_below(&m->rng, 3)) {
    case 0: n->limit_psn = (n->base_psn + (uint32_t)d[mut_rng_below(&m->rng, 4)]) & PSN_MASK; break;
    case 1: n->limit_psn = (n->base_psn + span + mut_rng_below(&m->rng, 3) - 1) & PSN_MASK; break;
    default: n->limit_psn = near_psn(m, n->limit_psn);
    }
    mut_log(m, "nak limit 0x%06x->0x%06x", old, n->limit_psn);
    break;
  }
  case 2: {
    uint32_t old = n->base_psn;
    n->base_psn = near_psn(m, m->f.bth.psn);
    mut_log(m, "nak base 0x%06x->0x%06x", old, n->base_psn);
    break;
  }
  default: {
    uint8_t old = n->reason;
    n->reason = mut_rng_below(&m->rng, 2) ? (uint8_t)mut_rng_below(&m->rng, 4)
                                          : (uint8_t)mut_rng_next(&m->rng);
    nak_bitmap(m, n->nblocks);
    mut_log(m, "nak reason %u->%u, bitmap reshaped", old, n->reason);
  }
  }
  return 1;
}

static int step_aeth(ornic_mut *m) {
  /* ACK credits, "no credit count", RNR timers, the NAK codes, reserved NAK
   * codes and reserved types (headers.h, IBA 9.7.5.1). */
  static const uint8_t syn[] = {0x00, 0x1f, 0x0a, 0x20, 0x21, 0x3f, 0x40, 0x5f, 0x60, 0x61,
                                0x62, 0x63, 0x64, 0x65, 0x7f, 0x80, 0xa0, 0xc0, 0xe0, 0xff};
  if (!(info(m->f.bth.opcode)->hdrs & ORNIC_HDR_AETH)) return 0;
  ornic_aeth *a = &m->f.ext.aeth;
  if (mut_rng_below(&m->rng, 4)) {
    uint8_t old = a->syndrome;
    a->syndrome = syn[mut_rng_below(&m->rng, sizeof syn)];
    mut_log(m, "aeth syndrome 0x%02x->0x%02x", old, a->syndrome);
  } else {
    uint32_t old = a->msn;
    a->msn = near_psn(m, old);
    mut_log(m, "aeth msn 0x%06x->0x%06x", old, a->msn);
  }
  return 1;
}

/* Reserved bits a receiver must ignore (IBA 9.2: "transmitted as 0, not
 * checked"), and TVer, which it must check. */
static int step_resv(ornic_mut *m) {
  ornic_bth *b = &m->f.bth;
  switch (mut_rng_below(&m->rng, 4)) {
  case 0:
    b->resv6 = (uint8_t)(1 + mut_rng_below(&m->rng, 63));
    mut_log(m, "resv bth.resv6 0x%02x", b->resv6);
    break;
  case 1:
    b->resv7 = (uint8_t)(1 + mut_rng_below(&m->rng, 127));
    mut_log(m, "resv bth.resv7 0x%02x", b->resv7);
    break;
  case 2:
    b->tver = (uint8_t)(1 + mut_rng_below(&m->rng, 15));
    mut_log(m, "resv bth.tver %u", b->tver);
    break;
  default: {
    uint8_t v = (uint8_t)(1 + mut_rng_below(&m->rng, 255));
    m->f.ext.deth.resv = m->f.ext.rdeth.resv = m->f.ext.xrceth.resv = v;
    m->f.ext.oacketh.resv = m->f.ext.naketh.resv = v;
    mut_log(m, "resv ext 0x%02x", v);
  }
  }
  return 1;
}

static int step_offset(ornic_mut *m) {
  if (!(info(m->f.bth.opcode)->hdrs & ORNIC_HDR_OFFETH)) return 0;
  uint32_t old = m->f.ext.offeth.offset, p = pmtus[mut_rng_below(&m->rng, 5)], v;
  switch (mut_rng_below(&m->rng, 5)) {
  case 0: v = old + p; break;
  case 1: v = old - p; break;
  case 2: v = old + 1; break;
  case 3: v = 0; break;
  default: v = old + p + mut_rng_below(&m->rng, 3) - 1;
  }
  m->f.ext.offeth.offset = v;
  mut_log(m, "offset %u->%u", old, v);
  return 1;
}

static int step_payload(ornic_mut *m) {
  if (!(info(m->f.bth.opcode)->flags & ORNIC_OPF_PAYLOAD)) return 0;
  size_t old = m->f.payload_len, v;
  switch (mut_rng_below(&m->rng, 5)) {
  case 0: v = mut_rng_below(&m->rng, 4); break;
  case 1: v = old + 1; break;
  case 2: v = old ? old - 1 : 1; break;
  case 3: v = pmtus[mut_rng_below(&m->rng, 5)] + mut_rng_below(&m->rng, 3) - 1; break;
  default: v = old * 2 + 1;
  }
  if (v > MUT_MAX_FRAME - 256) v = MUT_MAX_FRAME - 256;
  for (size_t i = old; i < v; i++) m->pay[i] = (uint8_t)(i * 0x9d + old);
  m->f.payload_len = v;
  mut_log(m, "payload %zu->%zu", old, v);
  return 1;
}

int mut_field_step(ornic_mut *m) {
  static int (*const steps[])(ornic_mut *) = {step_opcode, step_psn,    step_padcnt, step_dmalen,
                                              step_ext,    step_nak,    step_aeth,   step_resv,
                                              step_offset, step_payload};
  return steps[mut_rng_below(&m->rng, sizeof steps / sizeof steps[0])](m);
}
