/* SPDX-License-Identifier: MIT */
/* fuzz_roundtrip: whatever decodes must re-encode to the same bytes.
 *
 * Input: byte 0 picks the start (taken mod 4: 0 Ethernet, 1 raw IP, 2 RoCEv1
 * GRH; 3: see the end of this comment); the rest is the frame. A frame that decodes whole (ORNIC_OK) is
 * encoded again from the decoded struct, and:
 *
 *  1. the encoder accepts it, and the capacity it announced was enough;
 *  2. the encoding decodes whole, to the same values (every field the
 *     encoder takes as input, the extension headers and the payload bytes);
 *  3. encoding is idempotent: encode(decode(y)) == y byte for byte;
 *  4. when the input is laid out canonically, y equals the input byte for
 *     byte, except in the fields the encoder derives and the decoder, by
 *     design, does not check. "Canonical" and the exceptions are exactly the
 *     non-canonical encodings the decoder legitimately accepts:
 *       - IPv4 options (IHL > 5): the decoder skips them; the encoder writes
 *         none (PROTOCOL.md D8). Such frames get checks 1-3 only.
 *       - PadCnt other than the one that pads to a 4-byte boundary, on an
 *         IBA opcode (D7: SHOULD accept). The encoder derives PadCnt, so the
 *         layout shifts; checks 1-3 only.
 *       - the bytes after the IP datagram (Ethernet padding of short frames,
 *         an FCS): not part of the datagram, never encoded.
 *       - the IPv4 header checksum, the UDP checksum (D11) and the iCRC (D10)
 *         are not verified by the decoder and are recomputed by the encoder;
 *         the pad bytes are not part of the decoded value and are written as
 *         zeros (D8); a GRH's IPVer nibble is not checked by the decoder and is
 *         written as 6; a DC frame's DC bytes after the BTH (PROTOCOL.md 2.8)
 *         are not decoded and are written as zeros. These bytes are taken
 *         from y before comparing.
 *     Anything else that differs is a bug, and the harness aborts.
 *
 * Byte 0 = 3 runs the other direction: the rest of the input is read as the
 * encoder's input values (any values, out of range ones included), and
 * whatever the encoder accepts must decode whole to those values (the
 * derived fields aside), while what it refuses is refused with
 * ORNIC_ERR_INVALID_ARG or ORNIC_ERR_UNKNOWN_OPCODE, never a crash. */
#include <stdbool.h>
#include <string.h>

#include <ornic/ornic.h>

#include "fuzz_driver.h"

#define FRAME_MAX (18 + 65535 + 64)

static uint8_t enc1[FRAME_MAX], enc2[FRAME_MAX], canon[FRAME_MAX];

static size_t ext_bytes(const ornic_frame *f, uint8_t *out, size_t cap) {
  uint16_t hdrs = ornic_opcode_info_get(f->bth.opcode)->hdrs;
  ornic_ssize n = ornic_ext_encode(out, cap, &f->ext, hdrs);
  fuzz_check(n >= 0, "extension headers of opcode %#x do not encode: %td", f->bth.opcode, n);
  return (size_t)n;
}

/* The values a decode gives and the encoder takes (2.). */
static void check_same_values(const ornic_frame *a, const ornic_frame *b, bool canonical) {
  fuzz_check(a->link == b->link && a->l3 == b->l3, "link/L3");
  if (a->link == ORNIC_LINK_ETHERNET)
    fuzz_check(!memcmp(a->eth.dst, b->eth.dst, 6) && !memcmp(a->eth.src, b->eth.src, 6) &&
                   a->eth.has_vlan == b->eth.has_vlan && a->eth.ethertype == b->eth.ethertype &&
                   (!a->eth.has_vlan ||
                    (a->eth.vlan_tpid == b->eth.vlan_tpid && a->eth.vlan_tci == b->eth.vlan_tci)),
               "Ethernet header");
  const ornic_ip *x = &a->ip, *y = &b->ip;
  fuzz_check(x->tos == y->tos && x->ttl == y->ttl && x->next_proto == y->next_proto &&
                 !memcmp(x->src, y->src, 16) && !memcmp(x->dst, y->dst, 16),
             "IP header");
  fuzz_check(a->l3 == ORNIC_L3_GRH || x->version == y->version, "IP version");
  if (a->l3 == ORNIC_L3_IPV4)
    fuzz_check(x->id == y->id && x->frag == y->frag, "IPv4 id/frag");
  else
    fuzz_check(x->flow_label == y->flow_label, "flow label");
  if (a->l3 != ORNIC_L3_GRH)
    fuzz_check(a->udp.sport == b->udp.sport && a->udp.dport == b->udp.dport, "UDP ports");
  ornic_bth p = a->bth, q = b->bth;
  if (!canonical) p.padcnt = q.padcnt;
  fuzz_check(p.opcode == q.opcode && p.se == q.se && p.m == q.m && p.padcnt == q.padcnt &&
                 p.tver == q.tver && p.pkey == q.pkey && p.fecn == q.fecn && p.becn == q.becn &&
                 p.resv6 == q.resv6 && p.destqp == q.destqp && p.ackreq == q.ackreq &&
                 p.resv7 == q.resv7 && p.psn == q.psn,
             "BTH");
  /* Header codecs are exact (headers.h), so equal bytes mean equal values. */
  uint8_t ea[1024], eb[1024];
  size_t na = ext_bytes(a, ea, sizeof ea), nb = ext_bytes(b, eb, sizeof eb);
  fuzz_check(a->ext.present == b->ext.present && na == nb && !memcmp(ea, eb, na),
             "extension headers");
  fuzz_check(a->payload_len == b->payload_len &&
                 (!a->payload_len || !memcmp(a->payload, b->payload, a->payload_len)),
             "payload");
}

