/* SPDX-License-Identifier: MIT */
/* Seeds of fuzz_frame and fuzz_roundtrip: one frame per opcode, then the
 * edges (PSN wrap, every PadCnt, NAK bitmap sizes, tags, IPv6, RoCEv1, IPv4
 * options, non-canonical encodings), malformed frames and truncations.
 * Byte 0 of every file picks the harness's start (0 Ethernet, 1 raw IP,
 * 2 GRH, 3 BTH for fuzz_frame only). Hand-edited frames say what was edited. */
#include <stdio.h>
#include <string.h>

#include "seeds.h"

#define ETH 14
#define CAP 9000

static const uint8_t nak_bits[2 * ORNIC_NAKETH_MAX_BLOCKS] = {0x00, 0x00, 0xff, 0xfe, 0x55, 0xaa,
                                                              0x0f, 0xf0, 0x80, 0x01, 0xff, 0xff};
uint8_t seed_ones[2 * ORNIC_NAKETH_MAX_BLOCKS];
uint8_t seed_payload[4096];

void seed_fill(ornic_frame *f, uint8_t opcode, size_t plen) {
  f->bth.opcode = opcode;
  f->bth.destqp = 0x000200;
  f->bth.psn = 0x123456;
  f->bth.ackreq = opcode >= 0xC0 && opcode <= 0xC5 ? 0 : 1;
  ornic_ext *e = &f->ext;
  e->rdeth.een = 0x000abc;
  e->deth = (ornic_deth){0x80010000u, 0, 0x000011};
  e->xrceth.xrcsrq = 0x000321;
  e->feth.value = 0x00000001;
  e->reth = (ornic_reth){0x00007f0000001000ull, 0x1234abcdu, 4096};
  e->offeth.offset = 1024;
  e->atomiceth = (ornic_atomiceth){0x00007f0000002000ull, 0x1234abcdu, 1, 0};
  e->aeth = (ornic_aeth){0x1f, 7};
  e->atomicacketh.orig = 0x0102030405060708ull;
  e->oacketh = (ornic_oacketh){ORNIC_OACK_ADDR_CACHED, 0, 16};
  /* Limit = trigger - 16: a responder with OTD 16. */
  e->naketh =
      (ornic_naketh){ORNIC_NAKETH_OTD_EXCEEDED, 0x123470, 3, 0x123456, 0, 0x123460, nak_bits};
  e->immdt.data = 0xdeadbeef;
  e->ieth.rkey = 0x00c0ffee;
  const ornic_opcode_info *op = ornic_opcode_info_get(opcode);
  f->payload = seed_payload;
  f->payload_len = (op->flags & ORNIC_OPF_PAYLOAD) ? plen : 0;
}

size_t seed_frame(uint8_t *out, size_t cap, ornic_link link, int ipv, uint8_t opcode,
                  size_t payload_len) {
  ornic_frame f;
  ornic_frame_init(&f, link, ipv);
  seed_fill(&f, opcode, payload_len);
  ornic_ssize n = ornic_frame_encode(out, cap, &f);
  return n > 0 ? (size_t)n : 0;
}

/* Both harnesses share the seeds of starts 0-2. */
static void both(uint8_t mode, const uint8_t *fr, size_t n, const char *name) {
  if (!n) return;
  seed_write("frame", &mode, 1, fr, n, "%s", name);
  seed_write("roundtrip", &mode, 1, fr, n, "%s", name);
}

/* An Ethernet + IPv4 (no tag) frame whose length changed: fix IPv4 total and UDP lengths. */
static void fix_ipv4(uint8_t *fr, size_t len) {
  size_t ihl = (size_t)(fr[ETH] & 0x0f) * 4, ip = len - ETH, udp = ip - ihl;
  fr[ETH + 2] = (uint8_t)(ip >> 8);
  fr[ETH + 3] = (uint8_t)ip;
  fr[ETH + ihl + 4] = (uint8_t)(udp >> 8);
  fr[ETH + ihl + 5] = (uint8_t)udp;
}

