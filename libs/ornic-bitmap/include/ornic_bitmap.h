/* SPDX-License-Identifier: MIT */
/* ORNIC receive bitmap (docs/PROTOCOL.md 4.7), one implementation shared by
 * the pcapgen responder (and the OOO READ requester) and the bitmap-model
 * experiment of issue 6.
 *
 * Model. A pool of M-bit bitmap blocks (nodes), M = 1..64, is shared by every
 * QP of a NIC. Each QP (an `obm`) tracks one WQE at a time: PSNs Start_PSN ..
 * Start_PSN + npkts - 1, grouped in blocks of M consecutive PSNs starting at
 * Start_PSN. The QP holds an array of `nslots` slots used as a ring: block b
 * lives in slot b mod nslots while it is inside the window that starts at the
 * block of the first missing PSN. A slot is EMPTY, FULL (all M bits received:
 * no node, reads as all ones) or points to a node. A node is taken from the
 * pool when the first PSN of its block arrives and returned the moment its
 * last bit is set, so a QP holds nodes only for blocks with holes. Blocks
 * wholly before the first missing PSN are released too. Every access is one
 * array index plus at most one node: "random access in one step".
 *
 * PSNs are 24-bit and may wrap inside a WQE. A block's "full" mask covers only
 * PSNs of the WQE, so the last, partial block is released when complete.
 *
 * Access cost (for the model comparison): obm_last_cost() is the number of
 * memory reads of the last obm_record / obm_test: the slot (1) plus the node
 * when the slot points to one (1). */
#ifndef ORNIC_BITMAP_H
#define ORNIC_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct obm_pool obm_pool;
typedef struct obm obm;

/* Results of obm_record. */
enum {
  OBM_NEW = 0,          /* first arrival of this PSN: its bit is now set */
  OBM_DUP = 1,          /* already received (or before the first missing PSN) */
  OBM_OUT_OF_RANGE = 2, /* not a PSN of the WQE, beyond the slot ring, or no WQE */
  OBM_NO_BLOCK = 3      /* the pool is empty: not recorded (the packet is dropped) */
};

/* A pool of `capacity` nodes of `block_bits` (1..64) bits. NULL on bad
 * arguments or out of memory. */
obm_pool *obm_pool_new(unsigned block_bits, size_t capacity);
void obm_pool_free(obm_pool *pool);
size_t obm_pool_capacity(const obm_pool *pool);
size_t obm_pool_in_use(const obm_pool *pool); /* nodes currently held by all QPs */
size_t obm_pool_peak(const obm_pool *pool);   /* most nodes ever held at once */

/* A QP's bitmap: `nslots` block slots (covers nslots * M PSNs past the first
 * missing one). NULL on bad arguments or out of memory. The pool must outlive it. */
obm *obm_new(obm_pool *pool, unsigned nslots);
void obm_free(obm *b); /* releases any nodes it holds */

/* Starts tracking a WQE of npkts >= 1 packets from start_psn. Any WQE still
 * tracked is abandoned first (its nodes go back to the pool). */
void obm_start(obm *b, uint32_t start_psn, uint32_t npkts);

/* Releases every node and stops tracking (call at WQE completion or abort). */
void obm_finish(obm *b);

bool obm_active(const obm *b);
uint32_t obm_start_psn(const obm *b);
uint32_t obm_npkts(const obm *b);

/* Records the arrival of `psn`: OBM_NEW / OBM_DUP / OBM_OUT_OF_RANGE / OBM_NO_BLOCK. */
int obm_record(obm *b, uint32_t psn);

/* 1 received, 0 missing, -1 not a PSN of the WQE. PSNs before the first
 * missing one read as received; PSNs beyond the ring as missing. */
int obm_test(obm *b, uint32_t psn);

/* The first missing PSN (the WQE's ePSN); Start_PSN + npkts once complete. */
uint32_t obm_first_missing(const obm *b);

/* Every PSN of the WQE received. */
bool obm_complete(const obm *b);

/* Nodes this QP holds now, and the most it ever held (since obm_new). */
unsigned obm_blocks_held(const obm *b);
unsigned obm_max_blocks_held(const obm *b);

/* Memory reads of the last obm_record / obm_test (see the top comment). */
unsigned obm_last_cost(const obm *b);

/* 16 bits of receive state from `psn`: bit i set = psn + i received. PSNs
 * after the WQE read 0, PSNs before the first missing one read 1. */
uint16_t obm_bits16(obm *b, uint32_t psn);

/* NAKETH blocks per PROTOCOL.md 4.4: n = min(max_blocks, floor((trigger -
 * base) / 16) + 1) blocks from `base` (base must be the first missing PSN,
 * trigger not before it). Bit 0 of block 0 is reserved and written as 0.
 * Returns n (>= 1). */
unsigned obm_nak_blocks(obm *b, uint32_t base, uint32_t trigger, uint16_t *blocks,
                        unsigned max_blocks);

/* Calls fn(ctx, first, count) for each run of missing PSNs of the WQE within
 * [from, from + span), in PSN order. Returns the number of runs. */
typedef void (*obm_run_fn)(void *ctx, uint32_t first_psn, uint32_t count);
size_t obm_missing_runs(obm *b, uint32_t from, uint32_t span, obm_run_fn fn, void *ctx);

#endif
