/* SPDX-License-Identifier: MIT */
/* Profile `irn`: IRN's selective repeat (Mittal et al., "Revisiting Network
 * Support for RDMA", SIGCOMM 2018) for RDMA WRITE.
 *
 * Requester: every packet carries its address (research_wire.h); BDP-FC caps the
 * packets outstanding (next new PSN - cumulative PSN) at the bandwidth-delay
 * product in packets, BDP = nominal round trip over the slowest path / frame
 * time. Loss recovery: the T-th NACK with the same cumulative PSN enters
 * recovery; in recovery a packet is lost when it is unacknowledged and T
 * later PSNs were selectively acknowledged (the highest SACKed PSN is T or
 * more past it); each lost packet is sent again once per recovery, before new
 * packets; recovery ends when the cumulative PSN passes the highest PSN sent
 * when it began. T = 1 is IRN as published. IRN's section 8 ("Reordering due
 * to load-balancing") proposes exactly this for fabrics that reorder: trigger
 * loss recovery only after a threshold of NACKs; T counts late packets the
 * way ORNIC's OTD does, so a reordering fabric gets T = OTD
 * (--irn-nack-threshold, sim_config.h). Timeouts: RTO_low = 2 x nominal RTT
 * while fewer than 3 packets are outstanding, else RTO_high = max(4 x
 * nominal RTT, SRTT + 4 RTTVAR); doubled per timeout in a row; a timeout
 * marks every unacknowledged packet lost.
 *
 * Responder: places every packet at its own address, keeps a bitmap of BDP
 * packets from the cumulative PSN, and answers every data packet: an ACK
 * (cumulative) when it arrived in order or was a duplicate, a NACK (AETH
 * 0x60, BTH.PSN = next expected PSN, trigger PSN in the AETH MSN field) when
 * it arrived out of order. */
#include "research_engine.h"
#include "research_wire.h"
#include "work_queue.h"

#define IRN_LOW_INFLIGHT 3 /* IRN's N: RTO_low below this many packets outstanding */

typedef struct {
  rcxq x;
  bool recovery;
  uint32_t recover;   /* recovery ends when the cumulative PSN reaches this */
  uint32_t high_sack; /* 1 + the highest selectively acknowledged packet */
  uint32_t scan;      /* next packet to examine for loss in this recovery */
  uint32_t nacks;     /* NACKs naming nack_cum as the cumulative PSN, out of recovery */
  uint32_t nack_cum;
} irn_qp;

/* ============================== requester ============================== */

static uint64_t irn_rto(rcxeng *e, rcxq *x) {
  const txq *t = &x->t;
  const sim_timing *tm = sim_times(e->s);
  unsigned b = t->rtt.backoff < 16 ? t->rtt.backoff : 16;
  uint64_t high = t->rtt.srtt + 4 * t->rtt.rttvar;
  if (high < 4 * tm->rtt_ps) high = 4 * tm->rtt_ps; /* RTO_high */
  uint64_t rto = t->next_new - t->cum < IRN_LOW_INFLIGHT ? 2 * tm->rtt_ps : high;
  return rto << b;
}

static bool irn_begin(rcxeng *e, rcxq *x) {
  irn_qp *qp = (irn_qp *)x;
  (void)e;
  qp->recovery = false;
  qp->high_sack = qp->scan = qp->nacks = qp->nack_cum = 0;
  return true;
}

static pkt *irn_send(rcxeng *e, rcxq *x, uint32_t idx, bool retx) {
  return rcxeng_send(e, x, idx, retx, SIM_PATH_SPRAY, false);
}

/* In recovery: the next packet at least T below the highest SACKed one that
 * is still unacknowledged and was not sent again in this recovery. */
static bool irn_resend(rcxeng *e, rcxq *x, uint32_t *idx) {
  irn_qp *qp = (irn_qp *)x;
  uint32_t t = e->cfg->protocol.irn_nack_threshold;
  if (!qp->recovery) return false;
  if (qp->scan < x->t.cum) qp->scan = x->t.cum;
  while (qp->scan + t <= qp->high_sack) {
    uint32_t i = qp->scan++;
    if (!txq_acked(&x->t, i)) {
      *idx = i;
      return true;
    }
  }
  return false;
}

