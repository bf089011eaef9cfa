/* SPDX-License-Identifier: MIT */
/* Profile `roce`: standard RoCEv2 RC RDMA WRITE, go-back-N.
 * The requester sends WRITE First / Middle / Last (Only for one packet); the
 * responder accepts only the expected PSN, answers the first out-of-order
 * packet with a PSN sequence error NAK (AETH 0x60) and drops everything until
 * the expected PSN arrives; the requester goes back N to the NAKed PSN (or to
 * the oldest unacknowledged one on a timeout). On a sprayed fabric every
 * reordering costs a round trip and a resend of everything in flight.
 *
 * --rnic (sim_config.h, rnic_model) says how far this is from an ideal endpoint:
 * `ideal` NAKs and resends at once, times out after SRTT + 4 RTTVAR + OTD/B and
 * ACKs every --ack-every packets; `ernic` (Xilinx ERNIC, PG332), `cx5` (NVIDIA
 * ConnectX-5) and `commodity` (rxe's rules with ConnectX-5's timers) add what
 * hardware RNICs do, one option each (each preset's values and their sources:
 * pcapgen/README.md, "Profile roce: --rnic"): the responder's NAK leaves a
 * slow path later; the requester starts resending some time after a NAK; it
 * sets the A bit on every N-th packet only and the responder ACKs only those;
 * a NAK arriving while a NAK-started resend is under way, no ACK having
 * advanced since, is not acted on (rxe's started_retry); and the timeout is
 * milliseconds, doubled per timeout up to the IBA local ACK timeout. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fifo.h"
#include "profile.h"
#include "ready.h"
#include "rtt.h"
#include "verify.h"
#include "work_queue.h"
#include "workload.h"

/* Requester QP. */
typedef struct {
  uint32_t q;
  bool busy, in_ready;
  uint32_t msn;
  wqe_queue sq;
  wqe w;              /* the WQE in flight */
  uint32_t next_send; /* next packet to send; go-back-N rewinds it */
  uint32_t hi;        /* packets [0, hi) were sent at least once */
  uint32_t cum_idx;   /* packets [0, cum_idx) acknowledged */
  bool timing;
  uint32_t timed_idx;
  uint64_t timed_ps;
  rtt_est rtt;
  unsigned retries;
  ltimer rto;
  uint32_t noack;      /* packets sent since the last one with the A bit (--rnic-ack-req) */
  bool retrying;       /* a NAK started a resend and no ACK has advanced since */
  bool rewind_pending; /* a resend starts at rewind_at (--rnic-retx-delay-us) */
  uint32_t rewind_to;
  uint64_t rewind_at;
} rc_req;

/* Responder QP. */
typedef struct {
  uint32_t q;
  uint32_t epsn, msn, since_ack;
  bool nak_sent, in_msg, error;
  uint64_t va, len;
  uint32_t start_psn, n;
  wqe_verify ver; /* the message's integrity check, packet by packet */
} rc_resp;

typedef struct roce roce;

typedef struct {
  roce *r;
} side;

struct roce {
  sim *s;
  const sim_config *cfg;
  rc_req *reqs;
  rc_resp *resps;
  u32fifo ready;
  u32fifo naks;             /* delayed NAKs (--rnic-nak-delay-us): QP index, then PSN */
  side req_side, resp_side; /* distinct `self` pointers for the two endpoints */
};

/* Requester timer events: the RTO (arg = QP index) and the delayed start of a
 * resend (arg = QP index | RESEND_TIMER). */
#define RESEND_TIMER 0x80000000u

static uint64_t us_to_ps(double us) { return (uint64_t)(us * 1e6 + 0.5); }

/* ============================== requester ============================== */

static void make_ready(roce *r, rc_req *rq) {
  ready_add(&r->ready, &rq->in_ready, rq->q, r->s, NODE_REQ);
}

/* --rnic-rto-us 0: the adaptive RTO (rtt.h). Otherwise the fixed first
 * timeout, doubled per timeout in a row, up to 4.096 us x 2^--rnic-timeout. */
static uint64_t rto_ps(const roce *r, const rc_req *rq) {
  const rnic_model *m = &r->cfg->protocol.rnic;
  if (m->rto_us <= 0) return rtt_rto(&rq->rtt, sim_times(r->s)->otd_ps);
  double us = ldexp(m->rto_us, (int)(rq->rtt.backoff < 40 ? rq->rtt.backoff : 40));
  double cap = ldexp(4.096, (int)m->timeout_exp);
  return us_to_ps(m->timeout_exp && us > cap ? cap : us);
}

