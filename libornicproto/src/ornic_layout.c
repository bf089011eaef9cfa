/* SPDX-License-Identifier: MIT */
/* Field layout tables of the BTH and the extension headers (ornic/layout.h),
 * expanded from the field lists of ornic_hdr_fields.h, from which the codecs
 * are expanded too (ornic_hdr_codec.h); tests/unit/test_layout.c encodes
 * every field at all ones through those codecs and checks that exactly the
 * bits named here are set. */
#include "ornic/layout.h"

#include "ornic/opcode.h"
#include "ornic_hdr_fields.h"
#include "ornic_internal.h"

/* The `bits` low ones, moved up by `shift` (bits 64 included: 2 << 63 wraps to 0). */
#define BITS_MASK(bits, shift) ((((uint64_t)2 << ((bits)-1)) - 1) << (shift))

/* A number, bits of the field at index `parent`, and a byte string. */
#define NUM(hdr, m, name, display, off, size, bits, shift, kind) \
  {name, display, off, size, bits, shift, -1, ORNIC_FIELD_##kind, BITS_MASK(bits, shift)},
#define SUB(hdr, name, display, off, bits, shift, kind, parent) \
  {name, display, off, 1, bits, shift, parent, ORNIC_FIELD_##kind, BITS_MASK(bits, shift)},
#define BYTES(hdr, m, name, display, off, size, kind) \
  {name, display, off, size, 8 * (size), 0, -1, ORNIC_FIELD_##kind, 0},
#define TABLE(hdr, BIT, name, len)                   \
  static const ornic_field_layout hdr##_fields[] = { \
      ORNIC_FIELDS_##hdr(NUM, SUB, BYTES, ORNIC_FIELD_SKIP)};

TABLE(bth, BTH, "BTH", ORNIC_BTH_LEN)
ORNIC_EXT_HDRS(TABLE)

/* By bit index of ORNIC_HDR_* (opcode.h). */
#define ENTRY(hdr, BIT, name, len) {hdr##_fields, sizeof(hdr##_fields) / sizeof(hdr##_fields[0])},
static const struct {
  const ornic_field_layout *fields;
  size_t count;
} hdr_tables[ORNIC_HDR_COUNT] = {ORNIC_EXT_HDRS(ENTRY)};

/* 1 when bit is exactly one known ORNIC_HDR_* bit. */
static int one_hdr_bit(uint16_t bit) {
  return bit != 0 && (bit & (bit - 1u)) == 0 && bit < (1u << ORNIC_HDR_COUNT);
}

const ornic_field_layout *ornic_bth_layout(size_t *count) {
  *count = sizeof(bth_fields) / sizeof(bth_fields[0]);
  return bth_fields;
}

const ornic_field_layout *ornic_hdr_layout(uint16_t hdr_bit, size_t *count) {
  if (!one_hdr_bit(hdr_bit)) {
    *count = 0;
    return NULL;
  }
  unsigned i = ornic_bit_index(hdr_bit);
  *count = hdr_tables[i].count;
  return hdr_tables[i].fields;
}

uint64_t ornic_field_value(const ornic_field_layout *fl, const uint8_t *hdr) {
  if (fl->size > 8) return 0;
  uint64_t v = 0;
  for (unsigned i = 0; i < fl->size; i++) v = v << 8 | hdr[fl->offset + i];
  return (v & fl->mask) >> fl->shift;
}

size_t ornic_frame_hdr_offset(const ornic_frame *f, uint16_t hdr_bit) {
  if (!one_hdr_bit(hdr_bit) || !(f->ext.present & hdr_bit)) return 0;
  /* Headers lie in the order of their bits: those below this one come first. */
  return f->ext_off + ornic_ext_size(&f->ext, (uint16_t)(f->ext.present & (hdr_bit - 1u)));
}

size_t ornic_frame_hdr_size(const ornic_frame *f, uint16_t hdr_bit) {
  if (!one_hdr_bit(hdr_bit) || !(f->ext.present & hdr_bit)) return 0;
  return ornic_ext_size(&f->ext, hdr_bit);
}
