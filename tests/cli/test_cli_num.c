/* SPDX-License-Identifier: MIT */
/* libs/ornic-cli: the one number parser of every program. Each edge
 * is a case of its own, so a failure names the input that broke: what a
 * user types (spaces, signs, octal-looking zeros, hex, suffixes) and the
 * limits (UINT64_MAX and one past it, with and without a suffix). */
#include "../check_fast.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_num.h"

#define SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)

static char why[160];

/* s in [0, UINT64_MAX] is v; the error text stays empty. */
static void u64_ok(const char *s, uint64_t v) {
  uint64_t out = SENTINEL;
  why[0] = 0;
  ck_assert_msg(cli_parse_u64(s, 0, UINT64_MAX, &out, why, sizeof why) == 0, "'%s': %s", s, why);
  ck_assert_msg(out == v, "'%s': got %llu", s, (unsigned long long)out);
}

/* The input as a message shows it: the *_bad cases also pass NULL. */
static const char *shown(const char *s) { return s ? s : "(null)"; }

/* s is refused, *out is untouched, and the text says expected vs got. */
static void u64_bad(const char *s) {
  uint64_t out = SENTINEL;
  why[0] = 0;
  ck_assert_msg(cli_parse_u64(s, 0, UINT64_MAX, &out, why, sizeof why) == -1, "'%s' accepted",
                shown(s));
  ck_assert_msg(out == SENTINEL, "'%s': out written on failure", shown(s));
  ck_assert_msg(strncmp(why, "expected ", 9) == 0 && strstr(why, ", got '"), "'%s': why '%s'",
                shown(s), why);
}

static void size_ok(const char *s, uint64_t v) {
  uint64_t out = SENTINEL;
  why[0] = 0;
  ck_assert_msg(cli_parse_size(s, 0, UINT64_MAX, &out, why, sizeof why) == 0, "'%s': %s", s, why);
  ck_assert_msg(out == v, "'%s': got %llu", s, (unsigned long long)out);
}

static void size_bad(const char *s) {
  uint64_t out = SENTINEL;
  why[0] = 0;
  ck_assert_msg(cli_parse_size(s, 0, UINT64_MAX, &out, why, sizeof why) == -1, "'%s' accepted",
                shown(s));
  ck_assert_msg(out == SENTINEL, "'%s': out written on failure", shown(s));
  ck_assert_msg(strncmp(why, "expected ", 9) == 0 && strstr(why, ", got '"), "'%s': why '%s'",
                shown(s), why);
}

static void dbl_ok(const char *s, double v) {
  double out = -42;
  why[0] = 0;
  ck_assert_msg(cli_parse_double(s, -1e6, 1e6, &out, why, sizeof why) == 0, "'%s': %s", s, why);
  ck_assert_msg(out == v, "'%s': got %.17g", s, out);
}

static void dbl_bad(const char *s) {
  double out = -42;
  why[0] = 0;
  ck_assert_msg(cli_parse_double(s, -1e6, 1e6, &out, why, sizeof why) == -1, "'%s' accepted",
                shown(s));
  ck_assert_msg(out == -42, "'%s': out written on failure", shown(s));
  ck_assert_msg(strncmp(why, "expected ", 9) == 0 && strstr(why, ", got '"), "'%s': why '%s'",
                shown(s), why);
}

/* ---- cli_parse_u64 ---- */

START_TEST(u64_empty) { u64_bad(""); }
END_TEST

START_TEST(u64_null) { u64_bad(NULL); }
END_TEST

START_TEST(u64_zero) { u64_ok("0", 0); }
END_TEST

/* strtoull(s, 0) would read eight: every program must mean ten. */
START_TEST(u64_leading_zero_is_decimal) {
  u64_ok("010", 10);
  u64_ok("00", 0);
  u64_ok("0009", 9);
}
END_TEST

START_TEST(u64_hex_prefix_alone) {
  u64_bad("0x");
  u64_bad("0X");
}
END_TEST

START_TEST(u64_hex) {
  u64_ok("0x1F", 31);
  u64_ok("0x1f", 31);
  u64_ok("0X1F", 31);
  u64_ok("0x010", 16);
  u64_ok("0xFFFFFFFFFFFFFFFF", UINT64_MAX);
}
END_TEST

START_TEST(u64_max) { u64_ok("18446744073709551615", UINT64_MAX); }
END_TEST

