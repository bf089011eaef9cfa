#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "ornic-bitmap-sim"

enum {
  O_BLOCK = 256, O_BITMAP, O_QPS, O_ACTIVE, O_POOL, O_REORDER, O_WQE, O_RETRY, O_SEED, O_SEEDS, O_MODELS,
  O_SWEEP, O_OTD, O_DIFFS, O_PATHS, O_PAYLOAD, O_GBPS, O_BASE, O_STREAM, O_SRWIN, O_RTT, O_NODET, O_JSON, O_PLOT,
  O_HELP
};

static const struct option longopts[] = {
    {"block-bits", 1, 0, O_BLOCK},   {"bitmap-bits", 1, 0, O_BITMAP},  {"qps", 1, 0, O_QPS},
    {"active", 1, 0, O_ACTIVE},      {"pool", 1, 0, O_POOL},           {"reorder", 1, 0, O_REORDER},
    {"wqe-pkts", 1, 0, O_WQE},       {"retry-limit", 1, 0, O_RETRY},   {"seed", 1, 0, O_SEED},
    {"seeds", 1, 0, O_SEEDS},        {"models", 1, 0, O_MODELS},       {"sweep", 1, 0, O_SWEEP},
    {"otd", 1, 0, O_OTD},            {"delay-diffs", 1, 0, O_DIFFS},   {"paths", 1, 0, O_PATHS},
    {"payload", 1, 0, O_PAYLOAD},    {"link-gbps", 1, 0, O_GBPS},      {"base-delay-us", 1, 0, O_BASE},
    {"stream-pkts", 1, 0, O_STREAM}, {"sr-window", 1, 0, O_SRWIN},     {"rtt-us", 1, 0, O_RTT},     {"no-detectors", 0, 0, O_NODET},
    {"json", 0, 0, O_JSON},          {"plot", 1, 0, O_PLOT},           {"help", 0, 0, O_HELP},
    {0, 0, 0, 0}};

static void usage(FILE *f) {
  fprintf(f,
          "Usage: " PROG " [options]\n"
          "Receive-bitmap models (ORNIC's array of blocks, MELO+, LEFT, LEFT+) measured side by side,\n"
          "and ORNIC's OTD loss detector against a RASHPA-style shift register. docs/BITMAP_MODELS.md.\n"
          "\nBitmap experiment (defaults in brackets):\n"
          "  --block-bits N      bits per pool block, 1..64 [16]\n"
          "  --bitmap-bits N     bitmap bits per QP, a multiple of --block-bits [320]\n"
          "  --qps N             QPs, one WQE each [2048]\n"
          "  --active N          QPs receiving at the same time [128]\n"
          "  --pool N            blocks in the pool shared by all QPs [4096]\n"
          "  --reorder N         most PSNs a packet arrives out of order [64]\n"
          "  --wqe-pkts N        packets per WQE [320]\n"
          "  --retry-limit N     drops of one packet (pool empty) before its WQE is aborted [7]\n"
          "  --models LIST       any of ornic,melo+,left,left+ [all four]\n"
          "  --sweep LIST        pool-exhaustion sweep: QPs at once, or 'none' [64,128,256,512,768,1024,2048]\n"
          "                      (loss scenario; --qps and --active both set to each value)\n"
          "\nLoss detectors:\n"
          "  --otd LIST          OTD values [16,32,64,128]\n"
          "  --delay-diffs LIST  fastest-to-slowest path delay differences, us [2,5,10,20,40]\n"
          "  --paths N           paths packets are sprayed on, uniformly [4]\n"
          "  --payload N         payload bytes per packet (+82 B on the wire) [4096]\n"
          "  --link-gbps X       link rate [100]\n"
          "  --base-delay-us X   delay of the fastest path [2]\n"
          "  --stream-pkts N     packets per trial; one in [N/4, N/2) is lost [4096]\n"
          "  --sr-window N       shift-register bits (power of two; checks n - N/2) [1024]\n"
          "  --rtt-us X          OTD: NAK to retransmission arrival, us; 0: 2 x mean path delay [0]\n"
          "  --no-detectors      skip the detector comparison\n"
          "\nRuns and output:\n"
          "  --seed N            first seed [1]\n"
          "  --seeds N           seeds (runs) per figure; spread is over seeds [20]\n"
          "  --json              one JSON object on stdout instead of tables\n"
          "  --plot FILE.svg     also draw the figures with gnuplot: SVG, or PNG for a .png name\n"
          "                      (FILE.gp keeps the script)\n"
          "  --help              this text\n"
          "Same flags, same output.\n");
}

static int bad(const char *flag, const char *arg, const char *why) {
  fprintf(stderr, PROG ": %s '%s': %s (see --help)\n", flag, arg, why);
  return 2;
}

static int parse_u32(const char *flag, const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-') return bad(flag, s, "not a whole number");
  if (v < lo || v > hi) {
    char why[80];
    snprintf(why, sizeof why, "must be %u..%u", lo, hi);
    return bad(flag, s, why);
  }
  *out = (uint32_t)v;
  return 0;
}

