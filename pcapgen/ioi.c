/* SPDX-License-Identifier: MIT */
/* Profile `ioi`: the in-order / out-of-order / in-order sender of HPE's
 * Slingshot NIC patent, for RDMA WRITE.
 *
 * Requester: a WQE shorter than two round trips of data (2 x SRTT / frame
 * time packets, SRTT being the QP's smoothed round trip) is sent in order:
 * every packet on one path (the path the spraying policy gives its first
 * packet) and marked in-order (IPv4 DSCP RCX_DSCP_INORDER). A longer WQE
 * starts the same way (the head); once the first ACK of the WQE is back, its
 * First has reached the responder, which now knows where the WQE goes, and
 * the following packets (the middle) are sprayed by the --spray policy and
 * left unmarked; the last SRTT's worth of packets (the tail) is in order on
 * the WQE's path again, and the Last is held until every sprayed packet is
 * acknowledged. A retransmission keeps its packet's class and path. Losses
 * are inferred from path order (pathseq.h: ACKs echo the data packet's path
 * and return on it) and by a timeout (SRTT + 4 RTTVAR + OTD/B, doubling),
 * which declares every unacknowledged packet lost. The packets outstanding
 * are capped at the bandwidth-delay product, as for irn.
 *
 * Responder: the First's RETH sets up the WQE; no packet needs an address of
 * its own: every packet's offset is (PSN - First's PSN) x PMTU, as in RC.
 * In-order packets arrive in order (one FIFO path) and are delivered in
 * order; sprayed ones, sent only after the First arrived, are placed where
 * they belong as they come. Packets that arrive before the First (it was
 * lost) are dropped. Every packet is answered by one ACK that echoes its
 * path and names its PSN in the AETH MSN field. */
#include <stdlib.h>

#include "bitset.h"
#include "rcx.h"
#include "rcxeng.h"

typedef struct {
  rcxq x;
  unsigned pin;      /* the WQE's in-order path; SIM_PATH_SPRAY before its first packet */
  bool split;        /* head, sprayed middle, tail */
  bool answered;     /* an ACK of this WQE came back: the middle may be sprayed */
  uint32_t tail;     /* first packet of the in-order tail */
  uint8_t *sprayed;  /* per packet: sent out of order */
  uint32_t ooo_open; /* sprayed packets not acknowledged yet */
} ioi_qp;

/* The WQE's plan: in order throughout, or head / middle / tail. */
static bool ioi_begin(rcxeng *e, rcxq *x) {
  ioi_qp *qp = (ioi_qp *)x;
  free(qp->sprayed);
  if (!(qp->sprayed = bs_new(x->t.w.n))) {
    sim_fail(e->s, "out of memory posting WQE %llu of QP %u", (unsigned long long)x->t.w.id,
             x->t.q);
    return false;
  }
  uint64_t rtt_pkts = x->t.rtt.srtt / sim_times(e->s)->frame_ps;
  if (rtt_pkts < 1) rtt_pkts = 1;
  uint32_t n = x->t.w.n;
  qp->split = n >= 2 * rtt_pkts;
  qp->tail = qp->split ? n - (uint32_t)rtt_pkts : n;
  qp->pin = SIM_PATH_SPRAY;
  qp->answered = false;
  qp->ooo_open = 0;
  return true;
}

static void ioi_qp_free(rcxq *x) { free(((ioi_qp *)x)->sprayed); }

/* A retransmission keeps its packet's class and path. */
static pkt *ioi_send(rcxeng *e, rcxq *x, uint32_t idx, bool retx) {
  ioi_qp *qp = (ioi_qp *)x;
  bool ooo = retx ? bs_get(qp->sprayed, idx) : qp->split && qp->answered && idx < qp->tail;
  if (!retx && ooo) {
    bs_set(qp->sprayed, idx);
    qp->ooo_open++;
  }
  pkt *pk = rcxeng_send(e, x, idx, retx, ooo ? SIM_PATH_SPRAY : qp->pin, !ooo);
  if (pk && !ooo && qp->pin == SIM_PATH_SPRAY) qp->pin = pk->path;
  return pk;
}

/* The Last waits until every sprayed packet is acknowledged. */
static bool ioi_hold(rcxeng *e, rcxq *x) {
  (void)e;
  return x->t.next_new == x->t.w.n - 1 && ((ioi_qp *)x)->ooo_open;
}

static void ioi_ack(rcxeng *e, rcxq *x, const ornic_frame *f) {
  ioi_qp *qp = (ioi_qp *)x;
  txq *t = &x->t;
  uint32_t cum, sidx;
  if (!rcxeng_ack_of(x, f, &cum, &sidx)) return;
  qp->answered = true;
  for (uint32_t j = t->cum; j < cum; j++)
    if (!txq_acked(t, j) && bs_get(qp->sprayed, j)) qp->ooo_open--;
  if (txq_ack_cum(t, e->s, cum)) rcxeng_arm_rto(e, x);
  if (txq_ack(t, e->s, sidx) && bs_get(qp->sprayed, sidx)) qp->ooo_open--;
  rcxeng_path_acked(e, x, rcx_path_of(e->o, f), sidx);
  rcxeng_acked(e, x);
}

/* Losses: path order (pathseq.h) and timeouts, rcxeng's defaults. The
 * responder: rxq_ack_each over one BDP; no per-packet address (the First's
 * RETH places the WQE). */
static const rcxeng_ops ioi_ops = {.qp_size = sizeof(ioi_qp),
                                   .path_order = true,
                                   .begin = ioi_begin,
                                   .qp_free = ioi_qp_free,
                                   .hold = ioi_hold,
                                   .send = ioi_send,
                                   .ack = ioi_ack};

RCXENG_PROFILE(ioi, ioi_ops);
