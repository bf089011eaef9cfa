/* SPDX-License-Identifier: MIT */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- PRNG ---- */
void tu_seed(tu_rng *r, uint64_t seed) { r->s = seed; }

uint64_t tu_next(tu_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t tu_bits(tu_rng *r, unsigned nbits) {
  uint64_t v = tu_next(r);
  return nbits >= 32 ? (uint32_t)v : (uint32_t)(v & ((1ull << nbits) - 1));
}

uint32_t tu_range(tu_rng *r, uint32_t lo, uint32_t hi) {
  return lo + (uint32_t)(tu_next(r) % ((uint64_t)hi - lo + 1));
}

void tu_fill(tu_rng *r, uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)tu_next(r);
}

/* ---- references ---- */
uint32_t tu_crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/* IBA notes section 3 (sizes) plus the ORNIC headers documented in headers.h. */
size_t tu_hdr_size(uint16_t bit, unsigned nak_nblocks) {
  switch (bit) {
  case ORNIC_HDR_RDETH: return 4;
  case ORNIC_HDR_DETH: return 8;
  case ORNIC_HDR_XRCETH: return 4;
  case ORNIC_HDR_FETH: return 4;
  case ORNIC_HDR_RETH: return 16;
  case ORNIC_HDR_OFFETH: return 4;
  case ORNIC_HDR_ATOMICETH: return 28;
  case ORNIC_HDR_AETH: return 4;
  case ORNIC_HDR_ATOMICACKETH: return 8;
  case ORNIC_HDR_OACKETH: return 4;
  case ORNIC_HDR_NAKETH: return 12 + 2u * nak_nblocks;
  case ORNIC_HDR_IMMDT: return 4;
  case ORNIC_HDR_IETH: return 4;
  case ORNIC_HDR_CNP: return 16;
  default: return 0;
  }
}

size_t tu_hdrs_size(uint16_t hdrs, unsigned nak_nblocks) {
  size_t n = 0;
  for (unsigned i = 0; i < 16; i++)
    if (hdrs & (1u << i)) n += tu_hdr_size((uint16_t)(1u << i), nak_nblocks);
  return n;
}

uint16_t tu_inet_csum(const uint8_t *p, size_t n, uint32_t start) {
  uint64_t s = start;
  for (size_t i = 0; i < n; i++) s += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)~s;
}

