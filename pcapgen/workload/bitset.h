/* SPDX-License-Identifier: MIT */
/* Plain bit arrays (one bit per packet of a WQE). */
#ifndef PCAPGEN_BITSET_H
#define PCAPGEN_BITSET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static inline uint8_t *bs_new(uint32_t nbits) { return calloc(nbits / 8 + 1, 1); }
static inline bool bs_get(const uint8_t *b, uint32_t i) { return b[i >> 3] >> (i & 7) & 1; }
static inline void bs_set(uint8_t *b, uint32_t i) { b[i >> 3] |= (uint8_t)(1u << (i & 7)); }
static inline void bs_clr(uint8_t *b, uint32_t i) { b[i >> 3] &= (uint8_t) ~(1u << (i & 7)); }

#endif
