/* SPDX-License-Identifier: MIT */
/* Known-answer vectors: one braced byte array per edge case, each from a
 * source independent of this library (a real capture, Scapy's RoCE layer, or
 * a second iCRC implementation in Python), with the decoded values written
 * down by hand from the bytes.
 *
 * Sources:
 *  [uts]   secdev/scapy test/contrib/roce.uts (commit a7fbb7cc): the Scapy UC
 *          example (iCRC 0x78f353f3 asserted there), the ConnectX-4 Lx CNP
 *          capture and two ConnectX RoCEv1 captures, with their wire iCRCs.
 *  [scapy] frames built with Debian python3-scapy 2.5.0 scapy.contrib.roce
 *          (Ether/IP/UDP/BTH/Raw; BTH.post_build computes the iCRC, IP and UDP
 *          lengths and the IPv4 checksum). Extension headers were written as
 *          Raw bytes by hand from docs/IBA_NOTES.md section 3 / headers.h.
 *          One of them reproduces PROTOCOL.md example 6.9 from its field table.
 *  [py6]   IPv6 has no iCRC in Scapy 2.5: computed with Python's zlib.crc32
 *          over the docs/IBA_NOTES.md section 5 masked pseudo-header; Scapy computed
 *          the UDP checksum. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* [uts] "RoCE layer": UC SEND Only, MigReq, PadCnt 2 (payload 18 + 2 pad),
 * non-zero UDP checksum 0xaca2 (masked out of the iCRC), IP checksum 0xb4d5,
 * iCRC 0x78f353f3 as Scapy prints it = wire bytes 78 f3 53 f3. */
static const uint8_t uc[78] = {
    0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22, 0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22, 0x08, 0x00, 0x45, 0x01,
    0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0xb4, 0xd5, 0xc0, 0xa8, 0x00, 0x07, 0xc0, 0xa8,
    0x00, 0x07, 0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0xac, 0xa2, 0x24, 0x60, 0xff, 0xff, 0x00, 0x00,
    0x00, 0xd3, 0x00, 0xcf, 0x17, 0x10, 0x46, 0x30, 0x81, 0x8b, 0xe2, 0x89, 0x35, 0xd9, 0x0e, 0x9a,
    0x95, 0x50, 0x54, 0x01, 0xbe, 0x88, 0x5e, 0x50, 0x00, 0x00, 0x78, 0xf3, 0x53, 0xf3,
};
/* [uts] "RoCE CNP captured on ConnectX-4 Lx": opcode 0x81, BECN, DestQP 0x118,
 * IPv4 TOS 0xc2, TTL 64, UDP sport 0, 16 zero bytes, iCRC wire 82 fd 00 2a. */
static const uint8_t cnp_cx4lx[74] = {
    0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32, 0x08, 0x00, 0x45,
    0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01,
    0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff,
    0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a,
};

/* [uts] "RoCE v1 RC RDMA WRITE ONLY": Ethernet 0x8915 + GRH (TClass 2,
 * PayLen 40), M, PadCnt 3 on a 5-byte payload, AckReq, RETH, iCRC e3 d8 56 bb. */
static const uint8_t rocev1_write_only[94] = {
    0x7c, 0xfe, 0x90, 0x75, 0x3c, 0xd8, 0x7c, 0xfe, 0x90, 0x75, 0x3c, 0xd8, 0x89, 0x15, 0x60, 0x20,
    0x00, 0x00, 0x00, 0x28, 0x1b, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xff, 0xff, 0x0f, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xff, 0xff, 0x0f, 0x00, 0x00, 0x02, 0x0a, 0x70, 0xff, 0xff, 0x00, 0x00, 0x01, 0x0a, 0x80, 0xa7,
    0x88, 0xbc, 0x00, 0x00, 0x55, 0xd4, 0xc0, 0x72, 0x60, 0x00, 0x00, 0x00, 0x47, 0xb3, 0x00, 0x00,
    0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xe3, 0xd8, 0x56, 0xbb,
};

/* [uts] "RoCE v1 RC ACKNOWLEDGE": GRH PayLen 20, AETH syndrome 0 MSN 5,
 * iCRC 25 f0 c0 38. */
static const uint8_t rocev1_ack[74] = {
    0x7c, 0xfe, 0x90, 0x75, 0x3c, 0xd8, 0x7c, 0xfe, 0x90, 0x75, 0x3c, 0xd8, 0x89, 0x15, 0x60,
    0x20, 0x00, 0x00, 0x00, 0x14, 0x1b, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0xff, 0xff, 0x0f, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0xff, 0xff, 0x0f, 0x00, 0x00, 0x02, 0x11, 0x40, 0xff, 0xff, 0x00, 0x00,
    0x01, 0x09, 0x00, 0xa7, 0x88, 0xc0, 0x00, 0x00, 0x00, 0x05, 0x25, 0xf0, 0xc0, 0x38,
};