START_TEST(u64_overflow) {
  u64_bad("18446744073709551616");
  u64_bad("99999999999999999999");
  u64_bad("0x10000000000000000");
  u64_bad("184467440737095516150");
}
END_TEST

START_TEST(u64_negative) { u64_bad("-1"); }
END_TEST

START_TEST(u64_plus) { u64_bad("+1"); }
END_TEST

START_TEST(u64_leading_space) {
  u64_bad(" 1");
  u64_bad("\t1");
}
END_TEST

START_TEST(u64_trailing_text) {
  u64_bad("1 ");
  u64_bad("1x");
  u64_bad("12abc");
  u64_bad("0x1g");
  u64_bad("1.0");
  u64_bad("1e3");
  u64_bad("64K"); /* suffixes are cli_parse_size's */
}
END_TEST

START_TEST(u64_not_a_number) {
  u64_bad("abc");
  u64_bad("x1");
  u64_bad("0b101");
}
END_TEST

/* The message names the range and echoes the input. */
START_TEST(u64_range) {
  uint64_t out = SENTINEL;
  ck_assert_int_eq(cli_parse_u64("0", 1, 4096, &out, why, sizeof why), -1);
  ck_assert_str_eq(why, "expected a number from 1 to 4096, got '0'");
  ck_assert_int_eq(cli_parse_u64("4097", 1, 4096, &out, why, sizeof why), -1);
  ck_assert_str_eq(why, "expected a number from 1 to 4096, got '4097'");
  ck_assert_uint_eq(out, SENTINEL);
  ck_assert_int_eq(cli_parse_u64("4096", 1, 4096, &out, why, sizeof why), 0);
  ck_assert_uint_eq(out, 4096);
  ck_assert_int_eq(cli_parse_u64("1", 1, 4096, &out, why, sizeof why), 0);
  ck_assert_uint_eq(out, 1);
}
END_TEST

/* No message buffer, or a tiny one: still a clean -1, never an overrun. */
START_TEST(u64_why_buffer) {
  uint64_t out;
  char tiny[8];
  memset(tiny, 'z', sizeof tiny);
  ck_assert_int_eq(cli_parse_u64("x", 0, 9, &out, NULL, 0), -1);
  ck_assert_int_eq(cli_parse_u64("x", 0, 9, &out, tiny, 4), -1);
  ck_assert_str_eq(tiny, "exp");
  ck_assert_int_eq(tiny[4], 'z');
}
END_TEST

/* ---- cli_parse_size ---- */

START_TEST(size_plain) {
  size_ok("0", 0);
  size_ok("010", 10);
  size_ok("4096", 4096);
  size_ok("0x1F", 31);
  size_ok("18446744073709551615", UINT64_MAX);
}
END_TEST

START_TEST(size_suffixes) {
  size_ok("64K", 65536);
  size_ok("64k", 65536);
  size_ok("1G", UINT64_C(1) << 30);
  size_ok("1GiB", UINT64_C(1) << 30);
  size_ok("1kib", 1024);
  size_ok("1KIB", 1024);
  size_ok("3M", 3u << 20);
  size_ok("2T", UINT64_C(2) << 40);
  size_ok("010K", 10240);
  size_ok("0x10K", 16384);
  size_ok("0K", 0);
}
END_TEST

START_TEST(size_bad_suffix) {
  size_bad("1KB");
  size_bad("1Ki");
  size_bad("1B");
  size_bad("1P");
  size_bad("1 K");
  size_bad("1K ");
  size_bad("1KiBs");
  size_bad("1iB");
  size_bad("K");
  size_bad("KiB");
}
END_TEST

START_TEST(size_bad_number) {
  size_bad("");
  size_bad(NULL);
  size_bad("0x");
  size_bad("0xK");
  size_bad("-1");
  size_bad("-1K");
  size_bad("+1K");
  size_bad(" 1K");
  size_bad("1.5K");
}
END_TEST

START_TEST(size_overflow) {
  size_ok("16777215T", UINT64_C(16777215) << 40);
  size_bad("16777216T"); /* 2^64 */
  size_ok("17179869183G", UINT64_C(17179869183) << 30);
  size_bad("17179869184G");
  size_bad("18446744073709551615K");
  size_bad("18446744073709551616");
  size_bad("99999999999999999999K");
}
END_TEST

