/* SPDX-License-Identifier: MIT */
#include "tapfilter.h"

/* RNG stream of the tap's misses; net.c uses 1-3. */
#define STREAM_CAPTURE_DROP 7

void tapfilter_init(tapfilter *t, const sim_config *c) {
  t->start_ps = (uint64_t)(c->capture.start_us * 1e6 + 0.5);
  t->p = c->capture.drop;
  rng_seed(&t->r, c->seed, STREAM_CAPTURE_DROP);
  t->frames = c->capture.drop_frames;
  t->nframes = c->capture.ndrop_frames;
  t->next = 0;
  t->seen = 0;
}

int tapfilter_draw(tapfilter *t, uint64_t now_ps) {
  uint64_t n = ++t->seen;
  /* One draw per frame of the full capture, whatever --capture-start says, so
   * the frames missed are a function of the seed and the frame number. */
  bool missed = t->p > 0 && rng_double(&t->r) < t->p;
  while (t->next < t->nframes && t->frames[t->next] < n) t->next++;
  if (t->next < t->nframes && t->frames[t->next] == n) missed = true;
  if (now_ps < t->start_ps) return TAP_BEFORE_START;
  return missed ? TAP_MISSED : TAP_WRITE;
}
