/* SPDX-License-Identifier: MIT */
/* ornic_frame_decode on malformed frames (PROTOCOL.md D3): decode
 * as much as the bytes allow, return ORNIC_ERR_MALFORMED, say which rule
 * (f.malformed), and locate the iCRC whenever the lengths do, so that a
 * corrupted frame (bad iCRC) can be told from a sender that lays an opcode out
 * its own way (good iCRC, malformed layout). One byte array per case; iCRCs
 * come from the test's own reference, tu_ref_icrc. */
#include <string.h>

#include "testutil.h"

#define L3 14  /* Ethernet II, no tag */
#define BTH 42 /* 14 + 20 + 8 */

/* Write the reference iCRC of the l3_len bytes from the IP header (iCRC
 * included) into their last 4 bytes, as the wire carries it. */
static void put_ref_icrc(uint8_t *frame, size_t l3_len) {
  uint32_t v = tu_ref_icrc(frame + L3, 4, l3_len);
  uint8_t *p = frame + L3 + l3_len - 4;
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static int dec(ornic_frame *f, const uint8_t *frame, size_t n) {
  return ornic_frame_decode(f, frame, n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
}

/* From a SystemVerilog packet generator: IP total length 108, UDP length 28.
 * The UDP datagram (RC SEND Only, 4 payload bytes, iCRC) ends 60 bytes before
 * the IP datagram does. Wireshark decodes the BTH inside the UDP length and
 * flags the rest; so do we, with the iCRC at the end of the UDP payload. */
START_TEST(ip_108_udp_28) {
  uint8_t frame[] = {
      0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
      /* IPv4, total length 108 */
      0x45, 0x00, 0x00, 0x6c, 0x00, 0x01, 0x40, 0x00, 0x40, 0x11, 0x26, 0x7e, 0x0a, 0x00, 0x00,
      0x01, 0x0a, 0x00, 0x00, 0x02,
      /* UDP 49152 -> 4791, length 28 */
      0xc0, 0x00, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00,
      /* BTH: RC SEND Only, P_Key 0xffff, DestQP 0x1234, PSN 7 */
      0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0x07, 0xde, 0xad, 0xbe,
      0xef,                   /* payload */
      0x00, 0x00, 0x00, 0x00, /* iCRC, computed below */
      /* 60 bytes the IP length covers and the UDP length does not */
      0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
      0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
      0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
      0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa};
  ck_assert_uint_eq(sizeof frame, L3 + 108);
  put_ref_icrc(frame, 20 + 28);
  ornic_frame f;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_UDP_SHORT);
  ck_assert_uint_eq(f.ip.total_len, 108);
  ck_assert_uint_eq(f.udp.len, 28);
  ck_assert_uint_eq(f.bth_off, BTH);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_RC_SEND_ONLY);
  ck_assert_uint_eq(f.bth.destqp, 0x1234);
  ck_assert_uint_eq(f.bth.psn, 7);
  ck_assert_ptr_eq(f.payload, frame + BTH + 12);
  ck_assert_uint_eq(f.payload_len, 4);
  ck_assert_uint_eq(f.payload_caplen, 4);
  ck_assert_uint_eq(f.pad_len, 0);
  ck_assert_uint_eq(f.roce_end, L3 + 20 + 28);
  ck_assert_uint_eq(f.icrc_off, L3 + 20 + 28 - 4);
  ck_assert(f.icrc_present);
  ck_assert_int_eq(ornic_icrc_verify(&f, frame), ORNIC_OK);
  uint32_t want;
  ck_assert_int_eq(ornic_icrc_compute(&f, frame, &want), ORNIC_OK);
  ck_assert_uint_eq(want, tu_ref_icrc(frame + L3, 4, 48));
  /* the same frame cut by a snaplen inside the payload: still malformed, iCRC not captured */
  ck_assert_int_eq(dec(&f, frame, BTH + 14), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_UDP_SHORT);
  ck_assert(!f.icrc_present);
  ck_assert_uint_eq(f.payload_caplen, 2);
  ck_assert_int_eq(ornic_icrc_verify(&f, frame), ORNIC_ERR_TRUNCATED);
  /* a byte of the UDP datagram changed: the iCRC says so */
  frame[BTH + 13] ^= 0x01;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_int_eq(ornic_icrc_verify(&f, frame), ORNIC_ERR_BAD_ICRC);
  /* the trailing bytes are outside the iCRC */
  frame[BTH + 13] ^= 0x01;
  frame[sizeof frame - 1] = 0x55;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_int_eq(ornic_icrc_verify(&f, frame), ORNIC_OK);
}
END_TEST

