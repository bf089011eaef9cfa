/* SPDX-License-Identifier: MIT */
/* A large output buffer with allocation-free formatters for the per-packet
 * printers. printf re-parses its format for every field; at millions of
 * lines that parsing dominates, so numbers are formatted by hand here and
 * handed to stdio in big chunks. The formatters write straight into the
 * buffer: digits two at a time from a table, hex a byte at a time, no
 * division loop per digit, no memcpy call for a known length, no strlen of
 * a name whose length is known. */
#ifndef DEC_OUTBUF_H
#define DEC_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define DEC_OUT_CAP (256u * 1024u)
#define DEC_OUT_ADDR_CACHE 8 /* address texts remembered (a capture has few addresses) */

/* An address and its text. The texts are copied out 16 (IPv4) or 48 bytes
 * at a time, whatever their length: a few moves, no memcpy call. */
typedef struct {
  uint8_t addr[16];
  uint8_t len; /* 0: empty */
  char text[48];
} dec_addr_text;

typedef struct {
  FILE *fp;
  bool line_flush; /* flush at every end of line (-l, or a terminal) */
  bool failed;     /* a write to fp failed (disk full, closed pipe) */
  size_t len;
  uint64_t flushes; /* how often buf was emptied (a span written across one moved) */
  /* The texts of the last seconds and addresses printed: consecutive
   * packets share them. */
  bool sec_valid;
  uint8_t sec_len;
  int64_t sec;
  char sec_text[24];
  unsigned v4_next, v6_next;           /* the cache slots to replace next */
  uint32_t v4_key[DEC_OUT_ADDR_CACHE]; /* the IPv4 addresses, as numbers (len 0: empty) */
  dec_addr_text v4[DEC_OUT_ADDR_CACHE], v6[DEC_OUT_ADDR_CACHE];
  char buf[DEC_OUT_CAP];
} dec_out;

#define DEC_NAME_PAD 48

/* A string and its length, for names printed often (names.h). plain: it
 * needs no escaping in JSON; padded: s has DEC_NAME_PAD readable bytes. */
typedef struct {
  const char *s;
  size_t n;
  bool plain, padded;
} dec_name;

void dec_out_init(dec_out *o, FILE *fp, bool line_flush);
/* Writes the buffer to fp and fflush()es fp. */
void dec_out_flush(dec_out *o);

/* Makes room for n more bytes (n <= DEC_OUT_CAP). */
static inline char *dec_out_room(dec_out *o, size_t n) {
  if (o->len + n > DEC_OUT_CAP) dec_out_flush(o);
  return o->buf + o->len;
}

static inline void dec_out_char(dec_out *o, char c) {
  *dec_out_room(o, 1) = c;
  o->len++;
}

void dec_out_mem_big(dec_out *o, const char *s, size_t n);

/* Inline so that fixed-size copies (literals) compile to a few moves. */
static inline void dec_out_mem(dec_out *o, const char *s, size_t n) {
  if (n > DEC_OUT_CAP / 2) {
    dec_out_mem_big(o, s, n);
    return;
  }
  memcpy(dec_out_room(o, n), s, n);
  o->len += n;
}

/* A string literal: its length is known at compile time. */
#define dec_out_lit(o, lit) dec_out_mem((o), "" lit, sizeof(lit) - 1)

static inline void dec_out_name(dec_out *o, dec_name nm) { dec_out_mem(o, nm.s, nm.n); }

/* ---- writers into a reserved span: p advances, returned ----------------------
 * A printer takes a span of the buffer (dec_out_room), writes into it with
 * the dec_put_* helpers, each of which says how many bytes it may write,
 * and gives it back with dec_out_span (the end, and room for what comes
 * next) or dec_out_end. The bounds are the printers' to keep. */

/* Commits the bytes up to p and makes room for n more; returns where to
 * write them. */
static inline char *dec_out_span(dec_out *o, char *p, size_t n) {
  o->len = (size_t)(p - o->buf);
  return dec_out_room(o, n);
}

static inline void dec_out_end(dec_out *o, char *p) { o->len = (size_t)(p - o->buf); }

static inline char *dec_put_mem(char *p, const char *s, size_t n) {
  memcpy(p, s, n);
  return p + n;
}

