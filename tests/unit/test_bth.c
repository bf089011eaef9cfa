/* SPDX-License-Identifier: MIT */
/* ornic_bth_decode / ornic_bth_encode (docs/IBA_NOTES.md section 2 masks). */
#include <string.h>

#include "testutil.h"

/* Every field distinct and non-zero, reserved bits set:
 * opcode 0x0a | SE M PadCnt=3 TVer=5 | P_Key 0x1234 | F B resv6=5 | DestQP abcdef
 * | A resv7=1 | PSN 000001 */
static const uint8_t kat_bytes[12] = {0x0a, 0xf5, 0x12, 0x34, 0xc5, 0xab,
                                      0xcd, 0xef, 0x81, 0x00, 0x00, 0x01};
static const ornic_bth kat = {.opcode = 0x0a,
                              .se = 1,
                              .m = 1,
                              .padcnt = 3,
                              .tver = 5,
                              .pkey = 0x1234,
                              .fecn = 1,
                              .becn = 1,
                              .resv6 = 5,
                              .destqp = 0xabcdef,
                              .ackreq = 1,
                              .resv7 = 1,
                              .psn = 1};

START_TEST(known_answer_decode) {
  ornic_bth b;
  memset(&b, 0xee, sizeof b);
  ck_assert_int_eq(ornic_bth_decode(&b, kat_bytes, sizeof kat_bytes), ORNIC_BTH_LEN);
  tu_assert_bth_eq(&kat, &b, true, "known answer");
  /* a longer input: still 12 consumed */
  uint8_t longer[40] = {0};
  memcpy(longer, kat_bytes, 12);
  ck_assert_int_eq(ornic_bth_decode(&b, longer, sizeof longer), ORNIC_BTH_LEN);
  tu_assert_bth_eq(&kat, &b, true, "known answer, longer input");
}
END_TEST

START_TEST(known_answer_encode) {
  uint8_t out[16];
  memset(out, 0xee, sizeof out);
  ck_assert_int_eq(ornic_bth_encode(out, sizeof out, &kat), ORNIC_BTH_LEN);
  ck_assert_mem_eq(out, kat_bytes, 12);
  ck_assert_uint_eq(out[12], 0xee); /* nothing past the header */
}
END_TEST

START_TEST(all_zero_and_all_one) {
  uint8_t z[12] = {0}, o[12];
  memset(o, 0xff, sizeof o);
  ornic_bth b;
  ck_assert_int_eq(ornic_bth_decode(&b, z, 12), 12);
  ornic_bth zero = {0};
  tu_assert_bth_eq(&zero, &b, true, "zeros");
  ck_assert_int_eq(ornic_bth_decode(&b, o, 12), 12);
  ornic_bth ones = {.opcode = 0xff,
                    .se = 1,
                    .m = 1,
                    .padcnt = 3,
                    .tver = 15,
                    .pkey = 0xffff,
                    .fecn = 1,
                    .becn = 1,
                    .resv6 = 0x3f,
                    .destqp = 0xffffff,
                    .ackreq = 1,
                    .resv7 = 0x7f,
                    .psn = 0xffffff};
  tu_assert_bth_eq(&ones, &b, true, "ones");
}
END_TEST

/* Bytes 1, 4 and 8 hold bit fields: every value of each decodes per the masks
 * and re-encodes to itself. */
START_TEST(every_bitfield_byte_value) {
  for (unsigned v = 0; v < 256; v++) {
    uint8_t in[12] = {0x04, 0, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 2}, out[12];
    ornic_bth b;
    in[1] = (uint8_t)v;
    in[4] = (uint8_t)(v ^ 0x5a);
    in[8] = (uint8_t)(v ^ 0xa5);
    ck_assert_int_eq(ornic_bth_decode(&b, in, 12), 12);
    ck_assert_uint_eq(b.se, (v & 0x80) >> 7);
    ck_assert_uint_eq(b.m, (v & 0x40) >> 6);
    ck_assert_uint_eq(b.padcnt, (v & 0x30) >> 4);
    ck_assert_uint_eq(b.tver, v & 0x0f);
    ck_assert_uint_eq(b.fecn, ((v ^ 0x5a) & 0x80) >> 7);
    ck_assert_uint_eq(b.becn, ((v ^ 0x5a) & 0x40) >> 6);
    ck_assert_uint_eq(b.resv6, (v ^ 0x5a) & 0x3f);
    ck_assert_uint_eq(b.ackreq, ((v ^ 0xa5) & 0x80) >> 7);
    ck_assert_uint_eq(b.resv7, (v ^ 0xa5) & 0x7f);
    ck_assert_uint_eq(b.destqp, 1);
    ck_assert_uint_eq(b.psn, 2);
    ck_assert_int_eq(ornic_bth_encode(out, sizeof out, &b), 12);
    ck_assert_mem_eq(in, out, 12);
  }
}
END_TEST

