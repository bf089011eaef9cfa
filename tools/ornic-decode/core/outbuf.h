/* SPDX-License-Identifier: MIT */
/* A large output buffer with allocation-free formatters for the per-packet
 * printers. printf re-parses its format for every field; at millions of
 * lines that parsing dominates, so numbers are formatted by hand here and
 * handed to stdio in big chunks. */
#ifndef DEC_OUTBUF_H
#define DEC_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define DEC_OUT_CAP (256u * 1024u)

typedef struct {
  FILE *fp;
  bool line_flush; /* flush at every end of line (-l, or a terminal) */
  bool failed;     /* a write to fp failed (disk full, closed pipe) */
  size_t len;
  char buf[DEC_OUT_CAP];
} dec_out;

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

void dec_out_str(dec_out *o, const char *s);
void dec_out_u64(dec_out *o, uint64_t v);
void dec_out_i64(dec_out *o, int64_t v);
/* "0x" then exactly `digits` hex digits (0: as few as needed). */
void dec_out_hex(dec_out *o, uint64_t v, unsigned digits);
/* seconds "." nine digits of nanoseconds. */
void dec_out_time(dec_out *o, int64_t sec, uint32_t nsec);
/* IPv4 dotted quad (first 4 bytes) or IPv6/GID text. */
void dec_out_addr(dec_out *o, const uint8_t *addr, bool ipv4);
/* s as a JSON string literal, quotes included. */
void dec_out_json_str(dec_out *o, const char *s);
/* printf into the buffer, for rare output (reports); at most 1 KiB. */
void dec_out_printf(dec_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends a line; flushes when line buffered. */
void dec_out_eol(dec_out *o);

#endif
