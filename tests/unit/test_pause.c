/* SPDX-License-Identifier: MIT */
/* MAC Control PAUSE (802.3 Annex 31B) and PFC (802.1Qbb) frames
 * (ornic/pause.h, docs/PROTOCOL.md 2.9): hand-built frames, one per edge,
 * every truncation of each, read right before an unreadable page; the
 * encoder against the same hand-built frames and Scapy's, and through the
 * decoder. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "testutil.h"

#include "ornic/pause.h"

/* PFC from 02:00:00:00:00:0a, classes 3 and 5 enabled (vector 0x0028): class
 * 3 pauses for 0xffff quanta, class 5 resumes (0 quanta, XON); the disabled
 * classes carry values a reader must ignore (1, 2, ...), then padding to 60
 * bytes. */
static const uint8_t pfc_two[60] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a, /* dst, src */
    0x88, 0x08, 0x01, 0x01, 0x00, 0x28,                                     /* PFC, vector */
    0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0xff, 0xff,                         /* classes 0-3 */
    0x00, 0x05, 0x00, 0x00, 0x00, 0x07, 0x00, 0x08,                         /* classes 4-7 */
};
#define PFC_FIELDS_END (14 + 2 + 18)

/* 802.3x PAUSE from 02:00:00:00:00:0b, pause_time 0x1234, padded to 60 bytes. */
static const uint8_t pause_one[60] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0b, /* dst, src */
    0x88, 0x08, 0x00, 0x01, 0x12, 0x34, /* MAC Control, PAUSE, pause_time */
};
#define PAUSE_FIELDS_END (14 + 2 + 2)

/* PFC behind one 802.1Q tag (VLAN 100, PCP 7): class 0 only, 0x0100 quanta;
 * captured as sent, without padding (an outgoing frame on Linux). */
static const uint8_t pfc_vlan[38] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0c, /* dst, src */
    0x81, 0x00, 0xe0, 0x64,                         /* 802.1Q, PCP 7, VLAN 100 */
    0x88, 0x08, 0x01, 0x01, 0x00, 0x01,             /* MAC Control, PFC, vector */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* classes 0-3 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* classes 4-7 */
};

/* PFC behind two tags, 802.1ad outer then 802.1Q inner: classes 6 and 7. */
static const uint8_t pfc_qinq[42] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0d, /* dst, src */
    0x88, 0xa8, 0x00, 0x0a, 0x81, 0x00, 0x00, 0x14, /* 802.1ad VLAN 10, 802.1Q VLAN 20 */
    0x88, 0x08, 0x01, 0x01, 0x00, 0xc0,             /* MAC Control, PFC, vector */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* classes 0-3 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x20, /* classes 4-7 */
};

/* Three tags: more than the decoder walks, so not MAC Control to it. */
static const uint8_t pfc_three_tags[46] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0e, /* dst, src */
    0x88, 0xa8, 0x00, 0x0a, 0x81, 0x00, 0x00, 0x14, 0x81, 0x00, 0x00, 0x15, /* three tags */
    0x88, 0x08, 0x01, 0x01, 0x00, 0x01, 0x00, 0x01, /* MAC Control, PFC, vector, class 0 */
};

/* MAC Control with EPON's GATE opcode 0x0002 (802.3 Annex 31A): not flow control. */
static const uint8_t macc_gate[60] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0f, /* dst, src */
    0x88, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, /* MAC Control, GATE, timestamp */
};

/* An IPv4 frame: another EtherType. */
static const uint8_t ipv4_frame[34] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45,
};

/* The layout 1.x keeps (docs/ABI.md): new fields come from the reserved tail,
 * which ends where the struct does. tests/abi's baseline holds it from the
 * next release on. */
_Static_assert(sizeof(ornic_pause) == 48, "ornic_pause: 48 bytes");
_Static_assert(offsetof(ornic_pause, enable) == 14 && offsetof(ornic_pause, quanta) == 16,
               "ornic_pause: field offsets");
_Static_assert(offsetof(ornic_pause, reserved) == 32 && sizeof(((ornic_pause *)0)->reserved) == 16,
               "ornic_pause: the reserved tail");

static void fill_garbage(ornic_pause *p) { memset(p, 0xa5, sizeof *p); }

static void assert_reserved_zero(const ornic_pause *p) {
  for (size_t i = 0; i < sizeof p->reserved / sizeof p->reserved[0]; i++)
    ck_assert_uint_eq(p->reserved[i], 0);
}

static const uint8_t reserved_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

