/* SPDX-License-Identifier: MIT */
/* splitmix64, one stream per (seed, purpose, index) (prng.h). */
#include "prng.h"

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void prng_seed(prng *g, uint64_t seed, uint64_t purpose, uint64_t index) {
  g->s = mix(mix(mix(seed) ^ (purpose + 0x632be59bd9b4e019ull)) ^ (index + 0x9e3779b97f4a7c15ull));
}

uint64_t prng_next(prng *g) {
  g->s += 0x9e3779b97f4a7c15ull;
  return mix(g->s);
}

uint32_t prng_below(prng *g, uint32_t n) {
  /* Rejection keeps every value equally likely. */
  uint32_t limit = (uint32_t)(-n) % n; /* 2^32 mod n */
  for (;;) {
    uint32_t x = (uint32_t)(prng_next(g) >> 32);
    uint64_t m = (uint64_t)x * n;
    if ((uint32_t)m >= limit) return (uint32_t)(m >> 32);
  }
}
