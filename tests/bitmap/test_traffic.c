/* SPDX-License-Identifier: MIT */
/* The inputs of the experiments: bounded-reordering arrival orders (a
 * sliding bound, and aligned windows) with and without loss (arrivals.c), sprayed traces (spray.c), and the two loss
 * detectors (detector.c) on traces whose answers can be worked out by hand. */
#include "../check_fast.h"
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "detector.h"
#include "spray.h"

START_TEST(arrivals_bounded_reorder) {
  for (uint64_t seed = 1; seed <= 200; seed++) {
    prng g;
    prng_seed(&g, seed, 9, 0);
    uint32_t n = 1 + prng_below(&g, 700), reorder = prng_below(&g, 130);
    bool loss = seed % 2;
    uint32_t *a = malloc(n * sizeof *a);
    uint8_t *seen = calloc(n, 1);
    int64_t lost = arrivals_make(&g, n, reorder, loss, 16, a);
    uint32_t hi = 0, fm = 0;
    for (uint32_t i = 0; i < n; i++) {
      ck_assert_uint_lt(a[i], n);
      ck_assert(!seen[a[i]]); /* a permutation */
      seen[a[i]] = 1;
      if (loss && i == n - 1) break;
      /* Never more than `reorder` PSNs out of order, nor past the first missing. */
      if (a[i] > hi) hi = a[i];
      ck_assert_uint_le(hi - a[i], reorder);
      while (fm < n && (seen[fm] || (loss && fm == (uint32_t)lost))) fm++;
      ck_assert(a[i] < fm || a[i] - fm <= reorder);
    }
    if (loss) {
      ck_assert_int_lt(lost, n < 16 ? n : 16); /* in the first block, and last */
      ck_assert_uint_eq(a[n - 1], (uint32_t)lost);
    } else {
      ck_assert_int_eq(lost, n);
    }
    free(a);
    free(seen);
  }
}
END_TEST

START_TEST(arrivals_deterministic) {
  uint32_t a[500], b[500];
  prng g, h;
  prng_seed(&g, 42, 1, 3);
  prng_seed(&h, 42, 1, 3);
  arrivals_make(&g, 500, 64, true, 16, a);
  arrivals_make(&h, 500, 64, true, 16, b);
  ck_assert_mem_eq(a, b, sizeof a);
  prng_seed(&h, 43, 1, 3);
  arrivals_make(&h, 500, 64, true, 16, b);
  ck_assert(memcmp(a, b, sizeof a) != 0);
  /* No reordering: in order. */
  arrivals_make(&h, 500, 0, false, 16, b);
  for (uint32_t i = 0; i < 500; i++) ck_assert_uint_eq(b[i], i);
}
END_TEST

/* Aligned windows: packet k arrives inside the run of arrivals of its own
 * window [W*(k/W), W*(k/W) + W): no packet ever leaves its window, the windows
 * come in order, and the order is a permutation. With the loss, the lost
 * packet of the first block comes last and every other one is at most one
 * place earlier than without it. */
