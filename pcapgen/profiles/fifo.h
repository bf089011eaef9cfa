/* SPDX-License-Identifier: MIT */
/* A growable FIFO of 32-bit values (ring buffer), for retransmission and
 * READ-range queues whose length depends on losses. */
#ifndef PCAPGEN_FIFO_H
#define PCAPGEN_FIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
  uint32_t *a;
  size_t head, len, cap; /* cap is 0 or a power of two */
} u32fifo;

static inline int fifo_push(u32fifo *f, uint32_t v) {
  if (f->len == f->cap) {
    size_t cap = f->cap ? 2 * f->cap : 16;
    uint32_t *a = malloc(cap * sizeof *a);
    if (!a) return -1;
    for (size_t i = 0; i < f->len; i++) a[i] = f->a[(f->head + i) & (f->cap - 1)];
    free(f->a);
    f->a = a;
    f->cap = cap;
    f->head = 0;
  }
  f->a[(f->head + f->len++) & (f->cap - 1)] = v;
  return 0;
}

static inline bool fifo_pop(u32fifo *f, uint32_t *v) {
  if (!f->len) return false;
  *v = f->a[f->head];
  f->head = (f->head + 1) & (f->cap - 1);
  f->len--;
  return true;
}

static inline void fifo_clear(u32fifo *f) { f->head = f->len = 0; }

static inline void fifo_free(u32fifo *f) {
  free(f->a);
  f->a = NULL;
  f->head = f->len = f->cap = 0;
}

#endif