static void per_opcode(void) {
  uint8_t fr[CAP];
  char name[96];
  for (unsigned op = 0; op < 256; op++) {
    const ornic_opcode_info *info = ornic_opcode_info_get((uint8_t)op);
    if (!info->name) continue;
    snprintf(name, sizeof name, "op-%02x-%s", op, info->short_name);
    both(0, fr, seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, (uint8_t)op, 5), name);
  }
}

static void naks(void) {
  static const unsigned sizes[] = {1,  2,  3,  4,  5,  7,   8,   9,   15,  16,  17,  31,
                                   32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 254, 255};
  uint8_t fr[CAP];
  char name[64];
  ornic_frame f;
  for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
    seed_fill(&f, ORNIC_OP_NAK, 0);
    f.ext.naketh.nblocks = (uint8_t)sizes[i];
    f.ext.naketh.bitmap = i % 2 ? seed_ones : seed_payload;
    f.ext.naketh.trigger_psn = ornic_psn_add(0x123456, (int32_t)(16 * sizes[i] - 1));
    snprintf(name, sizeof name, "nak-%03u-blocks", sizes[i]);
    ornic_ssize n = ornic_frame_encode(fr, sizeof fr, &f);
    both(0, fr, n > 0 ? (size_t)n : 0, name);
  }
  /* 6.10: every bit set, across the PSN wrap. */
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, ORNIC_OP_NAK, 0);
  f.bth.psn = f.ext.naketh.base_psn = 0xfffff8;
  f.ext.naketh.nblocks = 4;
  f.ext.naketh.bitmap = seed_ones;
  f.ext.naketh.trigger_psn = 0x000030;
  f.ext.naketh.limit_psn = 0x000020;
  ornic_ssize n = ornic_frame_encode(fr, sizeof fr, &f);
  both(0, fr, n > 0 ? (size_t)n : 0, "nak-all-ones-psn-wrap");
  /* Limits a responder does not send (lint L13): at Base, past the trigger and the bitmap. */
  static const struct {
    uint32_t limit;
    const char *name;
  } limits[] = {{0x123456, "nak-limit-at-base"},
                {0x123500, "nak-limit-past-bitmap"},
                {0x923456, "nak-limit-half-way-round"}};
  for (unsigned i = 0; i < sizeof limits / sizeof limits[0]; i++) {
    ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
    seed_fill(&f, ORNIC_OP_NAK, 0);
    f.ext.naketh.limit_psn = limits[i].limit;
    n = ornic_frame_encode(fr, sizeof fr, &f);
    both(0, fr, n > 0 ? (size_t)n : 0, limits[i].name);
  }
}

