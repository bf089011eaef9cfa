/* Profile `ioi`: the in-order / out-of-order / in-order sender of HPE's
 * Slingshot NIC patent, for RDMA WRITE.
 *
 * Requester: a WQE shorter than two round trips of data (2 x SRTT / frame
 * time packets, SRTT being the QP's smoothed round trip) is sent in order:
 * every packet on one path (the path the spraying policy gives its first
 * packet) and marked in-order (IPv4 DSCP RCX_DSCP_INORDER). A longer WQE
 * starts the same way (the head); once the first ACK of the WQE is back, its
 * First has reached the responder, which now knows where the WQE goes, and
 * the following packets (the middle) are sprayed by the --spray policy and
 * left unmarked; the last SRTT's worth of packets (the tail) is in order on
 * the WQE's path again, and the Last is held until every sprayed packet is
 * acknowledged. A retransmission keeps its packet's class and path. Losses
 * are inferred from path order (pathseq.h: ACKs echo the data packet's path
 * and return on it) and by a timeout (SRTT + 4 RTTVAR + OTD/B, doubling),
 * which declares every unacknowledged packet lost. The packets outstanding
 * are capped at the bandwidth-delay product, as for irn.
 *
 * Responder: the First's RETH sets up the WQE; no packet needs an address of
 * its own: every packet's offset is (PSN - First's PSN) x PMTU, as in RC.
 * In-order packets arrive in order (one FIFO path) and are delivered in
 * order; sprayed ones, sent only after the First arrived, are placed where
 * they belong as they come. Packets that arrive before the First (it was
 * lost) are dropped. Every packet is answered by one ACK that echoes its
 * path and names its PSN in the AETH MSN field. */
#ifndef PCAPGEN_IOI_H
#define PCAPGEN_IOI_H

#include "options.h"
#include "sim.h"

typedef struct ioi ioi;

/* Registers the requester and responder engines with s. NULL when out of memory. */
ioi *ioi_new(sim *s, const options *o);
void ioi_free(ioi *p);
void ioi_start(ioi *p);

#endif
