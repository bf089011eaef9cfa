/* SPDX-License-Identifier: MIT */
/* A progress bar on stderr, only when stderr is a terminal and the run has
 * lasted long enough (1 s) to deserve one; silent otherwise. */
#ifndef PCAPGEN_PROGRESS_H
#define PCAPGEN_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  bool enabled, shown;
  double start, last;
} progress;

void progress_init(progress *pg, bool allowed);
/* Cheap enough to call every few thousand events. */
void progress_update(progress *pg, uint64_t done, uint64_t total, uint64_t pkts, uint64_t bytes);
void progress_end(progress *pg);
double progress_clock(void); /* monotonic seconds */

#endif
