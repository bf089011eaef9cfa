/* SPDX-License-Identifier: MIT */
/* Profile `mprdma`: MP-RDMA (Lu et al., "Multi-Path Transport for RDMA in
 * Datacenters", NSDI 2018) for RDMA WRITE, as far as this fabric model goes.
 *
 * Requester: every packet carries its address (research_wire.h). The window is the
 * bandwidth-delay product in packets (nominal round trip over the slowest
 * path / frame time); with no ECN marking in the fabric model MP-RDMA's
 * congestion window has nothing to react to, so it stays there. Path choice
 * is ACK-clocked: each packet goes out on the path echoed by the oldest ACK
 * not yet used as a clock (paths whose ACKs come back sooner carry more);
 * before any ACK, and when none is waiting, the --spray policy picks. Loss:
 * ACKs return on the data packet's path, which is FIFO, so the ACK of packet
 * k on path p declares lost every packet sent on p before k and still
 * unanswered (path_order.h); a timeout (SRTT + 4 RTTVAR + OTD/B, doubling)
 * declares every unacknowledged packet lost. Not modelled: ECN-driven window
 * changes and path switches, the out-of-order-aware path selection that
 * stops using paths whose ACKs lag (so the bitmap limit below bites when the
 * delay spread exceeds --otd packets), and the synchronise mechanism.
 *
 * Responder: a bitmap of --otd packets from the cumulative PSN. MP-RDMA's
 * bitmap holds the out-of-order degree its path selection allows (the paper's
 * "out-of-order aware path selection ... controls the level of out-of-order
 * delivered packets, thus minimizes the metadata"), which is what ORNIC's OTD
 * measures, so both profiles take the same value: Eq. 3's by default
 * (--otd auto, sizing.h), or --otd N. A fixed 64 against ORNIC's Eq. 3 value
 * would compare unequal tolerances:
 * packets beyond it are dropped unplaced (counted as receiver drops) and
 * recovered by the requester; the others are placed at their own address and
 * each answered by one ACK that echoes its path (sent on it, same UDP source
 * port) and names its PSN in the AETH MSN field; BTH.PSN is the cumulative
 * PSN. */
#include "research_engine.h"
#include "research_wire.h"

typedef struct {
  rcxq x;
  u32fifo clock; /* paths echoed by ACKs, not yet used to send */
} mp_qp;

static bool mp_begin(rcxeng *e, rcxq *x) {
  (void)e;
  fifo_clear(&((mp_qp *)x)->clock);
  return true;
}

static void mp_qp_free(rcxq *x) { fifo_free(&((mp_qp *)x)->clock); }

/* ACK clocking: each packet goes where the oldest unused ACK came from. */
static pkt *mp_send(rcxeng *e, rcxq *x, uint32_t idx, bool retx) {
  uint32_t path = SIM_PATH_SPRAY;
  fifo_pop(&((mp_qp *)x)->clock, &path);
  return rcxeng_send(e, x, idx, retx, path, false);
}

static void mp_ack(rcxeng *e, rcxq *x, const ornic_frame *f, unsigned path) {
  mp_qp *qp = (mp_qp *)x;
  uint32_t cum, sidx;
  if (!rcxeng_ack_of(x, f, &cum, &sidx)) return;
  if (txq_ack_cum(&x->t, e->s, cum)) rcxeng_arm_rto(e, x);
  txq_ack(&x->t, e->s, sidx);
  rcxeng_path_acked(e, x, path, sidx);
  /* The next packet goes where this ACK came from; the clock holds one window. */
  if (qp->clock.len >= e->bdp) fifo_pop(&qp->clock, &(uint32_t){0});
  if (fifo_push(&qp->clock, path) < 0) sim_fail(e->s, "out of memory (ACK clock)");
  rcxeng_acked(e, x);
}

/* Losses: path order (path_order.h) and timeouts, rcxeng's defaults. The
 * responder: rxq_ack_each over an --otd-packet window. */
static const rcxeng_ops mp_ops = {.qp_size = sizeof(mp_qp),
                                  .path_order = true,
                                  .addr = true,
                                  .resp_window_otd = true,
                                  .begin = mp_begin,
                                  .qp_free = mp_qp_free,
                                  .send = mp_send,
                                  .ack = mp_ack};

RCXENG_PROFILE(mprdma, mp_ops);
