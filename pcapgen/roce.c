#include "roce.h"

#include <stdlib.h>
#include <string.h>

#include "fifo.h"
#include "pattern.h"
#include "rtt.h"
#include "workload.h"

#define PSN_MASK 0xffffffu
#define SYN_ACK 0x1f
#define SYN_PSN_SEQ_ERR 0x60
#define SYN_INVALID_REQUEST 0x61
#define SYN_REMOTE_ACCESS 0x62

static inline uint32_t psn_add(uint32_t a, uint32_t n) { return (a + n) & PSN_MASK; }
static inline uint32_t psn_off(uint32_t psn, uint32_t start) { return (psn - start) & PSN_MASK; }

/* Requester QP. */
typedef struct {
  uint32_t q;
  bool busy, in_ready;
  uint32_t psn, msn;
  uint64_t next_wqe, wid, va, len, post_ps;
  uint32_t start, n, last_len;
  uint32_t next_send; /* next packet to send; go-back-N rewinds it */
  uint32_t hi;        /* packets [0, hi) were sent at least once */
  uint32_t cum_idx;   /* packets [0, cum_idx) acknowledged */
  bool timing;
  uint32_t timed_idx;
  uint64_t timed_ps;
  rtt_est rtt;
  unsigned retries;
  ltimer rto;
} rc_req;

/* Responder QP. */
typedef struct {
  uint32_t q;
  uint32_t epsn, msn, since_ack;
  bool nak_sent, in_msg, error;
  uint64_t va, len;
  uint32_t start_psn, n;
  uint8_t *region;
} rc_resp;

typedef struct {
  roce *r;
} side;

struct roce {
  sim *s;
  const options *o;
  rc_req *rq;
  rc_resp *rs;
  u32fifo ready;
  uint8_t *scratch;
  side req_side, resp_side; /* distinct `self` pointers for the two endpoints */
};

/* ============================== requester ============================== */

static void make_ready(roce *r, rc_req *qp) {
  if (!qp->in_ready) {
    qp->in_ready = true;
    if (fifo_push(&r->ready, qp->q) < 0) sim_fail(r->s, "out of memory (ready list)");
  }
  sim_kick(r->s, NODE_REQ);
}

static void arm_rto(roce *r, rc_req *qp) {
  uint64_t rto = rtt_rto(&qp->rtt, sim_times(r->s)->otd_ps);
  ltimer_arm(r->s, &qp->rto, NODE_REQ, qp->q, sim_now(r->s) + rto);
}

static void post_next(roce *r, rc_req *qp) {
  const options *o = r->o;
  if (qp->next_wqe >= wl_wqe_count(o, qp->q)) {
    qp->busy = false;
    return;
  }
  qp->wid = qp->next_wqe++;
  qp->va = wl_va(o, qp->q, qp->wid);
  qp->len = wl_wqe_len(o, qp->q, qp->wid);
  qp->n = wl_npkts(qp->len, o->pmtu);
  qp->last_len = wl_last_len(qp->len, o->pmtu);
  qp->start = qp->psn;
  qp->psn = psn_add(qp->psn, qp->n);
  qp->post_ps = sim_now(r->s);
  qp->next_send = qp->hi = qp->cum_idx = 0;
  qp->timing = false;
  qp->retries = qp->rtt.backoff = 0;
  qp->busy = true;
  stats_wqe_posted(sim_stats(r->s), qp->post_ps);
  make_ready(r, qp);
}

static uint8_t write_opcode(const rc_req *qp, uint32_t idx) {
  if (qp->n == 1) return ORNIC_OP_RC_RDMA_WRITE_ONLY;
  if (idx == 0) return ORNIC_OP_RC_RDMA_WRITE_FIRST;
  return idx == qp->n - 1 ? ORNIC_OP_RC_RDMA_WRITE_LAST : ORNIC_OP_RC_RDMA_WRITE_MIDDLE;
}

