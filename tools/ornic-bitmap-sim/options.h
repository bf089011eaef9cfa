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
} options;

/* 0: run; 1: help was printed (exit 0); 2: bad command line, message printed (exit 2). */
int options_parse(int argc, char **argv, options *o);

#endif
