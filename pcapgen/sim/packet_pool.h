/* SPDX-License-Identifier: MIT */
/* Frames in flight. A packet is encoded once, when its sender's NIC puts it
 * on the wire, and carried as bytes to the receiver, which decodes it with
 * libornicproto like a real NIC would. Buffers are recycled through a free
 * list, so memory follows the number of packets in flight, not the trace. */
#ifndef PCAPGEN_PACKET_POOL_H
#define PCAPGEN_PACKET_POOL_H

#include <stddef.h>
#include <stdint.h>

/* What a packet is, for statistics and for exact --drop rules. */
/* PK_CNP, PK_PAUSE: an incast run's DCQCN CNP and PFC frame (fabric/). */
enum {
  PK_DATA = 0,
  PK_READ_REQ = 1,
  PK_ACK = 2,
  PK_NAK = 3,
  PK_FATAL = 4,
  PK_CNP = 5,
  PK_PAUSE = 6
};

typedef struct {
  uint8_t kind;         /* PK_* */
  uint8_t retx;         /* data sent again (retransmission / re-read) */
  uint32_t qp;          /* QP index (not number) */
  uint64_t wqe;         /* WQE number on that QP, from 0 */
  uint32_t idx;         /* PSN offset within the WQE */
  uint32_t payload_len; /* RDMA payload bytes */
  uint8_t probe;        /* an RTO probe (ornic), for the summary's ground truth */
} pkt_meta;

typedef struct pkt {
  struct pkt *next; /* free list / control queue */
  pkt_meta m;
  uint32_t len; /* frame bytes */
  uint16_t path;
  uint8_t src; /* sending node */
  uint8_t data[];
} pkt;

typedef struct {
  pkt *free;
  size_t bufsize; /* frame capacity of every buffer */
  size_t in_use, peak;
  size_t limit; /* most buffers at once (--max-memory), 0: no limit */
} pktpool;

void pktpool_init(pktpool *pp, size_t frame_capacity);
pkt *pktpool_get(pktpool *pp); /* NULL when out of memory or at the limit */
void pktpool_put(pktpool *pp, pkt *p);
void pktpool_destroy(pktpool *pp); /* frees the free list */

#endif
