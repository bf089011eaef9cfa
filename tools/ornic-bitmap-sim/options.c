/* SPDX-License-Identifier: MIT */
/* ornic-bitmap-sim's command line (options.h): --help with the defaults,
 * every flag parsed and range-checked, --paper's conventions. */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_num.h"

#define PROG "ornic-bitmap-sim"
#define STR_(x) #x
#define STR(x) STR_(x)
#define PAPER_T STR(OPT_PAPER_LEFT_THRESHOLD)

enum {
  O_BLOCK = 256,
  O_BITMAP,
  O_QPS,
  O_ACTIVE,
  O_POOL,
  O_REORDER,
  O_WQE,
  O_RETRY,
  O_SEED,
  O_SEEDS,
  O_MODELS,
  O_SWEEP,
  O_OTD,
  O_DIFFS,
  O_PATHS,
  O_PAYLOAD,
  O_GBPS,
  O_BASE,
  O_STREAM,
  O_SRWIN,
  O_RTT,
  O_NODET,
  O_JSON,
  O_PLOT,
  O_ARRIVALS,
  O_COST,
  O_LEFT_T,
  O_LPWALK,
  O_PAPER,
  O_MDD
};

static const struct option longopts[] = {{"block-bits", 1, 0, O_BLOCK},
                                         {"bitmap-bits", 1, 0, O_BITMAP},
                                         {"qps", 1, 0, O_QPS},
                                         {"active", 1, 0, O_ACTIVE},
                                         {"pool", 1, 0, O_POOL},
                                         {"reorder", 1, 0, O_REORDER},
                                         {"wqe-pkts", 1, 0, O_WQE},
                                         {"retry-limit", 1, 0, O_RETRY},
                                         {"seed", 1, 0, O_SEED},
                                         {"seeds", 1, 0, O_SEEDS},
                                         {"models", 1, 0, O_MODELS},
                                         {"sweep", 1, 0, O_SWEEP},
                                         {"otd", 1, 0, O_OTD},
                                         {"delay-diffs", 1, 0, O_DIFFS},
                                         {"paths", 1, 0, O_PATHS},
                                         {"payload", 1, 0, O_PAYLOAD},
                                         {"link-gbps", 1, 0, O_GBPS},
                                         {"base-delay-us", 1, 0, O_BASE},
                                         {"stream-pkts", 1, 0, O_STREAM},
                                         {"sr-window", 1, 0, O_SRWIN},
                                         {"rtt-us", 1, 0, O_RTT},
                                         {"no-detectors", 0, 0, O_NODET},
                                         {"json", 0, 0, O_JSON},
                                         {"plot", 1, 0, O_PLOT},
                                         {"help", 0, 0, 'h'},
                                         {"version", 0, 0, 'V'},
                                         {"arrivals", 1, 0, O_ARRIVALS},
                                         {"cost", 1, 0, O_COST},
                                         {"left-threshold", 1, 0, O_LEFT_T},
                                         {"leftplus-walk", 1, 0, O_LPWALK},
                                         {"paper", 0, 0, O_PAPER},
                                         {"mdd-us", 1, 0, O_MDD},
                                         {0, 0, 0, 0}};

