/* SPDX-License-Identifier: MIT */
/* The bitmap experiment (experiment.h): many QPs, some active at a time,
 * sharing one pool of blocks; drops when the pool is empty, retries, aborted
 * WQEs. */
#include "experiment.h"

#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "prng.h"

enum { PURPOSE_ARRIVALS = 1, PURPOSE_SCHEDULE = 3 };

/* An active QP: its bitmap and the queue of its packets still to arrive. */
typedef struct {
  bm_qp *qp;
  uint32_t start;
  uint32_t *queue; /* ring of wqe_pkts offsets */
  uint32_t qhead, qlen;
  uint8_t *retries;
} lane;

typedef struct {
  const exp_params *p;
  bool loss;
  uint64_t seed;
  exp_result *r;
} run_ctx;

static int lane_begin(const run_ctx *c, lane *l, uint32_t qp_index) {
  prng g;
  prng_seed(&g, c->seed, PURPOSE_ARRIVALS + (c->loss ? 1 : 0), qp_index);
  l->start = prng_below(&g, 1u << 24); /* any PSN: some WQEs wrap */
  if (arrivals_make_kind(c->p->arrivals, &g, c->p->wqe_pkts, c->p->reorder, c->loss,
                         c->p->block_bits, l->queue) < 0)
    return -1;
  l->qhead = 0;
  l->qlen = c->p->wqe_pkts;
  memset(l->retries, 0, c->p->wqe_pkts);
  bm_start(l->qp, l->start, c->p->wqe_pkts);
  return 0;
}

static void account(const run_ctx *c, const bm_qp *qp, bool ooo) {
  exp_result *r = c->r;
  bm_cost cost = bm_last_cost(qp);
  unsigned counted = c->p->cost_pointer ? cost.total - cost.ctx : cost.total;
  r->arrivals++;
  r->cost_all += counted;
  if (ooo) {
    r->ooo++;
    r->cost_ooo += counted;
    r->node_ooo += cost.total - cost.ctx;
    r->hops_ooo += cost.hops;
  }
  if (counted > r->max_cost) r->max_cost = counted;
  unsigned held = bm_blocks_held(qp);
  r->blocks_sum += held;
  if (held > r->max_blocks) r->max_blocks = held;
}

/* Delivers the next packet of lane l. True when its WQE is over. */
static bool deliver(const run_ctx *c, lane *l) {
  uint32_t n = c->p->wqe_pkts;
  uint32_t off = l->queue[l->qhead];
  l->qhead = (l->qhead + 1) % n;
  l->qlen--;
  uint32_t psn = (l->start + off) & BM_PSN_MASK;
  bool ooo = psn != bm_first_missing(l->qp);
  int rc = bm_record(l->qp, psn);
  account(c, l->qp, ooo);
  if (rc == BM_NO_BLOCK || rc == BM_OUT_OF_RANGE) {
    if (rc == BM_NO_BLOCK)
      c->r->pool_empty++;
    else
      c->r->out_of_window++;
    if (++l->retries[off] > c->p->retry_limit) {
      c->r->aborted++;
      return true;
    }
    l->queue[(l->qhead + l->qlen) % n] = off;
    l->qlen++;
    return false;
  }
  if (!bm_complete(l->qp)) return false;
  c->r->completed++;
  return true;
}

static void lanes_free(lane *lanes, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    bm_qp_free(lanes[i].qp);
    free(lanes[i].queue);
    free(lanes[i].retries);
  }
  free(lanes);
}

static int schedule(const run_ctx *c, lane *lanes, uint32_t nl, uint32_t *busy) {
  prng g;
  prng_seed(&g, c->seed, PURPOSE_SCHEDULE, c->loss ? 1 : 0);
  uint32_t next_qp = 0, nbusy = 0;
  for (uint32_t i = 0; i < nl; i++, next_qp++, nbusy++) {
    if (lane_begin(c, &lanes[i], next_qp) < 0) return -1;
    busy[i] = i;
  }
  while (nbusy) {
    uint32_t k = prng_below(&g, nbusy);
    lane *l = &lanes[busy[k]];
    if (!deliver(c, l)) continue;
    bm_finish(l->qp);
    if (next_qp < c->p->qps) {
      if (lane_begin(c, l, next_qp++) < 0) return -1;
    } else {
      busy[k] = busy[--nbusy];
    }
  }
  return 0;
}

int exp_run(const exp_params *p, bm_kind kind, bool loss, uint64_t seed, exp_result *r) {
  memset(r, 0, sizeof *r);
  uint32_t nl = p->active < p->qps ? p->active : p->qps;
  bm_pool *pool = bm_pool_new_conf(kind, p->block_bits, p->pool, &p->conf);
  lane *lanes = calloc(nl ? nl : 1, sizeof *lanes);
  uint32_t *busy = malloc((nl ? nl : 1) * sizeof *busy);
  int rc = pool && lanes && busy ? 0 : -1;
  for (uint32_t i = 0; rc == 0 && i < nl; i++) {
    lanes[i].qp = bm_qp_new(pool, p->nslots);
    lanes[i].queue = malloc(p->wqe_pkts * sizeof *lanes[i].queue);
    lanes[i].retries = malloc(p->wqe_pkts);
    if (!lanes[i].qp || !lanes[i].queue || !lanes[i].retries) rc = -1;
  }
  run_ctx c = {p, loss, seed, r};
  if (rc == 0) rc = schedule(&c, lanes, nl, busy);
  if (rc == 0) {
    r->pool_peak = bm_pool_peak(pool);
    if (bm_pool_in_use(pool) != 0) rc = -1;
  }
  if (lanes) lanes_free(lanes, nl);
  free(busy);
  bm_pool_free(pool);
  return rc;
}
