#include "irn.h"

#include <stdlib.h>

#include "rcx.h"
#include "rxq.h"
#include "txq.h"
#include "workload.h"

#define IRN_LOW_INFLIGHT 3 /* IRN's N: RTO_low below this many packets outstanding */

typedef struct {
  txq t;
  bool recovery;
  uint32_t recover;   /* recovery ends when the cumulative PSN reaches this */
  uint32_t high_sack; /* 1 + the highest selectively acknowledged packet */
  uint32_t scan;      /* next packet to examine for loss in this recovery */
} irn_qp;

typedef struct {
  irn *p;
} side;

struct irn {
  sim *s;
  const options *o;
  irn_qp *req;
  rxq *resp;
  u32fifo ready;
  uint8_t *scratch;
  uint32_t bdp;            /* packets */
  uint64_t rto_low, rto_high_min;
  side req_side, resp_side;
};

/* ============================== requester ============================== */

static void arm_rto(irn *p, irn_qp *qp) {
  txq *t = &qp->t;
  unsigned b = t->rtt.backoff < 16 ? t->rtt.backoff : 16;
  uint64_t high = t->rtt.srtt + 4 * t->rtt.rttvar;
  if (high < p->rto_high_min) high = p->rto_high_min;
  uint64_t rto = t->next_new - t->cum < IRN_LOW_INFLIGHT ? p->rto_low : high;
  ltimer_arm(p->s, &t->rto, NODE_REQ, t->q, sim_now(p->s) + (rto << b));
}

static void post_next(irn *p, irn_qp *qp) {
  qp->recovery = false;
  qp->high_sack = qp->scan = 0;
  if (txq_post(&qp->t, p->s, p->o)) txq_ready(&p->ready, p->s, &qp->t);
}

static pkt *send(irn *p, irn_qp *qp, uint32_t idx, bool retx) {
  rcx_write x = {&qp->t.w, qp->t.q, idx, retx, true, false, false, SIM_PATH_SPRAY};
  if (retx) txq_sent_retx(&qp->t, idx);
  else txq_sent_new(&qp->t, p->s, idx);
  arm_rto(p, qp);
  return rcx_build_write(p->s, p->o, p->scratch, &x);
}

/* In recovery: the next packet below the highest SACKed one that is still
 * unacknowledged and was not sent again in this recovery. */
static bool next_lost(irn_qp *qp, uint32_t *idx) {
  if (qp->scan < qp->t.cum) qp->scan = qp->t.cum;
  while (qp->scan < qp->high_sack) {
    uint32_t i = qp->scan++;
    if (!txq_acked(&qp->t, i)) {
      *idx = i;
      return true;
    }
  }
  return false;
}

static pkt *qp_next(void *ctx, txq *t) {
  irn *p = ctx;
  irn_qp *qp = (irn_qp *)t;
  uint32_t idx;
  if (!t->busy) return NULL;
  if (qp->recovery && next_lost(qp, &idx)) return send(p, qp, idx, true);
  if (t->next_new >= t->w.n || t->next_new - t->cum >= p->bdp) return NULL; /* BDP-FC */
  return send(p, qp, t->next_new++, false);
}

static txq *qp_at(void *ctx, uint32_t q) { return &((irn *)ctx)->req[q].t; }

static pkt *req_next_tx(void *self) {
  irn *p = ((side *)self)->p;
  return txq_schedule(&p->ready, p->s, qp_at, qp_next, p);
}

static void advance(irn *p, irn_qp *qp, uint32_t cum) {
  txq *t = &qp->t;
  if (txq_ack_cum(t, p->s, cum)) arm_rto(p, qp);
  if (qp->recovery && t->cum >= qp->recover) qp->recovery = false;
  if (t->cum == t->w.n) {
    txq_complete(t, p->s);
    post_next(p, qp);
    return;
  }
  txq_ready(&p->ready, p->s, t);
}

static void on_nack(irn *p, irn_qp *qp, uint32_t cum, uint32_t trigger) {
  txq *t = &qp->t;
  if (trigger >= t->w.n || trigger < cum) return;
  txq_ack(t, p->s, trigger);
  if (trigger + 1 > qp->high_sack) qp->high_sack = trigger + 1;
  if (!qp->recovery) {
    qp->recovery = true;
    qp->recover = t->next_new;
    qp->scan = cum;
  }
  advance(p, qp, cum);
}

