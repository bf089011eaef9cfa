/* SPDX-License-Identifier: MIT */
#include "ornic_resp.h"

#include <stdlib.h>
#include <string.h>

#include "fifo.h"
#include "ornic_bitmap.h"
#include "ready.h"
#include "verify.h"
#include "workload.h"

enum { TMR_RESP = 0, TMR_LAST = 1, TMR_ENGINE = 2 };

typedef struct {
  uint32_t q;
  bool error, in_ready;
  uint32_t epsn, msn;
  /* OOO WRITE: address cache + the WQE being received (4.3) */
  bool cache;
  uint64_t start_addr, len;
  uint32_t start_psn, n, last_psn, rkey;
  wqe_verify ver; /* its integrity check, packet by packet as they are placed */
  obm *bm;
  uint32_t hpsn;
  bool last_seen;
  uint32_t since_ack;
  bool ack_req; /* its bit in the ACK scheduler's register (--ack-engine-ns) */
  bool have_done;
  uint32_t done_psn; /* Last_PSN of the WQE that msn counts */
  bool nak_active;
  uint32_t nak_limit;
  uint64_t nak_ps;
  ltimer t_resp, t_last;
  /* OOO READ in flight (4.5) */
  bool rd_valid;
  uint32_t rd_psn, rd_n, rd_last_len, rd_rkey;
  uint64_t rd_va, rd_len, rd_count;
  uint32_t orig_idx, orig_left; /* the first execution, streamed at line rate */
  u32fifo retryq;               /* pairs (first index, count) re-read on request */
  uint32_t cur_idx, cur_left;   /* the retry being answered */
} rqp;

struct oresp {
  sim *s;
  const sim_config *cfg;
  rqp *qp;
  u32fifo ready;
  obm_pool *pool;
  uint64_t t_resp, t_last; /* PROTOCOL.md 4.1: RTT + OTD/B and OTD/B */
  /* The ACK engine (--ack-engine-ns): QPs whose register bit is set, in the
   * order they set it, served one ACK per service time. */
  u32fifo ackq;
  uint64_t engine_free_ps;
  ltimer engine;
};

static void make_ready(oresp *R, rqp *qp) {
  ready_add(&R->ready, &qp->in_ready, qp->q, R->s, NODE_RESP);
}

static void frame_to_requester(oresp *R, rqp *qp, ornic_frame *f, uint8_t opcode, uint32_t psn) {
  sim_frame(R->s, NODE_RESP, f);
  f->bth.opcode = opcode;
  f->bth.destqp = wl_qpn(R->cfg, false, qp->q);
  f->bth.psn = psn & ORNIC_PSN_MASK;
}

static void emit(oresp *R, ornic_frame *f, uint8_t kind, uint32_t q) {
  pkt_meta m = {kind, 0, q, 0, 0, 0, 0};
  pkt *p = sim_encode(R->s, NODE_RESP, f, &m);
  if (p) sim_send(R->s, NODE_RESP, p);
}

/* ---- ACK, NAK, fatal NAK ------------------------------------------------------ */

static void send_ack(oresp *R, rqp *qp) {
  ornic_frame f;
  frame_to_requester(R, qp, &f, ORNIC_OP_ACK, qp->epsn - 1);
  uint8_t flags = 0;
  if (qp->cache)
    flags = ORNIC_OACK_ADDR_CACHED;
  else if (qp->have_done && ornic_psn_add(qp->epsn, -1) == qp->done_psn)
    flags = ORNIC_OACK_WQE_DONE;
  f.ext.aeth = (ornic_aeth){SIM_AETH_ACK, qp->msn};
  f.ext.oacketh =
      (ornic_oacketh){flags, 0, (uint16_t)(qp->since_ack > 0xffff ? 0xffff : qp->since_ack)};
  qp->since_ack = 0;
  emit(R, &f, PK_ACK, qp->q);
}

static bool hole(const rqp *qp) { return qp->cache && ornic_psn_lt(qp->epsn, qp->hpsn); }

static void arm(oresp *R, rqp *qp, ltimer *t, unsigned which, uint64_t after) {
  ltimer_arm(R->s, t, NODE_RESP, qp->q << 4 | which, sim_now(R->s) + after);
}

