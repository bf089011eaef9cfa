/* SPDX-License-Identifier: MIT */
/* ornic-bench: how fast libornicproto verifies iCRCs, decodes and encodes.
 *
 * Every figure is measured next to its baseline in the same run (the raw
 * CRC-32 of the same bytes for the iCRC, a hand-written reference parse for
 * decode), round-robin, several repetitions, in CPU time: the machines this
 * runs on are shared and noisy, and a ratio taken within one run survives
 * that noise far better than absolute numbers. Each figure is reported as
 * the median repetition beside the best one, so a lucky run cannot pass for
 * the typical one. Decode runs in two orders over the same frames: ring
 * order, which a branch predictor learns, and a seeded shuffle, which it
 * cannot, as in a real capture mixing many flows (docs/PERFORMANCE.md). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_frames.h"
#include "bench_ref.h"
#include "bench_timer.h"
#include "cli.h"
#include "ornic/ornic.h"

#define N_SIZES 3
#define RING_FRAMES 1024                    /* a power of two dividing BENCH_ORDER_LEN */
#define RING_SEED UINT64_C(0x4f524e4943)    /* "ORNIC" */
#define SHUFFLE_SEED UINT64_C(0x5348554646) /* "SHUFF" */
/* Targets this library is held to (docs/PERFORMANCE.md), judged on the medians. The
 * share of the reference parse is the one that carries across machines. */
#define TARGET_RATIO_4096 0.9
#define TARGET_RATIO_64 0.6
#define TARGET_DECODE_MPPS 100.0
#define TARGET_SHUFFLED_MPPS 40.0
#define TARGET_SHARE 0.6
/* Median/best spread beyond which a run is flagged as disturbed. */
#define NOISY 0.10

static const size_t size_classes[N_SIZES] = {64, 1024, 4096};

typedef struct {
  bool json;
  bool quick;
  int reps;
  double target_s; /* CPU time of one repetition */
} options;

/* One measured rate: its median repetition and its best one. */
typedef struct {
  double median, best;
} figure;

/* The codec cases, measured interleaved in this order. */
enum {
  C_DECODE,
  C_DECODE_SHUF,
  C_REF,
  C_REF_SHUF,
  C_DECODE_ICRC,
  C_ENCODE,
  C_ICRC_MIXED,
  C_RAW_MIXED,
  N_CODEC
};

typedef struct {
  const char *backend;
  size_t frame_len[N_SIZES];
  figure icrc_gbps[N_SIZES], raw_gbps[N_SIZES];
  figure codec[N_CODEC]; /* Mpps, except C_ICRC_MIXED and C_RAW_MIXED: Gb/s */
  size_t ring_min, ring_max;
  double ring_avg;
  double noise; /* largest median/best - 1 over all cases */
} results;

/* ---- kernels: the loops that are timed ---- */

typedef struct {
  const uint8_t *buf;
  size_t len;
} crc_ctx;

static uint64_t run_raw_crc(void *ctx, uint64_t iters) {
  const crc_ctx *c = ctx;
  uint64_t acc = 0;
  for (uint64_t i = 0; i < iters; i++) acc += ornic_crc32(0, c->buf, c->len);
  return acc;
}

typedef struct {
  const bench_frame *bf;
  uint64_t errors;
} icrc_ctx;

static uint64_t run_icrc_verify(void *ctx, uint64_t iters) {
  icrc_ctx *c = ctx;
  uint64_t bad = 0;
  for (uint64_t i = 0; i < iters; i++) bad += ornic_icrc_verify(&c->bf->frame, c->bf->bytes) != 0;
  c->errors += bad;
  return bad;
}

/* The decode, reference and mixed-iCRC loops: a ring and an order to visit
 * it in (ring order for the iCRC loops). */
typedef struct {
  const bench_ring *ring;
  const uint16_t *order;
  bool verify;
  uint64_t errors;
} ring_ctx;

/* Folds fields a receive path would act on, so none of them is dead. */
static uint64_t frame_digest(const ornic_frame *f) {
  return (uint64_t)f->bth.opcode + f->bth.psn + f->bth.destqp + f->payload_len + f->ext.present +
         f->udp.sport;
}

static uint64_t ref_digest(const bench_ref_pkt *r) {
  return (uint64_t)r->opcode + r->psn + r->destqp + r->payload_len + r->hdrs + r->sport;
}

