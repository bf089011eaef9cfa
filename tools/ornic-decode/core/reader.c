/* SPDX-License-Identifier: MIT */
/* The tool's capture reader (see reader.h for what it takes on). Where the
 * time went with libpcap: a 16-byte fread and a packet-sized fread per
 * record through stdio, copying every byte twice, and the kernel's copy into
 * a stdio buffer 16 bytes past a page boundary, markedly slower than into an
 * aligned one. Here one read() of 128 KiB (cat's size, small enough to stay
 * in the L2 cache while it is decoded) goes into a page-aligned buffer and
 * records are handed out where they lie. A record that straddles two reads
 * is moved down just far enough that the next read still starts on a page.
 *
 * The messages and the order of the checks are libpcap 1.10's (sf-pcap.c
 * pcap_next_packet; sf-pcapng.c read_block, pcap_ng_next_packet,
 * process_idb_options), so that a damaged file reads the same whichever
 * reader met it. Two deliberate differences: libpcap refuses a pcapng
 * interface whose link type or snaplen differs from the first one's; here
 * every interface keeps its own. And libpcap cannot read a section whose
 * byte order differs from the one before; here each section has its own,
 * as in Wireshark (ng_section_order). */
#include "reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/dlt.h>

#define RD_PAGE 4096u
#define RD_CHUNK (128u * 1024u)     /* bytes per read() */
#define RD_MAX_SNAPLEN 262144u      /* libpcap's MAXIMUM_SNAPLEN, for our link types */
#define RD_INIT_CAP (512u * 1024u)  /* a chunk + the largest pcap record, page-aligned */
#define RD_NG_MAX_BLOCK (16u << 20) /* libpcap's INITIAL_MAX_BLOCKSIZE */
#define RD_OPEN_MAX (8u << 20)      /* bytes before the first IDB kept for a replay */
#define RD_SHB_MAX (1u << 20)       /* libpcap's BT_SHB_INSANE_MAX */
#define PCAP_HDR_LEN 24
#define MAGIC_USEC 0xa1b2c3d4u
#define MAGIC_NSEC 0xa1b23c4du
#define MAGIC_KUZNETZOV 0xa1b2cd34u
#define NG_BOM 0x1a2b3c4du
#define LT_LINKTYPE(x) ((x)&0x03ffffffu) /* the upper 6 bits are FCS information */
#define LINKTYPE_RAW 101u

enum { BT_SHB = 0x0a0d0d0a, BT_IDB = 1, BT_PB = 2, BT_SPB = 3, BT_EPB = 6 };
enum { OPT_ENDOFOPT = 0, IF_TSRESOL = 9, IF_TSOFFSET = 14 };
enum { SC_PASS, SC_UP_DEC, SC_DOWN_DEC, SC_UP_BIN, SC_DOWN_BIN };

struct dec_rd_iface {
  int dlt;
  uint32_t snapshot;
  uint64_t tsresol; /* ticks per second */
  int64_t tsoffset; /* seconds added */
  int scale;        /* SC_*: ticks to nanoseconds, as libpcap scales them */
  uint64_t factor;
};

typedef struct {
  uint32_t type;
  const uint8_t *body; /* after type and length */
  size_t blen;         /* body bytes before the trailing length */
  int64_t off, end;    /* stream offsets of the block and of the byte after it */
} ng_blk;

/* ---- bytes ----------------------------------------------------------------- */

static inline uint32_t rd32(const dec_reader *r, const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return r->swapped ? __builtin_bswap32(v) : v;
}

static inline uint16_t rd16(const dec_reader *r, const uint8_t *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return r->swapped ? __builtin_bswap16(v) : v;
}

static inline uint64_t rd64(const dec_reader *r, const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return r->swapped ? __builtin_bswap64(v) : v;
}

static size_t align_up(size_t n) { return (n + RD_PAGE - 1) & ~(size_t)(RD_PAGE - 1); }

