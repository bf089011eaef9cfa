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
 * stays scalar). */
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

/* The chunk's words, straight into out (the compiler makes them vector XORs
 * and stores: no copy through the stack). */
static inline void chunk(uint8_t *out, uint64_t key, uint64_t chunk_addr) {
  uint64_t x = chunk_seed(key, chunk_addr);
  for (unsigned j = 0; j < WORDS; j++) {
    uint64_t w = to_le(x ^ word_key[j]);
    memcpy(out + 8 * j, &w, 8);
  }
}

/* Whether a whole chunk matches: XORs accumulated, one test at the end. */
static inline bool chunk_ok(const uint8_t *in, uint64_t key, uint64_t chunk_addr) {
  uint64_t x = to_le(chunk_seed(key, chunk_addr)), diff = 0;
  for (unsigned j = 0; j < WORDS; j++) {
    uint64_t w;
    memcpy(&w, in + 8 * j, 8);
    diff |= w ^ x ^ to_le(word_key[j]);
  }
  return diff == 0;
}

static inline void fill_body(uint8_t *dst, uint64_t key, uint64_t addr, size_t len) {
  while (len >= PATTERN_CHUNK) {
    chunk(dst, key, addr);
    dst += PATTERN_CHUNK;
    addr += PATTERN_CHUNK;
    len -= PATTERN_CHUNK;
  }
  if (len) {
    uint8_t tmp[PATTERN_CHUNK];
    chunk(tmp, key, addr);
    memcpy(dst, tmp, len);
  }
}

static inline size_t check_body(const uint8_t *buf, uint64_t key, uint64_t addr, size_t len) {
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

/* The same code built three times on x86-64: for the baseline ISA the
 * project compiles for (SSE2: 16 bytes a vector) and, chosen once at run
 * time, for AVX2 (32 bytes) and AVX-512 (64 bytes, and a three-way XOR in
 * one instruction): fewer instructions per byte of payload filled and
 * checked (pcapgen/README.md, "Speed"). No compile flag changes:
 * the target attribute applies to these functions only. */
#if defined(__x86_64__) && defined(__GNUC__)
#define PATTERN_X86 1
__attribute__((target("avx2"))) static void fill_avx2(uint8_t *dst, uint64_t key, uint64_t addr,
                                                      size_t len) {
  fill_body(dst, key, addr, len);
}
__attribute__((target("avx2"))) static size_t check_avx2(const uint8_t *buf, uint64_t key,
                                                         uint64_t addr, size_t len) {
  return check_body(buf, key, addr, len);
}
#ifdef __clang__ /* takes no prefer-vector-width here */
#define AVX512 "avx512f,avx512bw,avx512vl"
#else /* GCC would otherwise use 32-byte vectors */
#define AVX512 "avx512f,avx512bw,avx512vl,prefer-vector-width=512"
#endif
__attribute__((target(AVX512))) static void fill_avx512(uint8_t *dst, uint64_t key, uint64_t addr,
                                                        size_t len) {
  fill_body(dst, key, addr, len);
}
__attribute__((target(AVX512))) static size_t check_avx512(const uint8_t *buf, uint64_t key,
                                                           uint64_t addr, size_t len) {
  return check_body(buf, key, addr, len);
}

/* 2: AVX-512, 1: AVX2, 0: baseline, -1: not asked yet. A race between
 * threads is benign (both write the same answer). */
static int isa = -1;
static int best_isa(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") ? 2
         : __builtin_cpu_supports("avx2")                                         ? 1
                                                                                  : 0;
}
static inline int vector_isa(void) {
  if (isa < 0) isa = best_isa();
  return isa;
}
#endif

int pattern_use_isa(int max) {
#ifdef PATTERN_X86
  int best = best_isa();
  isa = max < best ? (max < 0 ? 0 : max) : best;
  return isa;
#else
  (void)max;
  return 0;
#endif
}

void pattern_fill(uint8_t *dst, uint64_t key, uint64_t addr, size_t len) {
#ifdef PATTERN_X86
  switch (vector_isa()) {
  case 2: fill_avx512(dst, key, addr, len); return;
  case 1: fill_avx2(dst, key, addr, len); return;
  }
#endif
  fill_body(dst, key, addr, len);
}

size_t pattern_check(const uint8_t *buf, uint64_t key, uint64_t addr, size_t len) {
#ifdef PATTERN_X86
  switch (vector_isa()) {
  case 2: return check_avx512(buf, key, addr, len);
  case 1: return check_avx2(buf, key, addr, len);
  }
#endif
  return check_body(buf, key, addr, len);
}
