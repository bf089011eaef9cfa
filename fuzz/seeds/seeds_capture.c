/* SPDX-License-Identifier: MIT */
/* Seeds of fuzz_capture: small capture files in every format and link type
 * ornic-decode reads (pcap micro/nano, both byte orders, Kuznetzov's
 * modified pcap, pcapng, gzip of each), then damaged ones. Captures of whole
 * simulated conversations are added by scripts/fuzz-corpus.sh from
 * ornic-pcapgen. And the few small ones of fuzz_reader (reader/): every
 * record format the reader and libpcap share, and the files on which they
 * differ by design. */
#include <stdio.h>
#include <string.h>

#include "seeds.h"

#define BUF (256 * 1024)

typedef struct {
  uint8_t b[BUF];
  size_t n;
  int be; /* write header fields big-endian */
} cap;

static void u8(cap *c, uint8_t v) { c->b[c->n++] = v; }
static void u16(cap *c, uint16_t v) {
  if (c->be)
    u8(c, (uint8_t)(v >> 8)), u8(c, (uint8_t)v);
  else
    u8(c, (uint8_t)v), u8(c, (uint8_t)(v >> 8));
}
static void u32(cap *c, uint32_t v) {
  if (c->be)
    u16(c, (uint16_t)(v >> 16)), u16(c, (uint16_t)v);
  else
    u16(c, (uint16_t)v), u16(c, (uint16_t)(v >> 16));
}
static void bytes(cap *c, const uint8_t *p, size_t n) {
  memcpy(c->b + c->n, p, n);
  c->n += n;
}

static void pcap_header(cap *c, uint32_t magic, uint32_t linktype, uint32_t snaplen) {
  u32(c, magic);
  u16(c, 2);
  u16(c, 4);
  u32(c, 0);
  u32(c, 0);
  u32(c, snaplen);
  u32(c, linktype);
}

static void pcap_record(cap *c, const uint8_t *p, size_t caplen, size_t len, int kuznetzov) {
  u32(c, 1704067200u);
  u32(c, 123456);
  u32(c, (uint32_t)caplen);
  u32(c, (uint32_t)len);
  if (kuznetzov) u32(c, 2), u16(c, 0x0800), u8(c, 0), u8(c, 0);
  bytes(c, p, caplen);
}

/* Frames of a short conversation: FSpot, Spot, Last with Address, ACK,
 * NAK, READ request and response, a CNP, and one frame that is not RoCE. */
static size_t frame_n(uint8_t *out, unsigned i, ornic_link link, int ipv) {
  static const uint8_t ops[] = {0xC0, 0xC1, 0xC4, 0xC9, 0xCA, 0xC6, 0xC8, 0x81, 0x0A};
  if (i < sizeof ops) return seed_frame(out, 2048, link, ipv, ops[i], i == 0 ? 256 : 17);
  memcpy(out, "\xff\xff\xff\xff\xff\xff\x02\x00\x00\x00\x00\x01\x08\x06\x00\x01", 16);
  return 60;
}
#define NFRAMES 10

static void write_variants(cap *c, const char *name) {
  static uint8_t gz[BUF];
  seed_write("capture", NULL, 0, c->b, c->n, "%s", name);
  size_t g = seed_gzip(c->b, c->n, gz, sizeof gz);
  if (g) seed_write("capture", NULL, 0, gz, g, "%s.gz", name);
}

