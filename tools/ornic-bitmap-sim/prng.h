/* SPDX-License-Identifier: MIT */
/* Seeded pseudo-random numbers for the experiments: splitmix64 (Steele, Lea
 * and Flood), one independent stream per (seed, purpose, index), so that the
 * arrivals of QP 7 do not depend on how many QPs or models run. */
#ifndef BM_PRNG_H
#define BM_PRNG_H

#include <stdint.h>

typedef struct {
  uint64_t s;
} prng;

/* Stream `index` of purpose `purpose` of `seed`. */
void prng_seed(prng *g, uint64_t seed, uint64_t purpose, uint64_t index);
uint64_t prng_next(prng *g);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint32_t prng_below(prng *g, uint32_t n);

#endif
