/* SPDX-License-Identifier: MIT */
/* The frame decoder's fast path (docs/PERFORMANCE.md): Ethernet II with at most one
 * 802.1Q/802.1ad tag, IPv4 without options, UDP, captured whole, and every
 * rule of docs/PROTOCOL.md section 5 kept; the layout of nearly every frame
 * a RoCEv2 capture holds.
 *
 * It checks first and writes after, as a hand-written parser would: the
 * checks read the frame and write nothing; a clean frame's fields are then
 * written once each, with the values the general path (ornic_frame_decode.c)
 * would leave there, and no frame_reset before them. The checks are every
 * check the general path makes on such a frame, so the fast path declines
 * every frame that is not clean (and every other layout), and the general
 * path decodes, flags and explains it. The fields a clean frame does not
 * set (an untagged frame's vlan_tpid/vlan_tci, lrh, extension headers the
 * opcode lacks) are left alone, as the general path leaves them.
 *
 * ornic_frame_decode itself is here, so that a frame of another link, or
 * one the checks decline, costs one jump more than the general path alone.
 *
 * What a clean frame costs is counted in instructions
 * (scripts/bench-decode.sh): ornic_frame is 496 bytes, and a hand-written
 * parser that fills 8 fields (tools/ornic-bench's reference) takes 130. So:
 * - the checks read what an opcode needs from fast_ops, 8 bytes an opcode
 *   derived from the library's opcode table at load time, and combine
 *   rules into masked or unsigned compares (each says which rules);
 * - the writes pack neighbouring fields that come from one wire word
 *   into one store, writing the padding between them too, never a field a
 *   clean frame leaves alone; on a CPU with SSSE3 the IP, UDP and BTH fields
 *   are byte shuffles of the wire's bytes, 16 bytes a store
 *   (write_fields_ssse3);
 * - what depends only on the tag (the offsets of IPv4, UDP, BTH and the
 *   extension headers) is copied from a table of the two cases, and the
 *   zeros after lrh (vcrc, vcrc_present, vcrc_off, reserved) are one run
 *   of wide stores;
 * - the work is split into functions that end in a jump to the next, each
 *   with few enough values live that none is spilled to the stack;
 * - the only branches that depend on the frame's kind are the extension
 *   headers' (one family test, then one per header), and a NAK's block
 *   count, in a function of its own.
 *
 * The extension headers are read by ornic_hdr_codec.h's readers, which the
 * general path uses too; the BTH's bit fields come from tables made at load
 * time with its reader. Byte order: wire bytes are read with ornic_conv.h's
 * byte-assembled loads, and a value of more than one byte is stored as its
 * member (or as uint16_t neighbours, be16x2), so the code means the same on
 * either byte order and has no branch for one order that CI would not run
 * (docs/PERFORMANCE.md, "Library decode"). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "ornic/errors.h"
#include "ornic/opcode.h"
#include "ornic_conv.h"
#include "ornic_frame_fast.h"
#include "ornic_hdr_codec.h"
#include "ornic_internal.h"

#define ETH_LEN 14
#define VLAN_LEN 4
#define IPV4_LEN 20 /* no options: IHL 5 */
#define UDP_LEN 8
/* From the IPv4 header: IPv4, UDP, BTH and iCRC, the least a RoCEv2 frame has. */
#define L3_MIN_LEN (IPV4_LEN + UDP_LEN + ORNIC_BTH_LEN + ORNIC_ICRC_LEN)

/* Constructors, noinline and __builtin_prefetch: without GNU C, no fast path. */
#if defined(__GNUC__)
#define FAST_PATH 1
#define NOINLINE __attribute__((noinline))
#else
#define FAST_PATH 0
#endif

#if FAST_PATH

/* Four wire bytes a, b, c, d as ornic_get_u32le reads them, to compare
 * under a mask without a byte swap. */
#define LE4(a, b, c, d) \
  ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* The big-endian wire bytes of v as ornic_get_u16le reads them: a 16-bit
 * wire field compared with a value costs no byte swap of the load. */
