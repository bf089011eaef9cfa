/* Profile `irn`: IRN's selective repeat (Mittal et al., "Revisiting Network
 * Support for RDMA", SIGCOMM 2018) for RDMA WRITE.
 *
 * Requester: every packet carries its address (rcx.h); BDP-FC caps the
 * packets outstanding (next new PSN - cumulative PSN) at the bandwidth-delay
 * product in packets, BDP = nominal round trip over the slowest path / frame
 * time. Loss recovery: the first NACK enters recovery; in recovery a packet
 * is lost when it is unacknowledged and a later PSN was selectively
 * acknowledged (a NACK's trigger PSN); each lost packet is sent again once per
 * recovery, before new packets; recovery ends when the cumulative PSN passes
 * the highest PSN sent when it began. Timeouts: RTO_low = 2 x nominal RTT
 * while fewer than 3 packets are outstanding, else RTO_high = max(4 x
 * nominal RTT, SRTT + 4 RTTVAR); doubled per timeout in a row; a timeout
 * marks every unacknowledged packet lost.
 *
 * Responder: places every packet at its own address, keeps a bitmap of BDP
 * packets from the cumulative PSN, and answers every data packet: an ACK
 * (cumulative) when it arrived in order or was a duplicate, a NACK (AETH
 * 0x60, BTH.PSN = next expected PSN, trigger PSN in the AETH MSN field) when
 * it arrived out of order. */
#ifndef PCAPGEN_IRN_H
#define PCAPGEN_IRN_H

#include "options.h"
#include "sim.h"

typedef struct irn irn;

/* Registers the requester and responder engines with s. NULL when out of memory. */
irn *irn_new(sim *s, const options *o);
void irn_free(irn *p);
void irn_start(irn *p);

#endif
