/* SPDX-License-Identifier: MIT */
/* An output file that never looks complete before it is: the rule of
 * README.md "Reliability" ("leaves no partial output behind").
 *
 *  - a regular file (new or existing) is written as a hidden temporary
 *    `.NAME.tmp.PID.XXXXXX` in the same directory, renamed over NAME by
 *    cli_outfile_commit and removed by cli_outfile_discard: an interrupted
 *    or failed run leaves NAME as it was. The name is pcapgen's
 *    (pcapgen/output/output_file.c), whose stale-file sweep recognises it;
 *  - a symbolic link is followed (its target is replaced, the link stays);
 *  - an existing file keeps its mode, a new one gets 0666 under the umask;
 *  - "-" is standard output, and a device or FIFO is written in place:
 *    there is nothing to rename. */
#ifndef ORNIC_CLI_OUTFILE_H
#define ORNIC_CLI_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
  char *path; /* the file replaced at commit (a symlink's target), or NULL for stdout */
  char *tmp;  /* the temporary file, NULL when written in place */
  FILE *fp;   /* where the bytes go; closed by commit or discard */
} cli_outfile;

/* Opens path ("-": stdout) as above. 0, or -1 with "cannot create 'PATH':
 * REASON" in err and nothing created. */
int cli_outfile_open(cli_outfile *o, const char *path, char *err, size_t errlen);

/* Flushes and closes fp (stdout: flushes only), then renames the temporary
 * file into place. 0, or -1 with a message in err (the temporary file is
 * removed). */
int cli_outfile_commit(cli_outfile *o, char *err, size_t errlen);

/* Closes fp and removes the temporary file. Safe after commit and twice. */
void cli_outfile_discard(cli_outfile *o);

#endif