static pkt *build_write(roce *r, rc_req *qp, uint32_t idx, bool retx) {
  const options *o = r->o;
  ornic_frame f;
  sim_frame(r->s, NODE_REQ, &f);
  uint64_t off = (uint64_t)idx * o->pmtu;
  uint32_t plen = idx == qp->n - 1 ? qp->last_len : o->pmtu;
  f.bth.opcode = write_opcode(qp, idx);
  f.bth.destqp = wl_resp_qpn(qp->q);
  f.bth.psn = psn_add(qp->start, idx);
  f.bth.ackreq = idx == qp->n - 1; /* as RC NICs do on the last packet of a message */
  if (idx == 0) f.ext.reth = (ornic_reth){qp->va, wl_rkey(qp->q), (uint32_t)qp->len};
  pattern_fill(r->scratch, wl_key(o, qp->q), qp->va + off, plen);
  f.payload = r->scratch;
  f.payload_len = plen;
  if (retx && qp->timing && qp->timed_idx == idx) qp->timing = false; /* Karn */
  pkt_meta m = {PK_DATA, retx, qp->q, qp->wid, idx, plen};
  return sim_encode(r->s, NODE_REQ, &f, &m);
}

static pkt *req_qp_next(roce *r, rc_req *qp) {
  if (!qp->busy || qp->next_send >= qp->n || qp->next_send - qp->cum_idx >= r->o->window)
    return NULL;
  uint32_t idx = qp->next_send++;
  bool retx = idx < qp->hi;
  if (!retx) {
    qp->hi = idx + 1;
    if (!qp->timing) {
      qp->timing = true;
      qp->timed_idx = idx;
      qp->timed_ps = sim_now(r->s);
    }
  }
  arm_rto(r, qp);
  return build_write(r, qp, idx, retx);
}

static pkt *req_next_tx(void *self) {
  roce *r = ((side *)self)->r;
  uint32_t q;
  while (!sim_failed(r->s) && fifo_pop(&r->ready, &q)) {
    pkt *p = req_qp_next(r, &r->rq[q]);
    if (p) {
      if (fifo_push(&r->ready, q) < 0) sim_fail(r->s, "out of memory (ready list)");
      return p;
    }
    r->rq[q].in_ready = false;
  }
  return NULL;
}

static void advance(roce *r, rc_req *qp, uint32_t cum) {
  if (cum <= qp->cum_idx) return;
  qp->cum_idx = cum;
  if (qp->next_send < cum) qp->next_send = cum;
  if (qp->timing && qp->timed_idx < cum) {
    rtt_sample(&qp->rtt, sim_now(r->s) - qp->timed_ps);
    qp->timing = false;
  }
  qp->retries = qp->rtt.backoff = 0;
  arm_rto(r, qp);
  make_ready(r, qp);
}

static void req_on_ack(roce *r, rc_req *qp, const ornic_frame *f) {
  uint8_t syn = f->ext.aeth.syndrome;
  if (!qp->busy) return;
  if (syn >= SYN_INVALID_REQUEST && syn <= 0x63) {
    sim_fail(r->s, "QP %u: the responder sent a fatal NAK (%s) for PSN 0x%06x", qp->q,
             ornic_aeth_syndrome_name(syn), f->bth.psn);
    return;
  }
  if (syn == SYN_PSN_SEQ_ERR) {
    /* Go back N: everything before the NAKed PSN arrived; resend from it. */
    uint32_t e = psn_off(f->bth.psn, qp->start);
    if (e >= qp->n || e < qp->cum_idx) return;
    advance(r, qp, e);
    qp->next_send = e;
    make_ready(r, qp);
    return;
  }
  if (ornic_aeth_type(syn) != ORNIC_AETH_ACK) return;
  uint32_t cum = psn_off(psn_add(f->bth.psn, 1), qp->start);
  if (cum > qp->n || cum < qp->cum_idx) return;
  advance(r, qp, cum);
  if (qp->cum_idx == qp->n) {
    stats_wqe_done(sim_stats(r->s), qp->post_ps, sim_now(r->s), qp->len);
    ltimer_stop(&qp->rto);
    qp->msn = f->ext.aeth.msn;
    post_next(r, qp);
  }
}

