/* SPDX-License-Identifier: MIT */
/* Extension headers: every IBA header plus ORNIC's OFFETH, OACKETH and NAKETH;
 * NAK bitmap access; AETH syndrome and NAK reason texts. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* One known-answer row per header: bytes written by hand from docs/IBA_NOTES.md
 * section 3 (ORNIC headers: headers.h comments) and the values they hold. */
typedef struct {
  uint16_t bit;
  const char *name;
  uint8_t bytes[32];
  size_t len;
  void (*expect)(ornic_ext *e);
} kat_row;

static const uint8_t nak_bitmap[4] = {0x80, 0x01, 0x00, 0xff};

static void x_rdeth(ornic_ext *e) {
  e->rdeth.resv = 0x5a;
  e->rdeth.een = 0x123456;
}
static void x_deth(ornic_ext *e) {
  e->deth.qkey = 0x80010000u;
  e->deth.resv = 0x77;
  e->deth.srcqp = 1;
}
static void x_xrceth(ornic_ext *e) {
  e->xrceth.resv = 0x01;
  e->xrceth.xrcsrq = 0xabcdef;
}
static void x_feth(ornic_ext *e) { e->feth.value = 0xdeadbeefu; }
static void x_reth(ornic_ext *e) {
  e->reth.va = 0x0102030405060708ull;
  e->reth.rkey = 0x090a0b0c;
  e->reth.dmalen = 0x0d0e0f10;
}
static void x_offeth(ornic_ext *e) { e->offeth.offset = 0x00010000; }
static void x_atomiceth(ornic_ext *e) {
  e->atomiceth.va = 0x0102030405060708ull;
  e->atomiceth.rkey = 0x090a0b0c;
  e->atomiceth.swap_add = 0x0d0e0f1011121314ull;
  e->atomiceth.compare = 0x15161718191a1b1cull;
}
static void x_aeth(ornic_ext *e) {
  e->aeth.syndrome = 0x60;
  e->aeth.msn = 0x001234;
}
static void x_atomicacketh(ornic_ext *e) { e->atomicacketh.orig = 0xfedcba9876543210ull; }
static void x_oacketh(ornic_ext *e) {
  e->oacketh.flags = 0x03;
  e->oacketh.resv = 0x5a;
  e->oacketh.count = 0x0102;
}
static void x_naketh(ornic_ext *e) {
  e->naketh.reason = 2;
  e->naketh.trigger_psn = 0x123456;
  e->naketh.nblocks = 2;
  e->naketh.base_psn = 0xabcdef;
  e->naketh.resv = 0xa5;
  e->naketh.limit_psn = 0xabcdf7;
  e->naketh.bitmap = nak_bitmap;
}
static void x_immdt(ornic_ext *e) { e->immdt.data = 0xcafebabeu; }
static void x_ieth(ornic_ext *e) { e->ieth.rkey = 0x00c0ffeeu; }
static void x_cnp(ornic_ext *e) {
  for (int i = 0; i < 16; i++) e->cnp.resv[i] = (uint8_t)(0xf0 + i);
}

static const kat_row kats[] = {
    {ORNIC_HDR_RDETH, "RDETH", {0x5a, 0x12, 0x34, 0x56}, 4, x_rdeth},
    {ORNIC_HDR_DETH, "DETH", {0x80, 0x01, 0x00, 0x00, 0x77, 0x00, 0x00, 0x01}, 8, x_deth},
    {ORNIC_HDR_XRCETH, "XRCETH", {0x01, 0xab, 0xcd, 0xef}, 4, x_xrceth},
    {ORNIC_HDR_FETH, "FETH", {0xde, 0xad, 0xbe, 0xef}, 4, x_feth},
    {ORNIC_HDR_RETH, "RETH", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 16, x_reth},
    {ORNIC_HDR_OFFETH, "OFFETH", {0x00, 0x01, 0x00, 0x00}, 4, x_offeth},
    {ORNIC_HDR_ATOMICETH,
     "AtomicETH",
     {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
      15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28},
     28,
     x_atomiceth},
    {ORNIC_HDR_AETH, "AETH", {0x60, 0x00, 0x12, 0x34}, 4, x_aeth},
    {ORNIC_HDR_ATOMICACKETH,
     "AtomicAckETH",
     {0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10},
     8,
     x_atomicacketh},
    {ORNIC_HDR_OACKETH, "OACKETH", {0x03, 0x5a, 0x01, 0x02}, 4, x_oacketh},
    /* PROTOCOL.md 3.5: Reason | Trigger PSN, nblocks | Base PSN, resv | Limit PSN, then the blocks */
    {ORNIC_HDR_NAKETH,
     "NAKETH",
     {0x02, 0x12, 0x34, 0x56, 0x02, 0xab, 0xcd, 0xef, 0xa5, 0xab, 0xcd, 0xf7, 0x80, 0x01, 0x00,
      0xff},
     16,
     x_naketh},
    {ORNIC_HDR_IMMDT, "ImmDt", {0xca, 0xfe, 0xba, 0xbe}, 4, x_immdt},
    {ORNIC_HDR_IETH, "IETH", {0x00, 0xc0, 0xff, 0xee}, 4, x_ieth},
    {ORNIC_HDR_CNP,
     "CNP",
     {0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe,
      0xff},
     16,
     x_cnp},
};
#define NKATS (sizeof kats / sizeof kats[0])