/* decode then encode reproduces any 12 bytes (reserved bits are kept). */
START_TEST(random_bytes_round_trip) {
  tu_rng r;
  tu_seed(&r, 1);
  for (int i = 0; i < 20000; i++) {
    uint8_t in[12], out[12];
    ornic_bth b;
    tu_fill(&r, in, sizeof in);
    ck_assert_int_eq(ornic_bth_decode(&b, in, 12), 12);
    ck_assert_uint_eq(b.opcode, in[0]);
    ck_assert_uint_eq(b.pkey, (unsigned)in[2] << 8 | in[3]);
    ck_assert_uint_eq(b.destqp, (uint32_t)in[5] << 16 | (uint32_t)in[6] << 8 | in[7]);
    ck_assert_uint_eq(b.psn, (uint32_t)in[9] << 16 | (uint32_t)in[10] << 8 | in[11]);
    ck_assert_int_eq(ornic_bth_encode(out, sizeof out, &b), 12);
    ck_assert_mem_eq(in, out, 12);
  }
}
END_TEST

START_TEST(truncated_and_guard_page) {
  tu_guard g;
  tu_guard_init(&g);
  for (size_t n = 0; n <= 12; n++) {
    ornic_bth b;
    uint8_t *p = tu_guard_tail(&g, kat_bytes, n);
    ck_assert_int_eq(ornic_bth_decode(&b, p, n), n < 12 ? ORNIC_ERR_TRUNCATED : 12);
  }
  /* encode: cap bytes end at the unwritable page */
  for (size_t cap = 0; cap <= 12; cap++) {
    uint8_t *p = g.base + g.page - cap;
    ck_assert_int_eq(ornic_bth_encode(p, cap, &kat), cap < 12 ? ORNIC_ERR_NOBUF : 12);
  }
  ck_assert_mem_eq(g.base + g.page - 12, kat_bytes, 12);
  tu_guard_free(&g);
}
END_TEST

START_TEST(encode_rejects_out_of_range_fields) {
  uint8_t out[12];
#define BAD(field, value)                                                         \
  do {                                                                            \
    ornic_bth b = kat;                                                            \
    b.field = value;                                                              \
    ck_assert_msg(ornic_bth_encode(out, sizeof out, &b) == ORNIC_ERR_INVALID_ARG, \
                  #field " = " #value);                                           \
  } while (0)
  BAD(se, 2);
  BAD(m, 2);
  BAD(padcnt, 4);
  BAD(tver, 16);
  BAD(fecn, 2);
  BAD(becn, 2);
  BAD(resv6, 0x40);
  BAD(destqp, 0x1000000);
  BAD(ackreq, 2);
  BAD(resv7, 0x80);
  BAD(psn, 0x1000000);
  BAD(psn, 0xffffffffu);
#undef BAD
  /* the largest legal values are fine */
  ornic_bth b = {.opcode = 0xff,
                 .se = 1,
                 .m = 1,
                 .padcnt = 3,
                 .tver = 15,
                 .pkey = 0xffff,
                 .fecn = 1,
                 .becn = 1,
                 .resv6 = 0x3f,
                 .destqp = 0xffffff,
                 .ackreq = 1,
                 .resv7 = 0x7f,
                 .psn = 0xffffff};
  ck_assert_int_eq(ornic_bth_encode(out, sizeof out, &b), 12);
  uint8_t ones[12];
  memset(ones, 0xff, sizeof ones);
  ck_assert_mem_eq(out, ones, 12);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("bth");
  TCase *tc = tu_tcase("bth");
  tcase_add_test(tc, known_answer_decode);
  tcase_add_test(tc, known_answer_encode);
  tcase_add_test(tc, all_zero_and_all_one);
  tcase_add_test(tc, every_bitfield_byte_value);
  tcase_add_test(tc, random_bytes_round_trip);
  tcase_add_test(tc, truncated_and_guard_page);
  tcase_add_test(tc, encode_rejects_out_of_range_fields);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