START_TEST(arrivals_aligned_windows) {
  unsigned shuffled = 0, far = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    prng g;
    prng_seed(&g, seed, 11, 0);
    uint32_t n = 1 + prng_below(&g, 700);
    uint32_t w = seed % 3 ? 64 : 1 + prng_below(&g, 130);
    bool loss = seed % 2;
    uint32_t *a = malloc(n * sizeof *a);
    uint8_t *seen = calloc(n, 1);
    int64_t lost = arrivals_make_aligned(&g, n, w, loss, 16, a);
    for (uint32_t i = 0; i < n; i++) {
      ck_assert_uint_lt(a[i], n);
      ck_assert(!seen[a[i]]); /* a permutation */
      seen[a[i]] = 1;
    }
    uint32_t last = loss ? n - 1 : n, prev_win = 0;
    for (uint32_t i = 0; i < last; i++) {
      uint32_t win = a[i] / w;
      if (loss) /* one packet removed before it, or none */
        ck_assert_msg(win == i / w || win == (i + 1) / w,
                      "seed %llu: offset %u at arrival %u, window %u", (unsigned long long)seed,
                      a[i], i, w);
      else
        ck_assert_msg(win == i / w, "seed %llu: offset %u at arrival %u, window %u",
                      (unsigned long long)seed, a[i], i, w);
      ck_assert_uint_ge(win, prev_win); /* windows in order */
      prev_win = win;
      if (w == 64 && a[i] != i) shuffled++;
      if (w == 64 && !loss && (a[i] % 64 == 63) && i % 64 == 0) far++; /* 63 PSNs early */
    }
    if (loss) {
      ck_assert_int_lt(lost, n < 16 ? n : 16);
      ck_assert_uint_eq(a[n - 1], (uint32_t)lost);
    } else {
      ck_assert_int_eq(lost, n);
    }
    free(a);
    free(seen);
  }
  ck_assert_uint_gt(shuffled, 1000); /* really shuffled inside the windows */
  ck_assert_uint_gt(far, 0);         /* and as far as the window allows */
  /* Window 64, 320 packets: the paper's four 16-bit blocks per window. */
  uint32_t a[320];
  prng g;
  prng_seed(&g, 3, 11, 1);
  arrivals_make_aligned(&g, 320, 64, false, 16, a);
  for (uint32_t i = 0; i < 320; i++) ck_assert_uint_eq(a[i] / 64, i / 64);
  /* Window 0 or 1: in order. */
  arrivals_make_aligned(&g, 320, 1, false, 16, a);
  for (uint32_t i = 0; i < 320; i++) ck_assert_uint_eq(a[i], i);
  arrivals_make_aligned(&g, 320, 0, false, 16, a);
  for (uint32_t i = 0; i < 320; i++) ck_assert_uint_eq(a[i], i);
}
END_TEST

/* The sliding bound breaks the alignment (that is the difference between the
 * two readings): some packet arrives before the whole of an earlier window. */
START_TEST(arrivals_sliding_crosses_windows) {
  uint32_t a[320];
  prng g;
  prng_seed(&g, 3, 12, 0);
  arrivals_make(&g, 320, 64, false, 16, a);
  unsigned crossed = 0;
  for (uint32_t i = 0; i < 320; i++) crossed += a[i] / 64 != i / 64;
  ck_assert_uint_gt(crossed, 0);
  ck_assert_int_eq(arr_kind_parse("aligned"), ARR_ALIGNED);
  ck_assert_int_eq(arr_kind_parse("sliding"), ARR_SLIDING);
  ck_assert_int_eq(arr_kind_parse("window"), -1);
  ck_assert_str_eq(arr_kind_name(ARR_ALIGNED), "aligned");
}
END_TEST

static spray_params one_path(uint32_t npkts) {
  return (spray_params){4096, 100.0, 1, 2.0, 0.0, npkts};
}

/* --reorder auto: Eq. 3 of the ORNIC paper, OTD = MDD x B / L (section 3.3),
 * with B a QP's share of the link when `active` QPs share it. Every expected
 * value is worked by hand here, not taken from the code:
 *   MDD 20 us x 100 Gb/s = 2,000,000 bits = 250,000 B; / 4096 B = 61.04 packets
 *   for one QP alone: 62 rounded up (pcapgen's --otd auto at this fabric);
 *   128 QPs: 61.04 / 128 = 0.477 -> 1;  2048 QPs: 61.04 / 2048 = 0.0298 -> 1.
 *   MDD 40 us x 400 Gb/s = 16,000,000 bits = 2,000,000 B; / 4096 B = 488.28:
 *   1 QP 489; 128 QPs 3.81 -> 4; 2048 QPs 0.238 -> 1.
 *   Exactly 64 packets for one QP: 64 x 4096 B x 8 / 100 Gb/s = 20.97152 us;
 *   128 QPs need 128 times that MDD for 64 each: 2684.35456 us, no round-up
 *   past 64 from floating error. One path (MDD 0): in order, 0. */
