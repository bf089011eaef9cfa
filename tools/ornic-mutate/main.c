/* SPDX-License-Identifier: MIT */
/* ornic-mutate: a capture's RoCE frames through the structure-aware mutator
 * of fuzz/mutator (issue 32), written as a capture to replay into a device
 * under test. Exit statuses: options.c's --help. */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "options.h"
#include "run.h"

int main(int argc, char **argv) {
  mut_opts o;
  int rc = mut_options_parse(argc, argv, &o);
  if (rc == MUT_OPTS_DONE) return CLI_EXIT_OK;
  if (rc == MUT_OPTS_FAILED) return CLI_EXIT_FAILURE;
  if (rc != MUT_OPTS_RUN) return CLI_EXIT_USAGE;
  mut_counts n;
  rc = mut_run(&o, &n);
  if (rc == CLI_EXIT_FAILURE) return rc;
  if (rc != CLI_EXIT_OK) /* a stop signal: what was written is whole */
    fprintf(stderr,
            "ornic-mutate: stopped by signal %d after input frame %" PRIu64
            "; %s holds the %" PRIu64 " frames written before it\n",
            rc - 128, n.in_frames, o.out, n.out_frames);
  if (n.skipped)
    fprintf(stderr,
            "ornic-mutate: %" PRIu64 " frames of a link type other than Ethernet left out\n",
            n.skipped);
  return rc;
}
