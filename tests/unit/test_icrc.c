/* SPDX-License-Identifier: MIT */
/* ornic_crc32 (against a bitwise CRC-32 and zlib) and the iCRC (against the
 * test's own reference implementation of docs/IBA_NOTES.md section 5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "testutil.h"

#ifndef ORNIC_EXPECTED_CRC_BACKEND
#define ORNIC_EXPECTED_CRC_BACKEND "unknown"
#endif

static uint32_t zcrc(uint32_t crc, const uint8_t *p, size_t n) {
  return (uint32_t)crc32(crc, p, (uInt)n);
}

/* ---------------------------------------------------------------- CRC-32 */

START_TEST(crc32_check_values) {
  /* The CRC-32/ISO-HDLC check value of "123456789". */
  ck_assert_uint_eq(ornic_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
  ck_assert_uint_eq(tu_crc32_bitwise(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
  /* zlib's convention: empty input leaves the CRC alone, NULL is fine. */
  ck_assert_uint_eq(ornic_crc32(0, NULL, 0), 0);
  ck_assert_uint_eq(ornic_crc32(0x12345678u, NULL, 0), 0x12345678u);
  ck_assert_uint_eq(ornic_crc32(0xdeadbeefu, (const uint8_t *)"x", 0), 0xdeadbeefu);
  /* The masked LRH every iCRC starts with (docs/IBA_NOTES.md 5.1: state 0xdebb20e3). */
  static const uint8_t ff8[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  ck_assert_uint_eq(ornic_crc32(0, ff8, 8), 0x2144df1cu);
  ck_assert_uint_eq(~ornic_crc32(0, ff8, 8), 0xdebb20e3u);
}
END_TEST

START_TEST(crc32_backend_is_the_configured_one) {
  const char *b = ornic_crc32_backend();
  ck_assert_ptr_nonnull(b);
  ck_assert_msg(strcmp(b, "isa-l") == 0 || strcmp(b, "zlib") == 0, "backend %s", b);
  ck_assert_str_eq(b, ORNIC_EXPECTED_CRC_BACKEND);
}
END_TEST

/* Every length 0..5000, at several alignments: the library equals the bitwise
 * reference and zlib. (If the backend is ISA-L this shows ISA-L == zlib.) */
START_TEST(crc32_every_length_and_alignment) {
  enum { MAXLEN = 5000 };
  static uint8_t buf[MAXLEN + 64];
  tu_rng r;
  tu_seed(&r, 0xC4C32);
  tu_fill(&r, buf, sizeof buf);
  static const size_t aligns[] = {0, 1, 2, 3, 5, 7, 8, 15, 16, 33};
  for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++) {
    const uint8_t *p = buf + aligns[a];
    uint32_t ref = 0; /* bitwise CRC of p[0..len), extended one byte at a time */
    for (size_t len = 0; len <= MAXLEN; len++) {
      if (len) ref = tu_crc32_bitwise(ref, p + len - 1, 1);
      uint32_t got = ornic_crc32(0, p, len);
      ck_assert_msg(got == ref, "align %zu len %zu: ornic 0x%08x, bitwise 0x%08x", aligns[a], len,
                    got, ref);
      ck_assert_msg(got == zcrc(0, p, len), "align %zu len %zu: ornic != zlib", aligns[a], len);
    }
  }
}
END_TEST

START_TEST(crc32_chained_calls) {
  enum { MAXLEN = 5000 };
  static uint8_t buf[MAXLEN];
  tu_rng r;
  tu_seed(&r, 77);
  for (unsigned it = 0; it < 3000; it++) {
    size_t len = tu_range(&r, 0, MAXLEN);
    tu_fill(&r, buf, len);
    uint32_t init = it % 3 == 0 ? 0 : tu_bits(&r, 32);
    uint32_t whole = ornic_crc32(init, buf, len);
    ck_assert_uint_eq(whole, tu_crc32_bitwise(init, buf, len));
    ck_assert_uint_eq(whole, zcrc(init, buf, len));
    /* the same bytes in up to 12 random pieces, mixing the three implementations */
    uint32_t c = init;
    size_t off = 0;
    unsigned pieces = tu_range(&r, 1, 12);
    for (unsigned k = 0; k < pieces; k++) {
      size_t n = k + 1 == pieces ? len - off : tu_range(&r, 0, (uint32_t)(len - off));
      switch (k % 3) {
      case 0: c = ornic_crc32(c, buf + off, n); break;
      case 1: c = zcrc(c, buf + off, n); break;
      default: c = tu_crc32_bitwise(c, buf + off, n); break;
      }
      off += n;
    }
    ck_assert_msg(c == whole, "len %zu in %u pieces", len, pieces);
    /* ornic alone, chained */
    c = init;
    off = 0;
    while (off < len) {
      size_t n = tu_range(&r, 0, (uint32_t)(len - off));
      c = ornic_crc32(c, buf + off, n);
      off += n;
    }
    ck_assert_uint_eq(c, whole);
  }
}
END_TEST

START_TEST(crc32_large_buffer) {
  size_t n = (size_t)8 << 20;
  uint8_t *p = malloc(n);
  ck_assert_ptr_nonnull(p);
  tu_rng r;
  tu_seed(&r, 5);
  tu_fill(&r, p, n);
  ck_assert_uint_eq(ornic_crc32(0, p, n), zcrc(0, p, n));
  ck_assert_uint_eq(ornic_crc32(0xffffffffu, p + 3, n - 3), zcrc(0xffffffffu, p + 3, n - 3));
  free(p);
}
END_TEST

/* ---------------------------------------------------------------- iCRC */

#define BUF 2048

static size_t make(uint8_t *buf, ornic_frame *want, tu_store *st, tu_rng *r, uint8_t op,
                   const tu_variant *v, size_t paylen) {
  if (!(ornic_opcode_info_get(op)->flags & ORNIC_OPF_PAYLOAD)) paylen = 0;
  tu_random_frame(want, st, r, op, v, paylen);
  if (op == ORNIC_OP_NAK) want->ext.naketh.nblocks = (uint8_t)tu_range(r, 1, 6);
  return tu_encode(want, buf, BUF);
}

static int kind_of(const tu_variant *v) {
  return v->link == ORNIC_LINK_GRH ? ORNIC_L3_GRH : v->ipv;
}

/* The library's iCRC equals the reference on random frames of every opcode
 * and encapsulation, and stays valid whatever the variant fields hold. */
START_TEST(icrc_matches_reference_and_ignores_variant_fields) {
  static uint8_t buf[BUF];
  tu_rng r;
  tu_seed(&r, 99);
  for (unsigned op = 0; op < 256; op++) {
    if (!ornic_opcode_info_get((uint8_t)op)->name) continue;
    for (size_t vi = 0; vi < tu_nvariants; vi++) {
      const tu_variant *v = &tu_variants[vi];
      ornic_frame want, f;
      tu_store st;
      size_t n = make(buf, &want, &st, &r, (uint8_t)op, v, tu_range(&r, 0, 40));
      ck_assert_int_eq(ornic_frame_decode(&f, buf, n, v->link, ORNIC_ROCEV2_UDP_PORT), ORNIC_OK);
      uint32_t c;
      ck_assert_int_eq(ornic_icrc_compute(&f, buf, &c), ORNIC_OK);
      ck_assert_uint_eq(c, tu_ref_icrc(buf + f.l3_off, kind_of(v), n - f.l3_off));
      /* scribble over every variant field */
      for (int rep = 0; rep < 4; rep++) {
        uint8_t *l3 = buf + f.l3_off;
        if (kind_of(v) == 4) {
          l3[1] = (uint8_t)tu_next(&r);
          l3[8] = (uint8_t)tu_next(&r);
          l3[10] = (uint8_t)tu_next(&r);
          l3[11] = (uint8_t)tu_next(&r);
        } else {
          l3[0] = (uint8_t)(0x60 | (tu_next(&r) & 0x0f));
          l3[1] = (uint8_t)tu_next(&r);
          l3[2] = (uint8_t)tu_next(&r);
          l3[3] = (uint8_t)tu_next(&r);
          l3[7] = (uint8_t)tu_next(&r);
        }
        if (kind_of(v) != ORNIC_L3_GRH) {
          buf[f.l4_off + 6] = (uint8_t)tu_next(&r);
          buf[f.l4_off + 7] = (uint8_t)tu_next(&r);
        }
        buf[f.bth_off + 4] = (uint8_t)tu_next(&r);
        if (v->link == ORNIC_LINK_ETHERNET) tu_fill(&r, buf, 12);
        ornic_frame g;
        ck_assert_int_eq(ornic_frame_decode(&g, buf, n, v->link, ORNIC_ROCEV2_UDP_PORT), ORNIC_OK);
        ck_assert_msg(ornic_icrc_verify(&g, buf) == ORNIC_OK,
                      "opcode 0x%02x over %s: variant fields", op, tu_variant_name(v));
      }
    }
  }
}
END_TEST

/* Flip each byte of frames in turn: variant bytes keep the iCRC valid; every
 * other byte gives BAD_ICRC or a decode error. */
static int is_variant(const ornic_frame *f, size_t i, uint8_t mask) {
  if (f->link == ORNIC_LINK_ETHERNET && i < 12) return 1; /* MAC addresses */
  if (f->eth.has_vlan && f->link == ORNIC_LINK_ETHERNET && (i == 14 || i == 15)) return 1; /* TCI */
  if (i < f->l3_off) return 0;
  size_t r = i - f->l3_off;
  if (f->l3 == ORNIC_L3_IPV4) {
    if (r == 1 || r == 8 || r == 10 || r == 11) return 1;
  } else {
    if (r == 0) return (mask & 0xf0) == 0;
    if (r == 1 || r == 2 || r == 3 || r == 7) return 1;
  }
  if (f->l3 != ORNIC_L3_GRH && (i == f->l4_off + 6 || i == f->l4_off + 7)) return 1;
  return i == f->bth_off + 4;
}

START_TEST(flip_each_byte) {
  static uint8_t ref[BUF], buf[BUF];
  static const uint8_t ops[] = {0x0B, 0x4B, 0x12, 0x13, 0x64, 0x81, 0xAB, 0xC5, 0xCA};
  static const uint8_t masks[] = {0x01, 0x10, 0x80, 0xff};
  tu_rng r;
  tu_seed(&r, 123);
  unsigned variant_flips = 0, caught = 0;
  for (size_t oi = 0; oi < sizeof ops; oi++)
    for (size_t vi = 0; vi < tu_nvariants; vi++) {
      const tu_variant *v = &tu_variants[vi];
      ornic_frame want, full;
      tu_store st;
      size_t n = make(ref, &want, &st, &r, ops[oi], v, 5);
      ck_assert_int_eq(ornic_frame_decode(&full, ref, n, v->link, ORNIC_ROCEV2_UDP_PORT), ORNIC_OK);
      for (size_t i = 0; i < n; i++)
        for (size_t m = 0; m < sizeof masks; m++) {
          memcpy(buf, ref, n);
          buf[i] ^= masks[m];
          ornic_frame f;
          int rc = ornic_frame_decode(&f, buf, n, v->link, ORNIC_ROCEV2_UDP_PORT);
          int vrc = rc == ORNIC_OK ? ornic_icrc_verify(&f, buf) : rc;
          if (is_variant(&full, i, masks[m])) {
            ck_assert_msg(vrc == ORNIC_OK,
                          "opcode 0x%02x over %s: variant byte %zu ^ 0x%02x gave %s", ops[oi],
                          tu_variant_name(v), i, masks[m], ornic_errname(vrc));
            variant_flips++;
          } else if (v->link == ORNIC_LINK_ETHERNET && i < full.l3_off) {
            /* EtherType / TPID: steers decoding; must not pass as this frame */
            ck_assert_msg(vrc != ORNIC_OK || (buf[12] == ref[12] && buf[13] == ref[13]),
                          "EtherType change went unnoticed");
          } else {
            ck_assert_msg(vrc == ORNIC_ERR_BAD_ICRC || rc != ORNIC_OK,
                          "opcode 0x%02x over %s: byte %zu ^ 0x%02x not caught (%s)", ops[oi],
                          tu_variant_name(v), i, masks[m], ornic_errname(vrc));
            caught++;
          }
        }
    }
  ck_assert_uint_gt(variant_flips, 100);
  ck_assert_uint_gt(caught, 1000);
}
END_TEST

START_TEST(icrc_wrong_value_is_bad) {
  static uint8_t buf[BUF];
  tu_rng r;
  tu_seed(&r, 7);
  for (size_t vi = 0; vi < tu_nvariants; vi++) {
    ornic_frame want, f;
    tu_store st;
    size_t n = make(buf, &want, &st, &r, ORNIC_OP_RC_SEND_ONLY, &tu_variants[vi], 3);
    for (size_t b = n - 4; b < n; b++) {
      buf[b] ^= 0x01;
      ck_assert_int_eq(ornic_frame_decode(&f, buf, n, tu_variants[vi].link, ORNIC_ROCEV2_UDP_PORT),
                       ORNIC_OK);
      ck_assert_int_eq(ornic_icrc_verify(&f, buf), ORNIC_ERR_BAD_ICRC);
      uint32_t c;
      ck_assert_int_eq(ornic_icrc_compute(&f, buf, &c), ORNIC_OK);
      ck_assert_uint_ne(c, f.icrc);
      buf[b] ^= 0x01;
    }
    /* byte order: the wire holds the CRC least-significant byte first */
    ck_assert_int_eq(ornic_frame_decode(&f, buf, n, tu_variants[vi].link, ORNIC_ROCEV2_UDP_PORT),
                     ORNIC_OK);
    uint32_t c;
    ck_assert_int_eq(ornic_icrc_compute(&f, buf, &c), ORNIC_OK);
    ck_assert_uint_eq(buf[n - 4], c & 0xff);
    ck_assert_uint_eq(buf[n - 1], c >> 24);
    if ((c & 0xff) != (c >> 24)) {
      uint8_t t = buf[n - 4];
      buf[n - 4] = buf[n - 1];
      buf[n - 1] = t;
      ck_assert_int_eq(ornic_frame_decode(&f, buf, n, tu_variants[vi].link, ORNIC_ROCEV2_UDP_PORT),
                       ORNIC_OK);
      ck_assert_int_eq(ornic_icrc_verify(&f, buf), ORNIC_ERR_BAD_ICRC);
    }
  }
}
END_TEST

/* A frame decoded from its UDP payload has no L3 to hash: compute cannot succeed. */
START_TEST(icrc_needs_l3) {
  static uint8_t buf[BUF];
  tu_rng r;
  tu_seed(&r, 8);
  ornic_frame want, full, f;
  tu_store st;
  size_t n = make(buf, &want, &st, &r, ORNIC_OP_RC_SEND_ONLY, &tu_variants[0], 3);
  ck_assert_int_eq(ornic_frame_decode(&full, buf, n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT),
                   ORNIC_OK);
  ck_assert_int_eq(ornic_roce_decode(&f, buf + full.bth_off, n - full.bth_off), ORNIC_OK);
  uint32_t c;
  ck_assert_int_ne(ornic_icrc_compute(&f, buf + full.bth_off, &c), ORNIC_OK);
  ck_assert_int_ne(ornic_icrc_verify(&f, buf + full.bth_off), ORNIC_OK);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("icrc");
  TCase *tc = tu_tcase("crc32");
  tcase_add_test(tc, crc32_check_values);
  tcase_add_test(tc, crc32_backend_is_the_configured_one);
  tcase_add_test(tc, crc32_every_length_and_alignment);
  tcase_add_test(tc, crc32_chained_calls);
  tcase_add_test(tc, crc32_large_buffer);
  suite_add_tcase(s, tc);
  tc = tu_tcase("icrc");
  tcase_add_test(tc, icrc_matches_reference_and_ignores_variant_fields);
  tcase_add_test(tc, flip_each_byte);
  tcase_add_test(tc, icrc_wrong_value_is_bad);
  tcase_add_test(tc, icrc_needs_l3);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
