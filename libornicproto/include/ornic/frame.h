/* SPDX-License-Identifier: MIT */
/* Whole RoCE frames: decode into a caller-owned struct, encode into a caller buffer. */
#ifndef ORNIC_FRAME_H
#define ORNIC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ornic/export.h"
#include "ornic/headers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the frame's bytes start. */
typedef enum {
  ORNIC_LINK_ETHERNET = 0, /* Ethernet II, at most one 802.1Q/802.1ad tag */
  ORNIC_LINK_RAW_IP = 1,   /* IPv4 or IPv6 header first (version nibble decides) */
  ORNIC_LINK_GRH = 2,      /* RoCEv1: IBA GRH first (EtherType 0x8915 stripped) */
  ORNIC_LINK_IB = 3        /* native InfiniBand: LRH first, VCRC last (LINKTYPE_INFINIBAND) */
} ornic_link;

typedef enum { ORNIC_L3_NONE = 0, ORNIC_L3_IPV4 = 4, ORNIC_L3_IPV6 = 6, ORNIC_L3_GRH = 1 } ornic_l3;

#define ORNIC_ETHERTYPE_IPV4 0x0800
#define ORNIC_ETHERTYPE_IPV6 0x86DD
#define ORNIC_ETHERTYPE_VLAN 0x8100
#define ORNIC_ETHERTYPE_QINQ 0x88A8
#define ORNIC_ETHERTYPE_ROCEV1 0x8915
#define ORNIC_IPPROTO_UDP 17
#define ORNIC_GRH_NXTHDR_BTH 0x1B

typedef struct {
  uint8_t dst[6], src[6];
  bool has_vlan;
  uint16_t vlan_tpid; /* 0x8100 or 0x88A8 */
  uint16_t vlan_tci;
  uint16_t ethertype; /* of the payload, after any tag */
} ornic_eth;

/* IPv4, IPv6 or GRH (which has IPv6's layout). Addresses: IPv4 uses the
 * first 4 bytes. Derived fields (lengths, checksum) are filled by decode and
 * recomputed by encode. */
typedef struct {
  uint8_t version;     /* 4 or 6 (GRH: 6) */
  uint8_t tos;         /* IPv4 TOS / IPv6 traffic class */
  uint8_t ttl;         /* IPv4 TTL / IPv6 hop limit */
  uint32_t flow_label; /* IPv6/GRH, 20 bits */
  uint16_t id;         /* IPv4 */
  uint16_t frag;       /* IPv4 flags + fragment offset (DF = 0x4000) */
  uint8_t next_proto;  /* 17, or 0x1B in a GRH */
  uint8_t hdr_len;     /* decode: bytes of IP header incl. IPv4 options */
  uint32_t total_len;  /* decode: IPv4 total length / IPv6 40 + payload length */
  uint16_t checksum;   /* decode: as on the wire */
  uint8_t src[16], dst[16];
} ornic_ip;

typedef struct {
  uint16_t sport, dport, len, checksum;
} ornic_udp;

/* Native InfiniBand Local Route Header (IBA 7.7), 8 bytes; see ornic/ib.h. */
typedef struct {
  uint8_t vl;      /* 4 bits: virtual lane (variant: the iCRC covers it as ones) */
  uint8_t lver;    /* 4 bits: link version, 0 */
  uint8_t sl;      /* 4 bits: service level */
  uint8_t resv2;   /* 2 bits */
  uint8_t lnh;     /* 2 bits: link next header, ORNIC_LNH_* */
  uint16_t dlid;   /* destination LID */
  uint8_t resv5;   /* 5 bits */
  uint16_t pktlen; /* 11 bits: 4-byte words from the LRH's first byte through the iCRC (no VCRC) */
  uint16_t slid;   /* source LID */
} ornic_lrh;

/* LRH LNH values (IBA 7.7). Only 2 and 3 carry a BTH. */
enum {
  ORNIC_LNH_RAW = 0,       /* raw packet: no IBA transport headers */
  ORNIC_LNH_IP = 1,        /* IP, non-IBA transport */
  ORNIC_LNH_IBA_LOCAL = 2, /* BTH follows the LRH */
  ORNIC_LNH_IBA_GLOBAL = 3 /* GRH, then BTH */
};

