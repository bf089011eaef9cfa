/* SPDX-License-Identifier: MIT */
/* What tests/mutator's programs share: the check macro, a mutator maker and the seed frames
 * they mutate, the Ethernet seeds of fuzz/corpus/frame that frame_oracle.h
 * accepts as they are (which also checks the oracle against the seed
 * generator's encoder on each). */
#ifndef SEED_FRAMES_H
#define SEED_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ornic_mutator.h"

extern int failed; /* set by CHECK; the program's exit status */

#define CHECK(c, ...)                                      \
  do {                                                     \
    if (!(c)) {                                            \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
      failed = 1;                                          \
    }                                                      \
  } while (0)

/* The seeds of dir in name order (fuzz_frame's mode byte 0 mod 6: an
 * Ethernet frame; the byte dropped) that the oracle accepts and are at most
 * max_len bytes, into frames/lens, each in an allocation of exactly its size
 * (ASan sees a read past the end); at most max. Returns how many; *v6 (when
 * not NULL) counts the IPv6 ones. Exits with status 2 when dir cannot be
 * read. */
size_t seed_frames_load(const char *dir, uint8_t **frames, size_t *lens, size_t max, size_t max_len,
                        size_t *v6);

/* A mutator of the default configuration but for these; exits when
 * ornic_mut_new refuses. */
ornic_mut *seed_mut_new(uint64_t seed, double byte_rate, double break_rate);

#endif
