/* SPDX-License-Identifier: MIT */
/* ORNIC requester (docs/PROTOCOL.md 4.2 OOO WRITE, 4.5 OOO READ): posts each
 * QP's WQEs one at a time, sprays their packets, reacts to ACK/NAK, times
 * out tail losses, and for READ places responses by PSN and checks them. */
#ifndef PCAPGEN_ORNIC_REQ_H
#define PCAPGEN_ORNIC_REQ_H

#include "sim.h"
#include "sim_config.h"

typedef struct oreq oreq;

/* Registers itself as the requester node of s. NULL when out of memory. */
oreq *oreq_new(sim *s, const sim_config *cfg);
void oreq_free(oreq *r);

/* The requester's OOO READ bitmaps: most blocks one QP held, pool peak and
 * size (all 0 for WRITE, where the bitmap is the responder's). */
void oreq_bitmap_stats(const oreq *r, unsigned *max_qp, uint64_t *peak, uint64_t *capacity);

/* Posts the first WQE of every QP. */
void oreq_start(oreq *r);

#endif
