/* SPDX-License-Identifier: MIT */
#include "research_engine.h"

#include <stdlib.h>

#include "research_wire.h"
#include "rtt.h"
#include "workload.h"

/* ============================== requester ============================== */

void rcxeng_arm_rto(rcxeng *e, rcxq *qp) {
  txq *t = &qp->t;
  uint64_t rto = e->ops->rto ? e->ops->rto(e, qp) : rtt_rto(&t->rtt, sim_times(e->s)->otd_ps);
  ltimer_arm(e->s, &t->rto, NODE_REQ, t->q, sim_now(e->s) + rto);
}

static void post_next(rcxeng *e, rcxq *qp) {
  if (e->ops->path_order) pathseq_clear(&qp->sent);
  if (!txq_post(&qp->t, e->s, e->cfg)) return;
  if (e->ops->begin && !e->ops->begin(e, qp)) return;
  txq_ready(&e->ready, e->s, &qp->t);
}

pkt *rcxeng_send(rcxeng *e, rcxq *qp, uint32_t idx, bool retx, unsigned path, bool inorder) {
  rcx_write x = {&qp->t.w, qp->t.q, idx, retx, e->ops->addr, false, inorder, path};
  if (retx)
    txq_sent_retx(&qp->t, idx);
  else
    txq_sent_new(&qp->t, e->s, idx);
  rcxeng_arm_rto(e, qp);
  pkt *pk = rcx_build_write(e->s, e->cfg, &x);
  if (pk && e->ops->path_order && pathseq_sent(&qp->sent, pk->path, idx) < 0)
    sim_fail(e->s, "out of memory (path log)");
  return pk;
}

/* Losses first, then new packets within one bandwidth-delay product. */
static pkt *qp_next(void *ctx, txq *t) {
  rcxeng *e = ctx;
  rcxq *qp = (rcxq *)t;
  uint32_t idx;
  if (!t->busy) return NULL;
  if (e->ops->resend ? e->ops->resend(e, qp, &idx) : txq_pop_retx(t, &idx))
    return e->ops->send(e, qp, idx, true);
  if (t->next_new >= t->w.n || t->next_new - t->cum >= e->bdp) return NULL;
  if (e->ops->hold && e->ops->hold(e, qp)) return NULL;
  return e->ops->send(e, qp, t->next_new++, false);
}

static txq *qp_at(void *ctx, uint32_t q) { return &rcxeng_qp(ctx, q)->t; }

static pkt *req_next_tx(void *self) {
  rcxeng *e = self;
  return txq_schedule(&e->ready, e->s, qp_at, qp_next, e);
}

void rcxeng_acked(rcxeng *e, rcxq *qp) {
  txq *t = &qp->t;
  if (t->cum == t->w.n) {
    txq_complete(t, e->s);
    post_next(e, qp);
    return;
  }
  txq_ready(&e->ready, e->s, t);
}

bool rcxeng_ack_of(const rcxq *qp, const ornic_frame *f, uint32_t *cum, uint32_t *sidx) {
  const wqe *w = &qp->t.w;
  *cum = wqe_idx(w, f->bth.psn + 1);
  *sidx = wqe_idx(w, f->ext.aeth.msn);
  return *cum <= w->n && *sidx < w->n;
}

void rcxeng_path_acked(rcxeng *e, rcxq *qp, unsigned path, uint32_t sidx) {
  txq_lost_ctx c = {&qp->t, e->s};
  pathseq_acked(&qp->sent, path, sidx, txq_lost, &c);
}

static void req_rx(void *self, pkt *pk, const ornic_frame *f) {
  rcxeng *e = self;
  int q = wl_qp_index(e->cfg, f->bth.destqp, false);
  if (q < 0 || f->bth.opcode != ORNIC_OP_RC_ACK) return;
  rcxq *qp = rcxeng_qp(e, (uint32_t)q);
  if (txq_ack_arrived(&qp->t, e->s, f))
    e->ops->ack(e, qp, f, pk->path);
  else if (e->ops->nack && qp->t.busy && f->ext.aeth.syndrome == ORNIC_AETH_NAK_PSN_SEQ)
    e->ops->nack(e, qp, f);
}