static inline uint16_t wire16(uint16_t v) { return (uint16_t)(v >> 8 | v << 8); }

/* The headers the fast path reads (write_ext); an opcode with another
 * goes to the general path. */
#define FAST_HDRS                                                                              \
  (ORNIC_HDR_RETH | ORNIC_HDR_OFFETH | ORNIC_HDR_AETH | ORNIC_HDR_OACKETH | ORNIC_HDR_NAKETH | \
   ORNIC_HDR_IMMDT)

/* The fixed bytes of the headers of hdrs (NAKETH: its fixed part). */
static unsigned fixed_len(unsigned hdrs) {
  unsigned n = 0;
  for (unsigned i = 0; i < ORNIC_HDR_COUNT; i++)
    if (hdrs >> i & 1) n += ornic_hdr_sizes[i];
  return n;
}

/* What the checks and the writes need of an opcode, from the library's
 * opcode table (ornic_opcode.c), in 8 bytes: one cache line holds eight
 * opcodes where the table holds two and a half, and each rule of
 * fast_transport is one or two instructions on these fields. */
typedef struct {
  uint16_t hdr_end; /* L3_MIN_LEN + the fixed bytes of the extension headers:
                       where they end, counted as the IP total length counts;
                       0 for an opcode the fast path does not decode (unknown,
                       or with headers outside FAST_HDRS), and no frame fits
                       that (fast_finish) */
  uint16_t cap;     /* the most payload and pad bytes beyond PadCnt: 0xFFFF
                      with ORNIC_OPF_PAYLOAD, else 0 (D5) */
  uint16_t hdrs;    /* ornic_opcode_info.hdrs */
  uint8_t align;    /* 3 for an ORNIC opcode (D7: whole words), else 0 */
  uint8_t nblocks;  /* NAKETH: the offset of its block count from the BTH; else 0 */
} fast_op;

/* The BTH's bytes 1, 4 and 8 split into their fields, which are
 * neighbours in ornic_bth: one load and one store each instead of a shift,
 * a mask and a store per field. One struct, so that one base register
 * reaches the three. Made at load time by the BTH's reader. */
static struct { uint8_t byte1[256][4], byte4[256][4], byte8[256][2]; } bth_bytes;
_Static_assert(offsetof(ornic_bth, tver) == offsetof(ornic_bth, se) + 3, "se..tver adjacent");
_Static_assert(offsetof(ornic_bth, resv6) == offsetof(ornic_bth, fecn) + 2, "fecn..resv6");
_Static_assert(offsetof(ornic_bth, destqp) == offsetof(ornic_bth, fecn) + 4, "fecn..destqp");
_Static_assert(offsetof(ornic_bth, resv7) == offsetof(ornic_bth, ackreq) + 1, "ackreq, resv7");

static void bth_bytes_init(void) {
  for (unsigned x = 0; x < 256; x++) {
    const uint8_t wire[ORNIC_BTH_LEN] = {0, (uint8_t)x, 0, 0, (uint8_t)x, 0, 0, 0, (uint8_t)x};
    ornic_bth b;
    memset(&b, 0, sizeof b); /* the padding byte before destqp is copied as 0 */
    ornic_bth_read(&b, wire);
    memcpy(bth_bytes.byte1[x], &b.se, 4);
    memcpy(bth_bytes.byte4[x], &b.fecn, 4);
    memcpy(bth_bytes.byte8[x], &b.ackreq, 2);
  }
}

/* All zero until fast_ops_init has run, and a zero entry declines every
 * frame: a decode that ran before it (another library's constructor) is
 * right, only slower. */
static fast_op fast_ops[256];

