/* SPDX-License-Identifier: MIT */
/* Repair of a frame another mutator damaged (ornic_mut_fix, AFL++'s
 * post_process): the headers located by hand, since damaged lengths stop
 * ornic_frame_decode, then the lengths rewritten from the frame's real size
 * and the IPv4 checksum, the iCRC (ornic_icrc_compute_at, docs/PROTOCOL.md
 * 2.6) and the IPv6 UDP checksum (mut_wire.c) computed again. For
 * break_rate's share one consistency is broken again (mut_wire_break), drawn
 * from the seed and the frame's bytes so that one input always gets one
 * result. */
#include <stdio.h>
#include <string.h>

#include "mut_internal.h"

#define BTH_LEN 12
#define ICRC_LEN 4

typedef struct {
  ornic_l3 kind;
  size_t l3, l4, bth; /* offsets in the frame; l4 0 for a GRH (RoCEv1) */
} fix_loc;

static size_t be16(const uint8_t *p) { return (size_t)p[0] << 8 | p[1]; }

/* IPv4 (version 4, IHL >= 5, protocol 17) or IPv6 (version 6, next header
 * 17) and UDP to port 4791 at l3. */
static int locate_ip(const uint8_t *p, size_t len, size_t et, fix_loc *w) {
  const uint8_t *ip = p + w->l3;
  size_t hl;
  if (et == ORNIC_ETHERTYPE_IPV4) {
    if (len - w->l3 < 20) return 0;
    hl = (size_t)(ip[0] & 15) * 4;
    if (ip[0] >> 4 != 4 || hl < 20 || ip[9] != ORNIC_IPPROTO_UDP) return 0;
    w->kind = ORNIC_L3_IPV4;
  } else {
    hl = 40;
    if (len - w->l3 < 40 || ip[0] >> 4 != 6 || ip[6] != ORNIC_IPPROTO_UDP) return 0;
    w->kind = ORNIC_L3_IPV6;
  }
  w->l4 = w->l3 + hl;
  if (len < w->l4 + 8 || be16(p + w->l4 + 2) != ORNIC_ROCEV2_UDP_PORT) return 0;
  w->bth = w->l4 + 8;
  return 1;
}

/* Ethernet, an optional 802.1Q / 802.1ad tag, then IP and UDP or a GRH;
 * room for a BTH and an iCRC, and lengths that fit their 16 bits. */
static int locate(const uint8_t *p, size_t len, fix_loc *w) {
  if (len < 14) return 0;
  size_t et = be16(p + 12);
  w->l3 = 14;
  if (et == ORNIC_ETHERTYPE_VLAN || et == ORNIC_ETHERTYPE_QINQ) {
    if (len < 18) return 0;
    et = be16(p + 16);
    w->l3 = 18;
  }
  if (et == ORNIC_ETHERTYPE_IPV4 || et == ORNIC_ETHERTYPE_IPV6) {
    if (!locate_ip(p, len, et, w)) return 0;
  } else if (et == ORNIC_ETHERTYPE_ROCEV1) {
    /* GRH: version 6, next header 0x1B (IBA 8.3, "BTH follows") */
    if (len - w->l3 < 40 || p[w->l3] >> 4 != 6 || p[w->l3 + 6] != 0x1b) return 0;
    w->kind = ORNIC_L3_GRH;
    w->l4 = 0;
    w->bth = w->l3 + 40;
  } else {
    return 0;
  }
  return len >= w->bth + BTH_LEN + ICRC_LEN && len - w->l3 <= 0xffff;
}

/* Writes v at p; 1 when that changed the bytes. */
static int set16(uint8_t *p, size_t v) {
  int changed = be16(p) != (v & 0xffff);
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
  return changed;
}

enum { FIX_IP_LEN = 1, FIX_UDP_LEN = 2, FIX_IP_CSUM = 4, FIX_ICRC = 8, FIX_UDP_CSUM = 16 };

