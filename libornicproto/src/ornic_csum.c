/* SPDX-License-Identifier: MIT */
/* Internet checksum (RFC 1071) for the IPv4 header and IPv6 UDP. */
#include "ornic_internal.h"

uint32_t ornic_csum_add(uint32_t sum, const uint8_t *p, size_t len) {
  uint64_t s = sum;
  size_t i = 0;
  for (; i + 1 < len; i += 2) s += (uint32_t)p[i] << 8 | p[i + 1];
  if (i < len) s += (uint32_t)p[i] << 8;
  while (s >> 32) s = (s & 0xffffffffu) + (s >> 32);
  return (uint32_t)s;
}

uint16_t ornic_csum_fold(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)sum;
}
