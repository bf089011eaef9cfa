/* SPDX-License-Identifier: MIT */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double progress_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_init(progress *pg, bool allowed) {
  pg->enabled = allowed && isatty(STDERR_FILENO);
  pg->shown = false;
  pg->start = pg->last = progress_clock();
}

void progress_update(progress *pg, uint64_t done, uint64_t total, uint64_t pkts, uint64_t bytes) {
  if (!pg->enabled) return;
  double now = progress_clock();
  if (now - pg->start < 1.0 || now - pg->last < 0.2) return;
  pg->last = now;
  pg->shown = true;
  double frac = total ? (double)done / (double)total : 0;
  if (frac > 1) frac = 1;
  char bar[31];
  int fill = (int)(frac * 30);
  for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
  bar[30] = 0;
  fprintf(stderr, "\r[%s] %5.1f%%  %llu/%llu WQEs  %llu packets  %.1f MB ", bar, 100 * frac,
          (unsigned long long)done, (unsigned long long)total, (unsigned long long)pkts,
          (double)bytes / 1e6);
  fflush(stderr);
}

void progress_end(progress *pg) {
  if (pg->shown) fputs("\r\033[K", stderr);
  pg->shown = false;
}