static void encoded_edges(void) {
  uint8_t fr[CAP];
  ornic_frame f;
  ornic_ssize n;
#define EMIT(mode, name)                         \
  do {                                           \
    n = ornic_frame_encode(fr, sizeof fr, &f);   \
    both(mode, fr, n > 0 ? (size_t)n : 0, name); \
  } while (0)
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, ORNIC_OP_OOO_WRITE_SPOT, 1024);
  f.bth.psn = 0xffffff;
  EMIT(0, "edge-psn-wrap-ffffff");
  for (unsigned pad = 0; pad < 4; pad++) {
    char name[48];
    ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
    seed_fill(&f, ORNIC_OP_RC_SEND_ONLY, (4 - pad) % 4 + 4);
    snprintf(name, sizeof name, "edge-padcnt-%u-send-only", pad);
    EMIT(0, name);
  }
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, ORNIC_OP_OOO_WRITE_LAST, 1);
  EMIT(0, "edge-padcnt-3-ooo-last-1-byte");
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 6);
  seed_fill(&f, ORNIC_OP_OOO_WRITE_FSPOT, 256);
  f.eth.has_vlan = true;
  f.eth.vlan_tci = 0x2064;
  f.ip.flow_label = 0xabcde;
  f.ip.tos = 0x6a;
  EMIT(0, "edge-ipv6-vlan-ooo-fspot");
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM, 13);
  f.eth.has_vlan = true;
  f.eth.vlan_tpid = ORNIC_ETHERTYPE_QINQ;
  f.eth.vlan_tci = 0xffff;
  EMIT(0, "edge-qinq-ipv4-last-addr-imm");
  ornic_frame_init(&f, ORNIC_LINK_RAW_IP, 4);
  seed_fill(&f, ORNIC_OP_OOO_WRITE_SPOT, 64);
  EMIT(1, "edge-raw-ipv4-ooo-spot");
  ornic_frame_init(&f, ORNIC_LINK_RAW_IP, 6);
  seed_fill(&f, ORNIC_OP_ACK, 0);
  EMIT(1, "edge-raw-ipv6-ornic-ack");
  ornic_frame_init(&f, ORNIC_LINK_GRH, 6);
  seed_fill(&f, ORNIC_OP_RC_RDMA_WRITE_FIRST, 256);
  EMIT(2, "edge-grh-rc-write-first");
  ornic_frame_init(&f, ORNIC_LINK_GRH, 6);
  seed_fill(&f, ORNIC_OP_NAK, 0);
  EMIT(2, "edge-grh-ornic-nak");
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, ORNIC_OP_RC_RDMA_WRITE_ONLY, 4096);
  EMIT(0, "edge-rc-write-only-4096");
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, ORNIC_OP_OOO_READ_REQ, 0);
  f.bth.se = f.bth.m = 1;
  f.bth.tver = 0xf;
  f.bth.fecn = f.bth.becn = 1;
  f.bth.resv6 = 0x3f;
  f.bth.resv7 = 0x7f;
  f.bth.pkey = 0x8001;
  EMIT(0, "edge-bth-every-flag-and-reserved-bit");
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, ORNIC_OP_ACK, 0);
  f.ext.oacketh = (ornic_oacketh){0xff, 0xff, 0xffff};
  EMIT(0, "edge-oacketh-reserved-flags");
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, ORNIC_OP_ACK, 0);
  f.udp.dport = 0;    /* the encoder's default port */
  f.ip.frag = 0x8000; /* the reserved IPv4 flag bit: not a fragment */
  EMIT(0, "edge-ipv4-reserved-flag");
#undef EMIT
}

