/* SPDX-License-Identifier: MIT */
/* The mutator's own generator: splitmix64 (Steele, Lea, Flood, "Fast
 * splittable pseudorandom number generators", OOPSLA 2014), so that every
 * choice is a function of the seed on every platform (no rand()). */
#ifndef MUT_RNG_H
#define MUT_RNG_H

#include <stdint.h>

typedef struct {
  uint64_t s;
} mut_rng;

static inline uint64_t mut_rng_next(mut_rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, n); 0 when n is 0. The modulo bias (< n / 2^64) does not
 * matter for choosing mutations. */
static inline uint32_t mut_rng_below(mut_rng *r, uint32_t n) {
  return n ? (uint32_t)(mut_rng_next(r) % n) : 0;
}

/* True with probability p (53-bit resolution). */
static inline int mut_rng_chance(mut_rng *r, double p) {
  return (double)(mut_rng_next(r) >> 11) * (1.0 / 9007199254740992.0) < p;
}

#endif