START_TEST(every_header_known_answer) {
  ck_assert_uint_eq(NKATS, ORNIC_HDR_COUNT);
  for (size_t i = 0; i < NKATS; i++) {
    const kat_row *k = &kats[i];
    ornic_ext want, got;
    memset(&want, 0, sizeof want);
    memset(&got, 0, sizeof got);
    k->expect(&want);
    ck_assert_str_eq(ornic_hdr_name(k->bit), k->name);
    /* fixed size; NAKETH's is its fixed part */
    ck_assert_uint_eq(ornic_hdr_size(k->bit), k->bit == ORNIC_HDR_NAKETH ? 12 : k->len);
    ck_assert_uint_eq(ornic_ext_size(&want, k->bit), k->len);
    int n = ornic_ext_decode_one(&got, k->bit, k->bytes, k->len);
    ck_assert_msg(n == (int)k->len, "%s: decode_one = %d", k->name, n);
    ck_assert_msg(got.present == k->bit, "%s: present 0x%x", k->name, got.present);
    tu_assert_ext_eq(&want, &got, k->bit, k->name);
    if (k->bit == ORNIC_HDR_NAKETH) ck_assert_ptr_eq(got.naketh.bitmap, k->bytes + 12); /* a view */
    uint8_t out[40];
    memset(out, 0xee, sizeof out);
    ck_assert_int_eq(ornic_ext_encode_one(out, sizeof out, &want, k->bit), (ornic_ssize)k->len);
    ck_assert_msg(memcmp(out, k->bytes, k->len) == 0, "%s: encode bytes", k->name);
    ck_assert_uint_eq(out[k->len], 0xee);
    /* more input than the header: still only the header is consumed */
    uint8_t longer[64];
    memset(longer, 0x99, sizeof longer);
    memcpy(longer, k->bytes, k->len);
    ck_assert_int_eq(ornic_ext_decode_one(&got, k->bit, longer, sizeof longer), (int)k->len);
  }
}
END_TEST

START_TEST(every_header_truncated_and_nobuf) {
  tu_guard g;
  tu_guard_init(&g);
  for (size_t i = 0; i < NKATS; i++) {
    const kat_row *k = &kats[i];
    for (size_t n = 0; n < k->len; n++) {
      ornic_ext e;
      memset(&e, 0, sizeof e);
      uint8_t *p = tu_guard_tail(&g, k->bytes, n);
      int rc = ornic_ext_decode_one(&e, k->bit, p, n);
      ck_assert_msg(rc == ORNIC_ERR_TRUNCATED, "%s with %zu bytes: %s", k->name, n,
                    ornic_errname(rc));
      ck_assert_msg(e.present == 0, "%s with %zu bytes: present set", k->name, n);
    }
    uint8_t *p = tu_guard_tail(&g, k->bytes, k->len);
    ornic_ext e;
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(ornic_ext_decode_one(&e, k->bit, p, k->len), (int)k->len);
    ornic_ext want;
    memset(&want, 0, sizeof want);
    k->expect(&want);
    for (size_t cap = 0; cap < k->len; cap++) {
      uint8_t *q = g.base + g.page - cap;
      ck_assert_int_eq(ornic_ext_encode_one(q, cap, &want, k->bit), ORNIC_ERR_NOBUF);
    }
  }
  tu_guard_free(&g);
}
END_TEST

/* decode-then-encode reproduces random bytes for every header (reserved bits kept). */
START_TEST(every_header_random_round_trip) {
  tu_rng r;
  tu_seed(&r, 11);
  for (size_t i = 0; i < NKATS; i++) {
    for (int it = 0; it < 2000; it++) {
      uint8_t in[12 + 2 * 255], out[12 + 2 * 255];
      size_t len = kats[i].bit == ORNIC_HDR_NAKETH ? sizeof in : kats[i].len;
      tu_fill(&r, in, len);
      if (kats[i].bit == ORNIC_HDR_NAKETH && in[4] == 0) in[4] = 1;
      ornic_ext e;
      memset(&e, 0, sizeof e);
      int n = ornic_ext_decode_one(&e, kats[i].bit, in, len);
      ck_assert_int_gt(n, 0);
      ck_assert_int_eq(ornic_ext_encode_one(out, sizeof out, &e, kats[i].bit), n);
      ck_assert_msg(memcmp(in, out, (size_t)n) == 0, "%s: round trip", kats[i].name);
    }
  }
}
END_TEST

START_TEST(several_headers_in_wire_order) {
  /* RD RDMA WRITE Only with Immediate: RDETH, DETH, RETH, ImmDt */
  uint16_t hdrs = ORNIC_HDR_RDETH | ORNIC_HDR_DETH | ORNIC_HDR_RETH | ORNIC_HDR_IMMDT;
  uint8_t bytes[64];
  size_t len = 0;
  ornic_ext want;
  memset(&want, 0, sizeof want);
  for (size_t i = 0; i < NKATS; i++)
    if (hdrs & kats[i].bit) {
      memcpy(bytes + len, kats[i].bytes, kats[i].len);
      len += kats[i].len;
      kats[i].expect(&want);
    }
  ck_assert_uint_eq(len, 32);
  ck_assert_uint_eq(ornic_ext_size(&want, hdrs), 32);
  ornic_ext got;
  memset(&got, 0, sizeof got);
  ck_assert_int_eq(ornic_ext_decode(&got, hdrs, bytes, len), 32);
  ck_assert_uint_eq(got.present, hdrs);
  tu_assert_ext_eq(&want, &got, hdrs, "RDETH+DETH+RETH+ImmDt");
  uint8_t out[64];
  ck_assert_int_eq(ornic_ext_encode(out, sizeof out, &want, hdrs), 32);
  ck_assert_mem_eq(out, bytes, 32);
  /* every truncation: TRUNCATED, and exactly the complete headers are present */
  for (size_t n = 0; n < len; n++) {
    memset(&got, 0, sizeof got);
    ck_assert_int_eq(ornic_ext_decode(&got, hdrs, bytes, n), ORNIC_ERR_TRUNCATED);
    uint16_t complete = 0;
    size_t end = 0;
    for (size_t i = 0; i < NKATS; i++)
      if (hdrs & kats[i].bit) {
        end += kats[i].len;
        if (n >= end) complete |= kats[i].bit;
      }
    ck_assert_msg(got.present == complete, "cut at %zu: present 0x%x want 0x%x", n, got.present,
                  complete);
    tu_assert_ext_eq(&want, &got, complete, "partial");
  }
  for (size_t cap = 0; cap < len; cap++)
    ck_assert_int_eq(ornic_ext_encode(out, cap, &want, hdrs), ORNIC_ERR_NOBUF);
  /* no headers at all */
  ck_assert_int_eq(ornic_ext_decode(&got, 0, bytes, 0), 0);
  ck_assert_int_eq(ornic_ext_encode(out, 0, &want, 0), 0);
}
END_TEST

