/* SPDX-License-Identifier: MIT */
/* Name caches (see names.h). Filled on first use, one entry per value. */
#include "names.h"

#include <string.h>

dec_name_table dec_names_opcode, dec_names_short, dec_names_syndrome, dec_names_reason,
    dec_names_lint, dec_names_flag;

/* Plain: printable as a JSON string between quotes without escapes. */
static dec_name measure(const char *s, char *copy) {
  dec_name nm = {s, 0, false, false};
  if (!s) return nm;
  nm.n = strlen(s);
  if (nm.n < DEC_NAME_PAD) {
    memcpy(copy, s, nm.n + 1);
    nm.s = copy;
    nm.padded = true;
  }
  nm.plain = nm.n <= DEC_NAME_MAX;
  for (size_t i = 0; nm.plain && i < nm.n; i++) {
    unsigned char c = (unsigned char)s[i];
    nm.plain = c >= 0x20 && c != '"' && c != '\\';
  }
  return nm;
}

dec_name dec_name_fill(dec_name_table *t, unsigned k, const char *s) {
  k &= 0xff;
  t->v[k] = measure(s, t->copy[k]);
  t->have[k] = true;
  return t->v[k];
}
