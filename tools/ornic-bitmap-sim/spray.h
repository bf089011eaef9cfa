/* SPDX-License-Identifier: MIT */
/* Arrivals of a packet stream sprayed over several paths, for the
 * loss-detector comparison.
 *
 * The sender sends `npkts` packets back to back at the link rate: packet i
 * leaves at i * T, T = (payload + 82 B of Ethernet, IPv4, UDP, BTH, iCRC, FCS,
 * preamble and inter-frame gap) * 8 / rate. Each packet takes a path drawn
 * uniformly among `paths`; path k has the one-way delay base + k * diff /
 * (paths - 1), so the fastest and slowest paths differ by `diff`. No
 * queueing: a packet arrives at send time + path delay, and packets arrive in
 * that order (ties by packet number). One packet, uniform in [npkts/4,
 * npkts/2), is lost: it is left out of the arrivals, and the time it would
 * have arrived on its path is kept. */
#ifndef BM_SPRAY_H
#define BM_SPRAY_H

#include <stdint.h>

typedef struct {
  uint32_t payload_bytes;
  double link_gbps;
  unsigned paths;
  double base_delay_us, diff_us;
  uint32_t npkts; /* >= 4 */
} spray_params;

typedef struct {
  uint32_t n;          /* arrivals: npkts - 1 */
  uint32_t *pkt;       /* packet numbers (PSN offsets) in arrival order */
  double *t_us;        /* arrival times */
  uint32_t lost;       /* the lost packet */
  double lost_t_us;    /* when it would have arrived */
  uint32_t lost_index; /* arrivals before that moment */
} spray_trace;

/* Time to send one packet at the link rate, in microseconds. */
double spray_pkt_time_us(const spray_params *p);
/* 0, or -1 when out of memory. */
int spray_make(const spray_params *p, uint64_t seed, spray_trace *t);
void spray_free(spray_trace *t);

#endif