__attribute__((constructor)) static void fast_ops_init(void) {
  bth_bytes_init(); /* before fast_ops lets a frame reach the writes */
  for (unsigned i = 0; i < 256; i++) {
    const ornic_opcode_info *op = &ornic_opcode_table_[i];
    fast_op *o = &fast_ops[i];
    o->hdrs = op->hdrs;
    /* The fast path reads the headers right after the BTH: the DC block
     * (PROTOCOL.md 2.8) has bytes between them and goes to the general path. */
    if (!op->name || (op->hdrs & ~(unsigned)FAST_HDRS) || ornic_opcode_dc_len((uint8_t)i, 0))
      continue;
    o->hdr_end = (uint16_t)(L3_MIN_LEN + fixed_len(op->hdrs));
    o->cap = op->flags & ORNIC_OPF_PAYLOAD ? 0xffff : 0;
    o->align = op->transport == ORNIC_TRANSPORT_ORNIC ? 3 : 0;
    /* After the BTH and the headers of lower bits, inside the NAKETH. */
    if (op->hdrs & ORNIC_HDR_NAKETH)
      o->nblocks = (uint8_t)(ORNIC_BTH_LEN + fixed_len(op->hdrs & (ORNIC_HDR_NAKETH - 1)) +
                             ORNIC_NAKETH_NBLOCKS_OFF);
  }
}

/* ---- the writes: a clean frame, each field once ---- */

/* The extension headers after the BTH at bth (the checks found them
 * whole), in wire order, as ornic_ext_decode reads them. The headers come
 * in two families, RETH (OFFETH) and AETH (OACKETH or NAKETH), and a
 * frame's branches test only its own family's. */
static inline void write_ext(ornic_ext *e, const uint8_t *bth, unsigned hdrs) {
  const uint8_t *p = bth + ORNIC_BTH_LEN;
  e->present = (uint16_t)hdrs;
  if (!hdrs) return;
  if (hdrs & (ORNIC_HDR_RETH | ORNIC_HDR_OFFETH)) {
    if (hdrs & ORNIC_HDR_RETH) p = ornic_reth_read(&e->reth, p);
    if (hdrs & ORNIC_HDR_OFFETH) p = ornic_offeth_read(&e->offeth, p);
  }
  if (hdrs & (ORNIC_HDR_AETH | ORNIC_HDR_OACKETH | ORNIC_HDR_NAKETH)) {
    if (hdrs & ORNIC_HDR_AETH) p = ornic_aeth_read(&e->aeth, p);
    if (hdrs & ORNIC_HDR_OACKETH) p = ornic_oacketh_read(&e->oacketh, p);
    if (hdrs & ORNIC_HDR_NAKETH) p = ornic_naketh_read(&e->naketh, p);
  }
  if (hdrs & ORNIC_HDR_IMMDT) ornic_immdt_read(&e->immdt, p);
}
_Static_assert(ORNIC_HDR_RETH < ORNIC_HDR_OFFETH && ORNIC_HDR_OFFETH < ORNIC_HDR_AETH &&
                   ORNIC_HDR_AETH < ORNIC_HDR_OACKETH && ORNIC_HDR_OACKETH < ORNIC_HDR_NAKETH &&
                   ORNIC_HDR_NAKETH < ORNIC_HDR_IMMDT,
               "write_ext reads in the order of the bits, which is wire order");

/* The BTH at p, as ornic_bth_read (ornic_hdr_codec.h) reads it. */
static inline void write_bth(ornic_bth *b, const uint8_t *p) {
  b->opcode = p[0];
  memcpy(&b->se, bth_bytes.byte1[p[1]], 4);
  b->pkey = ornic_get_u16(p + 2);
  memcpy(&b->fecn, bth_bytes.byte4[p[4]], 4);  /* and the padding byte before destqp */
  b->destqp = ornic_get_u32(p + 4) & 0xffffff; /* one load, not three */
  memcpy(&b->ackreq, bth_bytes.byte8[p[8]], 2);
  b->psn = ornic_get_u32(p + 8) & 0xffffff;
}

/* Two big-endian 16-bit wire fields at p as the 4 bytes of two uint16_t
 * neighbours: one load, a swap and a rotate. */
static inline uint32_t be16x2(const uint8_t *p) {
  uint32_t x = ornic_get_u32(p), w;
  const uint16_t v[2] = {(uint16_t)(x >> 16), (uint16_t)x};
  memcpy(&w, v, 4);
  return w;
}

