/* Profile `roce`: standard RoCEv2 RC RDMA WRITE as ERNIC or ConnectX-5 behave.
 * The requester sends WRITE First / Middle / Last (Only for one packet); the
 * responder accepts only the expected PSN, answers the first out-of-order
 * packet with a PSN sequence error NAK (AETH 0x60) and drops everything until
 * the expected PSN arrives; the requester goes back N to the NAKed PSN (or to
 * the oldest unacknowledged one on a timeout). On a sprayed fabric every
 * reordering costs a round trip and a resend of everything in flight. */
#ifndef PCAPGEN_ROCE_H
#define PCAPGEN_ROCE_H

#include "options.h"
#include "sim.h"

typedef struct roce roce;

/* Registers the requester and responder engines with s. NULL when out of memory. */
roce *roce_new(sim *s, const options *o);
void roce_free(roce *r);
void roce_start(roce *r);

#endif