static void pcaps(void) {
  static cap c;
  uint8_t fr[2048];
  /* Ethernet, microseconds, little-endian; one frame cut by a 128-byte snaplen. */
  c.n = 0, c.be = 0;
  pcap_header(&c, 0xa1b2c3d4u, 1, 65535);
  for (unsigned i = 0; i < NFRAMES; i++) {
    size_t n = frame_n(fr, i, ORNIC_LINK_ETHERNET, 4);
    pcap_record(&c, fr, i == 0 ? 128 : n, n, 0);
  }
  write_variants(&c, "pcap-ethernet-usec-le");
  /* A damaged copy: the last record cut in the middle. */
  c.n -= 20;
  seed_write("capture", NULL, 0, c.b, c.n, "damaged-pcap-cut-mid-record");
  /* Nanoseconds, big-endian, IPv6 with VLANs would need a tag: plain IPv6. */
  c.n = 0, c.be = 1;
  pcap_header(&c, 0xa1b23c4du, 1, 65535);
  for (unsigned i = 0; i < NFRAMES; i++) {
    size_t n = frame_n(fr, i, ORNIC_LINK_ETHERNET, 6);
    pcap_record(&c, fr, n, n, 0);
  }
  write_variants(&c, "pcap-ethernet-ipv6-nsec-be");
  /* Kuznetzov's modified pcap (24-byte record headers). */
  c.n = 0, c.be = 0;
  pcap_header(&c, 0xa1b2cd34u, 1, 65535);
  for (unsigned i = 0; i < 4; i++) {
    size_t n = frame_n(fr, i, ORNIC_LINK_ETHERNET, 4);
    pcap_record(&c, fr, n, n, 1);
  }
  write_variants(&c, "pcap-kuznetzov");
  /* Raw IP (LINKTYPE_RAW 101, LINKTYPE_IPV4 228, LINKTYPE_IPV6 229). */
  static const uint32_t raw_types[] = {101, 228, 229};
  for (unsigned t = 0; t < 3; t++) {
    char name[48];
    c.n = 0, c.be = 0;
    pcap_header(&c, 0xa1b2c3d4u, raw_types[t], 65535);
    for (unsigned i = 0; i < 6; i++) {
      size_t n = frame_n(fr, i, ORNIC_LINK_RAW_IP, raw_types[t] == 229 ? 6 : 4);
      pcap_record(&c, fr, n, n, 0);
    }
    snprintf(name, sizeof name, "pcap-linktype-%u-raw-ip", raw_types[t]);
    write_variants(&c, name);
  }
  /* Linux cooked captures: SLL (113) and SLL2 (276), one with a VLAN tag, one RoCEv1. */
  for (unsigned v = 0; v < 2; v++) {
    c.n = 0, c.be = 0;
    pcap_header(&c, 0xa1b2c3d4u, v ? 276 : 113, 65535);
    for (unsigned i = 0; i < 6; i++) {
      uint8_t hdr[24] = {0};
      int grh = i == 5;
      size_t n = grh ? seed_frame(fr, sizeof fr, ORNIC_LINK_GRH, 6, 0xC1, 8)
                     : frame_n(fr, i, ORNIC_LINK_RAW_IP, 4);
      uint16_t proto = grh ? 0x8915 : 0x0800;
      size_t h = v ? 20 : 16, po = v ? 0 : 14;
      hdr[po] = (uint8_t)(proto >> 8), hdr[po + 1] = (uint8_t)proto;
      if (i == 4) { /* an 802.1Q tag the kernel left in place */
        hdr[po] = 0x81, hdr[po + 1] = 0x00;
        hdr[h] = 0x00, hdr[h + 1] = 0x64, hdr[h + 2] = 0x08, hdr[h + 3] = 0x00;
        h += 4;
      }
      uint8_t rec[2100];
      memcpy(rec, hdr, h);
      memcpy(rec + h, fr, n);
      pcap_record(&c, rec, h + n, h + n, 0);
    }
    write_variants(&c, v ? "pcap-linux-sll2" : "pcap-linux-sll");
  }
  /* Unsupported link type (IEEE 802.11 = 105), and a header alone. */
  c.n = 0, c.be = 0;
  pcap_header(&c, 0xa1b2c3d4u, 105, 65535);
  seed_write("capture", NULL, 0, c.b, c.n, "pcap-unsupported-linktype-105");
  c.n = 0;
  pcap_header(&c, 0xa1b2c3d4u, 1, 65535);
  seed_write("capture", NULL, 0, c.b, c.n, "pcap-header-only");
  pcap_record(&c, fr, 0, 0, 0);
  c.b[c.n - 8] = 0xff, c.b[c.n - 7] = 0xff, c.b[c.n - 6] = 0xff; /* caplen 0xffffff */
  seed_write("capture", NULL, 0, c.b, c.n, "damaged-pcap-huge-caplen");
}