static bool all_zero_mac(const uint8_t *m) {
  static const uint8_t zero[6];
  return !memcmp(m, zero, 6);
}

START_TEST(pfc_two_classes) {
  ornic_pause p;
  fill_garbage(&p);
  ck_assert_int_eq(ornic_pause_decode(pfc_two, sizeof pfc_two, ORNIC_LINK_ETHERNET, &p), ORNIC_OK);
  ck_assert_uint_eq(p.opcode, ORNIC_PAUSE_OP_PFC);
  static const uint8_t src[6] = {0x02, 0, 0, 0, 0, 0x0a};
  ck_assert_mem_eq(p.src, src, 6);
  ck_assert_mem_eq(p.dst, reserved_dst, 6);
  ck_assert_uint_eq(p.enable, 0x0028);
  ck_assert_uint_eq(p.quanta[3], 0xffff);
  ck_assert_uint_eq(p.quanta[5], 0);
  /* the disabled classes' bytes, as on the wire */
  static const uint16_t want[8] = {1, 2, 3, 0xffff, 5, 0, 7, 8};
  for (int i = 0; i < 8; i++) ck_assert_uint_eq(p.quanta[i], want[i]);
  assert_reserved_zero(&p);
}
END_TEST

START_TEST(pause_802_3x) {
  ornic_pause p;
  fill_garbage(&p);
  ck_assert_int_eq(ornic_pause_decode(pause_one, sizeof pause_one, ORNIC_LINK_ETHERNET, &p),
                   ORNIC_OK);
  ck_assert_uint_eq(p.opcode, ORNIC_PAUSE_OP_PAUSE);
  ck_assert_uint_eq(p.src[5], 0x0b);
  ck_assert_mem_eq(p.dst, reserved_dst, 6);
  ck_assert_uint_eq(p.enable, 0);
  ck_assert_uint_eq(p.quanta[0], 0x1234);
  for (int i = 1; i < 8; i++) ck_assert_uint_eq(p.quanta[i], 0);
  assert_reserved_zero(&p);
}
END_TEST

START_TEST(pfc_one_tag_unpadded) {
  ornic_pause p;
  fill_garbage(&p);
  ck_assert_int_eq(ornic_pause_decode(pfc_vlan, sizeof pfc_vlan, ORNIC_LINK_ETHERNET, &p),
                   ORNIC_OK);
  ck_assert_uint_eq(p.opcode, ORNIC_PAUSE_OP_PFC);
  ck_assert_uint_eq(p.src[5], 0x0c);
  ck_assert_uint_eq(p.enable, 0x0001);
  ck_assert_uint_eq(p.quanta[0], 0x0100);
  for (int i = 1; i < 8; i++) ck_assert_uint_eq(p.quanta[i], 0);
}
END_TEST

START_TEST(pfc_two_tags) {
  ornic_pause p;
  ck_assert_int_eq(ornic_pause_decode(pfc_qinq, sizeof pfc_qinq, ORNIC_LINK_ETHERNET, &p),
                   ORNIC_OK);
  ck_assert_uint_eq(p.enable, 0x00c0);
  ck_assert_uint_eq(p.quanta[6], 0x0010);
  ck_assert_uint_eq(p.quanta[7], 0x0020);
  ck_assert_int_eq(
      ornic_pause_decode(pfc_three_tags, sizeof pfc_three_tags, ORNIC_LINK_ETHERNET, &p),
      ORNIC_ERR_NOT_ROCE);
}
END_TEST

START_TEST(other_opcode_and_ethertype) {
  ornic_pause p;
  fill_garbage(&p);
  ck_assert_int_eq(ornic_pause_decode(macc_gate, sizeof macc_gate, ORNIC_LINK_ETHERNET, &p),
                   ORNIC_ERR_UNSUPPORTED);
  ck_assert_uint_eq(p.opcode, 0x0002);
  ck_assert_uint_eq(p.src[5], 0x0f);
  ck_assert_uint_eq(p.enable, 0);
  ck_assert_uint_eq(p.quanta[0], 0);
  assert_reserved_zero(&p);
  fill_garbage(&p);
  ck_assert_int_eq(ornic_pause_decode(ipv4_frame, sizeof ipv4_frame, ORNIC_LINK_ETHERNET, &p),
                   ORNIC_ERR_NOT_ROCE);
  ck_assert_uint_eq(p.opcode, 0);
}
END_TEST