static void req_rx(void *self, pkt *p, const ornic_frame *f) {
  roce *r = ((side *)self)->r;
  (void)p;
  int q = wl_qp_index(r->o, f->bth.destqp, false);
  if (q >= 0 && f->bth.opcode == ORNIC_OP_RC_ACK) req_on_ack(r, &r->rq[q], f);
}

static void req_timer(void *self, uint32_t arg) {
  roce *r = ((side *)self)->r;
  rc_req *qp = &r->rq[arg];
  if (!ltimer_expired(r->s, &qp->rto, NODE_REQ, arg) || !qp->busy) return;
  sim_stats(r->s)->timeouts++;
  if (++qp->retries > r->o->retry_limit) {
    sim_fail(r->s, "QP %u: %u retransmission timeouts in a row on WQE %llu (retry limit %u)",
             qp->q, qp->retries, (unsigned long long)qp->wid, r->o->retry_limit);
    return;
  }
  qp->rtt.backoff++;
  qp->next_send = qp->cum_idx; /* go back to the oldest unacknowledged packet */
  arm_rto(r, qp);
  make_ready(r, qp);
}

/* ============================== responder ============================== */

static void resp_emit(roce *r, rc_resp *qp, uint8_t syndrome, uint32_t psn, uint8_t kind) {
  ornic_frame f;
  sim_frame(r->s, NODE_RESP, &f);
  f.bth.opcode = ORNIC_OP_RC_ACK;
  f.bth.destqp = wl_req_qpn(qp->q);
  f.bth.psn = psn & PSN_MASK;
  f.ext.aeth = (ornic_aeth){syndrome, qp->msn};
  pkt_meta m = {kind, 0, qp->q, 0, 0, 0};
  pkt *p = sim_encode(r->s, NODE_RESP, &f, &m);
  if (p) sim_send(r->s, NODE_RESP, p);
  if (kind == PK_ACK) qp->since_ack = 0;
}

static void resp_ack(roce *r, rc_resp *qp) {
  resp_emit(r, qp, SYN_ACK, psn_add(qp->epsn, PSN_MASK), PK_ACK);
}

static void resp_fatal(roce *r, rc_resp *qp, uint8_t syn, uint32_t psn) {
  resp_emit(r, qp, syn, psn, PK_FATAL);
  qp->error = true;
}

/* First / Only: the RETH says where the message goes. */
static bool begin_message(roce *r, rc_resp *qp, const ornic_frame *f) {
  const ornic_reth *reth = &f->ext.reth;
  if (reth->rkey != wl_rkey(qp->q) || !wl_va_ok(qp->q, reth->va, reth->dmalen)) {
    resp_fatal(r, qp, SYN_REMOTE_ACCESS, f->bth.psn);
    return false;
  }
  free(qp->region);
  if (!(qp->region = malloc(reth->dmalen ? reth->dmalen : 1))) {
    sim_fail(r->s, "out of memory: WQE of %u bytes on QP %u", reth->dmalen, qp->q);
    return false;
  }
  qp->va = reth->va;
  qp->len = reth->dmalen;
  qp->start_psn = f->bth.psn;
  qp->n = wl_npkts(qp->len, r->o->pmtu);
  qp->in_msg = true;
  return true;
}

static void end_message(roce *r, rc_resp *qp) {
  size_t bad = pattern_check(qp->region, wl_key(r->o, qp->q), qp->va, qp->len);
  if (bad != (size_t)-1) {
    sim_fail(r->s, "integrity check failed: WRITE to VA 0x%llx on QP %u: byte %zu of %llu "
             "differs from the source", (unsigned long long)qp->va, qp->q, bad,
             (unsigned long long)qp->len);
    return;
  }
  sim_stats(r->s)->wqes_verified++;
  free(qp->region);
  qp->region = NULL;
  qp->in_msg = false;
  qp->msn = psn_add(qp->msn, 1);
  resp_ack(r, qp);
}

