/* SPDX-License-Identifier: MIT */
/* One small interface over the receive-bitmap designs that
 * docs/BITMAP_MODELS.md compares: ORNIC's array of bitmap blocks (the very code of
 * the pcapgen responder, libs/ornic-bitmap) and three linked-list designs,
 * MELO+, LEFT and LEFT+ (bm_list.c).
 *
 * Every model tracks one WQE per QP: PSNs Start_PSN .. Start_PSN + npkts - 1
 * (24-bit, may wrap), grouped in blocks of M consecutive PSNs from Start_PSN,
 * with at most `nslots` blocks from the block of the first missing PSN (the
 * per-QP bitmap is nslots * M bits). Blocks come from a pool shared by all QPs
 * of a NIC; each model has its own kind of pool.
 *
 * Access cost: bm_last_cost() says how many memory accesses (one clock cycle
 * each) the last bm_record / bm_test needed to reach the bit of its PSN.
 * What counts is defined in docs/BITMAP_MODELS.md section 2 and by the
 * comments of bm_list.c; every model uses the same rules. */
#ifndef BM_MODEL_H
#define BM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BM_PSN_MASK 0x00ffffffu

typedef enum {
  BM_ORNIC = 0,
  BM_MELO_PLUS = 1,
  BM_LEFT = 2,
  BM_LEFT_PLUS = 3,
  BM_NMODELS = 4
} bm_kind;

/* Results of bm_record (the same values as ornic_bitmap.h's OBM_*). */
enum {
  BM_NEW = 0,          /* first arrival: the bit is now set */
  BM_DUP = 1,          /* already received */
  BM_OUT_OF_RANGE = 2, /* not a PSN of the WQE, or beyond the nslots blocks of the bitmap */
  BM_NO_BLOCK = 3      /* the pool is empty: not recorded (the packet is dropped) */
};

/* The cost of one operation. `total` is the figure the experiment reports;
 * `ctx` of it are reads of the per-QP entry that locates a block (ORNIC's
 * slot, a list's head / tail / cache pointer), `hops` of it are next-pointer
 * hops of a list walk. */
typedef struct {
  unsigned total, ctx, hops;
} bm_cost;

typedef struct bm_pool bm_pool;
typedef struct bm_qp bm_qp;

/* LEFT / LEFT+ cache rule: the cache follows every record (appends and
 * head / tail hits included). */
#define BM_CACHE_EVERY (-1)

/* The variants of the list models (ORNIC ignores them). docs/BITMAP_MODELS.md
 * section 2a. */
typedef struct {
  /* LEFT and LEFT+: BM_CACHE_EVERY, or N >= 0: the cache pointer moves to a
   * block only when reaching it took a walk and the block is more than N
   * blocks after the head (the blocks a walk from the head traverses: the
   * paper's "number of bitmap blocks to traverse exceeded a threshold").
   * Head, tail and cache hits and appends then leave the cache alone. */
  int left_threshold;
  /* LEFT+: false, walk forward from the cached block only when it is before
   * the target (next pointers only); true, walk from it in either direction,
   * whichever of head and cache is nearer (needs prev pointers: a doubly
   * linked list). */
  bool leftplus_both;
} bm_conf;

/* The variants bm_pool_new uses: {BM_CACHE_EVERY, false}. */
bm_conf bm_conf_default(void);

/* "ornic", "melo+", "left", "left+"; bm_kind_parse returns -1 for others. */
const char *bm_kind_name(bm_kind kind);
int bm_kind_parse(const char *name);

/* A pool of `capacity` blocks of `block_bits` (1..64) bits for models of
 * `kind`. NULL on bad arguments or out of memory. */
bm_pool *bm_pool_new(bm_kind kind, unsigned block_bits, size_t capacity);
/* The same with the list variants of *conf (NULL: bm_conf_default()). NULL
 * also when conf->left_threshold < BM_CACHE_EVERY. */
bm_pool *bm_pool_new_conf(bm_kind kind, unsigned block_bits, size_t capacity, const bm_conf *conf);
void bm_pool_free(bm_pool *pool);
size_t bm_pool_in_use(const bm_pool *pool); /* blocks held by all QPs now */
size_t bm_pool_peak(const bm_pool *pool);   /* most blocks ever held at once */

/* A QP's bitmap of `nslots` blocks over `pool` (which must outlive it). */
bm_qp *bm_qp_new(bm_pool *pool, unsigned nslots);
void bm_qp_free(bm_qp *qp); /* returns any blocks it holds */

/* Starts a WQE of npkts >= 1 packets (a WQE still tracked is abandoned first). */
void bm_start(bm_qp *qp, uint32_t start_psn, uint32_t npkts);
/* Returns every block to the pool and stops tracking. */
void bm_finish(bm_qp *qp);

/* Records the arrival of `psn`: BM_NEW / BM_DUP / BM_OUT_OF_RANGE / BM_NO_BLOCK. */
int bm_record(bm_qp *qp, uint32_t psn);
/* 1 received, 0 missing, -1 not a PSN of the WQE (also sets the cost). */
int bm_test(bm_qp *qp, uint32_t psn);
/* Every PSN of the WQE received. */
bool bm_complete(const bm_qp *qp);
/* The first missing PSN (ePSN); Start_PSN + npkts once complete. */
uint32_t bm_first_missing(const bm_qp *qp);
/* Writes the missing PSNs of the WQE in PSN order, at most `max` of them;
 * returns how many there are. Does not change the cost. */
size_t bm_missing(bm_qp *qp, uint32_t *out, size_t max);
/* Blocks this QP holds now / the most it held since bm_qp_new. */
unsigned bm_blocks_held(const bm_qp *qp);
unsigned bm_max_blocks_held(const bm_qp *qp);
/* Cost of the last bm_record / bm_test. */
bm_cost bm_last_cost(const bm_qp *qp);

#endif