/* pcapng: a Section Header, an Interface Description (nanoseconds), Enhanced Packet Blocks. */
static void pcapng_block(cap *c, uint32_t type, const uint8_t *body, size_t n) {
  size_t pad = (4 - n % 4) % 4;
  uint32_t total = (uint32_t)(12 + n + pad);
  u32(c, type);
  u32(c, total);
  bytes(c, body, n);
  for (size_t i = 0; i < pad; i++) u8(c, 0);
  u32(c, total);
}

static void pcapngs(void) {
  static cap c;
  uint8_t fr[2048], body[2200];
  c.n = 0, c.be = 0;
  static const uint8_t shb[] = {0x4d, 0x3c, 0x2b, 0x1a, 1,    0,    0,    0,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  pcapng_block(&c, 0x0a0d0d0a, shb, sizeof shb);
  /* IDB: linktype 1, snaplen 0, option if_tsresol (9) = 9, opt_endofopt. */
  static const uint8_t idb[] = {1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0};
  pcapng_block(&c, 1, idb, sizeof idb);
  for (unsigned i = 0; i < NFRAMES; i++) {
    size_t n = frame_n(fr, i, ORNIC_LINK_ETHERNET, 4);
    size_t k = 0;
    uint32_t hdr[5] = {0, 0x17a2b3c4u, 0x5d6e7f80u + i, (uint32_t)n, (uint32_t)n};
    for (unsigned j = 0; j < 5; j++)
      for (unsigned s = 0; s < 4; s++) body[k++] = (uint8_t)(hdr[j] >> (8 * s));
    memcpy(body + k, fr, n);
    k += n;
    while (k % 4) body[k++] = 0;
    pcapng_block(&c, 6, body, k);
  }
  /* A Simple Packet Block too (no timestamp). */
  size_t n = frame_n(fr, 3, ORNIC_LINK_ETHERNET, 4);
  body[0] = (uint8_t)n, body[1] = (uint8_t)(n >> 8), body[2] = 0, body[3] = 0;
  memcpy(body + 4, fr, n);
  pcapng_block(&c, 3, body, 4 + n);
  write_variants(&c, "pcapng-ethernet-nsec");
  /* Damaged: the last block's trailing length disagrees. */
  c.b[c.n - 1] ^= 0x01;
  seed_write("capture", NULL, 0, c.b, c.n, "damaged-pcapng-block-length-mismatch");
  c.b[c.n - 1] ^= 0x01;
  seed_write("capture", NULL, 0, c.b, c.n - 30, "damaged-pcapng-cut-mid-block");
}

static void others(void) {
  static cap c;
  static uint8_t gz[BUF], two[2 * BUF];
  uint8_t fr[2048];
  c.n = 0, c.be = 0;
  pcap_header(&c, 0xa1b2c3d4u, 1, 65535);
  for (unsigned i = 0; i < 3; i++) {
    size_t n = frame_n(fr, i, ORNIC_LINK_ETHERNET, 4);
    pcap_record(&c, fr, n, n, 0);
  }
  /* Two gzip members: the file header in one, the records in the other. */
  size_t g1 = seed_gzip(c.b, 24, two, sizeof two);
  size_t g2 = seed_gzip(c.b + 24, c.n - 24, two + g1, sizeof two - g1);
  seed_write("capture", NULL, 0, two, g1 + g2, "gzip-two-members.pcap.gz");
  size_t g = seed_gzip(c.b, c.n, gz, sizeof gz);
  seed_write("capture", NULL, 0, gz, g - 9, "damaged-gzip-truncated");
  gz[g / 2] ^= 0x55;
  seed_write("capture", NULL, 0, gz, g, "damaged-gzip-corrupt-deflate");
  seed_write("capture", NULL, 0, (const uint8_t *)"", 0, "empty-file");
  seed_write("capture", NULL, 0, (const uint8_t *)"\x1f\x8b", 2, "gzip-magic-only");
  seed_write("capture", NULL, 0, (const uint8_t *)"not a capture\n", 14, "not-a-capture-text");
}

/* Ethernet + IPv4 frame whose length changed: fix IPv4 total and UDP lengths. */
static void fix_lengths(uint8_t *fr, size_t len) {
  size_t ip = len - 14, udp = ip - 20;
  fr[16] = (uint8_t)(ip >> 8), fr[17] = (uint8_t)ip;
  fr[38] = (uint8_t)(udp >> 8), fr[39] = (uint8_t)udp;
}

/* One capture with a frame for each malformed rule (D3, D5, D6, D7), each
 * lint warning, a bad iCRC, an unknown opcode, a fragment and snaplen cuts:
 * the verdict, error-explanation and warning paths of ornic-decode. */
static void verdicts(void) {
  static cap c;
  uint8_t fr[2048];
  size_t n;
  ornic_frame f;
  c.n = 0, c.be = 0;
  pcap_header(&c, 0xa1b2c3d4u, 1, 65535);
#define REC(len) pcap_record(&c, fr, (len), (len), 0)
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, 0xC1, 64);
  fr[39] ^= 0x04; /* D3: UDP length disagrees */
  REC(n);
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, 0xCA, 0);
  fr[62] = 0; /* D6: NAKETH nblocks 0 */
  REC(n);
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, 0x11, 0);
  fr[43] |= 0x30; /* D5: PadCnt 3, nothing to pad */
  REC(n);
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, 0xC9, 0);
  memmove(fr + n, fr + n - 4, 4), memset(fr + n - 4, 0x5a, 4), fix_lengths(fr, n + 4);
  REC(n + 4); /* D5: payload on an ORNIC ACK */
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, 0xC1, 8);
  memmove(fr + n - 5, fr + n - 4, 4), fix_lengths(fr, n - 1);
  REC(n - 1); /* D7: not whole words */
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, 0xC9, 0);
  fr[42] = 0xC0; /* D5: FSpot's RETH + OFFETH do not fit */
  REC(n);
  fr[42] = 0xCB; /* unknown opcode */
  REC(n);
  fr[42] = 0xC9, fr[14] = 0x44; /* bad IHL */
  REC(n);
  fr[14] = 0x45, fr[20] = 0x20; /* an IPv4 fragment */
  REC(n);
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, 0xC2, 5);
  fr[n - 1] ^= 0x80; /* bad iCRC */
  REC(n);
  fr[n - 1] ^= 0x80, fr[n - 5] = 0xee; /* warning: pad not zero */
  REC(n);
  pcap_record(&c, fr, 40, n, 0); /* snaplen before the BTH */
  pcap_record(&c, fr, 60, n, 0); /* snaplen inside RETH */
  n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, 0x04, 5);
  memmove(fr + n - 7, fr + n - 4, 4), fr[43] &= 0xcf, fix_lengths(fr, n - 3);
  REC(n - 3); /* warning: IBA PadCnt not aligning */
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, 0xCA, 0);
  f.bth.psn = 0x000001; /* warning: NAK PSN is not its Base */
  n = (size_t)ornic_frame_encode(fr, sizeof fr, &f);
  REC(n);
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, 0xCA, 0);
  f.ext.naketh.limit_psn = 0x123471; /* warning: NAK Limit after its trigger */
  n = (size_t)ornic_frame_encode(fr, sizeof fr, &f);
  REC(n);
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 6);
  seed_fill(&f, 0xC9, 0);
  f.ext.oacketh.flags = 3; /* warning: both ACK flags */
  f.eth.has_vlan = 1;
  n = (size_t)ornic_frame_encode(fr, sizeof fr, &f);
  REC(n);
