/* SPDX-License-Identifier: MIT */
/* Test captures for ornic-decode, built with libornicproto's encoder.
 *
 *   gen_test_capture cases [--link eth|raw|sll|sll2] [--ns] OUT.pcap
 *       one frame per edge case (listed in case_table below, frame N = row N)
 *   gen_test_capture bulk N OUT.pcap
 *       N frames of 1 KiB RDMA WRITE payload over 16 QPs, for speed tests
 *   gen_test_capture pair OUT.pcap
 *       one RC QP pair, both ends sending SENDs and ACKing each other, clean
 *   gen_test_capture unseen OUT.pcap
 *       one RC QP, two SENDs missing from the capture but covered by an ACK
 *
 * Writes classic pcap itself (24-byte header, 16-byte records), so that the
 * bytes on disk are exactly what the tests expect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ornic/ornic.h>

#define LINKTYPE_ETHERNET 1
#define LINKTYPE_RAW 101
#define LINKTYPE_LINUX_SLL 113
#define LINKTYPE_LINUX_SLL2 276
#define MAX_FRAME 9000

typedef enum { LINK_ETH, LINK_RAW, LINK_SLL, LINK_SLL2 } out_link;

typedef struct {
  FILE *fp;
  out_link link;
  int ns;
  unsigned long frames;
} writer;

static void put_u32le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_be16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

static uint32_t linktype_of(out_link l) {
  static const uint32_t t[] = {LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_LINUX_SLL,
                               LINKTYPE_LINUX_SLL2};
  return t[l];
}

static void write_file_header(writer *w) {
  uint8_t h[24] = {0};
  put_u32le(h, w->ns ? 0xa1b23c4du : 0xa1b2c3d4u);
  h[4] = 2;
  h[6] = 4;
  put_u32le(h + 16, 262144);
  put_u32le(h + 20, linktype_of(w->link));
  fwrite(h, 1, sizeof h, w->fp);
}

/* One record; caplen < len simulates a snaplen cut. */
static void write_record(writer *w, const uint8_t *d, uint32_t caplen, uint32_t len) {
  uint8_t h[16];
  unsigned long i = ++w->frames;
  put_u32le(h, 1700000000u + (uint32_t)i);
  put_u32le(h + 4, w->ns ? (uint32_t)(i * 1000 + 1) : (uint32_t)(i % 1000000));
  put_u32le(h + 8, caplen);
  put_u32le(h + 12, len);
  fwrite(h, 1, sizeof h, w->fp);
  fwrite(d, 1, caplen, w->fp);
}

/* A cooked header in front of an L3 frame (the kernel's "any" device view). */
static size_t cooked_header(uint8_t *h, out_link link, uint16_t proto) {
  if (link == LINK_SLL) {
    memset(h, 0, 16);
    put_be16(h + 2, 1); /* ARPHRD_ETHER */
    put_be16(h + 4, 6);
    memcpy(h + 6, "\x02\x00\x00\x00\x00\x01", 6);
    put_be16(h + 14, proto);
    return 16;
  }
  memset(h, 0, 20);
  put_be16(h, proto);
  h[7] = 2; /* ifindex */
  put_be16(h + 8, 1);
  h[11] = 6;
  memcpy(h + 12, "\x02\x00\x00\x00\x00\x01", 6);
  return 20;
}

/* Encodes f for the writer's link type into buf; returns the size or 0 when
 * the frame cannot exist on that link (VLAN or non-IP frames on raw IP). */
static size_t encode_for_link(const writer *w, ornic_frame *f, uint8_t *buf) {
  bool grh = f->link == ORNIC_LINK_GRH;
  if (w->link == LINK_ETH && !grh) {
    ornic_ssize n = ornic_frame_encode(buf, MAX_FRAME, f);
    return n > 0 ? (size_t)n : 0;
  }
  if (w->link == LINK_ETH) { /* the encoder writes RoCEv1 from the GRH on: add Ethernet */
    memcpy(buf, f->eth.dst, 6);
    memcpy(buf + 6, f->eth.src, 6);
    put_be16(buf + 12, 0x8915);
    ornic_ssize n = ornic_frame_encode(buf + 14, MAX_FRAME - 14, f);
    return n > 0 ? 14 + (size_t)n : 0;
  }
  if (grh && w->link == LINK_RAW) return 0;
  f->link = grh ? ORNIC_LINK_GRH : ORNIC_LINK_RAW_IP;
  size_t hl = 0;
  if (w->link != LINK_RAW) {
    uint16_t proto = grh ? 0x8915 : f->ip.version == 4 ? 0x0800 : 0x86dd;
    hl = cooked_header(buf, w->link, proto);
  }
  ornic_ssize n = ornic_frame_encode(buf + hl, MAX_FRAME - hl, f);
  return n > 0 ? hl + (size_t)n : 0;
}