static void send_nak(oresp *R, rqp *qp, uint8_t reason, uint32_t trigger) {
  uint16_t blocks[ORNIC_NAKETH_MAX_BLOCKS];
  uint8_t bytes[2 * ORNIC_NAKETH_MAX_BLOCKS];
  const sim_protocol *pr = &R->cfg->protocol;
  unsigned n = obm_nak_blocks(qp->bm, qp->epsn, trigger, blocks,
                              pr->nak_all_blocks ? ORNIC_NAKETH_MAX_BLOCKS : 1);
  ornic_naketh_bitmap_pack(bytes, blocks, n);
  /* The loss limit (4.4), on the wire since spec 0.2: reason 1 proves late
   * only PSNs more than OTD behind the trigger; reasons 2 and 3 everything
   * before it. */
  uint32_t limit = reason == ORNIC_NAKETH_OTD_EXCEEDED && pr->nak_loss_limit
                       ? ornic_psn_add(trigger, -(int32_t)pr->otd)
                       : trigger;
  ornic_frame f;
  frame_to_requester(R, qp, &f, ORNIC_OP_NAK, qp->epsn);
  f.ext.aeth = (ornic_aeth){ORNIC_AETH_NAK, qp->msn};
  f.ext.naketh = (ornic_naketh){reason, trigger, (uint8_t)n, qp->epsn, 0, limit, bytes};
  emit(R, &f, PK_NAK, qp->q);
  qp->nak_active = true;
  /* Only the lost set is being retransmitted: PSNs after it may still be in flight. */
  qp->nak_limit = ornic_psn_add(qp->epsn, (int32_t)ornic_naketh_lost_span(&f.ext.naketh));
  qp->nak_ps = sim_now(R->s);
  arm(R, qp, &qp->t_resp, TMR_RESP, R->t_resp); /* restarted by every NAK sent */
}

/* Reasons 1 and 3 wait while the retransmissions of the last NAK are on their way (4.4). */
static void maybe_nak(oresp *R, rqp *qp, uint8_t reason, uint32_t trigger) {
  if (R->cfg->protocol.nak_pacing && qp->nak_active && ornic_psn_lt(qp->epsn, qp->nak_limit) &&
      sim_now(R->s) - qp->nak_ps < R->t_resp)
    return;
  send_nak(R, qp, reason, trigger);
}

static void send_fatal(oresp *R, rqp *qp, uint8_t syndrome, uint32_t psn) {
  ornic_frame f;
  frame_to_requester(R, qp, &f, ORNIC_OP_RC_ACK, psn);
  f.ext.aeth = (ornic_aeth){syndrome, qp->msn};
  emit(R, &f, PK_FATAL, qp->q);
  qp->error = true;
}

/* ---- OOO WRITE acceptance (4.3 rules 4-7) -------------------------------------- */

static bool is_last_op(uint8_t op) {
  return op >= ORNIC_OP_OOO_WRITE_LAST && op <= ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM;
}

static bool has_addr(uint8_t op) {
  return op == ORNIC_OP_OOO_WRITE_FSPOT || op == ORNIC_OP_OOO_WRITE_LAST_ADDR ||
         op == ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM;
}

typedef struct {
  uint64_t start_addr, len;
  uint32_t start_psn, n, rkey;
} geometry;

/* Rules 4 and 5 for a packet that carries RETH + OFFETH; fills *g. */
static uint8_t check_addr(const oresp *R, const rqp *qp, const ornic_frame *f, geometry *g) {
  uint32_t pmtu = R->cfg->workload.pmtu, off = f->ext.offeth.offset;
  g->len = f->ext.reth.dmalen;
  g->start_addr = f->ext.reth.va - off;
  g->rkey = f->ext.reth.rkey;
  if (g->rkey != wl_rkey(qp->q) || off > f->ext.reth.va || !wl_va_ok(qp->q, g->start_addr, g->len))
    return ORNIC_AETH_NAK_REMOTE_ACCESS;
  uint64_t want = f->bth.opcode == ORNIC_OP_OOO_WRITE_FSPOT ? pmtu : g->len - off;
  if (off % pmtu || off >= (g->len ? g->len : 1) || f->payload_len != want)
    return ORNIC_AETH_NAK_INVALID_REQ;
  g->n = wl_npkts(g->len, pmtu);
  g->start_psn = ornic_psn_add(f->bth.psn, -(int32_t)(off / pmtu));
  if (qp->cache && (g->start_addr != qp->start_addr || g->start_psn != qp->start_psn ||
                    g->len != qp->len || g->rkey != qp->rkey))
    return ORNIC_AETH_NAK_INVALID_REQ;
  return 0;
}

