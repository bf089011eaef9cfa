/* SPDX-License-Identifier: MIT */
/* Loss inference from path order, for transports whose ACKs echo the data
 * packet's path and return on it (mprdma, ioi). Each path of the fabric is
 * FIFO in each direction (net.h), so the ACKs of the packets sent on one path
 * come back in the order the packets were sent: when the ACK of packet k
 * arrives on path p, every packet sent on p before k whose ACK has not come
 * was lost (or its ACK was). One FIFO of packet indices per path. */
#ifndef PCAPGEN_PATH_ORDER_H
#define PCAPGEN_PATH_ORDER_H

#include <stdint.h>

#include "fifo.h"

typedef struct {
  u32fifo *q;
  unsigned npaths;
} pathseq;

/* 0, or -1 when out of memory. */
int pathseq_init(pathseq *ps, unsigned npaths);
void pathseq_free(pathseq *ps);
void pathseq_clear(pathseq *ps);

/* Packet idx left on path. 0, or -1 when out of memory. */
int pathseq_sent(pathseq *ps, unsigned path, uint32_t idx);

/* The ACK of idx came back on path: calls lost(ctx, j) for every packet j
 * sent on path before idx and not answered since, and forgets them and idx.
 * Nothing happens when idx is not waiting on path. */
void pathseq_acked(pathseq *ps, unsigned path, uint32_t idx, void (*lost)(void *, uint32_t),
                   void *ctx);

#endif
