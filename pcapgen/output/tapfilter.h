/* SPDX-License-Identifier: MIT */
/* Capture artefacts: which frames the tap writes. A real capture starts
 * whenever someone runs tcpdump (mid-stream, mid-message, ACKs for data not
 * in the file) and misses frames the NIC did send and receive (a full ring
 * buffer, a mirror port). --capture-start and --capture-drop* model that at
 * the tap alone: the simulation, and so the traffic, is the same with and
 * without them; the file is the full capture minus the frames they remove. */
#ifndef PCAPGEN_TAPFILTER_H
#define PCAPGEN_TAPFILTER_H

#include <stdint.h>

#include "rng.h"
#include "sim_config.h"

/* What happens to the tap's next frame. */
enum { TAP_WRITE = 0, TAP_BEFORE_START = 1, TAP_MISSED = 2 };

typedef struct {
  uint64_t start_ps;
  double p;               /* --capture-drop */
  rng r;                  /* its own stream: no other random choice moves */
  const uint64_t *frames; /* --capture-drop-frames, sorted */
  size_t nframes, next;
  uint64_t seen; /* frames of the full capture so far = number of this one */
} tapfilter;

/* The tap of c->capture; its misses draw from a stream of c->seed. */
void tapfilter_init(tapfilter *t, const sim_config *c);

/* tapfilter_next for every case: with --capture-drop, a --capture-drop-frames
 * entry not yet passed, or before --capture-start. */
int tapfilter_draw(tapfilter *t, uint64_t now_ps);

/* Numbers the next frame of the full capture (t->seen, from 1) and decides
 * its fate. now_ps is its capture time. Inline for the usual case, no
 * artefact left to make: every frame of a run comes here. */
static inline int tapfilter_next(tapfilter *t, uint64_t now_ps) {
  if (t->p > 0 || t->next < t->nframes || now_ps < t->start_ps) return tapfilter_draw(t, now_ps);
  t->seen++;
  return TAP_WRITE;
}

#endif