/* [scapy] PSN wrap at 0xFFFFFF: RC RDMA WRITE Middle with PSN 0xFFFFFF ... */
static const uint8_t psn_wrap_last[62] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45, 0x02,
    0x00, 0x30, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x14, 0x85, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00,
    0x00, 0x02, 0xc0, 0x01, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00, 0x07, 0x00, 0xff, 0xff, 0x00, 0x00,
    0x0a, 0xbc, 0x00, 0xff, 0xff, 0xff, 0x11, 0x22, 0x33, 0x44, 0x47, 0xaf, 0x9e, 0x4d,
};
/* [scapy] ... and the next packet, RC RDMA WRITE Last with PSN 0x000000, AckReq. */
static const uint8_t psn_wrap_next[62] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45, 0x02,
    0x00, 0x30, 0x12, 0x35, 0x40, 0x00, 0x40, 0x11, 0x14, 0x84, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00,
    0x00, 0x02, 0xc0, 0x01, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00, 0x08, 0x00, 0xff, 0xff, 0x00, 0x00,
    0x0a, 0xbc, 0x80, 0x00, 0x00, 0x00, 0x55, 0x66, 0x77, 0x88, 0x92, 0x8e, 0x72, 0x07,
};
/* [scapy] PadCnt 3 on a 1-byte payload: RC SEND Only, SE, payload 5a + 00 00 00. */
static const uint8_t pad3[62] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45, 0x00,
    0x00, 0x30, 0x00, 0x07, 0x40, 0x00, 0x40, 0x11, 0x26, 0xb4, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00,
    0x00, 0x02, 0xc0, 0x02, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00, 0x04, 0xb0, 0xff, 0xff, 0x00, 0x00,
    0x00, 0x12, 0x00, 0x00, 0x01, 0x00, 0x5a, 0x00, 0x00, 0x00, 0x7b, 0x2e, 0x44, 0xd8,
};
/* [scapy] ORNIC NAK (0xCA) with every bitmap bit set: AETH 60 000010, NAKETH
 * (PROTOCOL.md 3.5, spec 0.2) reason 1 (OTD exceeded), trigger PSN 5, 4 blocks
 * from base PSN 0xFFFFF0, resv 0, Limit PSN 0xFFFFF5 (trigger - OTD 16), so
 * the bitmap covers 0xFFFFF0..0x00002F across the PSN wrap; blocks ffff x4.
 * (The same frame without the Limit word gave iCRC 73 02 59 2c in spec 0.1.) */
static const uint8_t nak_all[82] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
    0x45, 0x00, 0x00, 0x44, 0x00, 0x09, 0x40, 0x00, 0x40, 0x11, 0x26, 0x9e, 0x0a, 0x00,
    0x00, 0x02, 0x0a, 0x00, 0x00, 0x01, 0xc0, 0x03, 0x12, 0xb7, 0x00, 0x30, 0x00, 0x00,
    0xca, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x34, 0x00, 0x00, 0x00, 0x05, 0x60, 0x00,
    0x00, 0x10, 0x01, 0x00, 0x00, 0x05, 0x04, 0xff, 0xff, 0xf0, 0x00, 0xff, 0xff, 0xf5,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x23, 0xb7, 0x1b, 0x98,
};
/* [scapy] 802.1Q tag PCP 3 VID 100, IPv4 TOS 0xb8 TTL 255, RC Acknowledge,
 * P_Key 0x8001, DestQP 0xfedcba, PSN 0x7fffff, AETH 1f abcdef. */
static const uint8_t vlan_ack[66] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x81, 0x00,
    0x60, 0x64, 0x08, 0x00, 0x45, 0xb8, 0x00, 0x30, 0xbe, 0xef, 0x40, 0x00, 0xff, 0x11,
    0x38, 0xc1, 0xc0, 0xa8, 0x01, 0x01, 0xc0, 0xa8, 0x01, 0x02, 0xe0, 0x00, 0x12, 0xb7,
    0x00, 0x1c, 0x00, 0x00, 0x11, 0x00, 0x80, 0x01, 0x00, 0xfe, 0xdc, 0xba, 0x00, 0x7f,
    0xff, 0xff, 0x1f, 0xab, 0xcd, 0xef, 0xd0, 0x0c, 0x78, 0xfd,
};
/* [scapy] UD SEND Only: DETH Q_Key 0x80010000 (GSI), SrcQP 1, 8 payload bytes. */
static const uint8_t ud[74] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45,
    0x00, 0x00, 0x3c, 0x00, 0x01, 0x40, 0x00, 0x40, 0x11, 0x26, 0xae, 0x0a, 0x00, 0x00, 0x01,
    0x0a, 0x00, 0x00, 0x02, 0xc0, 0x04, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x64, 0x00, 0xff,
    0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x42, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x01, 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04, 0x7b, 0x3b, 0x0b, 0xfa,
};
/* [scapy] IPv4 with options: Router Alert (IHL 6). Scapy's iCRC covers the
 * options as they stand (docs/IBA_NOTES.md section 5). RC RDMA WRITE Only, AckReq,
 * PSN 0x123456, RETH va 0x00007f0012345678 rkey 0xcafef00d len 5, "hello" +
 * 3 pad bytes. */
