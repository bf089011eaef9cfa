/* SPDX-License-Identifier: MIT */
/* ornic-bench: how fast libornicproto verifies iCRCs, decodes and encodes.
 *
 * Every figure is measured next to its baseline in the same run (the raw
 * CRC-32 of the same bytes for the iCRC), round-robin, best of several
 * repetitions: the machines this runs on are shared and noisy, and a ratio
 * taken within one run survives that noise far better than absolute numbers. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench_frames.h"
#include "bench_timer.h"
#include "ornic/ornic.h"

#define N_SIZES 3
#define RING_FRAMES 1024                 /* a power of two: the ring index is a mask */
#define RING_SEED UINT64_C(0x4f524e4943) /* "ORNIC" */
/* Targets this library is held to. */
#define TARGET_RATIO_4096 0.9
#define TARGET_RATIO_64 0.6
#define TARGET_DECODE_MPPS 50.0
/* Median/best spread beyond which a run is flagged as disturbed. */
#define NOISY 0.10

static const size_t size_classes[N_SIZES] = {64, 1024, 4096};

typedef struct {
  bool json;
  bool quick;
  int reps;
  double target_s; /* wall time of one repetition */
} options;

typedef struct {
  const char *backend;
  size_t frame_len[N_SIZES];
  double icrc_gbps[N_SIZES], raw_gbps[N_SIZES];
  double decode_mpps, decode_icrc_mpps, encode_mpps;
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

typedef struct {
  const bench_ring *ring;
  bool verify;
  uint64_t errors;
} decode_ctx;

/* Folds fields a receive path would act on, so none of them is dead. */
static uint64_t frame_digest(const ornic_frame *f) {
  return (uint64_t)f->bth.opcode + f->bth.psn + f->bth.destqp + f->payload_len + f->ext.present +
         f->udp.sport;
}

static uint64_t run_decode(void *ctx, uint64_t iters) {
  decode_ctx *c = ctx;
  const bench_ring *r = c->ring;
  ornic_frame f;
  uint64_t acc = 0, bad = 0;
  for (uint64_t i = 0; i < iters; i++) {
    size_t k = (size_t)i & (r->count - 1);
    const uint8_t *p = bench_ring_frame(r, k);
    int rc = ornic_frame_decode(&f, p, r->len[k], ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
    if (c->verify && rc == ORNIC_OK) rc = ornic_icrc_verify(&f, p);
    bad += rc != ORNIC_OK;
    acc += frame_digest(&f);
  }
  c->errors += bad;
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

static double gbps(const bench_case *c, size_t bytes) {
  return (double)bytes * 8.0 * (double)c->iters / c->best_s / 1e9;
}

static double mpps(const bench_case *c) { return (double)c->iters / c->best_s / 1e6; }

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
    res->raw_gbps[i] = gbps(&cases[0], bf.len);
    res->icrc_gbps[i] = gbps(&cases[1], bf.len);
    if (icrc.errors) rc = ORNIC_ERR_BAD_ICRC;
  }
  bench_frame_free(&bf);
  return rc;
}

static int measure_codec(results *res, const bench_ring *ring, const options *o) {
  decode_ctx dec = {ring, false, 0}, dec_icrc = {ring, true, 0};
  encode_ctx enc = {.ring = ring, .errors = 0};
  bench_case cases[3] = {{.name = "decode", .run = run_decode, .ctx = &dec},
                         {.name = "decode+icrc", .run = run_decode, .ctx = &dec_icrc},
                         {.name = "encode", .run = run_encode, .ctx = &enc}};
  run_cases(res, cases, 3, o);
  res->decode_mpps = mpps(&cases[0]);
  res->decode_icrc_mpps = mpps(&cases[1]);
  res->encode_mpps = mpps(&cases[2]);
  return dec.errors || dec_icrc.errors || enc.errors ? ORNIC_ERR_MALFORMED : ORNIC_OK;
}

static int measure_all(results *res, const options *o) {
  res->backend = ornic_crc32_backend();
  for (int i = 0; i < N_SIZES; i++) {
    int rc = measure_icrc_size(res, i, o);
    if (rc < 0) return rc;
  }
  bench_ring ring;
  int rc = bench_ring_build(&ring, RING_FRAMES, RING_SEED);
  if (rc == ORNIC_OK) {
    res->ring_min = ring.min_len;
    res->ring_max = ring.max_len;
    res->ring_avg = (double)ring.total_len / (double)ring.count;
    rc = measure_codec(res, &ring, o);
  }
  bench_ring_free(&ring);
  return rc;
}

/* ---- output ---- */

static const char *verdict(double value, double target) { return value >= target ? "ok" : "MISS"; }

static void print_icrc_table(const results *r) {
  static const char *const labels[N_SIZES] = {"64 B", "1 KB", "4 KB"};
  static const double targets[N_SIZES] = {TARGET_RATIO_64, 0, TARGET_RATIO_4096};
  printf(
      "iCRC verify vs raw CRC-32 of the same bytes (Ethernet/IPv4/UDP RoCEv2,\n"
      "ORNIC OOO WRITE Spot; Gb/s of frame bytes)\n");
  printf("  %-5s %7s %10s %10s %6s  %s\n", "class", "frame", "iCRC Gb/s", "raw Gb/s", "ratio",
         "target");
  for (int i = 0; i < N_SIZES; i++) {
    double ratio = r->icrc_gbps[i] / r->raw_gbps[i];
    printf("  %-5s %5zu B %10.2f %10.2f %6.2f", labels[i], r->frame_len[i], r->icrc_gbps[i],
           r->raw_gbps[i], ratio);
    if (targets[i] > 0) printf("  >= %.2f %s", targets[i], verdict(ratio, targets[i]));
    printf("\n");
  }
}

static void print_rate(const char *name, double mpps, double target) {
  printf("  %-14s %8.2f Mpps %7.1f ns/frame", name, mpps, 1e3 / mpps);
  if (target > 0) printf("  >= %.0f %s", target, verdict(mpps, target));
  printf("\n");
}

static void print_text(const results *r, const options *o) {
  printf("ornic-bench %s, CRC-32 backend: %s\n", ORNIC_VERSION_STRING, r->backend);
  printf("best of %d interleaved runs of ~%.2f s each\n\n", o->reps, o->target_s);
  print_icrc_table(r);
  printf(
      "\nFrame codec, %d mixed frames (ORNIC Spot/FSpot/Last/ACK/NAK, RC WRITE/SEND/\n"
      "READ/ACK), %zu-%zu B, %.1f B average\n",
      RING_FRAMES, r->ring_min, r->ring_max, r->ring_avg);
  print_rate("decode", r->decode_mpps, TARGET_DECODE_MPPS);
  print_rate("decode + iCRC", r->decode_icrc_mpps, 0);
  print_rate("encode", r->encode_mpps, 0);
  printf("\nnoise: medians up to %.0f%% slower than the best runs%s\n", r->noise * 100,
         r->noise > NOISY ? " (a busy machine: rerun before trusting the figures)" : "");
}

static void print_json(const results *r, const options *o) {
  printf("{\"crc_backend\": \"%s\"", r->backend);
  for (int i = 0; i < N_SIZES; i++) {
    size_t s = size_classes[i];
    printf(
        ", \"icrc_gbps_%zu\": %.3f, \"raw_crc_gbps_%zu\": %.3f, \"icrc_ratio_%zu\": %.3f"
        ", \"frame_bytes_%zu\": %zu",
        s, r->icrc_gbps[i], s, r->raw_gbps[i], s, r->icrc_gbps[i] / r->raw_gbps[i], s,
        r->frame_len[i]);
  }
  printf(", \"decode_mpps\": %.3f, \"decode_icrc_mpps\": %.3f, \"encode_mpps\": %.3f",
         r->decode_mpps, r->decode_icrc_mpps, r->encode_mpps);
  printf(
      ", \"ring_frames\": %d, \"ring_avg_bytes\": %.1f, \"reps\": %d, \"noise_pct\": %.1f"
      ", \"quick\": %s}\n",
      RING_FRAMES, r->ring_avg, o->reps, r->noise * 100, o->quick ? "true" : "false");
}

/* ---- command line ---- */

static void usage(FILE *out) {
  fprintf(out,
          "usage: ornic-bench [--quick] [--json]\n"
          "Measures libornicproto: iCRC verify vs raw CRC-32 on 64 B, 1 KB and 4 KB frames,\n"
          "decode (with and without iCRC) and encode rates on %d mixed small frames.\n"
          "  --quick  short runs for CI smoke tests (under 3 s)\n"
          "  --json   one JSON object on stdout instead of the table\n"
          "  --help   this text\n"
          "Exit status: 0 success; 1 a measured frame failed to encode, decode or verify;\n"
          "2 bad command line (stderr names the argument). It takes no numbers.\n",
          RING_FRAMES);
}

/* Returns -1 to exit successfully (--help), 1 on a usage error, 0 to run. */
static int parse_args(options *o, int argc, char **argv) {
  /* Many short repetitions rather than a few long ones: on a shared machine
   * the best of them is likelier to have caught a quiet moment. */
  *o = (options){.json = false, .quick = false, .reps = 11, .target_s = 0.1};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      o->json = true;
    else if (!strcmp(argv[i], "--quick"))
      o->quick = true;
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
      return -1;
    else {
      fprintf(stderr, "ornic-bench: unknown argument '%s'\n", argv[i]);
      return 1;
    }
  }
  if (o->quick) {
    o->reps = 3;
    o->target_s = 0.01;
  }
  return 0;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_args(&o, argc, argv);
  if (rc) {
    usage(rc < 0 ? stdout : stderr);
    return rc < 0 ? 0 : 2;
  }
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
