/* SPDX-License-Identifier: MIT */
/* The engines of the research transports (profiles irn, mprdma, ioi, left), all but
 * their protocol: RDMA WRITE on RC opcodes (research_wire.h), one WQE in
 * flight per QP, a requester QP per txq (tx_queue.h) and a responder QP per
 * rxq (rx_queue.h), the round-robin of QPs with something to send, the window
 * of one bandwidth-delay product, the retransmission timer, the per-path logs
 * of path_order.h and the life cycle of profile.h's profile_engines. A
 * transport of the family is a set of hooks (rcxeng_ops: "RC extension
 * engine"): which packet to resend, what an ACK or a NACK means, its RTO, what
 * a timeout declares lost, how the responder answers; everything else is
 * here, once.
 *
 * A profile's file: its QP struct starts with an rcxq, its hooks fill a
 * static const rcxeng_ops foo_ops, and RCXENG_PROFILE(foo, foo_ops) defines
 * the foo_engines of its row in the profile table (profile.h). */
#ifndef PCAPGEN_RESEARCH_ENGINE_H
#define PCAPGEN_RESEARCH_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fifo.h"
#include "ornic/ornic.h"
#include "sim_config.h"
#include "path_order.h"
#include "profile.h"
#include "rx_queue.h"
#include "sim.h"
#include "tx_queue.h"

typedef struct rcxeng rcxeng;

/* A requester QP; a profile's own QP struct starts with one. */
typedef struct {
  txq t;
  pathseq sent; /* with rcxeng_ops.path_order: per path, the packets sent on it, in order */
} rcxq;

typedef struct {
  size_t qp_size;       /* sizeof the profile's QP struct (an rcxq first, zeroed at start) */
  bool path_order;      /* keep rcxq.sent: ACKs that return on their packet's path reveal
                           the losses sent before it on that path */
  bool addr;            /* Middle and Last carry their address (research_wire.h) */
  size_t resp_size;     /* sizeof the profile's responder QP struct (an rxq first); 0: an rxq */
  uint32_t resp_window; /* packets the responder takes from its ePSN on; 0: one BDP */
  bool resp_window_otd; /* instead: the run's --otd (mprdma: its bitmap is the OOO degree) */
  /* A WQE was posted on qp (and the path logs cleared): reset the per-WQE
   * state. false after sim_fail. NULL: nothing to do. */
  bool (*begin)(rcxeng *e, rcxq *qp);
  /* Frees what qp holds beyond the rcxq. NULL: nothing. */
  void (*qp_free)(rcxq *qp);
  /* Frees what a responder QP holds beyond the rxq (resp_size). NULL: nothing. */
  void (*resp_free)(rxq *r);
  /* The next packet to send again, if any, into *idx. NULL: txq_pop_retx. */
  bool (*resend)(rcxeng *e, rcxq *qp, uint32_t *idx);
  /* true: hold the next new packet although the window allows it. NULL: never. */
  bool (*hold)(rcxeng *e, rcxq *qp);
  /* Packet idx of qp's WQE goes out (rcxeng_send). */
  pkt *(*send)(rcxeng *e, rcxq *qp, uint32_t idx, bool retx);
  /* An ACK (AETH type ACK) while qp has a WQE in flight; it came on `path`. */
  void (*ack)(rcxeng *e, rcxq *qp, const ornic_frame *f, unsigned path);
  /* A PSN sequence error NAK while qp has a WQE in flight. NULL: ignored. */
  void (*nack)(rcxeng *e, rcxq *qp, const ornic_frame *f);
  /* The RTO from now. NULL: rtt_rto (SRTT + 4 RTTVAR + OTD/B, doubled per timeout). */
  uint64_t (*rto)(rcxeng *e, rcxq *qp);
  /* A real timeout of qp: declare what is lost. NULL: every packet sent and
   * not acknowledged (the path logs start over). The timer is re-armed and
   * the QP made ready after it. */
  void (*timeout)(rcxeng *e, rcxq *qp);
  /* The responder's handling of a data packet for r. NULL: rxq_ack_each (one
   * ACK per packet on its path, drops counted). */
  void (*answer)(rcxeng *e, rxq *r, const ornic_frame *f);
} rcxeng_ops;

struct rcxeng {
  sim *s;
  const sim_config *cfg;
  const rcxeng_ops *ops;
  uint8_t *req;  /* cfg->workload.qps requester QPs of ops->qp_size bytes: rcxeng_qp */
  uint8_t *resp; /* cfg->workload.qps responder QPs of resp_size bytes: rcxeng_resp */
  u32fifo ready; /* requester QPs that may have something to send */
  uint32_t bdp;  /* packets: the window (txq_bdp) */
};

/* profile_engines.create / start / destroy of the family. */
void *rcxeng_new(sim *s, const sim_config *cfg, const rcxeng_ops *ops);
void rcxeng_start(void *engines);
void rcxeng_free(void *engines);

/* `const profile_engines name##_engines` (profile.h) running ops on rcxeng. */
#define RCXENG_PROFILE(name, ops)                                                               \
  static void *name##_new(sim *s, const sim_config *cfg) { return rcxeng_new(s, cfg, &(ops)); } \
  const profile_engines name##_engines = {name##_new, rcxeng_start, NULL, rcxeng_free}

static inline rcxq *rcxeng_qp(rcxeng *e, uint32_t q) {
  return (rcxq *)(void *)(e->req + (size_t)q * e->ops->qp_size);
}

/* Responder QP q: an rxq, first member of the profile's struct (resp_size). */
static inline rxq *rcxeng_resp(rcxeng *e, uint32_t q) {
  size_t size = e->ops->resp_size ? e->ops->resp_size : sizeof(rxq);
  return (rxq *)(void *)(e->resp + (size_t)q * size);
}

/* (Re)starts qp's retransmission timer: ops->rto from now. */
void rcxeng_arm_rto(rcxeng *e, rcxq *qp);

/* Sends packet idx of qp's WQE (new or again) on `path` (or SIM_PATH_SPRAY),
 * in-order marked or not: RTT timing (Karn), timer, frame, path log. NULL
 * after sim_fail. */
pkt *rcxeng_send(rcxeng *e, rcxq *qp, uint32_t idx, bool retx, unsigned path, bool inorder);

/* After qp's acknowledgements moved: the WQE completes (and the next one is
 * posted) when every packet is acknowledged, else the QP may send. */
void rcxeng_acked(rcxeng *e, rcxq *qp);

/* A path-echo ACK (rxq_ack_each): packets [0, *cum) acknowledged, and packet
 * *sidx (the AETH MSN field). false for a late ACK of an earlier WQE. */
bool rcxeng_ack_of(const rcxq *qp, const ornic_frame *f, uint32_t *cum, uint32_t *sidx);

/* The ACK of packet sidx came back on path: the packets sent on it before
 * sidx and not answered are lost (queued for retransmission). */
void rcxeng_path_acked(rcxeng *e, rcxq *qp, unsigned path, uint32_t sidx);

#endif