static const uint8_t ipopt[86] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x46,
    0x00, 0x00, 0x48, 0x43, 0x21, 0x40, 0x00, 0x40, 0x11, 0x4e, 0x7d, 0x0a, 0x00, 0x00, 0x01,
    0x0a, 0x00, 0x00, 0x02, 0x94, 0x04, 0x00, 0x00, 0xc0, 0x05, 0x12, 0xb7, 0x00, 0x30, 0x00,
    0x00, 0x0a, 0x30, 0xff, 0xff, 0x00, 0x00, 0x00, 0x77, 0x80, 0x12, 0x34, 0x56, 0x00, 0x00,
    0x7f, 0x00, 0x12, 0x34, 0x56, 0x78, 0xca, 0xfe, 0xf0, 0x0d, 0x00, 0x00, 0x00, 0x05, 0x68,
    0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00, 0xc8, 0xf1, 0x3e, 0x68,
};
/* [py6] IPv6 TC 0x8a, flow label 0x12345, hop limit 17, UDP checksum 0xfc13
 * (Scapy), RC RDMA WRITE Only with Immediate, SE, FECN, PadCnt 1, AckReq,
 * P_Key 0x7fff, DestQP 0x00c0de, PSN 0x0fffff, RETH va 0xffffffff00000001
 * rkey 0x01020304 len 0xfffffffe, ImmDt 0x900dcafe, payload a1 b2 c3 + 1 pad. */
static const uint8_t ipv6[102] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xdd, 0x68,
    0xa1, 0x23, 0x45, 0x00, 0x30, 0x11, 0x11, 0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xd0, 0x0d, 0x12, 0xb7, 0x00, 0x30,
    0xfc, 0x13, 0x0b, 0x90, 0x7f, 0xff, 0x80, 0x00, 0xc0, 0xde, 0x80, 0x0f, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02, 0x03, 0x04, 0xff, 0xff, 0xff, 0xfe,
    0x90, 0x0d, 0xca, 0xfe, 0xa1, 0xb2, 0xc3, 0x00, 0x85, 0x6b, 0x91, 0x01,
};
/* [scapy] ORNIC NAK with an odd block count (PROTOCOL.md 3.5: PadCnt 2, two zero
 * pad bytes): Scapy built from the field table of PROTOCOL.md example 6.9
 * (reason 1, trigger 0x000081, 3 blocks ff7c ffdf 002b from base 0x000060,
 * Limit 0x000061 = trigger - OTD 32, AETH 60 000005) and reproduced the
 * example's bytes, iCRC 60 d2 b8 8e (spec 0.1, without the Limit word: de b2 78 9e). */
static const uint8_t nak_odd_blocks[82] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00,
    0x45, 0x6a, 0x00, 0x44, 0x01, 0x04, 0x40, 0x00, 0x40, 0x11, 0x25, 0x39, 0x0a, 0x00,
    0x00, 0x02, 0x0a, 0x00, 0x00, 0x01, 0xc1, 0x04, 0x12, 0xb7, 0x00, 0x30, 0x00, 0x00,
    0xca, 0x20, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x60, 0x60, 0x00,
    0x00, 0x05, 0x01, 0x00, 0x00, 0x81, 0x03, 0x00, 0x00, 0x60, 0x00, 0x00, 0x00, 0x61,
    0xff, 0x7c, 0xff, 0xdf, 0x00, 0x2b, 0x00, 0x00, 0x60, 0xd2, 0xb8, 0x8e,
};
typedef struct {
  const char *name;
  const uint8_t *bytes;
  size_t len;
  ornic_link link;
  size_t l3_off;
  int kind;
} vec;

