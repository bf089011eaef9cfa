/* SPDX-License-Identifier: MIT */
/* What ornic_frame_encode cannot write, patched into its output: a PadCnt
 * that disagrees with the payload, an opcode whose header is missing, two
 * extension headers swapped; then the iCRC recomputed from the bytes with
 * the public API (ornic_icrc_compute), so the frame stays consistent. And,
 * for break_rate's share, one consistency broken on purpose. */
#include <string.h>

#include "mut_internal.h"

static int decode_out(ornic_frame *f, const uint8_t *out, size_t len) {
  int rc = ornic_frame_decode(f, out, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  return rc != ORNIC_ERR_NOT_ROCE && rc != ORNIC_ERR_INVALID_ARG && (f->layers & ORNIC_LAYER_BTH);
}

/* RFC 1071 sum of n bytes, folded later. */
static uint32_t sum16(uint32_t s, const uint8_t *p, size_t n) {
  for (size_t i = 0; i + 1 < n; i += 2) s += (uint32_t)(p[i] << 8 | p[i + 1]);
  if (n & 1) s += (uint32_t)p[n - 1] << 8;
  return s;
}
static uint16_t fold(uint32_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)~s;
}

/* IPv6 UDP checksum (RFC 8200 8.1 pseudo-header), which encode computes and
 * a wire patch invalidates; IPv4 RoCEv2 sends 0 (no checksum). */
void mut_wire_udp6_csum(uint8_t *out, size_t l3_off, size_t l4_off, size_t ulen) {
  uint8_t *udp = out + l4_off;
  uint8_t pseudo[8] = {0, 0, (uint8_t)(ulen >> 8), (uint8_t)ulen, 0, 0, 0, ORNIC_IPPROTO_UDP};
  udp[6] = udp[7] = 0;
  uint32_t s = sum16(0, out + l3_off + 8, 32);
  s = sum16(s, pseudo, 8);
  uint16_t c = fold(sum16(s, udp, ulen));
  if (c == 0) c = 0xffff;
  udp[6] = (uint8_t)(c >> 8);
  udp[7] = (uint8_t)c;
}

static void fix_udp6(const ornic_frame *f, uint8_t *out) {
  if (f->l3 == ORNIC_L3_IPV6) mut_wire_udp6_csum(out, f->l3_off, f->l4_off, f->udp.len);
}

int mut_wire_fix_icrc(uint8_t *out, size_t len) {
  ornic_frame f;
  uint32_t icrc;
  if (!decode_out(&f, out, len) || ornic_icrc_compute(&f, out, &icrc) != ORNIC_OK) return 0;
  /* ornic_frame.icrc is the little-endian u32 of the wire bytes (frame.h). */
  for (int i = 0; i < 4; i++) out[f.icrc_off + (size_t)i] = (uint8_t)(icrc >> (8 * i));
  if (f.l4_off + f.udp.len <= len) fix_udp6(&f, out);
  return 1;
}

/* The first two extension headers (fixed sizes, headers.h) trade places. */
static void swap_first_two(const ornic_frame *f, uint8_t *out) {
  uint16_t hdrs = ornic_opcode_info_get(f->bth.opcode)->hdrs;
  uint16_t a = hdrs & (uint16_t)-hdrs, rest = (uint16_t)(hdrs & ~a), b = rest & (uint16_t)-rest;
  size_t na = ornic_hdr_size(a), nb = ornic_hdr_size(b);
  uint8_t tmp[64];
  if (!na || !nb || na + nb > sizeof tmp) return;
  uint8_t *p = out + f->ext_off;
  memcpy(tmp, p + na, nb);
  memcpy(tmp + nb, p, na);
  memcpy(p, tmp, na + nb);
}

void mut_wire_patch(ornic_mut *m, uint8_t *out, size_t len) {
  if (!m->wire_op_set && m->wire_padcnt < 0 && !m->wire_reorder) return;
  ornic_frame f;
  if (!decode_out(&f, out, len)) return;
  uint8_t *bth = out + f.bth_off;
  if (m->wire_reorder) swap_first_two(&f, out);
  if (m->wire_op_set) bth[0] = m->wire_op;
  /* BTH byte 1: SE, M, PadCnt (2 bits), TVer (IBA 9.2). */
  if (m->wire_padcnt >= 0) bth[1] = (uint8_t)((bth[1] & 0xcf) | (m->wire_padcnt << 4));
  mut_wire_fix_icrc(out, len);
}

uint16_t mut_wire_ip4_csum(const uint8_t *h, size_t n) { return fold(sum16(0, h, n)); }

static void put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* A length moved by 1..8 either way (never to itself). */
static uint16_t moved(ornic_mut *m, uint16_t v) {
  uint16_t d = (uint16_t)(1 + mut_rng_below(&m->rng, 8));
  return mut_rng_below(&m->rng, 2) ? (uint16_t)(v + d) : (uint16_t)(v - d);
}

/* Which consistency to break: 0 iCRC, 1 IP length, 2 UDP length, 3 IPv4
 * checksum, drawn uniformly among those break_kinds allows that the frame has. */
static unsigned break_kind(ornic_mut *m, int v4) {
  uint32_t allowed = m->cfg.break_kinds ? m->cfg.break_kinds : 0xf;
  if (!v4) allowed &= ~(uint32_t)ORNIC_MUT_BREAK_IP_CSUM;
  if (!allowed) return 0;
  unsigned n = 0, kinds[4];
  for (unsigned k = 0; k < 4; k++)
    if (allowed & (1u << k)) kinds[n++] = k;
  return kinds[mut_rng_below(&m->rng, n)];
}

void mut_wire_break(ornic_mut *m, uint8_t *out, size_t len) {
  ornic_frame f;
  if (!decode_out(&f, out, len) || !f.icrc_present) { /* cannot happen on our encodes */
    out[len - 1] ^= 0xff;
    mut_log(m, "broken: last byte");
    return;
  }
  int v4 = f.l3 == ORNIC_L3_IPV4;
  uint8_t *ip = out + f.l3_off, *udp = out + f.l4_off;
  switch (break_kind(m, v4)) {
  case 0: {
    uint32_t x = (uint32_t)mut_rng_next(&m->rng) | 1u;
    for (int i = 0; i < 4; i++) out[f.icrc_off + (size_t)i] ^= (uint8_t)(x >> (8 * i));
    /* IPv6's UDP checksum covers the iCRC: right again, so the iCRC alone is wrong. */
    if (f.l4_off + f.udp.len <= len) fix_udp6(&f, out);
    mut_log(m, "broken: icrc");
    break;
  }
  case 1: /* IP length, with the IPv4 checksum kept right: one thing broken */
    if (v4) {
      put16(ip + 2, moved(m, get16(ip + 2)));
      put16(ip + 10, 0);
      put16(ip + 10, mut_wire_ip4_csum(ip, f.ip.hdr_len));
    } else {
      put16(ip + 4, moved(m, get16(ip + 4)));
    }
    mut_log(m, "broken: ip length");
    break;
  case 2:
    put16(udp + 4, moved(m, get16(udp + 4)));
    mut_log(m, "broken: udp length");
    break;
  default:
    put16(ip + 10, (uint16_t)(get16(ip + 10) ^ (1 + mut_rng_below(&m->rng, 0xffff))));
    mut_log(m, "broken: ipv4 checksum");
  }
}
