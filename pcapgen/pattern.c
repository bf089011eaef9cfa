/* SPDX-License-Identifier: MIT */
#include "pattern.h"

#include <stdbool.h>
#include <string.h>

#include "rng.h"

#define WORDS (PATTERN_CHUNK / 8)

static inline uint64_t chunk_seed(uint64_t key, uint64_t chunk_addr) {
  return mix64(key ^ (chunk_addr * 0x9e3779b97f4a7c15ull));
}

/* Word j of a chunk is its seed XOR j * WORD_STEP; the table holds those
 * products, so a chunk is one broadcast XOR per word, which the compiler
 * turns into vector instructions (the loop over j with the multiply in it
 * stayed scalar: a fifth of the run went to filling and checking payloads). */
#define WORD_STEP 0xd6e8feb86659fd93ull
#define W4(j) (j) * WORD_STEP, (j + 1) * WORD_STEP, (j + 2) * WORD_STEP, (j + 3) * WORD_STEP
static const uint64_t word_key[WORDS] = {W4(0ull),  W4(4ull),  W4(8ull),  W4(12ull),
                                         W4(16ull), W4(20ull), W4(24ull), W4(28ull)};

/* Words are stored little-endian so files do not depend on the host. */
static inline uint64_t to_le(uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return __builtin_bswap64(w);
#else
  return w;
#endif
}

/* One whole chunk, built on the stack and copied out whole (the same with
 * the words stored straight into the frame, and chunk_ok reading them
 * straight from it, took fewer instructions but measured slower on
 * --bench: 0.35 s against 0.31, medians of 8). */
static inline void chunk(uint8_t *out, uint64_t key, uint64_t chunk_addr) {
  uint64_t x = chunk_seed(key, chunk_addr), w[WORDS];
  for (unsigned j = 0; j < WORDS; j++) w[j] = to_le(x ^ word_key[j]);
  memcpy(out, w, PATTERN_CHUNK);
}

/* Whether a whole chunk matches: XORs accumulated, one test at the end. */
static inline bool chunk_ok(const uint8_t *in, uint64_t key, uint64_t chunk_addr) {
  uint64_t x = to_le(chunk_seed(key, chunk_addr)), w[WORDS], diff = 0;
  memcpy(w, in, PATTERN_CHUNK);
  for (unsigned j = 0; j < WORDS; j++) diff |= w[j] ^ x ^ to_le(word_key[j]);
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
