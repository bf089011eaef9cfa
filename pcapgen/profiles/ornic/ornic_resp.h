/* SPDX-License-Identifier: MIT */
/* ORNIC responder (docs/PROTOCOL.md 4.3 OOO WRITE, 4.4 loss detection and
 * NAK, 4.5 OOO READ): places every WRITE packet directly into the WQE's
 * memory on arrival, tracks arrivals in the ORNIC bitmap, acknowledges with
 * aggregated cumulative ACKs, declares losses with NAK bitmaps, checks every
 * byte it places against the source (verify.h), and answers OOO READs with
 * sprayed responses. */
#ifndef PCAPGEN_ORNIC_RESP_H
#define PCAPGEN_ORNIC_RESP_H

#include "sim.h"
#include "sim_config.h"

typedef struct oresp oresp;

/* Registers itself as the responder node of s. NULL when out of memory. */
oresp *oresp_new(sim *s, const sim_config *cfg);
void oresp_free(oresp *r);

/* Bitmap figures for the summary: most blocks one QP held, pool peak and size. */
void oresp_bitmap_stats(const oresp *r, unsigned *max_qp, uint64_t *peak, uint64_t *capacity);

#endif