static uint64_t run_decode(void *ctx, uint64_t iters) {
  ring_ctx *c = ctx;
  const bench_ring *r = c->ring;
  ornic_frame f;
  uint64_t acc = 0, bad = 0;
  for (uint64_t i = 0; i < iters; i++) {
    size_t k = c->order[i & (BENCH_ORDER_LEN - 1)];
    const uint8_t *p = bench_ring_frame(r, k);
    int rc = ornic_frame_decode(&f, p, r->len[k], ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
    if (c->verify && rc == ORNIC_OK) rc = ornic_icrc_verify(&f, p);
    bad += rc != ORNIC_OK;
    acc += frame_digest(&f);
  }
  c->errors += bad;
  return acc;
}

static uint64_t run_ref(void *ctx, uint64_t iters) {
  ring_ctx *c = ctx;
  const bench_ring *r = c->ring;
  bench_ref_pkt pkt = {0};
  uint64_t acc = 0, bad = 0;
  for (uint64_t i = 0; i < iters; i++) {
    size_t k = c->order[i & (BENCH_ORDER_LEN - 1)];
    bad += bench_ref_parse(&pkt, bench_ring_frame(r, k), r->len[k]) != 0;
    acc += ref_digest(&pkt);
  }
  c->errors += bad;
  return acc;
}

static uint64_t run_icrc_mixed(void *ctx, uint64_t iters) {
  ring_ctx *c = ctx;
  const bench_ring *r = c->ring;
  uint64_t bad = 0;
  for (uint64_t i = 0; i < iters; i++) {
    size_t k = (size_t)i & (r->count - 1);
    bad += ornic_icrc_verify(&r->decoded[k], bench_ring_frame(r, k)) != ORNIC_OK;
  }
  c->errors += bad;
  return bad;
}

static uint64_t run_raw_mixed(void *ctx, uint64_t iters) {
  ring_ctx *c = ctx;
  const bench_ring *r = c->ring;
  uint64_t acc = 0;
  for (uint64_t i = 0; i < iters; i++) {
    size_t k = (size_t)i & (r->count - 1);
    acc += ornic_crc32(0, bench_ring_frame(r, k), r->len[k]);
  }
  return acc;
}

typedef struct {
  const bench_ring *ring;
  uint64_t errors;
  uint8_t out[BENCH_SLOT];
} encode_ctx;

static uint64_t run_encode(void *ctx, uint64_t iters) {
  encode_ctx *c = ctx;
  const bench_ring *r = c->ring;
  uint64_t acc = 0, bad = 0;
  for (uint64_t i = 0; i < iters; i++) {
    ornic_ssize n = ornic_frame_encode(c->out, sizeof c->out, &r->desc[(size_t)i & (r->count - 1)]);
    if (n <= 0)
      bad++;
    else
      acc += (uint64_t)n + c->out[n - 1];
  }
  c->errors += bad;
  return acc;
}

/* ---- measurements ---- */

/* Calibrates, measures, and folds the run's spread into res->noise. */
static void run_cases(results *res, bench_case *cases, size_t n, const options *o) {
  for (size_t i = 0; i < n; i++) bench_calibrate(&cases[i], o->target_s);
  bench_measure(cases, n, o->reps);
  for (size_t i = 0; i < n; i++) {
    double spread = cases[i].median_s / cases[i].best_s - 1;
    if (spread > res->noise) res->noise = spread;
  }
}

/* Rate of `units` per iteration, in millions (Mpps) or, with 8e-3, Gb/s. */
static figure rate(const bench_case *c, double units) {
  double per_s = (double)c->iters * units / 1e6;
  return (figure){per_s / c->median_s, per_s / c->best_s};
}

static figure gbps(const bench_case *c, double bytes) { return rate(c, bytes * 8e-3); }

static int measure_icrc_size(results *res, int i, const options *o) {
  bench_frame bf;
  int rc = bench_frame_spot(&bf, size_classes[i]);
  if (rc == ORNIC_OK) {
    crc_ctx raw = {bf.bytes, bf.len};
    icrc_ctx icrc = {&bf, 0};
    bench_case cases[2] = {{.name = "raw", .run = run_raw_crc, .ctx = &raw},
                           {.name = "icrc", .run = run_icrc_verify, .ctx = &icrc}};
    run_cases(res, cases, 2, o);
    res->frame_len[i] = bf.len;
    res->raw_gbps[i] = gbps(&cases[0], (double)bf.len);
    res->icrc_gbps[i] = gbps(&cases[1], (double)bf.len);
    if (icrc.errors) rc = ORNIC_ERR_BAD_ICRC;
  }
  bench_frame_free(&bf);
  return rc;
}

/* The reference parse must accept every frame and agree with the library on
 * what it found, or the comparison would be between different work. */
static int check_reference(const bench_ring *r) {
  for (size_t k = 0; k < r->count; k++) {
    bench_ref_pkt pkt;
    if (bench_ref_parse(&pkt, bench_ring_frame(r, k), r->len[k]) != 0 ||
        ref_digest(&pkt) != frame_digest(&r->decoded[k]) || pkt.payload != r->decoded[k].payload)
      return ORNIC_ERR_MALFORMED;
  }
  return ORNIC_OK;
}

static int measure_codec(results *res, const bench_ring *ring, const uint16_t *const order[2],
                         const options *o) {
  ring_ctx ctx[N_CODEC] = {
      [C_DECODE] = {ring, order[0], false, 0},     [C_DECODE_SHUF] = {ring, order[1], false, 0},
      [C_REF] = {ring, order[0], false, 0},        [C_REF_SHUF] = {ring, order[1], false, 0},
      [C_DECODE_ICRC] = {ring, order[0], true, 0}, [C_ICRC_MIXED] = {ring, NULL, false, 0},
      [C_RAW_MIXED] = {ring, NULL, false, 0}};
  encode_ctx enc = {.ring = ring, .errors = 0};
  bench_case cases[N_CODEC] = {
      [C_DECODE] = {.name = "decode", .run = run_decode, .ctx = &ctx[C_DECODE]},
      [C_DECODE_SHUF] = {.name = "decode shuffled", .run = run_decode, .ctx = &ctx[C_DECODE_SHUF]},
      [C_REF] = {.name = "reference", .run = run_ref, .ctx = &ctx[C_REF]},
      [C_REF_SHUF] = {.name = "reference shuffled", .run = run_ref, .ctx = &ctx[C_REF_SHUF]},
      [C_DECODE_ICRC] = {.name = "decode+icrc", .run = run_decode, .ctx = &ctx[C_DECODE_ICRC]},
      [C_ENCODE] = {.name = "encode", .run = run_encode, .ctx = &enc},
      [C_ICRC_MIXED] = {.name = "icrc mixed", .run = run_icrc_mixed, .ctx = &ctx[C_ICRC_MIXED]},
      [C_RAW_MIXED] = {.name = "raw mixed", .run = run_raw_mixed, .ctx = &ctx[C_RAW_MIXED]}};
  run_cases(res, cases, N_CODEC, o);
  uint64_t errors = enc.errors;
  for (int i = 0; i < N_CODEC; i++) {
    bool crc = i == C_ICRC_MIXED || i == C_RAW_MIXED;
    res->codec[i] = crc ? gbps(&cases[i], res->ring_avg) : rate(&cases[i], 1);
    errors += ctx[i].errors;
  }
  return errors ? ORNIC_ERR_MALFORMED : ORNIC_OK;
}

static int measure_ring(results *res, const options *o) {
  bench_ring ring;
  int rc = bench_ring_build(&ring, RING_FRAMES, RING_SEED);
  const uint16_t *order[2] = {bench_order_build(RING_FRAMES, 0),
                              bench_order_build(RING_FRAMES, SHUFFLE_SEED)};
  if (rc == ORNIC_OK && (!order[0] || !order[1])) rc = ORNIC_ERR_NOBUF;
  if (rc == ORNIC_OK) rc = check_reference(&ring);
  if (rc == ORNIC_OK) {
    res->ring_min = ring.min_len;
    res->ring_max = ring.max_len;
    res->ring_avg = (double)ring.total_len / (double)ring.count;
    rc = measure_codec(res, &ring, order, o);
  }
  free((void *)order[0]);
  free((void *)order[1]);
  bench_ring_free(&ring);
  return rc;
}

static int measure_all(results *res, const options *o) {
  res->backend = ornic_crc32_backend();
  bench_ref_init();
  for (int i = 0; i < N_SIZES; i++) {
    int rc = measure_icrc_size(res, i, o);
    if (rc < 0) return rc;
  }
  return measure_ring(res, o);
}

/* ---- output ---- */

static figure ratio(figure a, figure b) { return (figure){a.median / b.median, a.best / b.best}; }

static const char *verdict(double value, double target) { return value >= target ? "ok" : "MISS"; }

static void print_target(double value, double target) {
  if (target > 0) printf("  >= %g %s", target, verdict(value, target));
  printf("\n");
}

static void print_icrc_row(const char *label, double bytes, figure icrc, figure raw,
                           double target) {
  figure q = ratio(icrc, raw);
  printf("  %-5s %6.1f B %8.2f %7.2f %8.2f %7.2f %6.2f %5.2f", label, bytes, icrc.median, icrc.best,
         raw.median, raw.best, q.median, q.best);
  print_target(q.median, target);
}

static void print_icrc_table(const results *r) {
  static const char *const labels[N_SIZES] = {"64 B", "1 KB", "4 KB"};
  static const double targets[N_SIZES] = {TARGET_RATIO_64, 0, TARGET_RATIO_4096};
  printf(
      "iCRC verify vs raw CRC-32 of the same bytes (Ethernet/IPv4/UDP RoCEv2; size classes:\n"
      "one ORNIC OOO WRITE Spot frame; mixed: the codec frames below; Gb/s of frame bytes)\n");
  printf("  %-5s %8s %8s %7s %8s %7s %6s %5s  %s\n", "class", "frame", "iCRC med", "best",
         "raw med", "best", "ratio", "best", "target (median)");
  for (int i = 0; i < N_SIZES; i++)
    print_icrc_row(labels[i], (double)r->frame_len[i], r->icrc_gbps[i], r->raw_gbps[i], targets[i]);
  print_icrc_row("mixed", r->ring_avg, r->codec[C_ICRC_MIXED], r->codec[C_RAW_MIXED], 0);
}

static void print_rate(const char *name, figure mpps, double target) {
  printf("  %-22s %8.2f %8.2f %8.1f", name, mpps.median, mpps.best, 1e3 / mpps.median);
  print_target(mpps.median, target);
}

static void print_codec(const results *r) {
  printf(
      "\nFrame codec, %d mixed frames (ORNIC Spot/FSpot/Last/ACK/NAK, RC WRITE/SEND/\n"
      "READ/ACK), %zu-%zu B, %.1f B average. Ring order: the %d frames in turn, again\n"
      "and again; shuffled: the same frames in a seeded %d-step shuffle.\n",
      RING_FRAMES, r->ring_min, r->ring_max, r->ring_avg, RING_FRAMES, BENCH_ORDER_LEN);
  printf("  %-22s %8s %8s %8s  %s\n", "Mpps", "median", "best", "ns/frame", "target (median)");
  print_rate("decode, ring order", r->codec[C_DECODE], TARGET_DECODE_MPPS);
  print_rate("decode, shuffled", r->codec[C_DECODE_SHUF], TARGET_SHUFFLED_MPPS);
  print_rate("reference, ring order", r->codec[C_REF], 0);
  print_rate("reference, shuffled", r->codec[C_REF_SHUF], 0);
  print_rate("decode + iCRC", r->codec[C_DECODE_ICRC], 0);
  print_rate("encode", r->codec[C_ENCODE], 0);
  figure ring = ratio(r->codec[C_DECODE], r->codec[C_REF]);
  figure shuf = ratio(r->codec[C_DECODE_SHUF], r->codec[C_REF_SHUF]);
  printf("library share of the reference parse (decode Mpps / reference Mpps)\n");
  printf("  %-22s %8s %8s\n", "", "median", "best");
  printf("  %-22s %8.2f %8.2f %8s", "ring order", ring.median, ring.best, "");
  print_target(ring.median, TARGET_SHARE);
  printf("  %-22s %8.2f %8.2f %8s", "shuffled", shuf.median, shuf.best, "");
  print_target(shuf.median, TARGET_SHARE);
}

static void print_text(const results *r, const options *o) {
  printf("ornic-bench %s, CRC-32 backend: %s\n", ORNIC_VERSION_STRING, r->backend);
  printf("%d interleaved runs of ~%.2f s CPU time each: median and best of them\n\n", o->reps,
         o->target_s);
  print_icrc_table(r);
  print_codec(r);
  printf("\nnoise: medians up to %.0f%% slower than the best runs%s\n", r->noise * 100,
         r->noise > NOISY ? " (a busy machine: rerun before trusting the figures)" : "");
}

/* "key": best (the meaning the key always had), "key_best", "key_median". */
static void json_figure(const char *key, figure v) {
  printf(", \"%s\": %.3f, \"%s_best\": %.3f, \"%s_median\": %.3f", key, v.best, key, v.best, key,
         v.median);
}

static void json_icrc(const results *r) {
  char key[40];
  for (int i = 0; i < N_SIZES; i++) {
    size_t s = size_classes[i];
    snprintf(key, sizeof key, "icrc_gbps_%zu", s);
    json_figure(key, r->icrc_gbps[i]);
    snprintf(key, sizeof key, "raw_crc_gbps_%zu", s);
    json_figure(key, r->raw_gbps[i]);
    snprintf(key, sizeof key, "icrc_ratio_%zu", s);
    json_figure(key, ratio(r->icrc_gbps[i], r->raw_gbps[i]));
    printf(", \"frame_bytes_%zu\": %zu", s, r->frame_len[i]);
  }
  json_figure("icrc_gbps_mixed", r->codec[C_ICRC_MIXED]);
  json_figure("raw_crc_gbps_mixed", r->codec[C_RAW_MIXED]);
  json_figure("icrc_ratio_mixed", ratio(r->codec[C_ICRC_MIXED], r->codec[C_RAW_MIXED]));
}

static void print_json(const results *r, const options *o) {
  printf("{\"crc_backend\": \"%s\", \"timer\": \"cpu\"", r->backend);
  json_icrc(r);
  json_figure("decode_mpps", r->codec[C_DECODE]);
  json_figure("decode_shuffled_mpps", r->codec[C_DECODE_SHUF]);
  json_figure("ref_mpps", r->codec[C_REF]);
  json_figure("ref_shuffled_mpps", r->codec[C_REF_SHUF]);
  json_figure("decode_share", ratio(r->codec[C_DECODE], r->codec[C_REF]));
  json_figure("decode_shuffled_share", ratio(r->codec[C_DECODE_SHUF], r->codec[C_REF_SHUF]));
  json_figure("decode_icrc_mpps", r->codec[C_DECODE_ICRC]);
  json_figure("encode_mpps", r->codec[C_ENCODE]);
  printf(
      ", \"ring_frames\": %d, \"shuffle_steps\": %d, \"ring_avg_bytes\": %.1f, \"reps\": %d"
      ", \"noise_pct\": %.1f, \"quick\": %s}\n",
      RING_FRAMES, BENCH_ORDER_LEN, r->ring_avg, o->reps, r->noise * 100,
      o->quick ? "true" : "false");
}

/* ---- command line ---- */

#define PROG "ornic-bench"

static void usage(void) {
  printf(
      "Usage: ornic-bench [--quick] [--json]\n"
      "Measures libornicproto: iCRC verify vs raw CRC-32 on 64 B, 1 KB, 4 KB and mixed\n"
      "frames; decode (in ring and shuffled order, beside a reference parse; with and\n"
      "without iCRC) and encode rates on %d mixed small frames. Median and best of\n"
      "interleaved repetitions, in CPU time.\n"
      "      --quick    short runs for CI smoke tests (under 3 s)\n"
      "      --json     one JSON object on stdout instead of the table\n"
      "  -h, --help     this text\n"
      "  -V, --version  the program's version and libornicproto's\n"
      "Exit status: 0 success; 1 a measured frame failed to encode, decode or verify;\n"
      "2 bad command line (stderr names the argument). It takes no numbers.\n",
      RING_FRAMES);
}

enum { OPT_QUICK = 256, OPT_JSON };

static const struct option long_opts[] = {{"quick", no_argument, NULL, OPT_QUICK},
                                          {"json", no_argument, NULL, OPT_JSON},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, 'V'},
                                          {NULL, 0, NULL, 0}};

