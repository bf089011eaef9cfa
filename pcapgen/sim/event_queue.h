/* SPDX-License-Identifier: MIT */
/* The simulator's event queue: events ordered by (time, sequence number).
 * The sequence number is assigned at push, so events at the same picosecond
 * pop in the order they were scheduled and a run is deterministic whatever
 * the queue's internal layout.
 *
 * Most events are frame arrivals, and the frames of one path in one
 * direction arrive in the order they were sent (a path is a FIFO link). Such
 * a stream can be pushed to a lane (evq_push_lane): a FIFO whose first event
 * alone sits in the binary heap, so the heap holds a few lanes, timers and
 * NIC events instead of every frame in flight, and a push or a pop sifts
 * through a few levels, not through hundreds of arrivals. An event that would not keep its lane in
 * order goes to the heap itself: the order of pops is the same either way.
 *
 * A few streams have at most one event queued at a time (a NIC's next
 * transmission): a slot (evq_push_slot) holds it outside the heap, and a pop
 * compares the heap's first event with the earliest slot's. Such an event
 * then costs no sifting: a NIC's event is scheduled for every frame, half
 * the run's events. */
#ifndef PCAPGEN_EVENT_QUEUE_H
#define PCAPGEN_EVENT_QUEUE_H

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

/* A lane: a ring of events in (time, sequence) order; its first is in the heap. */
typedef struct {
  ev *a;
  size_t head, n, cap;
} evq_lane;

#define EVQ_SLOT_EMPTY UINT64_MAX /* the seq of an empty slot: after every event */

typedef struct {
  ev *a; /* the heap; an entry of kind LANE_KIND (event_queue.c) is a lane's first event */
  size_t n, cap;
  uint64_t next_seq;
  evq_lane *lanes;
  unsigned nlanes;
  ev *slots; /* evq_slots: an event each, seq EVQ_SLOT_EMPTY when none */
  unsigned nslots;
  unsigned first; /* the slot with the earliest event (any when all are empty) */
  size_t len;     /* events queued, in the heap, the lanes and the slots */
  bool hole;      /* a[0] was popped and awaits the next push (evq_pop) */
} evq;

/* 0, or -1 when out of memory. No lanes until evq_lanes. */
int evq_init(evq *q, size_t initial_cap);
void evq_free(evq *q);

/* Gives the queue nlanes lanes (0 .. nlanes - 1), before any push. 0, or -1
 * when out of memory. */
int evq_lanes(evq *q, unsigned nlanes);

/* Gives the queue nslots slots (0 .. nslots - 1), before any push. 0, or -1
 * when out of memory. */
int evq_slots(evq *q, unsigned nslots);

/* 0, or -1 when the heap cannot grow (out of memory). */
int evq_push(evq *q, uint64_t t, uint32_t kind, uint32_t arg, void *ptr);

/* The same, for an event of a stream whose times rarely go back (lane <
 * nlanes): into the lane when t is not before its last event, else into
 * the heap. 0, or -1 when out of memory. */
int evq_push_lane(evq *q, unsigned lane, uint64_t t, uint32_t kind, uint32_t arg, void *ptr);

/* The same, for a stream with one event queued at a time (slot < nslots):
 * into the slot when it is empty, else into the heap. 0, or -1 when out of
 * memory. */
int evq_push_slot(evq *q, unsigned slot, uint64_t t, uint32_t kind, uint32_t arg, void *ptr);

/* Removes the earliest event into *out; false when the queue is empty. */
bool evq_pop(evq *q, ev *out);

static inline size_t evq_len(const evq *q) { return q->len; }

/* Time of the earliest event; the queue must not be empty. */
uint64_t evq_next_time(evq *q);

#endif