/* The decoder rules (docs/PROTOCOL.md section 5) a frame breaks: bits of
 * ornic_frame.malformed. Decode sets one or more exactly when it returns
 * ORNIC_ERR_MALFORMED; a frame can break several (a short UDP length and
 * then a PadCnt that does not fit, ...). */
enum {
  ORNIC_MAL_IP_HEADER = 1u << 0, /* D1: IP version or IPv4 IHL (< 5) wrong; nothing after it read */
  ORNIC_MAL_IP_LEN = 1u << 1,    /* D3: the IP datagram ends before its UDP header does (IPv4
                                     total length < IHL*4 + 8, IPv6 payload length < 8); no UDP */
  ORNIC_MAL_UDP_SHORT = 1u << 2, /* D3: UDP length < the IP payload: bytes of the IP datagram
                                     follow the UDP datagram (the iCRC is located by UDP) */
  ORNIC_MAL_UDP_LONG = 1u << 3,  /* D3: UDP length > the IP payload: the iCRC is not located */
  ORNIC_MAL_ROCE_SHORT = 1u << 4, /* D3: the UDP payload (GRH payload) cannot hold a BTH and an
                                     iCRC, 16 bytes (UDP length < 24 included) */
  ORNIC_MAL_EXT = 1u << 5,     /* D5: the opcode's extension headers do not fit before the iCRC */
  ORNIC_MAL_PAD = 1u << 6,     /* D5: PadCnt exceeds the bytes after the headers */
  ORNIC_MAL_PAYLOAD = 1u << 7, /* D5: payload bytes on an opcode that carries none */
  ORNIC_MAL_NAK_BLOCKS = 1u << 8, /* D6: NAKETH nblocks is 0 */
  ORNIC_MAL_ALIGN = 1u << 9,      /* D7: an ORNIC opcode's BTH..iCRC is not whole 4-byte words */
  ORNIC_MAL_LRH_LEN = 1u << 10    /* D12: native IB: LRH PktLen cannot hold LRH [+ GRH] + BTH +
                                     iCRC, or disagrees with the GRH payload length */
};
#define ORNIC_MAL_COUNT 11

typedef struct {
  /* layers */
  ornic_link link;
  ornic_l3 l3;
  ornic_eth eth;
  ornic_ip ip;
  ornic_udp udp;
  ornic_bth bth;
  ornic_ext ext;
  /* views into the decoded bytes */
  const uint8_t *payload; /* without pad bytes */
  size_t payload_len;     /* on the wire, per the IP/UDP lengths */
  size_t payload_caplen;  /* of which captured (< payload_len after a snaplen cut) */
  uint8_t pad_len;        /* = bth.padcnt when the frame is whole */
  uint32_t icrc;          /* as on the wire: little-endian u32 of the 4 bytes */
  bool icrc_present;      /* the iCRC was located (icrc_off != 0) and captured */
  /* offsets from the start of the input */
  size_t l3_off, l4_off, bth_off, ext_off, payload_off;
  size_t icrc_off;    /* 0 while the lengths do not locate the iCRC */
  size_t roce_end;    /* end of the RoCE bytes per the lengths: the UDP datagram's end,
                             or the IP datagram's if that comes first (GRH: its payload
                             length); just past the iCRC when icrc_off != 0. Set once the
                             UDP header (GRH) was read */
  size_t caplen;      /* bytes given to decode */
  uint16_t malformed; /* ORNIC_MAL_* rules broken; 0 unless decode returned MALFORMED */
  uint8_t layers;     /* ORNIC_LAYER_* read whole: the one test of "was X read" (an
                             offset of 0 is a valid offset; ornic_roce_decode's BTH is at 0) */
  /* Native InfiniBand (link ORNIC_LINK_IB); appended last so that the fields
   * above keep their offsets. The GRH, when LNH is 3, is in ip/l3/l3_off. */
  ornic_lrh lrh;        /* valid when layers has ORNIC_LAYER_LRH */
  uint16_t vcrc;        /* as on the wire: little-endian u16 of the 2 bytes */
  bool vcrc_present;    /* the VCRC was located (vcrc_off != 0) and captured */
  size_t vcrc_off;      /* lrh.pktlen * 4 once the LRH was read and PktLen covers it; else 0 */
  uint64_t reserved[8]; /* docs/ABI.md: later fields come from here; decode and
                             ornic_frame_init zero it, encode ignores it */
} ornic_frame;