START_TEST(ext_size_matches_table) {
  tu_rng r;
  tu_seed(&r, 12);
  for (unsigned hdrs = 0; hdrs < (1u << ORNIC_HDR_COUNT); hdrs++) {
    ornic_ext e;
    memset(&e, 0, sizeof e);
    e.naketh.nblocks = (uint8_t)tu_bits(&r, 8);
    ck_assert_uint_eq(ornic_ext_size(&e, (uint16_t)hdrs),
                      tu_hdrs_size((uint16_t)hdrs, e.naketh.nblocks));
  }
}
END_TEST

START_TEST(invalid_header_bits) {
  const uint16_t bad[] = {0, 3, 1u << 14, 1u << 15, 0xffff, ORNIC_HDR_RETH | ORNIC_HDR_AETH};
  uint8_t buf[64] = {1};
  ornic_ext e;
  memset(&e, 0, sizeof e);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(ornic_ext_decode_one(&e, bad[i], buf, sizeof buf), ORNIC_ERR_INVALID_ARG);
    ck_assert_int_eq(ornic_ext_encode_one(buf, sizeof buf, &e, bad[i]), ORNIC_ERR_INVALID_ARG);
    ck_assert_uint_eq(ornic_hdr_size(bad[i]), 0);
    ck_assert_str_eq(ornic_hdr_name(bad[i]), "?");
  }
  ck_assert_uint_eq(e.present, 0);
}
END_TEST

START_TEST(encode_rejects_out_of_range) {
  uint8_t out[64];
#define BAD(bit, mutation)                                                                 \
  do {                                                                                     \
    ornic_ext e;                                                                           \
    memset(&e, 0, sizeof e);                                                               \
    for (size_t i_ = 0; i_ < NKATS; i_++) kats[i_].expect(&e);                             \
    mutation;                                                                              \
    ck_assert_msg(ornic_ext_encode_one(out, sizeof out, &e, bit) == ORNIC_ERR_INVALID_ARG, \
                  #mutation);                                                              \
  } while (0)
  BAD(ORNIC_HDR_RDETH, e.rdeth.een = 0x1000000);
  BAD(ORNIC_HDR_DETH, e.deth.srcqp = 0x1000000);
  BAD(ORNIC_HDR_XRCETH, e.xrceth.xrcsrq = 0x1000000);
  BAD(ORNIC_HDR_AETH, e.aeth.msn = 0x1000000);
  BAD(ORNIC_HDR_NAKETH, e.naketh.nblocks = 0);
  BAD(ORNIC_HDR_NAKETH, e.naketh.bitmap = NULL);
  BAD(ORNIC_HDR_NAKETH, e.naketh.trigger_psn = 0x1000000);
  BAD(ORNIC_HDR_NAKETH, e.naketh.base_psn = 0x1000000);
  BAD(ORNIC_HDR_NAKETH, e.naketh.limit_psn = 0x1000000);
#undef BAD
}
END_TEST

/* ---------------------------------------------------------------- NAKETH */

START_TEST(nak_zero_blocks_is_malformed) {
  const uint8_t bytes[16] = {0x01, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x01,
                             0x00, 0x00, 0x00, 0x03, 0xff, 0xff, 0xff, 0xff};
  ornic_ext e;
  memset(&e, 0, sizeof e);
  ck_assert_int_eq(ornic_ext_decode_one(&e, ORNIC_HDR_NAKETH, bytes, sizeof bytes),
                   ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(e.present, 0);
  ornic_naketh n;
  ck_assert_int_eq(ornic_naketh_decode(&n, bytes, sizeof bytes), ORNIC_ERR_MALFORMED);
  /* the fixed part is still filled in (headers.h) */
  ck_assert_uint_eq(n.trigger_psn, 5);
  ck_assert_uint_eq(n.base_psn, 1);
  ck_assert_uint_eq(n.limit_psn, 3);
  ck_assert_int_eq(ornic_ext_decode(&e, ORNIC_HDR_AETH | ORNIC_HDR_NAKETH,
                                    (const uint8_t[20]){0x60, 0, 0, 1, 1, 0, 0, 5, 0}, 20),
                   ORNIC_ERR_MALFORMED);
}
END_TEST

START_TEST(nak_bitmap_truncated) {
  /* nblocks 2: 12 fixed bytes + 4 bitmap bytes */
  tu_guard g;
  tu_guard_init(&g);
  for (size_t n = 0; n < 16; n++) {
    ornic_naketh nk;
    uint8_t *p = tu_guard_tail(&g, kats[10].bytes, n);
    ck_assert_int_eq(ornic_naketh_decode(&nk, p, n), ORNIC_ERR_TRUNCATED);
  }
  ornic_naketh nk;
  uint8_t *p = tu_guard_tail(&g, kats[10].bytes, 16);
  ck_assert_int_eq(ornic_naketh_decode(&nk, p, 16), 16);
  ck_assert_ptr_eq(nk.bitmap, p + 12);
  tu_guard_free(&g);
}
END_TEST

/* headers.h: bit i (0 = least significant) of block k means PSN base + 16k + i. */
START_TEST(nak_bitmap_semantics) {
  ornic_naketh n;
  ck_assert_int_eq(ornic_naketh_decode(&n, kats[10].bytes, 16), 16);
  ck_assert_uint_eq(ornic_naketh_block(&n, 0), 0x8001);
  ck_assert_uint_eq(ornic_naketh_block(&n, 1), 0x00ff);
  ck_assert_uint_eq(ornic_naketh_block(&n, 2), 0); /* outside */
  ck_assert_uint_eq(ornic_naketh_block(&n, 1000), 0);
  uint32_t base = 0xabcdef;
  ck_assert_int_eq(ornic_naketh_psn_state(&n, base - 1), -1);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, base + 0), 1); /* block 0 bit 0 */
  for (uint32_t i = 1; i < 15; i++) ck_assert_int_eq(ornic_naketh_psn_state(&n, base + i), 0);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, base + 15), 1); /* block 0 bit 15 */
  for (uint32_t i = 16; i < 24; i++) ck_assert_int_eq(ornic_naketh_psn_state(&n, base + i), 1);
  for (uint32_t i = 24; i < 32; i++) ck_assert_int_eq(ornic_naketh_psn_state(&n, base + i), 0);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, base + 32), -1);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, (base + 0x800000) & 0xffffff), -1);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, (base + 0x7fffff) & 0xffffff), -1);
}
END_TEST

