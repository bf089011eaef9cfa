/* SPDX-License-Identifier: MIT */
#include "tap_shapes.h"

#include <stdlib.h>
#include <string.h>

#include "ornic/ornic.h"

/* A held frame: a copy (the frame's buffer goes back to the pool when it is
 * delivered) and its write time. */
struct tap_late_frame {
  tap_late_frame *next;
  uint64_t at_ps;
  pkt *p;
};

/* RNG stream of --capture-tx-late; net.c uses 1-5, tapfilter.c 7. */
#define STREAM_CAPTURE_TX_LATE 8

void tap_late_init(tap_late *q, double late_us, uint64_t seed) {
  memset(q, 0, sizeof *q);
  q->late_us = late_us;
  rng_seed(&q->r, seed, STREAM_CAPTURE_TX_LATE);
}

int tap_late_hold(tap_late *q, const pkt *p, uint64_t now_ps) {
  uint64_t at = now_ps + (uint64_t)(rng_double(&q->r) * q->late_us * 1e6);
  if (at < q->last_ps) at = q->last_ps;
  q->last_ps = at;
  tap_late_frame *l = malloc(sizeof *l);
  pkt *c = malloc(sizeof *c + p->len);
  if (!l || !c) {
    free(l);
    free(c);
    return -1;
  }
  memcpy(c, p, sizeof *c + p->len);
  *l = (tap_late_frame){NULL, at, c};
  if (q->tail)
    q->tail->next = l;
  else
    q->head = l;
  q->tail = l;
  return 0;
}

pkt *tap_late_due(tap_late *q, uint64_t t_ps, uint64_t *at_ps) {
  tap_late_frame *l = q->head;
  if (!l || l->at_ps > t_ps) return NULL;
  if (!(q->head = l->next)) q->tail = NULL;
  pkt *p = l->p;
  *at_ps = l->at_ps;
  free(l);
  return p;
}

void tap_late_free(tap_late *q) {
  uint64_t at;
  pkt *p;
  while ((p = tap_late_due(q, UINT64_MAX, &at))) free(p);
}

size_t tap_as_rocev1(const uint8_t *data, size_t len, uint8_t *out, size_t cap) {
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  ornic_frame f;
  if (ornic_frame_decode(&f, data, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT) != ORNIC_OK ||
      f.l3 != ORNIC_L3_IPV4)
    return 0;
  uint8_t src[4], dst[4];
  memcpy(src, f.ip.src, 4);
  memcpy(dst, f.ip.dst, 4);
  f.l3 = ORNIC_L3_GRH;
  f.ip.version = 6;
  f.ip.flow_label = 0;
  memcpy(f.ip.src, mapped, 12);
  memcpy(f.ip.src + 12, src, 4);
  memcpy(f.ip.dst, mapped, 12);
  memcpy(f.ip.dst + 12, dst, 4);
  ornic_ssize n = ornic_frame_encode(out, cap, &f);
  return n > 0 ? (size_t)n : 0;
}
