/* SPDX-License-Identifier: MIT */
/* One number parser for every program (cli_num.h). strtoull with base 0
 * reads "010" as octal and accepts a sign and leading spaces; this parser
 * reads digits itself so that every program means the same by a number. */
#include "cli_num.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int fail(char *why, size_t cap, const char *what, const char *s) {
  if (why && cap) snprintf(why, cap, "expected %s, got '%s'", what, s);
  return -1;
}

static int range_fail(char *why, size_t cap, uint64_t min, uint64_t max, const char *s) {
  char what[96];
  snprintf(what, sizeof what, "a number from %llu to %llu", (unsigned long long)min,
           (unsigned long long)max);
  return fail(why, cap, what, s);
}

static int digit(int c, unsigned base) {
  int v = isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : 99;
  return v < (int)base ? v : -1;
}

/* Digits of s from *p on, in base; stops at the first non-digit. -1 on
 * overflow or no digit. */
static int digits(const char *s, size_t *p, unsigned base, uint64_t *v) {
  size_t i = *p, start = i;
  uint64_t x = 0;
  for (int d; (d = digit((unsigned char)s[i], base)) >= 0; i++) {
    if (x > (UINT64_MAX - (uint64_t)d) / base) return -1;
    x = x * base + (uint64_t)d;
  }
  if (i == start) return -1;
  *p = i;
  *v = x;
  return 0;
}

static int parse(const char *s, uint64_t *v, size_t *end) {
  size_t p = 0;
  unsigned base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    p = 2;
  }
  if (digits(s, &p, base, v) < 0) return -1;
  *end = p;
  return 0;
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                  size_t why_cap) {
  uint64_t v;
  size_t end;
  if (!s || parse(s, &v, &end) < 0 || s[end]) return range_fail(why, why_cap, min, max, s ? s : "");
  if (v < min || v > max) return range_fail(why, why_cap, min, max, s);
  *out = v;
  return 0;
}

/* K M G T, with an optional "iB". */
static int suffix_shift(const char *t) {
  static const char units[] = "KMGT";
  if (!*t) return 0;
  const char *u = strchr(units, toupper((unsigned char)t[0]));
  if (!u || !t[0]) return -1;
  if (t[1] && strcasecmp(t + 1, "iB") != 0) return -1;
  return 10 * (int)(u - units + 1);
}

int cli_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                   size_t why_cap) {
  uint64_t v;
  size_t end;
  int shift;
  if (!s || parse(s, &v, &end) < 0 || (shift = suffix_shift(s + end)) < 0) {
    char what[112];
    snprintf(what, sizeof what, "a size from %llu to %llu bytes (suffixes K, M, G, T)",
             (unsigned long long)min, (unsigned long long)max);
    return fail(why, why_cap, what, s ? s : "");
  }
  if (shift && v > (UINT64_MAX >> shift)) return range_fail(why, why_cap, min, max, s);
  v <<= shift;
  if (v < min || v > max) return range_fail(why, why_cap, min, max, s);
  *out = v;
  return 0;
}

/* strtod reads hex floats after a sign too ("-0x1p3" is -8), so the sign
 * is skipped before looking for the prefix. */
static bool hex_float(const char *s) {
  if (*s == '-') s++;
  return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

int cli_parse_double(const char *s, double min, double max, double *out, char *why,
                     size_t why_cap) {
  char what[96];
  snprintf(what, sizeof what, "a number from %g to %g", min, max);
  if (!s || !*s || isspace((unsigned char)*s) || *s == '+' || hex_float(s))
    return fail(why, why_cap, what, s ? s : "");
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno || !isfinite(v) || v < min || v > max) return fail(why, why_cap, what, s);
  *out = v;
  return 0;
}
