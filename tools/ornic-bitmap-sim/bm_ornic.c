/* SPDX-License-Identifier: MIT */
/* The ORNIC model: a thin adapter, the bitmap itself is libs/ornic-bitmap
 * (ornic_bitmap.c), the code the pcapgen responder runs (one implementation,
 * not two).
 *
 * Cost: obm_last_cost() counts the slot read (1, the per-QP entry) plus the
 * node when the slot points to one or a node is taken (1). A FULL slot or an
 * empty pool stops at the slot; a PSN before ePSN costs 0 (compared with the
 * ePSN register). So `ctx` is 1 whenever the cost is not 0, and no hops. */
#include "bm_ops.h"
#include "ornic_bitmap.h"

static void *pool_new(unsigned block_bits, size_t capacity) {
  return obm_pool_new(block_bits, capacity);
}
static void pool_free(void *p) { obm_pool_free(p); }
static size_t pool_capacity(const void *p) { return obm_pool_capacity(p); }
static size_t pool_in_use(const void *p) { return obm_pool_in_use(p); }
static size_t pool_peak(const void *p) { return obm_pool_peak(p); }

static void *qp_new(void *pool, unsigned nslots, bm_kind kind, const bm_conf *conf) {
  (void)kind;
  (void)conf; /* the list variants do not apply */
  return obm_new(pool, nslots);
}

static void qp_free(void *q) { obm_free(q); }
static void start(void *q, uint32_t start_psn, uint32_t npkts) { obm_start(q, start_psn, npkts); }
static void finish(void *q) { obm_finish(q); }
static int record(void *q, uint32_t psn) { return obm_record(q, psn); }
static int test(void *q, uint32_t psn) { return obm_test(q, psn); }
static bool complete(const void *q) { return obm_complete(q); }
static uint32_t first_missing(const void *q) { return obm_first_missing(q); }
static unsigned blocks_held(const void *q) { return obm_blocks_held(q); }
static unsigned max_blocks_held(const void *q) { return obm_max_blocks_held(q); }

typedef struct {
  uint32_t *out;
  size_t max, n;
} collect;

static void add_run(void *ctx, uint32_t first_psn, uint32_t count) {
  collect *c = ctx;
  for (uint32_t i = 0; i < count; i++, c->n++)
    if (c->n < c->max) c->out[c->n] = (first_psn + i) & BM_PSN_MASK;
}

static size_t missing(void *q, uint32_t *out, size_t max) {
  collect c = {out, max, 0};
  if (obm_active(q)) obm_missing_runs(q, obm_start_psn(q), obm_npkts(q), add_run, &c);
  return c.n;
}

static bm_cost last_cost(const void *q) {
  unsigned c = obm_last_cost(q);
  return (bm_cost){c, c ? 1u : 0u, 0};
}

const bm_ops bm_ornic_ops = {
    pool_new,      pool_free, pool_capacity, pool_in_use,     pool_peak, qp_new,
    qp_free,       start,     finish,        record,          test,      complete,
    first_missing, missing,   blocks_held,   max_blocks_held, last_cost};