static int fail(dec_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(dec_reader *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err, sizeof r->err, fmt, ap);
  va_end(ap);
  return -1;
}

/* libpcap's text when fread failed: its stream error (capture.c then shows
 * the input's own explanation instead, as for libpcap). */
static int read_failed(dec_reader *r) {
  return fail(r, "error reading dump file: %s", strerror(r->read_errno));
}

/* ---- the buffer ---------------------------------------------------------------- */

static int grow(dec_reader *r, size_t cap) {
  uint8_t *nb;
  if (posix_memalign((void **)&nb, RD_PAGE, cap) != 0) return -1;
  memcpy(nb, r->buf, r->end);
  free(r->buf);
  r->buf = nb;
  r->cap = cap;
  return 0;
}

/* Moves the unread bytes down so that they end on a page: the next read()
 * lands page-aligned. Only a partial record moves, once per read. */
static void compact(dec_reader *r) {
  size_t have = r->end - r->pos, dst = align_up(have) - have;
  if (dst == r->pos) return;
  memmove(r->buf + dst, r->buf + r->pos, have);
  r->base += (int64_t)r->pos - (int64_t)dst;
  r->pos = dst;
  r->end = dst + have;
}

/* Room for n bytes from pos, and for a read of RD_CHUNK after them. While
 * opening nothing moves or goes (libpcap may be given it all), up to
 * RD_OPEN_MAX. */
static int make_room(dec_reader *r, size_t n) {
  size_t need;
  if (r->keep) {
    need = align_up(r->pos + n);
    if (need <= r->cap && r->cap - r->end >= RD_CHUNK) return 0;
    if (need < r->end + RD_CHUNK) need = r->end + RD_CHUNK;
    if (need > RD_OPEN_MAX) return -1;
  } else {
    compact(r);
    need = align_up(r->pos + n) + RD_CHUNK;
    if (need <= r->cap) return 0;
  }
  return grow(r, align_up(need));
}

/* Makes n bytes readable at pos. 1: they are; 0: the input ended first;
 * -1: it failed first (read_errno). Whatever arrived stays readable. */
static int fill(dec_reader *r, size_t n) {
  while (r->end - r->pos < n) {
    if (r->eof) return 0;
    if (r->failed) return -1;
    if (make_room(r, n) < 0) {
      r->failed = true;
      r->read_errno = ENOMEM;
      return -1;
    }
    size_t room = r->cap - r->end;
    ssize_t k = dec_input_read(r->in, r->buf + r->end, room < RD_CHUNK ? room : RD_CHUNK);
    if (k > 0) {
      r->end += (size_t)k;
    } else if (k == 0) {
      r->eof = true;
    } else {
      r->failed = true;
      r->read_errno = errno;
    }
  }
  return 1;
}

static inline size_t avail(const dec_reader *r) { return r->end - r->pos; }

/* ---- link types ---------------------------------------------------------------- */

/* LINKTYPE_ value -> DLT_ value, for the link types the decoder reads (as
 * libpcap's linktype_to_dlt maps them); -1 for the others. */
static int dlt_of(uint32_t linktype) {
  switch (linktype) {
  case 1: return DLT_EN10MB;
  case LINKTYPE_RAW: return DLT_RAW;
  case 113: return DLT_LINUX_SLL;
  case 197: return 197; /* DLT_ERF */
  case 228: return 228; /* DLT_IPV4 */
  case 229: return 229; /* DLT_IPV6 */
  case 247: return 247; /* DLT_INFINIBAND */
  case 276: return 276; /* DLT_LINUX_SLL2 */
  default: return -1;
  }
}

/* libpcap's pcap_adjust_snapshot for these link types. */
static uint32_t adjust_snapshot(uint32_t snaplen) {
  return snaplen == 0 || snaplen > RD_MAX_SNAPLEN ? RD_MAX_SNAPLEN : snaplen;
}