static uint8_t payload_bytes[4096];

static void base(ornic_frame *f, int ipv, uint8_t op, uint32_t qp, uint32_t psn, size_t plen) {
  ornic_frame_init(f, ORNIC_LINK_ETHERNET, ipv);
  f->bth.opcode = op;
  f->bth.destqp = qp;
  f->bth.psn = psn;
  f->payload = payload_bytes;
  f->payload_len = plen;
}

/* Kinds of damage a case applies after encoding. */
typedef enum {
  DMG_NONE,
  DMG_CORRUPT,
  DMG_SNAP,
  DMG_SHORT,
  DMG_PORT53,
  DMG_ARP,
  DMG_FRAG,
  DMG_OPCODE,
  DMG_TRIM_PAYLOAD,
  DMG_PAD_BYTE,
  DMG_TRIM_PAD,
  DMG_BTH_BYTE
} damage;

typedef struct {
  const char *what;
  damage dmg;
  size_t arg;  /* DMG_SNAP: bytes kept after the link header; DMG_SHORT/TRIM: bytes removed;
                DMG_BTH_BYTE: offset from the BTH */
  uint8_t val; /* DMG_BTH_BYTE: the byte written there */
} case_row;

static uint8_t nak_bitmap[4];
static uint8_t nak_full[2] = {0xff, 0xff};
static uint8_t nak_wrap[2] = {0x00, 0xf0};