START_TEST(nak_bitmap_across_psn_wrap) {
  /* base 0xfffffe, one block 0x0005: bits 0 and 2 -> PSNs 0xfffffe and 0x000000;
   * Limit 0x000001 (the trigger, reason 3): the lost set is 0xfffffe, 0xffffff */
  const uint8_t bytes[14] = {0x03, 0x00, 0x00, 0x01, 0x01, 0xff, 0xff,
                             0xfe, 0x00, 0x00, 0x00, 0x01, 0x00, 0x05};
  ornic_naketh n;
  ck_assert_int_eq(ornic_naketh_decode(&n, bytes, sizeof bytes), 14);
  ck_assert_uint_eq(n.reason, ORNIC_NAKETH_LAST_INCOMPLETE);
  ck_assert_uint_eq(n.limit_psn, 0x000001);
  ck_assert_uint_eq(ornic_naketh_lost_span(&n), 3);
  ck_assert_uint_eq(ornic_naketh_lost_count(&n), 2);
  ck_assert_int_eq(ornic_naketh_psn_lost(&n, 0xfffffe), 1);
  ck_assert_int_eq(ornic_naketh_psn_lost(&n, 0xffffff), 1);
  ck_assert_int_eq(ornic_naketh_psn_lost(&n, 0x000000), 0);
  ck_assert_int_eq(ornic_naketh_psn_lost(&n, 0x000001), 0);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, 0xfffffd), -1);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, 0xfffffe), 1);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, 0xffffff), 0);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, 0x000000), 1);
  for (uint32_t p = 1; p <= 0x0d; p++) ck_assert_int_eq(ornic_naketh_psn_state(&n, p), 0);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, 0x00000e), -1);
}
END_TEST

/* PROTOCOL.md 4.4 lost set against a direct reading of its text, on random
 * NAKs of every reason, across the PSN wrap: Base, plus every Base + d with
 * 0 < d < Limit - Base whose bit is 0, inside the bitmap. The reason and the
 * trigger do not matter: the Limit PSN on the wire says it all. */
static int lost_by_text(const ornic_naketh *n, uint32_t psn) {
  int32_t d = ornic_psn_diff(psn, n->base_psn);
  int32_t limit = ornic_psn_diff(n->limit_psn, n->base_psn);
  if (d == 0) return 1;
  if (d < 0 || d >= 16 * (int32_t)n->nblocks || d >= limit) return 0;
  return ornic_naketh_psn_state(n, psn) == 0;
}

START_TEST(nak_lost_set_follows_section_4_4) {
  tu_rng rng;
  tu_seed(&rng, 0x4404);
  uint8_t bm[2 * 255];
  for (int iter = 0; iter < 3000; iter++) {
    ornic_naketh n = {0};
    n.reason = (uint8_t)tu_range(&rng, 0, 4);
    n.nblocks = (uint8_t)tu_range(&rng, 1, iter % 2 ? 255 : 8);
    n.base_psn = tu_bits(&rng, 1) ? 0xffff00u + tu_bits(&rng, 8) : tu_bits(&rng, 24);
    n.trigger_psn = tu_bits(&rng, 24);
    /* limits before Base, at it, inside the bitmap, past it, and half the PSN space away */
    int32_t to_limit =
        iter % 7 == 0 ? 0x800000 : (int32_t)tu_range(&rng, 0, 16u * n.nblocks + 200) - 40;
    n.limit_psn = ornic_psn_add(n.base_psn, to_limit);
    tu_fill(&rng, bm, 2u * n.nblocks);
    n.bitmap = bm;
    uint32_t span = ornic_naketh_lost_span(&n);
    ck_assert_uint_ge(span, 1);
    ck_assert_uint_le(span, 16u * n.nblocks);
    uint32_t count = 0;
    for (int32_t d = -3; d < 16 * (int32_t)n.nblocks + 3; d++) {
      uint32_t psn = ornic_psn_add(n.base_psn, d);
      int lost = ornic_naketh_psn_lost(&n, psn);
      ck_assert_int_eq(lost, lost_by_text(&n, psn));
      if (d > 0 && (uint32_t)d >= span) ck_assert_int_eq(lost, 0);
      count += (uint32_t)lost;
    }
    ck_assert_uint_eq(ornic_naketh_lost_count(&n), count);
  }
}
END_TEST

