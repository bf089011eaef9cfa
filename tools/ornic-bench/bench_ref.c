/* SPDX-License-Identifier: MIT */
/* The reference parse of bench_ref.h: hand-written, straight-line, one pass,
 * no partial results. It exists to be measured beside ornic_frame_decode. */
#include "bench_ref.h"

#include "ornic/ornic.h"

#define ETH_LEN 14
#define VLAN_LEN 4
#define IPV4_MIN_LEN 20
#define IPV6_LEN 40
#define UDP_LEN 8

enum { REF_KNOWN = 1, REF_PAYLOAD = 2, REF_ORNIC = 4, REF_NAK = 8 };

/* Per opcode: what the parse needs, precomputed from ornic_opcode_info. */
typedef struct {
  uint16_t hdrs;
  uint8_t ext_len; /* fixed bytes of the extension headers (NAKETH without blocks) */
  uint8_t nak_off; /* the NAKETH's offset among them, when REF_NAK */
  uint8_t flags;   /* REF_* */
} ref_op;

static ref_op ref_ops[256];

void bench_ref_init(void) {
  for (unsigned i = 0; i < 256; i++) {
    const ornic_opcode_info *info = ornic_opcode_info_get((uint8_t)i);
    if (!info->name) continue;
    ornic_ext e = {0}; /* nblocks 0: ornic_ext_size counts the NAKETH's fixed part */
    ref_op *r = &ref_ops[i];
    r->hdrs = info->hdrs;
    r->ext_len = (uint8_t)ornic_ext_size(&e, info->hdrs);
    r->nak_off = (uint8_t)ornic_ext_size(&e, info->hdrs & (ORNIC_HDR_NAKETH - 1));
    r->flags = (uint8_t)(REF_KNOWN | (info->flags & ORNIC_OPF_PAYLOAD ? REF_PAYLOAD : 0) |
                         (info->transport == ORNIC_TRANSPORT_ORNIC ? REF_ORNIC : 0) |
                         (info->hdrs & ORNIC_HDR_NAKETH ? REF_NAK : 0));
  }
}

static inline size_t be16(const uint8_t *p) { return (size_t)p[0] << 8 | p[1]; }
static inline uint32_t be24(const uint8_t *p) {
  return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* The UDP header's offset (0: reject) and the IP datagram's end. */
static size_t ref_ip(const uint8_t *p, size_t len, size_t off, size_t type, size_t *ip_end) {
  const uint8_t *ip = p + off;
  if (type == ORNIC_ETHERTYPE_IPV4) {
    if (len < off + IPV4_MIN_LEN) return 0;
    size_t ihl = (size_t)(ip[0] & 0x0f) * 4, total = be16(ip + 2);
    if (ip[0] >> 4 != 4 || ihl < IPV4_MIN_LEN || ip[9] != ORNIC_IPPROTO_UDP || total < ihl ||
        (be16(ip + 6) & 0x3fff) || len < off + ihl)
      return 0;
    *ip_end = off + total;
    return off + ihl;
  }
  if (type != ORNIC_ETHERTYPE_IPV6 || len < off + IPV6_LEN) return 0;
  if (ip[0] >> 4 != 6 || ip[6] != ORNIC_IPPROTO_UDP) return 0;
  *ip_end = off + IPV6_LEN + be16(ip + 4);
  return off + IPV6_LEN;
}

/* BTH at bth, iCRC ending at end (both inside the bytes). */
static int ref_transport(bench_ref_pkt *out, const uint8_t *p, size_t bth, size_t end) {
  const uint8_t *b = p + bth;
  const ref_op *op = &ref_ops[b[0]];
  size_t ext = bth + ORNIC_BTH_LEN, icrc = end - ORNIC_ICRC_LEN, hdr_end = ext + op->ext_len;
  if (!(op->flags & REF_KNOWN) || hdr_end > icrc) return -1;
  if (op->flags & REF_NAK) {
    size_t nblocks = p[ext + op->nak_off + 4];
    hdr_end += 2 * nblocks;
    if (!nblocks || hdr_end > icrc) return -1;
  }
  if ((op->flags & REF_ORNIC) && (icrc - ext) % 4) return -1;
  size_t pad = (b[1] >> 4) & 3, body = icrc - hdr_end;
  if (pad > body || (body > pad && !(op->flags & REF_PAYLOAD))) return -1;
  out->payload = p + hdr_end;
  out->payload_len = (uint32_t)(body - pad);
  out->opcode = b[0];
  out->destqp = be24(b + 5);
  out->psn = be24(b + 9);
  out->hdrs = op->hdrs;
  return 0;
}

int bench_ref_parse(bench_ref_pkt *out, const uint8_t *p, size_t len) {
  if (len < ETH_LEN) return -1;
  size_t off = ETH_LEN, type = be16(p + 12), ip_end = 0;
  if (type == ORNIC_ETHERTYPE_VLAN || type == ORNIC_ETHERTYPE_QINQ) {
    if (len < ETH_LEN + VLAN_LEN) return -1;
    type = be16(p + 16);
    off += VLAN_LEN;
  }
  size_t udp = ref_ip(p, len, off, type, &ip_end);
  if (!udp || ip_end < udp + UDP_LEN || len < ip_end) return -1;
  /* The UDP length must end the IP datagram (ornic_frame_decode calls any
   * other length malformed) and leave room for BTH and iCRC. */
  if (be16(p + udp + 2) != ORNIC_ROCEV2_UDP_PORT || udp + be16(p + udp + 4) != ip_end ||
      ip_end < udp + UDP_LEN + ORNIC_BTH_LEN + ORNIC_ICRC_LEN)
    return -1;
  out->sport = (uint16_t)be16(p + udp);
  return ref_transport(out, p, udp + UDP_LEN, ip_end);
}