/* Fills f for case k (1-based). Returns the damage to apply. */
static void build_case(int k, ornic_frame *f) {
  switch (k) {
  case 1: base(f, 4, 0x04, 0x11, 1, 100); break;
  case 2:
    base(f, 4, 0x06, 0x11, 2, 1024);
    f->bth.ackreq = 1;
    f->ext.reth = (ornic_reth){0x123456789abcdef0ull, 0xdeadbeef, 4096};
    break;
  case 3: base(f, 4, 0x07, 0x11, 3, 1024); break;
  case 4:
    base(f, 4, 0x09, 0x11, 4, 3);
    f->ext.immdt.data = 0xcafebabe;
    break;
  case 5:
    base(f, 6, 0x0c, 0x12, 100, 0);
    f->ext.reth = (ornic_reth){0x1000, 0x42, 8192};
    break;
  case 6:
    base(f, 6, 0x10, 0x13, 100, 64);
    f->ext.aeth = (ornic_aeth){0x1f, 7};
    break;
  case 7:
    base(f, 4, 0x11, 0x14, 4, 0);
    f->eth.has_vlan = true;
    f->eth.vlan_tci = 100;
    f->ext.aeth = (ornic_aeth){0x00, 3};
    break;
  case 8:
    base(f, 4, 0x11, 0x14, 5, 0);
    f->ext.aeth = (ornic_aeth){0x60, 3};
    break;
  case 9:
    base(f, 4, 0xc0, 0x21, 1000, 1024);
    f->ext.reth = (ornic_reth){0xffffffffffff0000ull, 0x77, 1 << 20};
    f->ext.offeth.offset = 4096;
    break;
  case 10: base(f, 4, 0xc1, 0x21, 1001, 1024); break;
  case 11:
    base(f, 4, 0xc5, 0x21, 1002, 512);
    f->ext.reth = (ornic_reth){0x2000, 0x77, 512};
    f->ext.offeth.offset = 8192;
    f->ext.immdt.data = 7;
    break;
  case 12:
    base(f, 4, 0xc9, 0x21, 1002, 0);
    f->ext.aeth = (ornic_aeth){0x1f, 9};
    f->ext.oacketh = (ornic_oacketh){ORNIC_OACK_WQE_DONE, 0, 16};
    break;
  case 13: {
    static const uint16_t blocks[2] = {0xff1f, 0x00ff}; /* 1005-1007 and 1024-1031 missing */
    ornic_naketh_bitmap_pack(nak_bitmap, blocks, 2);
    base(f, 4, 0xca, 0x21, 1000, 0);
    f->ext.aeth = (ornic_aeth){0x60, 9};
    /* Limit 1007: a responder with OTD 3 (1010 - 3), so 1007 is not asked for. */
    f->ext.naketh = (ornic_naketh){ORNIC_NAKETH_OTD_EXCEEDED, 1010, 2, 1000, 0, 1007, nak_bitmap};
    break;
  }
  case 14:
    base(f, 4, 0x64, 0x01, 77, 256);
    f->ext.deth = (ornic_deth){0x80010000u, 0, 0x000abc};
    break;
  case 15:
    base(f, 4, 0x13, 0x15, 9, 0);
    f->ext.atomiceth =
        (ornic_atomiceth){0xfedcba9876543210ull, 5, 0x1111222233334444ull, 0x9999ull};
    break;
  case 16:
    base(f, 4, 0x12, 0x15, 9, 0);
    f->ext.aeth = (ornic_aeth){0x00, 1};
    f->ext.atomicacketh.orig = 0xffffffffffffffffull;
    break;
  case 17:
    base(f, 4, 0x81, 0x16, 0, 0);
    f->bth.becn = 1;
    break;
  case 18: base(f, 4, 0x04, 0x11, 5, 200); break; /* payload corrupted below */
  case 19: base(f, 4, 0x04, 0x11, 6, 20); break;  /* UDP port 53 below */
  case 20: base(f, 4, 0x04, 0x11, 6, 20); break;  /* EtherType ARP below */
  case 21:
    base(f, 6, 0x04, 0x17, 50, 48);
    f->link = ORNIC_LINK_GRH;
    break;
  case 22:
    base(f, 4, 0x0a, 0x18, 1, 1024);
    f->ext.reth = (ornic_reth){0x3000, 1, 1024};
    break;
  case 23:
    base(f, 4, 0x0a, 0x18, 2, 1024);
    f->ext.reth = (ornic_reth){0x3000, 1, 1024};
    break;
  case 24: base(f, 4, 0x07, 0x18, 3, 1024); break; /* tail removed below */
  case 25: base(f, 4, 0x04, 0x19, 1, 16); break;   /* opcode patched to 0x1e below */
  case 26:
    base(f, 4, 0xa4, 0x1a, 1, 32);
    f->ext.xrceth.xrcsrq = 0x0000aa;
    break;
  case 27: base(f, 4, 0x07, 0x22, 0xffffff, 64); break;
  case 28: base(f, 4, 0x07, 0x22, 0, 64); break;
  case 29: base(f, 4, 0x07, 0x33, 10, 64); break;
  case 30: base(f, 4, 0x07, 0x33, 11, 64); break;
  case 31: base(f, 4, 0x07, 0x33, 13, 64); break;
  case 32: base(f, 4, 0x07, 0x33, 12, 64); break;
  case 33: base(f, 4, 0x07, 0x33, 13, 64); break;
  case 34: base(f, 4, 0x07, 0x34, 1, 64); break; /* fragment flag below */
  case 35:
    base(f, 4, 0x04, 0x35, 1, 8);
    f->udp.dport = 4792;
    break;
  case 36:
    base(f, 4, 0xca, 0x21, 1000, 0);
    f->ext.aeth = (ornic_aeth){0x60, 9};
    f->ext.naketh = (ornic_naketh){ORNIC_NAKETH_TIMEOUT, 1011, 1, 1000, 0, 1011, nak_full};
    break;
  case 37:
    base(f, 6, 0xca, 0x21, 0xfffff8, 0);
    f->ext.aeth = (ornic_aeth){0x60, 9};
    f->ext.naketh = (ornic_naketh){ORNIC_NAKETH_LAST_INCOMPLETE, 2, 1, 0xfffff8, 0, 2, nak_wrap};
    break;
  case 38: base(f, 4, 0x04, 0x36, 1, 4); break; /* trimmed to 3 bytes, PadCnt 0 below */
  case 39: base(f, 4, 0x04, 0x36, 2, 3); break; /* pad byte set below */
  case 40:
    base(f, 4, 0xca, 0x21, 1001, 0);
    f->ext.aeth = (ornic_aeth){0x60, 9};
    f->ext.naketh = (ornic_naketh){ORNIC_NAKETH_OTD_EXCEEDED, 1010, 2, 1000, 0, 1007, nak_bitmap};
    break;
  case 41:
    base(f, 4, 0xc9, 0x21, 1003, 0);
    f->ext.aeth = (ornic_aeth){0x1f, 9};
    f->ext.oacketh = (ornic_oacketh){ORNIC_OACK_ADDR_CACHED | ORNIC_OACK_WQE_DONE, 0, 1};
    break;
  case 42: /* odd block count: the 2 pad bytes are removed below */
    base(f, 4, 0xca, 0x21, 1000, 0);
    f->ext.aeth = (ornic_aeth){0x60, 9};
    f->ext.naketh = (ornic_naketh){ORNIC_NAKETH_TIMEOUT, 1011, 1, 1000, 0, 1011, nak_full};
    break;
  case 43: base(f, 4, 0x04, 0x37, 1, 8); break; /* opcode -> RC ACK below */
  case 44:
    base(f, 4, 0x11, 0x37, 2, 0);
    f->ext.aeth = (ornic_aeth){0x1f, 1};
    break;
  case 45:
    base(f, 4, 0xca, 0x21, 1000, 0);
    f->ext.aeth = (ornic_aeth){0x60, 9};
    f->ext.naketh = (ornic_naketh){ORNIC_NAKETH_TIMEOUT, 1011, 2, 1000, 0, 1011, nak_bitmap};
    break;
  default: break;
  }
}