static void arm_rto(roce *r, rc_req *rq) {
  ltimer_arm(r->s, &rq->rto, NODE_REQ, rq->q, sim_now(r->s) + rto_ps(r, rq));
}

static void post_next(roce *r, rc_req *rq) {
  if (!wqe_post(&rq->sq, r->s, r->cfg, &rq->w)) {
    rq->busy = false;
    return;
  }
  rq->next_send = rq->hi = rq->cum_idx = 0;
  rq->retrying = rq->rewind_pending = false;
  rq->timing = false;
  rq->retries = rq->rtt.backoff = 0;
  rq->busy = true;
  make_ready(r, rq);
}

static uint8_t write_opcode(const rc_req *rq, uint32_t idx) {
  if (rq->w.n == 1) return ORNIC_OP_RC_RDMA_WRITE_ONLY;
  if (idx == 0) return ORNIC_OP_RC_RDMA_WRITE_FIRST;
  return idx == rq->w.n - 1 ? ORNIC_OP_RC_RDMA_WRITE_LAST : ORNIC_OP_RC_RDMA_WRITE_MIDDLE;
}

static pkt *build_write(roce *r, rc_req *rq, uint32_t idx, bool retx) {
  const sim_config *cfg = r->cfg;
  ornic_frame f;
  sim_frame(r->s, NODE_REQ, &f);
  uint64_t off = (uint64_t)idx * cfg->workload.pmtu;
  uint32_t plen = idx == rq->w.n - 1 ? rq->w.last_len : cfg->workload.pmtu;
  f.bth.opcode = write_opcode(rq, idx);
  f.bth.destqp = wl_qpn(cfg, true, rq->q);
  f.bth.psn = ornic_psn_add(rq->w.start, (int32_t)idx);
  /* As RC NICs do on the last packet of a message; with --rnic-ack-req N also
   * on every N-th packet sent, as rxe does (rxe_req.c: every 66th). */
  uint32_t every = r->cfg->protocol.rnic.ack_req;
  f.bth.ackreq = idx == rq->w.n - 1 || (every && rq->noack + 1 >= every);
  rq->noack = f.bth.ackreq ? 0 : rq->noack + 1;
  if (idx == 0) f.ext.reth = (ornic_reth){rq->w.va, wl_rkey(rq->q), (uint32_t)rq->w.len};
  f.payload_len = plen; /* generated in the frame: the source memory at va + off */
  framer_payload gen = {NULL, 0, wl_key(cfg, rq->q), rq->w.va + off};
  if (retx && rq->timing && rq->timed_idx == idx) rq->timing = false; /* Karn */
  pkt_meta m = {PK_DATA, retx, rq->q, rq->w.id, idx, plen, 0};
  return sim_encode_gen(r->s, NODE_REQ, &f, &m, SIM_PATH_SPRAY, &gen);
}

static pkt *req_qp_next(roce *r, rc_req *rq) {
  if (!rq->busy || rq->next_send >= rq->w.n ||
      rq->next_send - rq->cum_idx >= r->cfg->protocol.window)
    return NULL;
  uint32_t idx = rq->next_send++;
  bool retx = idx < rq->hi;
  if (!retx) {
    rq->hi = idx + 1;
    if (!rq->timing) {
      rq->timing = true;
      rq->timed_idx = idx;
      rq->timed_ps = sim_now(r->s);
    }
  }
  arm_rto(r, rq);
  return build_write(r, rq, idx, retx);
}

static pkt *qp_next(void *self, uint32_t q, bool **in_ready) {
  roce *r = self;
  *in_ready = &r->reqs[q].in_ready;
  return req_qp_next(r, &r->reqs[q]);
}

static pkt *req_next_tx(void *self) {
  roce *r = ((side *)self)->r;
  return ready_serve(&r->ready, r->s, qp_next, r);
}

static void advance(roce *r, rc_req *rq, uint32_t cum) {
  if (cum <= rq->cum_idx) return;
  rq->cum_idx = cum;
  if (rq->next_send < cum) rq->next_send = cum;
  if (rq->timing && rq->timed_idx < cum) {
    rtt_sample(&rq->rtt, sim_now(r->s) - rq->timed_ps);
    rq->timing = false;
  }
  rq->retries = rq->rtt.backoff = 0;
  arm_rto(r, rq);
  make_ready(r, rq);
}

