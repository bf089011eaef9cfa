/* SPDX-License-Identifier: MIT */
#include "pattern.h"

#include <stdbool.h>
#include <string.h>

#include "rng.h"

#define WORDS (PATTERN_CHUNK / 8)

static inline uint64_t chunk_seed(uint64_t key, uint64_t chunk_addr) {
  return mix64(key ^ (chunk_addr * 0x9e3779b97f4a7c15ull));
}

static inline uint64_t word(uint64_t x, unsigned j) {
  return x ^ ((uint64_t)j * 0xd6e8feb86659fd93ull);
}

/* Words are stored little-endian so files do not depend on the host. */
static inline uint64_t to_le(uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return __builtin_bswap64(w);
#else
  return w;
#endif
}

/* One whole chunk; a plain loop the compiler vectorises. */
static void chunk(uint8_t *out, uint64_t key, uint64_t chunk_addr) {
  uint64_t x = chunk_seed(key, chunk_addr), w[WORDS];
  for (unsigned j = 0; j < WORDS; j++) w[j] = to_le(word(x, j));
  memcpy(out, w, PATTERN_CHUNK);
}

/* Whether a whole chunk matches: XORs accumulated, one test at the end. */
static bool chunk_ok(const uint8_t *in, uint64_t key, uint64_t chunk_addr) {
  uint64_t x = chunk_seed(key, chunk_addr), w[WORDS], diff = 0;
  memcpy(w, in, PATTERN_CHUNK);
  for (unsigned j = 0; j < WORDS; j++) diff |= w[j] ^ to_le(word(x, j));
  return diff == 0;
}

void pattern_fill(uint8_t *dst, uint64_t key, uint64_t addr, size_t len) {
  uint8_t tmp[PATTERN_CHUNK];
  while (len >= PATTERN_CHUNK) {
    chunk(dst, key, addr);
    dst += PATTERN_CHUNK;
    addr += PATTERN_CHUNK;
    len -= PATTERN_CHUNK;
  }
  if (len) {
    chunk(tmp, key, addr);
    memcpy(dst, tmp, len);
  }
}

size_t pattern_check(const uint8_t *buf, uint64_t key, uint64_t addr, size_t len) {
  uint8_t tmp[PATTERN_CHUNK];
  for (size_t done = 0; done < len; done += PATTERN_CHUNK) {
    size_t n = len - done < PATTERN_CHUNK ? len - done : PATTERN_CHUNK;
    if (n == PATTERN_CHUNK && chunk_ok(buf + done, key, addr + done)) continue;
    chunk(tmp, key, addr + done);
    for (size_t i = 0; i < n; i++)
      if (tmp[i] != buf[done + i]) return done + i;
  }
  return (size_t)-1;
}
