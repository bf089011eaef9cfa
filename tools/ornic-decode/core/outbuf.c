/* SPDX-License-Identifier: MIT */
/* Output buffer and hand-written formatters (see outbuf.h for why). */
#include "outbuf.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <string.h>

/* One byte more than the pairs: the string's NUL (GCC 15 warns when an
 * initializer drops it). */
const char dec_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
const char dec_hex_pairs[513] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627"
    "28292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f"
    "505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f7071727374757677"
    "78797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7"
    "c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
    "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
const uint32_t dec_pow10_32[10] = {1,      10,      100,      1000,      10000,
                                   100000, 1000000, 10000000, 100000000, 1000000000};

void dec_out_init(dec_out *o, FILE *fp, bool line_flush) {
  o->fp = fp;
  o->line_flush = line_flush;
  o->failed = false;
  o->len = 0;
  o->flushes = 0;
  o->sec_valid = false;
  o->frame_len = 0;
  o->frame_val = 0;
  o->v4_next = o->v6_next = 0;
  memset(o->v4, 0, sizeof o->v4);
  memset(o->v4_key, 0, sizeof o->v4_key);
  memset(o->v6, 0, sizeof o->v6);
}

void dec_out_flush(dec_out *o) {
  o->flushes++;
  if (o->len && fwrite(o->buf, 1, o->len, o->fp) != o->len) o->failed = true;
  o->len = 0;
  if (fflush(o->fp) != 0) o->failed = true;
}

void dec_out_mem_big(dec_out *o, const char *s, size_t n) {
  while (n > 0) {
    size_t chunk = n < DEC_OUT_CAP ? n : DEC_OUT_CAP;
    memcpy(dec_out_room(o, chunk), s, chunk);
    o->len += chunk;
    s += chunk;
    n -= chunk;
  }
}

void dec_out_str(dec_out *o, const char *s) { dec_out_mem(o, s, strlen(s)); }

/* Above 2^32: the low nine digits at a time in 32-bit arithmetic. */
char *dec_put_u64_big(char *p, uint64_t v) {
  char tmp[20];
  char *e = tmp + sizeof tmp, *q = e;
  while (v > UINT32_MAX) {
    uint32_t low = (uint32_t)(v % 1000000000u);
    v /= 1000000000u;
    for (int i = 0; i < 9; i++, low /= 10) *--q = (char)('0' + low % 10);
  }
  char *d = dec_put_u32(p, (uint32_t)v);
  memcpy(d, q, (size_t)(e - q));
  return d + (e - q);
}

/* Formats v afresh and keeps its text (see dec_put_frame). */
char *dec_put_frame_slow(dec_out *o, char *p, uint64_t v) {
  o->frame_len = (uint8_t)(dec_put_u64(o->frame_text, v) - o->frame_text);
  o->frame_val = v;
  memcpy(p, o->frame_text, sizeof o->frame_text);
  return p + o->frame_len;
}

/* Formats sec and the point after it into o->sec_text. */
void dec_sec_text(dec_out *o, int64_t sec) {
  char *q = o->sec_text;
  if (sec < 0) *q++ = '-';
  q = dec_put_u64(q, sec < 0 ? 0 - (uint64_t)sec : (uint64_t)sec);
  *q++ = '.';
  o->sec_len = (uint8_t)(q - o->sec_text);
  o->sec = sec;
  o->sec_valid = true;
}

void dec_out_time(dec_out *o, int64_t sec, uint32_t nsec) {
  dec_out_end(o, dec_put_time(o, dec_out_room(o, 34), sec, nsec));
}

static void ipv4_text(dec_addr_text *t, const uint8_t *a) {
  char *p = t->text;
  for (int i = 0; i < 4; i++) {
    if (i) *p++ = '.';
    p = dec_put_u32(p, a[i]);
  }
  t->len = (uint8_t)(p - t->text);
}

/* inet_ntop's text (RFC 5952, with glibc's IPv4-mapped forms). */
static void ipv6_text(dec_addr_text *t, const uint8_t *a) {
  if (!inet_ntop(AF_INET6, a, t->text, sizeof t->text)) strcpy(t->text, "?");
  t->len = (uint8_t)strlen(t->text);
}

/* The cached text of an address of n bytes, made on a miss (keys: the
 * IPv4 cache's numbers, kept in step). */
static const dec_addr_text *addr_text(dec_addr_text *cache, unsigned *next, const uint8_t *a,
                                      size_t n, uint32_t *keys) {
  for (unsigned i = 0; i < DEC_OUT_ADDR_CACHE; i++)
    if (cache[i].len && memcmp(cache[i].addr, a, n) == 0) return &cache[i];
  unsigned k = *next;
  dec_addr_text *t = &cache[k];
  *next = (k + 1) % DEC_OUT_ADDR_CACHE;
  memcpy(t->addr, a, n);
  if (keys) memcpy(&keys[k], a, 4);
  if (n == 4)
    ipv4_text(t, a);
  else
    ipv6_text(t, a);
  return t;
}

/* IPv4: the cache searched by 32-bit keys. */
static const dec_addr_text *v4_text(dec_out *o, const uint8_t *a) {
  uint32_t key;
  memcpy(&key, a, 4);
  for (unsigned i = 0; i < DEC_OUT_ADDR_CACHE; i++)
    if (o->v4_key[i] == key && o->v4[i].len) return &o->v4[i];
  return addr_text(o->v4, &o->v4_next, a, 4, o->v4_key);
}

char *dec_put_addr(dec_out *o, char *p, const uint8_t *a, bool ipv4) {
  if (ipv4) {
    const dec_addr_text *t = v4_text(o, a);
    memcpy(p, t->text, 16); /* at most 15 */
    return p + t->len;
  }
  const dec_addr_text *t = addr_text(o->v6, &o->v6_next, a, 16, NULL);
  memcpy(p, t->text, sizeof t->text);
  return p + t->len;
}

void dec_out_addr(dec_out *o, const uint8_t *a, bool ipv4) {
  dec_out_end(o, dec_put_addr(o, dec_out_room(o, 48), a, ipv4));
}

/* Escapes '"', '\\' and control characters; other bytes go as they are. */
static void json_escaped(dec_out *o, const unsigned char *s) {
  for (; *s; s++) {
    unsigned char c = *s;
    if (c == '"' || c == '\\') {
      dec_out_char(o, '\\');
      dec_out_char(o, (char)c);
    } else if (c < 0x20) {
      char esc[6] = {'\\', 'u', '0', '0', dec_hex_pairs[c * 2], dec_hex_pairs[c * 2 + 1]};
      dec_out_mem(o, esc, sizeof esc);
    } else {
      dec_out_char(o, (char)c);
    }
  }
}

void dec_out_json_str(dec_out *o, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t n = 0;
  while (u[n] >= 0x20 && u[n] != '"' && u[n] != '\\') n++; /* the usual case: nothing to escape */
  dec_out_char(o, '"');
  dec_out_mem(o, s, n);
  if (u[n]) json_escaped(o, u + n);
  dec_out_char(o, '"');
}

void dec_out_printf(dec_out *o, const char *fmt, ...) {
  enum { MAX = 1024 };
  char *p = dec_out_room(o, MAX);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(p, MAX, fmt, ap);
  va_end(ap);
  if (n > 0) o->len += (size_t)n < MAX ? (size_t)n : MAX - 1;
}
