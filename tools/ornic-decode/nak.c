/* NAK bitmap -> runs of lost PSNs (at most 255 * 16 = 4080 bits). */
#include "nak.h"

#include <stdbool.h>

#include <ornic/psn.h>

/* Bits [0, end) of the bitmap are candidates: those before the trigger PSN. */
static uint32_t candidate_bits(const ornic_naketh *nak) {
  uint32_t bits = 16u * nak->nblocks;
  int32_t to_trigger = ornic_psn_diff(nak->trigger_psn, nak->base_psn);
  if (to_trigger < 1) return 1; /* a trigger at or before Base: only Base is lost */
  return (uint32_t)to_trigger < bits ? (uint32_t)to_trigger : bits;
}

uint32_t dec_nak_missing(const ornic_naketh *nak, dec_nak_run_fn fn, void *ctx) {
  uint32_t end = candidate_bits(nak), lost = 0, run = 0, run_start = 0;
  for (uint32_t i = 0; i <= end; i++) {
    bool clear = i < end && (i == 0 || !((ornic_naketh_block(nak, i / 16) >> (i % 16)) & 1));
    if (clear) {
      if (!run) run_start = i;
      run++;
      continue;
    }
    if (run) fn(ctx, ornic_psn_add(nak->base_psn, (int32_t)run_start), run);
    lost += run;
    run = 0;
  }
  return lost;
}
