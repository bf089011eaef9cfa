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
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

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
  uint8_t frame_len; /* the text of the last frame number printed (0: none) */
  uint64_t frame_val;
  char frame_text[24];
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

extern const char dec_digit_pairs[201]; /* "00" "01" ... "99" */
extern const char dec_hex_pairs[513];   /* "00" "01" ... "ff" */

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
#define DEC_FRAG_COPY 256 /* dec_frag_put writes the text in 64-byte moves: up to this many bytes */

typedef struct {
  uint64_t k0, k1;
  uint32_t len; /* 0: empty */
  char text[DEC_FRAG_COPY];
} dec_frag;

typedef struct {
  dec_frag e[DEC_FRAG_SLOTS];
} dec_frag_cache;

/* The slot for (k0, k1): its text when len != 0 and the keys match.
 * Fibonacci hashing (the top bits of a product by 2^64 / phi): keys that
 * differ by a little, as opcodes 0xc0 and 0xc9 do, land far apart. The
 * multiplier used before, 0xff51.., is close to 2^64 and moved a key that
 * differs by d only d / 376 of the range: JSON's BTH text for the ORNIC
 * WRITE and its ACK shared a slot and was made anew for every packet. */
static inline dec_frag *dec_frag_slot(dec_frag_cache *c, uint64_t k0, uint64_t k1) {
  uint64_t h = (k0 ^ (k1 * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;
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

/* f's text at p (needs its length rounded up to 64 bytes: DEC_FRAG_COPY at
 * most), 64 bytes at a time: a few moves each, not a memcpy call. */
static inline char *dec_frag_put(char *p, const dec_frag *f) {
  memcpy(p, f->text, 64); /* most fragments: one */
  for (uint32_t i = 64; i < f->len; i += 64) memcpy(p + i, f->text + i, 64);
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
static inline __attribute__((always_inline)) char *dec_put_u32(char *p, uint32_t v) {
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
static inline __attribute__((always_inline)) char *dec_put_u32(char *p, uint32_t v) {
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

/* The same, inlined at every call: the text printer's, where the compiler
 * called an out-of-line copy for some numbers; the JSON printer, with three
 * times as many numbers, keeps the compiler's choice (docs/PERFORMANCE.md). */
static inline __attribute__((always_inline)) char *dec_put_u64_inlined(char *p, uint64_t v) {
  return v <= UINT32_MAX ? dec_put_u32(p, (uint32_t)v) : dec_put_u64_big(p, v);
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 8 hex digits of v as ASCII in one 64-bit word, the most significant
 * in the lowest byte (SWAR: the nibbles spread one to a byte by three
 * shift-and-mask steps, then '0' or 'a' - 10 added to every byte at once). */
static inline uint64_t dec_hex8(uint32_t v) {
  uint64_t x = v;
  x = (x | x << 16) & 0x0000ffff0000ffffull;
  x = (x | x << 8) & 0x00ff00ff00ff00ffull;
  x = (x | x << 4) & 0x0f0f0f0f0f0f0f0full;
  x = __builtin_bswap64(x); /* the first digit first */
  uint64_t letters = (x + 0x0606060606060606ull) >> 4 & 0x0101010101010101ull; /* nibble > 9 */
  return x + 0x3030303030303030ull + letters * ('a' - '0' - 10);
}

/* The 16 hex digits of v at p. */
static inline void dec_hex16(char *p, uint64_t v) {
#if defined(__SSE2__) && defined(__x86_64__)
  /* One vector: the bytes most significant first, high and low nibbles
   * interleaved, '0' or 'a' - 10 added by a compare. */
  __m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
  __m128i nib = _mm_set1_epi8(0x0f);
  __m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), nib), _mm_and_si128(x, nib));
  __m128i letters =
      _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));
  d = _mm_add_epi8(d, _mm_add_epi8(letters, _mm_set1_epi8('0')));
  _mm_storeu_si128((__m128i *)(void *)p, d);
#else
  uint64_t hi = dec_hex8((uint32_t)(v >> 32)), lo = dec_hex8((uint32_t)v);
  memcpy(p, &hi, 8);
  memcpy(p + 8, &lo, 8);
#endif
}

/* "0x" and `digits` hex digits of v (0: as few as needed) at p; returns the
 * end. Writes max(10, 2 + the digits) bytes whatever the length (at most
 * 18). Always inlined: `digits` is a constant at every call, and with it
 * most of the branches go. */
static inline __attribute__((always_inline)) char *dec_put_hex(char *p, uint64_t v,
                                                               unsigned digits) {
  p[0] = '0';
  p[1] = 'x';
  if (digits == 16) {
    dec_hex16(p + 2, v);
    return p + 18;
  }
  unsigned n = v ? (unsigned)(67 - __builtin_clzll(v)) / 4 : 1; /* digits needed */
  if (digits > n) n = digits;
  if (n <= 8) {
    uint64_t y = dec_hex8((uint32_t)v) >> (8 * (8 - n)); /* the leading zeros shifted out */
    memcpy(p + 2, &y, 8);
    return p + 2 + n;
  }
  uint64_t hi = dec_hex8((uint32_t)(v >> 32)) >> (8 * (16 - n)), lo = dec_hex8((uint32_t)v);
  memcpy(p + 2, &hi, 8);
  memcpy(p + 2 + n - 8, &lo, 8);
  return p + 2 + n;
}
#else
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
#endif

/* ---- formatters into the buffer ----------------------------------------------- */

static inline void dec_out_u64(dec_out *o, uint64_t v) {
  char *p = dec_out_room(o, 20);
  o->len = (size_t)(dec_put_u64(p, v) - o->buf);
}

/* The frame number v at p (needs 24 bytes). Lines number their frames
 * 1, 2, 3, ...: the last number's text is kept and counted up in place,
 * which touches one digit nine times in ten. */
char *dec_put_frame_slow(dec_out *o, char *p, uint64_t v);
static inline char *dec_put_frame(dec_out *o, char *p, uint64_t v) {
  if (v != o->frame_val + 1 || o->frame_len == 0) return dec_put_frame_slow(o, p, v);
  unsigned i = o->frame_len - 1u;
  for (; o->frame_text[i] == '9'; i--) {
    if (i == 0) return dec_put_frame_slow(o, p, v); /* all nines: one digit more */
    o->frame_text[i] = '0';
  }
  o->frame_text[i]++;
  o->frame_val = v;
  memcpy(p, o->frame_text, sizeof o->frame_text);
  return p + o->frame_len;
}

/* Exactly 8 digits of v < 10^8, leading zeros included. */
static inline void dec_put_8_digits(char *p, uint32_t v) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t y = dec_swar8(v);
  memcpy(p, &y, 8);
#else
  for (int i = 6; i >= 0; i -= 2, v /= 100) memcpy(p + i, dec_digit_pairs + v % 100 * 2, 2);
#endif
}

void dec_sec_text(dec_out *o, int64_t sec);

/* seconds "." nine digits of nanoseconds at p (needs 34 bytes). The text of
 * the seconds and the point is kept: packets of the same second share it. */
static inline char *dec_put_time(dec_out *o, char *p, int64_t sec, uint32_t nsec) {
  if (!o->sec_valid || sec != o->sec) dec_sec_text(o, sec);
  memcpy(p, o->sec_text, sizeof o->sec_text);
  p += o->sec_len;
  if (nsec >= 1000000000u) nsec %= 1000000000u; /* a wrapped pcapng value: its last 9 digits */
  uint32_t first = nsec / 100000000u;
  p[0] = (char)('0' + first);
  dec_put_8_digits(p + 1, nsec - first * 100000000u);
  return p + 9;
}
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
