/* SPDX-License-Identifier: MIT */
#include "stats.h"

#include <stdlib.h>

#include "path_events.h"

/* Bucket of v: exact below 128, then 64 sub-buckets per power of two. */
static unsigned bucket(uint64_t v) {
  if (v < 128) return (unsigned)v;
  unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 7 */
  unsigned sub = (unsigned)(v >> (e - HIST_SUB_BITS)) & 63u;
  return 128 + (e - 7) * 64 + sub;
}

/* Largest value that falls in bucket b. */
static uint64_t bucket_high(unsigned b) {
  if (b < 128) return b;
  unsigned e = (b - 128) / 64 + 7, sub = (b - 128) % 64;
  uint64_t lo = (1ull << e) | ((uint64_t)sub << (e - HIST_SUB_BITS));
  return lo + (1ull << (e - HIST_SUB_BITS)) - 1;
}

void hist_add(hist *h, uint64_t v) {
  h->count[bucket(v)]++;
  h->n++;
  h->sum += v;
  if (v > h->max) h->max = v;
}

uint64_t hist_quantile(const hist *h, double q) {
  if (!h->n) return 0;
  uint64_t need = (uint64_t)(q * (double)h->n);
  if ((double)need < q * (double)h->n) need++;
  if (need == 0) need = 1;
  uint64_t seen = 0;
  for (unsigned b = 0; b < HIST_BUCKETS; b++) {
    seen += h->count[b];
    if (seen >= need) return bucket_high(b) < h->max ? bucket_high(b) : h->max;
  }
  return h->max;
}

void stats_wqe_posted(stats *st, uint64_t post_ps) {
  if (!st->any_post || post_ps < st->first_post_ps) st->first_post_ps = post_ps;
  st->any_post = true;
}

/* The phase a completion at t falls in: the number of bounds at or before t. */
static unsigned phase_of(const phases *ph, uint64_t t) {
  unsigned k = 0;
  while (k < ph->nbounds && ph->bound_ps[k] <= t) k++;
  return k;
}

void stats_wqe_done(stats *st, uint64_t post_ps, uint64_t done_ps, uint64_t bytes) {
  st->wqes_done++;
  st->bytes_done += bytes;
  st->last_done_ps = done_ps;
  hist_add(&st->wqe_ps, done_ps - post_ps);
  if (st->phase.nbounds) {
    unsigned k = phase_of(&st->phase, done_ps);
    st->phase.wqes[k]++;
    st->phase.bytes[k] += bytes;
  }
}

int stats_paths_new(stats *st, const sim_fabric *f) {
  if (!(st->paths = calloc(f->paths, sizeof *st->paths))) return -1;
  st->phase.nbounds = path_events_bounds(f, st->phase.bound_ps);
  return 0;
}

void stats_paths_free(stats *st) {
  free(st->paths);
  st->paths = NULL;
}
