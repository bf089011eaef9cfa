/* SPDX-License-Identifier: MIT */
#include "framer.h"

#include <string.h>

#include "pattern.h"

#define ETH_LEN 14u
#define IPV4_LEN 20u
#define UDP_LEN 8u
#define IP_OFF ETH_LEN
#define UDP_OFF (ETH_LEN + IPV4_LEN)
#define BTH_OFF FRAMER_L2L4
#define IPV4_MAX_PAYLOAD (0xffffu - IPV4_LEN)

static void put16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

/* RFC 791 / 1071: the ones' complement of the ones' complement sum of the
 * header's 16-bit words, the checksum field counted as zero. */
static uint32_t sum16(const uint8_t *h, unsigned len) {
  uint32_t s = 0;
  for (unsigned i = 0; i < len; i += 2) s += (uint32_t)h[i] << 8 | h[i + 1];
  return s;
}

/* The header's checksum from the template's sum (fr->ip_sum, the varying
 * fields at zero) and the varying fields (RFC 1624: a sum is order-free). */
static uint16_t ipv4_checksum(const framer *fr, uint8_t tos, uint32_t total, uint16_t id) {
  uint32_t s = fr->ip_sum + tos + total + id;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)~s;
}

/* Whether f's Ethernet, IPv4 and UDP fields are the template's, but for the
 * three that vary per frame (TOS, ID, source port). */
static bool same_shape(const framer *fr, const ornic_frame *f) {
  const ornic_frame *t = &fr->tmpl;
  return f->link == t->link && f->l3 == t->l3 && !f->eth.has_vlan &&
         memcmp(f->eth.dst, t->eth.dst, 6) == 0 && memcmp(f->eth.src, t->eth.src, 6) == 0 &&
         f->ip.version == 4 && f->ip.ttl == t->ip.ttl && f->ip.frag == t->ip.frag &&
         f->ip.flow_label == t->ip.flow_label && memcmp(f->ip.src, t->ip.src, 4) == 0 &&
         memcmp(f->ip.dst, t->ip.dst, 4) == 0 && f->udp.dport == t->udp.dport;
}

/* The payload in place: copied from f, or generated. */
static void put_payload(uint8_t *p, const ornic_frame *f, const framer_payload *gen) {
  size_t n = f->payload_len;
  if (!gen) {
    if (n) memcpy(p, f->payload, n);
    return;
  }
  if (gen->head_len) memcpy(p, gen->head, gen->head_len);
  pattern_fill(p + gen->head_len, gen->key, gen->addr, n - gen->head_len);
}

/* The checks ornic_frame_encode makes before writing, for this shape, but
 * the extension headers' (their encoder makes those, and gives their size,
 * so ornic_ext_size is not asked first). */
static int plan(const ornic_frame *f, const ornic_opcode_info *op, const framer_payload *gen) {
  if (!op->name) return ORNIC_ERR_UNKNOWN_OPCODE;
  size_t n = f->payload_len;
  if (n && (!(op->flags & ORNIC_OPF_PAYLOAD) || (!gen && !f->payload)))
    return ORNIC_ERR_INVALID_ARG;
  if (gen && gen->head_len > n) return ORNIC_ERR_INVALID_ARG;
  return n > 0xffff ? ORNIC_ERR_INVALID_ARG : ORNIC_OK;
}

/* ornic_ext_encode's bytes and answer, a header at a time through
 * ornic_ext_encode_one: the general function walks the headers three times
 * (check, size, write), this once (pcapgen/README.md, "Speed"). A frame
 * with a header the library refuses is refused either way. */
static ornic_ssize encode_ext(uint8_t *out, size_t cap, const ornic_ext *ext, uint16_t hdrs) {
  size_t off = 0;
  for (unsigned rest = hdrs & ((1u << ORNIC_HDR_COUNT) - 1); rest; rest &= rest - 1) {
    ornic_ssize k = ornic_ext_encode_one(out + off, cap - off, ext, (uint16_t)(rest & (0u - rest)));
    if (k < 0) return k;
    off += (size_t)k;
  }
  return (ornic_ssize)off;
}

