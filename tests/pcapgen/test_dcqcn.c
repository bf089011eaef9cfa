/* SPDX-License-Identifier: MIT */
/* DCQCN's state machines (pcapgen/sim/dcqcn.h): sequences computed by hand
 * from the paper's rules (Zhu et al., SIGCOMM 2015, section 3.1): the cut of
 * one CNP, alpha's decay over K periods, fast recovery, additive then hyper
 * increase, the rate floor, the NP's one CNP per N; then the lazy timers
 * against an event-driven reference written here (a queue of timer events,
 * popped one by one) over a random schedule of 1000 events. */
#include "../check_fast.h"
#include <math.h>
#include <stdlib.h>

#include "check_main.h"
#include "dcqcn.h"
#include "rng.h"

#define US 1000000ull /* picoseconds */
#define EPS 1e-9

/* The paper's numbers at 100 Gb/s, written out here rather than read back. */
static dcqcn_params paper_params(void) {
  dcqcn_params p;
  dcqcn_params_default(&p, 100.0);
  return p;
}

START_TEST(defaults_are_the_papers) {
  dcqcn_params p = paper_params();
  ck_assert_double_eq_tol(p.line_gbps, 100.0, EPS);
  ck_assert_double_eq_tol(p.g, 0.00390625, 1e-15); /* 1/256 */
  ck_assert_uint_eq(p.alpha_timer_ps, 55 * US);
  ck_assert_uint_eq(p.rate_timer_ps, 55 * US);
  ck_assert_uint_eq(p.byte_counter, 10000000);
  ck_assert_uint_eq(p.f, 5);
  ck_assert_double_eq_tol(p.rai_gbps, 0.04, EPS);
  ck_assert_double_eq_tol(p.rhai_gbps, 0.2, EPS);
  ck_assert_uint_eq(p.cnp_interval_ps, 50 * US);
  ck_assert(p.min_gbps > 0 && p.min_gbps < 0.01);
}
END_TEST

/* Before any CNP the flow runs at line rate, whatever the time. */
START_TEST(idle_until_first_cnp) {
  dcqcn_params p = paper_params();
  dcqcn_rp rp;
  dcqcn_rp_init(&rp, &p, 0);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 1000 * US), 100.0, EPS);
  dcqcn_rp_sent(&rp, 4096, 1000 * US);
  ck_assert_double_eq_tol(dcqcn_rp_alpha(&rp, 5000 * US), 1.0, EPS);
  /* 4096 bytes at line rate: 32768 bits / 100 Gb/s = 327.68 ns */
  ck_assert_uint_eq(dcqcn_rp_gap_ps(&rp, 4096, 5000 * US), 327680);
}
END_TEST

/* One CNP from line rate: Rt = 100, Rc = 100 (1 - 1/2) = 50, and alpha =
 * (1 - g) 1 + g = 1. The pacing gap doubles. */
START_TEST(one_cnp_halves) {
  dcqcn_params p = paper_params();
  dcqcn_rp rp;
  dcqcn_rp_init(&rp, &p, 0);
  dcqcn_rp_cnp(&rp, 10 * US);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 10 * US), 50.0, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, 10 * US), 100.0, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_alpha(&rp, 10 * US), 1.0, EPS);
  ck_assert_uint_eq(dcqcn_rp_gap_ps(&rp, 4096, 10 * US), 655360); /* 655.36 ns */
  ck_assert_uint_eq(dcqcn_rp_gap_ps(&rp, 1, 10 * US), 160);       /* 0.16 ns */
}
END_TEST

/* Alpha decays by (1 - g) each K with no CNP: 255/256 after K, (255/256)^3
 * after 3 K; an expiry exactly at the query time counts; a second CNP at
 * 3 K + 1 then cuts with that alpha: Rc' = Rc (1 - alpha/2). */
