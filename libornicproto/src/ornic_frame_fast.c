/* SPDX-License-Identifier: MIT */
/* The frame decoder's fast path (issue 18): Ethernet II with at most one
 * 802.1Q/802.1ad tag, IPv4 without options, UDP, captured whole, and every
 * rule of docs/PROTOCOL.md section 5 kept; the layout of nearly every frame
 * a RoCEv2 capture holds.
 *
 * It checks first and writes after, as a hand-written parser would: the
 * checks read the frame and write nothing; a clean frame's fields are then
 * written once each, with the values the general path (ornic_frame_decode.c)
 * would leave there, and no frame_reset before them. The checks are every
 * check the general path makes on such a frame, so the fast path declines
 * every frame that is not clean (and every other layout), and the general
 * path decodes, flags and explains it. The fields a clean frame does not
 * set (frame.h: lrh, an untagged frame's vlan_tpid/vlan_tci, extension
 * headers the opcode lacks) are left alone, as the general path leaves them.
 *
 * Three functions, each calling the next as its last act (a jump, not a
 * call): the checks, the fixed layers, the extension headers. The values
 * the checks computed are not kept (and spilled) through the writes, which
 * load again what they need. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "ornic/errors.h"
#include "ornic/opcode.h"
#include "ornic_conv.h"
#include "ornic_ext_read.h"
#include "ornic_frame_fast.h"
#include "ornic_internal.h"

#define ETH_LEN 14
#define VLAN_LEN 4
#define IPV4_LEN 20 /* no options: IHL 5 */
#define UDP_LEN 8
/* From the IPv4 header: IPv4, UDP, BTH and iCRC, the least a RoCEv2 frame has. */
#define L3_MIN_LEN (IPV4_LEN + UDP_LEN + ORNIC_BTH_LEN + ORNIC_ICRC_LEN)

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* ornic_opcode.c's table, read here without a call: the checks call nothing. */
#define fast_ops ornic_opcode_table_

/* ---- the checks: read the frame, write nothing ---- */

/* The IPv4 header's offset when the frame is Ethernet II, one tag at most,
 * IPv4, and long enough for the headers a RoCEv2 frame needs; else 0. */
static size_t fast_l3(const uint8_t *d, size_t len) {
  if (len < ETH_LEN + L3_MIN_LEN) return 0;
  uint16_t type = ornic_get_u16(d + 12);
  /* Arithmetic, not a choice of two constants: each offset from l3 is an add. */
  size_t l3 =
      ETH_LEN + VLAN_LEN * (size_t)(type == ORNIC_ETHERTYPE_VLAN || type == ORNIC_ETHERTYPE_QINQ);
  if (len < l3 + L3_MIN_LEN) return 0;
  return ornic_get_u16(d + l3 - 2) == ORNIC_ETHERTYPE_IPV4 ? l3 : 0;
}

/* The end of the RoCE bytes when the IPv4 header at l3 has no options and
 * carries a whole unfragmented UDP datagram to `port` whose length ends the
 * IP datagram and leaves room for BTH and iCRC; else 0. The general path
 * then reads every layer through the BTH without a malformed bit (D1, D3)
 * and locates and captures the iCRC at end - 4. */
static size_t fast_ipv4_udp(const uint8_t *d, size_t len, size_t l3, uint16_t port) {
  const uint8_t *ip = d + l3, *udp = ip + IPV4_LEN;
  size_t end = l3 + ornic_get_u16(ip + 2);
  if (ip[0] != 0x45 || ip[9] != ORNIC_IPPROTO_UDP || (ornic_get_u16(ip + 6) & 0x3fff)) return 0;
  if (end > len || end < l3 + L3_MIN_LEN) return 0;
  if (port != ORNIC_UDP_PORT_ANY && ornic_get_u16(udp + 2) != port) return 0;
  return l3 + IPV4_LEN + ornic_get_u16(udp + 4) == end ? end : 0;
}

