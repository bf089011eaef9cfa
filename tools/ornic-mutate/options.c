/* SPDX-License-Identifier: MIT */
/* ornic-mutate's command line: getopt_long with the tree's convention
 * (libs/ornic-cli/include/cli.h): one usage-error line, exit 2. */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_num.h"
#include "ornic_mutator.h"

#define PROG "ornic-mutate"

/* The man page (tools/man) and the bash completion (tools/completion) are
 * made from this text: one option per line, its value's name after one
 * space, the description after two or more. */
static const char usage[] =
    "Usage: ornic-mutate [OPTION]... IN OUT\n"
    "Write OUT, a pcap (nanosecond timestamps, Ethernet), with mutated variants of\n"
    "every RoCE frame of the capture IN (pcap or pcapng, plain or gzip; '-' is\n"
    "stdin): fields changed with protocol knowledge by the mutator of fuzz/mutator,\n"
    "then lengths, checksums and the iCRC fixed (or, for a share, broken on purpose).\n"
    "For replaying into a device under test (tcpreplay).\n"
    "\n"
    "Options:\n"
    "  -n, --variants N     mutated variants per RoCE frame (1 to 1000; default 1)\n"
    "      --seed S         the seed of every choice the mutator makes (default 0)\n"
    "      --icrc MODE      keep: every variant consistent (default); break=P:\n"
    "                       a share P (0 to 1) with a wrong iCRC, all else right;\n"
    "                       break-any=P: a share P with one thing broken on purpose:\n"
    "                       the iCRC, the IP or UDP length (the iCRC fails too) or\n"
    "                       the IPv4 header checksum (which the iCRC does not cover)\n"
    "      --byte-rate R    share of variants that also get plain byte mutations\n"
    "                       (0 to 1; default 0.1)\n"
    "      --steps K        field mutations per variant, 1 to K (1 to 64; default 4)\n"
    "      --log FILE       one line per output frame, tab-separated: output frame,\n"
    "                       input frame, kind (mutated, broken, original, copied),\n"
    "                       and what changed\n"
    "      --keep-original  write each RoCE frame as it was before its variants\n"
    "      --drop-other     leave out frames that are not RoCE (default: copied\n"
    "                       as they are)\n"
    "  -h, --help           print this help and exit\n"
    "  -V, --version        print the version and exit\n"
    "\n"
    "The same IN, options and seed give the same OUT, byte for byte. Each variant has\n"
    "its original's timestamp plus 1 ns per frame written before it from the same\n"
    "original.\n"
    "OUT and the log are written under a temporary name and renamed when complete.\n"
    "\n"
    "Exit status: 0 success; 1 the run failed (IN unreadable or damaged: the\n"
    "message names the file, the frame and its byte offset; OUT not written);\n"
    "2 bad command line; 128+N stopped by signal N (OUT holds the frames written\n"
    "before it, every record whole).\n";

enum { OPT_SEED = 256, OPT_ICRC, OPT_BYTE_RATE, OPT_STEPS, OPT_LOG, OPT_KEEP, OPT_DROP };

static const struct option longopts[] = {{"variants", required_argument, NULL, 'n'},
                                         {"seed", required_argument, NULL, OPT_SEED},
                                         {"icrc", required_argument, NULL, OPT_ICRC},
                                         {"byte-rate", required_argument, NULL, OPT_BYTE_RATE},
                                         {"steps", required_argument, NULL, OPT_STEPS},
                                         {"log", required_argument, NULL, OPT_LOG},
                                         {"keep-original", no_argument, NULL, OPT_KEEP},
                                         {"drop-other", no_argument, NULL, OPT_DROP},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, 'V'},
                                         {NULL, 0, NULL, 0}};

/* --icrc keep | break=P | break-any=P. */
static int parse_icrc(const char *s, mut_opts *o) {
  char why[128];
  if (strcmp(s, "keep") == 0) {
    o->break_rate = 0;
    return 0;
  }
  bool any = strncmp(s, "break-any=", 10) == 0;
  if (any || strncmp(s, "break=", 6) == 0) {
    o->break_kinds = any ? 0 : ORNIC_MUT_BREAK_ICRC;
    const char *p = s + (any ? 10 : 6);
    if (cli_parse_double(p, 0, 1, &o->break_rate, why, sizeof why) == 0) return 0;
    return cli_usage_error(NULL, PROG, "--icrc: %s=P: %s", any ? "break-any" : "break", why);
  }
  return cli_usage_error(NULL, PROG, "--icrc: expected keep, break=P or break-any=P, got '%s'", s);
}

static int parse_u(const char *name, const char *s, uint64_t min, uint64_t max, uint64_t *v) {
  char why[128];
  if (cli_parse_u64(s, min, max, v, why, sizeof why) == 0) return 0;
  return cli_usage_error(NULL, PROG, "%s: %s", name, why);
}

static int parse_one(int c, const char *arg, mut_opts *o) {
  uint64_t v;
  char why[128];
  switch (c) {
  case 'n':
    if (parse_u("--variants", arg, 1, 1000, &v)) return CLI_EXIT_USAGE;
    o->variants = (unsigned)v;
    return 0;
  case OPT_SEED: return parse_u("--seed", arg, 0, UINT64_MAX, &o->seed) ? CLI_EXIT_USAGE : 0;
  case OPT_ICRC: return parse_icrc(arg, o) ? CLI_EXIT_USAGE : 0;
  case OPT_BYTE_RATE:
    if (cli_parse_double(arg, 0, 1, &o->byte_rate, why, sizeof why) == 0) return 0;
    return cli_usage_error(NULL, PROG, "--byte-rate: %s", why);
  case OPT_STEPS:
    if (parse_u("--steps", arg, 1, 64, &v)) return CLI_EXIT_USAGE;
    o->steps = (unsigned)v;
    return 0;
  case OPT_LOG: o->log = arg; return 0;
  case OPT_KEEP: o->keep_original = true; return 0;
  case OPT_DROP: o->drop_other = true; return 0;
  }
  return CLI_EXIT_USAGE;
}

int mut_options_parse(int argc, char **argv, mut_opts *o) {
  *o = (mut_opts){.variants = 1, .byte_rate = 0.1, .steps = 4};
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":n:hV", longopts, NULL)) != -1) {
    if (c == '?' || c == ':') return cli_getopt_error(NULL, PROG, c, argv, longopts);
    if (c == 'h') return cli_help(PROG, usage) ? MUT_OPTS_FAILED : MUT_OPTS_DONE;
    if (c == 'V') return cli_version(PROG, NULL) ? MUT_OPTS_FAILED : MUT_OPTS_DONE;
    if (parse_one(c, optarg, o)) return CLI_EXIT_USAGE;
  }
  int n = argc - optind;
  if (n > 2) return cli_unexpected(NULL, PROG, argv[optind + 2]);
  if (n < 2) return cli_usage_error(NULL, PROG, n == 0 ? "missing IN and OUT" : "missing OUT");
  o->in = argv[optind];
  o->out = argv[optind + 1];
  /* A capture is binary: on a terminal it is garbage and can upset the terminal. */
  if (strcmp(o->out, "-") == 0 && isatty(STDOUT_FILENO))
    return cli_usage_error(NULL, PROG,
                           "OUT -: standard output is a terminal; redirect it to a file or pipe");
  return MUT_OPTS_RUN;
}