/* The iterator's runs are the lost set, in PSN order, across the wrap. */
START_TEST(nak_lost_iterator_runs) {
  /* Base 0xfffffc, 2 blocks 0x0f0e, 0xffff (bits 1-3, 8-11, 16-31 set), Limit 0x000010. */
  const uint8_t bm[4] = {0x0f, 0x0e, 0xff, 0xff};
  ornic_naketh n = {ORNIC_NAKETH_TIMEOUT, 0x000010, 2, 0xfffffc, 0, 0x000010, bm};
  ornic_naketh_lost_iter it;
  uint32_t first, cnt;
  ornic_naketh_lost_begin(&it, &n);
  ck_assert(ornic_naketh_lost_next_run(&it, &first, &cnt));
  ck_assert_uint_eq(first, 0xfffffc); /* Base */
  ck_assert_uint_eq(cnt, 1);
  ck_assert(ornic_naketh_lost_next_run(&it, &first, &cnt));
  ck_assert_uint_eq(first, 0x000000); /* bits 4-7 */
  ck_assert_uint_eq(cnt, 4);
  ck_assert(ornic_naketh_lost_next_run(&it, &first, &cnt));
  ck_assert_uint_eq(first, 0x000008); /* bits 12-15 */
  ck_assert_uint_eq(cnt, 4);
  ck_assert(!ornic_naketh_lost_next_run(&it, &first, &cnt));
  ck_assert_uint_eq(ornic_naketh_lost_count(&n), 9);
  /* a limit inside the second run cuts it */
  n.limit_psn = 0x00000a;
  ornic_naketh_lost_begin(&it, &n);
  ck_assert(ornic_naketh_lost_next_run(&it, &first, &cnt));
  ck_assert(ornic_naketh_lost_next_run(&it, &first, &cnt));
  ck_assert(ornic_naketh_lost_next_run(&it, &first, &cnt));
  ck_assert_uint_eq(first, 0x000008);
  ck_assert_uint_eq(cnt, 2);
  ck_assert(!ornic_naketh_lost_next_run(&it, &first, &cnt));
  /* at or before Base: Base alone */
  n.limit_psn = 0xfffffc;
  ck_assert_uint_eq(ornic_naketh_lost_count(&n), 1);
  n.limit_psn = 0xfffff0;
  ck_assert_uint_eq(ornic_naketh_lost_count(&n), 1);
}
END_TEST

/* PROTOCOL.md 6.9: a responder with OTD 32 sends trigger 0x81, Base 0x60 and
 * Limit 0x81 - 32 = 0x61: only Base is declared lost, whatever OTD a reader
 * assumes (the bytes are the NAKETH of example 6.9, written by hand). */
START_TEST(nak_lost_set_example_6_9) {
  const uint8_t bytes[] = {0x01, 0x00, 0x00, 0x81, 0x03, 0x00, 0x00, 0x60, 0x00,
                           0x00, 0x00, 0x61, 0xff, 0x7c, 0xff, 0xdf, 0x00, 0x2b};
  ornic_naketh n;
  ck_assert_int_eq(ornic_naketh_decode(&n, bytes, sizeof bytes), (int)sizeof bytes);
  ck_assert_uint_eq(n.reason, ORNIC_NAKETH_OTD_EXCEEDED);
  ck_assert_uint_eq(n.trigger_psn, 0x81);
  ck_assert_uint_eq(n.base_psn, 0x60);
  ck_assert_uint_eq(n.limit_psn, 0x61);
  ck_assert_uint_eq(ornic_naketh_lost_span(&n), 1);
  ck_assert_int_eq(ornic_naketh_psn_lost(&n, 0x60), 1);
  ck_assert_int_eq(ornic_naketh_psn_lost(&n, 0x61), 0);
  uint8_t out[sizeof bytes];
  ck_assert_int_eq(ornic_naketh_encode(out, sizeof out, &n), (ornic_ssize)sizeof bytes);
  ck_assert_mem_eq(out, bytes, sizeof bytes);
  /* The same bitmap with Limit = trigger (what reasons 2 and 3 send) declares
   * every clear bit before the trigger. */
  n.limit_psn = 0x81;
  ck_assert_uint_eq(ornic_naketh_lost_span(&n), 0x21);
  const uint32_t want[] = {0x60, 0x61, 0x67, 0x75};
  unsigned k = 0;
  for (uint32_t p = 0x60; p < 0x90; p++)
    if (ornic_naketh_psn_lost(&n, p)) ck_assert_uint_eq(p, want[k++]);
  ck_assert_uint_eq(k, 4);
}
END_TEST

/* NAK bitmap with every bit set, 255 blocks: 4080 received PSNs. */
START_TEST(nak_bitmap_every_bit_set_max_blocks) {
  uint8_t bytes[12 + 510];
  bytes[0] = ORNIC_NAKETH_TIMEOUT;
  bytes[1] = 0x00;
  bytes[2] = 0x10;
  bytes[3] = 0x00;
  bytes[4] = 255;
  bytes[5] = 0xff;
  bytes[6] = 0xf8;
  bytes[7] = 0x00; /* base 0xfff800: crosses the wrap */
  bytes[8] = 0x00;
  bytes[9] = 0x00;
  bytes[10] = 0x10;
  bytes[11] = 0x00; /* limit 0x001000 = the trigger, past the bitmap */
  memset(bytes + 12, 0xff, 510);
  ornic_naketh n;
  ck_assert_int_eq(ornic_naketh_decode(&n, bytes, sizeof bytes), (int)sizeof bytes);
  ck_assert_uint_eq(n.nblocks, 255);
  for (unsigned k = 0; k < 255; k++) ck_assert_uint_eq(ornic_naketh_block(&n, k), 0xffff);
  for (uint32_t i = 0; i < 16 * 255; i++)
    ck_assert_int_eq(ornic_naketh_psn_state(&n, (0xfff800 + i) & 0xffffff), 1);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, (0xfff800 + 4080) & 0xffffff), -1);
  ck_assert_int_eq(ornic_naketh_psn_state(&n, 0xfff7ff), -1);
  ck_assert_uint_eq(ornic_naketh_lost_span(&n), 4080); /* clamped to the bitmap */
  ck_assert_uint_eq(ornic_naketh_lost_count(&n), 1);   /* Base alone: every other bit is set */
  uint8_t out[12 + 510];
  ck_assert_int_eq(ornic_naketh_encode(out, sizeof out, &n), (ornic_ssize)sizeof out);
  ck_assert_mem_eq(out, bytes, sizeof out);
  ck_assert_int_eq(ornic_naketh_encode(out, sizeof out - 1, &n), ORNIC_ERR_NOBUF);
}
END_TEST