/* A name at p (needs DEC_NAME_PAD bytes or, if longer, its length). */
static inline char *dec_put_name(char *p, dec_name nm) {
  if (!nm.padded) return dec_put_mem(p, nm.s, nm.n);
  memcpy(p, nm.s, DEC_NAME_PAD); /* a few moves */
  return p + nm.n;
}

/* A string literal: a few moves. */
#define DEC_PUT_LIT(p, lit) dec_put_mem((p), "" lit, sizeof(lit) - 1)

extern const char dec_digit_pairs[200]; /* "00" "01" ... "99" */
extern const char dec_hex_pairs[512];   /* "00" "01" ... "ff" */

extern const uint32_t dec_pow10_32[10];

/* The decimal digits of v: log10 from the bit length, then one compare. */
static inline unsigned dec_u32_digits(uint32_t v) {
  unsigned t = ((32u - (unsigned)__builtin_clz(v | 1)) * 1233u) >> 12;
  return t + (v >= dec_pow10_32[t]);
}

/* ---- remembered fragments ------------------------------------------------------
 * Much of a line depends on a few fields that repeat from packet to packet
 * (an opcode and its flags, a conversation's addresses, the analysis'
 * flags): such a fragment is formatted once per distinct key and copied
 * after that. A small direct-mapped cache per kind of fragment; a fragment
 * longer than DEC_FRAG_LEN is simply not kept. */
#define DEC_FRAG_LEN 232
#define DEC_FRAG_SLOTS 32

typedef struct {
  uint64_t k0, k1;
  uint32_t len; /* 0: empty */
  char text[DEC_FRAG_LEN];
} dec_frag;

typedef struct {
  dec_frag e[DEC_FRAG_SLOTS];
} dec_frag_cache;

