/* SPDX-License-Identifier: MIT */
/* An oracle for RoCEv2 frames that shares no code with libornicproto: its own
 * parse of Ethernet/IPv4/IPv6/UDP, RFC 1071 sums, and a bitwise CRC-32
 * (IEEE 802.3, reflected polynomial 0xEDB88320) over the iCRC's masked
 * pseudo-frame (IBTA Annex A17 "RoCEv2" A17.8: 64 bits of ones for the LRH,
 * then the IP header with TOS/traffic class, flow label, TTL/hop limit and
 * the IPv4 checksum as ones, the UDP checksum as ones, BTH byte 4 as ones). */
#ifndef FRAME_ORACLE_H
#define FRAME_ORACLE_H

#include <stddef.h>
#include <stdint.h>

enum {
  ORACLE_OK = 0,
  ORACLE_NOT_ROCE,
  ORACLE_IP_LEN,
  ORACLE_IP_CSUM,
  ORACLE_UDP_LEN,
  ORACLE_UDP_CSUM,
  ORACLE_ICRC
};

static inline uint16_t oracle_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static inline uint32_t oracle_crc_byte(uint32_t c, uint8_t b) {
  c ^= b;
  for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  return c;
}

static inline uint32_t oracle_sum(uint32_t s, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) s += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
  return s;
}
static inline uint16_t oracle_fold(uint32_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)s;
}

/* ORACLE_OK when the frame is an untagged or singly tagged RoCEv2 frame
 * whose IP and UDP lengths end exactly at the frame's end, whose IPv4
 * header checksum / IPv6 UDP checksum hold and whose iCRC is right. */
static inline int oracle_check(const uint8_t *p, size_t len) {
  size_t l3 = 14;
  if (len < 14) return ORACLE_NOT_ROCE;
  uint16_t et = oracle_be16(p + 12);
  if (et == 0x8100 || et == 0x88a8) {
    if (len < 18) return ORACLE_NOT_ROCE;
    et = oracle_be16(p + 16);
    l3 = 18;
  }
  size_t ihl, l4;
  int v4 = et == 0x0800;
  if (!v4 && et != 0x86dd) return ORACLE_NOT_ROCE;
  if (v4) {
    if (len < l3 + 20) return ORACLE_NOT_ROCE;
    ihl = (size_t)(p[l3] & 15) * 4;
    if (ihl < 20 || len < l3 + ihl || p[l3 + 9] != 17) return ORACLE_NOT_ROCE;
    if (l3 + oracle_be16(p + l3 + 2) != len) return ORACLE_IP_LEN;
    if (oracle_fold(oracle_sum(0, p + l3, ihl)) != 0xffff) return ORACLE_IP_CSUM;
  } else {
    ihl = 40;
    if (len < l3 + 40 || p[l3 + 6] != 17) return ORACLE_NOT_ROCE;
    if (l3 + 40 + oracle_be16(p + l3 + 4) != len) return ORACLE_IP_LEN;
  }
  l4 = l3 + ihl;
  if (len < l4 + 8 || oracle_be16(p + l4 + 2) != 4791) return ORACLE_NOT_ROCE;
  size_t ulen = oracle_be16(p + l4 + 4);
  if (l4 + ulen != len || ulen < 8 + 12 + 4) return ORACLE_UDP_LEN;
  if (!v4) { /* RFC 8200 8.1 pseudo-header */
    uint32_t s = oracle_sum(0, p + l3 + 8, 32);
    s += (uint32_t)ulen + 17;
    if (oracle_fold(oracle_sum(s, p + l4, ulen)) != 0xffff) return ORACLE_UDP_CSUM;
  }
  uint32_t c = 0xffffffffu;
  for (int i = 0; i < 8; i++) c = oracle_crc_byte(c, 0xff);
  size_t icrc_at = len - 4;
  for (size_t i = l3; i < icrc_at; i++) {
    size_t o = i - l3;
    uint8_t b = p[i];
    if (v4 && (o == 1 || o == 8 || o == 10 || o == 11)) b = 0xff;
    if (!v4 && o == 0) b |= 0x0f; /* traffic class' high nibble; the version stays */
    if (!v4 && ((o >= 1 && o <= 3) || o == 7)) b = 0xff; /* class, flow label, hop limit */
    if (i == l4 + 6 || i == l4 + 7 || i == l4 + 8 + 4) b = 0xff;
    c = oracle_crc_byte(c, b);
  }
  c = ~c;
  uint32_t wire = (uint32_t)p[icrc_at] | (uint32_t)p[icrc_at + 1] << 8 |
                  (uint32_t)p[icrc_at + 2] << 16 | (uint32_t)p[icrc_at + 3] << 24;
  return c == wire ? ORACLE_OK : ORACLE_ICRC;
}

#endif
