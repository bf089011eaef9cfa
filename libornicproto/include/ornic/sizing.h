/* SPDX-License-Identifier: MIT */
/* The ORNIC paper's sizing rule for the OOO Tolerance Distance (Ma et al.,
 * "ORNIC", Electronics 14(1):88, 2025, section 3.3, Eq. 3; docs/PROTOCOL.md
 * section 1, "OTD"):
 *
 *   OTD = MDD x B / L
 *
 * MDD: the largest one-way delay difference between the paths a QP's packets
 * take; B: the rate the QP's packets are sent at; L: the packet length. It is
 * the number of the QP's packets sent during MDD, so the farthest a packet of
 * that QP can arrive out of order. One rule for every program that sizes an
 * OTD or bounds a QP's reordering by it (ornic-pcapgen's --otd auto,
 * ornic-bitmap-sim's --reorder auto). */
#ifndef ORNIC_SIZING_H
#define ORNIC_SIZING_H

#include <stdint.h>

#include "ornic/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Eq. 3 in packets, rounded up: ceil(mdd_us x rate_gbps x 1000 / (8 x
 * len_bytes)); us x Gb/s is 1000 bits. A value within 1e-9 of an integer
 * counts as that integer (64 x 4096 x 8 bits at 100 Gb/s, MDD 20.97152 us,
 * gives exactly 64); the result saturates at UINT32_MAX. 0 when the product
 * is not positive (one path: nothing overtakes), when a value is not a
 * number, or when len_bytes is 0. Rounding up keeps an OTD on the safe side:
 * below the true distance it would NAK packets that were only late. A caller
 * that needs at least 1 (an OTD of 0 NAKs every reordering) says so itself. */
ORNIC_API uint32_t ornic_sizing_otd(double mdd_us, double rate_gbps, uint32_t len_bytes);

#ifdef __cplusplus
}
#endif

#endif
