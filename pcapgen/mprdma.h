/* Profile `mprdma`: MP-RDMA (Lu et al., "Multi-Path Transport for RDMA in
 * Datacenters", NSDI 2018) for RDMA WRITE, as far as this fabric model goes.
 *
 * Requester: every packet carries its address (rcx.h). The window is the
 * bandwidth-delay product in packets (nominal round trip over the slowest
 * path / frame time); with no ECN marking in the fabric model MP-RDMA's
 * congestion window has nothing to react to, so it stays there. Path choice
 * is ACK-clocked: each packet goes out on the path echoed by the oldest ACK
 * not yet used as a clock (paths whose ACKs come back sooner carry more);
 * before any ACK, and when none is waiting, the --spray policy picks. Loss:
 * ACKs return on the data packet's path, which is FIFO, so the ACK of packet
 * k on path p declares lost every packet sent on p before k and still
 * unanswered (pathseq.h); a timeout (SRTT + 4 RTTVAR + OTD/B, doubling)
 * declares every unacknowledged packet lost. Not modelled: ECN-driven window
 * changes and path switches, the out-of-order-aware path selection that
 * stops using paths whose ACKs lag (so the 64-packet limit below bites when
 * the delay spread exceeds 64 packets), and the synchronise mechanism.
 *
 * Responder: a bitmap of MPRDMA_BITMAP packets from the cumulative PSN:
 * packets beyond it are dropped unplaced (counted as receiver drops) and
 * recovered by the requester; the others are placed at their own address and
 * each answered by one ACK that echoes its path (sent on it, same UDP source
 * port) and names its PSN in the AETH MSN field; BTH.PSN is the cumulative
 * PSN. */
#ifndef PCAPGEN_MPRDMA_H
#define PCAPGEN_MPRDMA_H

#include "options.h"
#include "sim.h"

#define MPRDMA_BITMAP 64 /* the receiver's out-of-order bitmap, packets */

typedef struct mprdma mprdma;

/* Registers the requester and responder engines with s. NULL when out of memory. */
mprdma *mprdma_new(sim *s, const options *o);
void mprdma_free(mprdma *p);
void mprdma_start(mprdma *p);

#endif
