/* SPDX-License-Identifier: MIT */
/* Native InfiniBand (ornic/ib.h, ORNIC_LINK_IB): the LRH codec, decoding and
 * encoding whole native IB packets, their iCRC (IBA 7.8.1) and VCRC (IBA
 * 7.8.2), and the iCRC entry points that take the caller's offsets
 * (ornic_icrc_compute_at, ornic_icrc_compute_ib_at).
 *
 * The byte vectors below were built by tests/e2e/test_native_ib.py's
 * reference (Python: the packet by hand, zlib for the iCRC, a bit-by-bit
 * CRC-16 for the VCRC), not by this library; the same packets are the ones
 * that end-to-end test checks against stock tshark. The C references here
 * (ref_vcrc, ref_ib_icrc) are written from docs/PROTOCOL.md 2.7 with the
 * test's own bitwise CRC-32. No real native-IB capture was at hand: the
 * VCRC's byte order (least significant first) is PROTOCOL.md's assumption. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* ---------------------------------------------------------------- vectors */

/* LRH only: RC SEND Only, VL 3, SL 5, DLID 1, SLID 4, PktLen 8; BTH M, PadCnt
 * 3, FECN set (byte 4 = 0x80, variant), DestQP 0x12, A, PSN 0xABC; payload
 * "hello" + 3 pad bytes; iCRC 1a 0b 5e a9; VCRC 34 62. */
static const uint8_t v_local[34] = {
    0x30, 0x52, 0x00, 0x01, 0x00, 0x08, 0x00, 0x04, 0x04, 0x70, 0xff, 0xff,
    0x80, 0x00, 0x00, 0x12, 0x80, 0x00, 0x0a, 0xbc, 0x68, 0x65, 0x6c, 0x6c,
    0x6f, 0x00, 0x00, 0x00, 0x1a, 0x0b, 0x5e, 0xa9, 0x34, 0x62,
};

/* LRH + GRH: RC RDMA WRITE Only, LNH 3, PktLen 22; GRH TClass 0x12, FlowLabel
 * 0x34567, PayLen 40, NxtHdr 0x1B, HopLmt 0x40, SGID fe80::2:c903:0:1001,
 * DGID fe80::2:c903:0:2002; BTH PSN 0x123456; RETH VA 0x7f0012345678, R_Key
 * 0xa1b2c3d4, DMA length 8; payload 00..07; iCRC 1d 77 77 a6; VCRC cf 36. */
static const uint8_t v_global[90] = {
    0x30, 0x53, 0x00, 0x01, 0x00, 0x16, 0x00, 0x04, 0x61, 0x23, 0x45, 0x67, 0x00, 0x28, 0x1b,
    0x40, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00,
    0x10, 0x01, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00,
    0x00, 0x20, 0x02, 0x0a, 0x40, 0xff, 0xff, 0x80, 0x00, 0x00, 0x12, 0x80, 0x12, 0x34, 0x56,
    0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x56, 0x78, 0xa1, 0xb2, 0xc3, 0xd4, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x1d, 0x77, 0x77, 0xa6, 0xcf, 0x36,
};

/* A bad iCRC: v_local with PSN 0xABD and the iCRC's first byte off by one
 * (58 where 59 belongs); the VCRC is right for these bytes. */
static const uint8_t v_bad_icrc[34] = {
    0x30, 0x52, 0x00, 0x01, 0x00, 0x08, 0x00, 0x04, 0x04, 0x70, 0xff, 0xff,
    0x80, 0x00, 0x00, 0x12, 0x80, 0x00, 0x0a, 0xbd, 0x68, 0x65, 0x6c, 0x6c,
    0x6f, 0x00, 0x00, 0x00, 0x58, 0x1f, 0x25, 0xbe, 0xf1, 0xa5,
};

/* A bad VCRC: v_local with PSN 0xABE, a right iCRC and the VCRC's second
 * byte with bit 7 flipped (54 9d where 54 1d belongs). */
static const uint8_t v_bad_vcrc[34] = {
    0x30, 0x52, 0x00, 0x01, 0x00, 0x08, 0x00, 0x04, 0x04, 0x70, 0xff, 0xff,
    0x80, 0x00, 0x00, 0x12, 0x80, 0x00, 0x0a, 0xbe, 0x68, 0x65, 0x6c, 0x6c,
    0x6f, 0x00, 0x00, 0x00, 0x9c, 0x23, 0xa8, 0x87, 0x54, 0x9d,
};

/* PktLen disagreeing with the GRH: RC SEND Only "abcd", PktLen 17 (68 bytes
 * through the iCRC) but GRH PayLen 24 where 20 belongs. Both CRCs are right
 * for the bytes as they stand. */
static const uint8_t v_grh_paylen[70] = {
    0x30, 0x53, 0x00, 0x01, 0x00, 0x11, 0x00, 0x04, 0x61, 0x23, 0x45, 0x67, 0x00, 0x18,
    0x1b, 0x40, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03,
    0x00, 0x00, 0x10, 0x01, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0xc9, 0x03, 0x00, 0x00, 0x20, 0x02, 0x04, 0x40, 0xff, 0xff, 0x80, 0x00, 0x00, 0x12,
    0x80, 0x00, 0x00, 0x09, 0x61, 0x62, 0x63, 0x64, 0x3d, 0x96, 0x23, 0x02, 0x0c, 0xb6,
};

