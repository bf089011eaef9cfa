/* SPDX-License-Identifier: MIT */
/* 24-bit PSN arithmetic (ornic/psn.h): wrap at 0xFFFFFF, the half-window at
 * 0x800000, against a reference written from the header's contract. */
#include <stdint.h>

#include "testutil.h"

/* Reference: the signed distance b - a on the 2^24 circle in (-2^23, 2^23]. */
static int32_t ref_diff(uint32_t b, uint32_t a) {
  int64_t d = ((int64_t)(b & 0xffffff) - (int64_t)(a & 0xffffff)) % 0x1000000;
  if (d < 0) d += 0x1000000;
  if (d > 0x800000) d -= 0x1000000;
  return (int32_t)d;
}

START_TEST(constants) {
  ck_assert_uint_eq(ORNIC_PSN_MASK, 0xffffff);
  ck_assert_uint_eq(ORNIC_PSN_HALF, 0x800000);
}
END_TEST

START_TEST(add_wraps_at_ffffff) {
  ck_assert_uint_eq(ornic_psn_add(0xffffff, 1), 0);
  ck_assert_uint_eq(ornic_psn_add(0xfffffe, 3), 1);
  ck_assert_uint_eq(ornic_psn_add(0, -1), 0xffffff);
  ck_assert_uint_eq(ornic_psn_add(5, -6), 0xffffff);
  ck_assert_uint_eq(ornic_psn_add(0x123, 0x1000000), 0x123);
  ck_assert_uint_eq(ornic_psn_add(0x123, -0x1000000), 0x123);
  ck_assert_uint_eq(ornic_psn_add(0x7fffff, 1), 0x800000);
  ck_assert_uint_eq(ornic_psn_add(0, INT32_MAX), (uint32_t)INT32_MAX & 0xffffff);
  ck_assert_uint_eq(ornic_psn_add(0, INT32_MIN), 0);
  /* high bits of the input do not leak out */
  ck_assert_uint_eq(ornic_psn_add(0xff000005, 1), 6);
}
END_TEST

START_TEST(diff_at_the_wrap) {
  ck_assert_int_eq(ornic_psn_diff(0, 0xffffff), 1);
  ck_assert_int_eq(ornic_psn_diff(0xffffff, 0), -1);
  ck_assert_int_eq(ornic_psn_diff(5, 0xfffffb), 10);
  ck_assert_int_eq(ornic_psn_diff(0xfffffb, 5), -10);
  ck_assert_int_eq(ornic_psn_diff(7, 7), 0);
  ck_assert_int_eq(ornic_psn_cmp(0, 0xffffff), 1);
  ck_assert_int_eq(ornic_psn_cmp(0xffffff, 0), -1);
  ck_assert_int_eq(ornic_psn_cmp(0x123456, 0x123456), 0);
  ck_assert(ornic_psn_lt(0xffffff, 0));
  ck_assert(!ornic_psn_lt(0, 0xffffff));
  ck_assert(!ornic_psn_lt(3, 3));
}
END_TEST

/* The half point: the range is (-2^23, 2^23], so exactly 2^23 apart counts as
 * "after" in both directions (documented in psn.h; ordering is not
 * antisymmetric there). One step either side it is. */
START_TEST(diff_at_the_half_point) {
  ck_assert_int_eq(ornic_psn_diff(0x800000, 0), 0x800000);
  ck_assert_int_eq(ornic_psn_diff(0, 0x800000), 0x800000);
  ck_assert_int_eq(ornic_psn_diff(0x7fffff, 0), 0x7fffff);
  ck_assert_int_eq(ornic_psn_diff(0, 0x7fffff), -0x7fffff);
  ck_assert_int_eq(ornic_psn_diff(0x800001, 0), -0x7fffff);
  ck_assert_int_eq(ornic_psn_diff(0, 0x800001), 0x7fffff);
  ck_assert_int_eq(ornic_psn_cmp(0x7fffff, 0), 1);
  ck_assert_int_eq(ornic_psn_cmp(0x800001, 0), -1);
  ck_assert_int_eq(ornic_psn_cmp(0, 0x800001), 1);
  ck_assert_int_eq(ornic_psn_cmp(0x800000, 0), 1);
  ck_assert_int_eq(ornic_psn_cmp(0xffffff, 0x7fffff), 1);
  ck_assert(ornic_psn_lt(0, 0x7fffff));
  ck_assert(!ornic_psn_lt(0x7fffff, 0));
  ck_assert(ornic_psn_lt(0x800001, 0));
}
END_TEST

START_TEST(random_against_reference) {
  tu_rng r;
  tu_seed(&r, 24);
  for (int i = 0; i < 200000; i++) {
    uint32_t a = tu_bits(&r, 24), b;
    switch (i % 4) {
    case 0: b = tu_bits(&r, 24); break;
    case 1: b = (a + tu_range(&r, 0x7ffff0, 0x800010)) & 0xffffff; break; /* near the half */
    case 2: b = (a + tu_range(&r, 0, 40) - 20) & 0xffffff; break;         /* near a */
    default:
      b = (0xfffff0 + tu_range(&r, 0, 32)) & 0xffffff;
      a = tu_range(&r, 0, 16);
      break;
    }
    int32_t d = ornic_psn_diff(b, a);
    ck_assert_msg(d == ref_diff(b, a), "diff(0x%06x, 0x%06x) = %d, want %d", b, a, d,
                  ref_diff(b, a));
    ck_assert(d > -0x800000 && d <= 0x800000);
    ck_assert_uint_eq(ornic_psn_add(a, d), b);
    int c = ornic_psn_cmp(b, a);
    ck_assert_int_eq(c, (d > 0) - (d < 0));
    ck_assert_int_eq(ornic_psn_lt(a, b), d > 0);
    if (d != 0x800000) ck_assert_int_eq(ornic_psn_cmp(a, b), -c); /* antisymmetric off the half */
    /* inputs with bits above 24 behave as their low 24 bits */
    ck_assert_int_eq(ornic_psn_diff(b | 0xab000000u, a | 0x5c000000u), d);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("psn");
  TCase *tc = tu_tcase("psn");
  tcase_add_test(tc, constants);
  tcase_add_test(tc, add_wraps_at_ffffff);
  tcase_add_test(tc, diff_at_the_wrap);
  tcase_add_test(tc, diff_at_the_half_point);
  tcase_add_test(tc, random_against_reference);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
