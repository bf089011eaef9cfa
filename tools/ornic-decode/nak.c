/* NAK bitmap -> runs of lost PSNs (at most 255 * 16 = 4080 bits). */
#include "nak.h"

#include <stdbool.h>

#include <ornic/psn.h>

uint32_t dec_nak_missing(const ornic_naketh *nak, uint32_t otd, dec_nak_run_fn fn, void *ctx) {
  uint32_t end = ornic_nak_lost_span(nak, otd), lost = 0, run = 0, run_start = 0;
  for (uint32_t i = 0; i <= end; i++) {
    bool clear = i < end && ornic_nak_psn_lost(nak, otd, ornic_psn_add(nak->base_psn, (int32_t)i));
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
