/* SPDX-License-Identifier: MIT */
/* The requester model and the responder oracle (fuzz_responder_model.h). */
#include "fuzz_responder_model.h"

#include <string.h>

#include "fuzz_driver.h"
#include "pattern.h"
#include "workload.h"

/* WQE lengths, in PMTUs and bytes: empty, tiny, exact, one byte over, a few,
 * unaligned, and long enough for multi-block NAKs. */
static uint64_t wqe_len(uint32_t pmtu, unsigned i) {
  static const uint32_t pmtus[8] = {0, 0, 1, 1, 3, 5, 17, MODEL_MAX_PKTS};
  static const uint32_t extra[8] = {0, 1, 0, 1, 0, 7, 0, 0};
  return (uint64_t)pmtus[i % 8] * pmtu + extra[i % 8];
}

/* Far apart and 4 KiB aligned, inside the QP's registered region (workload.h). */
static uint64_t wqe_va(uint32_t q, uint32_t k) {
  return WL_VA_BASE + ((uint64_t)q << WL_VA_SPAN_BITS) + (uint64_t)k * (MODEL_MAX_PKTS * 4096ull);
}

void model_init(model *m, const sim_config *cfg, unsigned len_seed, bool reads) {
  memset(m, 0, sizeof *m);
  m->cfg = cfg;
  for (uint32_t q = 0; q < cfg->workload.qps && q < MODEL_QPS; q++) {
    model_qp *qp = &m->qp[q];
    m->key[q] = wl_key(cfg, q);
    qp->first_psn = wl_start_psn(cfg, q);
    uint32_t psn = qp->first_psn;
    for (uint32_t k = 0; k < MODEL_WQES; k++) {
      model_wqe *w = &qp->w[k];
      w->len = wqe_len(cfg->workload.pmtu, len_seed + 3 * k + q);
      w->npkts = wl_npkts(w->len, cfg->workload.pmtu);
      w->read = reads && (len_seed + k) % 3 == 2;
      w->va = wqe_va(q, k);
      w->start_psn = psn;
      psn = ornic_psn_add(psn, (int32_t)w->npkts);
    }
  }
}

static uint32_t last_len(const model_wqe *w, uint32_t pmtu) {
  return (uint32_t)(w->len - (uint64_t)(w->npkts - 1) * pmtu);
}

void model_frame(model *m, uint32_t q, uint32_t k, uint32_t idx, uint32_t count, bool prefer_spot,
                 bool imm, bool ackreq, ornic_frame *f, uint8_t *payload) {
  model_qp *qp = &m->qp[q];
  model_wqe *w = &qp->w[k];
  uint32_t pmtu = m->cfg->workload.pmtu;
  f->bth.destqp = wl_resp_qpn(q);
  f->bth.psn = ornic_psn_add(w->start_psn, (int32_t)idx);
  f->bth.ackreq = ackreq;
  f->ext.reth.rkey = wl_rkey(q);
  f->ext.reth.va = w->va + (uint64_t)idx * pmtu;
  f->payload = payload;
  f->payload_len = 0;
  if (w->read) {
    uint32_t left = w->npkts - idx;
    uint32_t n = count && count < left ? count : left;
    f->bth.opcode = ORNIC_OP_OOO_READ_REQ;
    f->ext.reth.dmalen = (uint32_t)(n == left ? w->len - (uint64_t)idx * pmtu : (uint64_t)n * pmtu);
    return;
  }
  bool last = idx == w->npkts - 1;
  /* PROTOCOL.md 4.2: Spot / Last only once ADDR_CACHED was seen for this WQE. */
  bool spot = prefer_spot && k == qp->done && qp->cached;
  if (!last)
    f->bth.opcode = spot ? ORNIC_OP_OOO_WRITE_SPOT : ORNIC_OP_OOO_WRITE_FSPOT;
  else if (spot)
    f->bth.opcode = imm ? ORNIC_OP_OOO_WRITE_LAST_IMM : ORNIC_OP_OOO_WRITE_LAST;
  else
    f->bth.opcode = imm ? ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM : ORNIC_OP_OOO_WRITE_LAST_ADDR;
  f->ext.reth.va = w->va + (uint64_t)idx * pmtu;
  f->ext.reth.dmalen = (uint32_t)w->len;
  f->ext.offeth.offset = idx * pmtu;
  f->ext.immdt.data = 0x494d4d00u | k;
  f->payload_len = last ? last_len(w, pmtu) : pmtu;
  pattern_fill(payload, m->key[q], f->ext.reth.va, f->payload_len);
}

