/* SPDX-License-Identifier: MIT */
/* Extension header codecs: each header's read, write and range check are
 * expanded from its field list (ornic_hdr_fields.h, ornic_hdr_codec.h), the
 * frame decoder's fast path reading with the same functions; the fixed sizes
 * are ornic_hdr_sizes (ornic_opcode.c), from the same list. What is here is
 * what the headers share: lengths checked before reading, wire order, and
 * encoders that check everything before they write a byte (headers.h). */
#include "ornic/errors.h"
#include "ornic/headers.h"
#include "ornic/opcode.h"
#include "ornic_hdr_codec.h"
#include "ornic_internal.h"

/* The bytes after the fixed part (NAKETH's bitmap). */
static size_t hdr_tail(const ornic_ext *e, uint16_t bit) {
#define TAIL_VIEW(hdr, m, count, unit) +(size_t)(unit)*e->hdr.count
#define TAIL_CASE(hdr, BIT, name, len) \
  case ORNIC_HDR_##BIT:                \
    return 0 ORNIC_FIELDS_##hdr(ORNIC_FIELD_SKIP, ORNIC_FIELD_SKIP, ORNIC_FIELD_SKIP, TAIL_VIEW);
  switch (bit) {
    ORNIC_EXT_HDRS(TAIL_CASE)
  default: return 0;
  }
}

static size_t hdr_wire_size(const ornic_ext *e, uint16_t bit) {
  return ornic_hdr_size(bit) + hdr_tail(e, bit);
}

/* The set bits of hdrs that name headers, lowest first (= wire order). */
#define FOR_EACH_HDR(bit, hdrs)                                      \
  for (unsigned rest_ = (hdrs) & ((1u << ORNIC_HDR_COUNT) - 1), bit; \
       rest_ && ((bit = rest_ & (0u - rest_)), 1); rest_ &= rest_ - 1)

size_t ornic_ext_size(const ornic_ext *e, uint16_t hdrs) {
  size_t n = 0;
  FOR_EACH_HDR(bit, hdrs) n += hdr_wire_size(e, (uint16_t)bit);
  return n;
}

/* Header `bit` at p, its fixed part there: returns the end of the header. */
static const uint8_t *hdr_read(ornic_ext *e, uint16_t bit, const uint8_t *p) {
#define READ_CASE(hdr, BIT, name, len) \
  case ORNIC_HDR_##BIT: return ornic_##hdr##_read(&e->hdr, p);
  switch (bit) {
    ORNIC_EXT_HDRS(READ_CASE)
  default: return p;
  }
}

/* Header number `i` (bit 1 << i) at p. Indexing ornic_hdr_sizes directly
 * spares the per-packet path ornic_hdr_size()'s scan for the bit. A header
 * whose variable part is cut, or a NAKETH without blocks (PROTOCOL.md D6),
 * has its fixed part filled in but not its bit in present. */
static int decode_index(ornic_ext *e, unsigned i, const uint8_t *p, size_t len) {
  uint16_t bit = (uint16_t)(1u << i);
  if (len < ornic_hdr_sizes[i]) return ORNIC_ERR_TRUNCATED;
  size_t n = (size_t)(hdr_read(e, bit, p) - p);
  if (bit == ORNIC_HDR_NAKETH && e->naketh.nblocks == 0) return ORNIC_ERR_MALFORMED;
  if (len < n) return ORNIC_ERR_TRUNCATED;
  e->present |= bit;
  return (int)n;
}

int ornic_ext_decode_one(ornic_ext *e, uint16_t bit, const uint8_t *p, size_t len) {
  if (ornic_hdr_size(bit) == 0) return ORNIC_ERR_INVALID_ARG;
  return decode_index(e, ornic_bit_index(bit), p, len);
}

/* Visits only the set bits: most packets carry zero to two headers, and a
 * loop over all 14 bits costs a branch per bit. */
int ornic_ext_decode(ornic_ext *e, uint16_t hdrs, const uint8_t *p, size_t len) {
  size_t off = 0;
  FOR_EACH_HDR(bit, hdrs) {
    int n = decode_index(e, ornic_bit_index(bit), p + off, len - off);
    if (n < 0) return n;
    off += (size_t)n;
  }
  return (int)off;
}

static bool hdr_fits(const ornic_ext *e, uint16_t bit) {
#define FITS_CASE(hdr, BIT, name, len) \
  case ORNIC_HDR_##BIT: return ornic_##hdr##_fits(&e->hdr);
  switch (bit) {
    ORNIC_EXT_HDRS(FITS_CASE)
  default: return true;
  }
}

static void hdr_write(uint8_t *p, const ornic_ext *e, uint16_t bit) {
#define WRITE_CASE(hdr, BIT, name, len) \
  case ORNIC_HDR_##BIT: ornic_##hdr##_write(p, &e->hdr); break;
  switch (bit) {
    ORNIC_EXT_HDRS(WRITE_CASE)
  default: break;
  }
}

ornic_ssize ornic_ext_encode_one(uint8_t *out, size_t cap, const ornic_ext *e, uint16_t bit) {
  if (ornic_hdr_size(bit) == 0 || !hdr_fits(e, bit)) return ORNIC_ERR_INVALID_ARG;
  size_t n = hdr_wire_size(e, bit);
  if (cap < n) return ORNIC_ERR_NOBUF;
  hdr_write(out, e, bit);
  return (ornic_ssize)n;
}

/* Bits above the known headers are ignored, as by every function here. */
bool ornic_ext_valid(const ornic_ext *e, uint16_t hdrs) {
  FOR_EACH_HDR(bit, hdrs) {
    if (!hdr_fits(e, (uint16_t)bit)) return false;
  }
  return true;
}

/* Everything is checked before the first byte is written. */
ornic_ssize ornic_ext_encode(uint8_t *out, size_t cap, const ornic_ext *e, uint16_t hdrs) {
  if (!ornic_ext_valid(e, hdrs)) return ORNIC_ERR_INVALID_ARG;
  if (cap < ornic_ext_size(e, hdrs)) return ORNIC_ERR_NOBUF;
  size_t off = 0;
  FOR_EACH_HDR(bit, hdrs) {
    hdr_write(out + off, e, (uint16_t)bit);
    off += hdr_wire_size(e, (uint16_t)bit);
  }
  return (ornic_ssize)off;
}

/* Named entry points for the ORNIC headers, over the same cases as above. */
#define ORNIC_NAMED_CODEC(NAME, FIELD, BIT)                                             \
  int ornic_##NAME##_decode(ornic_##NAME *out, const uint8_t *p, size_t len) {          \
    ornic_ext e;                                                                        \
    e.present = 0;                                                                      \
    int n = ornic_ext_decode_one(&e, BIT, p, len);                                      \
    if (n > 0 || n == ORNIC_ERR_MALFORMED) *out = e.FIELD;                              \
    return n;                                                                           \
  }                                                                                     \
  ornic_ssize ornic_##NAME##_encode(uint8_t *out, size_t cap, const ornic_##NAME *in) { \
    ornic_ext e;                                                                        \
    e.FIELD = *in;                                                                      \
    return ornic_ext_encode_one(out, cap, &e, BIT);                                     \
  }

ORNIC_NAMED_CODEC(offeth, offeth, ORNIC_HDR_OFFETH)
ORNIC_NAMED_CODEC(oacketh, oacketh, ORNIC_HDR_OACKETH)
ORNIC_NAMED_CODEC(naketh, naketh, ORNIC_HDR_NAKETH)
