/* SPDX-License-Identifier: MIT */
/* For the BTH and every extension header, the three things its field list
 * (ornic_hdr_fields.h) gives each codec, as static inline functions:
 *
 *   const uint8_t *ornic_<hdr>_read(ornic_<hdr> *out, const uint8_t *p)
 *     every field, and the view of a variable part (NAKETH's bitmap);
 *     returns the pointer past the header. The caller has checked that the
 *     fixed part is there (the variable part is not read). Used by the
 *     general decoders (ornic_ext.c, ornic_bth.c) and by the frame decoder's
 *     fast path (ornic_frame_fast.c), so the two read alike by construction;
 *   uint8_t *ornic_<hdr>_write(uint8_t *p, const ornic_<hdr> *in)
 *     the header's bytes, the variable part copied from its view; returns
 *     the pointer past them. Values must fit (ornic_<hdr>_fits);
 *   bool ornic_<hdr>_fits(const ornic_<hdr> *in)
 *     every value fits its field, and a variable part has at least one unit
 *     and a view: what the encoders check before they write a byte.
 *
 * A reader loads each 4-byte word of the header once, as a big-endian
 * number (ornic_conv.h's byte loads, one load and a byte swap where the
 * target has them), and takes the fields out of it; every load comes before
 * the first store, because a store through `out` may alias the packet's
 * bytes and would force the compiler to load again. A writer loads and
 * stores one field at a time, which keeps GCC from merging the stores of
 * several fields into one wide store built a byte at a time. */
#ifndef ORNIC_HDR_CODEC_H
#define ORNIC_HDR_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ornic_conv.h"
#include "ornic_hdr_fields.h"

/* `bits` ones (64 included: 2 << 63 wraps to 0). */
#define ORNIC_ONES(bits) (((uint64_t)2 << ((bits)-1)) - 1)

/* The field of ornic_hdr_fields.h's N at off in the header at h. */
static inline uint64_t ornic_field_get(const uint8_t *h, unsigned off, unsigned size, unsigned bits,
                                       unsigned shift) {
  if (size == 8) return ornic_get_u64(h + off);
  return ornic_get_u32(h + (off & ~3u)) >> (8 * (4 - (off & 3) - size) + shift) & ORNIC_ONES(bits);
}

/* Stores value v of that field into the header at h. The bit fields of a
 * byte, listed from its highest bits to its lowest (wire order), are ORed
 * into *acc, and the byte is stored with its last field. */
static inline void ornic_field_put(uint8_t *h, uint8_t *acc, unsigned off, unsigned size,
                                   unsigned bits, unsigned shift, uint64_t v) {
  if (bits < 8 * size) {
    *acc = (uint8_t)((shift + bits == 8 ? 0 : *acc) | v << shift);
    if (shift == 0) h[off] = *acc;
    return;
  }
  for (unsigned i = 0; i < size; i++) h[off + i] = (uint8_t)(v >> 8 * (size - 1 - i));
}

/* The expansions of one field for each function below. */
#define ORNIC_RD_LOAD(hdr, m, name, display, off, size, bits, shift, kind)                 \
  _Static_assert((size) == 8 ? (off) % 4 == 0 : (off) % 4 + (size) <= 4, name ": a word"); \
  _Static_assert((bits) == 8 * (size) || (size) == 1, name ": bits of one byte");          \
  const uint64_t m##_ = ornic_field_get(p, off, size, bits, shift);
#define ORNIC_RD_NUM(hdr, m, name, display, off, size, bits, shift, kind) \
  out->m = m##_ & ORNIC_ONES(bits);
#define ORNIC_RD_BYTES(hdr, m, name, display, off, size, kind) memcpy(out->m, p + (off), size);
#define ORNIC_RD_VIEW(hdr, m, count, unit) \
  out->m = p + fixed_;                     \
  tail_ = (size_t)((unit)*count##_);
#define ORNIC_WR_NUM(hdr, m, name, display, off, size, bits, shift, kind) \
  ornic_field_put(p, &acc_, off, size, bits, shift, in->m);
#define ORNIC_WR_BYTES(hdr, m, name, display, off, size, kind) memcpy(p + (off), in->m, size);
#define ORNIC_WR_VIEW(hdr, m, count, unit) \
  tail_ = (size_t)(unit)*in->count;        \
  memcpy(p + fixed_, in->m, tail_);
#define ORNIC_FITS_NUM(hdr, m, name, display, off, size, bits, shift, kind) \
  &&((uint64_t)in->m & ~ORNIC_ONES(bits)) == 0
#define ORNIC_FITS_VIEW(hdr, m, count, unit) &&in->count > 0 && in->m != NULL

#define ORNIC_HDR_CODEC(hdr, BIT, name, len)                                                 \
  _Static_assert((len) % 4 == 0, name ": whole words");                                      \
  static inline const uint8_t *ornic_##hdr##_read(ornic_##hdr *out, const uint8_t *p) {      \
    const size_t fixed_ = (len);                                                             \
    size_t tail_ = 0;                                                                        \
    ORNIC_FIELDS_##hdr(ORNIC_RD_LOAD, ORNIC_FIELD_SKIP, ORNIC_FIELD_SKIP, ORNIC_FIELD_SKIP); \
    ORNIC_FIELDS_##hdr(ORNIC_RD_NUM, ORNIC_FIELD_SKIP, ORNIC_RD_BYTES, ORNIC_RD_VIEW);       \
    return p + fixed_ + tail_;                                                               \
  }                                                                                          \
  static inline uint8_t *ornic_##hdr##_write(uint8_t *p, const ornic_##hdr *in) {            \
    const size_t fixed_ = (len);                                                             \
    size_t tail_ = 0;                                                                        \
    uint8_t acc_ = 0;                                                                        \
    (void)acc_;                                                                              \
    ORNIC_FIELDS_##hdr(ORNIC_WR_NUM, ORNIC_FIELD_SKIP, ORNIC_WR_BYTES, ORNIC_WR_VIEW);       \
    return p + fixed_ + tail_;                                                               \
  }                                                                                          \
  static inline bool ornic_##hdr##_fits(const ornic_##hdr *in) {                             \
    (void)in;                                                                                \
    return 1 ORNIC_FIELDS_##hdr(ORNIC_FITS_NUM, ORNIC_FIELD_SKIP, ORNIC_FIELD_SKIP,          \
                                ORNIC_FITS_VIEW);                                            \
  }

ORNIC_HDR_CODEC(bth, BTH, "BTH", ORNIC_BTH_LEN)
ORNIC_EXT_HDRS(ORNIC_HDR_CODEC)

#endif