ornic_ssize framer_encode(const framer *fr, uint8_t *out, size_t cap, const ornic_frame *f,
                          const framer_payload *gen) {
  if (!same_shape(fr, f)) return ORNIC_ERR_INVALID_ARG;
  const ornic_opcode_info *op = ornic_opcode_info_get(f->bth.opcode);
  int rc = plan(f, op, gen);
  if (rc < 0) return rc;
  /* The extension headers first, after the BTH's place: their size sets
   * the pad count the BTH carries. */
  /* The DC block's bytes after the BTH, zeros as ornic_frame_encode writes
   * them (ornic/opcode.h, docs/PROTOCOL.md 2.8). */
  const size_t dc = ornic_opcode_dc_len(f->bth.opcode, f->bth.se);
  const size_t ext_off = BTH_OFF + ORNIC_BTH_LEN + dc;
  if (cap < ext_off) return ORNIC_ERR_NOBUF;
  ornic_ssize ext = encode_ext(out + ext_off, cap - ext_off, &f->ext, op->hdrs);
  if (ext < 0) return ext;
  uint8_t pad = (uint8_t)((4 - ((size_t)ext + f->payload_len) % 4) % 4);
  size_t after_ip =
      UDP_LEN + ORNIC_BTH_LEN + dc + (size_t)ext + f->payload_len + pad + ORNIC_ICRC_LEN;
  if (after_ip > IPV4_MAX_PAYLOAD) return ORNIC_ERR_INVALID_ARG;
  size_t total = UDP_OFF + after_ip;
  if (cap < total) return ORNIC_ERR_NOBUF;
  memcpy(out, fr->l2l4, FRAMER_L2L4);
  uint8_t *ip = out + IP_OFF, *udp = out + UDP_OFF;
  ip[1] = f->ip.tos;
  put16(ip + 2, IPV4_LEN + (uint32_t)after_ip);
  put16(ip + 4, f->ip.id);
  put16(ip + 10, ipv4_checksum(fr, f->ip.tos, IPV4_LEN + (uint32_t)after_ip, f->ip.id));
  put16(udp, f->udp.sport);
  put16(udp + 4, (uint32_t)after_ip); /* the checksum stays 0, as IPv4 allows */
  ornic_bth bth = f->bth;
  bth.padcnt = pad;
  ornic_ssize k = ornic_bth_encode(out + BTH_OFF, ORNIC_BTH_LEN, &bth);
  if (k < 0) return k;
  memset(out + BTH_OFF + ORNIC_BTH_LEN, 0, dc);
  uint8_t *p = out + ext_off + ext;
  put_payload(p, f, gen);
  p += f->payload_len;
  memset(p, 0, pad);
  p += pad;
  uint32_t icrc;
  size_t l3_len = total - ETH_LEN;
  rc = ornic_icrc_compute_at(ip, l3_len, ORNIC_L3_IPV4, IPV4_LEN + UDP_LEN, l3_len - ORNIC_ICRC_LEN,
                             &icrc);
  if (rc < 0) return rc;
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(icrc >> (8 * i)); /* as the frame holds it */
  return (ornic_ssize)total;
}

/* Frames that take every path of framer_encode: no payload, a copied one
 * with pad bytes, a generated one after a head; another TOS, ID and port. */
static int self_check(const framer *fr) {
  static const uint8_t five[5] = {1, 2, 3, 4, 5};
  uint8_t want[2048], got[2048], gen_bytes[1003];
  framer_payload gen = {five, 5, 0x0123456789abcdefull, 0x7f0000001000ull};
  for (int k = 0; k < 3; k++) {
    ornic_frame f = fr->tmpl;
    f.ip.tos = (uint8_t)(0x60 + k);
    f.ip.id = (uint16_t)(0xfff0 + k);
    f.udp.sport = (uint16_t)(0xc000 + k);
    f.bth.destqp = 0x123456;
    f.bth.psn = 0xfffffe;
    f.bth.opcode = k == 0 ? ORNIC_OP_RC_ACK : ORNIC_OP_RC_RDMA_WRITE_ONLY;
    f.ext.aeth = (ornic_aeth){0x1f, 7};
    f.ext.reth = (ornic_reth){0x7f0000001000ull, 0x1234, 1003};
    f.payload = k == 1 ? five : k == 2 ? gen_bytes : NULL;
    f.payload_len = k == 1 ? 5 : k == 2 ? 1003 : 0;
    if (k == 2) { /* what the generator should make, for the library to copy */
      memcpy(gen_bytes, five, 5);
      pattern_fill(gen_bytes + 5, gen.key, gen.addr, 998);
    }
    ornic_ssize a = ornic_frame_encode(want, sizeof want, &f);
    ornic_ssize b = framer_encode(fr, got, sizeof got, &f, k == 2 ? &gen : NULL);
    if (a < 0) return (int)a;
    if (b != a || memcmp(want, got, (size_t)a) != 0) return ORNIC_ERR_UNSUPPORTED;
  }
  return ORNIC_OK;
}

int framer_init(framer *fr, const ornic_frame *tmpl) {
  uint8_t buf[256];
  fr->tmpl = *tmpl;
  if (tmpl->link != ORNIC_LINK_ETHERNET || tmpl->l3 == ORNIC_L3_GRH || tmpl->eth.has_vlan ||
      tmpl->ip.version != 4)
    return ORNIC_ERR_INVALID_ARG;
  ornic_frame f = *tmpl;
  f.bth.opcode = ORNIC_OP_RC_ACK;
  f.payload = NULL;
  f.payload_len = 0;
  ornic_ssize n = ornic_frame_encode(buf, sizeof buf, &f);
  if (n < 0) return (int)n;
  if (n < (ornic_ssize)FRAMER_L2L4 || buf[IP_OFF] != 0x45) return ORNIC_ERR_INVALID_ARG;
  memcpy(fr->l2l4, buf, FRAMER_L2L4);
  uint8_t *ip = fr->l2l4 + IP_OFF;
  ip[1] = 0; /* TOS, total length, ID, checksum: set per frame */
  memset(ip + 2, 0, 4);
  memset(ip + 10, 0, 2);
  fr->ip_sum = sum16(ip, IPV4_LEN);
  return self_check(fr);
}