START_TEST(alpha_decays_each_k) {
  dcqcn_params p = paper_params();
  p.rate_timer_ps = 0; /* no increase: Rc moves only by the cuts */
  dcqcn_rp rp;
  dcqcn_rp_init(&rp, &p, 0);
  dcqcn_rp_cnp(&rp, 0);
  const double a1 = 255.0 / 256.0, a2 = a1 * a1, a3 = a2 * a1;
  ck_assert_double_eq_tol(dcqcn_rp_alpha(&rp, 55 * US - 1), 1.0, 1e-12);
  ck_assert_double_eq_tol(dcqcn_rp_alpha(&rp, 55 * US), a1, 1e-12);
  ck_assert_double_eq_tol(dcqcn_rp_alpha(&rp, 165 * US - 1), a2, 1e-12);
  ck_assert_double_eq_tol(dcqcn_rp_alpha(&rp, 165 * US), a3, 1e-12);
  dcqcn_rp_cnp(&rp, 165 * US + 1);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 165 * US + 1), 50.0 * (1 - a3 / 2), 1e-12);
  ck_assert_double_eq_tol(dcqcn_rp_alpha(&rp, 165 * US + 1), a3 * 255.0 / 256.0 + 1.0 / 256.0,
                          1e-12);
  /* the timer restarted at the CNP: no decay before 165 + 55 us */
  ck_assert_double_eq_tol(dcqcn_rp_alpha(&rp, 220 * US), a3 * 255.0 / 256.0 + 1.0 / 256.0, 1e-12);
}
END_TEST

/* Two CNPs 1 us apart from line rate: Rt = 50, Rc = 25 (alpha is still 1).
 * Then rate-timer events every T = 55 us: five of fast recovery, Rc halving
 * its distance to Rt = 50; the sixth and seventh additive (Rt += 0.04). */
START_TEST(fast_recovery_then_additive) {
  dcqcn_params p = paper_params();
  dcqcn_rp rp;
  dcqcn_rp_init(&rp, &p, 0);
  dcqcn_rp_cnp(&rp, 0);
  dcqcn_rp_cnp(&rp, 1 * US);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 1 * US), 25.0, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, 1 * US), 50.0, EPS);
  static const double fr[5] = {37.5, 43.75, 46.875, 48.4375, 49.21875};
  for (unsigned k = 1; k <= 5; k++) {
    uint64_t t = 1 * US + k * 55 * US;
    ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, t - 1), k == 1 ? 25.0 : fr[k - 2], EPS);
    ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, t), fr[k - 1], EPS);
    ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, t), 50.0, EPS);
  }
  /* 6th: additive. Rt = 50.04, Rc = (50.04 + 49.21875) / 2 = 49.629375 */
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 331 * US), 49.629375, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, 331 * US), 50.04, EPS);
  /* 7th: Rt = 50.08, Rc = (50.08 + 49.629375) / 2 = 49.8546875 */
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 386 * US), 49.8546875, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, 386 * US), 50.08, EPS);
}
END_TEST

/* Hyper increase needs both counters past F. A byte counter of B = 1000
 * bytes; two CNPs as above (Rt = 50, below the line rate, so that its steps
 * show; Rc = 25), then 6 timer events (5 FR, 1 AI: Rt = 50.04, Rc =
 * 49.629375, as fast_recovery_then_additive) and then 7 byte-counter events
 * in one send of 7000 bytes:
 *   BC 1..5: one counter (t_count 6) past F: additive, Rt += 0.04 each;
 *   BC 6:    both past F, i = min(6, 6) - 5 = 1: Rt += 0.2;
 *   BC 7:    i = min(6, 7) - 5 = 1 again: Rt += 0.2;
 * and the 7th timer event (t_count 7, bc_count 7): i = 2, Rt += 0.4. */
START_TEST(additive_then_hyper) {
  dcqcn_params p = paper_params();
  p.byte_counter = 1000;
  dcqcn_rp rp;
  dcqcn_rp_init(&rp, &p, 0);
  dcqcn_rp_cnp(&rp, 0);
  dcqcn_rp_cnp(&rp, 1 * US);
  uint64_t t6 = 1 * US + 6 * 55 * US;
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, t6), 49.629375, EPS);
  double rt = 50.04, rc = 49.629375;
  dcqcn_rp_sent(&rp, 7000, t6 + 1);
  for (int k = 1; k <= 7; k++) {
    rt += k <= 5 ? 0.04 : 0.2;
    rc = (rt + rc) / 2;
  }
  ck_assert_double_eq_tol(rt, 50.04 + 5 * 0.04 + 2 * 0.2, 1e-12); /* the sum, by hand */
  ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, t6 + 1), rt, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, t6 + 1), rc, EPS);
  uint64_t t7 = t6 + 55 * US;
  rt += 2 * 0.2;
  rc = (rt + rc) / 2;
  ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, t7), rt, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, t7), rc, EPS);
  /* 999 bytes more: no event; one more byte: BC 8, i = min(7, 8) - 5 = 2 */
  dcqcn_rp_sent(&rp, 999, t7 + 1);
  ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, t7 + 1), rt, EPS);
  dcqcn_rp_sent(&rp, 1, t7 + 2);
  rt += 2 * 0.2;
  rc = (rt + rc) / 2;
  ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, t7 + 2), rt, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, t7 + 2), rc, EPS);
}
END_TEST

