#include "ioi.h"

#include <stdlib.h>

#include "bitset.h"
#include "pathseq.h"
#include "rcx.h"
#include "rxq.h"
#include "txq.h"
#include "workload.h"

typedef struct {
  txq t;
  pathseq sent;       /* per path, the packets sent on it, in order */
  unsigned pin;       /* the WQE's in-order path; SIM_PATH_SPRAY before its first packet */
  bool split;         /* head, sprayed middle, tail */
  bool answered;      /* an ACK of this WQE came back: the middle may be sprayed */
  uint32_t tail;      /* first packet of the in-order tail */
  uint8_t *sprayed;   /* per packet: sent out of order */
  uint32_t ooo_open;  /* sprayed packets not acknowledged yet */
} ioi_qp;

typedef struct {
  ioi *p;
} side;

struct ioi {
  sim *s;
  const options *o;
  ioi_qp *req;
  rxq *resp;
  u32fifo ready;
  uint8_t *scratch;
  uint32_t bdp;       /* packets */
  side req_side, resp_side;
};

/* ============================== requester ============================== */

static void arm_rto(ioi *p, ioi_qp *qp) {
  uint64_t rto = rtt_rto(&qp->t.rtt, sim_times(p->s)->otd_ps);
  ltimer_arm(p->s, &qp->t.rto, NODE_REQ, qp->t.q, sim_now(p->s) + rto);
}

/* The WQE's plan: in order throughout, or head / middle / tail. */
static void plan(ioi *p, ioi_qp *qp) {
  uint64_t rtt_pkts = qp->t.rtt.srtt / sim_times(p->s)->frame_ps;
  if (rtt_pkts < 1) rtt_pkts = 1;
  uint32_t n = qp->t.w.n;
  qp->split = n >= 2 * rtt_pkts;
  qp->tail = qp->split ? n - (uint32_t)rtt_pkts : n;
  qp->pin = SIM_PATH_SPRAY;
  qp->answered = false;
  qp->ooo_open = 0;
}

static void post_next(ioi *p, ioi_qp *qp) {
  pathseq_clear(&qp->sent);
  free(qp->sprayed);
  qp->sprayed = NULL;
  if (!txq_post(&qp->t, p->s, p->o)) return;
  if (!(qp->sprayed = bs_new(qp->t.w.n))) {
    sim_fail(p->s, "out of memory posting WQE %llu of QP %u", (unsigned long long)qp->t.w.id,
             qp->t.q);
    return;
  }
  plan(p, qp);
  txq_ready(&p->ready, p->s, &qp->t);
}

static pkt *send(ioi *p, ioi_qp *qp, uint32_t idx, bool retx) {
  txq *t = &qp->t;
  bool ooo = retx ? bs_get(qp->sprayed, idx) : qp->split && qp->answered && idx < qp->tail;
  if (!retx && ooo) {
    bs_set(qp->sprayed, idx);
    qp->ooo_open++;
  }
  rcx_write x = {&t->w, t->q, idx, retx, false, false, !ooo, ooo ? SIM_PATH_SPRAY : qp->pin};
  if (retx) txq_sent_retx(t, idx);
  else txq_sent_new(t, p->s, idx);
  arm_rto(p, qp);
  pkt *pk = rcx_build_write(p->s, p->o, p->scratch, &x);
  if (!pk) return NULL;
  if (!ooo && qp->pin == SIM_PATH_SPRAY) qp->pin = pk->path;
  if (pathseq_sent(&qp->sent, pk->path, idx) < 0) sim_fail(p->s, "out of memory (path log)");
  return pk;
}

static pkt *qp_next(void *ctx, txq *t) {
  ioi *p = ctx;
  ioi_qp *qp = (ioi_qp *)t;
  uint32_t idx;
  if (!t->busy) return NULL;
  if (txq_pop_retx(t, &idx)) return send(p, qp, idx, true);
  if (t->next_new >= t->w.n || t->next_new - t->cum >= p->bdp) return NULL;
  /* The Last waits until every sprayed packet is acknowledged. */
  if (t->next_new == t->w.n - 1 && qp->ooo_open) return NULL;
  return send(p, qp, t->next_new++, false);
}

static txq *qp_at(void *ctx, uint32_t q) { return &((ioi *)ctx)->req[q].t; }

static pkt *req_next_tx(void *self) {
  ioi *p = ((side *)self)->p;
  return txq_schedule(&p->ready, p->s, qp_at, qp_next, p);
}