uint32_t tu_ref_icrc(const uint8_t *l3, int kind, size_t l3_len) {
  static const uint8_t lrh[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  uint8_t *m = malloc(l3_len);
  ck_assert_ptr_nonnull(m);
  memcpy(m, l3, l3_len);
  size_t bth;
  if (kind == 4) {
    size_t ihl = (size_t)(m[0] & 0x0f) * 4;
    m[1] = 0xff;                    /* TOS */
    m[8] = 0xff;                    /* TTL */
    m[10] = m[11] = 0xff;           /* header checksum */
    m[ihl + 6] = m[ihl + 7] = 0xff; /* UDP checksum */
    bth = ihl + 8;
  } else {
    m[0] |= 0x0f; /* traffic class, flow label */
    m[1] = m[2] = m[3] = 0xff;
    m[7] = 0xff; /* hop limit */
    if (kind == 6) {
      m[46] = m[47] = 0xff;
      bth = 48;
    } else {
      bth = 40;
    }
  }
  m[bth + 4] = 0xff; /* BTH F, B, resv6 */
  uint32_t crc = tu_crc32_bitwise(0, lrh, sizeof lrh);
  crc = tu_crc32_bitwise(crc, m, l3_len - 4);
  free(m);
  return crc;
}

/* ---- variants ---- */
const tu_variant tu_variants[] = {
    {ORNIC_LINK_ETHERNET, 4, false, 0},     {ORNIC_LINK_ETHERNET, 6, false, 0},
    {ORNIC_LINK_ETHERNET, 4, true, 0},      {ORNIC_LINK_ETHERNET, 6, true, 0x8100},
    {ORNIC_LINK_ETHERNET, 4, true, 0x88A8}, {ORNIC_LINK_RAW_IP, 4, false, 0},
    {ORNIC_LINK_RAW_IP, 6, false, 0},       {ORNIC_LINK_GRH, 6, false, 0},
};
const size_t tu_nvariants = sizeof tu_variants / sizeof tu_variants[0];

const char *tu_variant_name(const tu_variant *v) {
  if (v->link == ORNIC_LINK_GRH) return "GRH (RoCEv1)";
  if (v->link == ORNIC_LINK_RAW_IP) return v->ipv == 4 ? "raw IPv4" : "raw IPv6";
  if (!v->vlan) return v->ipv == 4 ? "Ethernet/IPv4" : "Ethernet/IPv6";
  if (v->tpid == 0x88A8) return v->ipv == 4 ? "Ethernet/802.1ad/IPv4" : "Ethernet/802.1ad/IPv6";
  return v->ipv == 4 ? "Ethernet/802.1Q/IPv4" : "Ethernet/802.1Q/IPv6";
}

/* ---- random frames ---- */
static void random_ext(ornic_ext *e, tu_store *st, tu_rng *r) {
  memset(e, 0, sizeof *e);
  e->rdeth.resv = (uint8_t)tu_bits(r, 8);
  e->rdeth.een = tu_bits(r, 24);
  e->deth.qkey = tu_bits(r, 32);
  e->deth.resv = (uint8_t)tu_bits(r, 8);
  e->deth.srcqp = tu_bits(r, 24);
  e->xrceth.resv = (uint8_t)tu_bits(r, 8);
  e->xrceth.xrcsrq = tu_bits(r, 24);
  e->feth.value = tu_bits(r, 32);
  e->reth.va = tu_next(r);
  e->reth.rkey = tu_bits(r, 32);
  e->reth.dmalen = tu_bits(r, 32);
  e->offeth.offset = tu_bits(r, 32);
  e->atomiceth.va = tu_next(r);
  e->atomiceth.rkey = tu_bits(r, 32);
  e->atomiceth.swap_add = tu_next(r);
  e->atomiceth.compare = tu_next(r);
  e->aeth.syndrome = (uint8_t)tu_bits(r, 8);
  e->aeth.msn = tu_bits(r, 24);
  e->atomicacketh.orig = tu_next(r);
  e->oacketh.flags = (uint8_t)tu_bits(r, 8);
  e->oacketh.resv = (uint8_t)tu_bits(r, 8);
  e->oacketh.count = (uint16_t)tu_bits(r, 16);
  e->naketh.reason = (uint8_t)tu_bits(r, 8);
  e->naketh.trigger_psn = tu_bits(r, 24);
  e->naketh.nblocks = (uint8_t)tu_range(r, 1, 255);
  e->naketh.base_psn = tu_bits(r, 24);
  e->naketh.resv = (uint8_t)tu_bits(r, 8);
  e->naketh.limit_psn = tu_bits(r, 24);
  tu_fill(r, st->bitmap, sizeof st->bitmap);
  e->naketh.bitmap = st->bitmap;
  e->immdt.data = tu_bits(r, 32);
  e->ieth.rkey = tu_bits(r, 32);
  tu_fill(r, e->cnp.resv, sizeof e->cnp.resv);
}

void tu_random_frame(ornic_frame *f, tu_store *st, tu_rng *r, uint8_t opcode, const tu_variant *v,
                     size_t paylen) {
  static const uint16_t frags[] = {0x0000, 0x4000, 0x8000, 0xC000}; /* no fragments */
  memset(f, 0, sizeof *f);
  f->link = v->link;
  tu_fill(r, f->eth.dst, 6);
  tu_fill(r, f->eth.src, 6);
  f->eth.has_vlan = v->link == ORNIC_LINK_ETHERNET && v->vlan;
  f->eth.vlan_tpid = v->tpid;
  f->eth.vlan_tci = (uint16_t)tu_bits(r, 16);
  f->ip.version = (uint8_t)(v->link == ORNIC_LINK_GRH ? 6 : v->ipv);
  f->ip.tos = (uint8_t)tu_bits(r, 8);
  f->ip.ttl = (uint8_t)tu_bits(r, 8);
  if (f->ip.version == 6) {
    f->ip.flow_label = tu_bits(r, 20);
    tu_fill(r, f->ip.src, 16);
    tu_fill(r, f->ip.dst, 16);
  } else {
    f->ip.id = (uint16_t)tu_bits(r, 16);
    f->ip.frag = frags[tu_bits(r, 2)];
    tu_fill(r, f->ip.src, 4);
    tu_fill(r, f->ip.dst, 4);
  }
  f->udp.sport = (uint16_t)tu_bits(r, 16);
  f->udp.dport = ORNIC_ROCEV2_UDP_PORT;
  f->bth.opcode = opcode;
  f->bth.se = (uint8_t)tu_bits(r, 1);
  f->bth.m = (uint8_t)tu_bits(r, 1);
  f->bth.tver = (uint8_t)tu_bits(r, 4);
  f->bth.pkey = (uint16_t)tu_bits(r, 16);
  f->bth.fecn = (uint8_t)tu_bits(r, 1);
  f->bth.becn = (uint8_t)tu_bits(r, 1);
  f->bth.resv6 = (uint8_t)tu_bits(r, 6);
  f->bth.destqp = tu_bits(r, 24);
  f->bth.ackreq = (uint8_t)tu_bits(r, 1);
  f->bth.resv7 = (uint8_t)tu_bits(r, 7);
  f->bth.psn = tu_bits(r, 24);
  random_ext(&f->ext, st, r);
  ck_assert_uint_le(paylen, sizeof st->payload);
  tu_fill(r, st->payload, paylen);
  f->payload = paylen ? st->payload : NULL;
  f->payload_len = paylen;
}

size_t tu_encode(const ornic_frame *f, uint8_t *out, size_t cap) {
  ornic_ssize n = ornic_frame_encode(out, cap, f);
  ck_assert_msg(n > 0, "ornic_frame_encode(opcode 0x%02x) = %s", f->bth.opcode,
                ornic_errname((int)n));
  return (size_t)n;
}

/* ---- comparisons ---- */
#define EQ(a, b, field)                                                                         \
  ck_assert_msg((uint64_t)(a) == (uint64_t)(b), "%s: %s: want 0x%llx, got 0x%llx", what, field, \
                (unsigned long long)(a), (unsigned long long)(b))

void tu_assert_bth_eq(const ornic_bth *a, const ornic_bth *b, bool with_padcnt, const char *what) {
  EQ(a->opcode, b->opcode, "bth.opcode");
  EQ(a->se, b->se, "bth.se");
  EQ(a->m, b->m, "bth.m");
  if (with_padcnt) EQ(a->padcnt, b->padcnt, "bth.padcnt");
  EQ(a->tver, b->tver, "bth.tver");
  EQ(a->pkey, b->pkey, "bth.pkey");
  EQ(a->fecn, b->fecn, "bth.fecn");
  EQ(a->becn, b->becn, "bth.becn");
  EQ(a->resv6, b->resv6, "bth.resv6");
  EQ(a->destqp, b->destqp, "bth.destqp");
  EQ(a->ackreq, b->ackreq, "bth.ackreq");
  EQ(a->resv7, b->resv7, "bth.resv7");
  EQ(a->psn, b->psn, "bth.psn");
}

void tu_assert_ext_eq(const ornic_ext *a, const ornic_ext *b, uint16_t hdrs, const char *what) {
  if (hdrs & ORNIC_HDR_RDETH) {
    EQ(a->rdeth.resv, b->rdeth.resv, "rdeth.resv");
    EQ(a->rdeth.een, b->rdeth.een, "rdeth.een");
  }
  if (hdrs & ORNIC_HDR_DETH) {
    EQ(a->deth.qkey, b->deth.qkey, "deth.qkey");
    EQ(a->deth.resv, b->deth.resv, "deth.resv");
    EQ(a->deth.srcqp, b->deth.srcqp, "deth.srcqp");
  }
  if (hdrs & ORNIC_HDR_XRCETH) {
    EQ(a->xrceth.resv, b->xrceth.resv, "xrceth.resv");
    EQ(a->xrceth.xrcsrq, b->xrceth.xrcsrq, "xrceth.xrcsrq");
  }
  if (hdrs & ORNIC_HDR_FETH) EQ(a->feth.value, b->feth.value, "feth.value");
  if (hdrs & ORNIC_HDR_RETH) {
    EQ(a->reth.va, b->reth.va, "reth.va");
    EQ(a->reth.rkey, b->reth.rkey, "reth.rkey");
    EQ(a->reth.dmalen, b->reth.dmalen, "reth.dmalen");
  }
  if (hdrs & ORNIC_HDR_OFFETH) EQ(a->offeth.offset, b->offeth.offset, "offeth.offset");
  if (hdrs & ORNIC_HDR_ATOMICETH) {
    EQ(a->atomiceth.va, b->atomiceth.va, "atomiceth.va");
    EQ(a->atomiceth.rkey, b->atomiceth.rkey, "atomiceth.rkey");
    EQ(a->atomiceth.swap_add, b->atomiceth.swap_add, "atomiceth.swap_add");
    EQ(a->atomiceth.compare, b->atomiceth.compare, "atomiceth.compare");
  }
  if (hdrs & ORNIC_HDR_AETH) {
    EQ(a->aeth.syndrome, b->aeth.syndrome, "aeth.syndrome");
    EQ(a->aeth.msn, b->aeth.msn, "aeth.msn");
  }
  if (hdrs & ORNIC_HDR_ATOMICACKETH)
    EQ(a->atomicacketh.orig, b->atomicacketh.orig, "atomicacketh.orig");
  if (hdrs & ORNIC_HDR_OACKETH) {
    EQ(a->oacketh.flags, b->oacketh.flags, "oacketh.flags");
    EQ(a->oacketh.resv, b->oacketh.resv, "oacketh.resv");
    EQ(a->oacketh.count, b->oacketh.count, "oacketh.count");
  }
  if (hdrs & ORNIC_HDR_NAKETH) {
    EQ(a->naketh.reason, b->naketh.reason, "naketh.reason");
    EQ(a->naketh.trigger_psn, b->naketh.trigger_psn, "naketh.trigger_psn");
    EQ(a->naketh.nblocks, b->naketh.nblocks, "naketh.nblocks");
    EQ(a->naketh.base_psn, b->naketh.base_psn, "naketh.base_psn");
    EQ(a->naketh.resv, b->naketh.resv, "naketh.resv");
    EQ(a->naketh.limit_psn, b->naketh.limit_psn, "naketh.limit_psn");
    ck_assert_ptr_nonnull(b->naketh.bitmap);
    ck_assert_msg(memcmp(a->naketh.bitmap, b->naketh.bitmap, 2u * a->naketh.nblocks) == 0,
                  "%s: naketh.bitmap differs", what);
  }
  if (hdrs & ORNIC_HDR_IMMDT) EQ(a->immdt.data, b->immdt.data, "immdt.data");
  if (hdrs & ORNIC_HDR_IETH) EQ(a->ieth.rkey, b->ieth.rkey, "ieth.rkey");
  if (hdrs & ORNIC_HDR_CNP)
    ck_assert_msg(memcmp(a->cnp.resv, b->cnp.resv, 16) == 0, "%s: cnp.resv differs", what);
}

void tu_assert_frame_matches(const ornic_frame *want, const ornic_frame *got, const uint8_t *buf,
                             size_t len, const char *what) {
  const ornic_opcode_info *op = ornic_opcode_info_get(want->bth.opcode);
  int kind = want->link == ORNIC_LINK_GRH ? ORNIC_L3_GRH : want->ip.version;
  size_t l2 = want->link == ORNIC_LINK_ETHERNET ? 14u + (want->eth.has_vlan ? 4u : 0u) : 0u;
  size_t l3 = kind == ORNIC_L3_IPV4 ? 20u : 40u;
  size_t l4 = kind == ORNIC_L3_GRH ? 0u : 8u;
  size_t ext = tu_hdrs_size(op->hdrs, want->ext.naketh.nblocks);
  size_t pad = (4 - (ext + want->payload_len) % 4) % 4;
  /* DC bytes after the BTH (docs/PROTOCOL.md 2.8, from Wireshark's
   * packet-infiniband.c): 8 in the RD block, 16 more on RESYNC with SE clear. */
  size_t dc = (want->bth.opcode & 0xE0) == 0x40 ? 8u : 0u;
  if (want->bth.opcode == 0x55 && !want->bth.se) dc += 16;
  size_t roce = 12 + dc + ext + want->payload_len + pad + 4;

  /* layout and derived fields */
  EQ(len, l2 + l3 + l4 + roce, "frame length");
  EQ(want->link, got->link, "link");
  EQ(kind, got->l3, "l3");
  EQ(l2, got->l3_off, "l3_off");
  if (kind != ORNIC_L3_GRH) EQ(l2 + l3, got->l4_off, "l4_off");
  EQ(l2 + l3 + l4, got->bth_off, "bth_off");
  EQ(l2 + l3 + l4 + 12 + dc, got->ext_off, "ext_off");
  EQ(l2 + l3 + l4 + 12 + dc + ext, got->payload_off, "payload_off");
  EQ(len - 4, got->icrc_off, "icrc_off");
  EQ(len, got->roce_end, "roce_end");
  EQ(len, got->caplen, "caplen");
  EQ(op->hdrs, got->ext.present, "decoded");
  EQ(op->hdrs, got->ext.present, "ext.present");
  EQ(want->payload_len, got->payload_len, "payload_len");
  EQ(want->payload_len, got->payload_caplen, "payload_caplen");
  EQ(pad, got->pad_len, "pad_len");
  EQ(pad, got->bth.padcnt, "bth.padcnt");
  ck_assert_msg(got->icrc_present, "%s: icrc_present", what);
  ck_assert_msg(got->payload == buf + got->payload_off, "%s: payload is not a view at payload_off",
                what);
  if (want->payload_len)
    ck_assert_msg(memcmp(want->payload, got->payload, want->payload_len) == 0, "%s: payload bytes",
                  what);
  for (size_t i = 0; i < pad; i++) EQ(0, buf[got->payload_off + want->payload_len + i], "pad byte");
  EQ((uint32_t)buf[len - 4] | (uint32_t)buf[len - 3] << 8 | (uint32_t)buf[len - 2] << 16 |
         (uint32_t)buf[len - 1] << 24,
     got->icrc, "icrc (LE u32 of the wire bytes)");

  /* L2 */
  if (want->link == ORNIC_LINK_ETHERNET) {
    ck_assert_msg(memcmp(want->eth.dst, got->eth.dst, 6) == 0, "%s: eth.dst", what);
    ck_assert_msg(memcmp(want->eth.src, got->eth.src, 6) == 0, "%s: eth.src", what);
    EQ(want->eth.has_vlan, got->eth.has_vlan, "eth.has_vlan");
    if (want->eth.has_vlan) {
      EQ(want->eth.vlan_tpid ? want->eth.vlan_tpid : 0x8100, got->eth.vlan_tpid, "eth.vlan_tpid");
      EQ(want->eth.vlan_tci, got->eth.vlan_tci, "eth.vlan_tci");
    }
    EQ(kind == 4 ? 0x0800 : 0x86DD, got->eth.ethertype, "eth.ethertype");
  }
  /* L3 */
  EQ(kind == 4 ? 4 : 6, got->ip.version, "ip.version");
  EQ(want->ip.tos, got->ip.tos, "ip.tos");
  EQ(want->ip.ttl, got->ip.ttl, "ip.ttl");
  EQ(l3, got->ip.hdr_len, "ip.hdr_len");
  if (kind == 4) {
    EQ(want->ip.id, got->ip.id, "ip.id");
    EQ(want->ip.frag, got->ip.frag, "ip.frag");
    EQ(17, got->ip.next_proto, "ip.next_proto");
    EQ(len - l2, got->ip.total_len, "ip.total_len");
    ck_assert_msg(memcmp(want->ip.src, got->ip.src, 4) == 0, "%s: ip.src", what);
    ck_assert_msg(memcmp(want->ip.dst, got->ip.dst, 4) == 0, "%s: ip.dst", what);
    EQ(0, tu_inet_csum(buf + l2, 20, 0), "IPv4 header checksum verifies");
    EQ(buf[l2 + 10] << 8 | buf[l2 + 11], got->ip.checksum, "ip.checksum as on the wire");
  } else {
    EQ(want->ip.flow_label, got->ip.flow_label, "ip.flow_label");
    EQ(kind == 6 ? 17 : 0x1B, got->ip.next_proto, "ip.next_proto");
    EQ(len - l2, got->ip.total_len, "ip.total_len (40 + payload length)");
    ck_assert_msg(memcmp(want->ip.src, got->ip.src, 16) == 0, "%s: ip.src", what);
    ck_assert_msg(memcmp(want->ip.dst, got->ip.dst, 16) == 0, "%s: ip.dst", what);
  }
  /* L4 */
  if (kind != ORNIC_L3_GRH) {
    EQ(want->udp.sport, got->udp.sport, "udp.sport");
    EQ(want->udp.dport ? want->udp.dport : 4791, got->udp.dport, "udp.dport");
    EQ(l4 + roce, got->udp.len, "udp.len");
    if (kind == 4) {
      EQ(0, got->udp.checksum, "udp.checksum (0 on IPv4)");
    } else {
      /* RFC 8200 pseudo header: src, dst, upper-layer length, next header. */
      uint8_t ph[40];
      memcpy(ph, buf + l2 + 8, 32);
      uint32_t ulen = (uint32_t)(l4 + roce);
      ph[32] = (uint8_t)(ulen >> 24);
      ph[33] = (uint8_t)(ulen >> 16);
      ph[34] = (uint8_t)(ulen >> 8);
      ph[35] = (uint8_t)ulen;
      ph[36] = ph[37] = ph[38] = 0;
      ph[39] = 17;
      uint32_t s = 0;
      for (size_t i = 0; i < 40; i += 2) s += (uint32_t)ph[i] << 8 | ph[i + 1];
      ck_assert_msg(got->udp.checksum != 0, "%s: IPv6 UDP checksum must not be 0", what);
      EQ(0, tu_inet_csum(buf + l2 + 40, l4 + roce, s), "IPv6 UDP checksum verifies");
    }
  }
  /* transport */
  tu_assert_bth_eq(&want->bth, &got->bth, false, what);
  tu_assert_ext_eq(&want->ext, &got->ext, op->hdrs, what);
  if (op->hdrs & ORNIC_HDR_NAKETH)
    ck_assert_msg(got->ext.naketh.bitmap ==
                      buf + got->ext_off + tu_hdrs_size(op->hdrs & (ORNIC_HDR_NAKETH - 1), 0) + 12,
                  "%s: naketh.bitmap is not a view into the frame", what);
}

/* ---- guard pages ---- */
void tu_guard_init(tu_guard *g) {
  g->page = (size_t)sysconf(_SC_PAGESIZE);
  void *p = mmap(NULL, 2 * g->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ck_assert_msg(p != MAP_FAILED, "mmap");
  g->base = p;
  ck_assert_int_eq(mprotect(g->base + g->page, g->page, PROT_NONE), 0);
}

uint8_t *tu_guard_tail(tu_guard *g, const uint8_t *src, size_t n) {
  ck_assert_uint_le(n, g->page);
  uint8_t *p = g->base + g->page - n;
  if (n) memcpy(p, src, n);
  return p;
}

void tu_guard_free(tu_guard *g) { munmap(g->base, 2 * g->page); }

/* ---- misc ---- */
void tu_hex(char *out, size_t cap, const uint8_t *p, size_t n) {
  size_t o = 0;
  for (size_t i = 0; i < n && o + 3 < cap; i++)
    o += (size_t)snprintf(out + o, cap - o, "%02x", p[i]);
  if (cap) out[o < cap ? o : cap - 1] = 0;
}

TCase *tu_tcase(const char *name) {
  TCase *tc = tcase_create(name);
  tcase_set_timeout(tc, 300);
  return tc;
}

int tu_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