/* Frames edited after encoding: non-canonical but valid, then malformed. */
static void edited(void) {
  uint8_t fr[CAP], g[CAP];
  size_t n;
  /* Ethernet padding after a short datagram (a 60-byte minimum frame). */
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_RC_ACK, 0);
  memset(fr + n, 0, 8);
  both(0, fr, n + 8, "noncanon-ethernet-padding-after-datagram");
  /* Non-zero pad bytes (D8: the encoder writes zeros). */
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_OOO_WRITE_LAST, 1);
  memset(fr + n - 7, 0xaa, 3);
  both(0, fr, n, "noncanon-nonzero-pad-bytes");
  /* PadCnt 0 on a 5-byte IBA payload (D7: SHOULD accept): the 3 pad bytes removed. */
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_RC_SEND_ONLY, 5);
  memmove(fr + n - 7, fr + n - 4, 4);
  n -= 3;
  fr[ETH + 20 + 8 + 1] &= 0xcf;
  fix_ipv4(fr, n);
  both(0, fr, n, "noncanon-padcnt-0-unaligned-iba-payload");
  /* IPv4 options: IHL 6 with four NOPs after the header. */
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_OOO_WRITE_SPOT, 16);
  memcpy(g, fr, ETH + 20);
  memset(g + ETH + 20, 1, 4);
  memcpy(g + ETH + 24, fr + ETH + 20, n - ETH - 20);
  g[ETH] = 0x46;
  fix_ipv4(g, n + 4);
  both(0, g, n + 4, "noncanon-ipv4-options-4-nops");
  /* Bad checksums: not the decoder's business (D10, D11). */
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_OOO_WRITE_FSPOT, 32);
  fr[n - 1] ^= 0xff;
  both(0, fr, n, "noncanon-bad-icrc");
  fr[n - 1] ^= 0xff;
  fr[ETH + 10] ^= 0xff;
  fr[ETH + 27] = 0x01;
  both(0, fr, n, "noncanon-bad-ip-and-udp-checksums");
  /* RoCEv1 in Ethernet: EtherType 0x8915 in front of a GRH frame. */
  n = seed_frame(g, sizeof g, ORNIC_LINK_GRH, 6, ORNIC_OP_OOO_WRITE_LAST_IMM, 100);
  memcpy(fr, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x89\x15", ETH);
  memcpy(fr + ETH, g, n);
  both(0, fr, n + ETH, "edge-ethernet-rocev1-grh");
  g[0] = 0x40 | (g[0] & 0x0f);
  both(2, g, n, "noncanon-grh-ipver-4");

  /* Malformed and not-RoCE. */
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_OOO_WRITE_SPOT, 64);
  fr[ETH + 25] ^= 0x04;
  both(0, fr, n, "bad-udp-length-mismatch");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_NAK, 0);
  fr[ETH + 28 + 12 + 4 + 4] = 0;
  both(0, fr, n, "bad-nak-nblocks-0");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_RC_ACK, 0);
  fr[ETH + 28 + 1] |= 0x30;
  both(0, fr, n, "bad-padcnt-3-no-body");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_ACK, 0);
  memmove(fr + n, fr + n - 4, 4);
  memset(fr + n - 4, 0x5a, 4);
  fix_ipv4(fr, n + 4);
  both(0, fr, n + 4, "bad-payload-on-ornic-ack");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_OOO_WRITE_SPOT, 8);
  memmove(fr + n - 5, fr + n - 4, 4);
  fix_ipv4(fr, n - 1);
  both(0, fr, n - 1, "bad-ornic-not-4-byte-aligned");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_ACK, 0);
  fr[ETH + 28] = 0xcb;
  both(0, fr, n, "bad-unknown-opcode-cb");
  fr[ETH + 28] = 0xff;
  both(0, fr, n, "bad-unknown-opcode-ff-vendor");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_ACK, 0);
  fr[ETH + 22] = 0x12;
  fr[ETH + 23] = 0xb8;
  both(0, fr, n, "notroce-udp-port-4792");
  fr[ETH + 22] = 0x12;
  fr[ETH + 23] = 0xb7;
  fr[ETH + 9] = 6;
  both(0, fr, n, "notroce-ip-protocol-tcp");
  fr[ETH + 9] = 17;
  fr[ETH + 6] = 0x20;
  both(0, fr, n, "unsupported-ipv4-fragment-mf");
  fr[ETH + 6] = 0x40;
  fr[12] = 0x08;
  fr[13] = 0x06;
  both(0, fr, n, "notroce-ethertype-arp");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 6, ORNIC_OP_ACK, 0);
  fr[ETH] = 0x70;
  both(0, fr, n, "bad-ipv6-version-7");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_ACK, 0);
  fr[ETH] = 0x44;
  both(0, fr, n, "bad-ipv4-ihl-4");
}

static void truncations(void) {
  uint8_t fr[CAP];
  char name[64];
  size_t n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_NAK, 0);
  /* Inside Ethernet, IPv4, UDP, BTH, AETH, NAKETH's fixed part (58-69: 66 in the Limit PSN)
   * and bitmap (70-75), the pad, the iCRC. */
  static const size_t cuts[] = {0, 10, 14, 20, 33, 34, 40, 42, 50, 53, 54, 58, 62, 66, 70, 74, 77};
  for (unsigned i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    snprintf(name, sizeof name, "trunc-nak-at-%02zu", cuts[i]);
    both(0, fr, cuts[i], name);
  }
  both(0, fr, n - 4, "trunc-nak-before-icrc");
  both(0, fr, n - 1, "trunc-nak-icrc-3-of-4");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ORNIC_OP_OOO_WRITE_FSPOT, 1024);
  both(0, fr, 58, "trunc-fspot-in-reth");
  both(0, fr, 78, "trunc-fspot-in-offeth");
  both(0, fr, 200, "trunc-fspot-snaplen-200");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 6, ORNIC_OP_OOO_WRITE_FSPOT, 64);
  both(0, fr, 40, "trunc-ipv6-header");
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_GRH, 6, ORNIC_OP_ACK, 0);
  both(2, fr, 30, "trunc-grh");
  (void)n;
}