/* Bits of ornic_frame.layers. Extension headers read are ext.present. */
enum {
  ORNIC_LAYER_ETH = 1u << 0, /* eth (with its tag) */
  ORNIC_LAYER_L3 = 1u << 1,  /* ip: IPv4, IPv6 or GRH (see l3) */
  ORNIC_LAYER_UDP = 1u << 2, /* udp */
  ORNIC_LAYER_BTH = 1u << 3, /* bth, bth_off, ext_off */
  ORNIC_LAYER_LRH = 1u << 4  /* lrh (native InfiniBand), vcrc_off */
};

/* Decode one frame. Returns:
 *   ORNIC_OK                 every header, payload and iCRC were read (native
 *                            IB: and the VCRC; the lengths are PktLen's, PROTOCOL.md
 *                            2.7.2, and a broken one is ORNIC_MAL_LRH_LEN);
 *   ORNIC_ERR_TRUNCATED      the bytes end early (e.g. a snaplen cut): every
 *                            layer and header that was complete is filled in:
 *                            f->layers says which layers, f->ext.present
 *                            which extension headers;
 *   ORNIC_ERR_NOT_ROCE       not RoCEv2 / RoCEv1 (another EtherType, protocol or port;
 *                            native IB: LRH LNH 0 or 1, or a GRH whose next header is not
 *                            the BTH);
 *   ORNIC_ERR_MALFORMED      the frame's own lengths or fields contradict each
 *                            other; f->malformed says which rules (ORNIC_MAL_*).
 *                            Decoding goes on as far as the bytes allow, as
 *                            Wireshark does (PROTOCOL.md D3):
 *                            - IP header wrong (ORNIC_MAL_IP_HEADER), or too
 *                              short an IP datagram for UDP (ORNIC_MAL_IP_LEN):
 *                              the IP fields only;
 *                            - UDP length disagreeing with the IP length: the
 *                              RoCE bytes end where the first of the two ends
 *                              (roce_end). The BTH is read if it fits there,
 *                              then every extension header that fits. When the
 *                              UDP length ends inside the IP datagram
 *                              (ORNIC_MAL_UDP_SHORT) the iCRC is its last 4
 *                              bytes and payload and pad are decoded as in a
 *                              good frame; when it ends past it
 *                              (ORNIC_MAL_UDP_LONG), or the UDP payload cannot
 *                              hold BTH + iCRC (ORNIC_MAL_ROCE_SHORT), the
 *                              iCRC, payload and pad are not located
 *                              (icrc_off = payload_off = 0);
 *                            - headers that do not fit the opcode (D5, D6, D7):
 *                              BTH and the extension headers that fit; the
 *                              payload view only when PadCnt and payload rules
 *                              hold (f->payload != NULL);
 *                            and in every case icrc/icrc_off/icrc_present as
 *                            soon as the lengths locate the iCRC and it was
 *                            captured, so ornic_icrc_verify can tell a
 *                            corrupted frame from a sender that lays the
 *                            opcode out differently;
 *   ORNIC_ERR_UNKNOWN_OPCODE the BTH was read but its opcode has no layout
 *                            (icrc/icrc_off are still set, so the iCRC can be
 *                            verified);
 *   ORNIC_ERR_UNSUPPORTED    an IPv4 fragment (no whole UDP datagram to read);
 *   ORNIC_ERR_INVALID_ARG    `link` is not an ornic_link value.
 * A frame both malformed and cut short returns ORNIC_ERR_MALFORMED (with
 * icrc_present false and payload_caplen < payload_len as after a cut), and
 * so does one with an unknown opcode whose lengths break D3.
 * `udp_port` is the UDP destination port to accept: ORNIC_ROCEV2_UDP_PORT
 * (4791) for RoCEv2, another port for a test bed that moved it, or
 * ORNIC_UDP_PORT_ANY (0) to take every UDP datagram as RoCEv2 (a caller that
 * already chose the datagram, like a Wireshark dissector registered on a
 * port). f and data must be non-NULL (data may be anything when len is 0).
 * The iCRC is not verified here: see ornic_icrc_verify. Never allocates. */
