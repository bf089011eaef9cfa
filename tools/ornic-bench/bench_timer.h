/* SPDX-License-Identifier: MIT */
/* Timing harness: calibrated, repeated runs of a kernel; best and median kept. */
#ifndef ORNIC_BENCH_TIMER_H
#define ORNIC_BENCH_TIMER_H

#include <stddef.h>
#include <stdint.h>

/* Runs the measured operation `iters` times; returns a checksum of the results
 * so the caller can feed it to bench_sink and check it. */
typedef uint64_t (*bench_kernel)(void *ctx, uint64_t iters);

#define BENCH_MAX_REPS 32

typedef struct {
  const char *name;
  bench_kernel run;
  void *ctx;
  uint64_t iters;               /* set by bench_calibrate */
  double best_s;                /* set by bench_measure: fastest repetition */
  double median_s;              /* and the median one, to tell how noisy the run was */
  double times[BENCH_MAX_REPS]; /* scratch of bench_measure */
  uint64_t check;               /* checksum of the last repetition */
} bench_case;

/* Written by every measurement so no kernel result is dead code. */
extern volatile uint64_t bench_sink;

/* Seconds of CPU time this process has used. */
double bench_now(void);

/* Chooses c->iters so that one repetition lasts about target_s seconds. */
void bench_calibrate(bench_case *c, double target_s);

/* Runs the cases round-robin `reps` (<= BENCH_MAX_REPS) times and keeps each
 * one's best and median time: interleaving means a noisy neighbour slows
 * baseline and subject alike. */
void bench_measure(bench_case *cases, size_t n, int reps);

#endif