/* Fixed bytes of the headers of ORNIC_EXT_READ_HDRS, indexed by bits 4 to
 * 11 of an opcode's hdrs (ornic/opcode.h: RETH 4 ... ImmDt 11): one load
 * instead of a sum over the bits. NAKETH counts its fixed part. */
#define SZ(x)                                                                    \
  (((x)&1) * 16 + ((x) >> 1 & 1) * 4 + ((x) >> 3 & 1) * 4 + ((x) >> 5 & 1) * 4 + \
   ((x) >> 6 & 1) * ORNIC_NAKETH_FIXED_LEN + ((x) >> 7 & 1) * 4)
#define SZ4(x) SZ(x), SZ((x) + 1), SZ((x) + 2), SZ((x) + 3)
#define SZ16(x) SZ4(x), SZ4((x) + 4), SZ4((x) + 8), SZ4((x) + 12)
#define SZ64(x) SZ16(x), SZ16((x) + 16), SZ16((x) + 32), SZ16((x) + 48)
static const uint8_t ext_fixed_len[256] = {SZ64(0), SZ64(64), SZ64(128), SZ64(192)};
#define EXT_FIXED_LEN(hdrs) ext_fixed_len[(hdrs) >> 4 & 0xff]

/* The payload's offset when the datagram [bth, end) holds a known opcode
 * whose extension headers are of the kinds ornic_ext_read.h reads and fit
 * before the iCRC (D5), a NAKETH has blocks (D6), an ORNIC opcode is whole
 * words (D7), PadCnt fits and only an opcode with payload has any (D5);
 * else 0. */
static size_t fast_transport(const uint8_t *d, size_t bth, size_t end) {
  const uint8_t *b = d + bth;
  const ornic_opcode_info *op = &fast_ops[b[0]];
  unsigned hdrs = op->hdrs;
  if (!op->name || (hdrs & ~(unsigned)ORNIC_EXT_READ_HDRS)) return 0;
  size_t room = end - bth - ORNIC_BTH_LEN - ORNIC_ICRC_LEN; /* headers, payload, pad */
  size_t hlen = EXT_FIXED_LEN(hdrs);
  if (hdrs & ORNIC_HDR_NAKETH) {
    /* Its place: after the headers of lower bits, which come first. */
    size_t nak = EXT_FIXED_LEN(hdrs & (ORNIC_HDR_NAKETH - 1));
    const uint8_t *nblocks = b + ORNIC_BTH_LEN + nak + 4;
    if (nak + ORNIC_NAKETH_FIXED_LEN > room || *nblocks == 0) return 0;
    hlen += 2u * *nblocks;
  }
  if (hlen > room) return 0;
  if (op->transport == ORNIC_TRANSPORT_ORNIC && room % 4) return 0;
  size_t pad = (b[1] >> 4) & 3, body = room - hlen;
  if (pad > body || (pad < body && !(op->flags & ORNIC_OPF_PAYLOAD))) return 0;
  return bth + ORNIC_BTH_LEN + hlen;
}

/* ---- the writes: a clean frame, each field once ---- */

/* The extension headers at p of the BTH's opcode (fast_transport found
 * them whole), in wire order, as ornic_ext_decode reads them. */
static NOINLINE int write_ext(ornic_ext *e, const uint8_t *bth) {
  uint16_t hdrs = fast_ops[bth[0]].hdrs;
  const uint8_t *p = bth + ORNIC_BTH_LEN;
  e->present = hdrs;
  if (!hdrs) return ORNIC_OK;
  if (hdrs & ORNIC_HDR_RETH) p = ornic_reth_read(&e->reth, p);
  if (hdrs & ORNIC_HDR_OFFETH) p = ornic_offeth_read(&e->offeth, p);
  if (hdrs & ORNIC_HDR_AETH) p = ornic_aeth_read(&e->aeth, p);
  if (hdrs & ORNIC_HDR_OACKETH) p = ornic_oacketh_read(&e->oacketh, p);
  if (hdrs & ORNIC_HDR_NAKETH) p = ornic_naketh_read(&e->naketh, p);
  if (hdrs & ORNIC_HDR_IMMDT) ornic_immdt_read(&e->immdt, p);
  return ORNIC_OK;
}

