/* SPDX-License-Identifier: MIT */
/* Error codes: values, names, texts, and that every code the API returns has them. */
#include <limits.h>
#include <string.h>

#include "testutil.h"

static const struct {
  int code;
  const char *name;
} codes[] = {
    {ORNIC_OK, "ORNIC_OK"},
    {ORNIC_ERR_TRUNCATED, "ORNIC_ERR_TRUNCATED"},
    {ORNIC_ERR_MALFORMED, "ORNIC_ERR_MALFORMED"},
    {ORNIC_ERR_NOT_ROCE, "ORNIC_ERR_NOT_ROCE"},
    {ORNIC_ERR_UNKNOWN_OPCODE, "ORNIC_ERR_UNKNOWN_OPCODE"},
    {ORNIC_ERR_BAD_ICRC, "ORNIC_ERR_BAD_ICRC"},
    {ORNIC_ERR_NOBUF, "ORNIC_ERR_NOBUF"},
    {ORNIC_ERR_INVALID_ARG, "ORNIC_ERR_INVALID_ARG"},
    {ORNIC_ERR_UNSUPPORTED, "ORNIC_ERR_UNSUPPORTED"},
    {ORNIC_ERR_BAD_VCRC, "ORNIC_ERR_BAD_VCRC"},
};
#define NCODES (sizeof codes / sizeof codes[0])

START_TEST(codes_are_zero_or_negative_and_distinct) {
  ck_assert_int_eq(ORNIC_OK, 0);
  for (size_t i = 0; i < NCODES; i++) {
    if (i) ck_assert_int_lt(codes[i].code, 0);
    for (size_t j = 0; j < i; j++) ck_assert_int_ne(codes[i].code, codes[j].code);
  }
}
END_TEST

START_TEST(every_code_has_its_name_and_a_distinct_text) {
  const char *unknown = ornic_strerror(-1000);
  for (size_t i = 0; i < NCODES; i++) {
    ck_assert_str_eq(ornic_errname(codes[i].code), codes[i].name);
    const char *t = ornic_strerror(codes[i].code);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_gt(strlen(t), 3);
    ck_assert_str_ne(t, unknown);
    for (size_t j = 0; j < i; j++) ck_assert_str_ne(t, ornic_strerror(codes[j].code));
  }
}
END_TEST

START_TEST(unknown_codes) {
  const int odd[] = {1, 2, 100, -10, -100, INT_MIN, INT_MAX};
  const char *u = ornic_strerror(-10);
  ck_assert_ptr_nonnull(u);
  ck_assert_uint_gt(strlen(u), 0);
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
    ck_assert_ptr_nonnull(ornic_strerror(odd[i]));
    ck_assert_str_eq(ornic_strerror(odd[i]), u);
    ck_assert_str_eq(ornic_errname(odd[i]), "ORNIC_ERR_?");
  }
}
END_TEST

/* Whatever decode returns on arbitrary bytes is a documented code with a name. */
START_TEST(decode_returns_only_known_codes) {
  tu_rng r;
  tu_seed(&r, 3);
  uint8_t buf[256];
  unsigned seen[16] = {0};
  for (int i = 0; i < 200000; i++) {
    size_t n = tu_range(&r, 0, sizeof buf);
    tu_fill(&r, buf, n);
    /* steer some inputs towards RoCE so that deeper layers are reached */
    if (n > 40 && (i & 1)) {
      buf[0] = 0x45;
      buf[9] = 17;
      buf[2] = (uint8_t)(n >> 8);
      buf[3] = (uint8_t)n;
      buf[6] = buf[7] = 0;
      buf[22] = 0x12;
      buf[23] = 0xb7;
      buf[24] = (uint8_t)((n - 20) >> 8);
      buf[25] = (uint8_t)(n - 20);
    }
    ornic_frame f;
    int rc = ornic_frame_decode(&f, buf, n, ORNIC_LINK_RAW_IP, ORNIC_ROCEV2_UDP_PORT);
    ck_assert_msg(strcmp(ornic_errname(rc), "ORNIC_ERR_?") != 0, "decode returned %d", rc);
    seen[-rc]++;
    if (rc == ORNIC_OK) {
      int v = ornic_icrc_verify(&f, buf);
      ck_assert(v == ORNIC_OK || v == ORNIC_ERR_BAD_ICRC);
    }
  }
  /* the fuzz reached every decode outcome but the clean ones */
  ck_assert_uint_gt(seen[-ORNIC_ERR_TRUNCATED], 0);
  ck_assert_uint_gt(seen[-ORNIC_ERR_MALFORMED], 0);
  ck_assert_uint_gt(seen[-ORNIC_ERR_NOT_ROCE], 0);
  ck_assert_uint_gt(seen[-ORNIC_ERR_UNKNOWN_OPCODE], 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("errors");
  TCase *tc = tu_tcase("errors");
  tcase_add_test(tc, codes_are_zero_or_negative_and_distinct);
  tcase_add_test(tc, every_code_has_its_name_and_a_distinct_text);
  tcase_add_test(tc, unknown_codes);
  tcase_add_test(tc, decode_returns_only_known_codes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
