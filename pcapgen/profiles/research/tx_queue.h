/* SPDX-License-Identifier: MIT */
/* The requester side of the research transports (irn, mprdma, ioi, left): one QP's
 * WQE in flight with per-packet state (sent, acknowledged, queued for
 * retransmission), its round-trip estimate (Karn: one timed packet at a time,
 * never a retransmitted one) and its retransmission timer, plus the
 * round-robin list of QPs that may have something to send. The profiles add
 * their own loss recovery and path choice on top. */
#ifndef PCAPGEN_TX_QUEUE_H
#define PCAPGEN_TX_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "fifo.h"
#include "rtt.h"
#include "sim.h"
#include "sim_config.h"
#include "work_queue.h"

typedef struct {
  uint32_t q;
  wqe_queue sq;
  wqe w; /* the WQE in flight */
  bool busy, in_ready;
  uint32_t next_new;       /* packets [0, next_new) were sent at least once */
  uint32_t cum;            /* packets [0, cum) are acknowledged */
  uint8_t *acked, *queued; /* per packet: selectively acknowledged; in retxq */
  u32fifo retxq;
  bool timing;
  uint32_t timed_idx;
  uint64_t timed_ps;
  rtt_est rtt;
  unsigned retries; /* timeouts since the last progress */
  ltimer rto;
} txq;

void txq_init(txq *t, sim *s, const sim_config *cfg, uint32_t q);
void txq_free(txq *t);

/* Posts the QP's next WQE. false when there is none (busy is then false) or
 * memory ran out (after sim_fail). */
bool txq_post(txq *t, sim *s, const sim_config *cfg);
/* The WQE is acknowledged in full: statistics, timer stopped, state freed. */
void txq_complete(txq *t, sim *s);

static inline bool txq_acked(const txq *t, uint32_t idx) {
  return idx < t->cum || (t->acked[idx >> 3] >> (idx & 7) & 1);
}

/* Packet idx leaves for the first time / again (Karn). */
void txq_sent_new(txq *t, sim *s, uint32_t idx);
void txq_sent_retx(txq *t, uint32_t idx);

/* idx acknowledged on its own; true when it was not before. */
bool txq_ack(txq *t, sim *s, uint32_t idx);
/* Packets [0, cum) acknowledged; true when cum moved (the QP made progress:
 * the timeout backoff is reset). */
bool txq_ack_cum(txq *t, sim *s, uint32_t cum);

/* Queues idx for retransmission unless it was never sent, is acknowledged
 * or is queued already. */
void txq_queue_retx(txq *t, sim *s, uint32_t idx);
/* A loss callback (pathseq_acked's): queues packet idx of ctx, a txq_lost_ctx. */
typedef struct {
  txq *t;
  sim *s;
} txq_lost_ctx;
void txq_lost(void *ctx, uint32_t idx);
/* Next queued packet that is still unacknowledged. */
bool txq_pop_retx(txq *t, uint32_t *idx);

/* The requester timer event `arg` of QP t fired: true when it is a real
 * timeout of a WQE in flight (counted; the RTO backs off). false for a stale
 * event, an idle QP, or past --retry-limit in a row (after sim_fail). */
bool txq_timeout(txq *t, sim *s, const sim_config *cfg, uint32_t arg);
/* After a timeout: every packet sent and not acknowledged is lost. */
void txq_queue_retx_all(txq *t, sim *s);

/* An RC Acknowledge for QP t arrived: a NAK of the fatal type fails the run;
 * true for an ACK while a WQE is in flight (sequence-error NAKs, which IRN
 * uses as NACKs, are the caller's). */
bool txq_ack_arrived(txq *t, sim *s, const ornic_frame *f);

/* The bandwidth-delay product in packets: the nominal round trip over the
 * slowest path (sim_timing) over the time of one full data frame, at least 2. */
uint32_t txq_bdp(const sim *s);

/* Round-robin among the QPs with something to send. */
void txq_ready(u32fifo *ready, sim *s, txq *t);
typedef txq *(*txq_at_fn)(void *ctx, uint32_t q);
typedef pkt *(*txq_next_fn)(void *ctx, txq *t);
pkt *txq_schedule(u32fifo *ready, sim *s, txq_at_fn at, txq_next_fn next, void *ctx);

#endif
