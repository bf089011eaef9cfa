/* SPDX-License-Identifier: MIT */
#include "rng.h"

uint64_t splitmix64(uint64_t *state) {
  *state += 0x9e3779b97f4a7c15ull;
  return mix64(*state);
}

void rng_seed(rng *r, uint64_t seed, uint64_t stream) {
  /* Mixing the stream number in first keeps streams of one seed unrelated. */
  uint64_t st = mix64(seed) ^ mix64(stream + 0x632be59bd9b4e019ull);
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&st);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double rng_double(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

uint32_t rng_below(rng *r, uint32_t n) {
  /* Lemire's multiply-shift with rejection of the biased low range. */
  uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
  uint32_t lo = (uint32_t)m;
  if (lo < n) {
    uint32_t threshold = (uint32_t)-n % n;
    while (lo < threshold) {
      m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
      lo = (uint32_t)m;
    }
  }
  return (uint32_t)(m >> 32);
}