static void take(uint8_t *dst, const uint8_t *src, size_t off, size_t n) {
  memcpy(dst + off, src + off, n);
}

/* 4.: the input with the derived bytes of y, cut at the end of the datagram. */
static void check_bytes(const ornic_frame *f, const uint8_t *in, const uint8_t *y, size_t ylen) {
  fuzz_check(ylen == f->roce_end, "encoded %zu bytes, the datagram ends at %zu", ylen, f->roce_end);
  memcpy(canon, in, ylen);
  if (f->l3 == ORNIC_L3_IPV4) take(canon, y, f->l3_off + 10, 2);
  if (f->l3 != ORNIC_L3_GRH)
    take(canon, y, f->l4_off + 6, 2);
  else
    canon[f->l3_off] = (uint8_t)((canon[f->l3_off] & 0x0f) | (y[f->l3_off] & 0xf0));
  take(canon, y, f->bth_off + ORNIC_BTH_LEN, f->ext_off - f->bth_off - ORNIC_BTH_LEN); /* DC */
  take(canon, y, f->payload_off + f->payload_len, f->pad_len);
  take(canon, y, f->icrc_off, ORNIC_ICRC_LEN);
  for (size_t i = 0; i < ylen; i++)
    fuzz_check(canon[i] == y[i], "byte %zu: input %#04x, re-encoded %#04x", i, canon[i], y[i]);
}

static bool canonical_layout(const ornic_frame *f) {
  size_t ext = ornic_ext_size(&f->ext, ornic_opcode_info_get(f->bth.opcode)->hdrs);
  unsigned pad = (unsigned)((4 - (ext + f->payload_len) % 4) % 4);
  return !(f->l3 == ORNIC_L3_IPV4 && f->ip.hdr_len != 20) && f->bth.padcnt == pad;
}

/* Reads the encoder's input from bytes; zeros once they run out. */
typedef struct {
  const uint8_t *p;
  size_t left;
} cursor;

static uint32_t take_u(cursor *c, unsigned nbytes) {
  uint32_t v = 0;
  for (unsigned i = 0; i < nbytes; i++) {
    v = v << 8 | (c->left ? *c->p : 0);
    if (c->left) c->p++, c->left--;
  }
  return v;
}

static void take_bytes(cursor *c, uint8_t *out, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = (uint8_t)take_u(c, 1);
}

/* A field of `bits` bits, usually in range; a wild byte lets it overflow. */
static uint32_t field(cursor *c, unsigned nbytes, unsigned bits, bool wild) {
  uint32_t v = take_u(c, nbytes);
  return wild || bits >= 32 ? v : v & ((1u << bits) - 1);
}

