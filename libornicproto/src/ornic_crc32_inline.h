/* SPDX-License-Identifier: MIT */
/* The CRC-32 backend call, inlinable: ornic_crc32() for the public API and
 * the iCRC hot path, which cannot afford an extra call level per packet. */
#ifndef ORNIC_CRC32_INLINE_H
#define ORNIC_CRC32_INLINE_H

#include <stddef.h>
#include <stdint.h>

#if defined(ORNIC_HAVE_ISAL)
#include <isa-l/crc.h>

static inline uint32_t ornic_crc32_inline(uint32_t crc, const uint8_t *buf, size_t len) {
  return len ? crc32_gzip_refl(crc, buf, len) : crc;
}
#define ORNIC_CRC32_BACKEND "isa-l"
#else
#include <zlib.h>

static inline uint32_t ornic_crc32_inline(uint32_t crc, const uint8_t *buf, size_t len) {
  /* zlib takes uInt lengths: feed huge buffers in pieces. */
  while (len > 0x40000000u) {
    crc = (uint32_t)crc32(crc, buf, 0x40000000u);
    buf += 0x40000000u;
    len -= 0x40000000u;
  }
  return len ? (uint32_t)crc32(crc, buf, (uInt)len) : crc;
}
#define ORNIC_CRC32_BACKEND "zlib"
#endif

#endif