static const case_row case_table[] = {
    {"", DMG_NONE, 0, 0},
    {"IPv4 RC SEND Only", DMG_NONE, 0, 0},
    {"IPv4 RC WRITE First, VA > 2^53, AckReq", DMG_NONE, 0, 0},
    {"IPv4 RC WRITE Middle", DMG_NONE, 0, 0},
    {"IPv4 RC WRITE Last w/ Imm, 3-byte payload (PadCnt 1)", DMG_NONE, 0, 0},
    {"IPv6 RC READ Request", DMG_NONE, 0, 0},
    {"IPv6 RC READ Response Only", DMG_NONE, 0, 0},
    {"IPv4 VLAN 100 RC ACK", DMG_NONE, 0, 0},
    {"IPv4 RC NAK PSN sequence error", DMG_NONE, 0, 0},
    {"ORNIC OOO WRITE FSpot", DMG_NONE, 0, 0},
    {"ORNIC OOO WRITE Spot", DMG_NONE, 0, 0},
    {"ORNIC OOO WRITE Last w/ Addr+Imm", DMG_NONE, 0, 0},
    {"ORNIC ACK", DMG_NONE, 0, 0},
    {"ORNIC NAK, 2 blocks, limit 1007, lost 1000,1005-1006 (1007, 1024-1031 after it)", DMG_NONE, 0,
     0},
    {"UD SEND Only", DMG_NONE, 0, 0},
    {"RC CmpSwap", DMG_NONE, 0, 0},
    {"RC ATOMIC ACK", DMG_NONE, 0, 0},
    {"CNP", DMG_NONE, 0, 0},
    {"RC SEND Only, corrupted payload byte: BAD iCRC", DMG_CORRUPT, 0, 0},
    {"UDP to port 53: skipped", DMG_PORT53, 0, 0},
    {"EtherType ARP: skipped", DMG_ARP, 0, 0},
    {"RoCEv1 (GRH) RC SEND Only", DMG_NONE, 0, 0},
    {"snaplen cut inside the payload", DMG_SNAP, 20 + 8 + 12 + 16 + 10, 0},
    {"snaplen cut inside the BTH", DMG_SNAP, 20 + 8 + 6, 0},
    {"whole frame shorter than its IP length: error", DMG_SHORT, 100, 0},
    {"unknown opcode 0x1e: error", DMG_OPCODE, 0, 0},
    {"XRC SEND Only", DMG_NONE, 0, 0},
    {"PSN 0xffffff (wrap)", DMG_NONE, 0, 0},
    {"PSN 0 after wrap", DMG_NONE, 0, 0},
    {"QP 0x33 PSN 10", DMG_NONE, 0, 0},
    {"QP 0x33 PSN 11", DMG_NONE, 0, 0},
    {"QP 0x33 PSN 13", DMG_NONE, 0, 0},
    {"QP 0x33 PSN 12: out of order", DMG_NONE, 0, 0},
    {"QP 0x33 PSN 13: duplicate", DMG_NONE, 0, 0},
    {"IPv4 fragment: skipped", DMG_FRAG, 0, 0},
    {"UDP port 4792 (RoCE with --port 4792)", DMG_NONE, 0, 0},
    {"ORNIC NAK, all bits set: only Base lost", DMG_NONE, 0, 0},
    {"IPv6 ORNIC NAK across the PSN wrap, lost 0xfffff8-0xfffffb,0-1", DMG_NONE, 0, 0},
    {"RC SEND Only, 3 bytes with PadCnt 0: warning pad_not_aligned", DMG_TRIM_PAYLOAD, 1, 0},
    {"RC SEND Only, nonzero pad byte: warning pad_not_zero", DMG_PAD_BYTE, 0, 0},
    {"ORNIC NAK with BTH.PSN != Base: warning nak_psn_not_base", DMG_NONE, 0, 0},
    {"ORNIC ACK with ADDR_CACHED and WQE_DONE: warning", DMG_NONE, 0, 0},
    {"ORNIC NAK, odd blocks without pad (D7): error malformed", DMG_TRIM_PAD, 2, 0},
    {"RC ACK followed by 4 bytes (D5): error malformed", DMG_BTH_BYTE, 0, 0x11},
    {"RC ACK with PadCnt 3 (D5): error malformed", DMG_BTH_BYTE, 1, 0x30},
    {"ORNIC NAK with nblocks 0 (D6): error malformed", DMG_BTH_BYTE, 12 + 4 + 4, 0},
};
#define NCASES ((int)(sizeof case_table / sizeof case_table[0]) - 1)

