/* SPDX-License-Identifier: MIT */
/* The protocol rules every tool takes from the library (issue 14): the NAK
 * lost-set iterator against PROTOCOL.md 4.4 written out here, each lint rule
 * of PROTOCOL.md section 5 on a frame that breaks only it, the names and
 * sentences of the malformed rules, the encoders' "nothing written on
 * failure" contract, and what ornic_frame.layers and the UDP port say. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* ---- NAK lost set ------------------------------------------------------------ */

/* PROTOCOL.md 4.4, independently of the library: Base, plus each PSN
 * Base + d (0 < d < span) whose bit is 0; span = the NAK's Limit PSN - Base,
 * clamped to 1 .. 16n. Nothing else (not the reason, not the trigger, not
 * the QP's OTD) enters. */
static bool ref_lost(const uint8_t *bitmap, unsigned nblocks, uint32_t limit, uint32_t base,
                     uint32_t d) {
  int64_t span = (int64_t)((limit - base) & 0xffffff);
  if (span >= 0x800000) span -= 0x1000000;
  if (span < 1) span = 1;
  if (span > 16 * (int64_t)nblocks) span = 16 * (int64_t)nblocks;
  if (d == 0) return true;
  if (d >= span) return false;
  unsigned k = d / 16, i = d % 16;
  uint16_t block = (uint16_t)(bitmap[2 * k] << 8 | bitmap[2 * k + 1]);
  return !((block >> i) & 1);
}

START_TEST(nak_iterator_matches_protocol) {
  tu_rng r;
  tu_seed(&r, 14);
  uint8_t bitmap[2 * 255];
  for (int iter = 0; iter < 3000; iter++) {
    ornic_naketh nak = {0};
    nak.reason = (uint8_t)tu_range(&r, 0, 4);
    nak.nblocks = (uint8_t)tu_range(&r, 1, iter % 10 ? 8 : 255);
    nak.base_psn = tu_bits(&r, 24);
    nak.trigger_psn = (nak.base_psn + tu_range(&r, 0, 16u * nak.nblocks + 80) - 8) & 0xffffff;
    nak.limit_psn = (nak.base_psn + tu_range(&r, 0, 16u * nak.nblocks + 80) - 8) & 0xffffff;
    /* sparse, dense or random bitmaps, so runs of every length occur */
    unsigned density = tu_range(&r, 0, 2);
    for (unsigned i = 0; i < 2u * nak.nblocks; i++)
      bitmap[i] = density == 0   ? (uint8_t)tu_bits(&r, 8)
                  : density == 1 ? 0xff
                                 : (uint8_t)(tu_bits(&r, 8) & tu_bits(&r, 8));
    nak.bitmap = bitmap;

    ornic_naketh_lost_iter it;
    uint32_t first, n, next_d = 0, total = 0;
    int64_t prev_end = -2;
    ornic_naketh_lost_begin(&it, &nak);
    while (ornic_naketh_lost_next_run(&it, &first, &n)) {
      uint32_t d0 = (first - nak.base_psn) & 0xffffff;
      ck_assert_uint_ge(n, 1);
      ck_assert_msg((int64_t)d0 > prev_end + 1 || prev_end < 0,
                    "runs not maximal or not ascending");
      for (uint32_t d = next_d; d < d0; d++)
        ck_assert_msg(!ref_lost(bitmap, nak.nblocks, nak.limit_psn, nak.base_psn, d),
                      "iter %d: d %u lost but skipped", iter, d);
      for (uint32_t d = d0; d < d0 + n; d++)
        ck_assert_msg(ref_lost(bitmap, nak.nblocks, nak.limit_psn, nak.base_psn, d),
                      "iter %d: d %u reported lost", iter, d);
      next_d = d0 + n;
      prev_end = d0 + n - 1;
      total += n;
    }
    for (uint32_t d = next_d; d < 16u * nak.nblocks; d++)
      ck_assert_msg(!ref_lost(bitmap, nak.nblocks, nak.limit_psn, nak.base_psn, d),
                    "iter %d: d %u lost after the last run", iter, d);
    ck_assert_uint_eq(ornic_naketh_lost_count(&nak), total);
    ck_assert_uint_ge(total, 1); /* Base is always lost */
  }
}
END_TEST