/* The reverse: IP total length 60 (BTH + RETH + 4 bytes), UDP length 48, 8
 * more than the IP datagram holds. The RoCE bytes end with the IP datagram;
 * where the UDP length puts the iCRC is outside it, so the iCRC is not
 * located and no payload is claimed. */
START_TEST(udp_longer_than_ip) {
  const uint8_t frame[] = {
      0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
      /* IPv4, total length 60 */
      0x45, 0x00, 0x00, 0x3c, 0x00, 0x01, 0x40, 0x00, 0x40, 0x11, 0x26, 0xae, 0x0a, 0x00, 0x00,
      0x01, 0x0a, 0x00, 0x00, 0x02,
      /* UDP, length 48 */
      0xc0, 0x00, 0x12, 0xb7, 0x00, 0x30, 0x00, 0x00,
      /* BTH: RC RDMA WRITE Only, DestQP 0x000011, PSN 0x123456 */
      0x0a, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x12, 0x34, 0x56,
      /* RETH: VA 0x1000, R_Key 0xabcd, DMA length 8 */
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0xab, 0xcd, 0x00, 0x00, 0x00,
      0x08, 0x01, 0x02, 0x03, 0x04,                    /* end of the IP datagram */
      0x05, 0x06, 0x07, 0x08, 0x11, 0x22, 0x33, 0x44}; /* what the UDP length would add */
  ornic_frame f;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_UDP_LONG);
  ck_assert_uint_eq(f.udp.len, 48);
  ck_assert_uint_eq(f.roce_end, L3 + 60);
  ck_assert_uint_eq(f.bth_off, BTH);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_RC_RDMA_WRITE_ONLY);
  ck_assert_uint_eq(f.bth.psn, 0x123456);
  ck_assert(f.bth.ackreq);
  ck_assert_uint_eq(f.ext.present, ORNIC_HDR_RETH);
  ck_assert_uint_eq(f.ext.reth.va, 0x1000);
  ck_assert_uint_eq(f.ext.reth.rkey, 0xabcd);
  ck_assert_uint_eq(f.ext.reth.dmalen, 8);
  ck_assert_uint_eq(f.payload_off, BTH + 12 + 16);
  ck_assert_ptr_null(f.payload);
  ck_assert_uint_eq(f.icrc_off, 0);
  ck_assert(!f.icrc_present);
  ck_assert_int_eq(ornic_icrc_verify(&f, frame), ORNIC_ERR_TRUNCATED);
  /* the same over IPv6: payload length 40, UDP length 48 */
  const uint8_t v6[] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
                        0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x28, 0x11, 0x40, 0xfd, 0x00,
                        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                        0x00, 0x01, 0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                        0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc0, 0x00, 0x12, 0xb7, 0x00, 0x30,
                        0x00, 0x00, 0x0a, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x12,
                        0x34, 0x56, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
                        0xab, 0xcd, 0x00, 0x00, 0x00, 0x08, 0x01, 0x02, 0x03, 0x04};
  ck_assert_int_eq(dec(&f, v6, sizeof v6), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_UDP_LONG);
  ck_assert_uint_eq(f.bth_off, L3 + 40 + 8);
  ck_assert_uint_eq(f.ext.present, ORNIC_HDR_RETH);
  ck_assert_uint_eq(f.icrc_off, 0);
}
END_TEST

/* UDP lengths below 8 + 12 + 4: no room for BTH and iCRC. The BTH is still
 * read when it fits; nothing is located after it. */