/* Rules 4-7. 0 when the packet may be accepted, else the fatal NAK syndrome. */
static uint8_t check_request(const oresp *R, const rqp *qp, const ornic_frame *f, geometry *g) {
  uint8_t op = f->bth.opcode;
  if (has_addr(op)) {
    uint8_t syn = check_addr(R, qp, f, g);
    if (syn) return syn;
  } else if (!qp->cache) {
    return ORNIC_AETH_NAK_INVALID_REQ; /* rule 6: Spot / Last before the address is known */
  } else {
    *g = (geometry){qp->start_addr, qp->len, qp->start_psn, qp->n, qp->rkey};
  }
  uint32_t idx = ornic_psn_off(f->bth.psn, g->start_psn);
  bool last = idx == g->n - 1;
  uint64_t want =
      last ? g->len - (uint64_t)(g->n - 1) * R->cfg->workload.pmtu : R->cfg->workload.pmtu;
  if (idx >= g->n || last != is_last_op(op) || f->payload_len != want)
    return ORNIC_AETH_NAK_INVALID_REQ;
  return 0;
}

static bool fill_cache(oresp *R, rqp *qp, const geometry *g, uint32_t psn) {
  if (wv_start(&qp->ver, wl_key(R->cfg, qp->q), g->start_addr, g->len, R->cfg->workload.pmtu) < 0) {
    sim_fail(R->s, "out of memory: WQE of %llu bytes on QP %u", (unsigned long long)g->len, qp->q);
    return false;
  }
  qp->cache = true;
  qp->start_addr = g->start_addr;
  qp->len = g->len;
  qp->start_psn = g->start_psn;
  qp->n = g->n;
  qp->rkey = g->rkey;
  qp->last_psn = ornic_psn_add(g->start_psn, (int32_t)g->n - 1);
  qp->hpsn = psn;
  qp->last_seen = false;
  qp->nak_active = false;
  obm_start(qp->bm, g->start_psn, g->n);
  return true;
}

static void complete_wqe(oresp *R, rqp *qp) {
  if (!wv_complete_write(&qp->ver, R->s, qp->q)) return;
  sim_stats(R->s)->wqes_verified++;
  obm_finish(qp->bm);
  qp->cache = false;
  qp->msn = ornic_psn_add(qp->msn, 1);
  qp->have_done = true;
  qp->done_psn = qp->last_psn;
  qp->nak_active = false;
  ltimer_stop(&qp->t_resp);
  ltimer_stop(&qp->t_last);
  send_ack(R, qp); /* with WQE_DONE, now */
}

/* The register scheduler of the paper's ACK aggregation (docs/PROTOCOL.md
 * 4.3, --ack-engine-ns): a QP with new packets sets its bit; the engine,
 * when free, takes the oldest set bit and sends that QP one ACK covering
 * every packet accepted since its last ACK, then is busy for the service
 * time. Idle, it answers each packet; busy, one ACK stands for all the
 * packets that arrived meanwhile. An ACK sent for another reason (address
 * cached, WQE done, probe, duplicate) clears the count, and an empty bit is
 * skipped without using the engine. */
static void engine_serve(oresp *R) {
  uint64_t now = sim_now(R->s), service = (uint64_t)R->cfg->protocol.ack_engine_ns * 1000;
  uint32_t q;
  while (now >= R->engine_free_ps && fifo_pop(&R->ackq, &q)) {
    rqp *qp = &R->qp[q];
    qp->ack_req = false;
    if (!qp->since_ack) continue;
    send_ack(R, qp);
    R->engine_free_ps = now + service;
  }
  if (R->ackq.len) ltimer_arm(R->s, &R->engine, NODE_RESP, TMR_ENGINE, R->engine_free_ps);
}

static void request_ack(oresp *R, rqp *qp) {
  if (!qp->ack_req) {
    qp->ack_req = true;
    if (fifo_push(&R->ackq, qp->q) < 0) sim_fail(R->s, "out of memory (ACK scheduler)");
  }
  engine_serve(R);
}

