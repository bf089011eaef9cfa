/* SPDX-License-Identifier: MIT */
/* Test frames for ornic-bench, built with the library's own encoder. */
#ifndef ORNIC_BENCH_FRAMES_H
#define ORNIC_BENCH_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/ornic.h"

/* Ethernet II + IPv4 + UDP + BTH + iCRC: the fixed part of every frame here. */
#define BENCH_HDR_LEN (14 + 20 + 8 + ORNIC_BTH_LEN + ORNIC_ICRC_LEN)
/* Ring slot stride: room for the largest small frame, cache-line aligned. */
#define BENCH_SLOT 256
/* Per-frame NAK bitmap storage (up to 4 blocks). */
#define BENCH_NAK_BYTES 8

/* One encoded frame and its decoded view (for the iCRC loops). */
typedef struct {
  uint8_t *bytes;
  size_t len;
  ornic_frame frame;
} bench_frame;

/* The largest ORNIC OOO WRITE Spot frame of at most max_len bytes. Ethernet
 * RoCEv2 frames are 2 mod 4 bytes long (14 B MAC header, 4-aligned rest), so
 * "64 B" gives 62 B. Returns ORNIC_OK or a negative ORNIC_ERR_*. */
int bench_frame_spot(bench_frame *bf, size_t max_len);
void bench_frame_free(bench_frame *bf);

/* `count` frames of mixed opcodes, 62 to about 130 B, one per BENCH_SLOT. */
typedef struct {
  size_t count;
  ornic_frame *desc; /* what was encoded: input of the encode benchmark */
  uint8_t *bitmaps;  /* count * BENCH_NAK_BYTES, referenced by desc[i] */
  uint8_t *bytes;    /* count * BENCH_SLOT */
  uint16_t *len;
  ornic_frame *decoded; /* each frame decoded: input of the mixed-frame iCRC loops */
  size_t min_len, max_len, total_len;
} bench_ring;

/* Deterministic for a given seed. Every frame is checked to decode and
 * verify cleanly. Returns ORNIC_OK or a negative ORNIC_ERR_*. */
int bench_ring_build(bench_ring *r, size_t count, uint64_t seed);
void bench_ring_free(bench_ring *r);

/* The order the decode loops visit a ring in: BENCH_ORDER_LEN frame indices,
 * each of the ring's `count` frames (a power of two dividing it) the same
 * number of times, so both orders decode exactly the same frame mix.
 * seed 0 gives ring order (0, 1, ..., count - 1, 0, 1, ...), which a branch
 * predictor learns; any other seed a Fisher-Yates shuffle of it, whose 64K
 * steps it cannot learn. The frames stay in one ring (and cache) either way,
 * so the two orders differ only in the branches they make hard to predict.
 * NULL when out of memory; free() it. */
#define BENCH_ORDER_LEN 65536
uint16_t *bench_order_build(size_t count, uint64_t seed);

static inline const uint8_t *bench_ring_frame(const bench_ring *r, size_t i) {
  return r->bytes + i * BENCH_SLOT;
}

#endif
