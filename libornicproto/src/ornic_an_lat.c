/* SPDX-License-Identifier: MIT */
/* Latency distributions of the direction report (ornic_an_lat.h). */
#include <stdlib.h>

#include "ornic_an_lat.h"

/* Values below 16 ns have a bucket each; from 2^e (e >= 4) on, 16 buckets
 * of 2^(e-4) ns. 2^40 ns (18 minutes) and above share the last bucket. A
 * histogram's range starts and ends at whole powers of two (LAT_SUB). */
#define LAT_SUB 16u
#define LAT_TOP_EXP 40u
#define LAT_BUCKETS (LAT_SUB + (LAT_TOP_EXP - 4u) * LAT_SUB)

static unsigned bucket_of(uint64_t ns) {
  if (ns < LAT_SUB) return (unsigned)ns;
  unsigned e = an_log2_64(ns);
  if (e >= LAT_TOP_EXP) return LAT_BUCKETS - 1;
  return LAT_SUB + (e - 4u) * LAT_SUB + (unsigned)((ns >> (e - 4u)) & (LAT_SUB - 1));
}

/* The bucket's lowest value and its width. */
static void bounds(unsigned b, uint64_t *lo, uint64_t *width) {
  if (b < LAT_SUB) {
    *lo = b;
    *width = 1;
    return;
  }
  unsigned e = 4u + (b - LAT_SUB) / LAT_SUB, sub = (b - LAT_SUB) % LAT_SUB;
  *width = (uint64_t)1 << (e - 4u);
  *lo = ((uint64_t)1 << e) + sub * *width;
}

/* Makes the histogram cover buckets [lo, hi) as well as what it covers;
 * false when the budget or the allocator refuses. */
static bool cover(ornic_analysis *a, an_lat *l, unsigned lo, unsigned hi) {
  if (l->counts) {
    if (lo >= l->lo && hi <= (unsigned)l->lo + l->len) return true;
    if (l->lo < lo) lo = l->lo;
    if ((unsigned)l->lo + l->len > hi) hi = (unsigned)l->lo + l->len;
  }
  size_t len = hi - lo, old = l->counts ? l->len : 0;
  if (!an_mem_take(a, (len - old) * sizeof *l->counts, false)) return false;
  uint32_t *c = calloc(len, sizeof *c);
  if (!c) {
    an_mem_give(a, (len - old) * sizeof *l->counts);
    return false;
  }
  if (l->counts) memcpy(c + (l->lo - lo), l->counts, old * sizeof *c);
  free(l->counts);
  l->counts = c;
  l->lo = (uint16_t)lo;
  l->len = (uint16_t)len;
  return true;
}

void an_lat_add(ornic_analysis *a, an_lat *l, uint64_t ns) {
  if (!l->n || ns < l->min) l->min = ns;
  if (ns > l->max) l->max = ns;
  l->n++;
  l->sum += ns;
  if (l->refused) return;
  unsigned b = bucket_of(ns), lo = b - b % LAT_SUB;
  if (!cover(a, l, lo, lo + LAT_SUB)) {
    l->refused = true;
    return;
  }
  if (l->counts[b - l->lo] < UINT32_MAX) l->counts[b - l->lo]++;
}

/* Whether the histogram holds every sample (percentiles can be given). */
static bool complete(const an_lat *l) { return !l->refused && (l->counts || !l->n); }

void an_lat_free(ornic_analysis *a, an_lat *l) {
  if (!l->counts) return;
  an_mem_give(a, (size_t)l->len * sizeof *l->counts);
  free(l->counts);
  l->counts = NULL;
  l->len = 0;
}

void an_lat_merge(ornic_analysis *a, an_lat *dst, an_lat *src) {
  if (!src->n) return;
  bool both = complete(dst) && complete(src);
  if (!dst->n || src->min < dst->min) dst->min = src->min;
  if (src->max > dst->max) dst->max = src->max;
  dst->n += src->n;
  dst->sum += src->sum;
  /* a histogram that lacks samples would give wrong percentiles */
  if (!both || !cover(a, dst, src->lo, (unsigned)src->lo + src->len)) {
    dst->refused = true;
  } else {
    for (unsigned i = 0; i < src->len; i++) {
      uint32_t *c = &dst->counts[src->lo + i - dst->lo];
      uint64_t s = (uint64_t)*c + src->counts[i];
      *c = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
    }
  }
  an_lat_free(a, src);
}

/* The values of ranks r[0] <= r[1] <= ... (0-based, of n) in one pass:
 * interpolated in their bucket, clamped to [min, max]. */
static void ranks(const an_lat *l, const uint64_t *r, uint64_t *out, unsigned k) {
  uint64_t seen = 0;
  unsigned j = 0;
  for (unsigned i = 0; i < l->len && j < k; i++) {
    uint64_t c = l->counts[i];
    while (j < k && r[j] < seen + c) {
      uint64_t lo, width;
      bounds(l->lo + i, &lo, &width);
      uint64_t v = lo + (uint64_t)((double)width * ((double)(r[j] - seen) + 0.5) / (double)c);
      out[j++] = v < l->min ? l->min : v > l->max ? l->max : v;
    }
    seen += c;
  }
  for (; j < k; j++) out[j] = l->max;
}

void an_lat_out(const an_lat *l, ornic_an_latency *o) {
  memset(o, 0, sizeof *o);
  if (!l->n) return;
  o->count = l->n;
  o->min_ns = l->min;
  o->max_ns = l->max;
  o->avg_ns = l->sum / l->n;
  if (!complete(l)) return;
  /* nearest rank: the sample below which a share q of them lie */
  static const double q[4] = {0.50, 0.90, 0.99, 0.999};
  uint64_t r[4], v[4];
  for (unsigned i = 0; i < 4; i++) {
    r[i] = (uint64_t)(q[i] * (double)l->n);
    if (r[i] >= l->n) r[i] = l->n - 1;
  }
  ranks(l, r, v, 4);
  o->percentiles = true;
  o->p50_ns = v[0];
  o->p90_ns = v[1];
  o->p99_ns = v[2];
  o->p999_ns = v[3];
}