static void req_rx(void *self, pkt *pk, const ornic_frame *f) {
  irn *p = ((side *)self)->p;
  (void)pk;
  int q = wl_qp_index(p->o, f->bth.destqp, false);
  if (q < 0 || f->bth.opcode != ORNIC_OP_RC_ACK) return;
  irn_qp *qp = &p->req[q];
  txq *t = &qp->t;
  if (txq_ack_arrived(t, p->s, f)) {
    uint32_t cum = wqe_idx(&t->w, f->bth.psn + 1);
    if (cum <= t->w.n && cum >= t->cum) advance(p, qp, cum);
  } else if (t->busy && f->ext.aeth.syndrome == RCX_SYN_NAK_SEQ) {
    uint32_t cum = wqe_idx(&t->w, f->bth.psn);
    if (cum < t->w.n && cum >= t->cum) on_nack(p, qp, cum, wqe_idx(&t->w, f->ext.aeth.msn));
  }
}

static void req_timer(void *self, uint32_t arg) {
  irn *p = ((side *)self)->p;
  irn_qp *qp = &p->req[arg];
  txq *t = &qp->t;
  if (!txq_timeout(t, p->s, p->o, arg)) return;
  /* Every unacknowledged packet is lost: a recovery over all of them. */
  qp->recovery = true;
  qp->recover = t->next_new;
  qp->scan = t->cum;
  qp->high_sack = t->next_new;
  arm_rto(p, qp);
  txq_ready(&p->ready, p->s, t);
}

/* ============================== responder ============================== */

static void resp_rx(void *self, pkt *pk, const ornic_frame *f) {
  irn *p = ((side *)self)->p;
  (void)pk;
  int q = wl_qp_index(p->o, f->bth.destqp, true);
  if (q < 0) return;
  rxq *r = &p->resp[q];
  uint32_t psn = f->bth.psn, before = r->epsn;
  switch (rxq_accept(r, p->s, p->o, f, p->bdp, true)) {
  case RXQ_NEW:
  case RXQ_DONE:
    if (psn != before) { /* out of order: a NACK naming the packet */
      rcx_send_ack(p->s, r->q, RCX_SYN_NAK_SEQ, r->epsn, psn, PK_NAK, SIM_PATH_SPRAY);
      break;
    }
    rcx_send_ack(p->s, r->q, RCX_SYN_ACK, r->epsn - 1, r->msn, PK_ACK, SIM_PATH_SPRAY);
    break;
  case RXQ_DUP:
    rcx_send_ack(p->s, r->q, RCX_SYN_ACK, r->epsn - 1, r->msn, PK_ACK, SIM_PATH_SPRAY);
    break;
  default: break; /* beyond the bitmap (BDP-FC prevents it) or invalid */
  }
}

/* ============================== life cycle ============================== */

irn *irn_new(sim *s, const options *o) {
  irn *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->s = s;
  p->o = o;
  p->req = calloc(o->qps, sizeof *p->req);
  p->resp = calloc(o->qps, sizeof *p->resp);
  p->scratch = malloc(RCX_ADDR_LEN + o->pmtu);
  if (!p->req || !p->resp || !p->scratch) {
    irn_free(p);
    return NULL;
  }
  const sim_timing *tm = sim_times(s);
  p->bdp = txq_bdp(s);
  p->rto_low = 2 * tm->rtt_ps;
  p->rto_high_min = 4 * tm->rtt_ps;
  for (uint32_t q = 0; q < o->qps; q++) {
    txq_init(&p->req[q].t, s, o, q);
    rxq_init(&p->resp[q], o, q);
  }
  p->req_side.p = p->resp_side.p = p;
  static const endpoint_ops req_ops = {req_next_tx, req_rx, req_timer};
  static const endpoint_ops resp_ops = {NULL, resp_rx, NULL}; /* sends only ACKs/NAKs */
  sim_set_endpoint(s, NODE_REQ, &req_ops, &p->req_side);
  sim_set_endpoint(s, NODE_RESP, &resp_ops, &p->resp_side);
  return p;
}

void irn_free(irn *p) {
  if (!p) return;
  for (uint32_t q = 0; q < p->o->qps; q++) {
    if (p->req) txq_free(&p->req[q].t);
    if (p->resp) rxq_free(&p->resp[q]);
  }
  fifo_free(&p->ready);
  free(p->req);
  free(p->resp);
  free(p->scratch);
  free(p);
}

void irn_start(irn *p) {
  for (uint32_t q = 0; q < p->o->qps && !sim_failed(p->s); q++) post_next(p, &p->req[q]);
}