/* n big-endian 16-bit wire fields into n uint16_t fields that are
 * neighbours (checked below): the compiler swaps them in one register and
 * stores them at once. */
static inline void put_be16s(void *out, const uint8_t *p, unsigned n) {
  uint16_t v[4];
  for (unsigned i = 0; i < n; i++) v[i] = ornic_get_u16(p + 2 * i);
  memcpy(out, v, 2u * n);
}
_Static_assert(offsetof(ornic_eth, src) == 6, "dst, src adjacent");
_Static_assert(offsetof(ornic_eth, vlan_tci) == offsetof(ornic_eth, vlan_tpid) + 2, "TPID, TCI");
_Static_assert(sizeof(ornic_udp) == 8, "UDP: 4 adjacent u16");

/* An IPv4 address into a 16-byte field, zero-filled as the general path
 * leaves it: two 8-byte stores, in place of a memset and a copy. */
static inline void addr4(uint8_t out[16], const uint8_t *p) {
  uint32_t a[4] = {0, 0, 0, 0};
  memcpy(a, p, 4); /* the wire's bytes, in their order */
  memcpy(out, a, 16);
}

_Static_assert(offsetof(ornic_ip, frag) == offsetof(ornic_ip, id) + 2, "id, frag adjacent");

/* eth, ip and udp as decode_eth, decode_ipv4 and decode_udp set them. */
_Static_assert(offsetof(ornic_eth, ethertype) == offsetof(ornic_eth, vlan_tpid) + VLAN_LEN,
               "the TPID's place + 4 is the EtherType's");
_Static_assert(offsetof(ornic_frame, ip) == offsetof(ornic_frame, eth) + sizeof(ornic_eth) &&
                   offsetof(ornic_eth, ethertype) + 2 == sizeof(ornic_eth),
               "ip.version and ip.tos follow the EtherType");
static inline void write_eth(ornic_frame *f, const uint8_t *d, size_t l3) {
  memcpy(&f->eth, d, 12); /* dst and src */
  f->eth.has_vlan = l3 != ETH_LEN;
  /* TPID and TCI of a tagged frame; an untagged one's are left as they
   * were, as the general path leaves them. Without a branch (a quarter of
   * the frames of a PFC network are tagged, in no order a predictor
   * learns): the 4 bytes go VLAN_LEN past vlan_tpid when untagged, onto
   * the EtherType, ip.version and ip.tos, which are written next. */
  uint32_t tag = be16x2(d + 12);
  memcpy((uint8_t *)f + offsetof(ornic_frame, eth.vlan_tpid) + (ETH_LEN + VLAN_LEN - l3), &tag, 4);
  f->eth.ethertype = ORNIC_ETHERTYPE_IPV4;
}

static inline void write_headers(ornic_frame *f, const uint8_t *d, size_t l3) {
  const uint8_t *ip = d + l3;
  write_eth(f, d, l3);
  f->ip.version = 4; /* the wire's 0x45 (checked) */
  f->ip.tos = ip[1];
  f->ip.ttl = ip[8];
  f->ip.flow_label = 0;
  uint32_t id_frag = be16x2(ip + 4);
  memcpy(&f->ip.id, &id_frag, 4);
  f->ip.next_proto = ORNIC_IPPROTO_UDP;
  f->ip.hdr_len = IPV4_LEN;
  f->ip.checksum = ornic_get_u16(ip + 10);
  addr4(f->ip.src, ip + 12);
  addr4(f->ip.dst, ip + 16);
  put_be16s(&f->udp, ip + IPV4_LEN, 4);
}

/* l3_off, l4_off, bth_off and ext_off, neighbours in ornic_frame, for an
 * untagged and a tagged frame: two 16-byte copies instead of four sums. */
_Static_assert(offsetof(ornic_frame, ext_off) == offsetof(ornic_frame, l3_off) + 3 * sizeof(size_t),
               "l3_off..ext_off adjacent");
