/* SPDX-License-Identifier: MIT */
/* A worked example of dut_parse (dut.h): a deliberately small hand-written
 * RoCEv2 receive parser of the kind a NIC model starts as: Ethernet II, IPv4
 * without fragments, UDP port 4791, the BTH, the extension headers of the RC
 * and UD opcodes, and its own bitwise iCRC. It shares no code with
 * libornicproto. Anything else it handles (IPv6, a VLAN tag, RoCEv1, the UC,
 * RD, XRC, CNP and ORNIC opcodes) is DUT_SKIP.
 *
 * THE PLANTED BUG (compile with -DEXAMPLE_DUT_FIXED for the fixed parser):
 * the payload length is taken as "everything between the extension headers
 * and the iCRC", forgetting the pad bytes that BTH PadCnt counts (IBA 9.2 and
 * docs/PROTOCOL.md 2.5: the payload is followed by PadCnt pad bytes so that
 * it ends on a 4-byte boundary). Every frame whose payload is not a multiple
 * of 4 bytes gets a payload length up to 3 bytes too long: a receive path
 * built on it would write the pad bytes into the user's buffer. The
 * differential harness reports it as "payload length differs". */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dut.h"

enum { ETH_LEN = 14, IPV4_MIN = 20, UDP_LEN = 8, BTH_LEN = 12, ICRC_LEN = 4, ROCE_PORT = 4791 };

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be24(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }

/* Extension header bytes after the BTH for the opcodes this parser knows
 * (IBA 9.2 table 37 / PROTOCOL.md 2.3: RETH 16, AETH 4, AtomicETH 28,
 * AtomicAckETH 8, ImmDt 4, IETH 4, DETH 8), whether the opcode carries a
 * payload; false for an opcode it does not implement. */
static bool opcode_layout(uint8_t op, size_t *ext, bool *payload) {
  static const struct {
    uint8_t op, ext, payload;
  } table[] = {{0x00, 0, 1},  {0x01, 0, 1},  {0x02, 0, 1},  {0x03, 4, 1},  {0x04, 0, 1},
               {0x05, 4, 1},  {0x06, 16, 1}, {0x07, 0, 1},  {0x08, 0, 1},  {0x09, 4, 1},
               {0x0a, 16, 1}, {0x0b, 20, 1}, {0x0c, 16, 0}, {0x0d, 4, 1},  {0x0e, 0, 1},
               {0x0f, 4, 1},  {0x10, 4, 1},  {0x11, 4, 0},  {0x12, 12, 0}, {0x13, 28, 0},
               {0x14, 28, 0}, {0x16, 4, 1},  {0x17, 4, 1},  {0x64, 8, 1},  {0x65, 12, 1}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (table[i].op == op) {
      *ext = table[i].ext;
      *payload = table[i].payload;
      return true;
    }
  }
  return false;
}

/* CRC-32 of IEEE 802.3 one bit at a time (reflected polynomial 0xEDB88320),
 * chained: start with crc 0, as zlib's crc32(). */
static uint32_t crc32_bits(uint32_t crc, const uint8_t *p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int b = 0; b < 8; b++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

/* The iCRC over IPv4 + UDP + BTH..pad with the variant fields masked
 * (PROTOCOL.md 2.6): 8 bytes of 0xFF for the LRH; IPv4 TOS, TTL and
 * checksum; UDP checksum; BTH byte 4. */
static uint32_t icrc_ipv4(const uint8_t *ip, size_t ihl, size_t roce_len) {
  uint8_t hdr[60 + UDP_LEN + BTH_LEN];
  static const uint8_t lrh[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  memcpy(hdr, ip, ihl + UDP_LEN + BTH_LEN);
  hdr[1] = 0xff;
  hdr[8] = 0xff;
  hdr[10] = hdr[11] = 0xff;
  hdr[ihl + 6] = hdr[ihl + 7] = 0xff;
  hdr[ihl + UDP_LEN + 4] = 0xff;
  uint32_t crc = crc32_bits(0, lrh, sizeof lrh);
  crc = crc32_bits(crc, hdr, ihl + UDP_LEN + BTH_LEN);
  return crc32_bits(crc, ip + ihl + UDP_LEN + BTH_LEN, roce_len - BTH_LEN - ICRC_LEN);
}

/* IPv4 and UDP: the RoCE bytes (BTH..iCRC) at *roce, *roce_len of them. */
static int parse_ip_udp(const uint8_t *ip, size_t len, size_t *ihl, size_t *roce_len) {
  if (len < IPV4_MIN || ip[0] >> 4 != 4) return DUT_REJECT;
  *ihl = (size_t)(ip[0] & 0x0f) * 4;
  size_t total = be16(ip + 2);
  if (*ihl < IPV4_MIN || len < *ihl + UDP_LEN || total > len) return DUT_REJECT;
  if (ip[9] != 17 || (be16(ip + 6) & 0x3fff)) return DUT_REJECT; /* not UDP, a fragment */
  const uint8_t *udp = ip + *ihl;
  if (be16(udp + 2) != ROCE_PORT) return DUT_REJECT;
  size_t ulen = be16(udp + 4);
  if (total < *ihl || ulen != total - *ihl || ulen < UDP_LEN + BTH_LEN + ICRC_LEN)
    return DUT_REJECT;
  *roce_len = ulen - UDP_LEN;
  return DUT_ACCEPT;
}

int dut_parse(const uint8_t *frame, size_t len, dut_verdict *v) {
  if (len < ETH_LEN) {
    v->accepted = DUT_REJECT;
    return 0;
  }
  uint32_t type = be16(frame + 12);
  if (type == 0x8100 || type == 0x88a8 || type == 0x86dd || type == 0x8915) {
    v->accepted = DUT_SKIP; /* a tag, IPv6, RoCEv1: not handled here */
    return 0;
  }
  size_t ihl = 0, roce_len = 0;
  const uint8_t *ip = frame + ETH_LEN;
  if (type != 0x0800 || parse_ip_udp(ip, len - ETH_LEN, &ihl, &roce_len) != DUT_ACCEPT) {
    v->accepted = DUT_REJECT;
    return 0;
  }
  const uint8_t *bth = ip + ihl + UDP_LEN;
  size_t ext;
  bool has_payload;
  if (!opcode_layout(bth[0], &ext, &has_payload)) {
    v->accepted = DUT_SKIP; /* UC, RD, XRC, CNP, ORNIC, unassigned */
    return 0;
  }
  v->opcode = bth[0];
  v->destqp = be24(bth + 5);
  v->psn = be24(bth + 9);
  uint32_t icrc = icrc_ipv4(ip, ihl, roce_len);
  const uint8_t *w = bth + roce_len - ICRC_LEN;
  uint32_t wire =
      (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
  v->icrc_ok = icrc == wire ? DUT_ICRC_OK : DUT_ICRC_BAD;
  size_t body = roce_len - BTH_LEN - ICRC_LEN; /* extension headers, payload, pad */
  size_t pad = (bth[1] >> 4) & 3;
  if (body < ext || body - ext < pad) {
    v->accepted = DUT_REJECT;
    return 0;
  }
  v->payload_len = (uint32_t)(body - ext - pad);
#ifdef EXAMPLE_DUT_FIXED
  bool ok = v->icrc_ok == DUT_ICRC_OK && (has_payload || v->payload_len == 0);
#else
  bool ok = v->icrc_ok == DUT_ICRC_OK; /* the bug: payload on an opcode that carries none */
  (void)has_payload;
#endif
  v->accepted = ok ? DUT_ACCEPT : DUT_REJECT;
  return 0;
}