static void usage(FILE *f) {
  fprintf(
      f,
      "Usage: " PROG
      " [OPTIONS]\n"
      "Receive-bitmap models (ORNIC's array of blocks, MELO+, LEFT, LEFT+) measured side by side,\n"
      "and ORNIC's OTD loss detector against a RASHPA-style shift register. "
      "docs/BITMAP_MODELS.md.\n"
      "\nBitmap experiment (defaults in brackets):\n"
      "  --block-bits N      bits per pool block, 1..64 [16]\n"
      "  --bitmap-bits N     bitmap bits per QP, a multiple of --block-bits [320]\n"
      "  --qps N             QPs, one WQE each [2048]\n"
      "  --active N          QPs receiving at the same time [128]\n"
      "  --pool N            blocks in the pool shared by all QPs [4096]\n"
      "  --reorder N|auto    most PSNs a packet arrives out of order (aligned: the window) "
      "[auto; --paper 64]\n"
      "                      auto: each QP's bound from the paper's Eq. 3, MDD x B / L rounded "
      "up, with\n"
      "                      B its share of the link, --link-gbps / the QPs at once (--active, "
      "and each\n"
      "                      count of --sweep), and L --payload (docs/BITMAP_MODELS.md section "
      "4d)\n"
      "  --mdd-us X          MDD of Eq. 3 for --reorder auto: path delay difference, us [20]\n"
      "  --wqe-pkts N        packets per WQE [320]\n"
      "  --retry-limit N     drops of one packet (pool empty) before its WQE is aborted [7]\n"
      "  --models LIST       any of ornic,melo+,left,left+ [all four]\n"
      "  --sweep LIST        pool-exhaustion sweep: QPs at once, or 'none' "
      "[64,128,256,512,768,1024,2048]\n"
      "                      (loss scenario; --qps and --active both set to each value)\n"
      "\nConventions (docs/BITMAP_MODELS.md section 2a; a flag of its own wins over --paper):\n"
      "  --paper             the paper's conventions: each flag below at its [--paper ...] value "
      "[off]\n"
      "  --arrivals KIND     sliding or aligned [sliding; --paper aligned]\n"
      "                      sliding: packet i arrives in the order of i + U{0..reorder}, so no "
      "packet\n"
      "                      is more than --reorder PSNs out of order; aligned: the packets are "
      "cut\n"
      "                      into consecutive windows of --reorder from Start_PSN, each shuffled, "
      "and\n"
      "                      the windows arrive one after the other\n"
      "  --cost KIND         context or pointer [context; --paper pointer]\n"
      "                      context: every memory access, the per-QP entry (ORNIC slot, list "
      "pointer\n"
      "                      word) included; pointer: block accesses through a pointer only, the "
      "per-QP\n"
      "                      entry free (the paper's)\n"
      "  --left-threshold T  every or N, for the LEFT and LEFT+ cache [every; --paper " PAPER_T
      "]\n"
      "                      every: the block of every access (appends, head and tail hits too);\n"
      "                      N: moved only after a walk to a block more than N blocks after the "
      "head\n"
      "                      (the paper's rule). " PAPER_T
      " is the smallest N that never spends the cache on\n"
      "                      the head's neighbour (2 accesses from the head anyway), and with "
      "64-packet\n"
      "                      windows of 16-bit blocks the largest that still lets the cache hold a "
      "block\n"
      "                      without loss (a list then spans 4 blocks: walks reach 1 or 2 blocks "
      "out)\n"
      "  --leftplus-walk W   forward or both, LEFT+ walking from its cached block [forward; "
      "--paper both]\n"
      "                      forward: next pointers only; both: prev pointers too, a doubly "
      "linked\n"
      "                      list with one more pointer per block\n"
      "\nLoss detectors:\n"
      "  --otd LIST          OTD values [16,32,64,128]\n"
      "  --delay-diffs LIST  fastest-to-slowest path delay differences, us [2,5,10,20,40]\n"
      "  --paths N           paths packets are sprayed on, uniformly [4]\n"
      "  --payload N         payload bytes per packet (+82 B on the wire) [4096]\n"
      "  --link-gbps X       link rate [100]\n"
      "  --base-delay-us X   delay of the fastest path [2]\n"
      "  --stream-pkts N     packets per trial; one in [N/4, N/2) is lost [4096]\n"
      "  --sr-window N       shift-register bits (power of two >= 4; checks n - (N/2 - 1)) [1024]\n"
      "  --rtt-us X          OTD: NAK to retransmission arrival, us; 0: 2 x mean path delay [0]\n"
      "  --no-detectors      skip the detector comparison\n"
      "\nRuns and output:\n"
      "  --seed N            first seed [1]\n"
      "  --seeds N           seeds (runs) per figure; spread is over seeds [20]\n"
      "  --json              one JSON object on stdout instead of tables\n"
      "  --plot FILE.svg     also draw the figures with gnuplot: SVG, or PNG for a .png name\n"
      "                      (the script stays beside it: FILE.svg.gp or FILE.png.gp)\n"
      "  -h, --help          this text\n"
      "  -V, --version       the program's version and libornicproto's\n"
      "Numbers are decimal or 0x hex (010 is ten), with no sign or spaces. A LIST is\n"
      "comma-separated; every element must be present, valid and given once.\n"
      "Exit status: 0 ok, 1 run failed, 2 bad command line (stderr names the option and\n"
      "the bad value or list element), 3 tables printed but --plot could not be drawn.\n"
      "Same flags, same output.\n");
}

static int bad(const char *flag, const char *arg, const char *why) {
  return cli_usage_error(NULL, PROG, "%s '%s': %s", flag, arg, why);
}

/* why is cli_num's "expected ..., got '...'", which already echoes the value. */
static int bad_value(const char *flag, const char *why) {
  return cli_usage_error(NULL, PROG, "%s: %s", flag, why);
}

