/* SPDX-License-Identifier: MIT */
/* ornic-mutate's command line (README.md "Command-line conventions",
 * libs/ornic-cli). */
#ifndef MUT_OPTIONS_H
#define MUT_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  const char *in, *out; /* IN and OUT operands ("-": stdin, stdout) */
  const char *log;      /* --log FILE, or NULL */
  unsigned variants;    /* -n: mutated variants per RoCE frame */
  uint64_t seed;
  double break_rate;    /* --icrc keep: 0; --icrc break=P or break-any=P: P */
  uint32_t break_kinds; /* ornic_mut_cfg.break_kinds: break=P the iCRC alone, break-any=P 0 (any) */
  double byte_rate;     /* --byte-rate */
  unsigned steps;       /* --steps: field mutations per variant, 1..steps */
  bool keep_original, drop_other;
} mut_opts;

enum { MUT_OPTS_RUN = 0, MUT_OPTS_DONE = 1, MUT_OPTS_FAILED = 3 };

/* MUT_OPTS_RUN: o is filled; MUT_OPTS_DONE: --help or --version printed;
 * MUT_OPTS_FAILED: they could not be printed; 2 (CLI_EXIT_USAGE): a usage
 * error, its line printed. */
int mut_options_parse(int argc, char **argv, mut_opts *o);

#endif