static bool bit_get(const uint8_t *b, uint32_t i) { return b[i / 8] >> (i % 8) & 1; }
static void bit_set(uint8_t *b, uint32_t i) { b[i / 8] |= (uint8_t)(1u << (i % 8)); }

void model_delivered(model *m, uint32_t q, uint32_t k, uint32_t idx, bool read_request) {
  model_wqe *w = &m->qp[q].w[k];
  if (!read_request)
    bit_set(w->got, idx);
  else if (idx == 0)
    w->requested = true;
}

/* The WQE and index of the PSN `off` packets after the QP's first; false past the last WQE. */
static bool locate(const model_qp *qp, uint64_t off, uint32_t *k, uint32_t *idx) {
  for (uint32_t j = 0; j < MODEL_WQES; j++) {
    if (off < qp->w[j].npkts) {
      *k = j;
      *idx = (uint32_t)off;
      return true;
    }
    off -= qp->w[j].npkts;
  }
  return false;
}

/* Whether the requester sent the data (or the READ) of PSN first_psn + off. */
static bool was_sent(const model_qp *qp, uint64_t off) {
  uint32_t k, idx;
  if (!locate(qp, off, &k, &idx)) return false;
  return qp->w[k].read ? qp->w[k].requested : bit_get(qp->w[k].got, idx);
}

/* The core promise: a cumulative ACK of PSN a stands for data that arrived. */
static void check_ack_covered(model_qp *qp, uint32_t q, uint32_t a) {
  int32_t upto = ornic_psn_diff(ornic_psn_add(a, 1), qp->first_psn);
  fuzz_check(upto >= 0, "QP %u: ACK of PSN %#x, before the first PSN %#x", q, a, qp->first_psn);
  for (uint64_t off = qp->verified; off < (uint64_t)upto; off++)
    fuzz_check(was_sent(qp, off), "QP %u: ACK of PSN %#x covers PSN %#x, which was never sent", q,
               a, ornic_psn_add(qp->first_psn, (int32_t)off));
  if ((uint64_t)upto > qp->verified) qp->verified = (uint64_t)upto;
}

static void rx_ack(model *m, model_qp *qp, uint32_t q, const ornic_frame *f) {
  uint8_t flags = f->ext.oacketh.flags;
  if (qp->tainted) return;
  check_ack_covered(qp, q, f->bth.psn);
  if (qp->done >= MODEL_WQES) return;
  model_wqe *w = &qp->w[qp->done];
  uint32_t last = ornic_psn_add(w->start_psn, (int32_t)w->npkts - 1);
  if ((flags & ORNIC_OACK_WQE_DONE) && !w->read && f->bth.psn == last) {
    fuzz_check(f->ext.aeth.msn == qp->done + 1, "QP %u: WQE %u done with MSN %u", q, qp->done,
               f->ext.aeth.msn);
    qp->done++;
    qp->cached = false;
  } else if ((flags & ORNIC_OACK_ADDR_CACHED) && f->ext.aeth.msn == qp->done && !w->read) {
    qp->cached = true;
  }
  (void)m;
}