#define V(arr, link, off, kind) \
  { #arr, arr, sizeof arr, link, off, kind }
static const vec vectors[] = {
    V(uc, ORNIC_LINK_ETHERNET, 14, 4),
    V(cnp_cx4lx, ORNIC_LINK_ETHERNET, 14, 4),
    V(rocev1_write_only, ORNIC_LINK_ETHERNET, 14, 1),
    V(rocev1_ack, ORNIC_LINK_ETHERNET, 14, 1),
    V(psn_wrap_last, ORNIC_LINK_ETHERNET, 14, 4),
    V(psn_wrap_next, ORNIC_LINK_ETHERNET, 14, 4),
    V(pad3, ORNIC_LINK_ETHERNET, 14, 4),
    V(nak_all, ORNIC_LINK_ETHERNET, 14, 4),
    V(vlan_ack, ORNIC_LINK_ETHERNET, 18, 4),
    V(ud, ORNIC_LINK_ETHERNET, 14, 4),
    V(ipopt, ORNIC_LINK_ETHERNET, 14, 4),
    V(ipv6, ORNIC_LINK_ETHERNET, 14, 6),
    V(nak_odd_blocks, ORNIC_LINK_ETHERNET, 14, 4),
};
#define NVEC (sizeof vectors / sizeof vectors[0])

static uint32_t wire_icrc(const vec *v) {
  const uint8_t *p = v->bytes + v->len - 4;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void decode_ok(const vec *v, ornic_frame *f) {
  int rc = ornic_frame_decode(f, v->bytes, v->len, v->link, ORNIC_ROCEV2_UDP_PORT);
  ck_assert_msg(rc == ORNIC_OK, "%s: decode %s", v->name, ornic_errname(rc));
}

/* Every vector decodes, its iCRC verifies, and compute agrees with the wire. */
START_TEST(all_vectors_decode_and_verify) {
  for (size_t i = 0; i < NVEC; i++) {
    const vec *v = &vectors[i];
    ornic_frame f;
    decode_ok(v, &f);
    ck_assert_msg(f.l3 == (ornic_l3)v->kind, "%s: l3", v->name);
    ck_assert_msg(f.l3_off == v->l3_off, "%s: l3_off", v->name);
    ck_assert_msg(f.icrc == wire_icrc(v), "%s: icrc field 0x%08x", v->name, f.icrc);
    uint32_t c = 0;
    ck_assert_int_eq(ornic_icrc_compute(&f, v->bytes, &c), ORNIC_OK);
    ck_assert_msg(c == wire_icrc(v), "%s: computed iCRC 0x%08x, wire 0x%08x", v->name, c,
                  wire_icrc(v));
    ck_assert_msg(ornic_icrc_verify(&f, v->bytes) == ORNIC_OK, "%s: verify", v->name);
    /* the test's own reference agrees too (it is checked against these vectors here) */
    ck_assert_msg(tu_ref_icrc(v->bytes + v->l3_off, v->kind, v->len - v->l3_off) == wire_icrc(v),
                  "%s: reference iCRC", v->name);
  }
}
END_TEST

START_TEST(scapy_uts_uc_send_only) {
  const vec *v = &vectors[0];
  ornic_frame f;
  decode_ok(v, &f);
  ck_assert_uint_eq(f.ip.tos, 0x01);
  ck_assert_uint_eq(f.ip.id, 1144);
  ck_assert_uint_eq(f.ip.frag, 0x4000);
  ck_assert_uint_eq(f.ip.ttl, 64);
  ck_assert_uint_eq(f.ip.checksum, 0xb4d5);
  ck_assert_uint_eq(f.ip.total_len, 64);
  ck_assert_uint_eq(f.udp.sport, 49152);
  ck_assert_uint_eq(f.udp.len, 44);
  ck_assert_uint_eq(f.udp.checksum, 0xaca2);
  ck_assert_uint_eq(f.bth.opcode, 0x24);
  ck_assert_str_eq(ornic_opcode_info_get(0x24)->short_name, "UC_SEND_ONLY");
  ck_assert_uint_eq(f.bth.m, 1);
  ck_assert_uint_eq(f.bth.se, 0);
  ck_assert_uint_eq(f.bth.padcnt, 2);
  ck_assert_uint_eq(f.bth.pkey, 0xffff);
  ck_assert_uint_eq(f.bth.destqp, 211);
  ck_assert_uint_eq(f.bth.psn, 13571856);
  ck_assert_uint_eq(f.payload_len, 18);
  ck_assert_uint_eq(f.payload[0], 'F');
  ck_assert_uint_eq(f.payload[17], 'P');
  ck_assert_uint_eq(f.icrc, 0xf353f378u); /* wire 78 f3 53 f3 as a little-endian u32 */
  /* re-encoding gives the same bytes except the UDP checksum (0 on IPv4) */
  uint8_t out[128];
  ornic_ssize n = ornic_frame_encode(out, sizeof out, &f);
  ck_assert_int_eq(n, (ornic_ssize)v->len);
  ck_assert_mem_eq(out, v->bytes, 40);
  ck_assert_uint_eq(out[40], 0);
  ck_assert_uint_eq(out[41], 0);
  ck_assert_mem_eq(out + 42, v->bytes + 42, v->len - 42);
}
END_TEST

START_TEST(cnp_connectx4_lx) {
  const vec *v = &vectors[1];
  ornic_frame f;
  decode_ok(v, &f);
  ck_assert_uint_eq(f.ip.tos, 0xc2);
  ck_assert_uint_eq(f.ip.ttl, 64);
  ck_assert_uint_eq(f.udp.sport, 0);
  ck_assert_uint_eq(f.udp.dport, 4791);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_CNP);
  ck_assert_uint_eq(f.bth.becn, 1);
  ck_assert_uint_eq(f.bth.fecn, 0);
  ck_assert_uint_eq(f.bth.resv6, 0);
  ck_assert_uint_eq(f.bth.pkey, 0xffff);
  ck_assert_uint_eq(f.bth.destqp, 0x118);
  ck_assert_uint_eq(f.bth.ackreq, 0);
  ck_assert_uint_eq(f.bth.psn, 0);
  ck_assert_uint_eq(f.bth.padcnt, 0);
  ck_assert_uint_eq(f.ext.present, ORNIC_HDR_CNP);
  static const uint8_t zero[16];
  ck_assert_mem_eq(f.ext.cnp.resv, zero, 16);
  ck_assert_uint_eq(f.payload_len, 0);
  ck_assert_uint_eq(f.icrc, 0x2a00fd82u);
  /* Building the same CNP from its values reproduces the capture byte for byte,
   * iCRC 82 fd 00 2a included. */
  ornic_frame g;
  ornic_frame_init(&g, ORNIC_LINK_ETHERNET, 4);
  memcpy(g.eth.dst, v->bytes, 6);
  memcpy(g.eth.src, v->bytes + 6, 6);
  g.ip.tos = 0xc2;
  g.ip.ttl = 64;
  g.ip.id = 0x718c;
  g.ip.frag = 0x4000;
  memcpy(g.ip.src, (const uint8_t[]){10, 0, 0x11, 1}, 4);
  memcpy(g.ip.dst, (const uint8_t[]){10, 0, 0x12, 1}, 4);
  g.udp.sport = 0;
  g.bth.opcode = ORNIC_OP_CNP;
  g.bth.becn = 1;
  g.bth.destqp = 0x118;
  uint8_t out[128];
  ornic_ssize n = ornic_frame_encode(out, sizeof out, &g);
  ck_assert_int_eq(n, 74);
  ck_assert_mem_eq(out, v->bytes, 74);
}
END_TEST

START_TEST(rocev1_captures) {
  ornic_frame f;
  decode_ok(&vectors[2], &f);
  ck_assert_uint_eq(f.ip.version, 6);
  ck_assert_uint_eq(f.ip.tos, 2);
  ck_assert_uint_eq(f.ip.flow_label, 0);
  ck_assert_uint_eq(f.ip.ttl, 0x40);
  ck_assert_uint_eq(f.ip.next_proto, 0x1b);
  ck_assert_uint_eq(f.bth_off, 54);
  ck_assert_uint_eq(f.bth.opcode, 0x0a);
  ck_assert_uint_eq(f.bth.m, 1);
  ck_assert_uint_eq(f.bth.padcnt, 3);
  ck_assert_uint_eq(f.bth.destqp, 0x10a);
  ck_assert_uint_eq(f.bth.ackreq, 1);
  ck_assert_uint_eq(f.bth.psn, 0xa788bc);
  ck_assert_uint_eq(f.ext.reth.va, 0x000055d4c0726000ull);
  ck_assert_uint_eq(f.ext.reth.rkey, 0x47b3);
  ck_assert_uint_eq(f.ext.reth.dmalen, 5);
  ck_assert_uint_eq(f.payload_len, 5);
  ck_assert_uint_eq(f.payload[4], 1);
  ck_assert_uint_eq(f.icrc, 0xbb56d8e3u);
  /* re-encoded as a bare GRH frame: the bytes after the Ethernet header */
  f.link = ORNIC_LINK_GRH;
  uint8_t out[128];
  ornic_ssize n = ornic_frame_encode(out, sizeof out, &f);
  ck_assert_int_eq(n, 94 - 14);
  ck_assert_mem_eq(out, vectors[2].bytes + 14, 80);

  decode_ok(&vectors[3], &f);
  ck_assert_uint_eq(f.bth.opcode, 0x11);
  ck_assert_uint_eq(f.bth.m, 1);
  ck_assert_uint_eq(f.bth.destqp, 0x109);
  ck_assert_uint_eq(f.bth.ackreq, 0);
  ck_assert_uint_eq(f.bth.psn, 0xa788c0);
  ck_assert_uint_eq(f.ext.aeth.syndrome, 0);
  ck_assert_uint_eq(f.ext.aeth.msn, 5);
  ck_assert_str_eq(ornic_aeth_syndrome_name(f.ext.aeth.syndrome), "ACK");
  ck_assert_uint_eq(f.icrc, 0x38c0f025u);
  f.link = ORNIC_LINK_GRH;
  n = ornic_frame_encode(out, sizeof out, &f);
  ck_assert_int_eq(n, 74 - 14);
  ck_assert_mem_eq(out, vectors[3].bytes + 14, 60);
}
END_TEST

START_TEST(psn_wrap_at_ffffff) {
  ornic_frame a, b;
  decode_ok(&vectors[4], &a);
  decode_ok(&vectors[5], &b);
  ck_assert_uint_eq(a.bth.opcode, ORNIC_OP_RC_RDMA_WRITE_MIDDLE);
  ck_assert_uint_eq(a.bth.psn, 0xffffff);
  ck_assert_uint_eq(a.bth.ackreq, 0);
  ck_assert_uint_eq(b.bth.opcode, ORNIC_OP_RC_RDMA_WRITE_LAST);
  ck_assert_uint_eq(b.bth.psn, 0);
  ck_assert_uint_eq(b.bth.ackreq, 1);
  ck_assert_uint_eq(a.bth.destqp, 0xabc);
  ck_assert_int_eq(ornic_psn_diff(b.bth.psn, a.bth.psn), 1);
  ck_assert_int_eq(ornic_psn_cmp(b.bth.psn, a.bth.psn), 1);
  ck_assert(ornic_psn_lt(a.bth.psn, b.bth.psn));
  ck_assert_uint_eq(ornic_psn_add(a.bth.psn, 1), b.bth.psn);
  for (int i = 4; i <= 5; i++) {
    ornic_frame f;
    decode_ok(&vectors[i], &f);
    uint8_t out[128];
    ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), (ornic_ssize)vectors[i].len);
    ck_assert_mem_eq(out, vectors[i].bytes, vectors[i].len);
  }
}
END_TEST

