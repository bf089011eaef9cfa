/* SPDX-License-Identifier: MIT */
/* Two decodes of one frame compared over the whole ornic_frame, byte for
 * byte: the check that the frame decoder's fast path writes what the
 * general one does (tests/unit/test_frame.c, on generated and edited frames;
 * fuzz_frame, on fuzzed ones). Both decode into copies of the same bytes, so
 * a field one path leaves alone must be left alone by the other too. No
 * field is named here: a field added to ornic_frame (from its reserved tail,
 * docs/ABI.md) is compared as soon as it exists.
 *
 * The bytes the two may disagree on are padding, which the fast path's
 * packed and 16-byte stores write (as zeros) and the general path does not.
 * Which bytes are padding, the compiler says where it can
 * (__builtin_clear_padding, GCC 11 and later): there every other byte must
 * be equal. Without it (Clang), a byte may differ only where the fast path
 * wrote a zero and the general path left the caller's byte: padding, or a
 * field the fast path zeroes by mistake, which the GCC builds catch. */
#ifndef ORNIC_FUZZ_FRAME_FIELDS_H
#define ORNIC_FUZZ_FRAME_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <ornic/frame.h>

#if defined(__has_builtin)
#if __has_builtin(__builtin_clear_padding)
#define FRAME_PADDING_KNOWN 1
#endif
#endif
#ifndef FRAME_PADDING_KNOWN
#define FRAME_PADDING_KNOWN 0
#endif

/* An ornic_frame with every byte that is not padding set, or NULL where
 * the compiler cannot say which bytes are padding. */
static inline const uint8_t *frame_fields_mask(void) {
#if FRAME_PADDING_KNOWN
  static ornic_frame mask;
  static bool made;
  if (!made) {
    memset(&mask, 0xff, sizeof mask);
    __builtin_clear_padding(&mask);
    made = true;
  }
  return (const uint8_t *)&mask;
#else
  return NULL;
#endif
}

/* Where fast (the fast path's decode) and general (the general path's)
 * differ, both decoded into a copy of before: the offset of the first
 * differing byte, or -1 when they agree. */
static inline ptrdiff_t frame_paths_diff(const ornic_frame *fast, const ornic_frame *general,
                                         const ornic_frame *before) {
  const uint8_t *a = (const uint8_t *)fast, *b = (const uint8_t *)general,
                *o = (const uint8_t *)before, *mask = frame_fields_mask();
  for (size_t k = 0; k < sizeof(ornic_frame); k++) {
    if (a[k] == b[k]) continue;
    if (mask ? !mask[k] : a[k] == 0 && b[k] == o[k]) continue;
    return (ptrdiff_t)k;
  }
  return -1;
}

#endif
