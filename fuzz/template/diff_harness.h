/* SPDX-License-Identifier: MIT */
/* What diff_harness.c offers its two drivers: libFuzzer (which calls
 * LLVMFuzzerTestOneInput itself) and replay_main.c (which also prints the
 * tally, so that a run that compared nothing is seen as such). */
#ifndef DIFF_HARNESS_H
#define DIFF_HARNESS_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs so far, by outcome (a disagreement aborts, so it is never counted). */
typedef struct {
  unsigned long both_accept; /* fields compared */
  unsigned long both_reject;
  unsigned long dut_skip; /* DUT_SKIP: not compared */
} diff_tally;

const diff_tally *diff_harness_tally(void);

#endif