START_TEST(padcnt3_one_byte_payload) {
  ornic_frame f;
  decode_ok(&vectors[6], &f);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_RC_SEND_ONLY);
  ck_assert_uint_eq(f.bth.se, 1);
  ck_assert_uint_eq(f.bth.padcnt, 3);
  ck_assert_uint_eq(f.pad_len, 3);
  ck_assert_uint_eq(f.payload_len, 1);
  ck_assert_uint_eq(f.payload[0], 0x5a);
  ck_assert_uint_eq(f.payload_off, 54);
  uint8_t out[128];
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), 62);
  ck_assert_mem_eq(out, vectors[6].bytes, 62);
}
END_TEST

START_TEST(nak_bitmap_every_bit_set) {
  ornic_frame f;
  decode_ok(&vectors[7], &f);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_NAK);
  ck_assert_uint_eq(f.ext.present, ORNIC_HDR_AETH | ORNIC_HDR_NAKETH);
  ck_assert_uint_eq(f.ext.aeth.syndrome, 0x60);
  ck_assert_uint_eq(f.ext.aeth.msn, 0x10);
  const ornic_naketh *n = &f.ext.naketh;
  ck_assert_uint_eq(n->reason, ORNIC_NAKETH_OTD_EXCEEDED);
  ck_assert_uint_eq(n->trigger_psn, 5);
  ck_assert_uint_eq(n->nblocks, 4);
  ck_assert_uint_eq(n->base_psn, 0xfffff0);
  ck_assert_uint_eq(n->resv, 0);
  ck_assert_uint_eq(n->limit_psn, 0xfffff5);
  ck_assert_ptr_eq(n->bitmap, vectors[7].bytes + 42 + 12 + 4 + 12);
  for (unsigned k = 0; k < 4; k++) ck_assert_uint_eq(ornic_naketh_block(n, k), 0xffff);
  for (uint32_t i = 0; i < 64; i++)
    ck_assert_msg(ornic_naketh_psn_state(n, (0xfffff0 + i) & 0xffffff) == 1, "PSN 0x%06x",
                  (0xfffff0 + i) & 0xffffff);
  ck_assert_int_eq(ornic_naketh_psn_state(n, 0xffffef), -1);
  ck_assert_int_eq(ornic_naketh_psn_state(n, 0x000030), -1);
  /* every bit set: the lost set is Base alone, whatever the limit */
  ck_assert_uint_eq(ornic_naketh_lost_count(n), 1);
  uint8_t out[128];
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), 82);
  ck_assert_mem_eq(out, vectors[7].bytes, 82);
}
END_TEST