#define OFFS(l3) \
  (l3), (l3) + IPV4_LEN, (l3) + IPV4_LEN + UDP_LEN, (l3) + IPV4_LEN + UDP_LEN + ORNIC_BTH_LEN
/* Four values from fixed_offs + (l3 - ETH_LEN): l3 - ETH_LEN is 0 or
 * VLAN_LEN, 4, where the tagged row starts (one address, no multiply). */
static const size_t fixed_offs[2 * VLAN_LEN] = {OFFS(ETH_LEN), OFFS(ETH_LEN + VLAN_LEN)};

/* From vcrc to the end: vcrc, vcrc_present, vcrc_off and reserved are all
 * 0 on an Ethernet frame, and nothing else lies there. */
_Static_assert(offsetof(ornic_frame, lrh) + sizeof(ornic_lrh) == offsetof(ornic_frame, vcrc),
               "vcrc follows lrh");
_Static_assert(offsetof(ornic_frame, reserved) + 8 * sizeof(uint64_t) == sizeof(ornic_frame),
               "reserved is last");
#define ZERO_TAIL (sizeof(ornic_frame) - offsetof(ornic_frame, vcrc))

/* malformed, layers and a padding byte before lrh. */
_Static_assert(offsetof(ornic_frame, layers) == offsetof(ornic_frame, malformed) + 2, "layers");
_Static_assert(offsetof(ornic_frame, lrh) == offsetof(ornic_frame, malformed) + 4, "lrh");

/* The fields a clean frame's headers give, IPv4 header at l3: a function
 * of its own, which needs no more than these three values (write_clean
 * ends in a jump to it). */
static NOINLINE int write_fields(ornic_frame *f, const uint8_t *d, size_t l3) {
  const uint8_t *bth = d + l3 + IPV4_LEN + UDP_LEN;
  f->link = ORNIC_LINK_ETHERNET;
  f->l3 = ORNIC_L3_IPV4;
  write_headers(f, d, l3);
  write_bth(&f->bth, bth);
  write_ext(&f->ext, bth, fast_ops[bth[0]].hdrs);
  return ORNIC_OK;
}

#if defined(__x86_64__) || defined(__i386__)
#include <tmmintrin.h>
/* write_fields in fewer instructions on a CPU with SSSE3 (nearly every
 * x86-64 one; fast_writes_init asks): ip, udp and most of the BTH are the
 * wire's bytes moved and swapped, so each 16 bytes of them is one byte
 * shuffle (pshufb) of 16 wire bytes and one store, instead of a load, a
 * swap and a store per field. Bytes the shuffle zeroes (Z) are padding,
 * zeros (the rest of an IPv4 address, flow_label), constants ORed in after
 * (version, hdr_len), or fields written after it (the BTH bit fields,
 * ext.present). Offsets in the comments are the struct's. */
#define Z 0x80
static const uint8_t ssse3_masks[6][16] __attribute__((aligned(16))) = {
    /* ip 0-15 from IP bytes 0-15: version, tos, ttl, pad, flow_label, id,
     * frag, next_proto (17, checked), hdr_len, pad */
    {Z, 1, 8, Z, Z, Z, Z, Z, 5, 4, 7, 6, 9, Z, Z, Z},
    /* ip 16-31 from IP bytes 0-15: total_len, checksum, src 0-3, src 4-9 */
    {3, 2, Z, Z, 11, 10, 12, 13, 14, 15, Z, Z, Z, Z, Z, Z},
    /* ip 32-47 from IP bytes 12-27: src 10-15, dst 0-3, dst 4-9 */
    {Z, Z, Z, Z, Z, Z, 4, 5, 6, 7, Z, Z, Z, Z, Z, Z},
    /* ip 48-55, udp from IP bytes 12-27: dst 10-15, pad, the UDP header */
    {Z, Z, Z, Z, Z, Z, Z, Z, 9, 8, 11, 10, 13, 12, 15, 14},
    /* bth 0-15 from BTH bytes 0-15: opcode, se..tver, pad, pkey, fecn..resv6,
     * pad, destqp */
    {0, Z, Z, Z, Z, Z, 3, 2, Z, Z, Z, Z, 7, 6, 5, Z},
    /* bth 16-23, pad, ext 0-3: ackreq, resv7, pad, psn, pad, present, pad */
    {Z, Z, Z, Z, 11, 10, 9, Z, Z, Z, Z, Z, Z, Z, Z, Z}};