#define ORNIC_UDP_PORT_ANY 0
ORNIC_API int ornic_frame_decode(ornic_frame *f, const uint8_t *data, size_t len, ornic_link link,
                                 uint16_t udp_port);

/* Same, but starts at the BTH of a UDP payload: layers has no ETH, L3 or UDP
 * bit, the BTH is at offset 0 (ORNIC_LAYER_BTH says whether it was read), the
 * RoCE bytes end at `len`, and no iCRC can be computed without the IP header
 * (ornic_icrc_compute_at can, given it). Same return codes. */
ORNIC_API int ornic_roce_decode(ornic_frame *f, const uint8_t *udp_payload, size_t len);

/* For bit i of ORNIC_MAL_* (0 <= i < ORNIC_MAL_COUNT): a stable identifier
 * ("udp_short", ...) and the PROTOCOL.md section 5 rule ("D3"); NULL out of
 * range. */
ORNIC_API const char *ornic_mal_name(unsigned i);
ORNIC_API const char *ornic_mal_rule(unsigned i);

/* Writes into buf (NUL-terminated, cut to len) one sentence per rule f
 * breaks (f->malformed), in wire order, with the lengths that contradict
 * each other, e.g. "UDP length 28 is shorter than the 88-byte IP payload:
 * 60 bytes after the UDP datagram (D3)"; sentences are joined by "; ".
 * Returns the length the whole text needs (as snprintf), 0 when f->malformed
 * is 0. f must come from ornic_frame_decode/ornic_roce_decode. */
ORNIC_API size_t ornic_frame_explain_malformed(const ornic_frame *f, char *buf, size_t len);

/* Build a complete frame from f's value fields: link (with l3 =
 * ORNIC_L3_GRH, an ORNIC_LINK_ETHERNET frame is RoCEv1 behind EtherType
 * 0x8915, as decode reports it; any other l3 is ignored), eth (ethertype is
 * derived), ip (version, tos, ttl, flow_label, id, frag, src, dst), udp
 * (sport, dport; 0 means 4791), bth (padcnt is derived), ext (the headers the
 * opcode requires; `present` is ignored), payload/payload_len. Lengths, the
 * IPv4 checksum, PadCnt, the UDP checksum (0 on IPv4; computed on IPv6,
 * where 0 is illegal) and the iCRC are computed. Returns the frame size, or
 * ORNIC_ERR_UNKNOWN_OPCODE (no layout for bth.opcode), ORNIC_ERR_INVALID_ARG
 * (a value does not fit its field, payload bytes on an opcode without
 * payload, payload_len without payload, no IP version, a fragment offset, an
 * unknown VLAN TPID, a frame over 64 KiB), ORNIC_ERR_NOBUF (cap too small;
 * ornic_frame_encode_capacity says how much is needed). Everything is checked
 * before the first byte is written: after an error `out` is untouched.
 * ORNIC_LINK_IB (native InfiniBand, ornic/ib.h): lrh (vl, lver, sl, resv2,
 * dlid, resv5, slid; lnh and pktlen are derived), a GRH from ip (tos, ttl,
 * flow_label, src, dst GIDs) when l3 is ORNIC_L3_GRH, then bth, ext and
 * payload as above; the iCRC and the VCRC are computed (PktLen is 11 bits:
 * a larger packet is ORNIC_ERR_INVALID_ARG).
 * No other field is read: decode's outputs (payload_caplen, pad_len, the
 * iCRC and VCRC, the offsets, caplen, malformed, layers) may hold anything.
 * out and f must be non-NULL. */
ORNIC_API ornic_ssize ornic_frame_encode(uint8_t *out, size_t cap, const ornic_frame *f);

/* The bytes ornic_frame_encode will write for f, or 0 when it would fail
 * with UNKNOWN_OPCODE or INVALID_ARG. */
ORNIC_API size_t ornic_frame_encode_capacity(const ornic_frame *f);

/* Fill f with sensible defaults for `link`/`ip_version`: addresses 10.0.0.1 ->
 * 10.0.0.2 (fd00::1 -> fd00::2), TTL 64, UDP 49152 -> 4791, P_Key 0xffff. */
ORNIC_API void ornic_frame_init(ornic_frame *f, ornic_link link, int ip_version);

#ifdef __cplusplus
}
#endif
#endif
