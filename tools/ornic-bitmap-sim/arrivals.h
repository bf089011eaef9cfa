/* The arrival order of one WQE's packets at the responder.
 *
 * Bounded reordering: packet i gets the key i + U{0..reorder} and packets
 * arrive in key order (ties in random order). So a packet q arriving before
 * a packet p < q has q - p <= reorder: no packet is more than `reorder` PSNs
 * out of order, and every arrival is at most `reorder` past the first
 * missing PSN at that moment.
 *
 * Loss: one packet of the first block (offset U{0..min(block_bits, n)-1}) is
 * lost; its retransmission arrives after every other packet. */
#ifndef BM_ARRIVALS_H
#define BM_ARRIVALS_H

#include <stdbool.h>
#include <stdint.h>

#include "prng.h"

/* Writes the n offsets 0..n-1 (n >= 1) to out in arrival order. With
 * `loss`, returns the lost offset (now last in out); otherwise returns n.
 * Returns -1 when out of memory. */
int64_t arrivals_make(prng *g, uint32_t n, uint32_t reorder, bool loss, unsigned block_bits,
                      uint32_t *out);

#endif