START_TEST(udp_too_short_for_bth_and_icrc) {
  uint8_t frame[] = {
      0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
      /* IPv4, total length 40 = 20 + UDP length 20 (the two agree) */
      0x45, 0x00, 0x00, 0x28, 0x00, 0x01, 0x40, 0x00, 0x40, 0x11, 0x26, 0xc2, 0x0a, 0x00, 0x00,
      0x01, 0x0a, 0x00, 0x00, 0x02, 0xc0, 0x00, 0x12, 0xb7, 0x00, 0x14, 0x00, 0x00,
      /* BTH: RC Acknowledge, DestQP 0x000022, PSN 9; its AETH and the iCRC are missing */
      0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0x09};
  ornic_frame f;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_ROCE_SHORT);
  ck_assert_uint_eq(f.bth_off, BTH);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_RC_ACK);
  ck_assert_uint_eq(f.bth.psn, 9);
  ck_assert_uint_eq(f.ext.present, 0);
  ck_assert_uint_eq(f.icrc_off, 0);
  ck_assert(!f.icrc_present);
  ck_assert_uint_eq(f.roce_end, sizeof frame);
  /* UDP length 23: one byte short of BTH + iCRC */
  frame[L3 + 3] = 20 + 23;
  frame[L3 + 20 + 5] = 23;
  uint8_t longer[sizeof frame + 3];
  memcpy(longer, frame, sizeof frame);
  memset(longer + sizeof frame, 0, 3);
  ck_assert_int_eq(dec(&f, longer, sizeof longer), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_ROCE_SHORT);
  ck_assert_uint_eq(f.bth_off, BTH);
  ck_assert_uint_eq(f.icrc_off, 0);
  /* UDP length 16: not even the BTH fits; the UDP header is still read */
  frame[L3 + 3] = 20 + 16;
  frame[L3 + 20 + 5] = 16;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_ROCE_SHORT);
  ck_assert_uint_eq(f.udp.len, 16);
  ck_assert_uint_eq(f.roce_end, L3 + 20 + 16);
  ck_assert_uint_eq(f.bth_off, 0);
  /* UDP length 4 (less than its own header), IP length 40: both rules */
  frame[L3 + 3] = 40;
  frame[L3 + 20 + 5] = 4;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_UDP_SHORT | ORNIC_MAL_ROCE_SHORT);
  ck_assert_uint_eq(f.bth_off, 0);
  /* IP total length 24: no room for the UDP header, which is not read */
  frame[L3 + 3] = 24;
  frame[L3 + 20 + 5] = 20;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_IP_LEN);
  ck_assert_uint_eq(f.roce_end, 0);
}
END_TEST

/* Opcode 0xC0 (OOO WRITE FSpot: RETH + OFFETH = 20 bytes) built by Scapy for
 * a vendor-defined use, with 16 bytes after the BTH. The iCRC covers them
 * whatever they mean: a good iCRC says the sender meant it. */
static uint8_t c0_frame[] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
    /* IPv4, total length 60 */
    0x45, 0x00, 0x00, 0x3c, 0x00, 0x01, 0x40, 0x00, 0x40, 0x11, 0x26, 0xae, 0x0a, 0x00, 0x00, 0x01,
    0x0a, 0x00, 0x00, 0x02,
    /* UDP, length 40 */
    0xc0, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
    /* BTH: opcode 0xC0, DestQP 0x000100, PSN 1 */
    0xc0, 0x00, 0xff, 0xff, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01,
    /* 16 vendor bytes: read as a RETH, then no room for the OFFETH */
    0x00, 0x00, 0x00, 0x00, 0xca, 0xfe, 0x00, 0x00, 0x00, 0x00, 0x00, 0x42, 0x00, 0x00, 0x10, 0x00,
    0x00, 0x00, 0x00, 0x00}; /* iCRC, computed by the test */