START_TEST(vlan_rc_ack) {
  ornic_frame f;
  decode_ok(&vectors[8], &f);
  ck_assert(f.eth.has_vlan);
  ck_assert_uint_eq(f.eth.vlan_tpid, 0x8100);
  ck_assert_uint_eq(f.eth.vlan_tci, 3u << 13 | 100);
  ck_assert_uint_eq(f.eth.ethertype, 0x0800);
  ck_assert_uint_eq(f.ip.tos, 0xb8);
  ck_assert_uint_eq(f.ip.ttl, 255);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_RC_ACK);
  ck_assert_uint_eq(f.bth.pkey, 0x8001);
  ck_assert_uint_eq(f.bth.destqp, 0xfedcba);
  ck_assert_uint_eq(f.bth.psn, 0x7fffff);
  ck_assert_uint_eq(f.ext.aeth.syndrome, 0x1f);
  ck_assert_uint_eq(f.ext.aeth.msn, 0xabcdef);
  uint8_t out[128];
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), 66);
  ck_assert_mem_eq(out, vectors[8].bytes, 66);
}
END_TEST

START_TEST(ud_send_only_deth) {
  ornic_frame f;
  decode_ok(&vectors[9], &f);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_UD_SEND_ONLY);
  ck_assert_uint_eq(f.ext.deth.qkey, 0x80010000u);
  ck_assert_uint_eq(f.ext.deth.srcqp, 1);
  ck_assert_uint_eq(f.payload_len, 8);
  static const uint8_t pay[8] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4};
  ck_assert_mem_eq(f.payload, pay, 8);
  uint8_t out[128];
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), 74);
  ck_assert_mem_eq(out, vectors[9].bytes, 74);
}
END_TEST