static const uint8_t gid_s[16] = {0xfe, 0x80, 0,    0,    0, 0, 0,    0,
                                  0x00, 0x02, 0xc9, 0x03, 0, 0, 0x10, 0x01};
static const uint8_t gid_d[16] = {0xfe, 0x80, 0,    0,    0, 0, 0,    0,
                                  0x00, 0x02, 0xc9, 0x03, 0, 0, 0x20, 0x02};

/* ---------------------------------------------------------------- references */

/* IBA 7.8.2 VCRC one bit at a time: polynomial 0x100B mirrored (0xD008),
 * init 0xFFFF, final XOR 0xFFFF. */
static uint16_t ref_vcrc(const uint8_t *p, size_t n) {
  uint16_t mirrored = 0;
  for (unsigned i = 0; i < 16; i++)
    if (0x100Bu & (1u << i)) mirrored = (uint16_t)(mirrored | 1u << (15 - i));
  unsigned c = 0xffff;
  for (size_t k = 0; k < n; k++)
    for (unsigned i = 0; i < 8; i++) {
      unsigned bit = (c ^ (unsigned)(p[k] >> i)) & 1u;
      c >>= 1;
      if (bit) c ^= mirrored;
    }
  return (uint16_t)(c ^ 0xffff);
}

/* IBA 7.8.1 iCRC from the LRH through icrc_off (PROTOCOL.md 2.7). */
static uint32_t ref_ib_icrc(const uint8_t *pkt, size_t icrc_off) {
  static uint8_t m[9000];
  ck_assert_uint_le(icrc_off, sizeof m);
  memcpy(m, pkt, icrc_off);
  size_t bth;
  if ((m[1] & 3) == 3) {
    memset(m, 0xff, 8);          /* the whole LRH */
    m[8] |= 0x0f;                /* TClass (low nibble of byte 0 holds its top bits) */
    m[9] = m[10] = m[11] = 0xff; /* TClass, FlowLabel */
    m[15] = 0xff;                /* HopLmt */
    bth = 48;
  } else {
    m[0] |= 0xf0; /* VL */
    bth = 8;
  }
  m[bth + 4] = 0xff; /* BTH FECN, BECN, resv6 */
  return tu_crc32_bitwise(0, m, icrc_off);
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static int decode(ornic_frame *f, const uint8_t *p, size_t n) {
  return ornic_frame_decode(f, p, n, ORNIC_LINK_IB, ORNIC_ROCEV2_UDP_PORT);
}

/* ---------------------------------------------------------------- LRH */

START_TEST(lrh_codec) {
  ornic_lrh l;
  memset(&l, 0xaa, sizeof l);
  ck_assert_int_eq(ornic_lrh_decode(&l, v_local, 7), ORNIC_ERR_TRUNCATED);
  ck_assert_uint_eq(l.vl, 0xaa); /* untouched */
  ck_assert_int_eq(ornic_lrh_decode(&l, v_local, 8), ORNIC_LRH_LEN);
  ck_assert_uint_eq(l.vl, 3);
  ck_assert_uint_eq(l.lver, 0);
  ck_assert_uint_eq(l.sl, 5);
  ck_assert_uint_eq(l.resv2, 0);
  ck_assert_uint_eq(l.lnh, ORNIC_LNH_IBA_LOCAL);
  ck_assert_uint_eq(l.dlid, 1);
  ck_assert_uint_eq(l.resv5, 0);
  ck_assert_uint_eq(l.pktlen, 8);
  ck_assert_uint_eq(l.slid, 4);
  /* every bit set: reserved bits and LVer are kept */
  static const uint8_t ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  ck_assert_int_eq(ornic_lrh_decode(&l, ones, 8), 8);
  ck_assert_uint_eq(l.resv2, 3);
  ck_assert_uint_eq(l.resv5, 31);
  ck_assert_uint_eq(l.pktlen, 0x7ff);
  uint8_t out[8];
  ck_assert_int_eq(ornic_lrh_encode(out, sizeof out, &l), 8);
  ck_assert_mem_eq(out, ones, 8);
  ck_assert_int_eq(ornic_lrh_decode(&l, v_global, 8), 8);
  ck_assert_int_eq(ornic_lrh_encode(out, sizeof out, &l), 8);
  ck_assert_mem_eq(out, v_global, 8);
  /* field widths; nothing written on error */
  memset(out, 0x5a, sizeof out);
  ck_assert_int_eq(ornic_lrh_encode(out, 7, &l), ORNIC_ERR_NOBUF);
#define BAD(field, v)                                                               \
  do {                                                                              \
    ornic_lrh b = l;                                                                \
    b.field = v;                                                                    \
    ck_assert_int_eq(ornic_lrh_encode(out, sizeof out, &b), ORNIC_ERR_INVALID_ARG); \
  } while (0)
  BAD(vl, 16);
  BAD(lver, 16);
  BAD(sl, 16);
  BAD(resv2, 4);
  BAD(lnh, 4);
  BAD(resv5, 32);
  BAD(pktlen, 0x800);
#undef BAD
  for (size_t i = 0; i < sizeof out; i++) ck_assert_uint_eq(out[i], 0x5a);
}
END_TEST

/* ---------------------------------------------------------------- VCRC */

START_TEST(vcrc_against_bitwise_reference) {
  /* "123456789": 0x0A3D, wire bytes 3d 0a (the Python reference's value) */
  uint16_t v = 0;
  ck_assert_int_eq(ornic_vcrc_compute_at((const uint8_t *)"123456789", 9, 9, &v), ORNIC_OK);
  ck_assert_uint_eq(v, 0x0a3d);
  ck_assert_uint_eq(ref_vcrc((const uint8_t *)"123456789", 9), 0x0a3d);
  static uint8_t buf[3000];
  tu_rng r;
  tu_seed(&r, 0x1B);
  tu_fill(&r, buf, sizeof buf);
  for (size_t n = 8; n < sizeof buf; n += n < 64 ? 1 : 97) {
    ck_assert_int_eq(ornic_vcrc_compute_at(buf, n, n, &v), ORNIC_OK);
    ck_assert_msg(v == ref_vcrc(buf, n), "len %zu: 0x%04x vs reference 0x%04x", n, v,
                  ref_vcrc(buf, n));
  }
  /* the codes */
  ck_assert_int_eq(ornic_vcrc_compute_at(buf, 10, 11, &v), ORNIC_ERR_TRUNCATED);
  ck_assert_int_eq(ornic_vcrc_compute_at(buf, 10, 7, &v), ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_vcrc_compute_at(NULL, 10, 10, &v), ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_vcrc_compute_at(buf, 10, 10, NULL), ORNIC_ERR_INVALID_ARG);
}
END_TEST

/* ---------------------------------------------------------------- decode */

START_TEST(local_vector) {
  ornic_frame f;
  ck_assert_int_eq(decode(&f, v_local, sizeof v_local), ORNIC_OK);
  ck_assert_int_eq(f.link, ORNIC_LINK_IB);
  ck_assert_int_eq(f.l3, ORNIC_L3_NONE);
  ck_assert_uint_eq(f.layers, ORNIC_LAYER_LRH | ORNIC_LAYER_BTH);
  ck_assert_uint_eq(f.lrh.vl, 3);
  ck_assert_uint_eq(f.lrh.sl, 5);
  ck_assert_uint_eq(f.lrh.dlid, 1);
  ck_assert_uint_eq(f.lrh.slid, 4);
  ck_assert_uint_eq(f.lrh.pktlen, 8);
  ck_assert_uint_eq(f.bth_off, 8);
  ck_assert_uint_eq(f.bth.opcode, 0x04);
  ck_assert_uint_eq(f.bth.psn, 0xabc);
  ck_assert_uint_eq(f.bth.padcnt, 3);
  ck_assert_uint_eq(f.bth.fecn, 1);
  ck_assert_uint_eq(f.bth.destqp, 0x12);
  ck_assert_uint_eq(f.payload_len, 5);
  ck_assert_uint_eq(f.payload_caplen, 5);
  ck_assert_mem_eq(f.payload, "hello", 5);
  ck_assert_uint_eq(f.pad_len, 3);
  ck_assert_uint_eq(f.icrc_off, 28);
  ck_assert(f.icrc_present);
  ck_assert_uint_eq(f.icrc, 0xa95e0b1au);
  ck_assert_uint_eq(f.roce_end, 32);
  ck_assert_uint_eq(f.vcrc_off, 32);
  ck_assert(f.vcrc_present);
  ck_assert_uint_eq(f.vcrc, 0x6234);
  ck_assert_uint_eq(f.malformed, 0);
  uint32_t c;
  ck_assert_int_eq(ornic_icrc_compute(&f, v_local, &c), ORNIC_OK);
  ck_assert_uint_eq(c, ref_ib_icrc(v_local, 28));
  ck_assert_uint_eq(c, f.icrc);
  ck_assert_int_eq(ornic_icrc_verify(&f, v_local), ORNIC_OK);
  uint16_t v;
  ck_assert_int_eq(ornic_vcrc_compute(&f, v_local, &v), ORNIC_OK);
  ck_assert_uint_eq(v, ref_vcrc(v_local, 32));
  ck_assert_int_eq(ornic_vcrc_verify(&f, v_local), ORNIC_OK);
  /* bytes after the VCRC are ignored, as Ethernet padding is */
  uint8_t longer[40] = {0};
  memcpy(longer, v_local, sizeof v_local);
  ck_assert_int_eq(decode(&f, longer, sizeof longer), ORNIC_OK);
  ck_assert_int_eq(ornic_icrc_verify(&f, longer), ORNIC_OK);
  ck_assert_int_eq(ornic_vcrc_verify(&f, longer), ORNIC_OK);
}
END_TEST

START_TEST(global_vector) {
  ornic_frame f;
  ck_assert_int_eq(decode(&f, v_global, sizeof v_global), ORNIC_OK);
  ck_assert_int_eq(f.l3, ORNIC_L3_GRH);
  ck_assert_uint_eq(f.layers, ORNIC_LAYER_LRH | ORNIC_LAYER_L3 | ORNIC_LAYER_BTH);
  ck_assert_uint_eq(f.lrh.lnh, ORNIC_LNH_IBA_GLOBAL);
  ck_assert_uint_eq(f.lrh.pktlen, 22);
  ck_assert_uint_eq(f.l3_off, 8);
  ck_assert_uint_eq(f.ip.version, 6);
  ck_assert_uint_eq(f.ip.tos, 0x12);
  ck_assert_uint_eq(f.ip.flow_label, 0x34567);
  ck_assert_uint_eq(f.ip.ttl, 0x40);
  ck_assert_uint_eq(f.ip.total_len, 40 + 40);
  ck_assert_mem_eq(f.ip.src, gid_s, 16);
  ck_assert_mem_eq(f.ip.dst, gid_d, 16);
  ck_assert_uint_eq(f.bth_off, 48);
  ck_assert_uint_eq(f.bth.opcode, 0x0a);
  ck_assert_uint_eq(f.bth.psn, 0x123456);
  ck_assert_uint_eq(f.ext.present, ORNIC_HDR_RETH);
  ck_assert_uint_eq(f.ext.reth.va, 0x7f0012345678ull);
  ck_assert_uint_eq(f.ext.reth.rkey, 0xa1b2c3d4u);
  ck_assert_uint_eq(f.ext.reth.dmalen, 8);
  ck_assert_uint_eq(f.payload_len, 8);
  ck_assert_uint_eq(f.icrc_off, 84);
  ck_assert_uint_eq(f.icrc, 0xa677771du);
  ck_assert_uint_eq(f.vcrc_off, 88);
  ck_assert_uint_eq(f.vcrc, 0x36cf);
  ck_assert_uint_eq(ref_ib_icrc(v_global, 84), f.icrc);
  ck_assert_int_eq(ornic_icrc_verify(&f, v_global), ORNIC_OK);
  ck_assert_int_eq(ornic_vcrc_verify(&f, v_global), ORNIC_OK);
  /* a global packet's iCRC is RoCEv1's over its GRH: the LRH counts as 8 x 0xFF */
  uint32_t c;
  ck_assert_int_eq(
      ornic_icrc_compute_at(v_global + 8, sizeof v_global - 8, ORNIC_L3_GRH, 40, 76, &c), ORNIC_OK);
  ck_assert_uint_eq(c, f.icrc);
}
END_TEST

/* Every cut of the packet, each right before an unreadable page. */
START_TEST(every_truncation) {
  const struct {
    const uint8_t *p;
    size_t n;
    size_t hdrs;
  } v[] = {{v_local, sizeof v_local, 8}, {v_global, sizeof v_global, 48}};
  tu_guard g;
  tu_guard_init(&g);
  for (size_t k = 0; k < 2; k++) {
    for (size_t n = 0; n < v[k].n; n++) {
      const uint8_t *p = tu_guard_tail(&g, v[k].p, n);
      ornic_frame f;
      ck_assert_msg(decode(&f, p, n) == ORNIC_ERR_TRUNCATED, "vector %zu cut at %zu", k, n);
      ck_assert_uint_eq(!!(f.layers & ORNIC_LAYER_LRH), n >= 8);
      ck_assert_uint_eq(!!(f.layers & ORNIC_LAYER_BTH), n >= v[k].hdrs + 12);
      ck_assert_uint_eq(f.icrc_present, n >= v[k].n - 2);
      ck_assert(!f.vcrc_present);
      if (n >= 8) ck_assert_uint_eq(f.vcrc_off, v[k].n - 2);
      if (f.icrc_present) ck_assert_int_eq(ornic_icrc_verify(&f, p), ORNIC_OK);
      ck_assert_int_eq(ornic_vcrc_verify(&f, p), ORNIC_ERR_TRUNCATED);
    }
  }
  tu_guard_free(&g);
}
END_TEST

START_TEST(pktlen_disagreeing) {
  ornic_frame f;
  uint8_t b[sizeof v_global];
  char text[200];
  /* PktLen 5: 20 bytes, LRH + BTH and no room for the iCRC */
  memcpy(b, v_local, sizeof v_local);
  b[5] = 5;
  ck_assert_int_eq(decode(&f, b, sizeof v_local), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_LRH_LEN); /* one rule, one bit: not ROCE_SHORT too */
  ck_assert(f.layers & ORNIC_LAYER_BTH);
  ck_assert_uint_eq(f.bth.psn, 0xabc);
  ck_assert_uint_eq(f.icrc_off, 0);
  ck_assert(!f.icrc_present);
  ck_assert_uint_eq(f.vcrc_off, 20);
  ck_assert(f.vcrc_present); /* the VCRC's place follows from PktLen alone */
  ck_assert_int_eq(ornic_icrc_verify(&f, b), ORNIC_ERR_TRUNCATED);
  ornic_frame_explain_malformed(&f, text, sizeof text);
  ck_assert_msg(strstr(text, "PktLen 5") && strstr(text, "(D12)"), "%s", text);
  /* PktLen 4: not even the BTH */
  b[5] = 4;
  ck_assert_int_eq(decode(&f, b, sizeof v_local), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_LRH_LEN);
  ck_assert(!(f.layers & ORNIC_LAYER_BTH));
  /* PktLen 1: not even the LRH; no VCRC either */
  b[5] = 1;
  ck_assert_int_eq(decode(&f, b, sizeof v_local), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.layers, ORNIC_LAYER_LRH);
  ck_assert_uint_eq(f.vcrc_off, 0);
  /* PktLen 9: past the bytes, as a cut would be */
  b[5] = 9;
  ck_assert_int_eq(decode(&f, b, sizeof v_local), ORNIC_ERR_TRUNCATED);
  ck_assert(f.layers & ORNIC_LAYER_BTH);
  ck_assert(!f.icrc_present);
  /* global, PktLen 11: 44 bytes, no room for the GRH: it is not read */
  memcpy(b, v_global, sizeof v_global);
  b[5] = 11;
  ck_assert_int_eq(decode(&f, b, sizeof v_global), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_LRH_LEN);
  ck_assert_uint_eq(f.layers, ORNIC_LAYER_LRH);
  /* GRH PayLen 24 where PktLen says 20: PktLen rules, everything decoded,
   * both CRCs located and right */
  ck_assert_int_eq(decode(&f, v_grh_paylen, sizeof v_grh_paylen), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(f.malformed, ORNIC_MAL_LRH_LEN);
  ck_assert_uint_eq(f.bth.psn, 9);
  ck_assert_uint_eq(f.payload_len, 4);
  ck_assert_mem_eq(f.payload, "abcd", 4);
  ck_assert_uint_eq(f.icrc_off, 64);
  ck_assert_int_eq(ornic_icrc_verify(&f, v_grh_paylen), ORNIC_OK);
  ck_assert_int_eq(ornic_vcrc_verify(&f, v_grh_paylen), ORNIC_OK);
  ornic_frame_explain_malformed(&f, text, sizeof text);
  ck_assert_msg(strstr(text, "GRH payload length 24") && strstr(text, "PktLen 17"), "%s", text);
  /* the rule's name */
  unsigned bit = 0;
  while ((1u << bit) != ORNIC_MAL_LRH_LEN) bit++;
  ck_assert_uint_lt(bit, ORNIC_MAL_COUNT);
  ck_assert_str_eq(ornic_mal_name(bit), "lrh_len");
  ck_assert_str_eq(ornic_mal_rule(bit), "D12");
}
END_TEST

START_TEST(bad_icrc_and_bad_vcrc) {
  ornic_frame f;
  ck_assert_int_eq(decode(&f, v_bad_icrc, sizeof v_bad_icrc), ORNIC_OK);
  ck_assert_int_eq(ornic_icrc_verify(&f, v_bad_icrc), ORNIC_ERR_BAD_ICRC);
  ck_assert_int_eq(ornic_vcrc_verify(&f, v_bad_icrc), ORNIC_OK);
  uint32_t c;
  ck_assert_int_eq(ornic_icrc_compute(&f, v_bad_icrc, &c), ORNIC_OK);
  ck_assert_uint_eq(c, f.icrc ^ 1u);
  ck_assert_int_eq(decode(&f, v_bad_vcrc, sizeof v_bad_vcrc), ORNIC_OK);
  ck_assert_int_eq(ornic_icrc_verify(&f, v_bad_vcrc), ORNIC_OK);
  ck_assert_int_eq(ornic_vcrc_verify(&f, v_bad_vcrc), ORNIC_ERR_BAD_VCRC);
  uint16_t v;
  ck_assert_int_eq(ornic_vcrc_compute(&f, v_bad_vcrc, &v), ORNIC_OK);
  ck_assert_uint_eq(v, f.vcrc ^ 0x8000u);
}
END_TEST

/* What the iCRC covers (IBA 7.8.1): variant fields may change, nothing else.
 * The VCRC covers every byte. */
START_TEST(variant_fields) {
  ornic_frame f;
  uint8_t b[sizeof v_global];
  /* local: VL and BTH byte 4 are variant */
  memcpy(b, v_local, sizeof v_local);
  b[0] = (uint8_t)(0xf0 | (b[0] & 0x0f));
  b[12] = 0x3f;
  ck_assert_int_eq(decode(&f, b, sizeof v_local), ORNIC_OK);
  ck_assert_int_eq(ornic_icrc_verify(&f, b), ORNIC_OK);
  ck_assert_int_eq(ornic_vcrc_verify(&f, b), ORNIC_ERR_BAD_VCRC);
  /* ... SL, DLID, SLID and LVer are not */
  static const size_t local_invariant[] = {1, 2, 3, 6, 7};
  for (size_t i = 0; i < 5; i++) {
    memcpy(b, v_local, sizeof v_local);
    b[local_invariant[i]] ^= 0x40;
    ck_assert_int_eq(decode(&f, b, sizeof v_local), ORNIC_OK);
    ck_assert_msg(ornic_icrc_verify(&f, b) == ORNIC_ERR_BAD_ICRC, "LRH byte %zu",
                  local_invariant[i]);
  }
  memcpy(b, v_local, sizeof v_local);
  b[0] ^= 0x01; /* LVer */
  ck_assert_int_eq(decode(&f, b, sizeof v_local), ORNIC_OK);
  ck_assert_int_eq(ornic_icrc_verify(&f, b), ORNIC_ERR_BAD_ICRC);
  /* global: the whole LRH (but LNH and PktLen, which place the rest), GRH
   * TClass, FlowLabel, HopLmt, BTH byte 4 */
  memcpy(b, v_global, sizeof v_global);
  b[0] = 0x7f;
  b[1] = (uint8_t)(0xf0 | 0x0c | (b[1] & 3)); /* SL, resv2 */
  b[2] = b[3] = b[6] = b[7] = 0x99;           /* DLID, SLID */
  b[4] = (uint8_t)(0xf8 | b[4]);              /* resv5 */
  b[8] = 0x6f;
  b[9] = b[10] = b[11] = 0xab;
  b[15] = 0x01;
  b[48 + 4] = 0x00;
  ck_assert_int_eq(decode(&f, b, sizeof v_global), ORNIC_OK);
  ck_assert_int_eq(ornic_icrc_verify(&f, b), ORNIC_OK);
  ck_assert_int_eq(ornic_vcrc_verify(&f, b), ORNIC_ERR_BAD_VCRC);
  /* ... the GIDs and NxtHdr-following bytes are not */
  memcpy(b, v_global, sizeof v_global);
  b[20] ^= 1; /* SGID */
  ck_assert_int_eq(decode(&f, b, sizeof v_global), ORNIC_OK);
  ck_assert_int_eq(ornic_icrc_verify(&f, b), ORNIC_ERR_BAD_ICRC);
}
END_TEST

START_TEST(lnh_raw_and_ip_are_not_roce) {
  ornic_frame f;
  uint8_t b[sizeof v_local];
  for (uint8_t lnh = 0; lnh < 2; lnh++) {
    memcpy(b, v_local, sizeof b);
    b[1] = (uint8_t)((b[1] & 0xfc) | lnh);
    ck_assert_int_eq(decode(&f, b, sizeof b), ORNIC_ERR_NOT_ROCE);
    ck_assert_uint_eq(f.layers, ORNIC_LAYER_LRH);
    ck_assert_uint_eq(f.lrh.lnh, lnh);
    ck_assert(f.vcrc_present); /* a raw packet has a VCRC too */
    uint32_t c;
    ck_assert_int_eq(ornic_icrc_compute_ib_at(b, sizeof b, 28, &c), ORNIC_ERR_INVALID_ARG);
  }
}
END_TEST

/* ---------------------------------------------------------------- encode */

static void frame_local(ornic_frame *f) {
  ornic_frame_init(f, ORNIC_LINK_IB, 0);
  f->l3 = ORNIC_L3_NONE;
  f->lrh = (ornic_lrh){.vl = 3, .sl = 5, .dlid = 1, .slid = 4};
  f->bth = (ornic_bth){
      .opcode = 0x04, .m = 1, .pkey = 0xffff, .fecn = 1, .destqp = 0x12, .ackreq = 1, .psn = 0xabc};
  f->payload = (const uint8_t *)"hello";
  f->payload_len = 5;
}

START_TEST(encode_reproduces_vectors) {
  uint8_t out[128];
  ornic_frame f;
  frame_local(&f);
  ck_assert_uint_eq(ornic_frame_encode_capacity(&f), sizeof v_local);
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), (ornic_ssize)sizeof v_local);
  ck_assert_mem_eq(out, v_local, sizeof v_local);
  ck_assert_int_eq(ornic_frame_encode(out, sizeof v_local - 1, &f), ORNIC_ERR_NOBUF);

  static const uint8_t payload[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  ornic_frame_init(&f, ORNIC_LINK_IB, 6);
  f.l3 = ORNIC_L3_GRH;
  f.lrh = (ornic_lrh){.vl = 3, .sl = 5, .dlid = 1, .slid = 4};
  f.ip.tos = 0x12;
  f.ip.flow_label = 0x34567;
  f.ip.ttl = 0x40;
  memcpy(f.ip.src, gid_s, 16);
  memcpy(f.ip.dst, gid_d, 16);
  f.bth = (ornic_bth){.opcode = 0x0a,
                      .m = 1,
                      .pkey = 0xffff,
                      .fecn = 1,
                      .destqp = 0x12,
                      .ackreq = 1,
                      .psn = 0x123456};
  f.ext.reth = (ornic_reth){0x7f0012345678ull, 0xa1b2c3d4u, 8};
  f.payload = payload;
  f.payload_len = 8;
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), (ornic_ssize)sizeof v_global);
  ck_assert_mem_eq(out, v_global, sizeof v_global);

  /* a bad field: an error, and `out` untouched */
  frame_local(&f);
  memset(out, 0x5a, sizeof out);
  f.lrh.vl = 16;
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), ORNIC_ERR_INVALID_ARG);
  frame_local(&f);
  f.bth.psn = 0x1000000;
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), ORNIC_ERR_INVALID_ARG);
  frame_local(&f);
  f.bth.opcode = 0xdf;
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), ORNIC_ERR_UNKNOWN_OPCODE);
  for (size_t i = 0; i < sizeof out; i++) ck_assert_uint_eq(out[i], 0x5a);
  /* PktLen is 11 bits: 8188 bytes through the iCRC at most */
  static uint8_t big[8200];
  frame_local(&f);
  f.payload = big;
  f.payload_len = 8188 - 8 - 12 - 4;
  ck_assert_int_eq(ornic_frame_encode(big, 0, &f), ORNIC_ERR_NOBUF);
  f.payload_len += 4;
  ck_assert_int_eq(ornic_frame_encode(big, 0, &f), ORNIC_ERR_INVALID_ARG);
}
END_TEST