/* The slot for (k0, k1): its text when len != 0 and the keys match. */
static inline dec_frag *dec_frag_slot(dec_frag_cache *c, uint64_t k0, uint64_t k1) {
  uint64_t h = (k0 ^ (k1 * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  return &c->e[h >> 59];
}

/* The slot for an IPv4 address pair (the two 4-byte addresses at src and
 * dst), keyed (*k0, 1): text, JSON and their caches all key addresses so. */
static inline dec_frag *dec_frag_ip4_slot(dec_frag_cache *c, const uint8_t *src, const uint8_t *dst,
                                          uint64_t *k0) {
  uint32_t s4, d4;
  memcpy(&s4, src, 4);
  memcpy(&d4, dst, 4);
  *k0 = s4 | (uint64_t)d4 << 32;
  return dec_frag_slot(c, *k0, 1);
}

static inline bool dec_frag_hit(const dec_frag *f, uint64_t k0, uint64_t k1) {
  return f->len && f->k0 == k0 && f->k1 == k1;
}

/* f's text at p (needs 64 bytes, or its length if longer). */
static inline char *dec_frag_put(char *p, const dec_frag *f) {
  if (f->len > 64) return dec_put_mem(p, f->text, f->len);
  memcpy(p, f->text, 64); /* a few moves, not a memcpy call */
  return p + f->len;
}

/* Keeps the n bytes at text (made for keys k0, k1) in f, if they fit. */
static inline void dec_frag_keep(dec_frag *f, uint64_t k0, uint64_t k1, const char *text,
                                 size_t n) {
  if (n == 0 || n > DEC_FRAG_LEN) return;
  memcpy(f->text, text, n);
  f->len = (uint32_t)n;
  f->k0 = k0;
  f->k1 = k1;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 8 decimal digits of v < 10^8 as ASCII in one 64-bit word, the most
 * significant in the lowest byte (SWAR: divisions by 10^4, 10^2 and 10 done
 * in 32-, 16- and 8-bit lanes by multiplication). */
static inline uint64_t dec_swar8(uint32_t v) {
  uint64_t y = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
  uint64_t q = ((y * 10486) >> 20) & 0x0000007f0000007full; /* /100 in each 32-bit lane */
  y = q | (y - q * 100) << 16;
  q = ((y * 103) >> 10) & 0x000f000f000f000full; /* /10 in each 16-bit lane */
  y = q | (y - q * 10) << 8;
  return y + 0x3030303030303030ull;
}

/* v in decimal at p; returns the end. Writes 8 bytes whatever the length
 * (at most 10 bytes). */
static inline char *dec_put_u32(char *p, uint32_t v) {
  if (v < 10) {
    *p = (char)('0' + v);
    return p + 1;
  }
  if (v < 100) {
    memcpy(p, dec_digit_pairs + v * 2, 2);
    return p + 2;
  }
  if (v < 100000000u) {
    unsigned n = dec_u32_digits(v);
    uint64_t y = dec_swar8(v) >> (8 * (8 - n)); /* the leading zeros shifted out */
    memcpy(p, &y, 8);
    return p + n;
  }
  uint32_t top = v / 100000000u; /* 1 to 42 */
  if (top < 10) {
    *p++ = (char)('0' + top);
  } else {
    memcpy(p, dec_digit_pairs + top * 2, 2);
    p += 2;
  }
  uint64_t y = dec_swar8(v % 100000000u);
  memcpy(p, &y, 8);
  return p + 8;
}
#else
/* v in decimal at p (at most 10 bytes); returns the end. */
static inline char *dec_put_u32(char *p, uint32_t v) {
  if (v < 10) {
    *p = (char)('0' + v);
    return p + 1;
  }
  unsigned n = dec_u32_digits(v);
  char *e = p + n;
  while (v >= 100) {
    e -= 2;
    memcpy(e, dec_digit_pairs + (v % 100) * 2, 2);
    v /= 100;
  }
  if (v >= 10)
    memcpy(e - 2, dec_digit_pairs + v * 2, 2);
  else
    e[-1] = (char)('0' + v);
  return p + n;
}
#endif

/* v in decimal at p (at most 20 bytes). */
char *dec_put_u64_big(char *p, uint64_t v);
static inline char *dec_put_u64(char *p, uint64_t v) {
  return v <= UINT32_MAX ? dec_put_u32(p, (uint32_t)v) : dec_put_u64_big(p, v);
}

/* "0x" and `digits` hex digits of v (0: as few as needed) at p (at most 18
 * bytes), a byte at a time from a table. */
static inline char *dec_put_hex(char *p, uint64_t v, unsigned digits) {
  unsigned n = v ? (unsigned)(67 - __builtin_clzll(v)) / 4 : 1; /* digits needed */
  if (digits > n) n = digits;
  p[0] = '0';
  p[1] = 'x';
  char *e = p + 2 + n, *q = e;
  for (unsigned i = n; i >= 2; i -= 2, v >>= 8) {
    q -= 2;
    memcpy(q, dec_hex_pairs + (v & 0xff) * 2, 2);
  }
  if (n & 1) q[-1] = dec_hex_pairs[(v & 0xf) * 2 + 1];
  return e;
}

/* ---- formatters into the buffer ----------------------------------------------- */

static inline void dec_out_u64(dec_out *o, uint64_t v) {
  char *p = dec_out_room(o, 20);
  o->len = (size_t)(dec_put_u64(p, v) - o->buf);
}

void dec_out_i64(dec_out *o, int64_t v);

/* seconds "." nine digits of nanoseconds at p (needs 34 bytes). */
char *dec_put_time(dec_out *o, char *p, int64_t sec, uint32_t nsec);
/* An address as dec_out_addr writes it, at p (needs 48 bytes). */
char *dec_put_addr(dec_out *o, char *p, const uint8_t *addr, bool ipv4);

/* "0x" then exactly `digits` hex digits (0: as few as needed). */
static inline void dec_out_hex(dec_out *o, uint64_t v, unsigned digits) {
  char *p = dec_out_room(o, 18);
  o->len = (size_t)(dec_put_hex(p, v, digits) - o->buf);
}

void dec_out_str(dec_out *o, const char *s);
/* seconds "." nine digits of nanoseconds. */
void dec_out_time(dec_out *o, int64_t sec, uint32_t nsec);
/* IPv4 dotted quad (first 4 bytes) or IPv6/GID text (as inet_ntop writes it). */
void dec_out_addr(dec_out *o, const uint8_t *addr, bool ipv4);
/* s as a JSON string literal, quotes included. */
void dec_out_json_str(dec_out *o, const char *s);
/* printf into the buffer, for rare output (reports); at most 1 KiB. */
void dec_out_printf(dec_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends a line; flushes when line buffered. */
static inline void dec_out_eol(dec_out *o) {
  dec_out_char(o, '\n');
  if (o->line_flush) dec_out_flush(o);
}

#endif