/* The lost set bit by bit, written from PROTOCOL.md 4.4 without the library:
 * Base always (it is lost by definition, even with no block: nblocks 0 is
 * malformed, 3.5, but a reader still gets the fixed part), then Base + d for
 * 0 < d < span with bit d clear; span = Limit - Base clamped to 1 .. 16n. */
static bool naive_lost(const ornic_naketh *n, uint32_t d) {
  int32_t span = ornic_psn_diff(n->limit_psn, n->base_psn);
  if (span > 16 * (int32_t)n->nblocks) span = 16 * (int32_t)n->nblocks;
  if (d == 0) return true;
  if ((int32_t)d >= span) return false;
  uint16_t block = (uint16_t)(n->bitmap[2 * (d / 16)] << 8 | n->bitmap[2 * (d / 16) + 1]);
  return !((block >> (d % 16)) & 1);
}

/* Checks every view of n's lost set against naive_lost: psn_lost over the
 * bitmap and around it, lost_count, and the iterator's runs (maximal, in
 * order, exactly the lost distances). */
static void check_lost_views(const ornic_naketh *n, const char *what) {
  uint32_t want = 0, end = 16u * n->nblocks + 20;
  for (uint32_t d = 0; d < end; d++) {
    bool lost = naive_lost(n, d);
    want += lost;
    ck_assert_msg(ornic_naketh_psn_lost(n, ornic_psn_add(n->base_psn, (int32_t)d)) == lost,
                  "%s: psn_lost(Base + %u) != %d", what, d, lost);
  }
  ck_assert_msg(!ornic_naketh_psn_lost(n, ornic_psn_add(n->base_psn, -1)), "%s: Base - 1", what);
  ck_assert_msg(ornic_naketh_lost_count(n) == want, "%s: lost_count %u, want %u", what,
                ornic_naketh_lost_count(n), want);
  ornic_naketh_lost_iter it;
  uint32_t first, cnt, next = 0, total = 0;
  ornic_naketh_lost_begin(&it, n);
  while (ornic_naketh_lost_next_run(&it, &first, &cnt)) {
    uint32_t d0 = (uint32_t)ornic_psn_diff(first, n->base_psn);
    ck_assert_msg(cnt >= 1 && (d0 > next || d0 == 0), "%s: run at +%u not after +%u", what, d0,
                  next);
    for (uint32_t d = next; d < d0; d++)
      ck_assert_msg(!naive_lost(n, d), "%s: +%u skipped", what, d);
    for (uint32_t d = d0; d < d0 + cnt; d++)
      ck_assert_msg(naive_lost(n, d), "%s: +%u in a run, not lost", what, d);
    ck_assert_msg(!naive_lost(n, d0 + cnt), "%s: the run at +%u is not maximal", what, d0);
    next = d0 + cnt;
    total += cnt;
  }
  ck_assert_msg(total == want, "%s: the runs hold %u PSNs, want %u", what, total, want);
  ck_assert_msg(!ornic_naketh_lost_next_run(&it, &first, &cnt), "%s: stays exhausted", what);
}

/* nblocks 0: psn_lost(Base) said 1 while lost_count said 0 and the iterator
 * gave nothing (lost_span was min(Limit - Base, 16 x 0) = 0 for a Limit after
 * Base). Base is lost by definition (PROTOCOL.md 4.4): span 1, count 1, one
 * run. With it, the edges of span: a Limit at, just after and far past Base,
 * one block and 255, across the PSN wrap. */
START_TEST(nak_lost_views_agree_on_edges) {
  static const uint8_t zeros[510];
  uint8_t ones[510];
  memset(ones, 0xff, sizeof ones);
  const struct {
    uint8_t nblocks;
    uint32_t base;
    int32_t to_limit;
    const uint8_t *bm;
  } cases[] = {
      {0, 0x000100, 5, NULL},        {0, 0x000100, 0, NULL},        {0, 0x000100, -4, NULL},
      {0, 0xffffff, 0x7fffff, NULL}, {0, 0x000000, 1, NULL},        {1, 0x000010, 1, zeros},
      {1, 0x000010, 16, zeros},      {1, 0x000010, 17, ones},       {1, 0xfffffa, 12, zeros},
      {255, 0xfff800, 4080, ones},   {255, 0xfff800, 4081, zeros},  {255, 0x123456, 4079, zeros},
      {255, 0x000000, -1, zeros},    {2, 0xfffff8, 0x7fffff, zeros}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ornic_naketh n = {ORNIC_NAKETH_TIMEOUT, 0, cases[i].nblocks, cases[i].base, 0, 0, cases[i].bm};
    n.limit_psn = ornic_psn_add(n.base_psn, cases[i].to_limit);
    n.trigger_psn = n.limit_psn;
    char what[64];
    snprintf(what, sizeof what, "case %zu (nblocks %u, Limit Base%+d)", i, n.nblocks,
             (int)cases[i].to_limit);
    check_lost_views(&n, what);
    if (n.nblocks == 0) {
      ck_assert_uint_eq(ornic_naketh_lost_span(&n), 1);
      ck_assert_uint_eq(ornic_naketh_lost_count(&n), 1);
      ck_assert_int_eq(ornic_naketh_psn_lost(&n, n.base_psn), 1);
    }
  }
}
END_TEST