/* The wrap: Base 0xFFFFF8, all clear, trigger and Limit 0x000010 (reason 3):
 * lost are 0xFFFFF8 .. 0x00000F, one run across the wrap. */
START_TEST(nak_iterator_wraps) {
  uint8_t bitmap[4] = {0};
  ornic_naketh nak = {ORNIC_NAKETH_LAST_INCOMPLETE, 0x000010, 2, 0xfffff8, 0, 0x000010, bitmap};
  ornic_naketh_lost_iter it;
  uint32_t first, n;
  ornic_naketh_lost_begin(&it, &nak);
  ck_assert_int_eq(ornic_naketh_lost_next_run(&it, &first, &n), 1);
  ck_assert_uint_eq(first, 0xfffff8);
  ck_assert_uint_eq(n, 24);
  ck_assert_int_eq(ornic_naketh_lost_next_run(&it, &first, &n), 0);
  ck_assert_int_eq(ornic_naketh_lost_next_run(&it, &first, &n), 0); /* stays exhausted */
}
END_TEST

/* ---- lint ------------------------------------------------------------------------ */

typedef struct {
  ornic_frame f;
  uint8_t payload[4096];
  uint8_t bitmap[8];
  uint8_t buf[4096 + 256];
  size_t len;
  ornic_frame got;
} lint_case;

static void lint_frame(lint_case *c, uint8_t opcode, size_t paylen) {
  memset(c, 0, sizeof *c);
  ornic_frame_init(&c->f, ORNIC_LINK_ETHERNET, 4);
  c->f.bth.opcode = opcode;
  c->f.bth.destqp = 0x11;
  c->f.bth.psn = 100;
  c->f.payload = c->payload;
  c->f.payload_len = paylen;
  c->f.ext.reth.dmalen = 8192;
  c->f.ext.aeth.msn = 1;
  c->f.ext.naketh = (ornic_naketh){ORNIC_NAKETH_TIMEOUT, 110, 1, 100, 0, 110, c->bitmap};
}