/* ACK policy, probes, OTD loss detection and timers after an accepted packet. */
static void after_accept(oresp *R, rqp *qp, const ornic_frame *f, bool filled) {
  uint32_t p = f->bth.psn;
  uint32_t every = R->cfg->protocol.ack_every;
  if (filled)
    send_ack(R, qp);
  else if (R->cfg->protocol.ack_engine_ns)
    request_ack(R, qp);
  else if (every && qp->since_ack >= every)
    send_ack(R, qp);
  if (f->bth.ackreq) {
    /* A probe: an ACK if nothing before hpsn is missing, else a reason-2 NAK. */
    if (!hole(qp))
      send_ack(R, qp);
    else
      send_nak(R, qp, ORNIC_NAKETH_TIMEOUT, ornic_psn_lt(qp->epsn, p) ? p : qp->hpsn);
  } else if (ornic_psn_diff(p, qp->epsn) > (int32_t)R->cfg->protocol.otd) {
    maybe_nak(R, qp, ORNIC_NAKETH_OTD_EXCEEDED, p);
  }
  if (hole(qp))
    arm(R, qp, &qp->t_resp, TMR_RESP, R->t_resp);
  else
    ltimer_stop(&qp->t_resp);
  if (is_last_op(f->bth.opcode)) arm(R, qp, &qp->t_last, TMR_LAST, R->t_last);
}

/* Rules 1-3 of 4.3: true when the packet is a duplicate or outside the window
 * (and has been dealt with). */
static bool duplicate_or_beyond(oresp *R, rqp *qp, uint32_t p) {
  stats *st = sim_stats(R->s);
  int32_t d = ornic_psn_diff(p, qp->epsn);
  if (d < 0) { /* rule 1: duplicate of acknowledged data */
    st->dup_data++;
    send_ack(R, qp);
    return true;
  }
  if ((uint32_t)d >= R->cfg->protocol.window) return true; /* rule 2: dropped silently */
  if (qp->cache && obm_test(qp->bm, p) == 1) {             /* rule 3: duplicate of OOO data */
    st->dup_data++;
    return true;
  }
  return false;
}

/* Direct placement: Start_Addr + (PSN - Start_PSN) * PMTU, no reordering
 * buffer; the bytes are checked there. false when they differ (the run
 * failed). */
static bool place(oresp *R, rqp *qp, const ornic_frame *f) {
  /* The packet's bytes against the source at the address they are placed at. */
  if (!wv_place_write(&qp->ver, R->s, qp->q, ornic_psn_off(f->bth.psn, qp->start_psn), f->payload,
                      f->payload_len))
    return false;
  sim_stats(R->s)->accepted++;
  qp->since_ack++;
  if (ornic_psn_lt(qp->hpsn, f->bth.psn)) qp->hpsn = f->bth.psn;
  qp->epsn = obm_first_missing(qp->bm);
  if (is_last_op(f->bth.opcode)) qp->last_seen = true;
  return true;
}

static void rx_write(oresp *R, rqp *qp, const ornic_frame *f) {
  uint32_t p = f->bth.psn;
  if (duplicate_or_beyond(R, qp, p)) return;
  geometry g;
  uint8_t syn = check_request(R, qp, f, &g);
  if (syn) {
    send_fatal(R, qp, syn, p);
    return;
  }
  bool filled = !qp->cache;
  if (filled && !fill_cache(R, qp, &g, p)) return;
  int rc = obm_record(qp->bm, p);
  if (rc != OBM_NEW) {
    /* Pool empty (4.7): dropped unplaced, reported missing later. */
    sim_stats(R->s)->pool_drops += rc == OBM_NO_BLOCK;
    if (filled) send_ack(R, qp);
    return;
  }
  if (!place(R, qp, f)) return;
  if (obm_complete(qp->bm))
    complete_wqe(R, qp);
  else
    after_accept(R, qp, f, filled);
}

/* ---- OOO READ (4.5) --------------------------------------------------------------- */

static void queue_retry(oresp *R, rqp *qp, uint32_t idx, uint32_t count) {
  if (fifo_push(&qp->retryq, idx) < 0 || fifo_push(&qp->retryq, count) < 0) {
    sim_fail(R->s, "out of memory (READ retry queue)");
    return;
  }
  make_ready(R, qp);
}