/* The expected packet: place it in order. */
static void accept_in_order(roce *r, rc_resp *qp, const ornic_frame *f) {
  uint8_t op = f->bth.opcode;
  bool first = op == ORNIC_OP_RC_RDMA_WRITE_FIRST || op == ORNIC_OP_RC_RDMA_WRITE_ONLY;
  bool last = op == ORNIC_OP_RC_RDMA_WRITE_LAST || op == ORNIC_OP_RC_RDMA_WRITE_ONLY;
  if (first ? !begin_message(r, qp, f) : !qp->in_msg) {
    if (!first) resp_fatal(r, qp, SYN_INVALID_REQUEST, f->bth.psn);
    return;
  }
  uint32_t idx = psn_off(f->bth.psn, qp->start_psn), pmtu = r->o->pmtu;
  uint64_t want = idx == qp->n - 1 ? qp->len - (uint64_t)idx * pmtu : pmtu;
  if (idx >= qp->n || (idx == qp->n - 1) != last || f->payload_len != want) {
    resp_fatal(r, qp, SYN_INVALID_REQUEST, f->bth.psn);
    return;
  }
  memcpy(qp->region + (uint64_t)idx * pmtu, f->payload, f->payload_len);
  qp->epsn = psn_add(qp->epsn, 1);
  qp->nak_sent = false;
  qp->since_ack++;
  if (last) end_message(r, qp);
  else if (f->bth.ackreq || (r->o->ack_every && qp->since_ack >= r->o->ack_every)) resp_ack(r, qp);
}

static void resp_rx(void *self, pkt *p, const ornic_frame *f) {
  roce *r = ((side *)self)->r;
  (void)p;
  int q = wl_qp_index(r->o, f->bth.destqp, true);
  uint8_t op = f->bth.opcode;
  if (q < 0 || r->rs[q].error || op < ORNIC_OP_RC_RDMA_WRITE_FIRST || op > ORNIC_OP_RC_RDMA_WRITE_ONLY)
    return;
  rc_resp *qp = &r->rs[q];
  int32_t d = ornic_psn_diff(f->bth.psn, qp->epsn);
  if (d == 0) {
    accept_in_order(r, qp, f);
  } else if (d < 0) {
    sim_stats(r->s)->dup_data++;
    resp_ack(r, qp); /* a duplicate is acknowledged again */
  } else if (!qp->nak_sent) {
    /* Out of order: one sequence-error NAK, then silence until ePSN arrives. */
    qp->nak_sent = true;
    resp_emit(r, qp, SYN_PSN_SEQ_ERR, qp->epsn, PK_NAK);
  }
}

static pkt *resp_next_tx(void *self) {
  (void)self;
  return NULL; /* a WRITE responder sends only control frames */
}

static void resp_timer(void *self, uint32_t arg) {
  (void)self;
  (void)arg;
}

/* ============================== life cycle ============================== */

roce *roce_new(sim *s, const options *o) {
  roce *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->s = s;
  r->o = o;
  r->rq = calloc(o->qps, sizeof *r->rq);
  r->rs = calloc(o->qps, sizeof *r->rs);
  r->scratch = malloc(o->pmtu);
  if (!r->rq || !r->rs || !r->scratch) {
    roce_free(r);
    return NULL;
  }
  for (uint32_t q = 0; q < o->qps; q++) {
    r->rq[q].q = r->rs[q].q = q;
    r->rq[q].psn = r->rs[q].epsn = wl_start_psn(o, q);
    rtt_init(&r->rq[q].rtt, sim_times(s)->rtt_ps);
    ltimer_init(&r->rq[q].rto);
  }
  r->req_side.r = r->resp_side.r = r;
  static const endpoint_ops req_ops = {req_next_tx, req_rx, req_timer};
  static const endpoint_ops resp_ops = {resp_next_tx, resp_rx, resp_timer};
  sim_set_endpoint(s, NODE_REQ, &req_ops, &r->req_side);
  sim_set_endpoint(s, NODE_RESP, &resp_ops, &r->resp_side);
  return r;
}

void roce_free(roce *r) {
  if (!r) return;
  for (uint32_t q = 0; r->rs && q < r->o->qps; q++) free(r->rs[q].region);
  fifo_free(&r->ready);
  free(r->rq);
  free(r->rs);
  free(r->scratch);
  free(r);
}

void roce_start(roce *r) {
  for (uint32_t q = 0; q < r->o->qps && !sim_failed(r->s); q++) post_next(r, &r->rq[q]);
}
