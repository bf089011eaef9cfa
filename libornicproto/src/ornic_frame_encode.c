/* SPDX-License-Identifier: MIT */
/* Frame encoder: computes every derived field (lengths, PadCnt, IPv4 header
 * checksum, IPv6 UDP checksum, iCRC) so callers only state what they mean. */
#include <string.h>

#include "ornic/errors.h"
#include "ornic/frame.h"
#include "ornic/icrc.h"
#include "ornic/opcode.h"
#include "ornic_conv.h"
#include "ornic_ib_internal.h"
#include "ornic_internal.h"

#define ETH_LEN 14
#define VLAN_LEN 4
#define IPV4_LEN 20
#define IPV6_LEN 40
#define UDP_LEN 8

typedef struct {
  size_t l2, l3, l4;   /* header sizes */
  size_t dc;           /* DC bytes after the BTH (opcode.h), written as zeros */
  size_t ext, payload; /* bytes after the BTH and DC bytes */
  uint8_t pad;
  size_t roce; /* BTH .. iCRC inclusive */
  int kind;    /* ORNIC_L3_* */
} layout;

static int plan(const ornic_frame *f, layout *lo) {
  const ornic_opcode_info *op = ornic_opcode_info_get(f->bth.opcode);
  if (!op->name) return ORNIC_ERR_UNKNOWN_OPCODE;
  if (f->payload_len && !f->payload) return ORNIC_ERR_INVALID_ARG;
  if (f->payload_len && !(op->flags & ORNIC_OPF_PAYLOAD)) return ORNIC_ERR_INVALID_ARG;
  /* RoCEv1 behind Ethernet (EtherType 0x8915) is link ETHERNET with l3 GRH,
   * as the decoder reports it. */
  if (f->link == ORNIC_LINK_GRH || (f->link == ORNIC_LINK_ETHERNET && f->l3 == ORNIC_L3_GRH))
    lo->kind = ORNIC_L3_GRH;
  else if (f->ip.version == 4)
    lo->kind = ORNIC_L3_IPV4;
  else if (f->ip.version == 6)
    lo->kind = ORNIC_L3_IPV6;
  else
    return ORNIC_ERR_INVALID_ARG;
  lo->l2 = f->link == ORNIC_LINK_ETHERNET ? ETH_LEN + (f->eth.has_vlan ? VLAN_LEN : 0) : 0;
  lo->l3 = lo->kind == ORNIC_L3_IPV4 ? IPV4_LEN : IPV6_LEN;
  lo->l4 = lo->kind == ORNIC_L3_GRH ? 0 : UDP_LEN;
  lo->ext = ornic_ext_size(&f->ext, op->hdrs);
  lo->payload = f->payload_len;
  lo->pad = (uint8_t)((4 - (lo->ext + lo->payload) % 4) % 4);
  lo->dc = ornic_opcode_dc_len(f->bth.opcode, f->bth.se);
  lo->roce = ORNIC_BTH_LEN + lo->dc + lo->ext + lo->payload + lo->pad + ORNIC_ICRC_LEN;
  size_t after_ip = lo->l4 + lo->roce;
  size_t ip_max = lo->kind == ORNIC_L3_IPV4 ? 0xffff - IPV4_LEN : 0xffff;
  if (f->payload_len > 0xffff || after_ip > ip_max) return ORNIC_ERR_INVALID_ARG;
  if (f->ip.flow_label > 0xfffff) return ORNIC_ERR_INVALID_ARG;
  /* A fragment would not decode as RoCE: the iCRC covers the whole datagram. */
  if (lo->kind == ORNIC_L3_IPV4 && (f->ip.frag & 0x3fff)) return ORNIC_ERR_INVALID_ARG;
  /* The BTH and header values too, so that nothing is written before every
   * check has passed (a failed encode leaves `out` as it was). */
  ornic_bth bth = f->bth;
  bth.padcnt = lo->pad;
  if (!ornic_bth_valid(&bth) || !ornic_ext_valid(&f->ext, op->hdrs)) return ORNIC_ERR_INVALID_ARG;
  /* Only tags the decoder recognises, so that every frame we write reads back. */
  if (f->eth.has_vlan && f->eth.vlan_tpid != 0 && f->eth.vlan_tpid != ORNIC_ETHERTYPE_VLAN &&
      f->eth.vlan_tpid != ORNIC_ETHERTYPE_QINQ)
    return ORNIC_ERR_INVALID_ARG;
  return ORNIC_OK;
}

static uint8_t *put_eth(uint8_t *p, const ornic_frame *f, int kind) {
  memcpy(p, f->eth.dst, 6);
  memcpy(p + 6, f->eth.src, 6);
  p += 12;
  if (f->eth.has_vlan) {
    p = ornic_put_u16(p, f->eth.vlan_tpid ? f->eth.vlan_tpid : ORNIC_ETHERTYPE_VLAN);
    p = ornic_put_u16(p, f->eth.vlan_tci);
  }
  uint16_t type = kind == ORNIC_L3_IPV4   ? ORNIC_ETHERTYPE_IPV4
                  : kind == ORNIC_L3_IPV6 ? ORNIC_ETHERTYPE_IPV6
                                          : ORNIC_ETHERTYPE_ROCEV1;
  return ornic_put_u16(p, type);
}

static uint8_t *put_ipv4(uint8_t *p, const ornic_ip *ip, size_t payload) {
  uint8_t *h = p;
  p = ornic_put_u8(p, 0x45);
  p = ornic_put_u8(p, ip->tos);
  p = ornic_put_u16(p, (uint16_t)(IPV4_LEN + payload));
  p = ornic_put_u16(p, ip->id);
  p = ornic_put_u16(p, ip->frag);
  p = ornic_put_u8(p, ip->ttl);
  p = ornic_put_u8(p, ORNIC_IPPROTO_UDP);
  p = ornic_put_u16(p, 0);
  memcpy(p, ip->src, 4);
  memcpy(p + 4, ip->dst, 4);
  ornic_put_u16(h + 10, (uint16_t)~ornic_csum_fold(ornic_csum_add(0, h, IPV4_LEN)));
  return p + 8;
}