/* Numbers go through tools/common/cli_num, as in every program of the tree:
 * decimal or 0x hex, never octal, no sign or spaces, range checked. */
static int parse_u32(const char *flag, const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
  char why[160];
  uint64_t v;
  if (cli_parse_u64(s, lo, hi, &v, why, sizeof why) < 0) return bad_value(flag, why);
  *out = (uint32_t)v;
  return 0;
}

static int parse_double(const char *flag, const char *s, double lo, double hi, double *out) {
  char why[160];
  return cli_parse_double(s, lo, hi, out, why, sizeof why) < 0 ? bad_value(flag, why) : 0;
}

/* ---- comma-separated lists ----
 * Split by hand rather than with strtok, which silently skips empty
 * elements ("1,,2", "64,", ",64"): every element must be present, valid and
 * new, and an error names the option, the element and the whole list. */

/* Checks one element and stores it; 0, or -1 with why filled. */
typedef int (*element_fn)(void *ctx, const char *elem, char *why, size_t cap);

static int bad_element(const char *flag, const char *list, size_t k, const char *why) {
  return cli_usage_error(NULL, PROG, "%s: element %zu of '%s': %s", flag, k, list, why);
}

static int each_element(const char *flag, const char *list, element_fn fn, void *ctx) {
  if (!*list) return bad(flag, list, "empty list");
  size_t k = 1;
  for (const char *p = list;; k++) {
    size_t len = strcspn(p, ",");
    char elem[64], why[192];
    if (len == 0) return bad_element(flag, list, k, "empty: a doubled, leading or trailing comma");
    if (len >= sizeof elem) return bad_element(flag, list, k, "too long");
    memcpy(elem, p, len);
    elem[len] = 0;
    if (fn(ctx, elem, why, sizeof why) < 0) return bad_element(flag, list, k, why);
    if (!p[len]) return 0;
    p += len + 1;
  }
}

typedef struct {
  uint32_t lo, hi;
  uint32_t *u; /* whole numbers, or */
  double *d;   /* real numbers */
  size_t *n;
} num_list;

/* Is the value just stored in slot *n equal to an earlier one? */
static bool repeats(const num_list *l) {
  size_t n = *l->n;
  for (size_t i = 0; i < n; i++)
    if (l->u ? l->u[i] == l->u[n] : l->d[i] == l->d[n]) return true;
  return false;
}

static int num_element(void *ctx, const char *elem, char *why, size_t cap) {
  num_list *l = ctx;
  if (*l->n == OPT_MAX_LIST) {
    snprintf(why, cap, "more than %d values", OPT_MAX_LIST);
    return -1;
  }
  uint64_t v;
  int rc = l->u ? cli_parse_u64(elem, l->lo, l->hi, &v, why, cap)
                : cli_parse_double(elem, l->lo, l->hi, &l->d[*l->n], why, cap);
  if (rc < 0) return -1;
  if (l->u) l->u[*l->n] = (uint32_t)v;
  /* A repeated value would only repeat a row of the tables. */
  if (repeats(l)) {
    snprintf(why, cap, "'%s' repeats an earlier value", elem);
    return -1;
  }
  (*l->n)++;
  return 0;
}

static int parse_list(const char *flag, const char *s, uint32_t lo, uint32_t hi, uint32_t *u,
                      double *d, size_t *n) {
  num_list l = {lo, hi, u, d, n};
  *n = 0;
  return each_element(flag, s, num_element, &l);
}

static int model_element(void *ctx, const char *elem, char *why, size_t cap) {
  bool *model = ctx;
  int k = bm_kind_parse(elem);
  if (k < 0) {
    snprintf(why, cap, "expected one of ornic, melo+, left, left+, got '%s'", elem);
    return -1;
  }
  if (model[k]) {
    snprintf(why, cap, "'%s' given twice", elem);
    return -1;
  }
  model[k] = true;
  return 0;
}

static int parse_models(const char *s, bool *model) {
  memset(model, 0, BM_NMODELS * sizeof *model);
  return each_element("--models", s, model_element, model);
}