static void rx_nak(model_qp *qp, uint32_t q, const ornic_frame *f) {
  const ornic_naketh *nak = &f->ext.naketh;
  if (qp->tainted) return;
  int32_t span = ornic_psn_diff(nak->trigger_psn, nak->base_psn);
  fuzz_check(span >= 0, "QP %u: NAK trigger %#x before base %#x", q, nak->trigger_psn,
             nak->base_psn);
  uint32_t want = (uint32_t)span / 16 + 1;
  fuzz_check(nak->nblocks == (want > ORNIC_NAKETH_MAX_BLOCKS ? ORNIC_NAKETH_MAX_BLOCKS : want),
             "QP %u: NAK with %u blocks for trigger - base = %d", q, nak->nblocks, span);
  /* "Every bit is the responder's true receive state" (4.4); bit 0 of block 0 is reserved. */
  int32_t base_off = ornic_psn_diff(nak->base_psn, qp->first_psn);
  fuzz_check(base_off >= 0, "QP %u: NAK base before the first PSN", q);
  for (uint32_t i = 1; i < 16u * nak->nblocks; i++)
    if (ornic_naketh_block(nak, i / 16) >> (i % 16) & 1)
      fuzz_check(was_sent(qp, (uint64_t)base_off + i),
                 "QP %u: NAK says PSN %#x arrived; it was never sent", q,
                 ornic_psn_add(nak->base_psn, (int32_t)i));
}

/* READ responses carry the memory's bytes; the last one completes the READ. */
static void rx_read_resp(model *m, model_qp *qp, uint32_t q, const ornic_frame *f) {
  if (qp->tainted) return;
  uint32_t k, idx;
  int32_t off = ornic_psn_diff(f->bth.psn, qp->first_psn);
  fuzz_check(off >= 0 && locate(qp, (uint64_t)off, &k, &idx) && qp->w[k].read && qp->w[k].requested,
             "QP %u: READ response PSN %#x answers no READ", q, f->bth.psn);
  model_wqe *w = &qp->w[k];
  uint32_t pmtu = m->cfg->workload.pmtu;
  bool last = idx == w->npkts - 1;
  fuzz_check(last == (f->bth.opcode == ORNIC_OP_OOO_READ_RESP_LAST),
             "QP %u: READ response %#x of PSN %#x: packet %u of WQE %u's %u", q, f->bth.opcode,
             f->bth.psn, idx, k, w->npkts);
  fuzz_check(f->payload_len == (last ? last_len(w, pmtu) : pmtu),
             "QP %u: READ response of %zu bytes", q, f->payload_len);
  uint64_t va = w->va + (uint64_t)idx * pmtu;
  fuzz_check(pattern_check(f->payload, m->key[q], va, f->payload_len) == (size_t)-1,
             "QP %u: READ response PSN %#x has the wrong bytes", q, f->bth.psn);
  if (!bit_get(w->got, idx)) {
    bit_set(w->got, idx);
    if (++w->received == w->npkts && k == qp->done) {
      qp->done++;
      qp->cached = false;
    }
  }
}

void model_rx(model *m, const ornic_frame *f) {
  /* responder_sim.c checked the QP, the opcode and what every ACK and NAK must hold. */
  uint32_t q = (uint32_t)wl_qp_index(m->cfg, f->bth.destqp, false);
  model_qp *qp = &m->qp[q];
  switch (f->bth.opcode) {
  case ORNIC_OP_ACK: rx_ack(m, qp, q, f); break;
  case ORNIC_OP_NAK: rx_nak(qp, q, f); break;
  case ORNIC_OP_OOO_READ_RESP:
  case ORNIC_OP_OOO_READ_RESP_LAST: rx_read_resp(m, qp, q, f); break;
  case ORNIC_OP_RC_ACK:
    fuzz_check(qp->tainted, "QP %u: fatal NAK (syndrome %#x, PSN %#x) for an honest requester", q,
               f->ext.aeth.syndrome, f->bth.psn);
    qp->fatal = true;
    break;
  default: break;
  }
}