/* Go back to packet e: now, or --rnic-retx-delay-us later (new packets keep
 * leaving meanwhile; a later NAK's resend replaces a pending one). */
static void resend_from(roce *r, rc_req *rq, uint32_t e) {
  double delay = r->cfg->protocol.rnic.retx_delay_us;
  if (delay <= 0) {
    rq->next_send = e;
    make_ready(r, rq);
    return;
  }
  rq->rewind_pending = true;
  rq->rewind_to = e;
  rq->rewind_at = sim_now(r->s) + us_to_ps(delay);
  sim_timer_at(r->s, NODE_REQ, rq->rewind_at, rq->q | RESEND_TIMER);
}

static void resend_timer(roce *r, rc_req *rq) {
  if (!rq->busy || !rq->rewind_pending || sim_now(r->s) < rq->rewind_at) return;
  rq->rewind_pending = false;
  uint32_t e = rq->rewind_to > rq->cum_idx ? rq->rewind_to : rq->cum_idx;
  if (e < rq->next_send) rq->next_send = e;
  make_ready(r, rq);
}

static void req_on_ack(roce *r, rc_req *rq, const ornic_frame *f) {
  uint8_t syn = f->ext.aeth.syndrome;
  if (!rq->busy) return;
  if (syn >= ORNIC_AETH_NAK_INVALID_REQ && syn <= ORNIC_AETH_NAK_REMOTE_OP) {
    sim_fail(r->s, "QP %u: the responder sent a fatal NAK (%s) for PSN 0x%06x", rq->q,
             ornic_aeth_syndrome_name(syn), f->bth.psn);
    return;
  }
  if (syn == ORNIC_AETH_NAK_PSN_SEQ) {
    /* Go back N: everything before the NAKed PSN arrived; resend from it. */
    uint32_t e = ornic_psn_off(f->bth.psn, rq->w.start);
    if (e >= rq->w.n || e < rq->cum_idx) return;
    advance(r, rq, e);
    /* A resend is already under way and no ACK has advanced since: rxe
     * (rxe_comp.c, started_retry) keeps to it; only its implicit ACK counts. */
    if (rq->retrying && r->cfg->protocol.rnic.ignore_nak_in_retry) {
      sim_stats(r->s)->naks_ignored++;
      return;
    }
    rq->retrying = true;
    resend_from(r, rq, e);
    return;
  }
  if (ornic_aeth_type(syn) != ORNIC_AETH_ACK) return;
  uint32_t cum = ornic_psn_off(ornic_psn_add(f->bth.psn, 1), rq->w.start);
  if (cum > rq->w.n || cum < rq->cum_idx) return;
  if (cum > rq->cum_idx) rq->retrying = false; /* rxe: an ACK resets the retry state */
  advance(r, rq, cum);
  if (rq->cum_idx == rq->w.n) {
    wqe_complete(r->s, &rq->w);
    ltimer_stop(&rq->rto);
    rq->msn = f->ext.aeth.msn;
    post_next(r, rq);
  }
}

static void req_rx(void *self, pkt *p, const ornic_frame *f) {
  roce *r = ((side *)self)->r;
  (void)p;
  int q = wl_qp_index(r->cfg, f->bth.destqp, false);
  if (q >= 0 && f->bth.opcode == ORNIC_OP_RC_ACK) req_on_ack(r, &r->reqs[q], f);
}

static void req_timer(void *self, uint32_t arg) {
  roce *r = ((side *)self)->r;
  if (arg & RESEND_TIMER) {
    resend_timer(r, &r->reqs[arg & ~RESEND_TIMER]);
    return;
  }
  rc_req *rq = &r->reqs[arg];
  if (!ltimer_expired(r->s, &rq->rto, NODE_REQ, arg) || !rq->busy) return;
  sim_stats(r->s)->timeouts++;
  if (++rq->retries > r->cfg->protocol.retry_limit) {
    sim_fail(r->s, "QP %u: %u retransmission timeouts in a row on WQE %llu (retry limit %u)", rq->q,
             rq->retries, (unsigned long long)rq->w.id, r->cfg->protocol.retry_limit);
    return;
  }
  rq->rtt.backoff++;
  rq->next_send = rq->cum_idx; /* go back to the oldest unacknowledged packet */
  rq->retrying = true;         /* rxe: a timeout starts a resend too */
  rq->rewind_pending = false;
  arm_rto(r, rq);
  make_ready(r, rq);
}

