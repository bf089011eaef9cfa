/* SPDX-License-Identifier: MIT */
/* Output buffer and hand-written formatters (see outbuf.h for why). */
#include "outbuf.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <string.h>

void dec_out_init(dec_out *o, FILE *fp, bool line_flush) {
  o->fp = fp;
  o->line_flush = line_flush;
  o->failed = false;
  o->len = 0;
}

void dec_out_flush(dec_out *o) {
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

void dec_out_u64(dec_out *o, uint64_t v) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[sizeof tmp - ++n] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  dec_out_mem(o, tmp + sizeof tmp - n, n);
}

void dec_out_i64(dec_out *o, int64_t v) {
  if (v < 0) {
    dec_out_char(o, '-');
    dec_out_u64(o, 0 - (uint64_t)v);
  } else {
    dec_out_u64(o, (uint64_t)v);
  }
}

void dec_out_hex(dec_out *o, uint64_t v, unsigned digits) {
  static const char hexd[] = "0123456789abcdef";
  unsigned n = 1;
  while (n < 16 && (v >> (4 * n))) n++;
  if (digits > n) n = digits;
  char *p = dec_out_room(o, 2 + n);
  p[0] = '0';
  p[1] = 'x';
  for (unsigned i = 0; i < n; i++) p[1 + n - i] = hexd[(v >> (4 * i)) & 0xf];
  o->len += 2 + n;
}

void dec_out_time(dec_out *o, int64_t sec, uint32_t nsec) {
  dec_out_i64(o, sec);
  char *p = dec_out_room(o, 10);
  p[0] = '.';
  for (int i = 9; i >= 1; i--) {
    p[i] = (char)('0' + nsec % 10);
    nsec /= 10;
  }
  o->len += 10;
}

void dec_out_addr(dec_out *o, const uint8_t *a, bool ipv4) {
  if (ipv4) {
    for (int i = 0; i < 4; i++) {
      if (i) dec_out_char(o, '.');
      dec_out_u64(o, a[i]);
    }
    return;
  }
  char text[INET6_ADDRSTRLEN];
  dec_out_str(o, inet_ntop(AF_INET6, a, text, sizeof text) ? text : "?");
}

void dec_out_json_str(dec_out *o, const char *s) {
  static const char hexd[] = "0123456789abcdef";
  dec_out_char(o, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      dec_out_char(o, '\\');
      dec_out_char(o, (char)c);
    } else if (c < 0x20) {
      char esc[6] = {'\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 0xf]};
      dec_out_mem(o, esc, sizeof esc);
    } else {
      dec_out_char(o, (char)c);
    }
  }
  dec_out_char(o, '"');
}

void dec_out_eol(dec_out *o) {
  dec_out_char(o, '\n');
  if (o->line_flush) dec_out_flush(o);
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