START_TEST(links) {
  ornic_pause p;
  ck_assert_int_eq(ornic_pause_decode(pfc_two, sizeof pfc_two, ORNIC_LINK_RAW_IP, &p),
                   ORNIC_ERR_NOT_ROCE);
  ck_assert_int_eq(ornic_pause_decode(pfc_two, sizeof pfc_two, ORNIC_LINK_GRH, &p),
                   ORNIC_ERR_NOT_ROCE);
  ck_assert_int_eq(ornic_pause_decode(pfc_two, sizeof pfc_two, ORNIC_LINK_IB, &p),
                   ORNIC_ERR_NOT_ROCE);
  ck_assert_int_eq(ornic_pause_decode(pfc_two, sizeof pfc_two, (ornic_link)99, &p),
                   ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_pause_decode(pfc_two, 0, ORNIC_LINK_ETHERNET, &p), ORNIC_ERR_TRUNCATED);
}
END_TEST

/* Every cut before the end of the opcode's fields is truncated, read right
 * before an unreadable page; the whole fields decode the same as the frame. */
static void every_truncation(const uint8_t *frame, size_t fields_end, size_t len) {
  tu_guard g;
  tu_guard_init(&g);
  ornic_pause whole, p;
  ck_assert_int_eq(ornic_pause_decode(frame, len, ORNIC_LINK_ETHERNET, &whole), ORNIC_OK);
  for (size_t n = 0; n <= len; n++) {
    const uint8_t *at = tu_guard_tail(&g, frame, n);
    int rc = ornic_pause_decode(at, n, ORNIC_LINK_ETHERNET, &p);
    if (n < fields_end) {
      ck_assert_msg(rc == ORNIC_ERR_TRUNCATED, "%zu bytes: %d", n, rc);
      if (n >= 14) ck_assert_mem_eq(p.src, whole.src, 6);
    } else {
      ck_assert_msg(rc == ORNIC_OK, "%zu bytes: %d", n, rc);
      ck_assert_mem_eq(&p, &whole, sizeof p);
    }
  }
  tu_guard_free(&g);
}

START_TEST(truncated_everywhere) {
  every_truncation(pfc_two, PFC_FIELDS_END, sizeof pfc_two);
  every_truncation(pause_one, PAUSE_FIELDS_END, sizeof pause_one);
  every_truncation(pfc_vlan, sizeof pfc_vlan, sizeof pfc_vlan);
  every_truncation(pfc_qinq, sizeof pfc_qinq, sizeof pfc_qinq);
}
END_TEST

/* A frame cut inside the opcode's fields keeps the opcode and addresses. */
START_TEST(truncated_keeps_what_was_read) {
  ornic_pause p;
  ck_assert_int_eq(ornic_pause_decode(pfc_two, PFC_FIELDS_END - 1, ORNIC_LINK_ETHERNET, &p),
                   ORNIC_ERR_TRUNCATED);
  ck_assert_uint_eq(p.opcode, ORNIC_PAUSE_OP_PFC);
  ck_assert_uint_eq(p.src[5], 0x0a);
  ck_assert_uint_eq(p.enable, 0); /* the fields are all or nothing */
}
END_TEST

/* 512 bit times per quantum: q * 512 / gbps ns, to the nearest. */
START_TEST(pause_time_ns) {
  ck_assert_uint_eq(ornic_pause_ns(0xffff, 100), 335539); /* 335539.2 */
  ck_assert_uint_eq(ornic_pause_ns(1, 100), 5);           /* 5.12 */
  ck_assert_uint_eq(ornic_pause_ns(1, 25), 20);           /* 20.48 */
  ck_assert_uint_eq(ornic_pause_ns(3, 10), 154);          /* 153.6 */
  ck_assert_uint_eq(ornic_pause_ns(0xffff, 400), 83885);  /* 83884.8 */
  ck_assert_uint_eq(ornic_pause_ns(1, 1), 512);
  ck_assert_uint_eq(ornic_pause_ns(0xffff, 1), 33553920);
  ck_assert_uint_eq(ornic_pause_ns(0, 100), 0);
  ck_assert_uint_eq(ornic_pause_ns(100, 0), 0);
  ck_assert_uint_eq(ornic_pause_ns(0xffff, UINT32_MAX), 0);
}
END_TEST

/* ---- the encoder ------------------------------------------------------- */