/* ============================== responder ============================== */

static void resp_emit(roce *r, rc_resp *rs, uint8_t syndrome, uint32_t psn, uint8_t kind) {
  ornic_frame f;
  sim_frame(r->s, NODE_RESP, &f);
  f.bth.opcode = ORNIC_OP_RC_ACK;
  f.bth.destqp = wl_qpn(r->cfg, false, rs->q);
  f.bth.psn = psn & ORNIC_PSN_MASK;
  f.ext.aeth = (ornic_aeth){syndrome, rs->msn};
  pkt_meta m = {kind, 0, rs->q, 0, 0, 0, 0};
  pkt *p = sim_encode(r->s, NODE_RESP, &f, &m);
  if (p) sim_send(r->s, NODE_RESP, p);
  if (kind == PK_ACK) rs->since_ack = 0;
}

static void resp_ack(roce *r, rc_resp *rs) {
  resp_emit(r, rs, SIM_AETH_ACK, ornic_psn_add(rs->epsn, -1), PK_ACK);
}

static void resp_fatal(roce *r, rc_resp *rs, uint8_t syn, uint32_t psn) {
  resp_emit(r, rs, syn, psn, PK_FATAL);
  rs->error = true;
}

/* First / Only: the RETH says where the message goes. */
static bool begin_message(roce *r, rc_resp *rs, const ornic_frame *f) {
  const ornic_reth *reth = &f->ext.reth;
  if (reth->rkey != wl_rkey(rs->q) || !wl_va_ok(rs->q, reth->va, reth->dmalen)) {
    resp_fatal(r, rs, ORNIC_AETH_NAK_REMOTE_ACCESS, f->bth.psn);
    return false;
  }
  if (wv_start(&rs->ver, wl_key(r->cfg, rs->q), reth->va, reth->dmalen, r->cfg->workload.pmtu) <
      0) {
    sim_fail(r->s, "out of memory: WQE of %u bytes on QP %u", reth->dmalen, rs->q);
    return false;
  }
  rs->va = reth->va;
  rs->len = reth->dmalen;
  rs->start_psn = f->bth.psn;
  rs->n = wl_npkts(rs->len, r->cfg->workload.pmtu);
  rs->in_msg = true;
  return true;
}

static void end_message(roce *r, rc_resp *rs) {
  if (!wv_complete_write(&rs->ver, r->s, rs->q)) return;
  sim_stats(r->s)->wqes_verified++;
  rs->in_msg = false;
  rs->msn = ornic_psn_add(rs->msn, 1);
  resp_ack(r, rs);
}

/* The expected packet: place it in order. */
static void accept_in_order(roce *r, rc_resp *rs, const ornic_frame *f) {
  uint8_t op = f->bth.opcode;
  bool first = op == ORNIC_OP_RC_RDMA_WRITE_FIRST || op == ORNIC_OP_RC_RDMA_WRITE_ONLY;
  bool last = op == ORNIC_OP_RC_RDMA_WRITE_LAST || op == ORNIC_OP_RC_RDMA_WRITE_ONLY;
  if (first ? !begin_message(r, rs, f) : !rs->in_msg) {
    if (!first) resp_fatal(r, rs, ORNIC_AETH_NAK_INVALID_REQ, f->bth.psn);
    return;
  }
  uint32_t idx = ornic_psn_off(f->bth.psn, rs->start_psn), pmtu = r->cfg->workload.pmtu;
  uint64_t want = idx == rs->n - 1 ? rs->len - (uint64_t)idx * pmtu : pmtu;
  if (idx >= rs->n || (idx == rs->n - 1) != last || f->payload_len != want) {
    resp_fatal(r, rs, ORNIC_AETH_NAK_INVALID_REQ, f->bth.psn);
    return;
  }
  if (!wv_place_write(&rs->ver, r->s, rs->q, idx, f->payload, f->payload_len)) return;
  sim_stats(r->s)->accepted++;
  rs->epsn = ornic_psn_add(rs->epsn, 1);
  rs->nak_sent = false;
  rs->since_ack++;
  /* --rnic-ack-req: only packets with the A bit are acknowledged (rxe_resp.c);
   * otherwise also every --ack-every packets. */
  bool by_count = !r->cfg->protocol.rnic.ack_req && r->cfg->protocol.ack_every &&
                  rs->since_ack >= r->cfg->protocol.ack_every;
  if (last)
    end_message(r, rs);
  else if (f->bth.ackreq || by_count)
    resp_ack(r, rs);
}