START_TEST(ipv4_options_router_alert) {
  ornic_frame f;
  decode_ok(&vectors[10], &f);
  ck_assert_uint_eq(f.ip.hdr_len, 24);
  ck_assert_uint_eq(f.l4_off, 38);
  ck_assert_uint_eq(f.bth_off, 46);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_RC_RDMA_WRITE_ONLY);
  ck_assert_uint_eq(f.bth.psn, 0x123456);
  ck_assert_uint_eq(f.ext.reth.va, 0x00007f0012345678ull);
  ck_assert_uint_eq(f.ext.reth.rkey, 0xcafef00du);
  ck_assert_uint_eq(f.ext.reth.dmalen, 5);
  ck_assert_uint_eq(f.payload_len, 5);
  ck_assert_mem_eq(f.payload, "hello", 5);
  ck_assert_int_eq(ornic_icrc_verify(&f, vectors[10].bytes), ORNIC_OK);
}
END_TEST

START_TEST(ipv6_write_only_imm) {
  ornic_frame f;
  decode_ok(&vectors[11], &f);
  ck_assert_uint_eq(f.ip.tos, 0x8a);
  ck_assert_uint_eq(f.ip.flow_label, 0x12345);
  ck_assert_uint_eq(f.ip.ttl, 17);
  ck_assert_uint_eq(f.udp.sport, 0xd00d);
  ck_assert_uint_eq(f.udp.checksum, 0xfc13);
  ck_assert_uint_eq(f.bth.opcode, 0x0b);
  ck_assert_uint_eq(f.bth.se, 1);
  ck_assert_uint_eq(f.bth.fecn, 1);
  ck_assert_uint_eq(f.bth.padcnt, 1);
  ck_assert_uint_eq(f.bth.pkey, 0x7fff);
  ck_assert_uint_eq(f.bth.destqp, 0xc0de);
  ck_assert_uint_eq(f.bth.ackreq, 1);
  ck_assert_uint_eq(f.bth.psn, 0x0fffff);
  ck_assert_uint_eq(f.ext.reth.va, 0xffffffff00000001ull);
  ck_assert_uint_eq(f.ext.reth.rkey, 0x01020304);
  ck_assert_uint_eq(f.ext.reth.dmalen, 0xfffffffeu);
  ck_assert_uint_eq(f.ext.immdt.data, 0x900dcafeu);
  ck_assert_uint_eq(f.payload_len, 3);
  /* the encoder computes the same UDP checksum as Scapy and the same iCRC */
  uint8_t out[128];
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), 102);
  ck_assert_mem_eq(out, vectors[11].bytes, 102);
}
END_TEST

START_TEST(nak_odd_block_count_padcnt2) {
  ornic_frame f;
  decode_ok(&vectors[12], &f);
  ck_assert_uint_eq(f.bth.opcode, ORNIC_OP_NAK);
  ck_assert_uint_eq(f.bth.padcnt, 2);
  ck_assert_uint_eq(f.pad_len, 2);
  ck_assert_uint_eq(f.payload_len, 0);
  ck_assert_uint_eq(f.bth.psn, 0x60);
  ck_assert_uint_eq(f.ext.aeth.syndrome, 0x60);
  ck_assert_uint_eq(f.ext.aeth.msn, 5);
  const ornic_naketh *n = &f.ext.naketh;
  ck_assert_uint_eq(n->reason, ORNIC_NAKETH_OTD_EXCEEDED);
  ck_assert_uint_eq(n->trigger_psn, 0x81);
  ck_assert_uint_eq(n->nblocks, 3);
  ck_assert_uint_eq(n->base_psn, 0x60);
  ck_assert_uint_eq(n->limit_psn, 0x61);
  ck_assert_uint_eq(ornic_naketh_block(n, 0), 0xff7c);
  ck_assert_uint_eq(ornic_naketh_block(n, 1), 0xffdf);
  ck_assert_uint_eq(ornic_naketh_block(n, 2), 0x002b);
  /* PROTOCOL.md 4.4 lost set: Base, plus q in (Base, Limit) whose bit is 0:
   * Base alone. Clear before the trigger, but not declared: 0x61, 0x67, 0x75. */
  ck_assert_uint_eq(ornic_naketh_lost_count(n), 1);
  ck_assert_int_eq(ornic_naketh_psn_lost(n, 0x60), 1);
  uint32_t clear[8];
  unsigned nc = 0;
  for (uint32_t q = n->base_psn + 1; q < n->trigger_psn; q++)
    if (ornic_naketh_psn_state(n, q) == 0) {
      ck_assert_int_eq(ornic_naketh_psn_lost(n, q), 0);
      clear[nc++] = q;
    }
  ck_assert_uint_eq(nc, 3);
  ck_assert_uint_eq(clear[0], 0x61);
  ck_assert_uint_eq(clear[1], 0x67);
  ck_assert_uint_eq(clear[2], 0x75);
  /* 0x82 and 0x84 are after the trigger (not lost); 0x80, 0x81, 0x83, 0x85 received */
  ck_assert_int_eq(ornic_naketh_psn_state(n, 0x80), 1);
  ck_assert_int_eq(ornic_naketh_psn_state(n, 0x82), 0);
  ck_assert_int_eq(ornic_naketh_psn_state(n, 0x85), 1);
  ck_assert_int_eq(ornic_naketh_psn_state(n, 0x8f), 0);
  ck_assert_int_eq(ornic_naketh_psn_state(n, 0x90), -1);
  uint8_t out[128];
  ck_assert_int_eq(ornic_frame_encode(out, sizeof out, &f), 82);
  ck_assert_mem_eq(out, vectors[12].bytes, 82);
}
END_TEST