/* Returns -1 to run, or the exit status: 0 after --help or --version, 2
 * after a usage error (its one line on stderr). */
static int parse_args(options *o, int argc, char **argv) {
  /* Many short repetitions rather than a few long ones: on a shared machine
   * their median is steadier and their best likelier to have caught a quiet
   * moment. */
  *o = (options){.json = false, .quick = false, .reps = 11, .target_s = 0.1};
  opterr = 0; /* the messages are libs/ornic-cli's */
  for (int c; (c = getopt_long(argc, argv, ":hV", long_opts, NULL)) != -1;) {
    if (c == 'h') {
      usage();
      return cli_help(PROG, ""); /* the flush and its check */
    }
    if (c == 'V') return cli_version(PROG, NULL);
    if (c == '?' || c == ':') return cli_getopt_error(NULL, PROG, c, argv, long_opts);
    o->json |= c == OPT_JSON;
    o->quick |= c == OPT_QUICK;
  }
  if (optind < argc) return cli_unexpected(NULL, PROG, argv[optind]);
  if (o->quick) {
    o->reps = 3;
    o->target_s = 0.01;
  }
  return -1;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_args(&o, argc, argv);
  if (rc >= 0) return rc;
  results res;
  memset(&res, 0, sizeof res);
  rc = measure_all(&res, &o);
  if (rc < 0) {
    fprintf(stderr, "ornic-bench: %s (%s)\n", ornic_strerror(rc), ornic_errname(rc));
    return 1;
  }
  if (o.json)
    print_json(&res, &o);
  else
    print_text(&res, &o);
  return 0;
}
