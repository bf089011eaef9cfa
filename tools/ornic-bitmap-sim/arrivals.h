/* SPDX-License-Identifier: MIT */
/* The arrival order of one WQE's packets at the responder.
 *
 * Sliding bound (arrivals_make): packet i gets the key i + U{0..reorder} and
 * packets arrive in key order (ties in random order). So a packet q arriving
 * before a packet p < q has q - p <= reorder: no packet is more than
 * `reorder` PSNs out of order, and every arrival is at most `reorder` past
 * the first missing PSN at that moment.
 *
 * Aligned windows (arrivals_make_aligned): offsets are cut into consecutive
 * windows of `window` packets from offset 0 (Start_PSN): [0, W), [W, 2W), ...
 * (the last one may be shorter); the windows arrive one after the other, each
 * in a uniformly random order (Fisher-Yates). So two packets are never more
 * than W - 1 apart in arrival order, and with W = 64 and 16-bit blocks a
 * window is exactly four blocks: the reading of the paper's "the OOO distance
 * did not exceed 64, which was four times the bitmap block width".
 *
 * Loss, either way: one packet of the first block (offset U{0..min(block_bits,
 * n)-1}) is lost; its retransmission arrives after every other packet (the
 * paper's "a random packet in the first bitmap block was dropped"). */
#ifndef BM_ARRIVALS_H
#define BM_ARRIVALS_H

#include <stdbool.h>
#include <stdint.h>

#include "prng.h"

typedef enum { ARR_SLIDING = 0, ARR_ALIGNED = 1 } arr_kind;

/* "sliding", "aligned"; arr_kind_parse returns -1 for others. */
const char *arr_kind_name(arr_kind kind);
int arr_kind_parse(const char *name);

/* Writes the n offsets 0..n-1 (n >= 1) to out in arrival order. With
 * `loss`, returns the lost offset (now last in out); otherwise returns n.
 * Returns -1 when out of memory. */
int64_t arrivals_make(prng *g, uint32_t n, uint32_t reorder, bool loss, unsigned block_bits,
                      uint32_t *out);
/* The same with aligned windows of `window` packets (0 or 1: in order).
 * Needs no memory: never returns -1. */
int64_t arrivals_make_aligned(prng *g, uint32_t n, uint32_t window, bool loss, unsigned block_bits,
                              uint32_t *out);
/* arrivals_make or arrivals_make_aligned, `bound` being reorder or window. */
int64_t arrivals_make_kind(arr_kind kind, prng *g, uint32_t n, uint32_t bound, bool loss,
                           unsigned block_bits, uint32_t *out);

/* The reordering bound of one QP when `active` QPs receive at once (--reorder
 * auto, docs/BITMAP_MODELS.md section 4d): the paper's Eq. 3, OTD = MDD x B /
 * L (ornic/sizing.h, the rule pcapgen's --otd auto uses), with B the QP's
 * share of the link, link_gbps / active. The experiment serves the active QPs
 * in uniformly random turns, so each sends 1/active of the packets, and the
 * packets of the others that cross the link while one of its packets lags by
 * MDD do not count in its own PSN distance. Rounded up as Eq. 3 is (an upper
 * bound on the reordering: never kinder to a bitmap than the fabric); 0 (in
 * order) only when MDD is 0. active 0 counts as 1. */
uint32_t arrivals_eq3_bound(double mdd_us, double link_gbps, uint32_t active, uint32_t len_bytes);

#endif
