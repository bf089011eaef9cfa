/* SPDX-License-Identifier: MIT */
/* Frame decoder: L2 -> L3 -> L4 -> BTH -> extension headers -> payload -> iCRC.
 * Each layer checks the bytes it needs before reading them. "Truncated" means
 * the capture ended early; "malformed" means the packet's own lengths do not
 * add up. A malformed frame is decoded as far as its bytes allow (PROTOCOL.md
 * D3): each broken rule sets a bit of f->malformed and decoding goes on when
 * the bytes still say where the next header is.
 *
 * ornic_frame_decode (ornic_frame_fast.c) takes clean frames of the common
 * layout (Ethernet, IPv4, UDP) on a fast path first (docs/PERFORMANCE.md); it declines
 * every other frame, which this file's general path,
 * ornic_frame_decode_general, decodes. */
#include <string.h>

#include "ornic/errors.h"
#include "ornic/frame.h"
#include "ornic/opcode.h"
#include "ornic_conv.h"
#include "ornic_frame_fast.h"
#include "ornic_ib_internal.h"

#define ETH_LEN 14
#define VLAN_LEN 4
#define IPV4_MIN_LEN 20
#define IPV6_LEN 40
#define UDP_LEN 8

static void frame_reset(ornic_frame *f, ornic_link link, size_t len) {
  f->link = link;
  f->l3 = ORNIC_L3_NONE;
  f->eth.has_vlan = false;
  f->ext.present = 0;
  f->layers = 0;
  f->malformed = 0;
  f->payload = 0;
  f->payload_len = f->payload_caplen = 0;
  f->pad_len = 0;
  f->icrc = 0;
  f->icrc_present = false;
  f->l3_off = f->l4_off = f->bth_off = f->ext_off = f->payload_off = f->icrc_off = 0;
  f->roce_end = 0;
  f->vcrc = 0;
  f->vcrc_present = false;
  f->vcrc_off = 0;
  f->caplen = len;
  memset(f->reserved, 0, sizeof f->reserved);
}

/* Returns the EtherType after at most one tag, and sets f->l3_off. */
static int decode_eth(ornic_frame *f, const uint8_t *p, size_t len) {
  if (len < ETH_LEN) return ORNIC_ERR_TRUNCATED;
  memcpy(f->eth.dst, p, 6);
  memcpy(f->eth.src, p + 6, 6);
  uint16_t type = ornic_get_u16(p + 12);
  size_t off = ETH_LEN;
  if (type == ORNIC_ETHERTYPE_VLAN || type == ORNIC_ETHERTYPE_QINQ) {
    if (len < ETH_LEN + VLAN_LEN) return ORNIC_ERR_TRUNCATED;
    f->eth.has_vlan = true;
    f->eth.vlan_tpid = type;
    f->eth.vlan_tci = ornic_get_u16(p + 14);
    type = ornic_get_u16(p + 16);
    off += VLAN_LEN;
  }
  f->eth.ethertype = type;
  f->l3_off = off;
  f->layers |= ORNIC_LAYER_ETH;
  return ORNIC_OK;
}

static int malformed(ornic_frame *f, uint16_t rule) {
  f->malformed |= rule;
  return ORNIC_ERR_MALFORMED;
}

static int decode_ipv4(ornic_frame *f, const uint8_t *p, size_t len, size_t *l4_end) {
  ornic_ip *ip = &f->ip;
  if (len < IPV4_MIN_LEN) return ORNIC_ERR_TRUNCATED;
  ip->version = p[0] >> 4;
  ip->hdr_len = (uint8_t)((p[0] & 0x0f) * 4);
  ip->tos = p[1];
  ip->total_len = ornic_get_u16(p + 2);
  ip->id = ornic_get_u16(p + 4);
  ip->frag = ornic_get_u16(p + 6);
  ip->ttl = p[8];
  ip->next_proto = p[9];
  ip->checksum = ornic_get_u16(p + 10);
  ip->flow_label = 0;
  memset(ip->src, 0, sizeof ip->src);
  memset(ip->dst, 0, sizeof ip->dst);
  memcpy(ip->src, p + 12, 4);
  memcpy(ip->dst, p + 16, 4);
  if (ip->version != 4 || ip->hdr_len < IPV4_MIN_LEN) return malformed(f, ORNIC_MAL_IP_HEADER);
  if (ip->next_proto != ORNIC_IPPROTO_UDP) return ORNIC_ERR_NOT_ROCE;
  if (ip->total_len < ip->hdr_len) return malformed(f, ORNIC_MAL_IP_LEN);
  if (ip->frag & 0x3fff) return ORNIC_ERR_UNSUPPORTED; /* a fragment: no whole UDP datagram */
  if (len < ip->hdr_len) return ORNIC_ERR_TRUNCATED;
  f->l3 = ORNIC_L3_IPV4;
  f->layers |= ORNIC_LAYER_L3;
  *l4_end = f->l3_off + ip->total_len;
  return ip->hdr_len;
}