static void defaults(options *o) {
  memset(o, 0, sizeof *o);
  o->exp = (exp_params){16, 20, 2048, 128, 4096, 64, 320, 7, ARR_SLIDING, false, bm_conf_default()};
  o->bitmap_bits = 320;
  o->seed = 1;
  o->seeds = 20;
  for (int k = 0; k < BM_NMODELS; k++) o->model[k] = true;
  static const uint32_t sweep[] = {64, 128, 256, 512, 768, 1024, 2048};
  o->nsweep = sizeof sweep / sizeof *sweep;
  memcpy(o->sweep, sweep, sizeof sweep);
  static const uint32_t otd[] = {16, 32, 64, 128};
  o->notd = 4;
  memcpy(o->otd, otd, sizeof otd);
  static const double diff[] = {2, 5, 10, 20, 40};
  o->ndiff = 5;
  memcpy(o->diff_us, diff, sizeof diff);
  o->spray = (spray_params){4096, 100.0, 4, 2.0, 0.0, 4096};
  o->sr_window = 1024;
  o->detectors = true;
  o->reorder_auto = true;
  o->mdd_us = OPT_DEFAULT_MDD_US;
}

static int parse_threshold(const char *a, int *out) {
  if (strcmp(a, "every") == 0) {
    *out = BM_CACHE_EVERY;
    return 0;
  }
  char why[160];
  uint64_t v;
  if (cli_parse_u64(a, 0, 1u << 20, &v, why, sizeof why) < 0) {
    return cli_usage_error(NULL, PROG, "--left-threshold: 'every' or a number: %s", why);
  }
  *out = (int)v;
  return 0;
}

/* The preset, for the conventions no flag of their own set. */
static void apply_paper(options *o) {
  if (!o->set_arrivals) o->exp.arrivals = ARR_ALIGNED;
  if (!o->set_cost) o->exp.cost_pointer = true;
  if (!o->set_threshold) o->exp.conf.left_threshold = OPT_PAPER_LEFT_THRESHOLD;
  if (!o->set_walk) o->exp.conf.leftplus_both = true;
  if (!o->set_reorder) {
    o->reorder_auto = false;
    o->exp.reorder = OPT_PAPER_REORDER;
  }
}

uint32_t options_reorder_for(const options *o, uint32_t at_once) {
  if (!o->reorder_auto) return o->exp.reorder;
  return arrivals_eq3_bound(o->mdd_us, o->spray.link_gbps, at_once, o->spray.payload_bytes);
}

unsigned options_pointer_bits(const options *o) {
  unsigned b = 1;
  while (b < 32 && (1ull << b) < o->exp.pool) b++;
  return b;
}

const char *options_cost_name(const options *o) {
  return o->exp.cost_pointer ? "pointer" : "context";
}
const char *options_walk_name(const options *o) {
  return o->exp.conf.leftplus_both ? "both" : "forward";
}

bool options_paper_conventions(const options *o) {
  return o->exp.arrivals == ARR_ALIGNED && o->exp.cost_pointer &&
         o->exp.conf.left_threshold == OPT_PAPER_LEFT_THRESHOLD && o->exp.conf.leftplus_both &&
         !o->reorder_auto && o->exp.reorder == OPT_PAPER_REORDER;
}

