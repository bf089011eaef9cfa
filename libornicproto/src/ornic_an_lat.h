/* SPDX-License-Identifier: MIT */
/* A latency distribution of the direction report (ornic_an_latency,
 * docs/PROTOCOL.md 8.9): count, sum, min and max exact, and a log-linear
 * histogram for the percentiles, 16 buckets per power of two (each within
 * 1/16 of its values). The histogram holds only the buckets between the
 * least and the most sample seen, whole powers of two, and grows when a
 * sample falls outside: a direction's round trips span a few powers of two,
 * so it takes a few hundred bytes, not the 2.4 KB of every bucket from 1 ns
 * to 18 minutes (docs/PERFORMANCE.md, memory per conversation). Its memory
 * comes from the engine's budget; what the budget refuses leaves the
 * histogram incomplete, and an incomplete one gives no percentiles. */
#ifndef ORNIC_AN_LAT_H
#define ORNIC_AN_LAT_H

#include "ornic_an_internal.h"

typedef struct {
  uint64_t n, sum, min, max;
  uint32_t *counts; /* buckets lo .. lo + len - 1; NULL until the first sample */
  uint16_t lo, len;
  bool refused; /* the budget refused room for a sample: no percentiles */
} an_lat;

void an_lat_add(ornic_analysis *a, an_lat *l, uint64_t ns);
/* src into dst (src is left empty); the memory src held is given back. */
void an_lat_merge(ornic_analysis *a, an_lat *dst, an_lat *src);
void an_lat_free(ornic_analysis *a, an_lat *l);
void an_lat_out(const an_lat *l, ornic_an_latency *o);

#endif
