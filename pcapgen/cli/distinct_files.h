/* SPDX-License-Identifier: MIT */
/* The run's files, told apart before anything is written (issue 28): the
 * scenario it reads (--scenario) and the files it writes (-o or a scenario's
 * `output` line, --summary-json, --plot). Two of them that are one file would
 * destroy each other: `--scenario s.scn -o s.scn` replaced the scenario with
 * the capture, `-o x --summary-json x` left only the summary. */
#ifndef PCAPGEN_DISTINCT_FILES_H
#define PCAPGEN_DISTINCT_FILES_H

#include <stdio.h>

#include "options.h"

/* 0 when no two of o's files are one file; else -1 with a message on err
 * naming both options and the path (a usage error: exit 2). One file means:
 *  - both are stdout ("-" for -o and --summary-json);
 *  - the same device and inode, once symbolic links are followed (so ./x, x,
 *    a symbolic link to x and a hard link of x are all x), unless it is a
 *    character device (/dev/null twice destroys nothing);
 *  - for a file that does not exist yet: the same folder (realpath) and name,
 *    after following a dangling link to the file it would create.
 * Nothing is created, opened for writing or removed. */
int pathcheck_distinct(const options *o, FILE *err);

#endif