static int parse_double(const char *flag, const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= lo && v <= hi)) {
    char why[80];
    snprintf(why, sizeof why, "must be a number in %g..%g", lo, hi);
    return bad(flag, s, why);
  }
  *out = v;
  return 0;
}

/* Comma-separated list; each item through parse_u32 or parse_double. */
static int parse_list(const char *flag, const char *s, uint32_t lo, uint32_t hi, uint32_t *u, double *d,
                      size_t *n) {
  char buf[512];
  if (strlen(s) >= sizeof buf) return bad(flag, s, "list too long");
  strcpy(buf, s);
  *n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (*n == OPT_MAX_LIST) return bad(flag, s, "more than 32 values");
    int rc = u ? parse_u32(flag, tok, lo, hi, &u[*n]) : parse_double(flag, tok, lo, hi, &d[*n]);
    if (rc) return rc;
    (*n)++;
  }
  return *n ? 0 : bad(flag, s, "empty list");
}

static int parse_models(const char *s, bool *model) {
  char buf[128];
  if (strlen(s) >= sizeof buf) return bad("--models", s, "list too long");
  strcpy(buf, s);
  memset(model, 0, BM_NMODELS * sizeof *model);
  bool any = false;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int k = bm_kind_parse(tok);
    if (k < 0) return bad("--models", tok, "not one of ornic, melo+, left, left+");
    model[k] = any = true;
  }
  return any ? 0 : bad("--models", s, "empty list");
}

static void defaults(options *o) {
  memset(o, 0, sizeof *o);
  o->exp = (exp_params){16, 20, 2048, 128, 4096, 64, 320, 7};
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
  case O_REORDER: rc = parse_u32("--reorder", a, 0, 1u << 20, &o->exp.reorder); break;
  case O_WQE: rc = parse_u32("--wqe-pkts", a, 1, 1u << 23, &o->exp.wqe_pkts); break;
  case O_RETRY: rc = parse_u32("--retry-limit", a, 0, 255, &o->exp.retry_limit); break;
  case O_SEED: {
    char *end;
    errno = 0;
    o->seed = strtoull(a, &end, 10);
    if (errno || end == a || *end || a[0] == '-') rc = bad("--seed", a, "not a whole number");
    break;
  }
  case O_SEEDS: rc = parse_u32("--seeds", a, 1, 100000, &u), o->seeds = u; break;
  case O_MODELS: rc = parse_models(a, o->model); break;
  case O_SWEEP:
    if (strcmp(a, "none") == 0) o->nsweep = 0;
    else rc = parse_list("--sweep", a, 1, 1u << 16, o->sweep, NULL, &o->nsweep);
    break;
  case O_OTD: rc = parse_list("--otd", a, 1, 1u << 20, o->otd, NULL, &o->notd); break;
  case O_DIFFS: rc = parse_list("--delay-diffs", a, 0, 1e6, NULL, o->diff_us, &o->ndiff); break;
  case O_PATHS: rc = parse_u32("--paths", a, 1, 1024, &u), o->spray.paths = u; break;
  case O_PAYLOAD: rc = parse_u32("--payload", a, 1, 1u << 20, &o->spray.payload_bytes); break;
  case O_GBPS: rc = parse_double("--link-gbps", a, 0.001, 1e6, &o->spray.link_gbps); break;
  case O_BASE: rc = parse_double("--base-delay-us", a, 0, 1e9, &o->spray.base_delay_us); break;
  case O_STREAM: rc = parse_u32("--stream-pkts", a, 16, 1u << 24, &o->spray.npkts); break;
  case O_RTT: rc = parse_double("--rtt-us", a, 0, 1e9, &o->rtt_us); break;
  case O_SRWIN: rc = parse_u32("--sr-window", a, 2, 1u << 24, &u), o->sr_window = u; break;
  case O_NODET: o->detectors = false; break;
  case O_JSON: o->json = true; break;
  case O_PLOT: o->plot = a; break;
  default: return 2;
  }
  return rc;
}

static int check(options *o) {
  char v[32];
  snprintf(v, sizeof v, "%u", o->bitmap_bits);
  if (o->bitmap_bits % o->exp.block_bits) return bad("--bitmap-bits", v, "not a multiple of --block-bits");
  o->exp.nslots = o->bitmap_bits / o->exp.block_bits;
  snprintf(v, sizeof v, "%u", o->sr_window);
  if (o->sr_window & (o->sr_window - 1)) return bad("--sr-window", v, "not a power of two");
  if (o->detectors && o->sr_window / 2 > o->spray.npkts / 2) {
    snprintf(v, sizeof v, "%u", o->spray.npkts);
    return bad("--stream-pkts", v, "too short: the shift register needs sr-window/2 packets after the loss");
  }
  return 0;
}

int options_parse(int argc, char **argv, options *o) {
  defaults(o);
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    if (c == O_HELP) {
      usage(stdout);
      return 1;
    }
    if (c == '?' || c == ':') {
      const char *what = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
      fprintf(stderr, PROG ": unknown option or missing value: '%s' (see --help)\n", what);
      return 2;
    }
    int rc = one(o, c, optarg);
    if (rc) return rc;
  }
  if (optind < argc) {
    fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
    return 2;
  }
  return check(o);
}
