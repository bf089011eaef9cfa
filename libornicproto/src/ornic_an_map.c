/* SPDX-License-Identifier: MIT */
/* Open-addressing hash map from an_key to a 32-bit value, for the
 * analysis' QP halves and address pairs. Grows (allocates) only when a new
 * key is inserted, never on lookup: the per-packet path stays allocation
 * free once a conversation exists. */
#include <stdlib.h>
#include <string.h>

#include "ornic_an_internal.h"

static uint64_t key_hash(const an_key *k) {
  uint64_t w[5];
  memcpy(w, k, sizeof w);
  uint64_t h = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 5; i++) {
    h = (h ^ w[i]) * 0xff51afd7ed558ccdu;
    h ^= h >> 32;
  }
  return h;
}

_Static_assert(sizeof(an_key) == 40, "an_key has no padding the hash would read");
_Static_assert(sizeof(an_map_entry) == sizeof(an_key) + sizeof(uint32_t),
               "an entry is the key and the value the budget counts (grow)");

void an_map_free(an_map *m) {
  free(m->e);
  memset(m, 0, sizeof *m);
}

static uint32_t find(const an_map *m, const an_key *k) {
  uint32_t mask = m->cap - 1, i = (uint32_t)key_hash(k) & mask;
  while (m->e[i].val != AN_NONE && memcmp(&m->e[i].key, k, sizeof *k) != 0) i = (i + 1) & mask;
  return i;
}

uint32_t an_map_get(const an_map *m, const an_key *k) {
  return m->cap ? m->e[find(m, k)].val : AN_NONE;
}

static int grow(ornic_analysis *a, an_map *m) {
  uint32_t cap = m->cap ? m->cap * 2 : 256;
  an_map old = *m;
  m->e = malloc((size_t)cap * sizeof *m->e);
  if (!m->e) {
    *m = old;
    return -1;
  }
  for (uint32_t i = 0; i < cap; i++) m->e[i].val = AN_NONE;
  m->cap = cap;
  for (uint32_t i = 0; i < old.cap; i++) {
    if (old.e[i].val == AN_NONE) continue;
    m->e[find(m, &old.e[i].key)] = old.e[i];
  }
  free(old.e);
  an_mem_take(a, (uint64_t)(cap - old.cap) * sizeof *m->e, true);
  return 0;
}

int an_map_put(ornic_analysis *a, const an_key *k, uint32_t v) {
  an_map *m = &a->map;
  if ((m->n + 1) * 2 > m->cap && grow(a, m) < 0) return -1; /* load factor at most 1/2 */
  uint32_t i = find(m, k);
  if (m->e[i].val == AN_NONE) m->n++;
  m->e[i].key = *k;
  m->e[i].val = v;
  return 0;
}
