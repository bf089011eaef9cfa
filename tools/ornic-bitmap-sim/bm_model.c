/* SPDX-License-Identifier: MIT */
/* The one interface over the bitmap models (bm_model.h): model names, pools
 * and QPs, each call dispatched to the model's operations (bm_ops.h). */
#include "bm_model.h"

#include <stdlib.h>
#include <string.h>

#include "bm_ops.h"

struct bm_pool {
  const bm_ops *ops;
  bm_kind kind;
  bm_conf conf;
  void *impl;
};

struct bm_qp {
  const bm_ops *ops;
  void *impl;
};

static const char *const names[BM_NMODELS] = {"ornic", "melo+", "left", "left+"};

const char *bm_kind_name(bm_kind kind) { return (unsigned)kind < BM_NMODELS ? names[kind] : "?"; }

int bm_kind_parse(const char *name) {
  for (int k = 0; k < BM_NMODELS; k++)
    if (strcmp(name, names[k]) == 0) return k;
  return -1;
}

bm_conf bm_conf_default(void) { return (bm_conf){BM_CACHE_EVERY, false}; }

bm_pool *bm_pool_new(bm_kind kind, unsigned block_bits, size_t capacity) {
  return bm_pool_new_conf(kind, block_bits, capacity, NULL);
}

bm_pool *bm_pool_new_conf(bm_kind kind, unsigned block_bits, size_t capacity, const bm_conf *conf) {
  if ((unsigned)kind >= BM_NMODELS) return NULL;
  if (conf && conf->left_threshold < BM_CACHE_EVERY) return NULL;
  bm_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->ops = kind == BM_ORNIC ? &bm_ornic_ops : &bm_list_ops;
  p->kind = kind;
  p->conf = conf ? *conf : bm_conf_default();
  p->impl = p->ops->pool_new(block_bits, capacity);
  if (!p->impl) {
    free(p);
    return NULL;
  }
  return p;
}

void bm_pool_free(bm_pool *p) {
  if (!p) return;
  p->ops->pool_free(p->impl);
  free(p);
}

size_t bm_pool_in_use(const bm_pool *p) { return p->ops->pool_in_use(p->impl); }
size_t bm_pool_peak(const bm_pool *p) { return p->ops->pool_peak(p->impl); }

bm_qp *bm_qp_new(bm_pool *pool, unsigned nslots) {
  if (!pool) return NULL;
  bm_qp *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->ops = pool->ops;
  q->impl = pool->ops->qp_new(pool->impl, nslots, pool->kind, &pool->conf);
  if (!q->impl) {
    free(q);
    return NULL;
  }
  return q;
}

void bm_qp_free(bm_qp *q) {
  if (!q) return;
  q->ops->qp_free(q->impl);
  free(q);
}

void bm_start(bm_qp *q, uint32_t start_psn, uint32_t npkts) {
  q->ops->start(q->impl, start_psn, npkts);
}
void bm_finish(bm_qp *q) { q->ops->finish(q->impl); }
int bm_record(bm_qp *q, uint32_t psn) { return q->ops->record(q->impl, psn); }
int bm_test(bm_qp *q, uint32_t psn) { return q->ops->test(q->impl, psn); }
bool bm_complete(const bm_qp *q) { return q->ops->complete(q->impl); }
uint32_t bm_first_missing(const bm_qp *q) { return q->ops->first_missing(q->impl); }
size_t bm_missing(bm_qp *q, uint32_t *out, size_t max) {
  return q->ops->missing(q->impl, out, max);
}
unsigned bm_blocks_held(const bm_qp *q) { return q->ops->blocks_held(q->impl); }
unsigned bm_max_blocks_held(const bm_qp *q) { return q->ops->max_blocks_held(q->impl); }
bm_cost bm_last_cost(const bm_qp *q) { return q->ops->last_cost(q->impl); }