#undef REC
  write_variants(&c, "pcap-malformed-warnings-verdicts");
}

/* One frame of every opcode with a layout, so that the text and JSON
 * printers meet every header; then frames cut at each layer, once as damage
 * (caplen = len) and once by the snaplen. */
static void every_opcode(void) {
  static cap c;
  uint8_t fr[2048];
  c.n = 0, c.be = 0;
  pcap_header(&c, 0xa1b2c3d4u, 1, 65535);
  for (unsigned op = 0; op < 256; op++) {
    if (!ornic_opcode_info_get((uint8_t)op)->name) continue;
    size_t n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, (uint8_t)op, 5);
    if (n) pcap_record(&c, fr, n, n, 0);
  }
  size_t n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, 0x06, 64);
  static const size_t cuts[] = {10, 30, 50, 70}; /* link header, IP, BTH, payload */
  for (unsigned i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    pcap_record(&c, fr, cuts[i], cuts[i], 0);
    pcap_record(&c, fr, cuts[i], n, 0);
  }
  write_variants(&c, "pcap-every-opcode-and-cuts");
}

/* ---- fuzz_reader: small captures for the reader-vs-libpcap harness ---- */

/* pcapng blocks in c's byte order; the body goes through a second buffer of
 * the same order, so that every field is written as the section says. */
