/* SPDX-License-Identifier: MIT */
/* Seeded pseudo-random numbers: xoshiro256** (Blackman & Vigna), seeded
 * through splitmix64. Independent streams per purpose (spraying, loss, ...)
 * so that, e.g., adding a --drop rule does not shift the paths chosen. */
#ifndef PCAPGEN_RNG_H
#define PCAPGEN_RNG_H

#include <stdint.h>

typedef struct {
  uint64_t s[4];
} rng;

/* One splitmix64 step: advances *state and returns a well-mixed value. */
uint64_t splitmix64(uint64_t *state);

/* The splitmix64 finalizer alone: a bijective 64-bit mix. Inline: the
 * payload pattern (pattern.c) calls it once per 256 bytes of every packet. */
static inline uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Seeds stream `stream` of `seed`; distinct streams are independent. */
void rng_seed(rng *r, uint64_t seed, uint64_t stream);

uint64_t rng_next(rng *r);

/* Uniform in [0, 1), 53 bits. */
double rng_double(rng *r);

/* Uniform in [0, n) without modulo bias; n > 0. */
uint32_t rng_below(rng *r, uint32_t n);

#endif