/* fuzz_frame's fourth start: a UDP payload from its BTH (ornic_roce_decode). */
static void roce_starts(void) {
  uint8_t fr[CAP];
  static const uint8_t mode = 3;
  static const uint8_t ops[] = {0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7,
                                0xC8, 0xC9, 0xCA, 0x04, 0x0A, 0x11, 0x64, 0x81};
  for (unsigned i = 0; i < sizeof ops; i++) {
    size_t n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ops[i], 3);
    seed_write("frame", &mode, 1, fr + ETH + 28, n - ETH - 28, "bth-op-%02x-%s", ops[i],
               ornic_opcode_info_get(ops[i])->short_name);
  }
  seed_write("frame", &mode, 1, fr, 10, "bth-short-10");
}

/* fuzz_roundtrip's encoder direction (start 3): the encoder's input values
 * as bytes, in the order fuzz_roundtrip.c reads them; the opcode is byte 60
 * of the values when the tag selector is not 3. */
static void encoder_values(void) {
  static const uint8_t ops[] = {0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9,
                                0xCA, 0x04, 0x0A, 0x11, 0x13, 0x1C, 0x44, 0x64, 0x81, 0xA4};
  static const struct {
    uint8_t k, w;
    const char *what;
  } kinds[] = {{0x00, 0, "eth-ipv4"},    {0x04, 0, "eth-ipv6"}, {0x30, 0, "eth-qinq-ipv4"},
               {0x80, 0, "eth-rocev1"},  {0x01, 0, "raw-ipv6"}, {0x02, 0, "grh"},
               {0x0c, 0xff, "wild-ipv5"}};
  static const uint8_t mode = 3;
  uint8_t v[400];
  for (unsigned i = 0; i < sizeof ops; i++)
    for (unsigned j = 0; j < sizeof kinds / sizeof kinds[0]; j++) {
      if (j > 0 && i % 4 != j % 4) continue; /* a spread, not every pair */
      for (unsigned b = 0; b < sizeof v; b++) v[b] = (uint8_t)(b * 37 + 11);
      v[0] = kinds[j].k, v[1] = kinds[j].w, v[60] = ops[i];
      seed_write("roundtrip", &mode, 1, v, sizeof v, "encode-values-op-%02x-%s", ops[i],
                 kinds[j].what);
    }
}

/* AETH syndromes of every type and NAK reasons, known and reserved. */
static void syndromes(void) {
  static const uint8_t syn[] = {0x00, 0x1f, 0x20, 0x3f, 0x40, 0x60, 0x61,
                                0x62, 0x63, 0x64, 0x65, 0x7f, 0x80, 0xe0};
  uint8_t fr[CAP];
  ornic_frame f;
  char name[48];
  for (unsigned i = 0; i < sizeof syn; i++) {
    ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
    seed_fill(&f, ORNIC_OP_RC_ACK, 0);
    f.ext.aeth.syndrome = syn[i];
    ornic_ssize n = ornic_frame_encode(fr, sizeof fr, &f);
    snprintf(name, sizeof name, "aeth-syndrome-%02x", syn[i]);
    both(0, fr, n > 0 ? (size_t)n : 0, name);
  }
  for (unsigned r = 0; r < 5; r++) {
    ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
    seed_fill(&f, ORNIC_OP_NAK, 0);
    f.ext.naketh.reason = (uint8_t)(r == 4 ? 0xff : r);
    ornic_ssize n = ornic_frame_encode(fr, sizeof fr, &f);
    snprintf(name, sizeof name, "nak-reason-%02x", f.ext.naketh.reason);
    both(0, fr, n > 0 ? (size_t)n : 0, name);
  }
  static const uint8_t bad_link = 4;
  seed_write("frame", &bad_link, 1, fr, 16, "link-undefined-value-4");
}

void seeds_frames(void) {
  for (size_t i = 0; i < sizeof seed_payload; i++) seed_payload[i] = (uint8_t)(i * 7 + 1);
  memset(seed_ones, 0xff, sizeof seed_ones);
  per_opcode();
  naks();
  encoded_edges();
  edited();
  truncations();
  roce_starts();
  encoder_values();
  syndromes();
}
