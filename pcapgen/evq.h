/* SPDX-License-Identifier: MIT */
/* The simulator's event queue: a binary min-heap of events ordered by
 * (time, sequence number). The sequence number is assigned at push, so
 * events at the same picosecond pop in the order they were scheduled and a
 * run is deterministic whatever the heap's internal layout. */
#ifndef PCAPGEN_EVQ_H
#define PCAPGEN_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t t;    /* simulated time, picoseconds */
  uint64_t seq;  /* tie-breaker: push order */
  uint32_t kind; /* what to do (the simulator's EV_* codes) */
  uint32_t arg;  /* kind-specific small argument */
  void *ptr;     /* kind-specific object (a packet in flight, ...) */
} ev;

typedef struct {
  ev *a;
  size_t n, cap;
  uint64_t next_seq;
} evq;

/* 0, or -1 when out of memory. */
int evq_init(evq *q, size_t initial_cap);
void evq_free(evq *q);

/* 0, or -1 when the heap cannot grow (out of memory). */
int evq_push(evq *q, uint64_t t, uint32_t kind, uint32_t arg, void *ptr);

/* Removes the earliest event into *out; false when the queue is empty. */
bool evq_pop(evq *q, ev *out);

static inline size_t evq_len(const evq *q) { return q->n; }

#endif