static void new_read(oresp *R, rqp *qp, const ornic_frame *f) {
  const ornic_reth *reth = &f->ext.reth;
  if (reth->rkey != wl_rkey(qp->q) || !wl_va_ok(qp->q, reth->va, reth->dmalen)) {
    send_fatal(R, qp, ORNIC_AETH_NAK_REMOTE_ACCESS, f->bth.psn);
    return;
  }
  qp->rd_valid = true;
  qp->rd_psn = f->bth.psn;
  qp->rd_va = reth->va;
  qp->rd_len = reth->dmalen;
  qp->rd_rkey = reth->rkey;
  qp->rd_n = wl_npkts(qp->rd_len, R->cfg->workload.pmtu);
  qp->rd_last_len = wl_last_len(qp->rd_len, R->cfg->workload.pmtu);
  qp->rd_count++;
  qp->msn = ornic_psn_add(qp->msn, 1);
  qp->epsn = ornic_psn_add(qp->rd_psn, (int32_t)qp->rd_n);
  qp->orig_idx = 0;
  qp->orig_left = qp->rd_n;
  fifo_clear(&qp->retryq);
  qp->cur_left = 0;
  make_ready(R, qp);
}

/* A retry re-reads a range inside the READ in flight, with its original PSNs. */
static void retry_read(oresp *R, rqp *qp, const ornic_frame *f) {
  const ornic_reth *reth = &f->ext.reth;
  uint32_t pmtu = R->cfg->workload.pmtu, idx = ornic_psn_off(f->bth.psn, qp->rd_psn);
  if (!qp->rd_valid || idx >= qp->rd_n || reth->rkey != qp->rd_rkey ||
      reth->va != qp->rd_va + (uint64_t)idx * pmtu)
    return;
  uint64_t left = qp->rd_len - (uint64_t)idx * pmtu;
  uint32_t count = wl_npkts(reth->dmalen, pmtu);
  bool to_end = idx + count == qp->rd_n;
  if (idx + count > qp->rd_n || (to_end ? reth->dmalen != left : reth->dmalen % pmtu != 0)) return;
  queue_retry(R, qp, idx, count);
}

static void rx_read_req(oresp *R, rqp *qp, const ornic_frame *f) {
  if (f->bth.psn == qp->epsn && !qp->cache)
    new_read(R, qp, f);
  else
    retry_read(R, qp, f);
}

static pkt *build_response(oresp *R, rqp *qp, uint32_t idx, bool retx) {
  uint32_t pmtu = R->cfg->workload.pmtu;
  bool last = idx == qp->rd_n - 1;
  uint32_t plen = last ? qp->rd_last_len : pmtu;
  uint64_t addr = qp->rd_va + (uint64_t)idx * pmtu;
  ornic_frame f;
  frame_to_requester(R, qp, &f, last ? ORNIC_OP_OOO_READ_RESP_LAST : ORNIC_OP_OOO_READ_RESP,
                     ornic_psn_add(qp->rd_psn, (int32_t)idx));
  if (last) f.ext.aeth = (ornic_aeth){SIM_AETH_ACK, qp->msn};
  f.payload_len = plen; /* generated in the frame: the memory at addr */
  framer_payload gen = {NULL, 0, wl_key(R->cfg, qp->q), addr};
  pkt_meta m = {PK_DATA, retx, qp->q, qp->rd_count - 1, idx, plen, 0};
  return sim_encode_gen(R->s, NODE_RESP, &f, &m, SIM_PATH_SPRAY, &gen);
}

/* Re-reads go before the rest of the first execution: the requester is
 * waiting for exactly those PSNs, and queueing them behind a whole WQE of
 * responses would let its pacing expire and re-request them again. */
static pkt *response_next(oresp *R, rqp *qp) {
  if (!qp->cur_left) {
    if (!fifo_pop(&qp->retryq, &qp->cur_idx) || !fifo_pop(&qp->retryq, &qp->cur_left))
      qp->cur_left = 0;
  }
  if (qp->cur_left) {
    qp->cur_left--;
    return build_response(R, qp, qp->cur_idx++, true);
  }
  if (!qp->orig_left) return NULL;
  qp->orig_left--;
  return build_response(R, qp, qp->orig_idx++, false);
}

/* ---- dispatch ---------------------------------------------------------------------- */