#undef Z
static const uint8_t ssse3_ip_consts[16] __attribute__((aligned(16))) = {4, [13] = IPV4_LEN};
_Static_assert(offsetof(ornic_ip, total_len) == 16 && offsetof(ornic_ip, checksum) == 20 &&
                   offsetof(ornic_ip, src) == 22 && offsetof(ornic_ip, dst) == 38 &&
                   offsetof(ornic_frame, udp) == offsetof(ornic_frame, ip) + 56,
               "ssse3_masks 1-3");
_Static_assert(offsetof(ornic_bth, pkey) == 6 && offsetof(ornic_bth, fecn) == 8 &&
                   offsetof(ornic_bth, destqp) == 12 && offsetof(ornic_bth, ackreq) == 16 &&
                   offsetof(ornic_bth, psn) == 20 &&
                   offsetof(ornic_frame, ext) == offsetof(ornic_frame, bth) + 28 &&
                   offsetof(ornic_ext, present) == 0 && offsetof(ornic_ext, rdeth) >= 4,
               "ssse3_masks 4-5: 32 bytes from bth end before ext.rdeth");

__attribute__((target("ssse3"))) static NOINLINE int write_fields_ssse3(ornic_frame *f,
                                                                        const uint8_t *d,
                                                                        size_t l3) {
  /* The IP header is 20 bytes and UDP 8: two loads of 16 cover them, and
   * the 16 bytes from the BTH end at the iCRC at the latest (checked). */
  const uint8_t *ip = d + l3, *bth = ip + IPV4_LEN + UDP_LEN;
  const __m128i *m = (const __m128i *)ssse3_masks;
  __m128i v0 = _mm_loadu_si128((const __m128i *)ip);
  __m128i v1 = _mm_loadu_si128((const __m128i *)(ip + 12));
  __m128i vb = _mm_loadu_si128((const __m128i *)bth);
  uint8_t *o = (uint8_t *)f + offsetof(ornic_frame, ip);
  f->link = ORNIC_LINK_ETHERNET;
  f->l3 = ORNIC_L3_IPV4;
  write_eth(f, d, l3); /* before ip: an untagged frame's tag lands on ip 0-1 */
  _mm_storeu_si128((__m128i *)o,
                   _mm_or_si128(_mm_shuffle_epi8(v0, m[0]), *(const __m128i *)ssse3_ip_consts));
  _mm_storeu_si128((__m128i *)(o + 16), _mm_shuffle_epi8(v0, m[1]));
  _mm_storeu_si128((__m128i *)(o + 32), _mm_shuffle_epi8(v1, m[2]));
  _mm_storeu_si128((__m128i *)(o + 48), _mm_shuffle_epi8(v1, m[3]));
  o = (uint8_t *)f + offsetof(ornic_frame, bth);
  _mm_storeu_si128((__m128i *)o, _mm_shuffle_epi8(vb, m[4]));
  _mm_storeu_si128((__m128i *)(o + 16), _mm_shuffle_epi8(vb, m[5]));
  memcpy(&f->bth.se, bth_bytes.byte1[bth[1]], 4);
  memcpy(&f->bth.fecn, bth_bytes.byte4[bth[4]], 4);
  memcpy(&f->bth.ackreq, bth_bytes.byte8[bth[8]], 2);
  write_ext(&f->ext, bth, fast_ops[bth[0]].hdrs);
  return ORNIC_OK;
}
#define FAST_SSSE3 1
#else
#define FAST_SSSE3 0
#endif