/* Random frames of every opcode with a layout, local and global: encode,
 * decode, the same values back, and both CRCs equal the references. */
START_TEST(random_round_trip) {
  static uint8_t buf[2048];
  tu_rng r;
  tu_seed(&r, 0x1B1B);
  const tu_variant grh = {ORNIC_LINK_GRH, 6, false, 0};
  unsigned n = 0;
  for (unsigned op = 0; op < 256; op++) {
    if (!ornic_opcode_info_get((uint8_t)op)->name) continue;
    bool payload_ok = (ornic_opcode_info_get((uint8_t)op)->flags & ORNIC_OPF_PAYLOAD) != 0;
    for (unsigned k = 0; k < 4; k++, n++) {
      ornic_frame want, got;
      tu_store st;
      tu_random_frame(&want, &st, &r, (uint8_t)op, &grh, payload_ok ? tu_range(&r, 0, 64) : 0);
      want.link = ORNIC_LINK_IB;
      want.l3 = k & 1 ? ORNIC_L3_GRH : ORNIC_L3_NONE;
      want.lrh = (ornic_lrh){.vl = (uint8_t)tu_bits(&r, 4),
                             .lver = (uint8_t)tu_bits(&r, 4),
                             .sl = (uint8_t)tu_bits(&r, 4),
                             .resv2 = (uint8_t)tu_bits(&r, 2),
                             .dlid = (uint16_t)tu_bits(&r, 16),
                             .resv5 = (uint8_t)tu_bits(&r, 5),
                             .slid = (uint16_t)tu_bits(&r, 16)};
      size_t len = tu_encode(&want, buf, sizeof buf);
      ck_assert_int_eq(decode(&got, buf, len), ORNIC_OK);
      ck_assert_uint_eq(got.lrh.vl, want.lrh.vl);
      ck_assert_uint_eq(got.lrh.lver, want.lrh.lver);
      ck_assert_uint_eq(got.lrh.sl, want.lrh.sl);
      ck_assert_uint_eq(got.lrh.resv2, want.lrh.resv2);
      ck_assert_uint_eq(got.lrh.dlid, want.lrh.dlid);
      ck_assert_uint_eq(got.lrh.resv5, want.lrh.resv5);
      ck_assert_uint_eq(got.lrh.slid, want.lrh.slid);
      ck_assert_uint_eq(got.lrh.lnh, k & 1 ? 3 : 2);
      ck_assert_uint_eq((size_t)got.lrh.pktlen * 4 + 2, len);
      ck_assert_int_eq(got.l3, want.l3);
      if (k & 1) {
        ck_assert_uint_eq(got.ip.tos, want.ip.tos);
        ck_assert_uint_eq(got.ip.flow_label, want.ip.flow_label);
        ck_assert_uint_eq(got.ip.ttl, want.ip.ttl);
        ck_assert_mem_eq(got.ip.src, want.ip.src, 16);
        ck_assert_mem_eq(got.ip.dst, want.ip.dst, 16);
      }
      tu_assert_bth_eq(&want.bth, &got.bth, false, "IB round trip");
      tu_assert_ext_eq(&want.ext, &got.ext, ornic_opcode_info_get((uint8_t)op)->hdrs,
                       "IB round trip");
      ck_assert_uint_eq(got.payload_len, want.payload_len);
      if (want.payload_len) ck_assert_mem_eq(got.payload, want.payload, want.payload_len);
      ck_assert_uint_eq(got.icrc, ref_ib_icrc(buf, got.icrc_off));
      ck_assert_uint_eq(le32(buf + got.icrc_off), got.icrc);
      ck_assert_uint_eq(got.vcrc, ref_vcrc(buf, got.vcrc_off));
      ck_assert_uint_eq(le16(buf + got.vcrc_off), got.vcrc);
      ck_assert_int_eq(ornic_icrc_verify(&got, buf), ORNIC_OK);
      ck_assert_int_eq(ornic_vcrc_verify(&got, buf), ORNIC_OK);
      uint32_t c;
      ck_assert_int_eq(ornic_icrc_compute_ib_at(buf, len, got.icrc_off, &c), ORNIC_OK);
      ck_assert_uint_eq(c, got.icrc);
    }
  }
  ck_assert_uint_gt(n, 300); /* 96 opcodes with a layout today */
}
END_TEST

