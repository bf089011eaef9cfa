/* SPDX-License-Identifier: MIT */
/* NAK bitmap access and the texts of AETH syndromes and NAK reasons. */
#include <stdbool.h>
#include <string.h>

#include "ornic/headers.h"
#include "ornic/psn.h"
#include "ornic_conv.h"
#include "ornic_internal.h"

uint16_t ornic_naketh_block(const ornic_naketh *nak, unsigned k) {
  return k < nak->nblocks ? ornic_get_u16(nak->bitmap + 2u * k) : 0;
}

int ornic_naketh_psn_state(const ornic_naketh *nak, uint32_t psn) {
  int32_t d = ornic_psn_diff(psn, nak->base_psn);
  if (d < 0 || d >= 16 * (int32_t)nak->nblocks) return -1;
  return (ornic_naketh_block(nak, (unsigned)d / 16) >> (d % 16)) & 1;
}

uint32_t ornic_naketh_lost_span(const ornic_naketh *nak) {
  int32_t span = ornic_psn_diff(nak->limit_psn, nak->base_psn);
  int32_t bits = 16 * (int32_t)nak->nblocks;
  if (span > bits) span = bits;
  /* At least 1: Base is lost by definition (PROTOCOL.md 4.4), for a limit at
   * or before it and for a NAK without blocks (nblocks 0 is malformed, 3.5,
   * but a reader still has the fixed part): psn_lost(Base) says 1 there, and
   * lost_count and the run walk must agree with it. */
  return span < 1 ? 1u : (uint32_t)span;
}

int ornic_naketh_psn_lost(const ornic_naketh *nak, uint32_t psn) {
  int32_t d = ornic_psn_diff(psn, nak->base_psn);
  if (d == 0) return 1;
  if (d < 0 || (uint32_t)d >= ornic_naketh_lost_span(nak)) return 0;
  return ornic_naketh_psn_state(nak, psn) == 0;
}

void ornic_naketh_bitmap_pack(uint8_t *out, const uint16_t *blocks, unsigned n) {
  for (unsigned k = 0; k < n; k++) ornic_put_u16(out + 2u * k, blocks[k]);
}

const char *ornic_aeth_syndrome_name(uint8_t syn) {
  static const char *const naks[] = {"NAK PSN sequence error", "NAK invalid request",
                                     "NAK remote access error", "NAK remote operational error",
                                     "NAK invalid RD request"};
  switch (ornic_aeth_type(syn)) {
  case ORNIC_AETH_ACK: return "ACK";
  case ORNIC_AETH_RNR_NAK: return "RNR NAK";
  case ORNIC_AETH_NAK: return (syn & 0x1f) < 5 ? naks[syn & 0x1f] : "NAK reserved code";
  default: return "reserved";
  }
}

const char *ornic_naketh_reason_name(uint8_t reason) {
  switch (reason) {
  case ORNIC_NAKETH_OTD_EXCEEDED: return "OTD exceeded";
  case ORNIC_NAKETH_TIMEOUT: return "timeout";
  case ORNIC_NAKETH_LAST_INCOMPLETE: return "Last seen, WQE incomplete";
  default: return "reserved";
  }
}

void ornic_naketh_lost_begin(ornic_naketh_lost_iter *it, const ornic_naketh *nak) {
  memset(it, 0, sizeof *it);
  it->nak = nak;
  it->span = ornic_naketh_lost_span(nak);
  it->d = 0;
}

/* Block k of the lost set as a mask (16k < span): bit i set when Base + 16k + i
 * is lost, i.e. its bit is 0 or it is Base (lost by definition, whatever bit 0
 * of block 0 says), and its distance is below span. The walk and the count
 * work on whole blocks: a 255-block NAK is 255 of these, not 4080 bit tests. */
static uint32_t lost_mask(const ornic_naketh *nak, uint32_t k, uint32_t span) {
  uint32_t m = ~(uint32_t)ornic_naketh_block(nak, k) & 0xffffu;
  if (k == 0) m |= 1u;
  if (span - 16 * k < 16) m &= (1u << (span - 16 * k)) - 1;
  return m;
}

/* The next run from distance d: its first distance (span when none is left)
 * and, in *end, the distance after its last. A block with nothing to find
 * (0xFFFF while looking for a loss, 0x0000 while looking for its end) costs
 * one test; within a block, a run's start and length are two bit scans. */
static uint32_t next_run(const ornic_naketh *nak, uint32_t span, uint32_t d, uint32_t *end) {
  uint32_t m = 0;
  for (; d < span; d = (d | 15u) + 1)
    if ((m = lost_mask(nak, d / 16, span) >> (d % 16)) != 0) break;
  if (d >= span) return *end = span;
  uint32_t skip = ornic_bit_index(m), start = d + skip;
  uint32_t ones = ornic_bit_index(~(m >> skip)); /* the run's length within this block */
  *end = start + ones;
  while (*end % 16 == 0 && *end < span) { /* it reached the block's end: whole lost blocks */
    ones = ornic_bit_index(~lost_mask(nak, *end / 16, span));
    *end += ones;
    if (ones < 16) break;
  }
  return start;
}

int ornic_naketh_lost_next_run(ornic_naketh_lost_iter *it, uint32_t *first, uint32_t *count) {
  uint32_t end, start = next_run(it->nak, it->span, it->d, &end);
  it->d = end;
  if (start >= it->span) return 0;
  *first = ornic_psn_add(it->nak->base_psn, (int32_t)start);
  *count = end - start;
  return 1;
}

static unsigned popcount16(uint32_t v) {
#if defined(__GNUC__)
  return (unsigned)__builtin_popcount(v);
#else
  unsigned n = 0;
  for (; v; v &= v - 1) n++;
  return n;
#endif
}

uint32_t ornic_naketh_lost_count(const ornic_naketh *nak) {
  uint32_t span = ornic_naketh_lost_span(nak), total = 0;
  for (uint32_t k = 0; 16 * k < span; k++) total += popcount16(lost_mask(nak, k, span));
  return total;
}
