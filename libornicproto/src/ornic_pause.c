/* SPDX-License-Identifier: MIT */
/* MAC Control PAUSE and PFC frames (ornic/pause.h, docs/PROTOCOL.md 2.9):
 * the Ethernet header and its tags (TPIDs 0x8100 and 0x88A8, as
 * ornic_frame_decode reads them, but up to two: a switch port mirrored with
 * its outer tag keeps the inner one), then EtherType 0x8808, the opcode and
 * its fields. Each step checks its bytes once before it reads them. The
 * encoder writes the same layout, untagged, padded to the minimum frame. */
#include <stdbool.h>
#include <string.h>

#include "ornic/errors.h"
#include "ornic/pause.h"
#include "ornic_conv.h"

#define ETH_LEN 14
#define VLAN_LEN 4
#define MAX_TAGS 2
#define OPCODE_LEN 2
#define PAUSE_LEN 2                           /* pause_time */
#define PFC_LEN (2 + 2 * ORNIC_PAUSE_CLASSES) /* priority-enable vector, 8 times */

/* The opcode's fields, from p (just after the opcode), n bytes of them. */
static int decode_fields(ornic_pause *out, const uint8_t *p, size_t n) {
  if (out->opcode == ORNIC_PAUSE_OP_PAUSE) {
    if (n < PAUSE_LEN) return ORNIC_ERR_TRUNCATED;
    out->quanta[0] = ornic_get_u16(p);
    return ORNIC_OK;
  }
  if (out->opcode == ORNIC_PAUSE_OP_PFC) {
    if (n < PFC_LEN) return ORNIC_ERR_TRUNCATED;
    out->enable = ornic_get_u16(p);
    for (size_t i = 0; i < ORNIC_PAUSE_CLASSES; i++) out->quanta[i] = ornic_get_u16(p + 2 + 2 * i);
    return ORNIC_OK;
  }
  return ORNIC_ERR_UNSUPPORTED;
}

int ornic_pause_decode(const uint8_t *pkt, size_t len, ornic_link link, ornic_pause *out) {
  memset(out, 0, sizeof *out);
  switch (link) {
  case ORNIC_LINK_ETHERNET: break;
  case ORNIC_LINK_RAW_IP:
  case ORNIC_LINK_GRH:
  case ORNIC_LINK_IB: return ORNIC_ERR_NOT_ROCE; /* no MAC Control on these links */
  default: return ORNIC_ERR_INVALID_ARG;
  }
  if (len < ETH_LEN) return ORNIC_ERR_TRUNCATED;
  memcpy(out->dst, pkt, 6);
  memcpy(out->src, pkt + 6, 6);
  size_t off = ETH_LEN - 2; /* the EtherType or the first tag's TPID */
  uint16_t type = ornic_get_u16(pkt + off);
  for (int tags = 0; type == ORNIC_ETHERTYPE_VLAN || type == ORNIC_ETHERTYPE_QINQ; tags++) {
    if (tags == MAX_TAGS) return ORNIC_ERR_NOT_ROCE;
    off += VLAN_LEN;
    if (len < off + 2) return ORNIC_ERR_TRUNCATED;
    type = ornic_get_u16(pkt + off);
  }
  if (type != ORNIC_ETHERTYPE_MAC_CONTROL) return ORNIC_ERR_NOT_ROCE;
  off += 2;
  if (len - off < OPCODE_LEN) return ORNIC_ERR_TRUNCATED;
  out->opcode = ornic_get_u16(pkt + off);
  off += OPCODE_LEN;
  return decode_fields(out, pkt + off, len - off);
}

/* 802.1Q clause 36 / 802.3 Annex 31B: the reserved multicast address of MAC
 * Control, which a bridge does not forward. */
static const uint8_t mac_control_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

static bool all_zero(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return false;
  return true;
}

ornic_ssize ornic_pause_encode(uint8_t *out, size_t cap, const ornic_pause *in) {
  if (in->opcode != ORNIC_PAUSE_OP_PAUSE && in->opcode != ORNIC_PAUSE_OP_PFC)
    return ORNIC_ERR_INVALID_ARG;
  if (cap < ORNIC_PAUSE_FRAME_LEN) return ORNIC_ERR_NOBUF;
  memset(out, 0, ORNIC_PAUSE_FRAME_LEN); /* the padding */
  memcpy(out, all_zero(in->dst, 6) ? mac_control_dst : in->dst, 6);
  memcpy(out + 6, in->src, 6);
  uint8_t *p = ornic_put_u16(out + ETH_LEN - 2, ORNIC_ETHERTYPE_MAC_CONTROL);
  p = ornic_put_u16(p, in->opcode);
  if (in->opcode == ORNIC_PAUSE_OP_PAUSE) {
    ornic_put_u16(p, in->quanta[0]);
  } else {
    p = ornic_put_u16(p, in->enable);
    for (size_t i = 0; i < ORNIC_PAUSE_CLASSES; i++) p = ornic_put_u16(p, in->quanta[i]);
  }
  return ORNIC_PAUSE_FRAME_LEN;
}

uint64_t ornic_pause_ns(uint16_t q, uint32_t gbps) {
  if (!gbps) return 0;
  uint64_t bits = (uint64_t)q * ORNIC_PAUSE_QUANTUM_BITS;
  return (bits + gbps / 2) / gbps;
}
