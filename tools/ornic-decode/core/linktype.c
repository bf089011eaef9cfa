/* SPDX-License-Identifier: MIT */
/* Link types. Ethernet (with its optional 802.1Q tag and RoCEv1's EtherType
 * 0x8915) is the library's business; raw IP starts at byte 0. Linux cooked
 * captures (`tcpdump -i any`) carry a protocol field instead of an Ethernet
 * header: IP becomes ORNIC_LINK_RAW_IP and 0x8915 ORNIC_LINK_GRH at the end
 * of the cooked header. Native InfiniBand (LINKTYPE_INFINIBAND) starts at the
 * LRH; an ERF record (LINKTYPE_ERF, Endace DAG cards) is decoded by its own
 * record type: InfiniBand, Ethernet or IP, after the ERF header. */
#include "linktype.h"

#include <pcap/pcap.h>

#define SLL_LEN 16 /* pkttype 2, hatype 2, halen 2, addr 8, protocol 2 */
#define SLL_PROTO_OFF 14
#define SLL2_LEN 20 /* protocol 2, resv 2, ifindex 4, hatype 2, pkttype 1, halen 1, addr 8 */
#define SLL2_PROTO_OFF 0
#define VLAN_TAG_LEN 4
#define LINKTYPE_RAW_VALUE 101 /* what libpcap maps to DLT_RAW; accepted in case it does not */
#ifndef DLT_ERF
#define DLT_ERF 197
#endif
#ifndef DLT_INFINIBAND
#define DLT_INFINIBAND 247
#endif

/* ERF (Wireshark's wiretap/erf_record.h): a 16-byte header (timestamp 8 LE,
 * type 1, flags 1, rlen 2, lctr 2, wlen 2, big-endian), then 8-byte extension
 * headers while bit 7 of the type (then of each extension header's first
 * byte) is set, then a sub-header that depends on the type, then the packet;
 * records are padded (rlen), and the packet's length on the wire is wlen. */
#define ERF_HDR_LEN 16
#define ERF_EXT_LEN 8
#define ERF_ETH_PAD_LEN 2 /* offset and pad bytes before an Ethernet frame */
enum {
  ERF_TYPE_ETH = 2,
  ERF_TYPE_COLOR_ETH = 11,
  ERF_TYPE_DSM_COLOR_ETH = 16,
  ERF_TYPE_COLOR_HASH_ETH = 20,
  ERF_TYPE_INFINIBAND = 21,
  ERF_TYPE_IPV4 = 22,
  ERF_TYPE_IPV6 = 23,
  ERF_TYPE_INFINIBAND_LINK = 25 /* link packets (flow control): no BTH, not decoded */
};

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

bool dec_link_supported(int dlt) {
  switch (dlt) {
  case DLT_EN10MB:
  case DLT_RAW:
  case LINKTYPE_RAW_VALUE:
  case DLT_IPV4:
  case DLT_IPV6:
  case DLT_LINUX_SLL:
  case DLT_LINUX_SLL2:
  case DLT_INFINIBAND:
  case DLT_ERF: return true;
  default: return false;
  }
}

/* A cooked header's protocol field. The kernel usually strips VLAN tags
 * before a cooked capture sees them, but one may remain: skip it. */
static int locate_cooked(const uint8_t *d, size_t caplen, size_t hdr, size_t proto_off,
                         ornic_link *link, size_t *off) {
  if (caplen < hdr) return DEC_LINK_TRUNCATED;
  uint16_t proto = be16(d + proto_off);
  if (proto == ORNIC_ETHERTYPE_VLAN || proto == ORNIC_ETHERTYPE_QINQ) {
    if (caplen < hdr + VLAN_TAG_LEN) return DEC_LINK_TRUNCATED;
    proto = be16(d + hdr + 2);
    hdr += VLAN_TAG_LEN;
  }
  switch (proto) {
  case ORNIC_ETHERTYPE_IPV4:
  case ORNIC_ETHERTYPE_IPV6: *link = ORNIC_LINK_RAW_IP; break;
  case ORNIC_ETHERTYPE_ROCEV1: *link = ORNIC_LINK_GRH; break;
  default: return DEC_LINK_NOT_ROCE;
  }
  *off = hdr;
  return DEC_LINK_OK;
}

/* One ERF record: where its packet starts and what it is. Records of other
 * types (INFINIBAND_LINK flow-control packets, PAD, ATM, HDLC, ...) carry no
 * RoCE or IBA transport packet: not RoCE. */
static int locate_erf(const uint8_t *d, size_t caplen, ornic_link *link, size_t *off) {
  if (caplen < ERF_HDR_LEN) return DEC_LINK_TRUNCATED;
  size_t hdr = ERF_HDR_LEN;
  for (uint8_t more = d[8] & 0x80; more; hdr += ERF_EXT_LEN) {
    if (caplen < hdr + ERF_EXT_LEN) return DEC_LINK_TRUNCATED;
    more = d[hdr] & 0x80;
  }
  switch (d[8] & 0x7f) {
  case ERF_TYPE_INFINIBAND: *link = ORNIC_LINK_IB; break;
  case ERF_TYPE_ETH:
  case ERF_TYPE_COLOR_ETH:
  case ERF_TYPE_DSM_COLOR_ETH:
  case ERF_TYPE_COLOR_HASH_ETH:
    hdr += ERF_ETH_PAD_LEN;
    if (caplen < hdr) return DEC_LINK_TRUNCATED;
    *link = ORNIC_LINK_ETHERNET;
    break;
  case ERF_TYPE_IPV4:
  case ERF_TYPE_IPV6: *link = ORNIC_LINK_RAW_IP; break;
  default: return DEC_LINK_NOT_ROCE;
  }
  *off = hdr;
  return DEC_LINK_OK;
}

int dec_link_locate(int dlt, const uint8_t *d, size_t caplen, ornic_link *link, size_t *off) {
  switch (dlt) {
  case DLT_EN10MB:
    *link = ORNIC_LINK_ETHERNET;
    *off = 0;
    return DEC_LINK_OK;
  case DLT_LINUX_SLL: return locate_cooked(d, caplen, SLL_LEN, SLL_PROTO_OFF, link, off);
  case DLT_LINUX_SLL2: return locate_cooked(d, caplen, SLL2_LEN, SLL2_PROTO_OFF, link, off);
  case DLT_INFINIBAND:
    *link = ORNIC_LINK_IB;
    *off = 0;
    return DEC_LINK_OK;
  case DLT_ERF: return locate_erf(d, caplen, link, off);
  case DLT_RAW:
  case LINKTYPE_RAW_VALUE:
  case DLT_IPV4:
  case DLT_IPV6:
    *link = ORNIC_LINK_RAW_IP;
    *off = 0;
    return DEC_LINK_OK;
  default: return DEC_LINK_NOT_ROCE; /* a pcapng interface of another link type */
  }
}