static void req_timer(void *self, uint32_t arg) {
  rcxeng *e = self;
  rcxq *qp = rcxeng_qp(e, arg);
  if (!txq_timeout(&qp->t, e->s, e->cfg, arg)) return;
  if (e->ops->timeout) {
    e->ops->timeout(e, qp);
  } else {
    if (e->ops->path_order) pathseq_clear(&qp->sent);
    txq_queue_retx_all(&qp->t, e->s);
  }
  rcxeng_arm_rto(e, qp);
  txq_ready(&e->ready, e->s, &qp->t);
}

/* ============================== responder ============================== */

static void resp_rx(void *self, pkt *pk, const ornic_frame *f) {
  rcxeng *e = self;
  int q = wl_qp_index(e->cfg, f->bth.destqp, true);
  if (q < 0) return;
  rxq *r = rcxeng_resp(e, (uint32_t)q);
  uint32_t window = e->ops->resp_window_otd ? e->cfg->protocol.otd
                    : e->ops->resp_window   ? e->ops->resp_window
                                            : e->bdp;
  if (e->ops->answer)
    e->ops->answer(e, r, f);
  else
    rxq_ack_each(r, e->s, e->cfg, f, window, e->ops->addr, pk->path);
}

/* ============================== life cycle ============================== */

void *rcxeng_new(sim *s, const sim_config *cfg, const rcxeng_ops *ops) {
  rcxeng *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->s = s;
  e->cfg = cfg;
  e->ops = ops;
  e->req = calloc(cfg->workload.qps, ops->qp_size);
  e->resp = calloc(cfg->workload.qps, ops->resp_size ? ops->resp_size : sizeof(rxq));
  bool ok = e->req && e->resp;
  for (uint32_t q = 0; ok && q < cfg->workload.qps; q++) {
    rcxq *qp = rcxeng_qp(e, q);
    txq_init(&qp->t, s, cfg, q);
    rxq_init(rcxeng_resp(e, q), cfg, q);
    ok = !ops->path_order || pathseq_init(&qp->sent, cfg->fabric.paths) == 0;
  }
  if (!ok) {
    rcxeng_free(e);
    return NULL;
  }
  e->bdp = txq_bdp(s);
  /* One engine, one `self` for both nodes: each node has its own callbacks. */
  static const endpoint_ops req_ops = {req_next_tx, req_rx, req_timer};
  static const endpoint_ops resp_ops = {NULL, resp_rx, NULL}; /* sends only ACKs/NAKs */
  sim_set_endpoint(s, NODE_REQ, &req_ops, e);
  sim_set_endpoint(s, NODE_RESP, &resp_ops, e);
  return e;
}

void rcxeng_free(void *engines) {
  rcxeng *e = engines;
  if (!e) return;
  for (uint32_t q = 0; q < e->cfg->workload.qps; q++) {
    if (e->req) {
      rcxq *qp = rcxeng_qp(e, q);
      txq_free(&qp->t);
      pathseq_free(&qp->sent);
      if (e->ops->qp_free) e->ops->qp_free(qp);
    }
    if (e->resp) {
      rxq *r = rcxeng_resp(e, q);
      if (e->ops->resp_free) e->ops->resp_free(r);
      rxq_free(r);
    }
  }
  fifo_free(&e->ready);
  free(e->req);
  free(e->resp);
  free(e);
}

void rcxeng_start(void *engines) {
  rcxeng *e = engines;
  for (uint32_t q = 0; q < e->cfg->workload.qps && !sim_failed(e->s); q++)
    post_next(e, rcxeng_qp(e, q));
}
