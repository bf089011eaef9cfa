/* SPDX-License-Identifier: MIT */
/* Load/store helpers, big-endian unless named le. Packet bytes are never read
 * through casts: callers check the length first, then use these. Each value
 * is assembled from bytes, so the code means the same on either byte order;
 * GCC compiles each function to one load or store (and a byte swap where the
 * order differs from the host's). */
#ifndef ORNIC_CONV_H
#define ORNIC_CONV_H

#include <stdint.h>

static inline uint16_t ornic_get_u16(const uint8_t *p) {
  return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}
static inline uint32_t ornic_get_u32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t ornic_get_u64(const uint8_t *p) {
  return (uint64_t)ornic_get_u32(p) << 32 | ornic_get_u32(p + 4);
}
static inline uint16_t ornic_get_u16le(const uint8_t *p) {
  return (uint16_t)((unsigned)p[1] << 8 | p[0]);
}
static inline uint32_t ornic_get_u32le(const uint8_t *p) {
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint8_t *ornic_put_u8(uint8_t *p, uint8_t v) {
  p[0] = v;
  return p + 1;
}
static inline uint8_t *ornic_put_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
  return p + 2;
}
static inline uint8_t *ornic_put_u32(uint8_t *p, uint32_t v) {
  p = ornic_put_u16(p, (uint16_t)(v >> 16));
  return ornic_put_u16(p, (uint16_t)v);
}
static inline uint8_t *ornic_put_u32le(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
  return p + 4;
}

#endif
