/* Link types. Ethernet (with its optional 802.1Q tag and RoCEv1's EtherType
 * 0x8915) is the library's business; raw IP starts at byte 0. Linux cooked
 * captures (`tcpdump -i any`) carry a protocol field instead of an Ethernet
 * header: IP becomes ORNIC_LINK_RAW_IP and 0x8915 ORNIC_LINK_GRH at the end
 * of the cooked header. */
#include "linktype.h"

#include <pcap/pcap.h>

#define SLL_LEN 16      /* pkttype 2, hatype 2, halen 2, addr 8, protocol 2 */
#define SLL_PROTO_OFF 14
#define SLL2_LEN 20     /* protocol 2, resv 2, ifindex 4, hatype 2, pkttype 1, halen 1, addr 8 */
#define SLL2_PROTO_OFF 0
#define VLAN_TAG_LEN 4
#define LINKTYPE_RAW_VALUE 101 /* what libpcap maps to DLT_RAW; accepted in case it does not */

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

bool dec_link_supported(int dlt) {
  switch (dlt) {
  case DLT_EN10MB:
  case DLT_RAW:
  case LINKTYPE_RAW_VALUE:
  case DLT_IPV4:
  case DLT_IPV6:
  case DLT_LINUX_SLL:
  case DLT_LINUX_SLL2: return true;
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

int dec_link_locate(int dlt, const uint8_t *d, size_t caplen, ornic_link *link, size_t *off) {
  switch (dlt) {
  case DLT_EN10MB:
    *link = ORNIC_LINK_ETHERNET;
    *off = 0;
    return DEC_LINK_OK;
  case DLT_LINUX_SLL: return locate_cooked(d, caplen, SLL_LEN, SLL_PROTO_OFF, link, off);
  case DLT_LINUX_SLL2: return locate_cooked(d, caplen, SLL2_LEN, SLL2_PROTO_OFF, link, off);
  default: /* the raw IP family */
    *link = ORNIC_LINK_RAW_IP;
    *off = 0;
    return DEC_LINK_OK;
  }
}