/* A sequence error: the NAK names ePSN; with --rnic-nak-delay-us it leaves
 * that much later (the slow path of a PSN gap), still naming the ePSN of the
 * error. The delay is the same for every NAK, so the events fire in the order
 * of the FIFO. */
static void resp_nak(roce *r, rc_resp *rs) {
  double delay = r->cfg->protocol.rnic.nak_delay_us;
  if (delay <= 0) {
    resp_emit(r, rs, ORNIC_AETH_NAK_PSN_SEQ, rs->epsn, PK_NAK);
    return;
  }
  if (fifo_push(&r->naks, rs->q) < 0 || fifo_push(&r->naks, rs->epsn) < 0) {
    sim_fail(r->s, "out of memory (NAK queue)");
    return;
  }
  sim_timer_at(r->s, NODE_RESP, sim_now(r->s) + us_to_ps(delay), 0);
}

static void resp_timer(void *self, uint32_t arg) {
  roce *r = ((side *)self)->r;
  uint32_t q, psn;
  (void)arg;
  if (!fifo_pop(&r->naks, &q) || !fifo_pop(&r->naks, &psn)) return;
  if (!r->resps[q].error) resp_emit(r, &r->resps[q], ORNIC_AETH_NAK_PSN_SEQ, psn, PK_NAK);
}

static void resp_rx(void *self, pkt *p, const ornic_frame *f) {
  roce *r = ((side *)self)->r;
  (void)p;
  int q = wl_qp_index(r->cfg, f->bth.destqp, true);
  uint8_t op = f->bth.opcode;
  if (q < 0 || r->resps[q].error || op < ORNIC_OP_RC_RDMA_WRITE_FIRST ||
      op > ORNIC_OP_RC_RDMA_WRITE_ONLY)
    return;
  rc_resp *rs = &r->resps[q];
  int32_t d = ornic_psn_diff(f->bth.psn, rs->epsn);
  if (d == 0) {
    accept_in_order(r, rs, f);
  } else if (d < 0) {
    sim_stats(r->s)->dup_data++;
    resp_ack(r, rs); /* a duplicate is acknowledged again */
  } else if (!rs->nak_sent) {
    /* Out of order: one sequence-error NAK, then silence until ePSN arrives. */
    rs->nak_sent = true;
    resp_nak(r, rs);
  }
}

/* ============================== life cycle ============================== */

static void roce_free(void *self);

static void *roce_new(sim *s, const sim_config *cfg) {
  roce *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->s = s;
  r->cfg = cfg;
  r->reqs = calloc(cfg->workload.qps, sizeof *r->reqs);
  r->resps = calloc(cfg->workload.qps, sizeof *r->resps);
  if (!r->reqs || !r->resps) {
    roce_free(r);
    return NULL;
  }
  for (uint32_t q = 0; q < cfg->workload.qps; q++) {
    r->reqs[q].q = r->resps[q].q = q;
    wqe_queue_init(&r->reqs[q].sq, cfg, q);
    r->resps[q].epsn = wl_start_psn(cfg, q);
    rtt_init(&r->reqs[q].rtt, sim_times(s)->rtt_ps);
    ltimer_init(&r->reqs[q].rto);
  }
  r->req_side.r = r->resp_side.r = r;
  static const endpoint_ops req_ops = {req_next_tx, req_rx, req_timer};
  static const endpoint_ops resp_ops = {NULL, resp_rx, resp_timer}; /* sends only ACKs/NAKs */
  sim_set_endpoint(s, NODE_REQ, &req_ops, &r->req_side);
  sim_set_endpoint(s, NODE_RESP, &resp_ops, &r->resp_side);
  return r;
}

static void roce_free(void *self) {
  roce *r = self;
  if (!r) return;
  for (uint32_t q = 0; r->resps && q < r->cfg->workload.qps; q++) wv_free(&r->resps[q].ver);
  fifo_free(&r->ready);
  fifo_free(&r->naks);
  free(r->reqs);
  free(r->resps);
  free(r);
}

static void roce_start(void *self) {
  roce *r = self;
  for (uint32_t q = 0; q < r->cfg->workload.qps && !sim_failed(r->s); q++)
    post_next(r, &r->reqs[q]);
}

const profile_engines roce_engines = {roce_new, roce_start, NULL, roce_free};