/* Built by Scapy 2.5 (scapy.contrib.mac_control), an implementation written
 * apart from this library:
 *   Ether(dst='01:80:c2:00:00:01', src='02:00:00:00:00:10') /
 *   MACControlClassBasedFlowControl(c0_enabled=1, c2_enabled=1, c5_enabled=1,
 *     c7_enabled=1, c0_pause_time=0xffff, c1_pause_time=0x0102,
 *     c2_pause_time=0x0304, c3_pause_time=0, c4_pause_time=0x0506,
 *     c5_pause_time=0x8000, c6_pause_time=0x0708, c7_pause_time=0x00ff)
 * bytes(...): 60 bytes, Scapy's own padding. tests/e2e/test_scapy_oracle.py
 * compares random frames with Scapy's at run time. */
static const uint8_t scapy_pfc[60] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x10,
    0x88, 0x08, 0x01, 0x01, 0x00, 0xa5, 0xff, 0xff, 0x01, 0x02, 0x03, 0x04,
    0x00, 0x00, 0x05, 0x06, 0x80, 0x00, 0x07, 0x08, 0x00, 0xff, /* then zeros */
};

/* Scapy 2.5: Ether(dst='02:00:00:00:00:20', src='02:00:00:00:00:11') /
 * MACControlPause(pause_time=0xffff): a PAUSE to the peer's own address. */
static const uint8_t scapy_pause[60] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x20, 0x02, 0x00, 0x00,
    0x00, 0x00, 0x11, 0x88, 0x08, 0x00, 0x01, 0xff, 0xff, /* then zeros */
};

/* Encodes into the last 60 bytes before an unreadable page (a write past
 * the frame faults) and compares with `want`. */
static void assert_encodes_to(const ornic_pause *in, const uint8_t *want) {
  tu_guard g;
  tu_guard_init(&g);
  uint8_t garbage[ORNIC_PAUSE_FRAME_LEN];
  memset(garbage, 0xa5, sizeof garbage);
  uint8_t *out = tu_guard_tail(&g, garbage, ORNIC_PAUSE_FRAME_LEN);
  ck_assert_int_eq(ornic_pause_encode(out, ORNIC_PAUSE_FRAME_LEN, in), ORNIC_PAUSE_FRAME_LEN);
  ck_assert_mem_eq(out, want, ORNIC_PAUSE_FRAME_LEN);
  tu_guard_free(&g);
}

/* The hand-built frames above (802.1Qbb / 802.3 Annex 31B layout, written
 * for the decoder) come out byte for byte, padding included; dst left zero
 * is the reserved address. */
START_TEST(encode_hand_built) {
  ornic_pause in = {
      .opcode = ORNIC_PAUSE_OP_PFC, .enable = 0x0028, .quanta = {1, 2, 3, 0xffff, 5, 0, 7, 8}};
  memcpy(in.src, (const uint8_t[6]){0x02, 0, 0, 0, 0, 0x0a}, 6);
  assert_encodes_to(&in, pfc_two);
  ornic_pause pz = {.opcode = ORNIC_PAUSE_OP_PAUSE, .quanta = {0x1234}};
  memcpy(pz.src, (const uint8_t[6]){0x02, 0, 0, 0, 0, 0x0b}, 6);
  assert_encodes_to(&pz, pause_one);
  /* PAUSE reads neither enable nor quanta[1..7] */
  pz.enable = 0xffff;
  for (int i = 1; i < 8; i++) pz.quanta[i] = 0xeeee;
  assert_encodes_to(&pz, pause_one);
  /* nor the reserved tail */
  memset(in.reserved, 0xff, sizeof in.reserved);
  assert_encodes_to(&in, pfc_two);
}
END_TEST

START_TEST(encode_matches_scapy) {
  ornic_pause in = {.opcode = ORNIC_PAUSE_OP_PFC,
                    .enable = 0x00a5,
                    .quanta = {0xffff, 0x0102, 0x0304, 0, 0x0506, 0x8000, 0x0708, 0x00ff}};
  memcpy(in.src, (const uint8_t[6]){0x02, 0, 0, 0, 0, 0x10}, 6);
  memcpy(in.dst, reserved_dst, 6); /* given explicitly this time */
  assert_encodes_to(&in, scapy_pfc);
  ornic_pause pz = {.opcode = ORNIC_PAUSE_OP_PAUSE, .quanta = {0xffff}};
  memcpy(pz.src, (const uint8_t[6]){0x02, 0, 0, 0, 0, 0x11}, 6);
  memcpy(pz.dst, (const uint8_t[6]){0x02, 0, 0, 0, 0, 0x20}, 6);
  assert_encodes_to(&pz, scapy_pause);
}
END_TEST