/* ---------------------------------------------------------------- _at entry points */

/* ornic_icrc_compute_at with the decoder's offsets equals ornic_icrc_compute
 * on every RoCE encapsulation, and the codes are the documented ones. */
START_TEST(icrc_compute_at_roce) {
  static uint8_t buf[2048];
  tu_rng r;
  tu_seed(&r, 0xA7);
  for (size_t v = 0; v < tu_nvariants; v++) {
    for (unsigned k = 0; k < 50; k++) {
      ornic_frame f;
      tu_store st;
      tu_random_frame(&f, &st, &r, 0x04, &tu_variants[v], tu_range(&r, 0, 64));
      size_t len = tu_encode(&f, buf, sizeof buf);
      ck_assert_int_eq(ornic_frame_decode(&f, buf, len, tu_variants[v].link, ORNIC_ROCEV2_UDP_PORT),
                       ORNIC_OK);
      const uint8_t *l3 = buf + f.l3_off;
      size_t l3len = len - f.l3_off, bth = f.bth_off - f.l3_off, icrc = f.icrc_off - f.l3_off;
      uint32_t a = 0, b = 0;
      ck_assert_int_eq(ornic_icrc_compute_at(l3, l3len, f.l3, bth, icrc, &a), ORNIC_OK);
      ck_assert_int_eq(ornic_icrc_compute(&f, buf, &b), ORNIC_OK);
      ck_assert_uint_eq(a, b);
      ck_assert_uint_eq(a, f.icrc);
      /* exactly the bytes before the iCRC are needed */
      ck_assert_int_eq(ornic_icrc_compute_at(l3, icrc, f.l3, bth, icrc, &a), ORNIC_OK);
      ck_assert_int_eq(ornic_icrc_compute_at(l3, icrc - 1, f.l3, bth, icrc, &a),
                       ORNIC_ERR_TRUNCATED);
      /* the codes */
      ck_assert_int_eq(ornic_icrc_compute_at(NULL, l3len, f.l3, bth, icrc, &a),
                       ORNIC_ERR_INVALID_ARG);
      ck_assert_int_eq(ornic_icrc_compute_at(l3, l3len, f.l3, bth, icrc, NULL),
                       ORNIC_ERR_INVALID_ARG);
      ck_assert_int_eq(ornic_icrc_compute_at(l3, l3len, ORNIC_L3_NONE, bth, icrc, &a),
                       ORNIC_ERR_INVALID_ARG);
      ck_assert_int_eq(ornic_icrc_compute_at(l3, l3len, f.l3, bth + 4, icrc, &a),
                       ORNIC_ERR_INVALID_ARG);
      ck_assert_int_eq(ornic_icrc_compute_at(l3, l3len, f.l3, bth, bth + 11, &a),
                       ORNIC_ERR_INVALID_ARG);
      ck_assert_int_eq(ornic_icrc_compute(&f, NULL, &a), ORNIC_ERR_INVALID_ARG);
      ck_assert_int_eq(ornic_icrc_compute(&f, buf, NULL), ORNIC_ERR_INVALID_ARG);
    }
  }
  /* an IPv4 header that says another version, or IHL < 5 */
  uint8_t h[64] = {0x45};
  uint32_t a;
  ck_assert_int_eq(ornic_icrc_compute_at(h, sizeof h, ORNIC_L3_IPV4, 28, 44, &a), ORNIC_OK);
  h[0] = 0x65;
  ck_assert_int_eq(ornic_icrc_compute_at(h, sizeof h, ORNIC_L3_IPV4, 28, 44, &a),
                   ORNIC_ERR_INVALID_ARG);
  h[0] = 0x44;
  ck_assert_int_eq(ornic_icrc_compute_at(h, sizeof h, ORNIC_L3_IPV4, 24, 44, &a),
                   ORNIC_ERR_INVALID_ARG);
  h[0] = 0x46; /* IHL 6: options are covered, the BTH is at 32 */
  ck_assert_int_eq(ornic_icrc_compute_at(h, sizeof h, ORNIC_L3_IPV4, 28, 44, &a),
                   ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_icrc_compute_at(h, sizeof h, ORNIC_L3_IPV4, 32, 48, &a), ORNIC_OK);
  /* a frame from ornic_roce_decode has no IP header to cover */
  ornic_frame f;
  ck_assert_int_eq(ornic_roce_decode(&f, v_local + 8, 24), ORNIC_OK);
  ck_assert_int_eq(ornic_icrc_compute(&f, v_local + 8, &a), ORNIC_ERR_INVALID_ARG);
}
END_TEST

