/* CRC-32 backend: Intel ISA-L when available (several times zlib's speed on
 * large buffers), zlib otherwise. Both use zlib's convention. */
#include "ornic/icrc.h"

#if defined(ORNIC_HAVE_ISAL)
#include <isa-l/crc.h>

uint32_t ornic_crc32(uint32_t crc, const uint8_t *buf, size_t len) {
  return len ? crc32_gzip_refl(crc, buf, len) : crc;
}

const char *ornic_crc32_backend(void) { return "isa-l"; }
#else
#include <zlib.h>

uint32_t ornic_crc32(uint32_t crc, const uint8_t *buf, size_t len) {
  /* zlib takes uInt lengths: feed huge buffers in pieces. */
  while (len > 0x40000000u) {
    crc = (uint32_t)crc32(crc, buf, 0x40000000u);
    buf += 0x40000000u;
    len -= 0x40000000u;
  }
  return len ? (uint32_t)crc32(crc, buf, (uInt)len) : crc;
}

const char *ornic_crc32_backend(void) { return "zlib"; }
#endif
