/* SPDX-License-Identifier: MIT */
#include "rtt.h"

void rtt_init(rtt_est *r, uint64_t initial_ps) {
  r->srtt = initial_ps;
  r->rttvar = initial_ps / 2;
  r->measured = false;
  r->backoff = 0;
}

void rtt_sample(rtt_est *r, uint64_t s) {
  if (!r->measured) {
    r->srtt = s;
    r->rttvar = s / 2;
    r->measured = true;
    return;
  }
  uint64_t dev = s > r->srtt ? s - r->srtt : r->srtt - s;
  r->rttvar = (3 * r->rttvar + dev) / 4;
  r->srtt = (7 * r->srtt + s) / 8;
}

uint64_t rtt_rto(const rtt_est *r, uint64_t otd_ps) {
  unsigned b = r->backoff < 16 ? r->backoff : 16;
  return (r->srtt + 4 * r->rttvar + otd_ps) << b;
}
