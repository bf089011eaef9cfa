#include "mprdma.h"

#include <stdlib.h>

#include "pathseq.h"
#include "rcx.h"
#include "rxq.h"
#include "txq.h"
#include "workload.h"

typedef struct {
  txq t;
  pathseq sent;   /* per path, the packets sent on it, in order */
  u32fifo clock;  /* paths echoed by ACKs, not yet used to send */
} mp_qp;

typedef struct {
  mprdma *p;
} side;

struct mprdma {
  sim *s;
  const options *o;
  mp_qp *req;
  rxq *resp;
  u32fifo ready;
  uint8_t *scratch;
  uint32_t cwnd;  /* packets */
  side req_side, resp_side;
};

/* ============================== requester ============================== */

static void arm_rto(mprdma *p, mp_qp *qp) {
  uint64_t rto = rtt_rto(&qp->t.rtt, sim_times(p->s)->otd_ps);
  ltimer_arm(p->s, &qp->t.rto, NODE_REQ, qp->t.q, sim_now(p->s) + rto);
}

static void post_next(mprdma *p, mp_qp *qp) {
  pathseq_clear(&qp->sent);
  fifo_clear(&qp->clock);
  if (txq_post(&qp->t, p->s, p->o)) txq_ready(&p->ready, p->s, &qp->t);
}

static pkt *send(mprdma *p, mp_qp *qp, uint32_t idx, bool retx) {
  uint32_t path = SIM_PATH_SPRAY;
  fifo_pop(&qp->clock, &path);
  rcx_write x = {&qp->t.w, qp->t.q, idx, retx, true, false, false, path};
  if (retx) txq_sent_retx(&qp->t, idx);
  else txq_sent_new(&qp->t, p->s, idx);
  arm_rto(p, qp);
  pkt *pk = rcx_build_write(p->s, p->o, p->scratch, &x);
  if (pk && pathseq_sent(&qp->sent, pk->path, idx) < 0) sim_fail(p->s, "out of memory (path log)");
  return pk;
}

static pkt *qp_next(void *ctx, txq *t) {
  mprdma *p = ctx;
  mp_qp *qp = (mp_qp *)t;
  uint32_t idx;
  if (!t->busy) return NULL;
  if (txq_pop_retx(t, &idx)) return send(p, qp, idx, true);
  if (t->next_new >= t->w.n || t->next_new - t->cum >= p->cwnd) return NULL;
  return send(p, qp, t->next_new++, false);
}

static txq *qp_at(void *ctx, uint32_t q) { return &((mprdma *)ctx)->req[q].t; }

static pkt *req_next_tx(void *self) {
  mprdma *p = ((side *)self)->p;
  return txq_schedule(&p->ready, p->s, qp_at, qp_next, p);
}

static void on_ack(mprdma *p, mp_qp *qp, const ornic_frame *f) {
  txq *t = &qp->t;
  uint32_t cum = wqe_idx(&t->w, f->bth.psn + 1), sidx = wqe_idx(&t->w, f->ext.aeth.msn);
  if (cum > t->w.n || sidx >= t->w.n) return; /* a late ACK of an earlier WQE */
  if (txq_ack_cum(t, p->s, cum)) arm_rto(p, qp);
  txq_ack(t, p->s, sidx);
  unsigned path = rcx_path_of(p->o, f);
  if (path != SIM_PATH_SPRAY) {
    txq_lost_ctx c = {&qp->t, p->s};
    pathseq_acked(&qp->sent, path, sidx, txq_lost, &c);
    /* ACK clocking: the next packet goes where this ACK came from. */
    if (qp->clock.len >= p->cwnd) fifo_pop(&qp->clock, &(uint32_t){0});
    if (fifo_push(&qp->clock, path) < 0) sim_fail(p->s, "out of memory (ACK clock)");
  }
  if (t->cum == t->w.n) {
    txq_complete(t, p->s);
    post_next(p, qp);
    return;
  }
  txq_ready(&p->ready, p->s, t);
}

static void req_rx(void *self, pkt *pk, const ornic_frame *f) {
  mprdma *p = ((side *)self)->p;
  (void)pk;
  int q = wl_qp_index(p->o, f->bth.destqp, false);
  if (q < 0 || f->bth.opcode != ORNIC_OP_RC_ACK) return;
  if (txq_ack_arrived(&p->req[q].t, p->s, f)) on_ack(p, &p->req[q], f);
}

static void req_timer(void *self, uint32_t arg) {
  mprdma *p = ((side *)self)->p;
  mp_qp *qp = &p->req[arg];
  if (!txq_timeout(&qp->t, p->s, p->o, arg)) return;
  /* Every unacknowledged packet is lost; the path logs start over. */
  pathseq_clear(&qp->sent);
  txq_queue_retx_all(&qp->t, p->s);
  arm_rto(p, qp);
  txq_ready(&p->ready, p->s, &qp->t);
}

/* ============================== responder ============================== */

static void resp_rx(void *self, pkt *pk, const ornic_frame *f) {
  mprdma *p = ((side *)self)->p;
  (void)pk;
  int q = wl_qp_index(p->o, f->bth.destqp, true);
  if (q >= 0) rxq_ack_each(&p->resp[q], p->s, p->o, f, MPRDMA_BITMAP, true);
}

/* ============================== life cycle ============================== */

mprdma *mprdma_new(sim *s, const options *o) {
  mprdma *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->s = s;
  p->o = o;
  p->req = calloc(o->qps, sizeof *p->req);
  p->resp = calloc(o->qps, sizeof *p->resp);
  p->scratch = malloc(RCX_ADDR_LEN + o->pmtu);
  bool ok = p->req && p->resp && p->scratch;
  for (uint32_t q = 0; ok && q < o->qps; q++) {
    txq_init(&p->req[q].t, s, o, q);
    rxq_init(&p->resp[q], o, q);
    ok = pathseq_init(&p->req[q].sent, o->paths) == 0;
  }
  if (!ok) {
    mprdma_free(p);
    return NULL;
  }
  p->cwnd = txq_bdp(s);
  p->req_side.p = p->resp_side.p = p;
  static const endpoint_ops req_ops = {req_next_tx, req_rx, req_timer};
  static const endpoint_ops resp_ops = {NULL, resp_rx, NULL}; /* sends only ACKs/NAKs */
  sim_set_endpoint(s, NODE_REQ, &req_ops, &p->req_side);
  sim_set_endpoint(s, NODE_RESP, &resp_ops, &p->resp_side);
  return p;
}

void mprdma_free(mprdma *p) {
  if (!p) return;
  for (uint32_t q = 0; q < p->o->qps; q++) {
    if (p->req) {
      txq_free(&p->req[q].t);
      pathseq_free(&p->req[q].sent);
      fifo_free(&p->req[q].clock);
    }
    if (p->resp) rxq_free(&p->resp[q]);
  }
  fifo_free(&p->ready);
  free(p->req);
  free(p->resp);
  free(p->scratch);
  free(p);
}

void mprdma_start(mprdma *p) {
  for (uint32_t q = 0; q < p->o->qps && !sim_failed(p->s); q++) post_next(p, &p->req[q]);
}