static uint8_t *put_ipv6(uint8_t *p, const ornic_ip *ip, size_t payload, uint8_t next) {
  p = ornic_put_u32(p, 6u << 28 | (uint32_t)ip->tos << 20 | ip->flow_label);
  p = ornic_put_u16(p, (uint16_t)payload);
  p = ornic_put_u8(p, next);
  p = ornic_put_u8(p, ip->ttl);
  memcpy(p, ip->src, 16);
  memcpy(p + 16, ip->dst, 16);
  return p + 32;
}

/* RFC 8200 8.1: IPv6 forbids a zero UDP checksum, so compute it there. */
static void put_udp6_checksum(uint8_t *ip6, uint8_t *udp, size_t udp_len) {
  uint8_t pseudo[8] = {0};
  ornic_put_u32(pseudo, (uint32_t)udp_len);
  pseudo[7] = ORNIC_IPPROTO_UDP;
  uint32_t s = ornic_csum_add(0, ip6 + 8, 32);
  s = ornic_csum_add(s, pseudo, sizeof pseudo);
  s = ornic_csum_add(s, udp, udp_len);
  uint16_t c = (uint16_t)~ornic_csum_fold(s);
  ornic_put_u16(udp + 6, c ? c : 0xffff);
}

/* plan() has checked the BTH and header values. */
static uint8_t *put_transport(uint8_t *p, const ornic_frame *f, const layout *lo) {
  ornic_bth bth = f->bth;
  bth.padcnt = lo->pad;
  p += ornic_bth_encode(p, ORNIC_BTH_LEN, &bth);
  memset(p, 0, lo->dc); /* the DC bytes: ornic_frame holds no value of them (opcode.h) */
  p += lo->dc;
  p += ornic_ext_encode(p, lo->ext, &f->ext, ornic_opcode_info_get(bth.opcode)->hdrs);
  if (lo->payload) memcpy(p, f->payload, lo->payload);
  p += lo->payload;
  memset(p, 0, lo->pad);
  return p + lo->pad;
}

size_t ornic_frame_encode_capacity(const ornic_frame *f) {
  if (f->link == ORNIC_LINK_IB) return ornic_ib_frame_encode_capacity(f); /* ornic_ib.c */
  layout lo;
  if (plan(f, &lo) < 0) return 0;
  return lo.l2 + lo.l3 + lo.l4 + lo.roce;
}

ornic_ssize ornic_frame_encode(uint8_t *out, size_t cap, const ornic_frame *f) {
  if (f->link == ORNIC_LINK_IB) return ornic_ib_frame_encode(out, cap, f); /* ornic_ib.c */
  layout lo;
  int rc = plan(f, &lo);
  if (rc < 0) return rc;
  size_t total = lo.l2 + lo.l3 + lo.l4 + lo.roce;
  if (cap < total) return ORNIC_ERR_NOBUF;
  uint8_t *p = out;
  if (lo.l2) p = put_eth(p, f, lo.kind);
  uint8_t *l3 = p;
  size_t after_ip = lo.l4 + lo.roce;
  if (lo.kind == ORNIC_L3_IPV4)
    p = put_ipv4(p, &f->ip, after_ip);
  else
    p = put_ipv6(p, &f->ip, after_ip,
                 lo.kind == ORNIC_L3_GRH ? ORNIC_GRH_NXTHDR_BTH : ORNIC_IPPROTO_UDP);
  uint8_t *udp = p;
  if (lo.l4) {
    p = ornic_put_u16(p, f->udp.sport);
    p = ornic_put_u16(p, f->udp.dport ? f->udp.dport : ORNIC_ROCEV2_UDP_PORT);
    p = ornic_put_u16(p, (uint16_t)after_ip);
    p = ornic_put_u16(p, 0);
  }
  p = put_transport(p, f, &lo);
  size_t icrc_rel = (size_t)(p - l3);
  uint32_t icrc = ornic_icrc_calc(l3, lo.kind, lo.l3 + lo.l4, icrc_rel);
  p = ornic_put_u32le(p, icrc);
  /* The UDP checksum is masked out of the iCRC, so it can be filled last. */
  if (lo.kind == ORNIC_L3_IPV6) put_udp6_checksum(l3, udp, after_ip);
  return (ornic_ssize)(p - out);
}

void ornic_frame_init(ornic_frame *f, ornic_link link, int ip_version) {
  static const uint8_t mac_dst[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  static const uint8_t mac_src[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  memset(f, 0, sizeof *f);
  f->link = link;
  memcpy(f->eth.dst, mac_dst, 6);
  memcpy(f->eth.src, mac_src, 6);
  f->ip.version = (uint8_t)(link == ORNIC_LINK_GRH ? 6 : ip_version);
  f->ip.ttl = 64;
  f->ip.frag = 0x4000; /* DF, as RoCE NICs send */
  if (f->ip.version == 4) {
    memcpy(f->ip.src, (const uint8_t[]){10, 0, 0, 1}, 4);
    memcpy(f->ip.dst, (const uint8_t[]){10, 0, 0, 2}, 4);
  } else {
    f->ip.src[0] = f->ip.dst[0] = 0xfd;
    f->ip.src[15] = 1;
    f->ip.dst[15] = 2;
  }
  f->udp.sport = 49152;
  f->udp.dport = ORNIC_ROCEV2_UDP_PORT;
  f->bth.pkey = 0xffff;
}
