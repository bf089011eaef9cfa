/* SPDX-License-Identifier: MIT */
#include "tx_queue.h"

#include <stdlib.h>
#include <string.h>

#include "bitset.h"
#include "ready.h"
#include "research_wire.h"

void txq_init(txq *t, sim *s, const sim_config *cfg, uint32_t q) {
  memset(t, 0, sizeof *t);
  t->q = q;
  wqe_queue_init(&t->sq, cfg, q);
  rtt_init(&t->rtt, sim_times(s)->rtt_ps);
  ltimer_init(&t->rto);
}

static void free_wqe(txq *t) {
  free(t->acked);
  free(t->queued);
  t->acked = t->queued = NULL;
  fifo_clear(&t->retxq);
}

void txq_free(txq *t) {
  free_wqe(t);
  fifo_free(&t->retxq);
}

bool txq_post(txq *t, sim *s, const sim_config *cfg) {
  t->busy = false;
  if (!wqe_post(&t->sq, s, cfg, &t->w)) return false;
  t->next_new = t->cum = 0;
  t->timing = false;
  t->retries = t->rtt.backoff = 0;
  t->acked = bs_new(t->w.n);
  t->queued = bs_new(t->w.n);
  if (!t->acked || !t->queued) {
    sim_fail(s, "out of memory posting WQE %llu of QP %u", (unsigned long long)t->w.id, t->q);
    return false;
  }
  t->busy = true;
  return true;
}

void txq_complete(txq *t, sim *s) {
  wqe_complete(s, &t->w);
  ltimer_stop(&t->rto);
  free_wqe(t);
  t->busy = false;
}

void txq_sent_new(txq *t, sim *s, uint32_t idx) {
  if (t->timing) return;
  t->timing = true;
  t->timed_idx = idx;
  t->timed_ps = sim_now(s);
}

void txq_sent_retx(txq *t, uint32_t idx) {
  if (t->timing && t->timed_idx == idx) t->timing = false;
}

static void sample(txq *t, sim *s) {
  rtt_sample(&t->rtt, sim_now(s) - t->timed_ps);
  t->timing = false;
}

bool txq_ack(txq *t, sim *s, uint32_t idx) {
  if (idx >= t->w.n || txq_acked(t, idx)) return false;
  bs_set(t->acked, idx);
  if (t->timing && t->timed_idx == idx) sample(t, s);
  return true;
}

bool txq_ack_cum(txq *t, sim *s, uint32_t cum) {
  if (cum <= t->cum || cum > t->w.n) return false;
  t->cum = cum;
  if (t->timing && t->timed_idx < cum) sample(t, s);
  t->retries = t->rtt.backoff = 0;
  return true;
}

void txq_queue_retx(txq *t, sim *s, uint32_t idx) {
  if (idx >= t->next_new || txq_acked(t, idx) || bs_get(t->queued, idx)) return;
  bs_set(t->queued, idx);
  if (fifo_push(&t->retxq, idx) < 0) sim_fail(s, "out of memory (retransmission queue)");
}

bool txq_pop_retx(txq *t, uint32_t *idx) {
  while (fifo_pop(&t->retxq, idx)) {
    bs_clr(t->queued, *idx);
    if (!txq_acked(t, *idx)) return true;
  }
  return false;
}

bool txq_timeout(txq *t, sim *s, const sim_config *cfg, uint32_t arg) {
  if (!ltimer_expired(s, &t->rto, NODE_REQ, arg) || !t->busy) return false;
  sim_stats(s)->timeouts++;
  if (++t->retries > cfg->protocol.retry_limit) {
    sim_fail(s, "QP %u: %u retransmission timeouts in a row on WQE %llu (retry limit %u)", t->q,
             t->retries, (unsigned long long)t->w.id, cfg->protocol.retry_limit);
    return false;
  }
  t->rtt.backoff++;
  return true;
}

void txq_lost(void *ctx, uint32_t idx) {
  txq_lost_ctx *c = ctx;
  txq_queue_retx(c->t, c->s, idx);
}

void txq_queue_retx_all(txq *t, sim *s) {
  for (uint32_t i = t->cum; i < t->next_new; i++) txq_queue_retx(t, s, i);
}

bool txq_ack_arrived(txq *t, sim *s, const ornic_frame *f) {
  uint8_t syn = f->ext.aeth.syndrome;
  if (ornic_aeth_type(syn) == ORNIC_AETH_NAK && syn != ORNIC_AETH_NAK_PSN_SEQ) {
    sim_fail(s, "QP %u: the responder sent a fatal NAK (%s) for PSN 0x%06x", t->q,
             ornic_aeth_syndrome_name(syn), f->bth.psn);
    return false;
  }
  return t->busy && ornic_aeth_type(syn) == ORNIC_AETH_ACK;
}

void txq_ready(u32fifo *ready, sim *s, txq *t) {
  ready_add(ready, &t->in_ready, t->q, s, NODE_REQ);
}

typedef struct {
  txq_at_fn at;
  txq_next_fn next;
  void *ctx;
} schedule_ctx;

static pkt *schedule_next(void *self, uint32_t q, bool **in_ready) {
  schedule_ctx *c = self;
  txq *t = c->at(c->ctx, q);
  *in_ready = &t->in_ready;
  return c->next(c->ctx, t);
}

pkt *txq_schedule(u32fifo *ready, sim *s, txq_at_fn at, txq_next_fn next, void *ctx) {
  schedule_ctx c = {at, next, ctx};
  return ready_serve(ready, s, schedule_next, &c);
}

uint32_t txq_bdp(const sim *s) {
  const sim_timing *tm = sim_times(s);
  uint64_t bdp = (tm->rtt_ps + tm->frame_ps - 1) / tm->frame_ps;
  return bdp < 2 ? 2 : bdp > 0x400000 ? 0x400000 : (uint32_t)bdp;
}