/* Without CNPs the increases climb back to the line rate and stop there. */
START_TEST(recovers_to_line_rate) {
  dcqcn_params p = paper_params();
  dcqcn_rp rp;
  dcqcn_rp_init(&rp, &p, 0);
  dcqcn_rp_cnp(&rp, 0);
  /* Rt = 100 = line: fast recovery alone brings Rc within 100 / 2^5 */
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 275 * US), 100.0 - 50.0 / 32, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 10000000 * US), 100.0, EPS);
  ck_assert_double_eq_tol(dcqcn_rp_target_gbps(&rp, 10000000 * US), 100.0, EPS);
}
END_TEST

/* With alpha near 1, each CNP halves Rc: 100 / 2^17 < 0.001, so after 17
 * CNPs in a row (no timer in between) Rc sits at the floor, not below. */
START_TEST(floor_at_min_rate) {
  dcqcn_params p = paper_params();
  p.min_gbps = 0.001;
  dcqcn_rp rp;
  dcqcn_rp_init(&rp, &p, 0);
  for (uint64_t k = 0; k < 16; k++) dcqcn_rp_cnp(&rp, k * US);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 16 * US), 100.0 / 65536, 1e-12);
  dcqcn_rp_cnp(&rp, 16 * US);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 16 * US), 0.001, 1e-15);
  dcqcn_rp_cnp(&rp, 17 * US);
  ck_assert_double_eq_tol(dcqcn_rp_rate_gbps(&rp, 17 * US), 0.001, 1e-15);
  ck_assert_uint_eq(rp.cnps, 18);
  /* 1 byte at 1 Mb/s: 8 us */
  ck_assert_uint_eq(dcqcn_rp_gap_ps(&rp, 1, 17 * US), 8 * US);
}
END_TEST

/* The NP: CE marks at 0, 10, 49.9, 50 and 120 us -> CNPs at 0, 50, 120. */
START_TEST(np_one_cnp_per_n) {
  dcqcn_params p = paper_params();
  dcqcn_np np = {0};
  static const uint64_t ce[5] = {0, 10 * US, 49900000, 50 * US, 120 * US};
  static const bool want[5] = {true, false, false, true, true};
  for (int i = 0; i < 5; i++) ck_assert_int_eq(dcqcn_np_ce(&np, &p, ce[i]), want[i]);
  ck_assert_uint_eq(np.last_cnp_ps, 120 * US);
  /* a fresh NP answers its first CE mark whenever it comes */
  dcqcn_np np2 = {0};
  ck_assert(dcqcn_np_ce(&np2, &p, 7 * US));
  ck_assert(!dcqcn_np_ce(&np2, &p, 56999999));
  ck_assert(dcqcn_np_ce(&np2, &p, 57 * US));
}
END_TEST

/* ---- the event-driven reference ------------------------------------------
 * The algorithm as a simulator would run it with timer events: a CNP
 * schedules the alpha timer at now + K and the rate timer at now + T; an
 * expiring timer does its one update and schedules itself one period later;
 * sends count bytes and fire the byte counter each B. Before each outside
 * event, every timer event due at or before its time is popped, earliest
 * first. No lazy arithmetic, no shortcut. */
typedef struct {
  const dcqcn_params *p;
  double rc, rt, alpha;
  bool active;
  uint64_t alpha_at, rate_at, bytes;
  unsigned t, bc;
} ref_rp;

static void ref_increase(ref_rp *r) {
  unsigned f = r->p->f;
  unsigned lo = r->t < r->bc ? r->t : r->bc, hi = r->t > r->bc ? r->t : r->bc;
  if (lo > f)
    r->rt += (lo - f) * r->p->rhai_gbps;
  else if (hi > f)
    r->rt += r->p->rai_gbps;
  if (r->rt > r->p->line_gbps) r->rt = r->p->line_gbps;
  r->rc = (r->rt + r->rc) / 2;
  if (r->rc > r->p->line_gbps) r->rc = r->p->line_gbps;
}