/* IPv6 and the GRH share one layout (IBA 8.3). */
static int decode_ipv6_layout(ornic_frame *f, const uint8_t *p, size_t len, size_t *l4_end) {
  ornic_ip *ip = &f->ip;
  if (len < IPV6_LEN) return ORNIC_ERR_TRUNCATED;
  uint32_t w0 = ornic_get_u32(p);
  ip->version = (uint8_t)(w0 >> 28);
  ip->tos = (uint8_t)(w0 >> 20);
  ip->flow_label = w0 & 0xfffff;
  ip->total_len = IPV6_LEN + (uint32_t)ornic_get_u16(p + 4);
  ip->next_proto = p[6];
  ip->ttl = p[7];
  ip->hdr_len = IPV6_LEN;
  ip->id = ip->frag = ip->checksum = 0;
  memcpy(ip->src, p + 8, 16);
  memcpy(ip->dst, p + 24, 16);
  *l4_end = f->l3_off + IPV6_LEN + ornic_get_u16(p + 4);
  return IPV6_LEN;
}

static int decode_ipv6(ornic_frame *f, const uint8_t *p, size_t len, size_t *l4_end) {
  int n = decode_ipv6_layout(f, p, len, l4_end);
  if (n < 0) return n;
  if (f->ip.version != 6) return malformed(f, ORNIC_MAL_IP_HEADER);
  if (f->ip.next_proto != ORNIC_IPPROTO_UDP) return ORNIC_ERR_NOT_ROCE;
  f->l3 = ORNIC_L3_IPV6;
  f->layers |= ORNIC_LAYER_L3;
  return n;
}

/* The UDP header, and where the RoCE bytes end (D3): at the UDP length, or at
 * the IP datagram's end if that comes first. A disagreement is recorded in
 * f->malformed and decoding goes on inside the shorter of the two. */
static int decode_udp(ornic_frame *f, const uint8_t *data, size_t len, size_t l4_end,
                      uint16_t port) {
  size_t off = f->l4_off;
  if (l4_end < off + UDP_LEN) return malformed(f, ORNIC_MAL_IP_LEN);
  if (len < off + UDP_LEN) return ORNIC_ERR_TRUNCATED;
  const uint8_t *p = data + off;
  f->udp.sport = ornic_get_u16(p);
  f->udp.dport = ornic_get_u16(p + 2);
  f->udp.len = ornic_get_u16(p + 4);
  f->udp.checksum = ornic_get_u16(p + 6);
  f->layers |= ORNIC_LAYER_UDP;
  if (port != ORNIC_UDP_PORT_ANY && f->udp.dport != port) return ORNIC_ERR_NOT_ROCE;
  /* A UDP length under 8 leaves nothing after the header. */
  size_t udp_end = off + (f->udp.len < UDP_LEN ? UDP_LEN : f->udp.len);
  if (udp_end < l4_end) f->malformed |= ORNIC_MAL_UDP_SHORT;
  if (udp_end > l4_end) f->malformed |= ORNIC_MAL_UDP_LONG;
  f->roce_end = udp_end < l4_end ? udp_end : l4_end;
  return ORNIC_OK;
}

/* BTH, extension headers, payload, pad and iCRC of [bth, roce_end).
 * ORNIC_LAYER_BTH is set only once the BTH has been read.
 * The iCRC is located (icrc_off != 0) when the UDP length lies inside the IP
 * datagram and leaves room for BTH + iCRC; headers then end at the iCRC,
 * else at roce_end, and payload and pad are not located. */
