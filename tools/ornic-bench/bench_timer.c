/* SPDX-License-Identifier: MIT */
/* Process CPU time (CLOCK_PROCESS_CPUTIME_ID): the machines this runs on are
 * shared, and CPU time does not count the slices another process took, as
 * wall time does. Every figure is several short repetitions, interleaved
 * with its baselines, summarised by their best and their median. */
#define _POSIX_C_SOURCE 200809L
#include "bench_timer.h"

#include <stdlib.h>
#include <time.h>

volatile uint64_t bench_sink;

/* Calibration stops doubling once a run lasts this long: long enough for the
 * clock's resolution and the call overhead to be noise. */
#define CALIBRATE_MIN_S 0.002

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double time_once(bench_case *c, uint64_t iters) {
  double t0 = bench_now();
  c->check = c->run(c->ctx, iters);
  double t = bench_now() - t0;
  bench_sink += c->check;
  return t;
}

void bench_calibrate(bench_case *c, double target_s) {
  uint64_t iters = 16;
  double t = time_once(c, iters); /* also warms caches and branch predictors */
  while (t < CALIBRATE_MIN_S && iters < (UINT64_C(1) << 40)) {
    iters *= 2;
    t = time_once(c, iters);
  }
  double scaled = (double)iters * target_s / (t > 0 ? t : 1e-9);
  c->iters = scaled < 16 ? 16 : (uint64_t)scaled;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_measure(bench_case *cases, size_t n, int reps) {
  if (reps > BENCH_MAX_REPS) reps = BENCH_MAX_REPS;
  for (int r = 0; r < reps; r++)
    for (size_t i = 0; i < n; i++) cases[i].times[r] = time_once(&cases[i], cases[i].iters);
  for (size_t i = 0; i < n; i++) {
    cases[i].median_s = median(cases[i].times, reps);
    cases[i].best_s = cases[i].times[0]; /* median() sorted them */
  }
}
