/* The PSNs an ORNIC NAK declares lost, as runs. */
#ifndef DEC_NAK_H
#define DEC_NAK_H

#include <stdint.h>

#include <ornic/headers.h>

/* Called once per run of consecutive lost PSNs; `first` wraps at 2^24. */
typedef void (*dec_nak_run_fn)(void *ctx, uint32_t first, uint32_t count);

/* The lost set of docs/PROTOCOL.md section 4.4, which the requester
 * retransmits (ornic_nak_psn_lost): Base itself, plus every clear bit before
 * the loss limit (the trigger, minus `otd` for reason 1). Returns the count. */
uint32_t dec_nak_missing(const ornic_naketh *nak, uint32_t otd, dec_nak_run_fn fn, void *ctx);

#endif