START_TEST(opcode_c0_vendor_layout_good_icrc) {
  uint8_t frame[sizeof c0_frame];
  memcpy(frame, c0_frame, sizeof frame);
  put_ref_icrc(frame, 60);
  ornic_frame f;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_EXT);
  ck_assert_uint_eq(f.bth_off, BTH);
  ck_assert_uint_eq(f.bth.opcode, 0xC0);
  ck_assert_uint_eq(f.ext.present, ORNIC_HDR_RETH);
  ck_assert_uint_eq(f.ext.reth.va, 0xcafe0000u);
  ck_assert_ptr_null(f.payload);
  ck_assert(f.icrc_present);
  ck_assert_uint_eq(f.icrc_off, BTH + 12 + 16);
  ck_assert_uint_eq(f.roce_end, sizeof frame);
  ck_assert_int_eq(ornic_icrc_verify(&f, frame), ORNIC_OK);
  uint32_t want;
  ck_assert_int_eq(ornic_icrc_compute(&f, frame, &want), ORNIC_OK);
  ck_assert_uint_eq(want, f.icrc);
}
END_TEST

START_TEST(opcode_c0_vendor_layout_bad_icrc) {
  uint8_t frame[sizeof c0_frame];
  memcpy(frame, c0_frame, sizeof frame);
  put_ref_icrc(frame, 60);
  frame[BTH + 12 + 9] ^= 0x80; /* one vendor byte flipped after the iCRC was computed */
  ornic_frame f;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_EXT);
  ck_assert(f.icrc_present);
  ck_assert_int_eq(ornic_icrc_verify(&f, frame), ORNIC_ERR_BAD_ICRC);
}
END_TEST

/* Rules after the extension headers name themselves too, and the iCRC stays
 * verifiable: PadCnt 3 on an RC Acknowledge (D5). */
START_TEST(rule_bits_after_the_headers) {
  uint8_t frame[] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08,
                     0x00, 0x45, 0x00, 0x00, 0x30, 0x00, 0x01, 0x40, 0x00, 0x40, 0x11, 0x26, 0xba,
                     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xc0, 0x00, 0x12, 0xb7, 0x00,
                     0x1c, 0x00, 0x00,
                     /* BTH: RC Acknowledge with PadCnt 3 */
                     0x11, 0x30, 0xff, 0xff, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0x09, 0x1f,
                     0x00, 0x00, 0x05, /* AETH */
                     0x00, 0x00, 0x00, 0x00};
  put_ref_icrc(frame, 48);
  ornic_frame f;
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_PAD);
  ck_assert_uint_eq(f.ext.present, ORNIC_HDR_AETH);
  ck_assert_int_eq(ornic_icrc_verify(&f, frame), ORNIC_OK);
  /* PadCnt 0 and the frame is whole: no rule broken */
  frame[BTH + 1] = 0x00;
  put_ref_icrc(frame, 48);
  ck_assert_int_eq(dec(&f, frame, sizeof frame), ORNIC_OK);
  ck_assert_uint_eq(f.malformed, 0);
}
END_TEST

/* RoCEv1: a GRH payload length of 12 holds the BTH but no iCRC. */
START_TEST(grh_payload_without_icrc) {
  const uint8_t grh[] = {0x60, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x1b, 0x40, 0xfe, 0x80, 0x00, 0x00,
                         0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
                         0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                         0x00, 0x00, 0x00, 0x02, 0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x33,
                         0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00};
  ornic_frame f;
  ck_assert_int_eq(ornic_frame_decode(&f, grh, sizeof grh, ORNIC_LINK_GRH, ORNIC_ROCEV2_UDP_PORT),
                   ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_ROCE_SHORT);
  ck_assert_uint_eq(f.bth_off, 40);
  ck_assert_uint_eq(f.bth.destqp, 0x33);
  ck_assert_uint_eq(f.icrc_off, 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("lenient");
  TCase *tc = tu_tcase("lengths");
  tcase_add_test(tc, ip_108_udp_28);
  tcase_add_test(tc, udp_longer_than_ip);
  tcase_add_test(tc, udp_too_short_for_bth_and_icrc);
  tcase_add_test(tc, grh_payload_without_icrc);
  suite_add_tcase(s, tc);
  tc = tu_tcase("layout");
  tcase_add_test(tc, opcode_c0_vendor_layout_good_icrc);
  tcase_add_test(tc, opcode_c0_vendor_layout_bad_icrc);
  tcase_add_test(tc, rule_bits_after_the_headers);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
