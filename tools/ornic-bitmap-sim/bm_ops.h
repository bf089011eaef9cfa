/* SPDX-License-Identifier: MIT */
/* What each bitmap model implements; bm_model.c dispatches to it. Private to
 * the model library. */
#ifndef BM_OPS_H
#define BM_OPS_H

#include "bm_model.h"

typedef struct {
  void *(*pool_new)(unsigned block_bits, size_t capacity);
  void (*pool_free)(void *pool);
  size_t (*pool_capacity)(const void *pool);
  size_t (*pool_in_use)(const void *pool);
  size_t (*pool_peak)(const void *pool);
  void *(*qp_new)(void *pool, unsigned nslots, bm_kind kind, const bm_conf *conf);
  void (*qp_free)(void *qp);
  void (*start)(void *qp, uint32_t start_psn, uint32_t npkts);
  void (*finish)(void *qp);
  int (*record)(void *qp, uint32_t psn);
  int (*test)(void *qp, uint32_t psn);
  bool (*complete)(const void *qp);
  uint32_t (*first_missing)(const void *qp);
  size_t (*missing)(void *qp, uint32_t *out, size_t max);
  unsigned (*blocks_held)(const void *qp);
  unsigned (*max_blocks_held)(const void *qp);
  bm_cost (*last_cost)(const void *qp);
} bm_ops;

extern const bm_ops bm_ornic_ops; /* bm_ornic.c: over libs/ornic-bitmap */
extern const bm_ops bm_list_ops;  /* bm_list.c: MELO+, LEFT, LEFT+ */

#endif
