/* NAK bitmap access and the texts of AETH syndromes and NAK reasons. */
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

uint32_t ornic_nak_lost_span(const ornic_naketh *nak, uint32_t otd) {
  int64_t span = ornic_psn_diff(nak->trigger_psn, nak->base_psn);
  if (nak->reason == ORNIC_NAK_OTD_EXCEEDED) span -= otd;
  int64_t bits = 16 * (int64_t)nak->nblocks;
  if (span < 1) return 1; /* a limit at or before Base declares only Base */
  return (uint32_t)(span < bits ? span : bits);
}

int ornic_nak_psn_lost(const ornic_naketh *nak, uint32_t otd, uint32_t psn) {
  int32_t d = ornic_psn_diff(psn, nak->base_psn);
  if (d == 0) return 1;
  if (d < 0 || (uint32_t)d >= ornic_nak_lost_span(nak, otd)) return 0;
  return ornic_naketh_psn_state(nak, psn) == 0;
}

void ornic_nak_bitmap_pack(uint8_t *out, const uint16_t *blocks, unsigned n) {
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

const char *ornic_nak_reason_name(uint8_t reason) {
  switch (reason) {
  case ORNIC_NAK_OTD_EXCEEDED: return "OTD exceeded";
  case ORNIC_NAK_TIMEOUT: return "timeout";
  case ORNIC_NAK_LAST_INCOMPLETE: return "Last seen, WQE incomplete";
  default: return "reserved";
  }
}