static void ref_run_timers(ref_rp *r, uint64_t now) {
  while (r->active) {
    uint64_t next = r->alpha_at < r->rate_at ? r->alpha_at : r->rate_at;
    if (next > now) return;
    if (r->alpha_at == next) {
      r->alpha *= 1 - r->p->g;
      r->alpha_at += r->p->alpha_timer_ps;
    } else {
      r->t++;
      ref_increase(r);
      r->rate_at += r->p->rate_timer_ps;
    }
  }
}

static void ref_cnp(ref_rp *r, uint64_t now) {
  ref_run_timers(r, now);
  r->rt = r->rc;
  r->rc = r->rc * (1 - r->alpha / 2);
  if (r->rc < r->p->min_gbps) r->rc = r->p->min_gbps;
  r->alpha = (1 - r->p->g) * r->alpha + r->p->g;
  r->active = true;
  r->alpha_at = now + r->p->alpha_timer_ps;
  r->rate_at = now + r->p->rate_timer_ps;
  r->bytes = 0;
  r->t = r->bc = 0;
}

static void ref_sent(ref_rp *r, uint32_t bytes, uint64_t now) {
  ref_run_timers(r, now);
  if (!r->active) return;
  for (uint32_t b = 0; b < bytes; b++) /* byte by byte: the simplest counter */
    if (++r->bytes == r->p->byte_counter) {
      r->bytes = 0;
      r->bc++;
      ref_increase(r);
    }
}

/* A random schedule: CNPs (a fifth of the events, often a few us apart),
 * bursts of sends of 64-9000 bytes, and quiet stretches up to 2 ms in which
 * the rate recovers fully.
 * A small B (64 KB) so that the byte counter, and hyper increase, run. */
START_TEST(lazy_equals_event_driven) {
  dcqcn_params p = paper_params();
  p.byte_counter = 65536;
  rng g;
  rng_seed(&g, 31, (uint64_t)_i);
  dcqcn_rp rp;
  dcqcn_rp_init(&rp, &p, 0);
  ref_rp ref = {.p = &p, .rc = p.line_gbps, .rt = p.line_gbps, .alpha = 1.0};
  uint64_t now = 0;
  unsigned cnps = 0, hyper_seen = 0;
  for (int i = 0; i < 1000; i++) {
    unsigned kind = rng_below(&g, 20);
    uint64_t dt = kind == 0 ? rng_below(&g, 2000) * US : rng_below(&g, 20 * 1000000);
    now += dt;
    if (kind >= 1 && kind <= 3) { /* not after a quiet stretch: let the counters grow */
      dcqcn_rp_cnp(&rp, now);
      ref_cnp(&ref, now);
      cnps++;
    } else {
      uint32_t b = 64 + rng_below(&g, 9000 - 64 + 1);
      /* a burst of sends: the byte counter fires within the same instant */
      for (uint32_t k = 0, n = 1 + rng_below(&g, 40); k < n; k++) {
        dcqcn_rp_sent(&rp, b, now);
        ref_sent(&ref, b, now);
      }
    }
    ref_run_timers(&ref, now);
    if (ref.t > p.f && ref.bc > p.f) hyper_seen++;
    ck_assert_msg(fabs(dcqcn_rp_rate_gbps(&rp, now) - ref.rc) < 1e-9, "event %d: Rc %.12f vs %.12f",
                  i, rp.rc, ref.rc);
    ck_assert_msg(fabs(dcqcn_rp_target_gbps(&rp, now) - ref.rt) < 1e-9, "event %d: Rt", i);
    ck_assert_msg(fabs(dcqcn_rp_alpha(&rp, now) - ref.alpha) < 1e-9, "event %d: alpha", i);
  }
  /* the schedule did exercise what it is meant to */
  ck_assert_uint_gt(cnps, 100);
  ck_assert_uint_gt(hyper_seen, 0);
}
END_TEST

int main(void) {
  TCase *tc = tcase_create("dcqcn");
  tcase_add_test(tc, defaults_are_the_papers);
  tcase_add_test(tc, idle_until_first_cnp);
  tcase_add_test(tc, one_cnp_halves);
  tcase_add_test(tc, alpha_decays_each_k);
  tcase_add_test(tc, fast_recovery_then_additive);
  tcase_add_test(tc, additive_then_hyper);
  tcase_add_test(tc, recovers_to_line_rate);
  tcase_add_test(tc, floor_at_min_rate);
  tcase_add_test(tc, np_one_cnp_per_n);
  tcase_add_loop_test(tc, lazy_equals_event_driven, 0, 4);
  return run_tcase("dcqcn", tc);
}
