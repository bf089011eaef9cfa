/* SPDX-License-Identifier: MIT */
/* Names printed with every packet (opcodes, AETH syndromes, NAK reasons,
 * warnings, analysis flags), looked up and measured once per value: the
 * library's name functions return static strings, so a copy and a length
 * can be kept, and whether the text needs JSON escaping is known. A hit is
 * a load and a test, inline. */
#ifndef DEC_NAMES_H
#define DEC_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include <ornic/ornic.h>

#include "outbuf.h"

/* The longest name kept with its length; longer ones count as not plain and
 * go the slow way (dec_out_json_str), so a span's size stays bounded. At
 * least DEC_NAME_PAD: dec_put_name may write that many bytes. */
#define DEC_NAME_MAX 200

typedef struct {
  bool have[256];
  dec_name v[256];
  char copy[256][DEC_NAME_PAD]; /* the short names, to be copied DEC_NAME_PAD bytes at a time */
} dec_name_table;

extern dec_name_table dec_names_opcode, dec_names_short, dec_names_syndrome, dec_names_reason,
    dec_names_lint, dec_names_flag;

/* Measures s into t's entry k and returns it (s NULL: an empty name). */
dec_name dec_name_fill(dec_name_table *t, unsigned k, const char *s);

/* ornic_opcode_name: "RC SEND Only" */
static inline dec_name dec_opcode_name(uint8_t op) {
  dec_name_table *t = &dec_names_opcode;
  return t->have[op] ? t->v[op] : dec_name_fill(t, op, ornic_opcode_name(op));
}

/* The opcode table's short_name ("RC_SEND_ONLY"); s NULL if unknown. */
static inline dec_name dec_opcode_short_name(uint8_t op) {
  dec_name_table *t = &dec_names_short;
  return t->have[op] ? t->v[op] : dec_name_fill(t, op, ornic_opcode_info_get(op)->short_name);
}

static inline dec_name dec_syndrome_name(uint8_t syn) {
  dec_name_table *t = &dec_names_syndrome;
  return t->have[syn] ? t->v[syn] : dec_name_fill(t, syn, ornic_aeth_syndrome_name(syn));
}

static inline dec_name dec_nak_reason_name(uint8_t reason) {
  dec_name_table *t = &dec_names_reason;
  return t->have[reason] ? t->v[reason]
                         : dec_name_fill(t, reason, ornic_naketh_reason_name(reason));
}

/* i < ORNIC_LINT_COUNT */
static inline dec_name dec_lint_name(unsigned i) {
  dec_name_table *t = &dec_names_lint;
  i &= 0xff;
  return t->have[i] ? t->v[i] : dec_name_fill(t, i, ornic_lint_name(i));
}

/* ornic_an_flag_name(1 << bit); s NULL for a bit without a name */
static inline dec_name dec_an_flag_name(unsigned bit) {
  dec_name_table *t = &dec_names_flag;
  bit &= 31;
  return t->have[bit] ? t->v[bit] : dec_name_fill(t, bit, ornic_an_flag_name(1u << bit));
}

#endif