static int decode_transport(ornic_frame *f, const uint8_t *data, size_t len, size_t bth) {
  size_t end = f->roce_end;
  if (end < bth + ORNIC_BTH_LEN) return malformed(f, ORNIC_MAL_ROCE_SHORT);
  if (len < bth + ORNIC_BTH_LEN) return ORNIC_ERR_TRUNCATED;
  ornic_bth_decode(&f->bth, data + bth, ORNIC_BTH_LEN);
  f->bth_off = bth;
  f->ext_off = bth + ORNIC_BTH_LEN;
  f->layers |= ORNIC_LAYER_BTH;
  if (end < f->ext_off + ORNIC_ICRC_LEN) f->malformed |= ORNIC_MAL_ROCE_SHORT;
  bool located = !(f->malformed & (ORNIC_MAL_UDP_LONG | ORNIC_MAL_ROCE_SHORT));
  size_t wire_end = located ? end - ORNIC_ICRC_LEN : end;
  size_t cap_end = len < wire_end ? len : wire_end;
  /* The iCRC's place follows from the lengths alone, so even a frame with an
   * unknown opcode or a layout of its own can have its iCRC checked. */
  if (located) {
    f->icrc_off = wire_end;
    if (len >= end) {
      f->icrc = ornic_get_u32le(data + wire_end);
      f->icrc_present = true;
    }
  }
  const ornic_opcode_info *op = ornic_opcode_info_get(f->bth.opcode);
  if (!op->name) return ORNIC_ERR_UNKNOWN_OPCODE;
  /* The DC bytes (opcode.h, PROTOCOL.md 2.8) come before the headers: they
   * are part of D5's "headers", so too few of them break the same rule. */
  size_t dc = ornic_opcode_dc_len(f->bth.opcode, f->bth.se);
  if (dc) {
    if (cap_end - f->ext_off < dc) {
      if (len < wire_end) return ORNIC_ERR_TRUNCATED;
      return located ? malformed(f, ORNIC_MAL_EXT) : ORNIC_ERR_MALFORMED;
    }
    f->ext_off += dc;
  }
  int n = ornic_ext_decode(&f->ext, op->hdrs, data + f->ext_off, cap_end - f->ext_off);
  if (n == ORNIC_ERR_TRUNCATED) {
    if (len < wire_end) return ORNIC_ERR_TRUNCATED;
    return located ? malformed(f, ORNIC_MAL_EXT) : ORNIC_ERR_MALFORMED;
  }
  if (n == ORNIC_ERR_MALFORMED) return malformed(f, ORNIC_MAL_NAK_BLOCKS);
  if (n < 0) return n;
  f->payload_off = f->ext_off + (size_t)n;
  if (!located) return ORNIC_ERR_MALFORMED; /* no iCRC, so no end of the payload */
  /* PROTOCOL.md D7: ORNIC packets are whole 4-byte words from BTH to iCRC. */
  if (op->transport == ORNIC_TRANSPORT_ORNIC && (wire_end - f->ext_off) % 4)
    return malformed(f, ORNIC_MAL_ALIGN);
  size_t body = wire_end - f->payload_off;
  f->pad_len = f->bth.padcnt;
  if (f->pad_len > body) return malformed(f, ORNIC_MAL_PAD);
  f->payload_len = body - f->pad_len;
  if (f->payload_len && !(op->flags & ORNIC_OPF_PAYLOAD)) return malformed(f, ORNIC_MAL_PAYLOAD);
  f->payload = data + f->payload_off;
  if (len < end) {
    size_t got = len > f->payload_off ? len - f->payload_off : 0;
    f->payload_caplen = got < f->payload_len ? got : f->payload_len;
    return ORNIC_ERR_TRUNCATED;
  }
  f->payload_caplen = f->payload_len;
  return ORNIC_OK;
}