static uint32_t lint_of(lint_case *c, uint32_t pmtu) {
  c->len = tu_encode(&c->f, c->buf, sizeof c->buf);
  int rc = ornic_frame_decode(&c->got, c->buf, c->len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  ck_assert_int_eq(rc, ORNIC_OK);
  return ornic_lint(&c->got, c->buf, pmtu);
}

START_TEST(lint_clean_frames) {
  static lint_case c;
  static const struct {
    uint8_t op;
    size_t pay;
  } ok[] = {{ORNIC_OP_OOO_WRITE_FSPOT, 1024},
            {ORNIC_OP_OOO_WRITE_SPOT, 1024},
            {ORNIC_OP_OOO_WRITE_LAST, 100},
            {ORNIC_OP_OOO_READ_REQ, 0},
            {ORNIC_OP_ACK, 0},
            {ORNIC_OP_NAK, 0},
            {ORNIC_OP_RC_SEND_ONLY, 3},
            {ORNIC_OP_RC_ACK, 0}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    lint_frame(&c, ok[i].op, ok[i].pay);
    c.f.ext.offeth.offset = 2048;
    ck_assert_msg(lint_of(&c, 1024) == 0, "opcode 0x%02x: lint %#x", ok[i].op, lint_of(&c, 1024));
  }
}
END_TEST

/* Each rule on a frame that breaks it alone. */
START_TEST(lint_each_rule) {
  static lint_case c;
  /* L2: a pad byte that is not zero */
  lint_frame(&c, ORNIC_OP_RC_SEND_ONLY, 1);
  (void)lint_of(&c, 0);
  c.buf[c.got.payload_off + 1 + 1] = 0x5a;
  ornic_frame_decode(&c.got, c.buf, c.len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  ck_assert_uint_eq(ornic_lint(&c.got, c.buf, 0), ORNIC_LINT_PAD_NONZERO);
  /* L3-L5: NAK Base != BTH.PSN; trigger not after Base; Base bit set */
  lint_frame(&c, ORNIC_OP_NAK, 0);
  c.f.bth.psn = 101;
  ck_assert_uint_eq(lint_of(&c, 0), ORNIC_LINT_NAK_PSN);
  lint_frame(&c, ORNIC_OP_NAK, 0);
  c.f.ext.naketh.trigger_psn = 100;
  c.f.ext.naketh.limit_psn = 100; /* no Limit is after Base and at most this trigger: L13 too */
  ck_assert_uint_eq(lint_of(&c, 0), ORNIC_LINT_NAK_TRIGGER | ORNIC_LINT_NAK_LIMIT);
  lint_frame(&c, ORNIC_OP_NAK, 0);
  c.bitmap[1] = 0x01;
  ck_assert_uint_eq(lint_of(&c, 0), ORNIC_LINT_NAK_BASE_BIT);
  /* L13: Limit in (Base, Trigger]: 101 and 110 are fine; 100 (Base), 111 (past the
   * trigger) and 0x800064 (half the PSN space: not after Base) are not */
  static const struct {
    uint32_t limit, lint;
  } limits[] = {{101, 0},
                {110, 0},
                {100, ORNIC_LINT_NAK_LIMIT},
                {99, ORNIC_LINT_NAK_LIMIT},
                {111, ORNIC_LINT_NAK_LIMIT},
                {0x800064, ORNIC_LINT_NAK_LIMIT}};
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
    lint_frame(&c, ORNIC_OP_NAK, 0);
    c.f.ext.naketh.limit_psn = limits[i].limit;
    ck_assert_msg(lint_of(&c, 0) == limits[i].lint, "limit %u: lint %#x", limits[i].limit,
                  lint_of(&c, 0));
  }
  /* L6 */
  lint_frame(&c, ORNIC_OP_ACK, 0);
  c.f.ext.oacketh.flags = ORNIC_OACK_ADDR_CACHED | ORNIC_OACK_WQE_DONE;
  ck_assert_uint_eq(lint_of(&c, 0), ORNIC_LINT_OACK_FLAGS);
  /* L7: SE on Spot; none on Last with Immediate */
  lint_frame(&c, ORNIC_OP_OOO_WRITE_SPOT, 1024);
  c.f.bth.se = 1;
  ck_assert_uint_eq(lint_of(&c, 0), ORNIC_LINT_SE);
  lint_frame(&c, ORNIC_OP_OOO_WRITE_LAST_IMM, 4);
  c.f.bth.se = 1;
  ck_assert_uint_eq(lint_of(&c, 0), 0);
  /* L8: AckReq on an ACK; none on a request */
  lint_frame(&c, ORNIC_OP_ACK, 0);
  c.f.bth.ackreq = 1;
  ck_assert_uint_eq(lint_of(&c, 0), ORNIC_LINT_ACKREQ);
  lint_frame(&c, ORNIC_OP_OOO_WRITE_LAST, 4);
  c.f.bth.ackreq = 1;
  ck_assert_uint_eq(lint_of(&c, 0), 0);
  /* L9: BECN on an ORNIC opcode; none on an IBA one (switches may set it) */
  lint_frame(&c, ORNIC_OP_OOO_WRITE_LAST, 4);
  c.f.bth.becn = 1;
  ck_assert_uint_eq(lint_of(&c, 0), ORNIC_LINT_BECN);
  lint_frame(&c, ORNIC_OP_RC_SEND_ONLY, 4);
  c.f.bth.becn = 1;
  ck_assert_uint_eq(lint_of(&c, 0), 0);
  /* L10: FSpot offset at or past its DMA length */
  lint_frame(&c, ORNIC_OP_OOO_WRITE_FSPOT, 1024);
  c.f.ext.offeth.offset = 8192;
  ck_assert_uint_eq(lint_of(&c, 0), ORNIC_LINT_OFFSET_DMA);
  /* L11, L12 need the PMTU */
  lint_frame(&c, ORNIC_OP_OOO_WRITE_FSPOT, 1024);
  c.f.ext.offeth.offset = 1000;
  ck_assert_uint_eq(lint_of(&c, 0), 0);
  ck_assert_uint_eq(lint_of(&c, 1024), ORNIC_LINT_OFFSET_PMTU);
  lint_frame(&c, ORNIC_OP_OOO_WRITE_SPOT, 1000);
  ck_assert_uint_eq(lint_of(&c, 0), 0);
  ck_assert_uint_eq(lint_of(&c, 1024), ORNIC_LINT_SPOT_PMTU);
}
END_TEST

/* L1 is about IBA opcodes: an RC SEND Only whose PadCnt leaves BTH..iCRC
 * unaligned (the encoder always aligns, so the bytes are edited). */
START_TEST(lint_pad_alignment) {
  static lint_case c;
  lint_frame(&c, ORNIC_OP_RC_SEND_ONLY, 4);
  (void)lint_of(&c, 0);
  c.buf[c.got.bth_off + 1] |= 0x10; /* PadCnt 1: payload 3 + pad 1, still 4 bytes */
  ck_assert_int_eq(
      ornic_frame_decode(&c.got, c.buf, c.len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT),
      ORNIC_OK);
  ck_assert_uint_eq(c.got.payload_len, 3);
  /* payload + pad = 4 bytes after the BTH, a whole word: the alignment rule holds */
  ck_assert_uint_eq(ornic_lint(&c.got, c.buf, 0) & ORNIC_LINT_PAD_ALIGN, 0);
  /* Cut one payload byte out: 3 bytes after the BTH with PadCnt 0. */
  lint_frame(&c, ORNIC_OP_RC_SEND_ONLY, 3);
  c.len = tu_encode(&c.f, c.buf, sizeof c.buf);
  ornic_frame_decode(&c.got, c.buf, c.len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  size_t pad_at = c.got.payload_off + 3; /* one pad byte */
  memmove(c.buf + pad_at, c.buf + pad_at + 1, c.len - pad_at - 1);
  c.len--;
  c.buf[c.got.bth_off + 1] &= (uint8_t)~0x30;          /* PadCnt 0 */
  c.buf[16] = 0, c.buf[17] = (uint8_t)(c.buf[17] - 1); /* IPv4 total length - 1 */
  c.buf[39] = (uint8_t)(c.buf[39] - 1);                /* UDP length - 1 */
  int rc = ornic_frame_decode(&c.got, c.buf, c.len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  ck_assert_int_eq(rc, ORNIC_OK); /* an IBA opcode: accepted (D7) */
  ck_assert_uint_eq(ornic_lint(&c.got, c.buf, 0), ORNIC_LINT_PAD_ALIGN);
}
END_TEST

START_TEST(lint_names) {
  for (unsigned i = 0; i < ORNIC_LINT_COUNT; i++) {
    ck_assert_ptr_nonnull(ornic_lint_name(i));
    ck_assert_ptr_nonnull(ornic_lint_text(i));
    ck_assert_msg(strncmp(ornic_lint_rule(i), "PROTOCOL.md ", 12) == 0, "%s", ornic_lint_rule(i));
    for (unsigned j = 0; j < i; j++) ck_assert_str_ne(ornic_lint_name(i), ornic_lint_name(j));
  }
  ck_assert_ptr_null(ornic_lint_name(ORNIC_LINT_COUNT));
  ck_assert_ptr_null(ornic_lint_text(ORNIC_LINT_COUNT));
  ck_assert_ptr_null(ornic_lint_rule(ORNIC_LINT_COUNT));
}
END_TEST

/* ---- malformed rules ------------------------------------------------------------- */

START_TEST(malformed_names) {
  for (unsigned i = 0; i < ORNIC_MAL_COUNT; i++) {
    ck_assert_ptr_nonnull(ornic_mal_name(i));
    ck_assert_msg(ornic_mal_rule(i)[0] == 'D', "%s", ornic_mal_rule(i));
    for (unsigned j = 0; j < i; j++) ck_assert_str_ne(ornic_mal_name(i), ornic_mal_name(j));
  }
  ck_assert_ptr_null(ornic_mal_name(ORNIC_MAL_COUNT));
}
END_TEST

/* An RC ACK with 4 payload bytes (D5): one sentence naming the opcode and
 * the rule; snprintf semantics for short buffers. */
START_TEST(malformed_explained) {
  static lint_case c;
  lint_frame(&c, ORNIC_OP_RC_SEND_ONLY, 4);
  c.len = tu_encode(&c.f, c.buf, sizeof c.buf);
  c.buf[42] = ORNIC_OP_RC_RDMA_READ_REQ; /* RETH needs 16 bytes, 4 are there */
  ck_assert_int_eq(ornic_frame_decode(&c.got, c.buf, c.len, ORNIC_LINK_ETHERNET, 4791),
                   ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(c.got.malformed, ORNIC_MAL_EXT);
  char text[256];
  size_t need = ornic_frame_explain_malformed(&c.got, text, sizeof text);
  ck_assert_uint_eq(need, strlen(text));
  ck_assert_msg(strstr(text, "RC RDMA READ Request") && strstr(text, "(D5)"), "%s", text);
  char small[10];
  ck_assert_uint_eq(ornic_frame_explain_malformed(&c.got, small, sizeof small), need);
  ck_assert_uint_eq(strlen(small), sizeof small - 1);
  ck_assert_uint_eq(ornic_frame_explain_malformed(&c.got, NULL, 0), need);
  /* A good frame: nothing to say */
  c.buf[42] = ORNIC_OP_RC_SEND_ONLY;
  ck_assert_int_eq(ornic_frame_decode(&c.got, c.buf, c.len, ORNIC_LINK_ETHERNET, 4791), ORNIC_OK);
  ck_assert_uint_eq(c.got.malformed, 0);
  ck_assert_uint_eq(ornic_frame_explain_malformed(&c.got, text, sizeof text), 0);
  ck_assert_str_eq(text, "");
}
END_TEST

/* ---- encoders write nothing when they fail ---------------------------------------- */

static void assert_untouched(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) ck_assert_msg(p[i] == 0xa5, "byte %zu written", i);
}

START_TEST(encode_failure_writes_nothing) {
  static lint_case c;
  static uint8_t out[8192];
  for (int k = 0; k < 6; k++) {
    lint_frame(&c, k < 3 ? ORNIC_OP_NAK : ORNIC_OP_OOO_WRITE_FSPOT, k < 3 ? 0 : 64);
    switch (k) {
    case 0: c.f.ext.naketh.nblocks = 0; break;         /* D6 */
    case 1: c.f.ext.naketh.base_psn = 1u << 24; break; /* 24-bit field */
    case 2: c.f.ext.aeth.msn = 1u << 24; break;        /* 24-bit MSN */
    case 3: c.f.bth.psn = 1u << 24; break;
    case 4: c.f.bth.destqp = 1u << 24; break;
    case 5: c.f.ip.flow_label = 1u << 20, c.f.ip.version = 6; break;
    }
    memset(out, 0xa5, sizeof out);
    ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &c.f), ORNIC_ERR_INVALID_ARG);
    assert_untouched(out, sizeof out);
  }
  /* Too small a buffer */
  lint_frame(&c, ORNIC_OP_OOO_WRITE_FSPOT, 64);
  memset(out, 0xa5, sizeof out);
  ck_assert_int_eq(ornic_frame_encode(out, 40, &c.f), ORNIC_ERR_NOBUF);
  assert_untouched(out, sizeof out);
  /* ornic_ext_encode: a valid AETH before an invalid NAKETH writes neither */
  ornic_ext e = c.f.ext;
  e.naketh.nblocks = 0;
  memset(out, 0xa5, sizeof out);
  ck_assert_int_eq(ornic_ext_encode(out, sizeof out, &e, ORNIC_HDR_AETH | ORNIC_HDR_NAKETH),
                   ORNIC_ERR_INVALID_ARG);
  assert_untouched(out, sizeof out);
  ck_assert_int_eq(ornic_ext_encode(out, 8, &c.f.ext, ORNIC_HDR_AETH | ORNIC_HDR_NAKETH),
                   ORNIC_ERR_NOBUF);
  assert_untouched(out, sizeof out);
}
END_TEST

/* ---- layers and ports ------------------------------------------------------------ */

START_TEST(layers_say_what_was_read) {
  static lint_case c;
  lint_frame(&c, ORNIC_OP_OOO_WRITE_LAST, 8);
  c.len = tu_encode(&c.f, c.buf, sizeof c.buf);
  ornic_frame *g = &c.got;
  ck_assert_int_eq(ornic_frame_decode(g, c.buf, c.len, ORNIC_LINK_ETHERNET, 4791), ORNIC_OK);
  ck_assert_uint_eq(g->layers,
                    ORNIC_LAYER_ETH | ORNIC_LAYER_L3 | ORNIC_LAYER_UDP | ORNIC_LAYER_BTH);
  /* another port: NOT_ROCE after the UDP header was read; ANY takes it */
  ck_assert_int_eq(ornic_frame_decode(g, c.buf, c.len, ORNIC_LINK_ETHERNET, 4790),
                   ORNIC_ERR_NOT_ROCE);
  ck_assert_uint_eq(g->layers, ORNIC_LAYER_ETH | ORNIC_LAYER_L3 | ORNIC_LAYER_UDP);
  ck_assert_int_eq(ornic_frame_decode(g, c.buf, c.len, ORNIC_LINK_ETHERNET, ORNIC_UDP_PORT_ANY),
                   ORNIC_OK);
  /* cut inside the BTH: no BTH bit */
  ck_assert_int_eq(ornic_frame_decode(g, c.buf, 50, ORNIC_LINK_ETHERNET, 4791),
                   ORNIC_ERR_TRUNCATED);
  ck_assert_uint_eq(g->layers & ORNIC_LAYER_BTH, 0);
  /* from the BTH: offset 0 and the bit set */
  ck_assert_int_eq(ornic_roce_decode(g, c.buf + 42, c.len - 42), ORNIC_OK);
  ck_assert_uint_eq(g->layers, ORNIC_LAYER_BTH);
  ck_assert_uint_eq(g->bth_off, 0);
  ck_assert_int_eq(ornic_roce_decode(g, c.buf + 42, 0), ORNIC_ERR_TRUNCATED);
  ck_assert_uint_eq(g->layers, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rules");
  TCase *tc = tu_tcase("rules");
  tcase_add_test(tc, nak_iterator_matches_protocol);
  tcase_add_test(tc, nak_iterator_wraps);
  tcase_add_test(tc, lint_clean_frames);
  tcase_add_test(tc, lint_each_rule);
  tcase_add_test(tc, lint_pad_alignment);
  tcase_add_test(tc, lint_names);
  tcase_add_test(tc, malformed_names);
  tcase_add_test(tc, malformed_explained);
  tcase_add_test(tc, encode_failure_writes_nothing);
  tcase_add_test(tc, layers_say_what_was_read);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