/* The rewrite itself; returns the FIX_* bits of what changed. */
static unsigned rewrite(uint8_t *p, size_t len, const fix_loc *w) {
  uint8_t *l3 = p + w->l3;
  unsigned what = 0;
  if (w->kind == ORNIC_L3_IPV4) {
    size_t hl = (size_t)(l3[0] & 15) * 4;
    what |= set16(l3 + 2, len - w->l3) ? FIX_IP_LEN : 0;
    uint8_t old[2] = {l3[10], l3[11]};
    l3[10] = l3[11] = 0;
    (void)set16(l3 + 10, mut_wire_ip4_csum(l3, hl));
    what |= memcmp(old, l3 + 10, 2) ? FIX_IP_CSUM : 0;
  } else {
    what |= set16(l3 + 4, len - w->l3 - 40) ? FIX_IP_LEN : 0;
  }
  if (w->l4) what |= set16(p + w->l4 + 4, len - w->l4) ? FIX_UDP_LEN : 0;
  uint32_t icrc;
  size_t icrc_at = len - ICRC_LEN;
  if (ornic_icrc_compute_at(l3, len - w->l3, w->kind, w->bth - w->l3, icrc_at - w->l3, &icrc) ==
      ORNIC_OK) {
    uint8_t le[4] = {(uint8_t)icrc, (uint8_t)(icrc >> 8), (uint8_t)(icrc >> 16),
                     (uint8_t)(icrc >> 24)};
    what |= memcmp(p + icrc_at, le, 4) ? FIX_ICRC : 0;
    memcpy(p + icrc_at, le, 4);
  }
  if (w->kind == ORNIC_L3_IPV6) { /* it covers the iCRC: last */
    uint8_t old[2] = {p[w->l4 + 6], p[w->l4 + 7]};
    mut_wire_udp6_csum(p, w->l3, w->l4, len - w->l4);
    what |= memcmp(old, p + w->l4 + 6, 2) ? FIX_UDP_CSUM : 0;
  }
  return what;
}

static void log_fixed(ornic_mut *m, unsigned what) {
  static const char *const names[] = {"ip length", "udp length", "ipv4 checksum", "icrc",
                                      "udp checksum"};
  char buf[96];
  size_t n = 0;
  for (unsigned k = 0; k < 5; k++)
    if (what & (1u << k))
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? ", " : "", names[k]);
  mut_log(m, "fixed: %s", n ? buf : "nothing");
}

/* FNV-1a (Fowler, Noll, Vo) of the bytes: the break decision's seed. */
static uint64_t hash_bytes(const uint8_t *p, size_t len) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* One frame: located, rewritten (logged when log), broken at break_rate.
 * Returns -1 when left alone, else whether it was broken. */
static int fix_one(ornic_mut *m, uint8_t *p, size_t len, int log) {
  fix_loc w;
  if (!locate(p, len, &w)) return -1;
  mut_rng keep = m->rng;
  m->rng.s = m->cfg.seed ^ hash_bytes(p, len);
  int brk = mut_rng_chance(&m->rng, m->cfg.break_rate);
  unsigned what = rewrite(p, len, &w);
  if (log) log_fixed(m, what);
  if (brk) mut_wire_break(m, p, len);
  m->rng = keep;
  return brk;
}

int ornic_mut_fix(ornic_mut *m, uint8_t *frame, size_t len) {
  mut_begin(m);
  int r = frame ? fix_one(m, frame, len, 1) : -1;
  if (r < 0) {
    mut_log(m, "not located: left alone");
    return 0;
  }
  m->broken = r;
  return 1;
}

size_t ornic_mut_fix_records(ornic_mut *m, uint8_t *in, size_t len, size_t prefix) {
  mut_begin(m);
  size_t fixed = 0, frames = 0, at = prefix;
  int broken = 0;
  while (in && at < len && len - at >= 2 && be16(in + at) <= len - at - 2) {
    size_t n = be16(in + at);
    if (n >= 14) {
      frames++;
      int r = fix_one(m, in + at + 2, n, 0);
      fixed += r >= 0;
      broken |= r > 0;
    }
    at += 2 + n;
  }
  mut_log(m, "fixed %zu of %zu frame records", fixed, frames);
  m->broken = broken;
  return fixed;
}