/* write_fields or write_fields_ssse3, as the CPU allows (fast_writes_init). */
static int (*write_fields_fn)(ornic_frame *, const uint8_t *, size_t) = write_fields;

__attribute__((constructor)) static void fast_writes_init(void) {
#if FAST_SSSE3
  __builtin_cpu_init(); /* a constructor may run before libgcc's own */
  if (__builtin_cpu_supports("ssse3")) write_fields_fn = write_fields_ssse3;
#endif
}

int ornic_frame_fast_portable(int on) {
#if FAST_SSSE3
  int ssse3 = __builtin_cpu_supports("ssse3") != 0;
  write_fields_fn = on || !ssse3 ? write_fields : write_fields_ssse3;
  return ssse3;
#else
  (void)on;
  return 0;
#endif
}

/* A clean frame of len bytes: IPv4 header at l3, IP total length total,
 * extension headers ending at hdr_end (as fast_op.hdr_end counts).
 * Everything frame_reset and the general path set. */
static NOINLINE int write_clean(ornic_frame *f, const uint8_t *d, size_t l3, size_t len,
                                size_t total, size_t hdr_end) {
  /* The fields from the arguments and the constants here; the headers'
   * fields in write_fields, which has the registers to itself (nothing
   * spills). l3 comes third, where write_fields takes it. */
  const uint8_t *bth = d + l3 + IPV4_LEN + UDP_LEN;
  size_t end = l3 + total, icrc = end - ORNIC_ICRC_LEN, off = l3 + hdr_end - ORNIC_ICRC_LEN;
  uint8_t pad = bth_bytes.byte1[bth[1]][2];
  f->pad_len = pad;
  f->caplen = len;
  f->roce_end = end;
  f->icrc_off = icrc;
  f->payload_off = off;
  f->payload = d + off;
  f->payload_len = icrc - (off + pad);
  f->payload_caplen = icrc - (off + pad);
  f->icrc = ornic_get_u32le(d + icrc);
  f->ip.total_len = (uint32_t)total;
  f->icrc_present = true;
  memcpy(&f->l3_off, fixed_offs + (l3 - ETH_LEN), 4 * sizeof(size_t));
  static const uint8_t ml[4] = {
      0, 0, ORNIC_LAYER_ETH | ORNIC_LAYER_L3 | ORNIC_LAYER_UDP | ORNIC_LAYER_BTH,
      0}; /* malformed 0, layers */
  memcpy(&f->malformed, ml, 4);
  memset(&f->vcrc, 0, ZERO_TAIL);
  return write_fields_fn(f, d, l3);
}

/* ---- the checks: read the frame, write nothing ---- */

/* The frame's transport, BTH at l3 + 28, once the extension headers are
 * known to end at hdr_end (as fast_op.hdr_end counts): PadCnt fits, only
 * an opcode with payload has any, and an ORNIC opcode is whole words. Then
 * the writes, or the general path. The frame's UDP port was checked: the
 * general path would pass it as well, and gets ORNIC_UDP_PORT_ANY, so that
 * the port need not be kept. */
static inline int fast_finish(ornic_frame *f, const uint8_t *d, size_t len, size_t l3, size_t total,
                              size_t hdr_end) {
  const uint8_t *b = d + l3 + IPV4_LEN + UDP_LEN;
  const fast_op *op = &fast_ops[b[0]];
  size_t pad = (b[1] >> 4) & 3;
  /* Three rules of D5 in one unsigned compare of what follows the headers
   * beyond PadCnt: the headers fit (else the difference wraps), PadCnt fits
   * (same; hdr_end 0 leaves at least total - 3 > cap), and it is payload
   * only on an opcode that carries it. Then D7 (L3_MIN_LEN is whole words:
   * the BTH..iCRC bytes are whole words when total is). */
  if (total - hdr_end - pad > op->cap || (total & op->align))
    return ornic_frame_decode_general(f, d, len, ORNIC_LINK_ETHERNET, ORNIC_UDP_PORT_ANY);
  return write_clean(f, d, l3, len, total, hdr_end);
}