static int one(options *o, int c, const char *a) {
  uint32_t u = 0;
  int rc = 0;
  switch (c) {
  case O_BLOCK: rc = parse_u32("--block-bits", a, 1, 64, &o->exp.block_bits); break;
  case O_BITMAP: rc = parse_u32("--bitmap-bits", a, 1, 1u << 20, &o->bitmap_bits); break;
  case O_QPS: rc = parse_u32("--qps", a, 1, 1u << 20, &o->exp.qps); break;
  case O_ACTIVE: rc = parse_u32("--active", a, 1, 1u << 20, &o->exp.active); break;
  case O_POOL: rc = parse_u32("--pool", a, 1, 1u << 26, &o->exp.pool); break;
  case O_REORDER:
    o->reorder_auto = strcmp(a, "auto") == 0;
    if (!o->reorder_auto) rc = parse_u32("--reorder", a, 0, 1u << 20, &o->exp.reorder);
    o->set_reorder = true;
    break;
  case O_MDD: rc = parse_double("--mdd-us", a, 0, 1e6, &o->mdd_us); break;
  case O_WQE: rc = parse_u32("--wqe-pkts", a, 1, 1u << 23, &o->exp.wqe_pkts); break;
  case O_RETRY: rc = parse_u32("--retry-limit", a, 0, 255, &o->exp.retry_limit); break;
  case O_SEED: {
    char why[160];
    if (cli_parse_u64(a, 0, UINT64_MAX, &o->seed, why, sizeof why) < 0)
      rc = bad_value("--seed", why);
    break;
  }
  case O_SEEDS: rc = parse_u32("--seeds", a, 1, 100000, &u), o->seeds = u; break;
  case O_MODELS: rc = parse_models(a, o->model); break;
  case O_SWEEP:
    if (strcmp(a, "none") == 0)
      o->nsweep = 0;
    else
      rc = parse_list("--sweep", a, 1, 1u << 16, o->sweep, NULL, &o->nsweep);
    break;
  case O_OTD: rc = parse_list("--otd", a, 1, 1u << 20, o->otd, NULL, &o->notd); break;
  case O_DIFFS: rc = parse_list("--delay-diffs", a, 0, 1e6, NULL, o->diff_us, &o->ndiff); break;
  case O_PATHS: rc = parse_u32("--paths", a, 1, 1024, &u), o->spray.paths = u; break;
  case O_PAYLOAD: rc = parse_u32("--payload", a, 1, 1u << 20, &o->spray.payload_bytes); break;
  case O_GBPS: rc = parse_double("--link-gbps", a, 0.001, 1e6, &o->spray.link_gbps); break;
  case O_BASE: rc = parse_double("--base-delay-us", a, 0, 1e9, &o->spray.base_delay_us); break;
  case O_STREAM: rc = parse_u32("--stream-pkts", a, 16, 1u << 24, &o->spray.npkts); break;
  case O_RTT: rc = parse_double("--rtt-us", a, 0, 1e9, &o->rtt_us); break;
  case O_SRWIN: rc = parse_u32("--sr-window", a, 4, 1u << 24, &u), o->sr_window = u; break;
  case O_NODET: o->detectors = false; break;
  case O_JSON: o->json = true; break;
  case O_PLOT: o->plot = a; break;
  case O_ARRIVALS: {
    int k = arr_kind_parse(a);
    if (k < 0) return bad("--arrivals", a, "expected aligned or sliding");
    o->exp.arrivals = (arr_kind)k;
    o->set_arrivals = true;
    break;
  }
  case O_COST:
    if (strcmp(a, "context") && strcmp(a, "pointer"))
      return bad("--cost", a, "expected context or pointer");
    o->exp.cost_pointer = strcmp(a, "pointer") == 0;
    o->set_cost = true;
    break;
  case O_LEFT_T:
    rc = parse_threshold(a, &o->exp.conf.left_threshold);
    o->set_threshold = true;
    break;
  case O_LPWALK:
    if (strcmp(a, "both") && strcmp(a, "forward"))
      return bad("--leftplus-walk", a, "expected both or forward");
    o->exp.conf.leftplus_both = strcmp(a, "both") == 0;
    o->set_walk = true;
    break;
  case O_PAPER: o->paper = true; break;
  default: return 2;
  }
  return rc;
}

static int check(options *o) {
  char v[32];
  snprintf(v, sizeof v, "%u", o->bitmap_bits);
  if (o->bitmap_bits % o->exp.block_bits)
    return bad("--bitmap-bits", v, "not a multiple of --block-bits");
  o->exp.nslots = o->bitmap_bits / o->exp.block_bits;
  /* Only --qps QPs can receive at once when --active is larger (experiment.c). */
  o->exp.reorder = options_reorder_for(o, o->exp.active < o->exp.qps ? o->exp.active : o->exp.qps);
  snprintf(v, sizeof v, "%u", o->sr_window);
  if (o->sr_window & (o->sr_window - 1)) return bad("--sr-window", v, "not a power of two");
  if (o->detectors && o->sr_window / 2 > o->spray.npkts / 2) {
    snprintf(v, sizeof v, "%u", o->spray.npkts);
    return bad("--stream-pkts", v,
               "too short: the shift register needs sr-window/2 packets after the loss");
  }
  return 0;
}

/* -h and -V end the parse: 1 (exit 0), or 3 when stdout failed. */
static int info_option(int c) {
  if (c == 'h') usage(stdout);
  int rc = c == 'h' ? cli_help(PROG, "") : cli_version(PROG, NULL); /* help: the flush's check */
  return rc == CLI_EXIT_OK ? 1 : 3;
}

int options_parse(int argc, char **argv, options *o) {
  defaults(o);
  opterr = 0; /* the messages are libs/ornic-cli's */
  int c;
  while ((c = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
    if (c == 'h' || c == 'V') return info_option(c);
    if (c == '?' || c == ':') return cli_getopt_error(NULL, PROG, c, argv, longopts);
    int rc = one(o, c, optarg);
    if (rc) return rc;
  }
  if (optind < argc) return cli_unexpected(NULL, PROG, argv[optind]);
  if (o->paper) apply_paper(o);
  return check(o);
}
