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
/* The paper's reordering bound, --reorder's value under --paper: "the OOO
 * distance did not exceed 64" (section 4.3), Eq. 3's OTD for one QP alone on
 * 100 Gb/s with 4 KiB packets and an MDD of about 20 us (section 3.3). */
#define OPT_PAPER_REORDER 64
/* --mdd-us's default: the paper's MDD for its OTD of 64 (section 3.3). */
#define OPT_DEFAULT_MDD_US 20.0

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
  /* --reorder auto: exp.reorder is Eq. 3 for exp.active QPs (options_reorder_for),
   * with MDD mdd_us, B spray.link_gbps, L spray.payload_bytes. */
  bool reorder_auto;
  double mdd_us;
  bool detectors, json;
  const char *plot;
  /* --paper, and which of its conventions were set by their own flag (those
   * win over the preset, in any order on the command line). */
  bool paper, set_arrivals, set_cost, set_threshold, set_walk, set_reorder;
} options;

/* Do the conventions in force (exp.arrivals, exp.cost_pointer, exp.conf) and
 * the reordering bound (a fixed OPT_PAPER_REORDER) all equal the --paper
 * preset's? */
bool options_paper_conventions(const options *o);
/* The reordering bound of a QP when `at_once` QPs receive at once: --reorder
 * N, or with --reorder auto Eq. 3 on the QP's share of the link
 * (arrivals_eq3_bound). */
uint32_t options_reorder_for(const options *o, uint32_t at_once);
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
