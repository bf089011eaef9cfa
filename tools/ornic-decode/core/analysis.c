/* SPDX-License-Identifier: MIT */
/* Packet -> engine input. The engine keys packets by the IP (or GRH)
 * addresses of the decoded frame and the BTH DestQP. */
#include "analysis.h"

void dec_analyse(ornic_analysis *a, dec_packet *pk, bool in_flight) {
  pk->analysed = false;
  pk->in_flight = 0;
  if (pk->cls != DEC_CLASS_ROCE || !pk->has_bth) return;
  ornic_an_input in = {.frame = pk->frame, .sec = pk->sec, .nsec = pk->nsec, .f = &pk->f};
  pk->analysed = ornic_analysis_add(a, &in, &pk->an) == ORNIC_OK;
  if (in_flight && pk->analysed)
    pk->in_flight = ornic_analysis_in_flight(a, pk->an.conv, pk->an.dir);
}
