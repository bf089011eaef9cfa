/* SPDX-License-Identifier: MIT */
/* The bitmap-model experiment: `qps` QPs each receive one WQE of `wqe_pkts`
 * packets in a bounded-reordering order (arrivals.h: a sliding bound or
 * aligned windows of `reorder` packets), `active` of them at a
 * time, all sharing one pool of `pool` blocks. The next arrival is that of a
 * QP drawn uniformly among the active ones; when a QP completes its WQE, its
 * blocks go back to the pool and the next QP starts in its place.
 *
 * A packet that finds the pool empty (or lies beyond the bitmap) is dropped
 * and retransmitted: it goes to the back of its QP's queue. After
 * `retry_limit` such drops of one packet the WQE is aborted (its blocks are
 * returned), like an RC QP that exhausts its retry count; so a pool that is
 * too small cannot deadlock the run. */
#ifndef BM_EXPERIMENT_H
#define BM_EXPERIMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "arrivals.h"
#include "bm_model.h"

typedef struct {
  unsigned block_bits;  /* M */
  unsigned nslots;      /* blocks per QP bitmap (bitmap bits / M) */
  uint32_t qps, active; /* QPs in all, and at once */
  uint32_t pool;        /* blocks in the shared pool */
  uint32_t reorder;     /* sliding: most PSNs a packet is out of order; aligned: the window */
  uint32_t wqe_pkts;
  uint32_t retry_limit;
  arr_kind arrivals; /* ARR_SLIDING or ARR_ALIGNED */
  bool cost_pointer; /* cost = pointer accesses only (bm_cost.total - ctx), not total */
  bm_conf conf;      /* list variants: LEFT cache rule, LEFT+ walk */
} exp_params;

typedef struct {
  uint64_t arrivals, ooo;      /* arrivals, of which out of order (PSN != ePSN) */
  uint64_t cost_all, cost_ooo; /* sums of the cost (total, or total - ctx with cost_pointer) */
  uint64_t node_ooo, hops_ooo; /* sums over OOO arrivals of total - ctx, and of hops */
  unsigned max_cost;           /* the most expensive access */
  unsigned max_blocks;         /* the most blocks one QP held */
  uint64_t blocks_sum;         /* blocks its QP holds after each arrival, summed */
  uint64_t pool_peak;          /* most blocks held at once by all QPs */
  uint64_t pool_empty;         /* arrivals that found the pool empty */
  uint64_t out_of_window;      /* arrivals beyond the bitmap */
  uint64_t completed, aborted; /* WQEs */
} exp_result;

/* Runs one model on one scenario for one seed. 0, or -1 when out of memory
 * or when blocks were not all back in the pool at the end (a model bug). */
int exp_run(const exp_params *p, bm_kind kind, bool loss, uint64_t seed, exp_result *r);

#endif
