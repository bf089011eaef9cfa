/* pcapgen's small modules: event queue order and determinism, PRNG streams,
 * memory pattern and its checker, completion-time histogram, FIFO growth,
 * workload geometry, and command-line validation. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"
#include "fifo.h"
#include "options.h"
#include "pattern.h"
#include "rng.h"
#include "summary.h"
#include "workload.h"

START_TEST(evq_orders_by_time_then_push) {
  evq q;
  ck_assert_int_eq(evq_init(&q, 2), 0); /* tiny: forces growth */
  rng g;
  rng_seed(&g, 7, 0);
  enum { N = 5000 };
  for (uint32_t i = 0; i < N; i++) ck_assert_int_eq(evq_push(&q, rng_below(&g, 50), 0, i, NULL), 0);
  ev prev = {0}, e;
  for (uint32_t k = 0; k < N; k++) {
    ck_assert(evq_pop(&q, &e));
    if (k) {
      ck_assert(e.t > prev.t || (e.t == prev.t && e.arg > prev.arg)); /* ties: push order */
    }
    prev = e;
  }
  ck_assert(!evq_pop(&q, &e));
  evq_free(&q);
}
END_TEST

START_TEST(rng_streams) {
  rng a, b, c;
  rng_seed(&a, 42, 1);
  rng_seed(&b, 42, 1);
  rng_seed(&c, 42, 2);
  int same_c = 0;
  for (int i = 0; i < 1000; i++) {
    uint64_t x = rng_next(&a);
    ck_assert_uint_eq(x, rng_next(&b));
    same_c += x == rng_next(&c);
  }
  ck_assert_int_lt(same_c, 2);
  unsigned counts[7] = {0};
  for (int i = 0; i < 70000; i++) {
    uint32_t v = rng_below(&a, 7);
    ck_assert_uint_lt(v, 7);
    counts[v]++;
  }
  for (int i = 0; i < 7; i++) ck_assert(counts[i] > 9000 && counts[i] < 11000);
  double d = rng_double(&a);
  ck_assert(d >= 0 && d < 1);
}
END_TEST

START_TEST(pattern_round_trip) {
  uint8_t buf[5000], other[5000];
  pattern_fill(buf, 99, 0x7f0000001000ull, sizeof buf);
  ck_assert_uint_eq(pattern_check(buf, 99, 0x7f0000001000ull, sizeof buf), (size_t)-1);
  /* Any sub-range starting on a chunk is the same memory. */
  pattern_fill(other, 99, 0x7f0000001000ull + 1024, 3000);
  ck_assert_int_eq(memcmp(other, buf + 1024, 3000), 0);
  /* Other key or other address: different bytes. */
  pattern_fill(other, 98, 0x7f0000001000ull, 256);
  ck_assert_int_ne(memcmp(other, buf, 256), 0);
  pattern_fill(other, 99, 0x7f0000001100ull, 256);
  ck_assert_int_ne(memcmp(other, buf, 256), 0);
  buf[4321] ^= 1;
  ck_assert_uint_eq(pattern_check(buf, 99, 0x7f0000001000ull, sizeof buf), 4321);
  buf[4321] ^= 1;
  buf[4999] ^= 0x80; /* in the partial last chunk */
  ck_assert_uint_eq(pattern_check(buf, 99, 0x7f0000001000ull, sizeof buf), 4999);
  ck_assert_uint_eq(pattern_check(buf, 99, 0, 0), (size_t)-1);
}
END_TEST

START_TEST(hist_quantiles) {
  static hist h;
  memset(&h, 0, sizeof h);
  for (uint64_t v = 1; v <= 1000; v++) hist_add(&h, v * 1000000); /* 1..1000 us in ps */
  ck_assert_uint_eq(h.n, 1000);
  ck_assert_uint_eq(h.max, 1000000000ull);
  uint64_t p99 = hist_quantile(&h, 0.99);
  ck_assert(p99 >= 990000000ull && p99 <= 990000000ull * 1.02);
  ck_assert_uint_eq(hist_quantile(&h, 1.0), h.max);
  for (uint64_t v = 0; v < 128; v++) {
    static hist e;
    memset(&e, 0, sizeof e);
    hist_add(&e, v);
    ck_assert_uint_eq(hist_quantile(&e, 0.5), v); /* exact below 128 */
  }
}
END_TEST