static void ng_blk(cap *c, const cap *body, uint32_t type) {
  pcapng_block(c, type, body->b, body->n);
}

static void ng_shb(cap *c) {
  static cap b;
  b.n = 0, b.be = c->be;
  u32(&b, 0x1a2b3c4du), u16(&b, 1), u16(&b, 0), u32(&b, 0xffffffffu), u32(&b, 0xffffffffu);
  ng_blk(c, &b, 0x0a0d0d0au);
}

/* tsresol: the if_tsresol byte (0: none, microseconds); tsoffset: seconds added (0: none). */
static void ng_idb(cap *c, uint16_t linktype, uint32_t snaplen, uint8_t tsresol,
                   uint32_t tsoffset) {
  static cap b;
  b.n = 0, b.be = c->be;
  u16(&b, linktype), u16(&b, 0), u32(&b, snaplen);
  if (tsresol) u16(&b, 9), u16(&b, 1), u8(&b, tsresol), u8(&b, 0), u8(&b, 0), u8(&b, 0);
  if (tsoffset) {
    u16(&b, 14), u16(&b, 8);
    if (c->be)
      u32(&b, 0), u32(&b, tsoffset);
    else
      u32(&b, tsoffset), u32(&b, 0);
  }
  if (tsresol || tsoffset) u16(&b, 0), u16(&b, 0);
  ng_blk(c, &b, 1);
}

/* An Enhanced Packet Block, or with pb the obsolete Packet Block. */
static void ng_pkt(cap *c, uint32_t iface, uint64_t ticks, const uint8_t *fr, size_t caplen,
                   size_t len, int pb) {
  static cap b;
  b.n = 0, b.be = c->be;
  if (pb)
    u16(&b, (uint16_t)iface), u16(&b, 0);
  else
    u32(&b, iface);
  u32(&b, (uint32_t)(ticks >> 32)), u32(&b, (uint32_t)ticks), u32(&b, (uint32_t)caplen);
  u32(&b, (uint32_t)len), bytes(&b, fr, caplen);
  while (b.n % 4) u8(&b, 0);
  ng_blk(c, &b, pb ? 2 : 6);
}

static void reader_pcaps(void) {
  static cap c;
  uint8_t fr[2048];
  /* Microseconds, little-endian, a header snaplen of 100: libpcap reads the
   * longer record whole and cuts it. */
  c.n = 0, c.be = 0;
  pcap_header(&c, 0xa1b2c3d4u, 1, 100);
  for (unsigned i = 0; i < 3; i++) {
    size_t n = frame_n(fr, i, ORNIC_LINK_ETHERNET, 4);
    pcap_record(&c, fr, n, n, 0);
  }
  seed_write("reader", NULL, 0, c.b, c.n, "pcap-usec-le-snaplen-100");
  seed_write("reader", NULL, 0, c.b, c.n - 9, "damaged-pcap-cut-mid-record");
  /* Nanoseconds, big-endian, seconds past 2^31 (libpcap's signed field). */
  c.n = 0, c.be = 1;
  pcap_header(&c, 0xa1b23c4du, 101, 65535);
  for (unsigned i = 0; i < 2; i++) {
    size_t n = frame_n(fr, i + 1, ORNIC_LINK_RAW_IP, 4);
    u32(&c, 0x80000015u + i), u32(&c, 999999999u), u32(&c, (uint32_t)n), u32(&c, (uint32_t)n);
    bytes(&c, fr, n);
  }
  seed_write("reader", NULL, 0, c.b, c.n, "pcap-nsec-be-raw-ip-after-2038");
  c.n = 0, c.be = 0;
  pcap_header(&c, 0xa1b2cd34u, 1, 65535);
  size_t n = frame_n(fr, 3, ORNIC_LINK_ETHERNET, 4);
  pcap_record(&c, fr, n, n, 1);
  seed_write("reader", NULL, 0, c.b, c.n, "pcap-kuznetzov");
}