START_TEST(icrc_and_vcrc_codes_native_ib) {
  uint32_t c;
  uint16_t v;
  ck_assert_int_eq(ornic_icrc_compute_ib_at(v_local, 7, 28, &c), ORNIC_ERR_TRUNCATED);
  ck_assert_int_eq(ornic_icrc_compute_ib_at(v_local, 27, 28, &c), ORNIC_ERR_TRUNCATED);
  ck_assert_int_eq(ornic_icrc_compute_ib_at(v_local, 28, 28, &c), ORNIC_OK);
  ck_assert_uint_eq(c, 0xa95e0b1au);
  ck_assert_int_eq(ornic_icrc_compute_ib_at(v_local, 34, 19, &c), ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_icrc_compute_ib_at(v_global, 90, 59, &c), ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_icrc_compute_ib_at(NULL, 34, 28, &c), ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_icrc_compute_ib_at(v_local, 34, 28, NULL), ORNIC_ERR_INVALID_ARG);
  /* VCRC of a frame that is not native IB, or whose VCRC was not captured */
  ornic_frame f;
  ck_assert_int_eq(decode(&f, v_local, sizeof v_local - 1), ORNIC_ERR_TRUNCATED);
  ck_assert_int_eq(ornic_vcrc_compute(&f, v_local, &v), ORNIC_ERR_TRUNCATED);
  ck_assert_int_eq(ornic_vcrc_compute(&f, NULL, &v), ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_roce_decode(&f, v_local + 8, 24), ORNIC_OK);
  ck_assert_int_eq(ornic_vcrc_compute(&f, v_local + 8, &v), ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_vcrc_verify(&f, v_local + 8), ORNIC_ERR_INVALID_ARG);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("ib");
  TCase *tc = tu_tcase("ib");
  tcase_add_test(tc, lrh_codec);
  tcase_add_test(tc, vcrc_against_bitwise_reference);
  tcase_add_test(tc, local_vector);
  tcase_add_test(tc, global_vector);
  tcase_add_test(tc, every_truncation);
  tcase_add_test(tc, pktlen_disagreeing);
  tcase_add_test(tc, bad_icrc_and_bad_vcrc);
  tcase_add_test(tc, variant_fields);
  tcase_add_test(tc, lnh_raw_and_ip_are_not_roce);
  tcase_add_test(tc, encode_reproduces_vectors);
  tcase_add_test(tc, random_round_trip);
  tcase_add_test(tc, icrc_compute_at_roce);
  tcase_add_test(tc, icrc_and_vcrc_codes_native_ib);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