/* The lost-run walk skips whole blocks (all received 0xFFFF, all lost 0x0000)
 * instead of testing 16 bits: against the bit-by-bit reference on random
 * NAKs, nblocks 0 to 255, random limits, and bitmaps made of whole blocks,
 * so long runs of 0xFFFF and 0x0000 meet partial blocks at every place. */
START_TEST(nak_lost_walk_matches_bitwise_reference) {
  tu_rng r;
  tu_seed(&r, 0x2807);
  uint8_t bm[510];
  for (int iter = 0; iter < 4000; iter++) {
    ornic_naketh n = {0};
    n.reason = (uint8_t)tu_range(&r, 1, 3);
    n.nblocks = (uint8_t)(iter < 256 ? (uint32_t)iter : tu_range(&r, 0, 255));
    n.base_psn = tu_bits(&r, 1) ? 0xfff000u + tu_bits(&r, 12) : tu_bits(&r, 24);
    int32_t to_limit = iter % 9 == 0 ? (int32_t)tu_bits(&r, 23)
                                     : (int32_t)tu_range(&r, 0, 16u * n.nblocks + 40) - 20;
    n.limit_psn = ornic_psn_add(n.base_psn, to_limit);
    n.trigger_psn = n.limit_psn;
    for (unsigned k = 0; k < n.nblocks; k++) {
      uint32_t kind = tu_range(&r, 0, 4); /* 0xFFFF, 0x0000, random, one bit clear, one set */
      uint16_t v = kind == 0   ? 0xffff
                   : kind == 1 ? 0x0000
                   : kind == 2 ? (uint16_t)tu_bits(&r, 16)
                   : kind == 3 ? (uint16_t) ~(1u << tu_range(&r, 0, 15))
                               : (uint16_t)(1u << tu_range(&r, 0, 15));
      bm[2 * k] = (uint8_t)(v >> 8);
      bm[2 * k + 1] = (uint8_t)v;
    }
    n.bitmap = bm;
    char what[80];
    snprintf(what, sizeof what, "iter %d (nblocks %u, Limit Base%+d)", iter, n.nblocks,
             (int)to_limit);
    check_lost_views(&n, what);
  }
}
END_TEST

START_TEST(nak_bitmap_pack_is_big_endian) {
  const uint16_t blocks[3] = {0x8001, 0x00ff, 0x1234};
  uint8_t out[8];
  memset(out, 0xee, sizeof out);
  ornic_naketh_bitmap_pack(out, blocks, 3);
  const uint8_t want[7] = {0x80, 0x01, 0x00, 0xff, 0x12, 0x34, 0xee};
  ck_assert_mem_eq(out, want, 7);
  /* and readable back through a NAKETH */
  ornic_naketh n = {.reason = 1, .trigger_psn = 2, .nblocks = 3, .base_psn = 100, .bitmap = out};
  for (unsigned k = 0; k < 3; k++) ck_assert_uint_eq(ornic_naketh_block(&n, k), blocks[k]);
}
END_TEST

/* The named wrappers agree with the generic codec. */
START_TEST(named_codecs) {
  ornic_offeth o;
  ck_assert_int_eq(ornic_offeth_decode(&o, kats[5].bytes, 4), 4);
  ck_assert_uint_eq(o.offset, 0x10000);
  ck_assert_int_eq(ornic_offeth_decode(&o, kats[5].bytes, 3), ORNIC_ERR_TRUNCATED);
  uint8_t out[16];
  ck_assert_int_eq(ornic_offeth_encode(out, sizeof out, &o), 4);
  ck_assert_mem_eq(out, kats[5].bytes, 4);
  ck_assert_int_eq(ornic_offeth_encode(out, 3, &o), ORNIC_ERR_NOBUF);

  ornic_oacketh a;
  ck_assert_int_eq(ornic_oacketh_decode(&a, kats[9].bytes, 4), 4);
  ck_assert_uint_eq(a.flags, ORNIC_OACK_ADDR_CACHED | ORNIC_OACK_WQE_DONE);
  ck_assert_uint_eq(a.resv, 0x5a);
  ck_assert_uint_eq(a.count, 0x0102);
  ck_assert_int_eq(ornic_oacketh_decode(&a, kats[9].bytes, 0), ORNIC_ERR_TRUNCATED);
  ck_assert_int_eq(ornic_oacketh_encode(out, sizeof out, &a), 4);
  ck_assert_mem_eq(out, kats[9].bytes, 4);

  ornic_naketh n;
  ck_assert_int_eq(ornic_naketh_decode(&n, kats[10].bytes, 16), 16);
  ck_assert_uint_eq(n.reason, ORNIC_NAKETH_TIMEOUT);
  ck_assert_uint_eq(n.trigger_psn, 0x123456);
  ck_assert_uint_eq(n.nblocks, 2);
  ck_assert_uint_eq(n.base_psn, 0xabcdef);
  ck_assert_uint_eq(n.resv, 0xa5); /* reserved, kept */
  ck_assert_uint_eq(n.limit_psn, 0xabcdf7);
  ck_assert_int_eq(ornic_naketh_encode(out, sizeof out, &n), 16);
  ck_assert_mem_eq(out, kats[10].bytes, 16);
  n.nblocks = 0;
  ck_assert_int_eq(ornic_naketh_encode(out, sizeof out, &n), ORNIC_ERR_INVALID_ARG);
}
END_TEST

/* ---------------------------------------------------------------- texts */