static int decode_l3(ornic_frame *f, const uint8_t *data, size_t len, int kind, uint16_t port) {
  size_t l4_end = 0;
  const uint8_t *p = data + f->l3_off;
  size_t rest = len - f->l3_off;
  int n;
  if (kind == ORNIC_L3_GRH) {
    n = decode_ipv6_layout(f, p, rest, &l4_end);
    if (n < 0) return n;
    if (f->ip.next_proto != ORNIC_GRH_NXTHDR_BTH) return ORNIC_ERR_NOT_ROCE;
    f->l3 = ORNIC_L3_GRH;
    f->layers |= ORNIC_LAYER_L3;
    size_t bth = f->l3_off + IPV6_LEN;
    f->roce_end = l4_end;
    return decode_transport(f, data, len, bth);
  }
  n = kind == ORNIC_L3_IPV4 ? decode_ipv4(f, p, rest, &l4_end) : decode_ipv6(f, p, rest, &l4_end);
  if (n < 0) return n;
  f->l4_off = f->l3_off + (size_t)n;
  if (l4_end < f->l4_off) return malformed(f, ORNIC_MAL_IP_LEN);
  n = decode_udp(f, data, len, l4_end, port);
  if (n < 0) return n;
  return decode_transport(f, data, len, f->l4_off + UDP_LEN);
}

/* Native InfiniBand: the LRH (ornic_ib.c), the GRH when LNH is 3 (read as
 * RoCEv1's), then the transport as for RoCE, ending where PktLen says. */
static int decode_ib(ornic_frame *f, const uint8_t *data, size_t len) {
  int n = ornic_ib_decode_lrh(f, data, len);
  if (n < 0) return n;
  size_t bth = (size_t)n, grh_end = 0;
  if (bth > ORNIC_LRH_LEN) {
    f->l3_off = ORNIC_LRH_LEN;
    n = decode_ipv6_layout(f, data + f->l3_off, len - f->l3_off, &grh_end);
    if (n < 0) return n;
    if (f->ip.next_proto != ORNIC_GRH_NXTHDR_BTH) return ORNIC_ERR_NOT_ROCE;
    f->l3 = ORNIC_L3_GRH;
    f->layers |= ORNIC_LAYER_L3;
    ornic_ib_check_grh(f);
  }
  return ornic_ib_decode_end(f, decode_transport(f, data, len, bth));
}

static int l3_kind_from_ethertype(uint16_t type) {
  switch (type) {
  case ORNIC_ETHERTYPE_IPV4: return ORNIC_L3_IPV4;
  case ORNIC_ETHERTYPE_IPV6: return ORNIC_L3_IPV6;
  case ORNIC_ETHERTYPE_ROCEV1: return ORNIC_L3_GRH;
  default: return ORNIC_L3_NONE;
  }
}

int ornic_frame_decode_general(ornic_frame *f, const uint8_t *data, size_t len, ornic_link link,
                               uint16_t udp_port) {
  frame_reset(f, link, len);
  int kind;
  switch (link) {
  case ORNIC_LINK_ETHERNET: {
    int rc = decode_eth(f, data, len);
    if (rc < 0) return rc;
    kind = l3_kind_from_ethertype(f->eth.ethertype);
    if (kind == ORNIC_L3_NONE) return ORNIC_ERR_NOT_ROCE;
    break;
  }
  case ORNIC_LINK_RAW_IP:
    if (len < 1) return ORNIC_ERR_TRUNCATED;
    kind = data[0] >> 4 == 4 ? ORNIC_L3_IPV4 : data[0] >> 4 == 6 ? ORNIC_L3_IPV6 : ORNIC_L3_NONE;
    if (kind == ORNIC_L3_NONE) return ORNIC_ERR_NOT_ROCE;
    break;
  case ORNIC_LINK_GRH: kind = ORNIC_L3_GRH; break;
  case ORNIC_LINK_IB: {
    int rc = decode_ib(f, data, len);
    return f->malformed ? ORNIC_ERR_MALFORMED : rc;
  }
  default: return ORNIC_ERR_INVALID_ARG;
  }
  int rc = decode_l3(f, data, len, kind, udp_port);
  return f->malformed ? ORNIC_ERR_MALFORMED : rc;
}

int ornic_roce_decode(ornic_frame *f, const uint8_t *p, size_t len) {
  frame_reset(f, ORNIC_LINK_RAW_IP, len);
  if (len < ORNIC_BTH_LEN + ORNIC_ICRC_LEN) return ORNIC_ERR_TRUNCATED;
  f->roce_end = len;
  int rc = decode_transport(f, p, len, 0);
  return f->malformed ? ORNIC_ERR_MALFORMED : rc;
}