/* ---- classic pcap ------------------------------------------------------------------------ */

static int classic_open(dec_reader *r) {
  if (fill(r, PCAP_HDR_LEN) <= 0) return DEC_READER_LIBPCAP;
  const uint8_t *p = r->buf;
  uint32_t magic;
  memcpy(&magic, p, 4);
  r->swapped = magic != MAGIC_USEC && magic != MAGIC_NSEC && magic != MAGIC_KUZNETZOV;
  if (r->swapped) magic = __builtin_bswap32(magic);
  if (magic != MAGIC_USEC && magic != MAGIC_NSEC && magic != MAGIC_KUZNETZOV)
    return DEC_READER_LIBPCAP;
  /* Versions before 2.4 may have caplen and len the other way round: libpcap's. */
  if (rd16(r, p + 4) != 2 || rd16(r, p + 6) != 4) return DEC_READER_LIBPCAP;
  r->dlt = dlt_of(LT_LINKTYPE(rd32(r, p + 20)));
  if (r->dlt < 0) return DEC_READER_LIBPCAP; /* libpcap names the link type it found */
  r->nsec_ts = magic == MAGIC_NSEC;
  r->snapshot = adjust_snapshot(rd32(r, p + 16));
  r->rec_hdr = magic == MAGIC_KUZNETZOV ? 24 : 16;
  if (magic == MAGIC_KUZNETZOV && r->dlt == DLT_EN10MB)
    r->snapshot += 14; /* libpcap's allowance for a faked Ethernet header */
  r->limit = r->snapshot < RD_MAX_SNAPLEN ? r->snapshot : RD_MAX_SNAPLEN;
  r->pos = PCAP_HDR_LEN;
  return DEC_READER_OURS;
}

/* The record header could not be read whole: the end, or damage. */
static int classic_short_header(dec_reader *r) {
  if (r->failed) return read_failed(r);
  if (avail(r) == 0) return 0;
  return fail(r, "truncated dump file; tried to read %zu header bytes, only got %zu", r->rec_hdr,
              avail(r));
}

/* caplen is above the snapshot or libpcap's maximum: refused, or (up to the
 * maximum) read whole and cut to the snapshot, as libpcap does. */
static int classic_oversized(dec_reader *r, uint32_t caplen) {
  if (caplen > RD_MAX_SNAPLEN) {
    if (caplen > r->snapshot)
      return fail(r, "invalid packet capture length %u, bigger than snaplen of %d", caplen,
                  (int)r->snapshot);
    return fail(r, "invalid packet capture length %u, bigger than maximum of %u", caplen,
                RD_MAX_SNAPLEN);
  }
  if (fill(r, r->rec_hdr + caplen) > 0) return 1;
  if (r->failed) return read_failed(r);
  size_t got = avail(r) - r->rec_hdr;
  if (got < r->snapshot)
    return fail(r, "truncated dump file; tried to read %d captured bytes, only got %zu",
                (int)r->snapshot, got);
  return fail(r, "truncated dump file; tried to read %u captured bytes, only got %zu", caplen, got);
}

static int classic_short_data(dec_reader *r, uint32_t caplen) {
  if (r->failed) return read_failed(r);
  return fail(r, "truncated dump file; tried to read %u captured bytes, only got %zu", caplen,
              avail(r) - r->rec_hdr);
}

static int classic_next(dec_reader *r, dec_rec *rec) {
  size_t h = r->rec_hdr;
  r->rec_off = r->base + (int64_t)r->pos;
  if (avail(r) < h && fill(r, h) <= 0) return classic_short_header(r);
  uint32_t caplen = rd32(r, r->buf + r->pos + 8);
  if (caplen > r->limit) {
    if (classic_oversized(r, caplen) < 0) return -1;
  } else if (avail(r) < h + caplen && fill(r, h + caplen) <= 0) {
    return classic_short_data(r, caplen);
  }
  const uint8_t *p = r->buf + r->pos; /* fill may have moved it */
  uint32_t frac = rd32(r, p + 4);
  rec->sec = rd32(r, p);
  rec->nsec = r->nsec_ts ? frac : frac * 1000u; /* wraps as libpcap's scaling does */
  rec->caplen = caplen <= r->snapshot ? caplen : r->snapshot;
  rec->len = rd32(r, p + 12);
  rec->data = p + h;
  rec->dlt = r->dlt;
  r->pos += h + caplen;
  return 1;
}