START_TEST(fifo_grows_in_order) {
  u32fifo f = {0};
  uint32_t v;
  for (uint32_t i = 0; i < 10; i++) ck_assert_int_eq(fifo_push(&f, i), 0);
  for (uint32_t i = 0; i < 5; i++) ck_assert(fifo_pop(&f, &v) && v == i);
  for (uint32_t i = 10; i < 100; i++) ck_assert_int_eq(fifo_push(&f, i), 0); /* wraps, grows */
  for (uint32_t i = 5; i < 100; i++) ck_assert(fifo_pop(&f, &v) && v == i);
  ck_assert(!fifo_pop(&f, &v));
  fifo_free(&f);
}
END_TEST

START_TEST(workload_geometry) {
  ck_assert_uint_eq(wl_npkts(0, 256), 1);
  ck_assert_uint_eq(wl_last_len(0, 256), 0);
  ck_assert_uint_eq(wl_npkts(1001, 256), 4);
  ck_assert_uint_eq(wl_last_len(1001, 256), 233);
  ck_assert_uint_eq(wl_npkts(1u << 20, 4096), 256);
  ck_assert_uint_eq(wl_last_len(1u << 20, 4096), 4096);
  options o;
  memset(&o, 0, sizeof o);
  o.wqe_size = 1001;
  o.qps = 2;
  o.start_psn = -1;
  ck_assert_uint_eq(wl_va(&o, 1, 3) - wl_va(&o, 1, 2), 4096);
  ck_assert(wl_va_ok(1, wl_va(&o, 1, 3), 1001));
  ck_assert(!wl_va_ok(0, wl_va(&o, 1, 3), 1001));
  ck_assert_int_eq(wl_qp_index(&o, wl_resp_qpn(1), true), 1);
  ck_assert_int_eq(wl_qp_index(&o, wl_resp_qpn(2), true), -1);
  ck_assert_uint_le(wl_start_psn(&o, 0), 0xffffff);
  o.start_psn = 0xfffff0;
  ck_assert_uint_eq(wl_start_psn(&o, 1), 0xfffff0);
}
END_TEST

/* Parses a command line; returns options_parse's result. */
static int parse(options *o, const char *line) {
  char buf[512], *argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "ornic-pcapgen %s", line);
  for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  FILE *devnull = fopen("/dev/null", "w");
  int rc = options_parse(o, argc, argv, devnull);
  fclose(devnull);
  return rc;
}

START_TEST(options_accept_and_reject) {
  options o;
  ck_assert_int_eq(parse(&o, "-o x.pcap"), 0);
  ck_assert_uint_eq(o.pmtu, 4096);
  ck_assert_uint_eq(o.wqe_size, 1u << 20);
  ck_assert_uint_eq(o.paths, 4);
  ck_assert_uint_eq(o.otd, 64);
  ck_assert_uint_eq(o.ack_every, 16);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --wqe-size 64K --drop 3:17 --drop 1:2:5 --qps 2 --ack-per-wqe"), 0);
  ck_assert_uint_eq(o.wqe_size, 65536);
  ck_assert_uint_eq(o.ndrops, 2);
  ck_assert_uint_eq(o.drops[0].qp, 0);
  ck_assert_uint_eq(o.drops[0].wqe, 3);
  ck_assert_uint_eq(o.drops[0].off, 17);
  ck_assert_uint_eq(o.drops[1].qp, 1);
  ck_assert_uint_eq(o.ack_every, 0);
  options_free(&o);
  static const char *const bad[] = {
      "",                       /* no output */
      "-o x --pmtu 1000",       "-o x --loss 2",         "-o x --loss nan",
      "-o x --paths 0",         "-o x --drop 1",         "-o x --drop 1:2:3:4",
      "-o x --drop 1::2",       "-o x --drop 5:1:1",     "-o x --spray fast",
      "-o x --wqe-size 2G",     "-o x --otd 5000",       "-o x --profile roce --op read",
      "-o x --bogus",           "-o x extra",            "-o x --wqes -1",
      "-o x --rate-gbps 0",     "-o x --qps 4097",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_msg(parse(&o, bad[i]) == -1, "accepted: %s", bad[i]);
    options_free(&o);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("pcapgen_core");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, evq_orders_by_time_then_push);
  tcase_add_test(tc, rng_streams);
  tcase_add_test(tc, pattern_round_trip);
  tcase_add_test(tc, hist_quantiles);
  tcase_add_test(tc, fifo_grows_in_order);
  tcase_add_test(tc, workload_geometry);
  tcase_add_test(tc, options_accept_and_reject);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
