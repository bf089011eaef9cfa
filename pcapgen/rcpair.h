/* Profile `rc`: standard RoCEv2 Reliable Connection traffic between two
 * hosts, as a ConnectX or rxe pair makes it. Both hosts are requesters and
 * responders at once on every QP pair: host A (node 0, QPs 0x100 + q) and
 * host B (node 1, QPs 0x200 + q) each post SEND, RDMA WRITE (with or without
 * immediate) and RDMA READ WQEs to the other, up to --rc-outstanding at a
 * time, each QP in its own PSN space. Responders answer in PSN order:
 * coalesced ACKs (AETH 0x1F, A bit on the last packet of a message), READ
 * responses that carry the PSNs their request reserved, one PSN sequence
 * error NAK (AETH 0x60) per gap; requesters go back N to the NAKed PSN, to
 * the first missing READ response PSN (a READ request for the missing tail)
 * or, on a timeout, to the oldest unacknowledged PSN. Every message is
 * checked byte for byte against the source memory as it is placed. */
#ifndef PCAPGEN_RCPAIR_H
#define PCAPGEN_RCPAIR_H

#include "options.h"
#include "sim.h"

typedef struct rcpair rcpair;

/* Registers both hosts' engines with s and sets the run's WQE total.
 * NULL when out of memory. */
rcpair *rcpair_new(sim *s, const options *o);
void rcpair_free(rcpair *r);
void rcpair_start(rcpair *r);

#endif