/* ---- pcapng blocks ----------------------------------------------------------------- */

static int too_short(dec_reader *r, uint32_t type) {
  return fail(r, "block of type %u in pcapng dump file is too short", type);
}

/* A Section Header Block is written in its section's byte order, which its
 * byte-order magic (after type and length) gives: each section may have its
 * own (pcapng spec, section 4.1; Wireshark reads such files), so the order
 * is taken from there before the block's length is read. libpcap 1.10 reads
 * the length in the previous section's order and fails ("pcapng block size
 * 469762048 > maximum" for a 28-byte block). A magic that is neither order
 * leaves it as it was, for ng_shb to report. The type reads the same in
 * both orders. */
static void ng_section_order(dec_reader *r) {
  uint32_t type, bom;
  memcpy(&type, r->buf + r->pos, 4);
  if (type != BT_SHB || (avail(r) < 12 && fill(r, 12) <= 0)) return;
  memcpy(&bom, r->buf + r->pos + 8, 4);
  if (bom != NG_BOM && bom != __builtin_bswap32(NG_BOM)) return;
  r->mixed_order |= r->swapped != (bom != NG_BOM);
  r->swapped = bom != NG_BOM;
}

/* The next block, whole and checked as libpcap's read_block checks it.
 * 1: *b; 0: the end of the file, between blocks; -1: damaged. */
static int ng_block(dec_reader *r, ng_blk *b) {
  b->off = r->base + (int64_t)r->pos;
  if (avail(r) < 8 && fill(r, 8) <= 0) {
    if (r->failed) return read_failed(r);
    if (avail(r) == 0) return 0;
    return fail(r, "truncated pcapng dump file; tried to read %zu bytes, only got %zu", (size_t)8,
                avail(r));
  }
  ng_section_order(r);
  uint32_t type = rd32(r, r->buf + r->pos), tlen = rd32(r, r->buf + r->pos + 4);
  if (tlen < 12)
    return fail(r, "block in pcapng dump file has a length of %u < %zu", tlen, (size_t)12);
  if (tlen % 4)
    return fail(r, "block in pcapng dump file has a length of %u that is not a multiple of 4",
                tlen);
  if (tlen > RD_NG_MAX_BLOCK)
    return fail(r, "pcapng block size %u > maximum %u", tlen, RD_NG_MAX_BLOCK);
  if (avail(r) < tlen && fill(r, tlen) <= 0) {
    if (r->failed) return read_failed(r);
    return fail(r, "truncated pcapng dump file; tried to read %zu bytes, only got %zu",
                (size_t)tlen - 8, avail(r) - 8);
  }
  const uint8_t *p = r->buf + r->pos;
  if (rd32(r, p + tlen - 4) != tlen)
    return fail(r, "block total length in header and trailer don't match");
  b->type = type;
  b->body = p + 8;
  b->blen = tlen - 12;
  b->end = b->off + tlen;
  r->pos += tlen;
  return 1;
}

/* if_tsresol's byte: ticks per second, and whether a power of two. */
static int tsresol_of(dec_reader *r, uint8_t v, uint64_t *resol, bool *binary) {
  if (v & 0x80) {
    unsigned shift = v & 0x7f;
    if (shift > 63)
      return fail(r, "Interface Description Block if_tsresol option resolution 2^-%u is too high",
                  shift);
    *binary = true;
    *resol = (uint64_t)1 << shift;
    return 0;
  }
  if (v > 19)
    return fail(r, "Interface Description Block if_tsresol option resolution 10^-%u is too high",
                v);
  *binary = false;
  *resol = 1;
  for (unsigned i = 0; i < v; i++) *resol *= 10;
  return 0;
}

