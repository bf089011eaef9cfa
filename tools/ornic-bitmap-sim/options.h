/* SPDX-License-Identifier: MIT */
/* Command line of ornic-bitmap-sim: every parameter of the experiment is a
 * flag; `--help` lists them with their defaults. */
#ifndef BM_OPTIONS_H
#define BM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bm_model.h"
#include "experiment.h"
#include "spray.h"

#define OPT_MAX_LIST 32

/* The paper's default for --left-threshold under --paper (docs/BITMAP_MODELS.md
 * section 2a says why). */
#define OPT_PAPER_LEFT_THRESHOLD 1

typedef struct {
  exp_params exp;
  unsigned bitmap_bits;
  uint64_t seed;
  unsigned seeds;
  bool model[BM_NMODELS];
  uint32_t sweep[OPT_MAX_LIST]; /* concurrent QP counts of the exhaustion sweep */
  size_t nsweep;
  uint32_t otd[OPT_MAX_LIST];
  size_t notd;
  double diff_us[OPT_MAX_LIST];
  size_t ndiff;
  spray_params spray; /* diff_us is set per row */
  unsigned sr_window;
  double rtt_us; /* NAK to retransmission arrival; 0: 2 x mean path delay */
  bool detectors, json;
  const char *plot;
  /* --paper, and which of its conventions were set by their own flag (those
   * win over the preset, in any order on the command line). */
  bool paper, set_arrivals, set_cost, set_threshold, set_walk;
} options;

/* Do the conventions in force (exp.arrivals, exp.cost_pointer, exp.conf) all
 * equal the --paper preset's? */
bool options_paper_conventions(const options *o);
/* Bits of a pointer to one of the pool's blocks: ceil(log2(pool)), at least
 * 1 (no NIL code needed: the QP context holds each list's length). */
unsigned options_pointer_bits(const options *o);
/* Names of the conventions in force, for the reports. */
const char *options_cost_name(const options *o); /* "context" or "pointer" */
const char *options_walk_name(const options *o); /* "forward" or "both" */

/* 0: run; 1: help or version was printed (exit 0); 2: bad command line, its
 * one line printed (exit 2); 3: help or version could not be written (exit 1). */
int options_parse(int argc, char **argv, options *o);

#endif