START_TEST(aeth_syndromes) {
  /* docs/IBA_NOTES.md section 3: bits 6:5 type, NAK codes 0x60..0x64 */
  for (unsigned s = 0; s < 0x80; s++) {
    const char *name = ornic_aeth_syndrome_name((uint8_t)s);
    ck_assert_ptr_nonnull(name);
    ck_assert_uint_eq(ornic_aeth_type((uint8_t)s), s & 0x60); /* bit 7 clear here */
    if (s < 0x20)
      ck_assert_str_eq(name, "ACK");
    else if (s < 0x40)
      ck_assert_str_eq(name, "RNR NAK");
    else if (s < 0x60)
      ck_assert_msg(strstr(name, "NAK") == NULL && strstr(name, "ACK") == NULL, "0x%02x: %s", s,
                    name);
    else
      ck_assert_msg(strncmp(name, "NAK", 3) == 0, "0x%02x: %s", s, name);
  }
  ck_assert_str_eq(ornic_aeth_syndrome_name(0x60), "NAK PSN sequence error");
  ck_assert_str_eq(ornic_aeth_syndrome_name(0x61), "NAK invalid request");
  ck_assert_str_eq(ornic_aeth_syndrome_name(0x62), "NAK remote access error");
  ck_assert_str_eq(ornic_aeth_syndrome_name(0x63), "NAK remote operational error");
  ck_assert_str_eq(ornic_aeth_syndrome_name(0x64), "NAK invalid RD request");
  /* 0x65..0x7f are reserved NAK codes: one shared text, different from the five */
  const char *r = ornic_aeth_syndrome_name(0x65);
  for (unsigned s = 0x65; s < 0x80; s++) ck_assert_str_eq(ornic_aeth_syndrome_name((uint8_t)s), r);
  for (unsigned s = 0x60; s < 0x65; s++) ck_assert_str_ne(ornic_aeth_syndrome_name((uint8_t)s), r);
  /* headers.h / PROTOCOL.md 2.3: the type is bits 7:5 */
  for (unsigned s = 0; s < 0x100; s++) ck_assert_uint_eq(ornic_aeth_type((uint8_t)s), s & 0xe0);
  ck_assert_uint_eq(ORNIC_AETH_ACK, 0x00);
  ck_assert_uint_eq(ORNIC_AETH_RNR_NAK, 0x20);
  ck_assert_uint_eq(ORNIC_AETH_NAK, 0x60);
}
END_TEST

/* PROTOCOL.md 2.3 and 4.2: the AETH type is bits 7:5 (ACK = 000, RNR NAK = 001,
 * NAK = 011); a syndrome with bit 7 set is none of them. */
START_TEST(aeth_bit7_is_not_ack_or_nak) {
  for (unsigned s = 0x80; s < 0x100; s++) {
    const char *name = ornic_aeth_syndrome_name((uint8_t)s);
    ck_assert_msg(
        strcmp(name, "ACK") != 0 && strcmp(name, "RNR NAK") != 0 && strncmp(name, "NAK", 3) != 0,
        "syndrome 0x%02x (bits 7:5 = %u%u%u) named \"%s\"", s, (s >> 7) & 1, (s >> 6) & 1,
        (s >> 5) & 1, name);
  }
}
END_TEST

START_TEST(nak_reasons) {
  const char *a = ornic_naketh_reason_name(ORNIC_NAKETH_OTD_EXCEEDED);
  const char *b = ornic_naketh_reason_name(ORNIC_NAKETH_TIMEOUT);
  const char *c = ornic_naketh_reason_name(ORNIC_NAKETH_LAST_INCOMPLETE);
  const char *z = ornic_naketh_reason_name(0);
  ck_assert(a && b && c && z && *a && *b && *c && *z);
  ck_assert_str_ne(a, b);
  ck_assert_str_ne(a, c);
  ck_assert_str_ne(b, c);
  ck_assert_str_ne(a, z);
  for (unsigned v = 4; v < 256; v++) ck_assert_str_eq(ornic_naketh_reason_name((uint8_t)v), z);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("ext");
  TCase *tc = tu_tcase("headers");
  tcase_add_test(tc, every_header_known_answer);
  tcase_add_test(tc, every_header_truncated_and_nobuf);
  tcase_add_test(tc, every_header_random_round_trip);
  tcase_add_test(tc, several_headers_in_wire_order);
  tcase_add_test(tc, ext_size_matches_table);
  tcase_add_test(tc, invalid_header_bits);
  tcase_add_test(tc, encode_rejects_out_of_range);
  suite_add_tcase(s, tc);
  tc = tu_tcase("naketh");
  tcase_add_test(tc, nak_zero_blocks_is_malformed);
  tcase_add_test(tc, nak_bitmap_truncated);
  tcase_add_test(tc, nak_bitmap_semantics);
  tcase_add_test(tc, nak_bitmap_across_psn_wrap);
  tcase_add_test(tc, nak_bitmap_every_bit_set_max_blocks);
  tcase_add_test(tc, nak_bitmap_pack_is_big_endian);
  tcase_add_test(tc, nak_lost_set_follows_section_4_4);
  tcase_add_test(tc, nak_lost_iterator_runs);
  tcase_add_test(tc, nak_lost_set_example_6_9);
  tcase_add_test(tc, nak_lost_views_agree_on_edges);
  tcase_add_test(tc, nak_lost_walk_matches_bitwise_reference);
  tcase_add_test(tc, named_codecs);
  suite_add_tcase(s, tc);
  tc = tu_tcase("texts");
  tcase_add_test(tc, aeth_syndromes);
  tcase_add_test(tc, nak_reasons);
  suite_add_tcase(s, tc);
  /* Contract checks that failed when this suite was written (fixed in 0bd5a49);
   * kept as regression tests, run as unit_ext_contract. */
  tc = tu_tcase("contract");
  tcase_set_tags(tc, "contract");
  tcase_add_test(tc, aeth_bit7_is_not_ack_or_nak);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