typedef struct {
  uint64_t tsresol;
  int64_t tsoffset;
  bool binary, saw_resol, saw_offset;
} idb_opts;

static int idb_option(dec_reader *r, uint16_t code, uint16_t olen, const uint8_t *v, idb_opts *o) {
  switch (code) {
  case IF_TSRESOL:
    if (olen != 1)
      return fail(r, "Interface Description Block has if_tsresol option with length %u != 1", olen);
    if (o->saw_resol)
      return fail(r, "Interface Description Block has more than one if_tsresol option");
    o->saw_resol = true;
    return tsresol_of(r, v[0], &o->tsresol, &o->binary);
  case IF_TSOFFSET:
    if (olen != 8)
      return fail(r, "Interface Description Block has if_tsoffset option with length %u != 8",
                  olen);
    if (o->saw_offset)
      return fail(r, "Interface Description Block has more than one if_tsoffset option");
    o->saw_offset = true;
    o->tsoffset = (int64_t)rd64(r, v);
    return 0;
  default: return 0;
  }
}

/* The options libpcap reads: the timestamp resolution and offset. */
static int idb_options(dec_reader *r, const uint8_t *p, size_t left, idb_opts *o) {
  while (left != 0) {
    if (left < 4) return too_short(r, BT_IDB);
    uint16_t code = rd16(r, p), olen = rd16(r, p + 2);
    size_t padded = ((size_t)olen + 3) / 4 * 4;
    if (left - 4 < padded) return too_short(r, BT_IDB);
    if (code == OPT_ENDOFOPT) {
      if (olen != 0)
        return fail(r, "Interface Description Block has opt_endofopt option with length %u != 0",
                    olen);
      return 0;
    }
    if (idb_option(r, code, olen, p + 4, o) < 0) return -1;
    p += 4 + padded;
    left -= 4 + padded;
  }
  return 0;
}

/* How libpcap turns this interface's ticks into nanoseconds. */
static void set_scale(dec_rd_iface *f, bool binary) {
  const uint64_t ns = 1000000000u;
  if (f->tsresol == ns) {
    f->scale = SC_PASS;
  } else if (binary) {
    f->scale = f->tsresol > ns ? SC_DOWN_BIN : SC_UP_BIN;
  } else if (f->tsresol > ns) {
    f->scale = SC_DOWN_DEC;
    f->factor = f->tsresol / ns;
  } else {
    f->scale = SC_UP_DEC;
    f->factor = ns / f->tsresol;
  }
}

static dec_rd_iface *new_iface(dec_reader *r) {
  if (r->nifaces == r->ifaces_cap) {
    uint32_t n = r->ifaces_cap ? r->ifaces_cap * 2 : 4;
    dec_rd_iface *a = n > r->ifaces_cap ? realloc(r->ifaces, n * sizeof *a) : NULL;
    if (!a) return NULL;
    r->ifaces = a;
    r->ifaces_cap = n;
  }
  return &r->ifaces[r->nifaces++];
}

/* An Interface Description Block: the interface's link type, snaplen and
 * timestamps. Its link type and snaplen may differ from the first's. */
static int ng_idb(dec_reader *r, const ng_blk *b) {
  if (b->blen < 8) return too_short(r, BT_IDB);
  idb_opts o = {.tsresol = 1000000}; /* microseconds unless said */
  if (idb_options(r, b->body + 8, b->blen - 8, &o) < 0) return -1;
  dec_rd_iface *f = new_iface(r);
  if (!f) return fail(r, "out of memory for per-interface information");
  f->dlt = dlt_of(rd16(r, b->body));
  f->snapshot = adjust_snapshot(rd32(r, b->body + 4));
  f->tsresol = o.tsresol;
  f->tsoffset = o.tsoffset;
  f->factor = 0;
  set_scale(f, o.binary);
  return 0;
}