/* decode(encode(x)) == x for random PAUSE and PFC frames (PAUSE: enable and
 * quanta[1..7] come back 0, dst the reserved address when left zero), the
 * reserved vector bits 15:8 included. */
START_TEST(encode_decode_round_trip) {
  tu_rng r;
  tu_seed(&r, 0x8808);
  for (int n = 0; n < 20000; n++) {
    ornic_pause in, got;
    memset(&in, 0, sizeof in);
    in.opcode = tu_bits(&r, 1) ? ORNIC_PAUSE_OP_PFC : ORNIC_PAUSE_OP_PAUSE;
    tu_fill(&r, in.src, 6);
    if (tu_bits(&r, 1)) tu_fill(&r, in.dst, 6);
    in.enable = (uint16_t)tu_bits(&r, 16);
    for (int i = 0; i < 8; i++) in.quanta[i] = (uint16_t)tu_bits(&r, 16);
    uint8_t buf[ORNIC_PAUSE_FRAME_LEN + 4];
    memset(buf, 0xa5, sizeof buf);
    ck_assert_int_eq(ornic_pause_encode(buf, sizeof buf, &in), ORNIC_PAUSE_FRAME_LEN);
    for (size_t i = ORNIC_PAUSE_FRAME_LEN; i < sizeof buf; i++) ck_assert_uint_eq(buf[i], 0xa5);
    ck_assert_int_eq(ornic_pause_decode(buf, ORNIC_PAUSE_FRAME_LEN, ORNIC_LINK_ETHERNET, &got),
                     ORNIC_OK);
    ornic_pause want = in;
    if (all_zero_mac(in.dst)) memcpy(want.dst, reserved_dst, 6);
    if (in.opcode == ORNIC_PAUSE_OP_PAUSE) {
      want.enable = 0;
      for (int i = 1; i < 8; i++) want.quanta[i] = 0;
    }
    ck_assert_mem_eq(&got, &want, sizeof got);
    /* the fields end at 18 (PAUSE) or 34 (PFC); zeros after them */
    size_t end = in.opcode == ORNIC_PAUSE_OP_PAUSE ? PAUSE_FIELDS_END : PFC_FIELDS_END;
    for (size_t i = end; i < ORNIC_PAUSE_FRAME_LEN; i++) ck_assert_uint_eq(buf[i], 0);
  }
}
END_TEST

/* Another opcode is refused, a short buffer too, both before any write. */
START_TEST(encode_errors_leave_out_untouched) {
  uint8_t buf[ORNIC_PAUSE_FRAME_LEN], before[ORNIC_PAUSE_FRAME_LEN];
  memset(buf, 0x5a, sizeof buf);
  memcpy(before, buf, sizeof buf);
  ornic_pause in = {.opcode = 0x0002}; /* EPON's GATE */
  ck_assert_int_eq(ornic_pause_encode(buf, sizeof buf, &in), ORNIC_ERR_INVALID_ARG);
  in.opcode = 0;
  ck_assert_int_eq(ornic_pause_encode(buf, sizeof buf, &in), ORNIC_ERR_INVALID_ARG);
  in.opcode = ORNIC_PAUSE_OP_PFC;
  ck_assert_int_eq(ornic_pause_encode(buf, ORNIC_PAUSE_FRAME_LEN - 1, &in), ORNIC_ERR_NOBUF);
  ck_assert_int_eq(ornic_pause_encode(NULL, 0, &in), ORNIC_ERR_NOBUF);
  in.opcode = ORNIC_PAUSE_OP_PAUSE;
  ck_assert_int_eq(ornic_pause_encode(buf, 17, &in), ORNIC_ERR_NOBUF);
  ck_assert_mem_eq(buf, before, sizeof buf);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("pause");
  TCase *tc = tu_tcase("pause");
  tcase_add_test(tc, pfc_two_classes);
  tcase_add_test(tc, pause_802_3x);
  tcase_add_test(tc, pfc_one_tag_unpadded);
  tcase_add_test(tc, pfc_two_tags);
  tcase_add_test(tc, other_opcode_and_ethertype);
  tcase_add_test(tc, links);
  tcase_add_test(tc, truncated_everywhere);
  tcase_add_test(tc, truncated_keeps_what_was_read);
  tcase_add_test(tc, pause_time_ns);
  tcase_add_test(tc, encode_hand_built);
  tcase_add_test(tc, encode_matches_scapy);
  tcase_add_test(tc, encode_decode_round_trip);
  tcase_add_test(tc, encode_errors_leave_out_untouched);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
