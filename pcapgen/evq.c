/* SPDX-License-Identifier: MIT */
#include "evq.h"

#include <stdlib.h>

static inline bool before(const ev *a, const ev *b) {
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int evq_init(evq *q, size_t initial_cap) {
  q->n = 0;
  q->next_seq = 0;
  q->cap = initial_cap ? initial_cap : 64;
  q->a = malloc(q->cap * sizeof *q->a);
  return q->a ? 0 : -1;
}

void evq_free(evq *q) {
  free(q->a);
  q->a = NULL;
  q->n = q->cap = 0;
}

int evq_push(evq *q, uint64_t t, uint32_t kind, uint32_t arg, void *ptr) {
  if (q->n == q->cap) {
    size_t cap = q->cap * 2;
    ev *a = realloc(q->a, cap * sizeof *a);
    if (!a) return -1;
    q->a = a;
    q->cap = cap;
  }
  ev e = {t, q->next_seq++, kind, arg, ptr};
  size_t i = q->n++;
  /* Sift up: move parents down until e's place is found (one write per level). */
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!before(&e, &q->a[parent])) break;
    q->a[i] = q->a[parent];
    i = parent;
  }
  q->a[i] = e;
  return 0;
}

bool evq_pop(evq *q, ev *out) {
  if (q->n == 0) return false;
  *out = q->a[0];
  ev last = q->a[--q->n];
  size_t i = 0, n = q->n;
  /* Sift down the former last element from the root. */
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(&q->a[c + 1], &q->a[c])) c++;
    if (!before(&q->a[c], &last)) break;
    q->a[i] = q->a[c];
    i = c;
  }
  if (n) q->a[i] = last;
  return true;
}
