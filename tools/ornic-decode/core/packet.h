/* SPDX-License-Identifier: MIT */
/* One captured frame run through the codec, with the verdicts every output
 * needs: RoCE or skipped (and why), error text, iCRC state. */
#ifndef DEC_PACKET_H
#define DEC_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ornic/analysis.h>
#include <ornic/ornic.h>
#include <pcap/pcap.h>

typedef enum {
  DEC_CLASS_ROCE,    /* the BTH was read (headers after it may be missing) */
  DEC_CLASS_SKIPPED, /* not RoCE, or not decodable as RoCE (see dec_skip) */
  DEC_CLASS_BROKEN   /* damaged before the BTH: error text, no BTH */
} dec_class;

typedef enum {
  DEC_SKIP_NONE,
  DEC_SKIP_NOT_ROCE, /* another protocol, UDP port or link-layer type */
  DEC_SKIP_FRAGMENT, /* an IPv4 fragment: the UDP datagram is not whole */
  DEC_SKIP_SNAPLEN,  /* snaplen cut the frame before its BTH */
  DEC_SKIP_UNSUPPORTED,
  DEC_SKIP_PAUSE, /* an 802.3x PAUSE or 802.1Qbb PFC frame: pause (ornic/pause.h) */
  DEC_SKIP_COUNT
} dec_skip;

typedef enum {
  DEC_ICRC_OK,
  DEC_ICRC_BAD,
  DEC_ICRC_NA,       /* not verifiable: cut by snaplen, or the frame is broken */
  DEC_ICRC_UNCHECKED /* --no-icrc */
} dec_icrc;

typedef struct {
  int dlt;
  uint16_t udp_port; /* 0: 4791 */
  bool verify_icrc;
  uint32_t pmtu;  /* the QPs' PMTU when given (--pmtu), for lint rules L11, L12; else 0 */
  bool pcapng;    /* timestamps are pcapng's 64-bit ones, not a pcap record's 32-bit seconds */
  bool later_crc; /* leave the iCRC and VCRC to dec_packet_crc (--threads: on the other thread) */
} dec_decode_cfg;

typedef struct {
  uint64_t frame; /* 1-based record number */
  int64_t sec;
  uint32_t nsec;
  uint32_t caplen, wire_len;
  size_t link_off; /* bytes of link header before what the library decoded */
  bool snap_cut;   /* caplen < wire_len: the capture kept only a prefix */
  dec_class cls;
  dec_skip skip;
  int rc;           /* ornic_frame_decode's result */
  bool has_vlan;    /* f.eth.vlan_tci valid */
  bool has_l3;      /* f.ip addresses valid */
  bool has_udp;     /* f.udp valid */
  bool has_bth;     /* f.bth valid */
  bool has_payload; /* f.payload_len / payload_caplen valid */
  dec_icrc icrc;
  uint32_t icrc_want;
  dec_icrc vcrc; /* native InfiniBand: the VCRC's state, as icrc's; else n/a */
  uint16_t vcrc_want;
  uint32_t warnings; /* ORNIC_LINT_* (ornic/lint.h) */
  const char *error; /* NULL, or text (may point into errbuf) */
  bool crc_pending;  /* later_crc: dec_packet_crc has the iCRC and VCRC to check */
  /* Everything above is zeroed per frame by dec_packet_decode. */
  char errbuf[320]; /* several malformed rules can be named at once */
  ornic_frame f;
  ornic_pause pause; /* skip DEC_SKIP_PAUSE: the PAUSE or PFC frame; else stale */
  bool analysed;     /* an valid: the conversation engine saw the packet (analysis.h) */
  ornic_an_verdict an;
  uint32_t in_flight; /* with an: its direction's request PSNs not yet acknowledged after it
                       * (ornic_analysis_in_flight, docs/PROTOCOL.md 8.9) */
} dec_packet;

void dec_packet_decode(dec_packet *pk, const dec_decode_cfg *cfg, uint64_t frame,
                       const struct pcap_pkthdr *h, const uint8_t *data);

/* With cfg->later_crc, the iCRC and VCRC verdicts dec_packet_decode left
 * out; data is the record's bytes it was given. Nothing without. */
void dec_packet_crc(dec_packet *pk, const dec_decode_cfg *cfg, const uint8_t *data);

/* The record's time, as Wireshark gives it: the record header's, but for an
 * ERF record (DLT_ERF) of a classic pcap whose 16-byte ERF header was
 * captured, the ERF header's 32.32 fixed-point timestamp in nanoseconds,
 * rounded to the nearest as Wireshark's wiretap (pcap-common.c) and
 * libpcap's pcap-dag.c round it. pcapng (and a live capture): the record's
 * time, with 64-bit seconds (dec_decode_cfg); tshark 4.0 shows an EPB's own
 * time for its ERF records too. */
void dec_packet_time(int dlt, bool pcapng, const struct pcap_pkthdr *h, const uint8_t *data,
                     int64_t *sec, uint32_t *nsec);

/* "not RoCE", "IPv4 fragment", ... */
const char *dec_skip_text(dec_skip s);
/* "not_roce", "ipv4_fragment", ... (stable keys for JSON) */
const char *dec_skip_key(dec_skip s);

#endif