static void values_from_bytes(ornic_frame *f, cursor *c) {
  static const int versions[4] = {4, 6, 4, 5};
  uint8_t k = (uint8_t)take_u(c, 1), w = (uint8_t)take_u(c, 1);
  bool wild = w == 0xff;
  ornic_frame_init(f, (ornic_link)(k % 3), versions[k >> 2 & 3]);
  f->ip.version = (uint8_t)versions[k >> 2 & 3];
  f->l3 = k & 0x80 ? ORNIC_L3_GRH : ORNIC_L3_NONE;
  f->eth.has_vlan = k >> 4 & 1;
  static const uint16_t tpids[3] = {0, ORNIC_ETHERTYPE_VLAN, ORNIC_ETHERTYPE_QINQ};
  f->eth.vlan_tpid = (k >> 5 & 3) < 3 ? tpids[k >> 5 & 3] : (uint16_t)take_u(c, 2);
  take_bytes(c, f->eth.dst, 6);
  take_bytes(c, f->eth.src, 6);
  f->eth.vlan_tci = (uint16_t)take_u(c, 2);
  f->ip.tos = (uint8_t)take_u(c, 1);
  f->ip.ttl = (uint8_t)take_u(c, 1);
  f->ip.flow_label = field(c, 3, 20, wild);
  f->ip.id = (uint16_t)take_u(c, 2);
  f->ip.frag = (uint16_t)(wild ? take_u(c, 2) : take_u(c, 2) & 0xc000);
  take_bytes(c, f->ip.src, 16);
  take_bytes(c, f->ip.dst, 16);
  f->udp.sport = (uint16_t)take_u(c, 2);
  f->udp.dport = (uint16_t)(take_u(c, 1) & 1 ? 0 : ORNIC_ROCEV2_UDP_PORT);
  ornic_bth *b = &f->bth;
  b->opcode = (uint8_t)take_u(c, 1);
  b->se = (uint8_t)field(c, 1, 1, wild), b->m = (uint8_t)field(c, 1, 1, wild);
  b->tver = (uint8_t)field(c, 1, 4, wild), b->pkey = (uint16_t)take_u(c, 2);
  b->fecn = (uint8_t)field(c, 1, 1, wild), b->becn = (uint8_t)field(c, 1, 1, wild);
  b->resv6 = (uint8_t)field(c, 1, 6, wild), b->destqp = field(c, 3, 24, wild);
  b->ackreq = (uint8_t)field(c, 1, 1, wild), b->resv7 = (uint8_t)field(c, 1, 7, wild);
  b->psn = field(c, 3, 24, wild);
  ornic_ext *e = &f->ext;
  e->rdeth = (ornic_rdeth){(uint8_t)take_u(c, 1), field(c, 3, 24, wild)};
  e->deth.qkey = take_u(c, 4), e->deth.resv = (uint8_t)take_u(c, 1);
  e->deth.srcqp = field(c, 3, 24, wild);
  e->xrceth = (ornic_xrceth){(uint8_t)take_u(c, 1), field(c, 3, 24, wild)};
  e->feth.value = take_u(c, 4);
  e->reth.va = (uint64_t)take_u(c, 4) << 32 | take_u(c, 4);
  e->reth.rkey = take_u(c, 4), e->reth.dmalen = take_u(c, 4);
  e->offeth.offset = take_u(c, 4);
  e->atomiceth.va = (uint64_t)take_u(c, 4) << 32 | take_u(c, 4);
  e->atomiceth.rkey = take_u(c, 4);
  e->atomiceth.swap_add = (uint64_t)take_u(c, 4) << 32 | take_u(c, 4);
  e->atomiceth.compare = (uint64_t)take_u(c, 4) << 32 | take_u(c, 4);
  e->aeth = (ornic_aeth){(uint8_t)take_u(c, 1), field(c, 3, 24, wild)};
  e->atomicacketh.orig = (uint64_t)take_u(c, 4) << 32 | take_u(c, 4);
  e->oacketh =
      (ornic_oacketh){(uint8_t)take_u(c, 1), (uint8_t)take_u(c, 1), (uint16_t)take_u(c, 2)};
  e->naketh.reason = (uint8_t)take_u(c, 1);
  e->naketh.trigger_psn = field(c, 3, 24, wild);
  e->naketh.nblocks = (uint8_t)take_u(c, 1);
  e->naketh.base_psn = field(c, 3, 24, wild);
  e->naketh.resv = (uint8_t)take_u(c, 1);
  e->naketh.limit_psn = field(c, 3, 24, wild);
  e->immdt.data = take_u(c, 4), e->ieth.rkey = take_u(c, 4);
  take_bytes(c, e->cnp.resv, 16);
  /* The bitmap and the payload are views into the rest of the input. */
  size_t nak = 2u * e->naketh.nblocks;
  e->naketh.bitmap = c->left >= nak ? c->p : NULL;
  if (c->left >= nak) c->p += nak, c->left -= nak;
  f->payload = c->left ? c->p : NULL;
  f->payload_len = c->left;
}

