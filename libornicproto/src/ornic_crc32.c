/* SPDX-License-Identifier: MIT */
/* CRC-32 backend: Intel ISA-L when available (several times zlib's speed on
 * large buffers), zlib otherwise. Both use zlib's convention. */
#include "ornic/icrc.h"
#include "ornic_crc32_inline.h"

uint32_t ornic_crc32(uint32_t crc, const uint8_t *buf, size_t len) {
  return ornic_crc32_inline(crc, buf, len);
}

const char *ornic_crc32_backend(void) { return ORNIC_CRC32_BACKEND; }