START_TEST(arrivals_eq3_bound_by_hand) {
  ck_assert_uint_eq(arrivals_eq3_bound(20, 100, 1, 4096), 62);
  ck_assert_uint_eq(arrivals_eq3_bound(20, 100, 128, 4096), 1);
  ck_assert_uint_eq(arrivals_eq3_bound(20, 100, 2048, 4096), 1);
  ck_assert_uint_eq(arrivals_eq3_bound(40, 400, 1, 4096), 489);
  ck_assert_uint_eq(arrivals_eq3_bound(40, 400, 128, 4096), 4);
  ck_assert_uint_eq(arrivals_eq3_bound(40, 400, 2048, 4096), 1);
  ck_assert_uint_eq(arrivals_eq3_bound(20.97152, 100, 1, 4096), 64);
  ck_assert_uint_eq(arrivals_eq3_bound(2684.35456, 100, 128, 4096), 64);
  ck_assert_uint_eq(arrivals_eq3_bound(0, 100, 1, 4096), 0);
  ck_assert_uint_eq(arrivals_eq3_bound(20, 100, 0, 4096), 62); /* 0 QPs counts as 1 */
}
END_TEST

START_TEST(spray_one_path_in_order) {
  spray_params p = one_path(2048);
  spray_trace t = {0};
  ck_assert_int_eq(spray_make(&p, 5, &t), 0);
  ck_assert_uint_eq(t.n, 2047);
  ck_assert_uint_ge(t.lost, 512);
  ck_assert_uint_lt(t.lost, 1024);
  ck_assert_uint_eq(t.lost_index, t.lost);
  double tp = spray_pkt_time_us(&p);
  ck_assert_double_eq_tol(tp, 4178.0 * 8 / 100e3, 1e-12);
  for (uint32_t i = 0; i < t.n; i++) {
    uint32_t want = i < t.lost ? i : i + 1;
    ck_assert_uint_eq(t.pkt[i], want);
    ck_assert_double_eq_tol(t.t_us[i], 2.0 + want * tp, 1e-9);
  }
  spray_free(&t);
}
END_TEST

/* In order, one loss x: OTD declares it when x + OTD + 1 arrives, the shift
 * register (RASHPA: n arrives, n - (window/2 - 1) is checked) when
 * x + window/2 - 1 arrives; nothing else is declared. */
START_TEST(detectors_in_order) {
  spray_params p = one_path(4096);
  spray_trace t = {0};
  ck_assert_int_eq(spray_make(&p, 11, &t), 0);
  double tp = spray_pkt_time_us(&p);
  static const uint32_t otds[] = {16, 32, 64, 128};
  for (int k = 0; k < 4; k++) {
    det_result r;
    ck_assert_int_eq(det_otd(&t, p.npkts, otds[k], 10.0, tp, &r), 0);
    ck_assert(r.detected);
    ck_assert_uint_eq(t.pkt[r.index], t.lost + otds[k] + 1);
    ck_assert_double_eq_tol(det_delay_pkts(&t, &r), otds[k] + 1, 1e-9);
    ck_assert_double_eq_tol(det_delay_us(&t, &r), (otds[k] + 1) * tp, 1e-6);
    ck_assert_uint_eq(r.false_alarms, 0);
  }
  det_result r;
  ck_assert_int_eq(det_shift(&t, p.npkts, 1024, &r), 0);
  ck_assert(r.detected);
  ck_assert_uint_eq(t.pkt[r.index], t.lost + 511);
  ck_assert_double_eq_tol(det_delay_pkts(&t, &r), 511, 1e-9);
  ck_assert_uint_eq(r.false_alarms, 0);
  ck_assert_int_eq(det_shift(&t, p.npkts, 64, &r), 0);
  ck_assert_uint_eq(t.pkt[r.index], t.lost + 31);
  spray_free(&t);
}
END_TEST