static void advance(rcxeng *e, irn_qp *qp, uint32_t cum) {
  if (txq_ack_cum(&qp->x.t, e->s, cum)) rcxeng_arm_rto(e, &qp->x);
  if (qp->recovery && qp->x.t.cum >= qp->recover) qp->recovery = false;
  rcxeng_acked(e, &qp->x);
}

/* A cumulative ACK: BTH.PSN is the last PSN received in order. */
static void irn_ack(rcxeng *e, rcxq *x, const ornic_frame *f, unsigned path) {
  (void)path;
  uint32_t cum = wqe_idx(&x->t.w, f->bth.psn + 1);
  if (cum <= x->t.w.n && cum >= x->t.cum) advance(e, (irn_qp *)x, cum);
}

/* A NACK: BTH.PSN is the next PSN expected (cumulative), the AETH MSN field
 * the out-of-order packet that triggered it (selectively acknowledged). */
static void irn_nack(rcxeng *e, rcxq *x, const ornic_frame *f) {
  irn_qp *qp = (irn_qp *)x;
  txq *t = &x->t;
  uint32_t cum = wqe_idx(&t->w, f->bth.psn), trigger = wqe_idx(&t->w, f->ext.aeth.msn);
  if (cum >= t->w.n || cum < t->cum || trigger >= t->w.n || trigger < cum) return;
  txq_ack(t, e->s, trigger);
  if (trigger + 1 > qp->high_sack) qp->high_sack = trigger + 1;
  if (cum != qp->nack_cum) qp->nack_cum = cum, qp->nacks = 0; /* a new hole */
  if (!qp->recovery && ++qp->nacks >= e->cfg->protocol.irn_nack_threshold) {
    qp->recovery = true;
    qp->recover = t->next_new;
    qp->scan = cum;
  }
  advance(e, qp, cum);
}

/* Every unacknowledged packet is lost: a recovery over all of them. */
static void irn_timeout(rcxeng *e, rcxq *x) {
  irn_qp *qp = (irn_qp *)x;
  (void)e;
  qp->recovery = true;
  qp->recover = x->t.next_new;
  qp->scan = x->t.cum;
  /* every unacknowledged packet counts as lost whatever T is */
  qp->high_sack = x->t.next_new + e->cfg->protocol.irn_nack_threshold - 1;
}

/* ============================== responder ============================== */

static void irn_answer(rcxeng *e, rxq *r, const ornic_frame *f) {
  uint32_t psn = f->bth.psn, before = r->epsn;
  switch (rxq_accept(r, e->s, e->cfg, f, e->bdp, true)) {
  case RXQ_NEW:
  case RXQ_DONE:
    if (psn != before) { /* out of order: a NACK naming the packet */
      rcx_send_ack(e->s, e->cfg, r->q, ORNIC_AETH_NAK_PSN_SEQ, r->epsn, psn, PK_NAK,
                   SIM_PATH_SPRAY);
      break;
    }
    rcx_send_ack(e->s, e->cfg, r->q, SIM_AETH_ACK, r->epsn - 1, r->msn, PK_ACK, SIM_PATH_SPRAY);
    break;
  case RXQ_DUP:
    rcx_send_ack(e->s, e->cfg, r->q, SIM_AETH_ACK, r->epsn - 1, r->msn, PK_ACK, SIM_PATH_SPRAY);
    break;
  default: break; /* beyond the bitmap (BDP-FC prevents it) or invalid */
  }
}

/* ============================== life cycle ============================== */

static const rcxeng_ops irn_ops = {.qp_size = sizeof(irn_qp),
                                   .addr = true,
                                   .begin = irn_begin,
                                   .resend = irn_resend,
                                   .send = irn_send,
                                   .ack = irn_ack,
                                   .nack = irn_nack,
                                   .rto = irn_rto,
                                   .timeout = irn_timeout,
                                   .answer = irn_answer};

RCXENG_PROFILE(irn, irn_ops);
