/* SPDX-License-Identifier: MIT */
/* Profile `ioi`: the in-order / out-of-order / in-order sender of HPE's
 * Slingshot NIC patent, for RDMA WRITE.
 *
 * Requester, after the claims of US 12218828 B2 ("System and method for
 * facilitating efficient packet forwarding in a NIC", HPE, 2025): a WQE
 * starts in order (the head): every packet on one path (the path the
 * spraying policy gives its first packet) and marked in-order (IPv4 DSCP
 * RCX_DSCP_INORDER). The first condition (claim 2) is the first response to
 * a head packet: the First has reached the responder, which now knows where
 * the WQE goes. Its counter of outstanding head packets at that moment is
 * the threshold (claims 3-4): the following packets (the middle) are sprayed
 * by the --spray policy and left unmarked while at least `threshold`
 * packets remain; the rest (the tail) goes in order on the WQE's path again
 * (the second condition), and is held until every sprayed packet is
 * acknowledged (claim 1: "refrain from sending the last subset until ...
 * responses for the unordered delivery"). A WQE that ends before its first
 * response, or whose remainder is already below the threshold then, stays
 * in order throughout. A retransmission keeps its packet's class and path. Losses
 * are inferred from path order (path_order.h: ACKs echo the data packet's path
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
#include "research_engine.h"
#include "research_wire.h"

typedef struct {
  rcxq x;
  unsigned pin;       /* the WQE's in-order path; SIM_PATH_SPRAY before its first packet */
  bool answered;      /* an ACK of this WQE came back: the middle may be sprayed */
  uint32_t threshold; /* head packets outstanding at the first ACK: the tail's length */
  uint8_t *sprayed;   /* per packet: sent out of order */
  uint32_t ooo_open;  /* sprayed packets not acknowledged yet */
} ioi_qp;

/* A new WQE starts in order; the ACKs decide the rest. */
static bool ioi_begin(rcxeng *e, rcxq *x) {
  ioi_qp *qp = (ioi_qp *)x;
  free(qp->sprayed);
  if (!(qp->sprayed = bs_new(x->t.w.n))) {
    sim_fail(e->s, "out of memory posting WQE %llu of QP %u", (unsigned long long)x->t.w.id,
             x->t.q);
    return false;
  }
  qp->pin = SIM_PATH_SPRAY;
  qp->answered = false;
  qp->threshold = 0;
  qp->ooo_open = 0;
  return true;
}

static void ioi_qp_free(rcxq *x) { free(((ioi_qp *)x)->sprayed); }

/* Packet idx is in the tail: fewer than `threshold` packets from it on. */
static bool in_tail(const ioi_qp *qp, const rcxq *x, uint32_t idx) {
  return x->t.w.n - idx < qp->threshold;
}

/* A retransmission keeps its packet's class and path. */
static pkt *ioi_send(rcxeng *e, rcxq *x, uint32_t idx, bool retx) {
  ioi_qp *qp = (ioi_qp *)x;
  bool ooo = retx ? bs_get(qp->sprayed, idx) : qp->answered && !in_tail(qp, x, idx);
  if (!retx && ooo) {
    bs_set(qp->sprayed, idx);
    qp->ooo_open++;
  }
  pkt *pk = rcxeng_send(e, x, idx, retx, ooo ? SIM_PATH_SPRAY : qp->pin, !ooo);
  if (pk && !ooo && qp->pin == SIM_PATH_SPRAY) qp->pin = pk->path;
  return pk;
}

/* The tail waits until every sprayed packet is acknowledged. */
static bool ioi_hold(rcxeng *e, rcxq *x) {
  const ioi_qp *qp = (const ioi_qp *)x;
  (void)e;
  return qp->ooo_open && x->t.next_new < x->t.w.n && in_tail(qp, x, x->t.next_new);
}

static void ioi_ack(rcxeng *e, rcxq *x, const ornic_frame *f, unsigned path) {
  ioi_qp *qp = (ioi_qp *)x;
  txq *t = &x->t;
  uint32_t cum, sidx;
  if (!rcxeng_ack_of(x, f, &cum, &sidx)) return;
  if (!qp->answered) { /* the first condition; the counter sets the threshold */
    qp->answered = true;
    qp->threshold = t->next_new - t->cum;
  }
  for (uint32_t j = t->cum; j < cum; j++)
    if (!txq_acked(t, j) && bs_get(qp->sprayed, j)) qp->ooo_open--;
  if (txq_ack_cum(t, e->s, cum)) rcxeng_arm_rto(e, x);
  if (txq_ack(t, e->s, sidx) && bs_get(qp->sprayed, sidx)) qp->ooo_open--;
  rcxeng_path_acked(e, x, path, sidx);
  rcxeng_acked(e, x);
}

/* Losses: path order (path_order.h) and timeouts, rcxeng's defaults. The
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
