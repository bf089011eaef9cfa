/* SPDX-License-Identifier: MIT */
#include "packet_pool.h"

#include <stdlib.h>

void pktpool_init(pktpool *pp, size_t frame_capacity) {
  pp->free = NULL;
  pp->bufsize = frame_capacity;
  pp->in_use = pp->peak = 0;
  pp->limit = 0;
}

pkt *pktpool_get(pktpool *pp) {
  pkt *p = pp->free;
  if (!p && pp->limit && pp->in_use >= pp->limit) return NULL;
  if (p)
    pp->free = p->next;
  else if (!(p = malloc(sizeof *p + pp->bufsize)))
    return NULL;
  p->next = NULL;
  if (++pp->in_use > pp->peak) pp->peak = pp->in_use;
  return p;
}

void pktpool_put(pktpool *pp, pkt *p) {
  p->next = pp->free;
  pp->free = p;
  pp->in_use--;
}

void pktpool_destroy(pktpool *pp) {
  while (pp->free) {
    pkt *p = pp->free;
    pp->free = p->next;
    free(p);
  }
}
