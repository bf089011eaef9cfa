/* SPDX-License-Identifier: MIT */
/* A requester's round-trip estimate and retransmission timeout.
 *
 * PROTOCOL.md 4.1: RTO = RTT + OTD/B, RTT being the QP's smoothed round trip.
 * On a sprayed fabric one sample can be 2 x (slowest - fastest path) away from
 * the mean, so "RTT" here is SRTT + 4 RTTVAR (RFC 6298's bound) rather than
 * SRTT alone: with SRTT alone a packet whose ACK rides the slowest paths times
 * out although nothing was lost. Samples follow Karn (none from retransmitted
 * packets). Each timeout doubles the value until progress resets it. */
#ifndef PCAPGEN_RTT_H
#define PCAPGEN_RTT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  uint64_t srtt, rttvar; /* picoseconds */
  bool measured;
  unsigned backoff; /* timeouts since the last progress */
} rtt_est;

void rtt_init(rtt_est *r, uint64_t initial_ps);
void rtt_sample(rtt_est *r, uint64_t sample_ps);
uint64_t rtt_rto(const rtt_est *r, uint64_t otd_ps);

#endif