static void reader_pcapngs(void) {
  static cap c;
  uint8_t fr[2048];
  size_t n = frame_n(fr, 1, ORNIC_LINK_ETHERNET, 4);
  /* Two interfaces of one link type: nanoseconds; 2^-10 s with an offset.
   * EPBs on both, the obsolete PB, an SPB, and a custom block (skipped). */
  c.n = 0, c.be = 0;
  ng_shb(&c);
  ng_idb(&c, 1, 0, 9, 0);
  ng_idb(&c, 1, 0, 0x8a, 100);
  ng_pkt(&c, 0, 1704067200123456789ull, fr, n, n, 0);
  ng_pkt(&c, 1, 1704067200ull << 10 | 1023, fr, 40, n, 0);
  ng_pkt(&c, 1, 5, fr, n, n, 1);
  static cap b;
  b.n = 0, b.be = 0;
  u32(&b, (uint32_t)n), bytes(&b, fr, n);
  while (b.n % 4) u8(&b, 0);
  ng_blk(&c, &b, 3);
  b.n = 0;
  u32(&b, 32473), bytes(&b, (const uint8_t *)"note", 4);
  ng_blk(&c, &b, 0x40000bad);
  seed_write("reader", NULL, 0, c.b, c.n, "pcapng-two-interfaces-tsresol-spb-pb");
  seed_write("reader", NULL, 0, c.b, c.n - 6, "damaged-pcapng-cut-mid-block");
  /* Sections of different byte orders (issue 28 item 7): libpcap stops at
   * the second, the reader reads it. */
  c.n = 0, c.be = 0;
  ng_shb(&c), ng_idb(&c, 1, 0, 9, 0), ng_pkt(&c, 0, 1000, fr, n, n, 0);
  c.be = 1;
  ng_shb(&c), ng_idb(&c, 1, 0, 9, 0), ng_pkt(&c, 0, 2000, fr, n, n, 0);
  seed_write("reader", NULL, 0, c.b, c.n, "pcapng-sections-le-then-be");
  /* An empty first section, then one of the other order: libpcap cannot
   * even open it. */
  c.n = 0, c.be = 1;
  ng_shb(&c);
  c.be = 0;
  ng_shb(&c), ng_idb(&c, 1, 0, 9, 0), ng_pkt(&c, 0, 3000, fr, n, n, 0);
  seed_write("reader", NULL, 0, c.b, c.n, "pcapng-empty-be-section-then-le");
  /* A second interface of another link type: libpcap refuses it. */
  c.n = 0, c.be = 1;
  ng_shb(&c), ng_idb(&c, 1, 0, 9, 0), ng_idb(&c, 101, 0, 9, 0);
  ng_pkt(&c, 0, 1000, fr, n, n, 0);
  n = frame_n(fr, 2, ORNIC_LINK_RAW_IP, 4);
  ng_pkt(&c, 1, 2000, fr, n, n, 0);
  seed_write("reader", NULL, 0, c.b, c.n, "pcapng-be-mixed-link-types");
}

void seeds_capture(void) {
  every_opcode();
  verdicts();
  pcaps();
  pcapngs();
  others();
  reader_pcaps();
  reader_pcapngs();
}