/* fast_finish for an opcode with a NAKETH, whose length is in the frame:
 * its fixed part fits (the block count is inside the bytes) and it has
 * blocks (D6). A function of its own, so that the common path does not
 * hold the registers it needs. */
static NOINLINE int fast_nak(ornic_frame *f, const uint8_t *d, size_t len, size_t l3,
                             size_t total) {
  const uint8_t *b = d + l3 + IPV4_LEN + UDP_LEN;
  const fast_op *op = &fast_ops[b[0]];
  size_t nblocks = 0;
  if (op->nblocks + (size_t)(ORNIC_NAKETH_FIXED_LEN - 4) <=
      total - IPV4_LEN - UDP_LEN - ORNIC_ICRC_LEN)
    nblocks = b[op->nblocks];
  if (!nblocks)
    return ornic_frame_decode_general(f, d, len, ORNIC_LINK_ETHERNET, ORNIC_UDP_PORT_ANY);
  return fast_finish(f, d, len, l3, total, op->hdr_end + 2 * nblocks);
}

int ornic_frame_decode(ornic_frame *f, const uint8_t *d, size_t len, ornic_link link,
                       uint16_t port) {
  /* Every read up to the IP total length's check below is inside these
   * bytes. */
  if (link != ORNIC_LINK_ETHERNET || len < ETH_LEN + L3_MIN_LEN) goto general;
  uint16_t type = ornic_get_u16(d + 12);
  /* The IPv4 header's offset, as arithmetic (each offset from it is an add). */
  size_t l3 =
      ETH_LEN + VLAN_LEN * (size_t)(type == ORNIC_ETHERTYPE_VLAN || type == ORNIC_ETHERTYPE_QINQ);
  /* EtherType IPv4, then version 4 with IHL 5 (no options): one compare. */
  if ((ornic_get_u32le(d + l3 - 2) & LE4(0xff, 0xff, 0xff, 0)) != LE4(0x08, 0x00, 0x45, 0))
    goto general;
  /* Bytes 6 to 9: no fragment (the flags but DF, the offset) and protocol
   * UDP (TTL, byte 8, masked out). */
  if ((ornic_get_u32le(d + l3 + 6) & LE4(0x3f, 0xff, 0, 0xff)) != LE4(0, 0, 0, ORNIC_IPPROTO_UDP))
    goto general;
  /* The IP datagram holds IPv4, UDP, BTH and iCRC, and was captured whole. */
  size_t total = ornic_get_u16(d + l3 + 2);
  if (total < L3_MIN_LEN || total > len - l3) goto general;
  /* The iCRC's line, which write_clean reads last and the checks never
   * touch: a frame longer than a line has it in a line of its own, which
   * a ring of frames (the bench's, or a capture's read buffer) has out of
   * L1. Asked for now, it arrives while the checks run. */
  __builtin_prefetch(d + l3 + total - ORNIC_ICRC_LEN);
  /* The UDP datagram ends the IP datagram (D3), to the port asked for. */
  if (ornic_get_u16le(d + l3 + IPV4_LEN + 4) != wire16((uint16_t)(total - IPV4_LEN))) goto general;
  if (port != ORNIC_UDP_PORT_ANY && ornic_get_u16le(d + l3 + IPV4_LEN + 2) != wire16(port))
    goto general;
  const fast_op *op = &fast_ops[d[l3 + IPV4_LEN + UDP_LEN]];
  if (op->nblocks) return fast_nak(f, d, len, l3, total);
  return fast_finish(f, d, len, l3, total, op->hdr_end);
general:
  return ornic_frame_decode_general(f, d, len, link, port);
}

#else /* !FAST_PATH */

int ornic_frame_decode(ornic_frame *f, const uint8_t *d, size_t len, ornic_link link,
                       uint16_t port) {
  return ornic_frame_decode_general(f, d, len, link, port);
}

int ornic_frame_fast_portable(int on) {
  (void)on;
  return 0;
}

#endif