/* Byte i of the vector is in a variant field (not covered by the iCRC)? */
static int variant_byte(const vec *v, size_t i, uint8_t mask) {
  size_t l3 = v->l3_off;
  if (i < l3) return 1; /* Ethernet (+ tag): MACs, TPID/TCI, EtherType */
  size_t r = i - l3;
  size_t bth;
  if (v->kind == 4) {
    size_t ihl = (size_t)(v->bytes[l3] & 15) * 4;
    if (r == 1 || r == 8 || r == 10 || r == 11 || r == ihl + 6 || r == ihl + 7) return 1;
    bth = ihl + 8;
  } else {
    if (r == 0) return (mask & 0xf0) == 0; /* low nibble: traffic class */
    if (r == 1 || r == 2 || r == 3 || r == 7) return 1;
    if (v->kind == 6 && (r == 46 || r == 47)) return 1;
    bth = v->kind == 6 ? 48 : 40;
  }
  return r == bth + 4;
}

/* Flip each byte in turn: variant fields leave the iCRC valid, anything else
 * is caught (BAD_ICRC) or makes the frame undecodable. Ethernet header bytes
 * that steer decoding (EtherType, TPID) may do either. */
START_TEST(flip_every_byte) {
  static const uint8_t masks[] = {0x01, 0x80, 0xff};
  for (size_t i = 0; i < NVEC; i++) {
    const vec *v = &vectors[i];
    uint8_t buf[256];
    for (size_t b = 0; b < v->len; b++)
      for (size_t m = 0; m < sizeof masks; m++) {
        memcpy(buf, v->bytes, v->len);
        buf[b] ^= masks[m];
        ornic_frame f;
        int rc = ornic_frame_decode(&f, buf, v->len, v->link, ORNIC_ROCEV2_UDP_PORT);
        int vrc = rc == ORNIC_OK ? ornic_icrc_verify(&f, buf) : rc;
        int steering = b >= 12 && b < v->l3_off; /* EtherType or tag */
        if (variant_byte(v, b, masks[m]) && !steering) {
          ck_assert_msg(vrc == ORNIC_OK, "%s: byte %zu ^ 0x%02x is variant but gave %s", v->name, b,
                        masks[m], ornic_errname(vrc));
        } else if (!steering) {
          ck_assert_msg(vrc != ORNIC_OK, "%s: byte %zu ^ 0x%02x went unnoticed", v->name, b,
                        masks[m]);
          ck_assert_msg(rc != ORNIC_OK || vrc == ORNIC_ERR_BAD_ICRC, "%s: byte %zu: %s", v->name, b,
                        ornic_errname(vrc));
        }
      }
  }
}
END_TEST

/* The guard-page trick on the real captures: every prefix, nothing read past it. */
START_TEST(vectors_guard_page) {
  tu_guard g;
  tu_guard_init(&g);
  for (size_t i = 0; i < NVEC; i++)
    for (size_t n = 0; n <= vectors[i].len; n++) {
      uint8_t *p = tu_guard_tail(&g, vectors[i].bytes, n);
      ornic_frame f;
      int rc = ornic_frame_decode(&f, p, n, vectors[i].link, ORNIC_ROCEV2_UDP_PORT);
      ck_assert_int_eq(rc, n == vectors[i].len ? ORNIC_OK : ORNIC_ERR_TRUNCATED);
      if (rc == ORNIC_OK) ck_assert_int_eq(ornic_icrc_verify(&f, p), ORNIC_OK);
    }
  tu_guard_free(&g);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("vectors");
  TCase *tc = tu_tcase("known answers");
  tcase_add_test(tc, all_vectors_decode_and_verify);
  tcase_add_test(tc, scapy_uts_uc_send_only);
  tcase_add_test(tc, cnp_connectx4_lx);
  tcase_add_test(tc, rocev1_captures);
  tcase_add_test(tc, psn_wrap_at_ffffff);
  tcase_add_test(tc, padcnt3_one_byte_payload);
  tcase_add_test(tc, nak_bitmap_every_bit_set);
  tcase_add_test(tc, vlan_rc_ack);
  tcase_add_test(tc, ud_send_only_deth);
  tcase_add_test(tc, ipv4_options_router_alert);
  tcase_add_test(tc, ipv6_write_only_imm);
  tcase_add_test(tc, nak_odd_block_count_padcnt2);
  tcase_add_test(tc, flip_every_byte);
  tcase_add_test(tc, vectors_guard_page);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
