/* SPDX-License-Identifier: MIT */
/* The work of ornic-mutate: read IN through ornic-decode's capture reader
 * (tools/ornic-decode/core/capture.h), classify each frame with its codec
 * (core/packet.h), write the variants the mutator (fuzz/mutator) makes of
 * each RoCE frame, and the log. */
#ifndef MUT_RUN_H
#define MUT_RUN_H

#include <stdint.h>

#include "options.h"

typedef struct {
  uint64_t in_frames;  /* records read */
  uint64_t out_frames; /* records written */
  uint64_t mutated;    /* variants written */
  uint64_t broken;     /* of them, left broken on purpose */
  uint64_t skipped;    /* frames of a link type other than Ethernet, left out */
} mut_counts;

/* 0 (CLI_EXIT_OK), 1 with the error printed (nothing written: OUT and the
 * log are as before), or 128 + N when signal N stopped it (what was
 * written kept, and said). */
int mut_run(const mut_opts *o, mut_counts *n);

#endif