/* The BTH's bytes 1, 4 and 8 split into their fields (IBA 9.2), which are
 * neighbours in ornic_bth: one load and one store each instead of a shift,
 * a mask and a store per field. */
#define B1(x) \
  { (x) >> 7, (x) >> 6 & 1, (x) >> 4 & 3, (x)&15 } /* se, m, padcnt, tver */
#define B4(x) \
  { (x) >> 7, (x) >> 6 & 1, (x)&0x3f } /* fecn, becn, resv6 */
#define B8(x) \
  { (x) >> 7, (x)&0x7f } /* ackreq, resv7 */
#define X4(M, x) M(x), M((x) + 1), M((x) + 2), M((x) + 3)
#define X16(M, x) X4(M, x), X4(M, (x) + 4), X4(M, (x) + 8), X4(M, (x) + 12)
#define X64(M, x) X16(M, x), X16(M, (x) + 16), X16(M, (x) + 32), X16(M, (x) + 48)
#define X256(M) X64(M, 0), X64(M, 64), X64(M, 128), X64(M, 192)
static const uint8_t bth_byte1[256][4] = {X256(B1)};
static const uint8_t bth_byte4[256][3] = {X256(B4)};
static const uint8_t bth_byte8[256][2] = {X256(B8)};
_Static_assert(offsetof(ornic_bth, tver) == offsetof(ornic_bth, se) + 3, "se..tver adjacent");
_Static_assert(offsetof(ornic_bth, resv6) == offsetof(ornic_bth, fecn) + 2, "fecn..resv6");
_Static_assert(offsetof(ornic_bth, resv7) == offsetof(ornic_bth, ackreq) + 1, "ackreq, resv7");

/* The BTH at p, as ornic_bth_decode reads it. */
static inline void write_bth(ornic_bth *b, const uint8_t *p) {
  b->opcode = p[0];
  memcpy(&b->se, bth_byte1[p[1]], 4);
  b->pkey = ornic_get_u16(p + 2);
  memcpy(&b->fecn, bth_byte4[p[4]], 3);
  b->destqp = ornic_get_u32(p + 4) & 0xffffff; /* one load, not three */
  memcpy(&b->ackreq, bth_byte8[p[8]], 2);
  b->psn = ornic_get_u32(p + 8) & 0xffffff;
}

/* n big-endian 16-bit wire fields into n uint16_t fields that are
 * neighbours (checked below): the compiler swaps them in one register and
 * stores them at once. Wider stores than that, over fields of different
 * sizes, would save more stores but cost more than they save: a caller that
 * reads one field back soon after (every loop over decoded frames) would
 * wait for a store it can only partly forward. */
static inline void put_be16s(void *out, const uint8_t *p, unsigned n) {
  uint16_t v[4];
  for (unsigned i = 0; i < n; i++) v[i] = ornic_get_u16(p + 2 * i);
  memcpy(out, v, 2u * n);
}
_Static_assert(offsetof(ornic_eth, src) == 6, "dst, src adjacent");
_Static_assert(offsetof(ornic_eth, vlan_tci) == offsetof(ornic_eth, vlan_tpid) + 2, "TPID, TCI");
_Static_assert(offsetof(ornic_ip, frag) == offsetof(ornic_ip, id) + 2, "id, frag adjacent");
_Static_assert(sizeof(ornic_udp) == 8, "UDP: 4 adjacent u16");

/* An IPv4 address into a 16-byte field, zero-filled as the general path
 * leaves it: two 8-byte stores, in place of a memset and a copy. */
static inline void addr4(uint8_t out[16], const uint8_t *p) {
  uint32_t a[4] = {0, 0, 0, 0};
  memcpy(a, p, 4); /* the wire's bytes, in their order */
  memcpy(out, a, 16);
}