/* A new section: its own byte order (ng_section_order), the same major
 * version, new interfaces. */
static int ng_shb(dec_reader *r, const ng_blk *b) {
  if (b->blen < 16) return too_short(r, BT_SHB);
  if (rd32(r, b->body) != NG_BOM)
    return fail(r, "the file has a section with a bad byte order magic field");
  uint16_t major = rd16(r, b->body + 4);
  if (major != 1) return fail(r, "unknown pcapng savefile major version number %u", major);
  r->nifaces = 0;
  return 0;
}

/* Ticks since 1970 -> seconds and nanoseconds, with libpcap's arithmetic
 * (unsigned 64-bit, its wrap-arounds included). */
static void ng_time(const dec_rd_iface *f, uint64_t t, dec_rec *rec) {
  uint64_t sec, frac;
  if (f->scale == SC_PASS) { /* constant divisors: the common cases cost no division */
    sec = t / 1000000000u;
    frac = t % 1000000000u;
  } else if (f->tsresol == 1000000) {
    sec = t / 1000000u;
    frac = t % 1000000u * 1000u;
  } else {
    sec = t / f->tsresol;
    frac = t % f->tsresol;
    if (f->scale == SC_UP_DEC)
      frac *= f->factor;
    else if (f->scale == SC_DOWN_DEC)
      frac /= f->factor;
    else
      frac = frac * 1000000000u / f->tsresol;
  }
  rec->sec = (int64_t)(sec + (uint64_t)f->tsoffset);
  rec->nsec = (uint32_t)frac;
}

typedef struct {
  uint32_t iface, caplen, len;
  uint64_t ticks;
  size_t hdr; /* fixed part before the packet data */
} ng_pkt;

static int ng_packet(dec_reader *r, const ng_blk *b, const ng_pkt *k, dec_rec *rec) {
  if (k->iface >= r->nifaces)
    return fail(r,
                "a packet arrived on interface %u, but there's no Interface Description Block for "
                "that interface",
                k->iface);
  const dec_rd_iface *f = &r->ifaces[k->iface];
  if (k->caplen > f->snapshot)
    return fail(r, "invalid packet capture length %u, bigger than snaplen of %d", k->caplen,
                (int)f->snapshot);
  ng_time(f, k->ticks, rec);
  if (b->blen - k->hdr < k->caplen) return too_short(r, b->type);
  rec->data = b->body + k->hdr;
  rec->caplen = k->caplen;
  rec->len = k->len;
  rec->dlt = f->dlt;
  r->rec_off = b->end;
  return 1;
}

/* An Enhanced Packet Block, or (obsolete_pb) the obsolete Packet Block,
 * whose 32-bit interface field is a 16-bit interface and a drop count. */
static int ng_epb(dec_reader *r, const ng_blk *b, dec_rec *rec, bool obsolete_pb) {
  if (b->blen < 20) return too_short(r, b->type);
  const uint8_t *p = b->body;
  ng_pkt k = {.iface = obsolete_pb ? rd16(r, p) : rd32(r, p),
              .ticks = (uint64_t)rd32(r, p + 4) << 32 | rd32(r, p + 8),
              .caplen = rd32(r, p + 12),
              .len = rd32(r, p + 16),
              .hdr = 20};
  return ng_packet(r, b, &k, rec);
}

/* A Simple Packet Block: interface 0, no timestamp, caplen the snapshot at
 * most. */
