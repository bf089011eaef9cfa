/* SPDX-License-Identifier: MIT */
/* The responder side of the research transports (irn, mprdma, ioi, left): one QP
 * that receives RC WRITE packets (research_wire.h), places each at its address in the
 * WQE's memory as soon as it arrives, checking its bytes against the source
 * there (verify.h), tracks arrivals in a bitmap and keeps the cumulative PSN
 * (ePSN = first PSN not yet received). The profiles differ in what
 * they accept (window) and in how they answer (their own ACK policies). */
#ifndef PCAPGEN_RX_QUEUE_H
#define PCAPGEN_RX_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "ornic/ornic.h"
#include "sim_config.h"
#include "sim.h"
#include "verify.h"

typedef struct {
  uint32_t q;
  uint32_t epsn, msn;
  bool error; /* a fatal NAK was sent: the QP takes nothing more */
  /* the WQE being received (one at a time: the workload is a closed loop) */
  bool open;
  uint32_t start_psn, n, rkey;
  uint64_t start_addr, len;
  uint8_t *got;   /* one bit per packet received */
  wqe_verify ver; /* its integrity check, packet by packet as they are placed */
} rxq;

/* What rxq_accept did with a packet. */
enum {
  RXQ_NEW,    /* placed */
  RXQ_DONE,   /* placed, and it completed the WQE (every byte verified, MSN + 1) */
  RXQ_DUP,    /* already received (before ePSN, or its bit is set) */
  RXQ_BEYOND, /* window or more packets past ePSN: dropped */
  RXQ_NOCTX,  /* no address known yet (ioi before its First): dropped */
  RXQ_BAD     /* invalid: a fatal NAK went out, or the run failed */
};

void rxq_init(rxq *r, const sim_config *cfg, uint32_t q);
void rxq_free(rxq *r);

/* Takes a data packet for this QP. Packets at ePSN + window or later are
 * dropped; `prefixed`: Middle and Last carry their address (research_wire.h). */
int rxq_accept(rxq *r, sim *s, const sim_config *cfg, const ornic_frame *f, uint32_t window,
               bool prefixed);

/* Accepts a packet and answers it as mprdma and ioi do: an ACK of its own
 * (cumulative PSN, and the packet's PSN in the MSN field) on `path`, the one
 * it came by, for every packet placed or duplicate; a drop is counted. */
void rxq_ack_each(rxq *r, sim *s, const sim_config *cfg, const ornic_frame *f, uint32_t window,
                  bool prefixed, unsigned path);

#endif
