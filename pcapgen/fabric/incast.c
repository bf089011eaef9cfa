/* SPDX-License-Identifier: MIT */
#include "incast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "switch.h"
#include "workload.h"

/* As sim.c's: events after every WQE completed before the run is over anyway. */
#define DRAIN_EVENT_LIMIT 10000000ull
/* No sender accepted a packet or completed a WQE for this many events in a
 * row while work is open: the run cannot complete (sim.c's watchdog per sim,
 * for the world). */
#define STALL_EVENTS (1ull << 24)
#define TIMELINE_INTERVAL_PS 10000000ull /* 10 us */
#define TIMELINE_CAP 4096

typedef struct {
  uint32_t n;
  sim_config *cfg; /* [n]: each sender's copy (the sims and engines read it) */
  stats *st;       /* [n] */
  sim **s;         /* [n] */
  void **eng;      /* [n] */
  fswitch sw;
  incast_result *r;
} world;

uint64_t incast_seed(uint64_t seed, uint32_t k) {
  if (!k) return seed;
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * k;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Sender k's configuration: its index, seed and QP numbers (both sides: the
 * receiver's QPs of sender k follow those of sender k - 1), the tap where
 * the run asked for it. */
static void sender_config(sim_config *c, const sim_config *base, uint32_t k) {
  *c = *base;
  c->incast.index = k;
  c->seed = incast_seed(base->seed, k);
  for (int node = 0; node < NODE_COUNT; node++)
    c->workload.qpn_base[node] = base->workload.qpn_base[node] + k * base->workload.qps;
  if (base->incast.tap_sender)
    c->capture.tap = k == 0 ? TAP_REQUESTER : TAP_NONE;
  else
    c->capture.tap = TAP_RESPONDER;
}

static void world_free(world *w) {
  for (uint32_t k = 0; k < w->n; k++) {
    if (w->eng && w->eng[k]) w->cfg[k].profile->engines->destroy(w->eng[k]);
    if (w->s && w->s[k]) sim_free(w->s[k]);
  }
  fswitch_free(&w->sw);
  free(w->eng);
  free(w->s);
  free(w->cfg);
}

static int world_new(world *w, const sim_config *base, stats *st, writer *wr, char *msg,
                     size_t msglen) {
  uint32_t n = base->incast.senders;
  w->n = n;
  w->cfg = calloc(n, sizeof *w->cfg);
  w->s = calloc(n, sizeof *w->s);
  w->eng = calloc(n, sizeof *w->eng);
  w->st = st;
  if (!w->cfg || !w->s || !w->eng || fswitch_init(&w->sw, base, w->s, n) < 0) {
    snprintf(msg, msglen, "out of memory setting up %u senders", n);
    return -1;
  }
  for (uint32_t k = 0; k < n; k++) {
    sender_config(&w->cfg[k], base, k);
    st[k].wqes_total = wl_total_wqes(&w->cfg[k]);
    char err[400];
    if (!(w->s[k] = sim_new(&w->cfg[k], &st[k], wr, err, sizeof err))) {
      snprintf(msg, msglen, "sender %u: %s", k + 1, err);
      return -1;
    }
    if (!(w->eng[k] = base->profile->engines->create(w->s[k], &w->cfg[k]))) {
      snprintf(msg, msglen, "out of memory setting up the %s engines of sender %u",
               base->profile->name, k + 1);
      return -1;
    }
  }
  fswitch_attach(&w->sw);
  return 0;
}

/* ---- the timeline --------------------------------------------------------- */

static int timeline_init(incast_timeline *tl, uint32_t senders) {
  tl->interval_ps = TIMELINE_INTERVAL_PS;
  tl->cap = TIMELINE_CAP;
  tl->senders = senders;
  tl->queue = calloc(tl->cap, sizeof *tl->queue);
  tl->accepted = calloc(tl->cap * senders, sizeof *tl->accepted);
  tl->rate = calloc(tl->cap * senders, sizeof *tl->rate);
  return tl->queue && tl->accepted && tl->rate ? 0 : -1;
}

/* Full: keep every other sample, at twice the interval. */
static void timeline_halve(incast_timeline *tl) {
  uint32_t m = tl->senders;
  size_t k = 0;
  for (size_t i = 0; i < tl->n; i += 2, k++) {
    tl->queue[k] = tl->queue[i];
    memmove(tl->accepted + k * m, tl->accepted + i * m, m * sizeof *tl->accepted);
    memmove(tl->rate + k * m, tl->rate + i * m, m * sizeof *tl->rate);
  }
  tl->n = k;
  tl->interval_ps *= 2;
}

/* Samples every interval up to (not including) t. */
static void timeline_until(world *w, uint64_t t) {
  incast_timeline *tl = &w->r->tl;
  while (tl->n * tl->interval_ps < t) {
    if (tl->n == tl->cap) {
      timeline_halve(tl);
      continue;
    }
    uint64_t at = tl->n * tl->interval_ps;
    tl->queue[tl->n] = fswitch_queue_bytes(&w->sw, at);
    for (uint32_t k = 0; k < w->n; k++) {
      tl->accepted[tl->n * w->n + k] = w->st[k].accepted;
      tl->rate[tl->n * w->n + k] = sim_rp_rate_gbps(w->s[k]);
    }
    tl->n++;
  }
}

/* ---- the world loop ----------------------------------------------------------- */

/* The sim (or the switch: n) with the earliest event; false when none has one. */
static bool earliest(world *w, uint32_t *who, uint64_t *t) {
  uint64_t best = UINT64_MAX, x;
  *who = w->n;
  bool any = fswitch_next_time(&w->sw, &x);
  if (any) {
    best = x;
    *who = w->n;
  }
  for (uint32_t k = 0; k < w->n; k++)
    if (sim_next_time(w->s[k], &x) && (!any || x < best)) {
      best = x;
      *who = k;
      any = true;
    }
  *t = best;
  return any;
}

static bool all_done(const world *w) {
  for (uint32_t k = 0; k < w->n; k++)
    if (w->st[k].wqes_done < w->st[k].wqes_total) return false;
  return true;
}

static uint64_t progress_sum(const world *w) {
  uint64_t p = 0;
  for (uint32_t k = 0; k < w->n; k++) p += w->st[k].accepted + w->st[k].wqes_done;
  return p;
}

/* -1 failed (a sim's message in msg), 1 stopped, 0 done. */
static int world_loop(world *w, volatile sig_atomic_t *stop, char *msg, size_t msglen) {
  uint64_t events = 0, drained = 0, mark_events = 0, mark = UINT64_MAX;
  uint32_t who;
  uint64_t t;
  while (earliest(w, &who, &t)) {
    timeline_until(w, t);
    if (who == w->n)
      fswitch_step(&w->sw, t);
    else if (sim_step(w->s[who]) < 0)
      break;
    if (all_done(w) && ++drained > DRAIN_EVENT_LIMIT) break;
    if (!(++events & 4095) && *stop) return 1;
    uint64_t p = progress_sum(w);
    if (p != mark || all_done(w)) {
      mark = p;
      mark_events = events;
    } else if (events - mark_events > STALL_EVENTS) {
      snprintf(msg, msglen,
               "no progress: %llu events without a data packet accepted by any sender's "
               "receiver",
               (unsigned long long)STALL_EVENTS);
      w->st[0].stalled = true;
      return -1;
    }
  }
  for (uint32_t k = 0; k < w->n; k++)
    if (sim_failed(w->s[k])) {
      snprintf(msg, msglen, "sender %u: %s", k + 1, sim_error(w->s[k]));
      return -1;
    }
  if (!all_done(w)) {
    snprintf(msg, msglen, "internal error: the incast run stalled with WQEs incomplete");
    return -1;
  }
  return 0;
}

/* ---- results -------------------------------------------------------------- */

static void hist_merge(hist *to, const hist *from) {
  for (size_t i = 0; i < HIST_BUCKETS; i++) to->count[i] += from->count[i];
  to->n += from->n;
  to->sum += from->sum;
  if (from->max > to->max) to->max = from->max;
}

/* The senders' counters into the run's. */
static void sum_stats(stats *t, const stats *s, uint32_t n) {
  t->wqes_total = 0;
  for (uint32_t k = 0; k < n; k++) {
    const stats *a = &s[k];
#define ADD(f) t->f += a->f
    ADD(pkts_wire), ADD(bytes_wire), ADD(payload_wire), ADD(data_pkts), ADD(read_reqs);
    ADD(acks), ADD(naks), ADD(fatal), ADD(retx), ADD(pkts_captured), ADD(bytes_captured);
    ADD(timeouts), ADD(drops_random), ADD(drops_rule), ADD(dup_data), ADD(pool_drops);
    ADD(drops_down), ADD(rx_drops), ADD(naks_ignored), ADD(accepted), ADD(wqes_total);
    ADD(wqes_done), ADD(wqes_verified), ADD(bytes_done), ADD(drops_switch), ADD(ce_marked);
    ADD(cnps_sent), ADD(cnps_received), ADD(pauses_received), ADD(pool_capacity);
    ADD(pkts_in_flight_peak), ADD(unused_drop_rules), ADD(pkts_full), ADD(pool_peak);
#undef ADD
    if (a->any_post && (!t->any_post || a->first_post_ps < t->first_post_ps))
      t->first_post_ps = a->first_post_ps;
    t->any_post |= a->any_post;
    if (a->last_done_ps > t->last_done_ps) t->last_done_ps = a->last_done_ps;
    if (a->end_ps > t->end_ps) t->end_ps = a->end_ps;
    if (a->max_blocks_qp > t->max_blocks_qp) t->max_blocks_qp = a->max_blocks_qp;
    t->stalled |= a->stalled;
    hist_merge(&t->wqe_ps, &a->wqe_ps);
  }
}

static double gbps(uint64_t bytes, uint64_t ps) { return ps ? bytes * 8.0 / ps * 1000.0 : 0; }

/* The sample at or after t (the last one when t is past the end). */
static size_t sample_at(const incast_timeline *tl, uint64_t t) {
  size_t i = (size_t)((t + tl->interval_ps - 1) / tl->interval_ps);
  return i < tl->n ? i : tl->n ? tl->n - 1 : 0;
}

/* The active span (every sender posted and none finished yet), its last
 * half's mean queue, each sender's goodput there and Jain's index of them
 * (Jain, Chiu and Hawe, DEC-TR-301, 1984: (sum x)^2 / (n sum x^2)). Goodput
 * there: packets accepted x PMTU (exact when WQE sizes are PMTU multiples). */
static void finish_result(world *w, uint32_t pmtu) {
  incast_result *r = w->r;
  incast_timeline *tl = &r->tl;
  uint64_t a = 0, b = UINT64_MAX;
  for (uint32_t k = 0; k < w->n; k++) {
    const stats *s = &w->st[k];
    if (s->first_post_ps > a) a = s->first_post_ps;
    if (s->last_done_ps < b) b = s->last_done_ps;
    uint64_t span = s->last_done_ps > s->first_post_ps ? s->last_done_ps - s->first_post_ps : 0;
    r->goodput_gbps[k] = gbps(s->bytes_done, span);
  }
  if (b <= a) b = a;
  r->active_start_ps = a;
  r->active_end_ps = b;
  uint64_t mid = a + (b - a) / 2;
  size_t i0 = sample_at(tl, mid), i1 = sample_at(tl, b);
  if (i1 > 0 && i1 * tl->interval_ps > b) i1--; /* the last sample inside the span */
  if (i1 < i0) i1 = i0;
  double qsum = 0, sx = 0, sxx = 0;
  for (size_t i = i0; i <= i1 && i < tl->n; i++) qsum += (double)tl->queue[i];
  r->mean_queue_last_half = tl->n ? qsum / (double)(i1 - i0 + 1) : 0;
  uint64_t dt = (i1 - i0) * tl->interval_ps;
  for (uint32_t k = 0; k < w->n && tl->n; k++) {
    uint64_t pk = tl->accepted[i1 * w->n + k] - tl->accepted[i0 * w->n + k];
    double x = gbps(pk * pmtu, dt);
    r->goodput_last_half_gbps[k] = x;
    sx += x;
    sxx += x * x;
  }
  r->jain_last_half = sxx > 0 ? sx * sx / (w->n * sxx) : 0;
  r->peak_queue = w->sw.peak_bytes;
  r->marks = w->sw.marks;
  r->drops = w->sw.drops;
  r->xoff_sent = w->sw.xoff_sent;
  r->xon_sent = w->sw.xon_sent;
}

void incast_result_free(incast_result *r) {
  if (!r) return;
  free(r->st);
  free(r->goodput_gbps);
  free(r->goodput_last_half_gbps);
  free(r->tl.queue);
  free(r->tl.accepted);
  free(r->tl.rate);
  free(r);
}

static incast_result *result_new(uint32_t n) {
  incast_result *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->senders = n;
  r->st = calloc(n, sizeof *r->st);
  r->goodput_gbps = calloc(n, sizeof *r->goodput_gbps);
  r->goodput_last_half_gbps = calloc(n, sizeof *r->goodput_last_half_gbps);
  if (!r->st || !r->goodput_gbps || !r->goodput_last_half_gbps || timeline_init(&r->tl, n) < 0) {
    incast_result_free(r);
    return NULL;
  }
  return r;
}

int incast_run(const sim_config *cfg, stats *total, writer *wr, volatile sig_atomic_t *stop,
               char *msg, size_t msglen) {
  world w;
  memset(&w, 0, sizeof w);
  incast_result *r = result_new(cfg->incast.senders);
  if (!r) {
    snprintf(msg, msglen, "out of memory setting up %u senders", cfg->incast.senders);
    return -1;
  }
  total->incast = r;
  w.r = r;
  int rc = world_new(&w, cfg, r->st, wr, msg, msglen);
  if (rc == 0) {
    for (uint32_t k = 0; k < w.n; k++) cfg->profile->engines->start(w.eng[k]);
    rc = world_loop(&w, stop, msg, msglen);
    for (uint32_t k = 0; k < w.n; k++) {
      sim_finish(w.s[k]);
      if (cfg->profile->engines->stats) cfg->profile->engines->stats(w.eng[k], &r->st[k]);
    }
    uint64_t end = 0;
    for (uint32_t k = 0; k < w.n; k++) end = w.st[k].end_ps > end ? w.st[k].end_ps : end;
    timeline_until(&w, end + 1);
    finish_result(&w, cfg->workload.pmtu);
    sum_stats(total, r->st, w.n);
    total->interrupted = rc == 1;
  }
  world_free(&w);
  return rc;
}
