/* SPDX-License-Identifier: MIT */
/* What a run of ornic-bitmap-sim measures, aggregated over seeds, and the
 * programs that print it (report_text.c, report_json.c, plot.c). */
#ifndef BM_RESULTS_H
#define BM_RESULTS_H

#include <stdio.h>

#include "options.h"
#include "stats.h"

/* One model in one scenario: per-seed figures as stat_acc, totals as sums. */
typedef struct {
  stat_acc cost_ooo;    /* mean access cost per out-of-order arrival, per seed */
  stat_acc cost_all;    /* ... per arrival */
  stat_acc node_ooo;    /* ... not counting the per-QP entry read */
  stat_acc hops_ooo;    /* next-pointer hops per out-of-order arrival */
  stat_acc max_blocks;  /* most blocks one QP held, per seed */
  stat_acc mean_blocks; /* blocks held by the receiving QP after an arrival, mean per seed */
  stat_acc pool_peak, pool_empty, aborted;
  unsigned max_blocks_all, max_cost;
  uint64_t arrivals, ooo, pool_empty_total, aborted_total, out_of_window_total;
} model_stats;

enum { SC_NO_LOSS = 0, SC_LOSS = 1 };

typedef struct {
  uint32_t qps;
  uint32_t reorder; /* the bound its QPs got (options_reorder_for) */
  model_stats m[BM_NMODELS];
} sweep_point;

typedef struct {
  char name[24]; /* "otd16", "shift1024" */
  double diff_us;
  stat_acc delay_pkts, delay_us, false_per_1000;
  unsigned trials, missed;
} det_row;

typedef struct {
  model_stats main[BM_NMODELS][2];
  sweep_point sweep[OPT_MAX_LIST];
  det_row *det;
  size_t ndet;
  double pkt_time_us;
} results;

/* Runs everything the options ask for. 0, or -1 (message printed). */
int results_run(const options *o, results *r);
void results_free(results *r);

void report_text(FILE *f, const options *o, const results *r);
void report_json(FILE *f, const options *o, const results *r);
/* Draws o->plot with gnuplot. 0 drawn; -1 not (message printed). */
int plot_svg(const options *o, const results *r);

#endif