/* TPID and TCI of a tagged frame; an untagged one's are left as they were,
 * as the general path leaves them. Without a branch: a quarter of the frames
 * of a PFC network are tagged, in no order a predictor could learn, so the
 * old pair is read and stored back unchanged when untagged. */
static inline void write_tag(ornic_eth *e, const uint8_t *d, bool tagged) {
  uint32_t old, tag, keep = tagged ? 0 : UINT32_MAX;
  memcpy(&old, &e->vlan_tpid, 4);
  put_be16s(&tag, d + 12, 2);
  tag = (tag & ~keep) | (old & keep);
  memcpy(&e->vlan_tpid, &tag, 4);
}

/* eth, ip and udp as decode_eth, decode_ipv4 and decode_udp set them. */
static inline void write_headers(ornic_frame *f, const uint8_t *d, size_t l3) {
  const uint8_t *ip = d + l3;
  memcpy(&f->eth, d, 12); /* dst and src */
  f->eth.has_vlan = l3 != ETH_LEN;
  write_tag(&f->eth, d, l3 != ETH_LEN);
  f->eth.ethertype = ORNIC_ETHERTYPE_IPV4;
  f->ip.version = 4;
  f->ip.tos = ip[1];
  f->ip.ttl = ip[8];
  f->ip.flow_label = 0;
  put_be16s(&f->ip.id, ip + 4, 2);
  f->ip.next_proto = ORNIC_IPPROTO_UDP;
  f->ip.hdr_len = IPV4_LEN;
  f->ip.total_len = ornic_get_u16(ip + 2);
  f->ip.checksum = ornic_get_u16(ip + 10);
  addr4(f->ip.src, ip + 12);
  addr4(f->ip.dst, ip + 16);
  put_be16s(&f->udp, ip + IPV4_LEN, 4);
}

/* A clean frame of len bytes: IPv4 header at l3, RoCE bytes ending at end,
 * payload at off. Everything frame_reset and the general path set. */
static NOINLINE int write_clean(ornic_frame *f, const uint8_t *d, size_t len, size_t l3, size_t end,
                                size_t off) {
  size_t bth = l3 + IPV4_LEN + UDP_LEN, icrc = end - ORNIC_ICRC_LEN;
  f->link = ORNIC_LINK_ETHERNET;
  f->l3 = ORNIC_L3_IPV4;
  f->caplen = len;
  f->l3_off = l3;
  f->l4_off = l3 + IPV4_LEN;
  f->bth_off = bth;
  f->ext_off = bth + ORNIC_BTH_LEN;
  f->roce_end = end;
  f->icrc_off = icrc;
  f->icrc = ornic_get_u32le(d + icrc);
  f->icrc_present = true;
  f->malformed = 0;
  f->layers = ORNIC_LAYER_ETH | ORNIC_LAYER_L3 | ORNIC_LAYER_UDP | ORNIC_LAYER_BTH;
  f->vcrc = 0;
  f->vcrc_present = false;
  f->vcrc_off = 0;
  memset(f->reserved, 0, sizeof f->reserved);
  write_headers(f, d, l3);
  write_bth(&f->bth, d + bth);
  /* PadCnt from the wire, not read back from a field just stored. */
  uint8_t pad = (d[bth + 1] >> 4) & 3;
  f->pad_len = pad;
  f->payload_off = off;
  f->payload = d + off;
  f->payload_len = icrc - off - pad;
  f->payload_caplen = icrc - off - pad;
  return write_ext(&f->ext, d + bth);
}

int ornic_frame_decode_eth(ornic_frame *f, const uint8_t *d, size_t len, uint16_t udp_port) {
  size_t l3 = fast_l3(d, len);
  size_t end = l3 ? fast_ipv4_udp(d, len, l3, udp_port) : 0;
  size_t off = end ? fast_transport(d, l3 + IPV4_LEN + UDP_LEN, end) : 0;
  if (off) return write_clean(f, d, len, l3, end, off);
  return ornic_frame_decode_general(f, d, len, ORNIC_LINK_ETHERNET, udp_port);
}
