/* SPDX-License-Identifier: MIT */
/* The command-line convention of every program of the tree (README.md,
 * "Command-line conventions"), written once: the exit statuses every
 * program shares, the one line a usage error prints, and --version.
 *
 * A program parses with getopt_long, opterr = 0 and an optstring that
 * starts with ':' (so a missing value is told from an unknown option), and
 * hands every '?' and ':' to cli_getopt_error. */
#ifndef ORNIC_CLI_H
#define ORNIC_CLI_H

#include <getopt.h>
#include <stdio.h>

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Statuses with the same meaning in every program; a program's own
 * statuses (a damaged capture, --strict, no progress, ...) are 2 or more. */
enum {
  CLI_EXIT_OK = 0,      /* success, and -h, --help, --version */
  CLI_EXIT_FAILURE = 1, /* the run failed (input, output, the work itself) */
  CLI_EXIT_USAGE = 2    /* bad command line: nothing was run */
};

/* "PROG: MESSAGE (see PROG --help)" and a newline on err (NULL: stderr):
 * the one line every usage error prints. Returns CLI_EXIT_USAGE. */
int cli_usage_error(FILE *err, const char *prog, const char *fmt, ...) CLI_PRINTF(3, 4);

/* What getopt_long's '?' or ':' (c) meant, as a usage error: "unknown
 * option '--x'", "unknown option '-x'", "option '--qp' needs a value",
 * "option '--json' takes no value". Reads optind and optopt, so call it at
 * once. Returns CLI_EXIT_USAGE. */
int cli_getopt_error(FILE *err, const char *prog, int c, char *const argv[],
                     const struct option *longopts);

/* "unexpected argument 'ARG'" (a positional argument the program takes
 * none of, or one too many). Returns CLI_EXIT_USAGE. */
int cli_unexpected(FILE *err, const char *prog, const char *arg);

/* --version on stdout:
 *   PROG VERSION                      (this tree's release, ornic-tools)
 *   libornicproto VERSION (CRC-32: BACKEND)   (the library linked at run time)
 *   EXTRA                             (when not NULL: what else the program links)
 * Returns CLI_EXIT_OK, or CLI_EXIT_FAILURE with a message when stdout
 * cannot be written. */
int cli_version(const char *prog, const char *extra);

/* Text (--help) on stdout, checked like --version's. */
int cli_help(const char *prog, const char *text);

#endif
