/* SPDX-License-Identifier: MIT */
/* The bytes of simulated memory. The content of address `addr` in the memory
 * of a QP with key `key` is a pure function of (key, addr): the requester
 * generates WRITE payloads from it, the responder generates READ responses
 * from it, and the integrity checker regenerates it, so no one stores source
 * data. The requester lays WQE w out at a VA derived from w, so the bytes of a
 * WQE are a function of (QP, WQE id, offset).
 *
 * Memory is made of 256-byte chunks (256 = the smallest PMTU, so every packet
 * starts on a chunk); each chunk is one 64-bit mix of (key, chunk address)
 * spread over 32 words by cheap vectorisable arithmetic. Two chunks differ,
 * so a packet placed at the wrong offset or in the wrong WQE is caught. */
#ifndef PCAPGEN_PATTERN_H
#define PCAPGEN_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define PATTERN_CHUNK 256u

/* Fills dst with the len bytes at addr; addr must be a multiple of PATTERN_CHUNK. */
void pattern_fill(uint8_t *dst, uint64_t key, uint64_t addr, size_t len);

/* Offset of the first byte of buf that differs from the memory at addr, or
 * (size_t)-1 when all len bytes match. addr must be a multiple of PATTERN_CHUNK. */
size_t pattern_check(const uint8_t *buf, uint64_t key, uint64_t addr, size_t len);

/* For tests: the code used from now on, the baseline's (0), AVX2's (1) or
 * AVX-512's (2), the best of them up to max that this CPU runs; returns it
 * (every level writes and accepts the same bytes). */
int pattern_use_isa(int max);

#endif
