/* SPDX-License-Identifier: MIT */
#include "path_order.h"

#include <stdlib.h>

int pathseq_init(pathseq *ps, unsigned npaths) {
  ps->npaths = npaths;
  ps->q = calloc(npaths, sizeof *ps->q);
  return ps->q ? 0 : -1;
}

void pathseq_free(pathseq *ps) {
  for (unsigned i = 0; ps->q && i < ps->npaths; i++) fifo_free(&ps->q[i]);
  free(ps->q);
  ps->q = NULL;
}

void pathseq_clear(pathseq *ps) {
  for (unsigned i = 0; i < ps->npaths; i++) fifo_clear(&ps->q[i]);
}

int pathseq_sent(pathseq *ps, unsigned path, uint32_t idx) { return fifo_push(&ps->q[path], idx); }

void pathseq_acked(pathseq *ps, unsigned path, uint32_t idx, void (*lost)(void *, uint32_t),
                   void *ctx) {
  if (path >= ps->npaths) return;
  u32fifo *f = &ps->q[path];
  size_t k = 0;
  while (k < f->len && f->a[(f->head + k) & (f->cap - 1)] != idx) k++;
  if (k == f->len) return;
  uint32_t j;
  for (size_t i = 0; i < k; i++)
    if (fifo_pop(f, &j)) lost(ctx, j);
  fifo_pop(f, &j);
}
