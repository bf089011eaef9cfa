/* SPDX-License-Identifier: MIT */
/* The two loss detectors on one sprayed stream (detector.h): ORNIC's OTD
 * rule with NAK pacing and the shift register; detection delay and false
 * alarms. */
#include "detector.h"

#include <stdlib.h>

double det_delay_pkts(const spray_trace *t, const det_result *r) {
  return (double)r->index + 1.0 - (double)t->lost_index;
}

double det_delay_us(const spray_trace *t, const det_result *r) { return r->t_us - t->lost_t_us; }

/* Counts a declaration: the detection of the lost packet, or a false alarm
 * (each PSN that was only late counts once). */
static void declare(const spray_trace *t, uint32_t psn, uint32_t at, uint8_t *flags,
                    det_result *r) {
  if (psn != t->lost) {
    if (!(flags[psn] & 2)) r->false_alarms++;
    flags[psn] |= 2;
    return;
  }
  if (r->detected) return;
  r->detected = true;
  r->index = at;
  r->t_us = t->t_us[at];
}

typedef struct {
  bool pending;
  uint32_t limit;
  double time;
} nak_memory;

int det_otd(const spray_trace *t, uint32_t npkts, uint32_t otd, double rtt_us, double pkt_us,
            det_result *r) {
  *r = (det_result){0};
  uint8_t *flags = calloc(npkts, 1); /* 1 received, 2 declared (not lost) */
  if (!flags) return -1;
  double t_resp = rtt_us + otd * pkt_us;
  nak_memory nak = {false, 0, 0.0};
  uint32_t epsn = 0;
  for (uint32_t i = 0; i < t->n; i++) {
    uint32_t p = t->pkt[i];
    double now = t->t_us[i];
    if (r->detected && now >= r->t_us + rtt_us) flags[t->lost] |= 1; /* its retransmission */
    flags[p] |= 1;
    while (epsn < npkts && (flags[epsn] & 1)) epsn++;
    if (p < epsn || p - epsn <= otd) continue;
    if (nak.pending && epsn < nak.limit && now - nak.time < t_resp) continue;
    uint32_t limit = p - otd;
    for (uint32_t q = epsn; q < limit; q++)
      if (!(flags[q] & 1)) declare(t, q, i, flags, r);
    nak = (nak_memory){true, limit, now};
  }
  free(flags);
  return 0;
}

int det_shift(const spray_trace *t, uint32_t npkts, unsigned window, det_result *r) {
  *r = (det_result){0};
  uint64_t *ring = calloc((window + 63) / 64, sizeof *ring);
  uint8_t *flags = calloc(npkts, 1); /* 2: declared (not lost) */
  if (!ring || !flags) {
    free(ring);
    free(flags);
    return -1;
  }
  uint32_t check = 0, dist = window / 2 - 1; /* n arrives: n - (window/2 - 1) */
  for (uint32_t i = 0; i < t->n; i++) {
    uint32_t p = t->pkt[i];
    /* Check (and free) every PSN this arrival pushes out of the late half. */
    for (; check + dist <= p; check++) {
      uint32_t s = check % window;
      if (!(ring[s / 64] >> (s % 64) & 1)) declare(t, check, i, flags, r);
      ring[s / 64] &= ~(1ull << (s % 64));
    }
    if (p >= check) ring[(p % window) / 64] |= 1ull << (p % window % 64);
  }
  free(ring);
  free(flags);
  return 0;
}