/* What decode must give back for the values f: the derived fields filled in. */
static void expected_values(ornic_frame *x, const ornic_frame *f) {
  *x = *f;
  const ornic_opcode_info *op = ornic_opcode_info_get(f->bth.opcode);
  bool grh = f->link == ORNIC_LINK_GRH || (f->link == ORNIC_LINK_ETHERNET && f->l3 == ORNIC_L3_GRH);
  x->l3 = grh ? ORNIC_L3_GRH : f->ip.version == 4 ? ORNIC_L3_IPV4 : ORNIC_L3_IPV6;
  x->eth.ethertype = x->l3 == ORNIC_L3_GRH    ? ORNIC_ETHERTYPE_ROCEV1
                     : x->l3 == ORNIC_L3_IPV4 ? ORNIC_ETHERTYPE_IPV4
                                              : ORNIC_ETHERTYPE_IPV6;
  if (!x->eth.vlan_tpid) x->eth.vlan_tpid = ORNIC_ETHERTYPE_VLAN;
  x->ip.next_proto = grh ? ORNIC_GRH_NXTHDR_BTH : ORNIC_IPPROTO_UDP;
  if (x->l3 == ORNIC_L3_IPV4) {
    memset(x->ip.src + 4, 0, 12);
    memset(x->ip.dst + 4, 0, 12);
  }
  if (!x->udp.dport) x->udp.dport = ORNIC_ROCEV2_UDP_PORT;
  x->ext.present = op->hdrs;
  x->bth.padcnt = (uint8_t)((4 - (ornic_ext_size(&f->ext, op->hdrs) + f->payload_len) % 4) % 4);
}

static void encode_values(const uint8_t *in, size_t len) {
  cursor c = {in, len};
  ornic_frame f, want, got;
  values_from_bytes(&f, &c);
  size_t cap = ornic_frame_encode_capacity(&f);
  ornic_ssize n = ornic_frame_encode(enc1, sizeof enc1, &f);
  if (n < 0) {
    fuzz_check(n == ORNIC_ERR_INVALID_ARG || n == ORNIC_ERR_UNKNOWN_OPCODE, "encode: %s",
               ornic_errname((int)n));
    return;
  }
  fuzz_check(cap >= (size_t)n && n > 0, "capacity %zu, wrote %td", cap, n);
  fuzz_check(ornic_frame_encode(enc2, (size_t)n - 1, &f) == ORNIC_ERR_NOBUF, "one byte short");
  int rc = ornic_frame_decode(&got, enc1, (size_t)n, f.link, f.udp.dport);
  fuzz_check(rc == ORNIC_OK, "an encoded frame does not decode: %s", ornic_errname(rc));
  fuzz_check(ornic_icrc_verify(&got, enc1) == ORNIC_OK, "the encoder's iCRC is wrong");
  expected_values(&want, &f);
  check_same_values(&want, &got, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  if (data[0] % 4 == 3) {
    encode_values(data + 1, size - 1);
    return 0;
  }
  ornic_link link = (ornic_link)(data[0] % 4);
  const uint8_t *in = data + 1;
  size_t len = size - 1;
  ornic_frame f1, f2, f3;
  if (ornic_frame_decode(&f1, in, len, link, ORNIC_ROCEV2_UDP_PORT) != ORNIC_OK) return 0;
  size_t cap = ornic_frame_encode_capacity(&f1);
  ornic_ssize n1 = ornic_frame_encode(enc1, sizeof enc1, &f1);
  fuzz_check(n1 > 0, "a decoded frame does not encode: %s", ornic_errname((int)n1));
  fuzz_check((size_t)n1 <= cap, "capacity %zu < %td written", cap, n1);
  int rc = ornic_frame_decode(&f2, enc1, (size_t)n1, link, ORNIC_ROCEV2_UDP_PORT);
  fuzz_check(rc == ORNIC_OK, "the encoding does not decode: %s", ornic_errname(rc));
  fuzz_check(ornic_icrc_verify(&f2, enc1) == ORNIC_OK, "the encoder's iCRC is wrong");
  bool canonical = canonical_layout(&f1);
  check_same_values(&f1, &f2, canonical);
  ornic_ssize n2 = ornic_frame_encode(enc2, sizeof enc2, &f2);
  fuzz_check(n2 == n1 && !memcmp(enc1, enc2, (size_t)n1), "encoding is not idempotent");
  fuzz_check(ornic_frame_decode(&f3, enc2, (size_t)n2, link, ORNIC_ROCEV2_UDP_PORT) == ORNIC_OK,
             "second decode");
  if (canonical) check_bytes(&f1, in, enc1, (size_t)n1);
  return 0;
}