static void resp_rx(void *self, pkt *p, const ornic_frame *f) {
  oresp *R = self;
  (void)p;
  int q = wl_qp_index(R->cfg, f->bth.destqp, true);
  if (q < 0 || R->qp[q].error) return;
  rqp *qp = &R->qp[q];
  uint8_t op = f->bth.opcode;
  if (op >= ORNIC_OP_OOO_WRITE_FSPOT && op <= ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM)
    rx_write(R, qp, f);
  else if (op == ORNIC_OP_OOO_READ_REQ)
    rx_read_req(R, qp, f);
}

static pkt *qp_next(void *self, uint32_t q, bool **in_ready) {
  oresp *R = self;
  *in_ready = &R->qp[q].in_ready;
  return response_next(R, &R->qp[q]);
}

static pkt *resp_next_tx(void *self) {
  oresp *R = self;
  return ready_serve(&R->ready, R->s, qp_next, R);
}

static void resp_timer(void *self, uint32_t arg) {
  oresp *R = self;
  rqp *qp = &R->qp[arg >> 4];
  if ((arg & 15) == TMR_ENGINE) {
    if (ltimer_expired(R->s, &R->engine, NODE_RESP, arg)) engine_serve(R);
  } else if ((arg & 15) == TMR_RESP) {
    /* 4.4 reason 2: nothing new arrived for T_resp and a hole is still open. */
    if (ltimer_expired(R->s, &qp->t_resp, NODE_RESP, arg) && hole(qp) &&
        R->cfg->protocol.resp_timeout_nak)
      send_nak(R, qp, ORNIC_NAKETH_TIMEOUT, qp->hpsn);
  } else if (ltimer_expired(R->s, &qp->t_last, NODE_RESP, arg)) {
    /* 4.4 reason 3: the Last arrived OTD/B ago and the WQE still has holes. */
    if (qp->cache && qp->last_seen && !obm_complete(qp->bm) && R->cfg->protocol.last_timeout_nak)
      maybe_nak(R, qp, ORNIC_NAKETH_LAST_INCOMPLETE, qp->last_psn);
  }
}

/* ---- life cycle ------------------------------------------------------------------------ */

oresp *oresp_new(sim *s, const sim_config *cfg) {
  oresp *R = calloc(1, sizeof *R);
  if (!R) return NULL;
  R->s = s;
  R->cfg = cfg;
  /* The ring covers the window from any ePSN: W/16 blocks plus a partial one each side. */
  unsigned nslots = cfg->protocol.window / 16 + 2;
  size_t cap =
      cfg->protocol.bitmap_pool ? cfg->protocol.bitmap_pool : (size_t)nslots * cfg->workload.qps;
  R->pool = obm_pool_new(16, cap);
  R->qp = calloc(cfg->workload.qps, sizeof *R->qp);
  ltimer_init(&R->engine);
  bool ok = R->pool && R->qp;
  for (uint32_t q = 0; ok && q < cfg->workload.qps; q++) {
    rqp *qp = &R->qp[q];
    qp->q = q;
    qp->epsn = wl_start_psn(cfg, q);
    ltimer_init(&qp->t_resp);
    ltimer_init(&qp->t_last);
    ok = (qp->bm = obm_new(R->pool, nslots)) != NULL;
  }
  if (!ok) {
    oresp_free(R);
    return NULL;
  }
  const sim_timing *t = sim_times(s);
  R->t_resp = t->rtt_ps + t->otd_ps;
  R->t_last = t->otd_ps;
  static const endpoint_ops ops = {resp_next_tx, resp_rx, resp_timer};
  sim_set_endpoint(s, NODE_RESP, &ops, R);
  return R;
}

void oresp_free(oresp *R) {
  if (!R) return;
  for (uint32_t q = 0; R->qp && q < R->cfg->workload.qps; q++) {
    wv_free(&R->qp[q].ver);
    obm_free(R->qp[q].bm);
    fifo_free(&R->qp[q].retryq);
  }
  obm_pool_free(R->pool);
  fifo_free(&R->ready);
  fifo_free(&R->ackq);
  free(R->qp);
  free(R);
}

void oresp_bitmap_stats(const oresp *R, unsigned *max_qp, uint64_t *peak, uint64_t *capacity) {
  *max_qp = 0;
  for (uint32_t q = 0; q < R->cfg->workload.qps; q++) {
    unsigned m = obm_max_blocks_held(R->qp[q].bm);
    if (m > *max_qp) *max_qp = m;
  }
  *peak = obm_pool_peak(R->pool);
  *capacity = obm_pool_capacity(R->pool);
}