/* The range applies to the value after the suffix. */
START_TEST(size_range) {
  uint64_t out = SENTINEL;
  ck_assert_int_eq(cli_parse_size("64K", 1, 65535, &out, why, sizeof why), -1);
  ck_assert_msg(strstr(why, "65535") && strstr(why, "got '64K'"), "why '%s'", why);
  ck_assert_int_eq(cli_parse_size("64K", 1, 65536, &out, why, sizeof why), 0);
  ck_assert_uint_eq(out, 65536);
  ck_assert_int_eq(cli_parse_size("0K", 1, 10, &out, why, sizeof why), -1);
}
END_TEST

/* ---- cli_parse_double ---- */

START_TEST(dbl_decimal) {
  dbl_ok("0.5", 0.5);
  dbl_ok("1e-3", 1e-3);
  dbl_ok("1E3", 1000);
  dbl_ok("0", 0);
  dbl_ok("010", 10);
  dbl_ok("100", 100);
  dbl_ok(".5", 0.5);
  dbl_ok("-1", -1); /* the range here allows it */
  dbl_ok("-0.25", -0.25);
}
END_TEST

START_TEST(dbl_not_finite) {
  dbl_bad("nan");
  dbl_bad("NaN");
  dbl_bad("-nan");
  dbl_bad("inf");
  dbl_bad("-inf");
  dbl_bad("infinity");
  dbl_bad("1e999");
  dbl_bad("-1e999");
}
END_TEST

/* "no hex": with or without a sign. */
START_TEST(dbl_hex) {
  dbl_bad("0x1p3");
  dbl_bad("0X1P3");
  dbl_bad("0x10");
  dbl_bad("-0x1p3");
  dbl_bad("-0x10");
}
END_TEST

START_TEST(dbl_malformed) {
  dbl_bad("");
  dbl_bad(NULL);
  dbl_bad(" 1");
  dbl_bad("1 ");
  dbl_bad("+1");
  dbl_bad("1e");
  dbl_bad("1.5x");
  dbl_bad("-");
  dbl_bad(".");
  dbl_bad("- 1");
  dbl_bad("1,5");
}
END_TEST

START_TEST(dbl_range) {
  double out = 7;
  ck_assert_int_eq(cli_parse_double("-1", 0, 10, &out, why, sizeof why), -1);
  ck_assert_str_eq(why, "expected a number from 0 to 10, got '-1'");
  ck_assert_int_eq(cli_parse_double("10.5", 0, 10, &out, why, sizeof why), -1);
  ck_assert_int_eq(cli_parse_double("0.0001", 0.001, 10, &out, why, sizeof why), -1);
  ck_assert(out == 7);
  ck_assert_int_eq(cli_parse_double("10", 0, 10, &out, why, sizeof why), 0);
  ck_assert(out == 10);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("cli_num");
  TCase *u = tcase_create("u64");
  tcase_add_test(u, u64_empty);
  tcase_add_test(u, u64_null);
  tcase_add_test(u, u64_zero);
  tcase_add_test(u, u64_leading_zero_is_decimal);
  tcase_add_test(u, u64_hex_prefix_alone);
  tcase_add_test(u, u64_hex);
  tcase_add_test(u, u64_max);
  tcase_add_test(u, u64_overflow);
  tcase_add_test(u, u64_negative);
  tcase_add_test(u, u64_plus);
  tcase_add_test(u, u64_leading_space);
  tcase_add_test(u, u64_trailing_text);
  tcase_add_test(u, u64_not_a_number);
  tcase_add_test(u, u64_range);
  tcase_add_test(u, u64_why_buffer);
  suite_add_tcase(s, u);
  TCase *z = tcase_create("size");
  tcase_add_test(z, size_plain);
  tcase_add_test(z, size_suffixes);
  tcase_add_test(z, size_bad_suffix);
  tcase_add_test(z, size_bad_number);
  tcase_add_test(z, size_overflow);
  tcase_add_test(z, size_range);
  suite_add_tcase(s, z);
  TCase *d = tcase_create("double");
  tcase_add_test(d, dbl_decimal);
  tcase_add_test(d, dbl_not_finite);
  tcase_add_test(d, dbl_hex);
  tcase_add_test(d, dbl_malformed);
  tcase_add_test(d, dbl_range);
  suite_add_tcase(s, d);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
