/* SPDX-License-Identifier: MIT */
/* Round-robin among the senders of one NIC that have something to send
 * (QPs, or a host's requesters and responders): the ready list every
 * engine's next_tx serves. A sender is queued once, when it gets something
 * to send (its flag says it is queued); when the link is free the first
 * sender is asked for a frame: one that gives a frame goes back to the
 * tail, one that has none leaves the list until it is added again. Static
 * inline so that each engine's call of its own `next` is a direct one. */
#ifndef PCAPGEN_READY_H
#define PCAPGEN_READY_H

#include <stdbool.h>
#include <stdint.h>

#include "fifo.h"
#include "sim.h"

/* Queues sender id unless *in_ready says it is, and tells `node`'s NIC. */
static inline void ready_add(u32fifo *ready, bool *in_ready, uint32_t id, sim *s, int node) {
  if (!*in_ready) {
    *in_ready = true;
    if (fifo_push(ready, id) < 0) sim_fail(s, "out of memory (ready list)");
  }
  sim_kick(s, node);
}

/* Sender id's next frame, or NULL; *in_ready is set to its flag. */
typedef pkt *(*ready_next_fn)(void *ctx, uint32_t id, bool **in_ready);

/* The next frame of the first sender in turn that has one, or NULL. */
static inline pkt *ready_serve(u32fifo *ready, sim *s, ready_next_fn next, void *ctx) {
  uint32_t id;
  while (!sim_failed(s) && fifo_pop(ready, &id)) {
    bool *in_ready;
    pkt *p = next(ctx, id, &in_ready);
    if (p) {
      /* Back to the tail: senders share the link round-robin. */
      if (fifo_push(ready, id) < 0) sim_fail(s, "out of memory (ready list)");
      return p;
    }
    *in_ready = false;
  }
  return NULL;
}

#endif
