/* SPDX-License-Identifier: MIT */
/* A packet stream sprayed over paths of different delays, one packet lost
 * (spray.h): the arrivals the detectors run on. */
#include "spray.h"

#include <stdlib.h>

#include "prng.h"

enum { PURPOSE_SPRAY = 5 };
#define WIRE_OVERHEAD \
  82u /* 14 Eth + 20 IPv4 + 8 UDP + 12 BTH + 4 iCRC + 4 FCS + 8 preamble + 12 IFG */

typedef struct {
  double t;
  uint32_t pkt;
} arrival;

static int by_time(const void *a, const void *b) {
  const arrival *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->pkt < y->pkt ? -1 : x->pkt > y->pkt;
}

double spray_pkt_time_us(const spray_params *p) {
  return (double)(p->payload_bytes + WIRE_OVERHEAD) * 8.0 / (p->link_gbps * 1e3);
}

int spray_make(const spray_params *p, uint64_t seed, spray_trace *t) {
  prng g;
  prng_seed(&g, seed, PURPOSE_SPRAY, (uint64_t)(p->diff_us * 1000.0));
  double tp = spray_pkt_time_us(p);
  arrival *a = malloc((size_t)p->npkts * sizeof *a);
  t->pkt = malloc((size_t)p->npkts * sizeof *t->pkt);
  t->t_us = malloc((size_t)p->npkts * sizeof *t->t_us);
  if (!a || !t->pkt || !t->t_us) {
    free(a);
    spray_free(t);
    return -1;
  }
  t->lost = p->npkts / 4 + prng_below(&g, p->npkts / 4 ? p->npkts / 4 : 1);
  for (uint32_t i = 0; i < p->npkts; i++) {
    unsigned path = p->paths > 1 ? prng_below(&g, p->paths) : 0;
    double delay = p->base_delay_us + (p->paths > 1 ? path * p->diff_us / (p->paths - 1) : 0.0);
    a[i] = (arrival){i * tp + delay, i};
  }
  t->lost_t_us = a[t->lost].t;
  qsort(a, p->npkts, sizeof *a, by_time);
  t->n = 0;
  t->lost_index = 0;
  for (uint32_t i = 0; i < p->npkts; i++) {
    if (a[i].pkt == t->lost) {
      t->lost_index = t->n;
      continue;
    }
    t->pkt[t->n] = a[i].pkt;
    t->t_us[t->n++] = a[i].t;
  }
  free(a);
  return 0;
}

void spray_free(spray_trace *t) {
  free(t->pkt);
  free(t->t_us);
  t->pkt = NULL;
  t->t_us = NULL;
}