static int ng_spb(dec_reader *r, const ng_blk *b, dec_rec *rec) {
  if (b->blen < 4) return too_short(r, b->type);
  ng_pkt k = {.iface = 0, .len = rd32(r, b->body), .hdr = 4};
  uint32_t snap = r->nifaces ? r->ifaces[0].snapshot : r->snapshot;
  k.caplen = k.len < snap ? k.len : snap;
  return ng_packet(r, b, &k, rec);
}

static int ng_next(dec_reader *r, dec_rec *rec) {
  for (;;) {
    ng_blk b = {0};
    int rc = ng_block(r, &b);
    if (rc <= 0) return rc;
    switch (b.type) {
    case BT_EPB: return ng_epb(r, &b, rec, false);
    case BT_SPB: return ng_spb(r, &b, rec);
    case BT_PB: return ng_epb(r, &b, rec, true);
    case BT_IDB: rc = ng_idb(r, &b); break;
    case BT_SHB: rc = ng_shb(r, &b); break;
    default: rc = 0; break; /* statistics, name resolution, custom...: not packets */
    }
    if (rc < 0) return -1;
  }
}

/* The Section Header Block as libpcap's pcap_ng_check_header reads it
 * (byte order, a sane length, version 1.0 or 1.2), and the blocks up to the
 * first interface. Anything libpcap would complain about is left to it. */
static int ng_open(dec_reader *r) {
  if (fill(r, 12) <= 0) return DEC_READER_LIBPCAP;
  uint32_t bom;
  memcpy(&bom, r->buf + 8, 4);
  r->swapped = bom != NG_BOM;
  if (r->swapped && __builtin_bswap32(bom) != NG_BOM) return DEC_READER_LIBPCAP;
  uint32_t tlen = rd32(r, r->buf + 4);
  if (tlen < 28 || tlen > RD_SHB_MAX || fill(r, tlen) <= 0) return DEC_READER_LIBPCAP;
  uint16_t major = rd16(r, r->buf + 12), minor = rd16(r, r->buf + 14);
  if (major != 1 || (minor != 0 && minor != 2)) return DEC_READER_LIBPCAP;
  r->pos = tlen;
  for (;;) {
    ng_blk b = {0};
    if (ng_block(r, &b) <= 0) return DEC_READER_LIBPCAP;
    if (b.type == BT_EPB || b.type == BT_SPB || b.type == BT_PB) return DEC_READER_LIBPCAP;
    if (b.type != BT_IDB) continue;
    if (ng_idb(r, &b) < 0 || r->ifaces[0].dlt < 0) return DEC_READER_LIBPCAP;
    r->dlt = r->ifaces[0].dlt;
    r->snapshot = r->ifaces[0].snapshot;
    r->rec_off = b.end; /* where libpcap stands after opening */
    return DEC_READER_OURS;
  }
}

/* ---- the interface --------------------------------------------------------------- */

int dec_reader_open(dec_reader *r, dec_input *in) {
  memset(r, 0, sizeof *r);
  r->in = in;
  r->keep = true;
  r->cap = RD_INIT_CAP;
  if (posix_memalign((void **)&r->buf, RD_PAGE, r->cap) != 0) {
    r->buf = NULL;
    r->cap = 0;
    return DEC_READER_LIBPCAP;
  }
  if (fill(r, 4) <= 0) return DEC_READER_LIBPCAP;
  uint32_t magic;
  memcpy(&magic, r->buf, 4);
  r->pcapng = magic == BT_SHB; /* the same in either byte order */
  int rc = r->pcapng ? ng_open(r) : classic_open(r);
  r->keep = false;
  return rc;
}

const uint8_t *dec_reader_replay(const dec_reader *r, size_t *n) {
  *n = r->end;
  return r->buf;
}

int dec_reader_next_slow(dec_reader *r, dec_rec *rec) {
  return r->pcapng ? ng_next(r, rec) : classic_next(r, rec);
}

void dec_reader_free(dec_reader *r) {
  free(r->buf);
  free(r->ifaces);
  r->buf = NULL;
  r->ifaces = NULL;
}