/* Offset of the IP header in buf for the writer's link. */
static size_t l3_offset(const writer *w, const ornic_frame *f) {
  switch (w->link) {
  case LINK_ETH: return 14 + (f->eth.has_vlan ? 4 : 0);
  case LINK_RAW: return 0;
  case LINK_SLL: return 16;
  default: return 20;
  }
}

static uint16_t get_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* Shrinks the IP and UDP lengths by n (the caller removed n bytes before the
 * iCRC) and refreshes the IPv4 header checksum. */
static void shrink_lengths(uint8_t *l3, size_t n) {
  int v4 = l3[0] >> 4 == 4;
  size_t udp = v4 ? 20 : 40;
  put_be16(l3 + (v4 ? 2 : 4), (uint16_t)(get_be16(l3 + (v4 ? 2 : 4)) - n));
  put_be16(l3 + udp + 4, (uint16_t)(get_be16(l3 + udp + 4) - n));
  if (!v4) return;
  uint32_t sum = 0;
  put_be16(l3 + 10, 0);
  for (int i = 0; i < 20; i += 2) sum += get_be16(l3 + i);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  put_be16(l3 + 10, (uint16_t)~sum);
}

/* Removes n bytes just before the iCRC and sets PadCnt. */
static void trim_before_icrc(uint8_t *buf, size_t l3, size_t *len, size_t n, unsigned padcnt) {
  memmove(buf + *len - 4 - n, buf + *len - 4, 4);
  *len -= n;
  shrink_lengths(buf + l3, n);
  size_t bth = l3 + ((buf[l3] >> 4) == 4 ? 20 : 40) + 8;
  buf[bth + 1] = (uint8_t)((buf[bth + 1] & ~0x30) | padcnt << 4);
}

/* Recomputes the iCRC of a frame the library decodes, after a patch. */
static void fix_icrc(const writer *w, uint8_t *buf, size_t len, size_t l3) {
  size_t off = w->link == LINK_ETH ? 0 : l3;
  ornic_link link = w->link == LINK_ETH ? ORNIC_LINK_ETHERNET : ORNIC_LINK_RAW_IP;
  ornic_frame f;
  uint32_t icrc;
  /* A malformed frame's iCRC is fixed too when the lengths locate it: its
   * layout is then what the sender meant, not damage. */
  (void)ornic_frame_decode(&f, buf + off, len - off, link, ORNIC_ROCEV2_UDP_PORT);
  if (!f.icrc_present || ornic_icrc_compute(&f, buf + off, &icrc) != ORNIC_OK) return;
  put_u32le(buf + off + f.icrc_off, icrc);
}

