/* SPDX-License-Identifier: MIT */
/* The decode floor's per-QP table (floor_qp.h): linear probing, a
 * multiplicative hash of the key's words, doubled at half full so that a
 * lookup touches one or two slots. */
#include "floor_qp.h"

#include <stdbool.h>
#include <stdlib.h>

#define EMPTY 0xffffffffu
#define INITIAL 1024u

static size_t hash(uint32_t src, uint32_t dst, uint32_t qpn) {
  uint64_t k = ((uint64_t)src << 32 | dst) ^ ((uint64_t)qpn * UINT64_C(0x9e3779b97f4a7c15));
  k ^= k >> 29;
  k *= UINT64_C(0xbf58476d1ce4e5b9);
  return (size_t)(k ^ (k >> 32));
}

static bool alloc_slots(floor_qp_table *t, size_t n) {
  t->slot = malloc(n * sizeof *t->slot);
  if (!t->slot) return false;
  for (size_t i = 0; i < n; i++) t->slot[i].qpn = EMPTY;
  t->mask = n - 1;
  t->used = 0;
  return true;
}

int floor_qp_init(floor_qp_table *t) { return alloc_slots(t, INITIAL) ? 0 : -1; }

void floor_qp_free(floor_qp_table *t) { free(t->slot); }

static floor_qp *probe(floor_qp_table *t, uint32_t src, uint32_t dst, uint32_t qpn) {
  size_t i = hash(src, dst, qpn) & t->mask;
  while (t->slot[i].qpn != EMPTY &&
         (t->slot[i].qpn != qpn || t->slot[i].src != src || t->slot[i].dst != dst))
    i = (i + 1) & t->mask;
  return &t->slot[i];
}

static int grow(floor_qp_table *t) {
  floor_qp_table old = *t;
  if (!alloc_slots(t, (old.mask + 1) * 2)) return -1;
  for (size_t i = 0; i <= old.mask; i++)
    if (old.slot[i].qpn != EMPTY)
      *probe(t, old.slot[i].src, old.slot[i].dst, old.slot[i].qpn) = old.slot[i];
  t->used = old.used;
  free(old.slot);
  return 0;
}

floor_qp *floor_qp_get(floor_qp_table *t, uint32_t src, uint32_t dst, uint32_t qpn) {
  floor_qp *q = probe(t, src, dst, qpn);
  if (q->qpn != EMPTY) return q;
  if (2 * (t->used + 1) > t->mask + 1) {
    if (grow(t) < 0) return NULL;
    q = probe(t, src, dst, qpn);
  }
  t->used++;
  *q = (floor_qp){.src = src, .dst = dst, .qpn = qpn};
  return q;
}