static void acknowledge(ioi *p, ioi_qp *qp, uint32_t cum, uint32_t sidx) {
  txq *t = &qp->t;
  for (uint32_t j = t->cum; j < cum; j++)
    if (!txq_acked(t, j) && bs_get(qp->sprayed, j)) qp->ooo_open--;
  if (txq_ack_cum(t, p->s, cum)) arm_rto(p, qp);
  if (txq_ack(t, p->s, sidx) && bs_get(qp->sprayed, sidx)) qp->ooo_open--;
}

static void on_ack(ioi *p, ioi_qp *qp, const ornic_frame *f) {
  txq *t = &qp->t;
  uint32_t cum = wqe_idx(&t->w, f->bth.psn + 1), sidx = wqe_idx(&t->w, f->ext.aeth.msn);
  if (cum > t->w.n || sidx >= t->w.n) return; /* a late ACK of an earlier WQE */
  qp->answered = true;
  acknowledge(p, qp, cum, sidx);
  txq_lost_ctx c = {&qp->t, p->s};
  pathseq_acked(&qp->sent, rcx_path_of(p->o, f), sidx, txq_lost, &c);
  if (t->cum == t->w.n) {
    txq_complete(t, p->s);
    post_next(p, qp);
    return;
  }
  txq_ready(&p->ready, p->s, t);
}

static void req_rx(void *self, pkt *pk, const ornic_frame *f) {
  ioi *p = ((side *)self)->p;
  (void)pk;
  int q = wl_qp_index(p->o, f->bth.destqp, false);
  if (q < 0 || f->bth.opcode != ORNIC_OP_RC_ACK) return;
  if (txq_ack_arrived(&p->req[q].t, p->s, f)) on_ack(p, &p->req[q], f);
}

static void req_timer(void *self, uint32_t arg) {
  ioi *p = ((side *)self)->p;
  ioi_qp *qp = &p->req[arg];
  if (!txq_timeout(&qp->t, p->s, p->o, arg)) return;
  /* Every unacknowledged packet is lost; the path logs start over. */
  pathseq_clear(&qp->sent);
  txq_queue_retx_all(&qp->t, p->s);
  arm_rto(p, qp);
  txq_ready(&p->ready, p->s, &qp->t);
}

/* ============================== responder ============================== */

static void resp_rx(void *self, pkt *pk, const ornic_frame *f) {
  ioi *p = ((side *)self)->p;
  (void)pk;
  int q = wl_qp_index(p->o, f->bth.destqp, true);
  if (q >= 0) rxq_ack_each(&p->resp[q], p->s, p->o, f, p->bdp, false);
}

/* ============================== life cycle ============================== */

ioi *ioi_new(sim *s, const options *o) {
  ioi *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->s = s;
  p->o = o;
  p->req = calloc(o->qps, sizeof *p->req);
  p->resp = calloc(o->qps, sizeof *p->resp);
  p->scratch = malloc(o->pmtu);
  bool ok = p->req && p->resp && p->scratch;
  for (uint32_t q = 0; ok && q < o->qps; q++) {
    txq_init(&p->req[q].t, s, o, q);
    rxq_init(&p->resp[q], o, q);
    ok = pathseq_init(&p->req[q].sent, o->paths) == 0;
  }
  if (!ok) {
    ioi_free(p);
    return NULL;
  }
  p->bdp = txq_bdp(s);
  p->req_side.p = p->resp_side.p = p;
  static const endpoint_ops req_ops = {req_next_tx, req_rx, req_timer};
  static const endpoint_ops resp_ops = {NULL, resp_rx, NULL}; /* sends only ACKs/NAKs */
  sim_set_endpoint(s, NODE_REQ, &req_ops, &p->req_side);
  sim_set_endpoint(s, NODE_RESP, &resp_ops, &p->resp_side);
  return p;
}

void ioi_free(ioi *p) {
  if (!p) return;
  for (uint32_t q = 0; q < p->o->qps; q++) {
    if (p->req) {
      txq_free(&p->req[q].t);
      pathseq_free(&p->req[q].sent);
      free(p->req[q].sprayed);
    }
    if (p->resp) rxq_free(&p->resp[q]);
  }
  fifo_free(&p->ready);
  free(p->req);
  free(p->resp);
  free(p->scratch);
  free(p);
}

void ioi_start(ioi *p) {
  for (uint32_t q = 0; q < p->o->qps && !sim_failed(p->s); q++) post_next(p, &p->req[q]);
}