/* 40 us of spread over 4 paths is about 120 packets of reordering at 100 Gb/s:
 * OTD 16 takes late packets for lost ones, OTD 256 and a 1024-bit shift
 * register do not; every detector still finds the loss. */
START_TEST(detectors_false_alarms) {
  spray_params p = {4096, 100.0, 4, 2.0, 40.0, 4096};
  double tp = spray_pkt_time_us(&p);
  for (uint64_t seed = 1; seed <= 5; seed++) {
    spray_trace t = {0};
    ck_assert_int_eq(spray_make(&p, seed, &t), 0);
    det_result small, big, sr;
    ck_assert_int_eq(det_otd(&t, p.npkts, 16, 84.0, tp, &small), 0);
    ck_assert_int_eq(det_otd(&t, p.npkts, 256, 84.0, tp, &big), 0);
    ck_assert_int_eq(det_shift(&t, p.npkts, 1024, &sr), 0);
    ck_assert_uint_gt(small.false_alarms, 10);
    ck_assert_uint_eq(big.false_alarms, 0);
    ck_assert_uint_eq(sr.false_alarms, 0);
    ck_assert(small.detected && big.detected && sr.detected);
    ck_assert_uint_ge(t.pkt[big.index], t.lost + 257);
    ck_assert_uint_ge(t.pkt[sr.index], t.lost + 511);
    spray_free(&t);
  }
}
END_TEST

/* A pending NAK silences reason 1 until ePSN passes its limit: with the
 * retransmission far away, a hand-made trace shows one NAK, not one per arrival. */
START_TEST(otd_nak_pacing) {
  enum { N = 64 };
  spray_trace t = {0};
  uint32_t pkt[N];
  double tus[N];
  t.pkt = pkt;
  t.t_us = tus;
  /* 0..9 in order; 10 lost; 12 late (after 30); the rest in order. */
  uint32_t n = 0;
  for (uint32_t i = 0; i < N; i++) {
    if (i == 10 || i == 12) continue;
    pkt[n] = i;
    tus[n] = n;
    n++;
    if (i == 30) {
      pkt[n] = 12;
      tus[n] = n;
      n++;
    }
  }
  t.n = n;
  t.lost = 10;
  t.lost_index = 10;
  t.lost_t_us = 10;
  det_result r;
  /* OTD 8: 19 arrives with 19 - 10 > 8: a NAK up to 19 - 8 = 11 declares 10
   * alone. Its retransmission never comes (RTT 1000), so ePSN stays at 10,
   * before the NAK's limit, and every later NAK is suppressed: the late 12
   * is not declared. */
  ck_assert_int_eq(det_otd(&t, N, 8, 1000.0, 1.0, &r), 0);
  ck_assert(r.detected);
  ck_assert_uint_eq(t.pkt[r.index], 19);
  ck_assert_uint_eq(r.false_alarms, 0);
  /* Retransmission 3 us after the NAK: ePSN passes the limit, then 12 is
   * more than 8 behind and gets declared though it was only late. */
  ck_assert_int_eq(det_otd(&t, N, 8, 3.0, 1.0, &r), 0);
  ck_assert_uint_eq(r.false_alarms, 1);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("bitmap_traffic");
  TCase *tc = tcase_create("traffic");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, arrivals_bounded_reorder);
  tcase_add_test(tc, arrivals_deterministic);
  tcase_add_test(tc, arrivals_aligned_windows);
  tcase_add_test(tc, arrivals_sliding_crosses_windows);
  tcase_add_test(tc, arrivals_eq3_bound_by_hand);
  tcase_add_test(tc, spray_one_path_in_order);
  tcase_add_test(tc, detectors_in_order);
  tcase_add_test(tc, detectors_false_alarms);
  tcase_add_test(tc, otd_nak_pacing);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
