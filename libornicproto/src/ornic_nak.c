/* SPDX-License-Identifier: MIT */
/* NAK bitmap access and the texts of AETH syndromes and NAK reasons. */
#include <stdbool.h>
#include <string.h>

#include "ornic/headers.h"
#include "ornic/psn.h"
#include "ornic_conv.h"

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
  if (span < 1) return 1; /* a limit at or before Base declares only Base */
  return (uint32_t)(span < bits ? span : bits);
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

/* d < span: Base (d = 0) is lost by definition, the others when their bit is 0. */
static bool lost_at(const ornic_naketh_lost_iter *it, uint32_t d) {
  return d == 0 || !((ornic_naketh_block(it->nak, d / 16) >> (d % 16)) & 1);
}

int ornic_naketh_lost_next_run(ornic_naketh_lost_iter *it, uint32_t *first, uint32_t *count) {
  while (it->d < it->span && !lost_at(it, it->d)) it->d++;
  if (it->d >= it->span) return 0;
  uint32_t start = it->d;
  while (it->d < it->span && lost_at(it, it->d)) it->d++;
  *first = ornic_psn_add(it->nak->base_psn, (int32_t)start);
  *count = it->d - start;
  return 1;
}

uint32_t ornic_naketh_lost_count(const ornic_naketh *nak) {
  ornic_naketh_lost_iter it;
  uint32_t first, n, total = 0;
  ornic_naketh_lost_begin(&it, nak);
  while (ornic_naketh_lost_next_run(&it, &first, &n)) total += n;
  return total;
}
