/* SPDX-License-Identifier: MIT */
/* 24-bit packet sequence number arithmetic (IBA PSNs wrap at 2^24). */
#ifndef ORNIC_PSN_H
#define ORNIC_PSN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORNIC_PSN_MASK 0x00ffffffu
#define ORNIC_PSN_HALF 0x00800000u

/* a + n, wrapped to 24 bits (n may be "negative" as a 32-bit two's complement). */
static inline uint32_t ornic_psn_add(uint32_t a, int32_t n) {
  return (a + (uint32_t)n) & ORNIC_PSN_MASK;
}

/* Forward distance from start to psn, in [0, 2^24): how many PSNs after
 * start psn lies when psn is known not to be before it (a WQE's packet index). */
static inline uint32_t ornic_psn_off(uint32_t psn, uint32_t start) {
  return (psn - start) & ORNIC_PSN_MASK;
}

/* Signed distance a - b in (-2^23, 2^23]: positive when a is after b. The
 * half-window rule is the only consistent order on a 24-bit circle. Every
 * function here reads "first against second": ornic_psn_diff(a, b) has the
 * sign of ornic_psn_cmp(a, b), ornic_psn_off(psn, start) is psn - start. */
static inline int32_t ornic_psn_diff(uint32_t a, uint32_t b) {
  uint32_t d = (a - b) & ORNIC_PSN_MASK;
  return d > ORNIC_PSN_HALF ? (int32_t)d - (int32_t)(ORNIC_PSN_MASK + 1u) : (int32_t)d;
}

/* <0, 0, >0 as a is before, equal to, after b. */
static inline int ornic_psn_cmp(uint32_t a, uint32_t b) {
  int32_t d = ornic_psn_diff(a, b);
  return (d > 0) - (d < 0);
}

/* a is before b: b - a is positive (at exactly half the circle apart, b is
 * after a, as ornic_psn_diff says). */
static inline int ornic_psn_lt(uint32_t a, uint32_t b) { return ornic_psn_diff(b, a) > 0; }

#ifdef __cplusplus
}
#endif
#endif
