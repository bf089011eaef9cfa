/* SPDX-License-Identifier: MIT */
/* Two loss detectors run on the same arrivals (spray.h):
 *
 * OTD (ORNIC, docs/PROTOCOL.md 4.4, reason 1, with the NAK pacing of 4.4):
 * an arrival p with p - ePSN > OTD sends a NAK declaring lost ePSN and every
 * missing PSN before the loss limit L = p - OTD, unless an earlier NAK is
 * still pending (ePSN before its L and less than T_resp = RTT + OTD packet
 * times since it was sent). ePSN is the first PSN not received. The lost
 * packet's retransmission arrives `rtt_us` after the first NAK declaring it;
 * retransmissions of PSNs that were only late are duplicates and change
 * nothing (their originals arrive first when rtt_us exceeds the delay
 * spread).
 *
 * Shift register (as in the ESRF RASHPA receiver, arXiv:2010.15450): a ring
 * of `window` bits; PSN k is checked when the first packet >= k + window/2 - 1
 * arrives, reported missing if its bit is clear, and its bit is cleared for
 * reuse. With in-order arrivals this is RASHPA's rule "when packet n arrives,
 * check n - (window/2 - 1)" (n - 511 for its 1024 bits); with reordering each
 * PSN is checked exactly once, when the highest PSN passes it. RASHPA was
 * designed for an in-order, lossless point-to-point link: on a sprayed fabric
 * it is used here beyond its design, as a fixed-distance baseline.
 *
 * A declared PSN other than the lost one is a false alarm: it was only late. */
#ifndef BM_DETECTOR_H
#define BM_DETECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "spray.h"

typedef struct {
  bool detected;         /* the lost packet was declared */
  uint32_t index;        /* the arrival that declared it (0-based) */
  double t_us;           /* and its time */
  uint32_t false_alarms; /* PSNs declared that were not lost */
} det_result;

/* Packets between the lost packet's would-be arrival and its detection,
 * counting the detecting arrival (<= 0: declared before it could arrive),
 * and the same in microseconds. */
double det_delay_pkts(const spray_trace *t, const det_result *r);
double det_delay_us(const spray_trace *t, const det_result *r);

/* npkts: the stream length the trace was made with. 0, or -1 out of memory. */
int det_otd(const spray_trace *t, uint32_t npkts, uint32_t otd, double rtt_us, double pkt_us,
            det_result *r);
/* window: a power of two >= 4. */
int det_shift(const spray_trace *t, uint32_t npkts, unsigned window, det_result *r);

#endif