static void apply_damage(const writer *w, const ornic_frame *f, const case_row *c, uint8_t *buf,
                         size_t *caplen, size_t *len) {
  size_t l3 = l3_offset(w, f);
  switch (c->dmg) {
  case DMG_CORRUPT: buf[*len - 10] ^= 0x01; break;
  case DMG_SNAP: *caplen = l3 + c->arg; break;
  case DMG_SHORT: *caplen = *len = *len - c->arg; break;
  case DMG_PORT53: put_be16(buf + l3 + 20 + 2, 53); break;
  case DMG_ARP:
    if (w->link == LINK_ETH)
      put_be16(buf + 12, 0x0806);
    else if (w->link == LINK_SLL)
      put_be16(buf + 14, 0x0806);
    else if (w->link == LINK_SLL2)
      put_be16(buf, 0x0806);
    else
      put_be16(buf + l3 + 20 + 2, 53); /* raw IP has no EtherType: make it non-RoCE anyway */
    break;
  case DMG_FRAG: put_be16(buf + l3 + 6, 0x2000); break; /* MF */
  case DMG_OPCODE: /* with a valid iCRC: an unknown opcode's iCRC can still be checked */
    buf[l3 + 20 + 8] = 0x1e;
    fix_icrc(w, buf, *len, l3);
    break;
  case DMG_TRIM_PAYLOAD:
    trim_before_icrc(buf, l3, len, c->arg, 0);
    fix_icrc(w, buf, *len, l3);
    *caplen = *len;
    break;
  case DMG_PAD_BYTE:
    buf[*len - 5] = 0x5a; /* the one pad byte of a 3-byte payload */
    fix_icrc(w, buf, *len, l3);
    break;
  case DMG_BTH_BYTE: /* iCRC recomputed: a malformed layout, not damage */
    buf[l3 + ((buf[l3] >> 4) == 4 ? 20 : 40) + 8 + c->arg] = c->val;
    fix_icrc(w, buf, *len, l3);
    break;
  case DMG_TRIM_PAD: /* iCRC recomputed: a malformed layout, not damage */
    trim_before_icrc(buf, l3, len, c->arg, 0);
    fix_icrc(w, buf, *len, l3);
    *caplen = *len;
    break;
  default: break;
  }
}

static int gen_cases(writer *w) {
  static uint8_t buf[MAX_FRAME];
  for (int k = 1; k <= NCASES; k++) {
    ornic_frame f;
    build_case(k, &f);
    size_t len = encode_for_link(w, &f, buf);
    if (!len) { /* keep frame numbers aligned with the table: write a non-RoCE stand-in */
      memset(buf, 0, 60);
      buf[0] = 0x45;
      len = 60;
    }
    size_t caplen = len;
    apply_damage(w, &f, &case_table[k], buf, &caplen, &len);
    write_record(w, buf, (uint32_t)caplen, (uint32_t)len);
    fprintf(stderr, "%d\t%s\n", k, case_table[k].what);
  }
  return 0;
}

/* 16 QPs, PSNs increasing; every 1000th pair of frames on a QP is swapped
 * (out of order) and every 5000th frame is sent twice (duplicate). */
static int gen_bulk(writer *w, unsigned long n) {
  static uint8_t buf[2][MAX_FRAME];
  uint32_t psn[16] = {0};
  size_t held_len = 0;
  for (unsigned long i = 0; i < n; i++) {
    ornic_frame f;
    unsigned q = (unsigned)(i % 16);
    base(&f, 4, 0x07, 0x100 + q, psn[q]++ & 0xffffff, 1024);
    f.ip.src[3] = (uint8_t)(1 + q % 4);
    size_t len = encode_for_link(w, &f, buf[0]);
    if (i % 16000 == 5) { /* hold this one back: it goes out after the next frame */
      memcpy(buf[1], buf[0], len);
      held_len = len;
      continue;
    }
    write_record(w, buf[0], (uint32_t)len, (uint32_t)len);
    if (held_len) {
      write_record(w, buf[1], (uint32_t)held_len, (uint32_t)held_len);
      held_len = 0;
    }
    if (i % 5000 == 7) write_record(w, buf[0], (uint32_t)len, (uint32_t)len);
  }
  return 0;
}

/* Conversation tests: host A 10.0.0.1 QP 0x100, host B 10.0.0.2 QP 0x200. */
#define QP_A 0x100u
#define QP_B 0x200u

