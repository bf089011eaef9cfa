/* SPDX-License-Identifier: MIT */
/* The CRC-32 backend call, inlinable: ornic_crc32() for the public API and
 * the iCRC hot path, which cannot afford an extra call level per packet. */
#ifndef ORNIC_CRC32_INLINE_H
#define ORNIC_CRC32_INLINE_H

#include <stddef.h>
#include <stdint.h>

#if defined(ORNIC_HAVE_ISAL)
#include <isa-l/crc.h>

/* ISA-L 2.30's AVX-512 kernel (crc32_gzip_refl_by16_10, Debian 12's libisal2)
 * returns with the upper halves of zmm0-15 dirty and no vzeroupper, so each
 * SSE instruction the caller runs afterwards pays for the mixed state until
 * the next vzeroupper: half of ornic-decode --stats' CPU went there
 * (docs/PERFORMANCE.md, "The floor"). vzeroupper is an AVX instruction: only
 * where the CPU has AVX. The clobbers keep the compiler from holding a value
 * in a vector register across it (built for AVX, it might hold a 256-bit one,
 * whose upper half vzeroupper clears). */
static inline void ornic_crc32_clean_upper(void) {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx"))
    __asm__ volatile("vzeroupper" ::
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#endif
}

static inline uint32_t ornic_crc32_inline(uint32_t crc, const uint8_t *buf, size_t len) {
  if (!len) return crc;
  crc = crc32_gzip_refl(crc, buf, len);
  ornic_crc32_clean_upper();
  return crc;
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