static void emit(writer *w, ornic_frame *f) {
  static uint8_t buf[MAX_FRAME];
  size_t len = encode_for_link(w, f, buf);
  write_record(w, buf, (uint32_t)len, (uint32_t)len);
}

/* A SEND Only of 64 bytes, from A (b_to_a false) or from B. */
static void send_only(writer *w, bool from_b, uint32_t psn) {
  ornic_frame f;
  base(&f, 4, 0x04, from_b ? QP_A : QP_B, psn, 64);
  if (from_b) {
    f.ip.src[3] = 2;
    f.ip.dst[3] = 1;
  }
  emit(w, &f);
}

/* An RC ACK (syndrome 0x1f: ACK, unlimited credit) for PSN psn, MSN msn. */
static void ack(writer *w, bool from_b, uint32_t psn, uint32_t msn) {
  ornic_frame f;
  base(&f, 4, 0x11, from_b ? QP_A : QP_B, psn, 0);
  f.ext.aeth = (ornic_aeth){0x1f, msn};
  if (from_b) {
    f.ip.src[3] = 2;
    f.ip.dst[3] = 1;
  }
  emit(w, &f);
}

/* A sends PSNs 100-103, B 5000-5002; every SEND is acknowledged, in order:
 * the analysis must find one conversation and nothing wrong with it. */
static int gen_pair(writer *w) {
  for (uint32_t p = 100; p <= 102; p++) send_only(w, false, p); /* frames 1-3 */
  ack(w, true, 102, 3);                                         /* 4: pairs the QPs */
  send_only(w, true, 5000);                                     /* 5 */
  send_only(w, true, 5001);                                     /* 6 */
  ack(w, false, 5001, 2);                                       /* 7 */
  send_only(w, false, 103);                                     /* 8 */
  send_only(w, true, 5002);                                     /* 9 */
  ack(w, false, 5002, 3);                                       /* 10 */
  ack(w, true, 103, 4);                                         /* 11 */
  return 0;
}

/* A sends PSNs 10-14 and B acknowledges them all, but the capture lost 12
 * and 13: the ACK covers two PSNs the file never shows (not a network loss). */
static int gen_unseen(writer *w) {
  send_only(w, false, 10); /* 1 */
  send_only(w, false, 11); /* 2 */
  ack(w, true, 11, 2);     /* 3 */
  send_only(w, false, 14); /* 4: 12 and 13 are not in the capture */
  ack(w, true, 14, 5);     /* 5: covers 12 and 13 */
  return 0;
}

static int usage(void) {
  fputs(
      "usage: gen_test_capture cases [--link eth|raw|sll|sll2] [--ns] OUT\n"
      "       gen_test_capture bulk N OUT\n"
      "       gen_test_capture pair|unseen OUT\n",
      stderr);
  return 1;
}

int main(int argc, char **argv) {
  writer w = {NULL, LINK_ETH, 0, 0};
  if (argc < 3) return usage();
  const char *mode = argv[1];
  unsigned long n = 0;
  int i = 2;
  if (strcmp(mode, "bulk") == 0) n = strtoul(argv[i++], NULL, 0);
  for (; i < argc - 1; i++) {
    if (strcmp(argv[i], "--ns") == 0)
      w.ns = 1;
    else if (strcmp(argv[i], "--link") == 0 && i + 1 < argc - 1) {
      const char *l = argv[++i];
      w.link = !strcmp(l, "raw")    ? LINK_RAW
               : !strcmp(l, "sll")  ? LINK_SLL
               : !strcmp(l, "sll2") ? LINK_SLL2
                                    : LINK_ETH;
    } else
      return usage();
  }
  for (size_t k = 0; k < sizeof payload_bytes; k++) payload_bytes[k] = (uint8_t)(k * 7 + 1);
  w.fp = fopen(argv[argc - 1], "wb");
  if (!w.fp) {
    perror(argv[argc - 1]);
    return 1;
  }
  setvbuf(w.fp, NULL, _IOFBF, 1 << 20);
  write_file_header(&w);
  int rc = !strcmp(mode, "cases")    ? gen_cases(&w)
           : !strcmp(mode, "bulk")   ? gen_bulk(&w, n)
           : !strcmp(mode, "pair")   ? gen_pair(&w)
           : !strcmp(mode, "unseen") ? gen_unseen(&w)
                                     : usage();
  if (fclose(w.fp) != 0) rc = 1;
  return rc;
}
