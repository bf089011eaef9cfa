/* SPDX-License-Identifier: MIT */
#include "event_queue.h"

#include <stdlib.h>
#include <string.h>

/* A heap entry standing for a lane's first event (same time and sequence
 * number; arg = the lane). The simulator's kinds are small numbers. */
#define LANE_KIND 0xffffffffu
#define LANE_CAP0 64u /* a lane's first ring: a power of two, as every later one */

/* (t, seq) as one 128-bit number where the compiler has them: a compare and
 * a subtract with borrow, no branch. Which of two children is earlier is a
 * coin toss to the branch predictor; sift_root alone took a third of the
 * run's mispredicted branches with `a.t < b.t || (a.t == b.t && ...)`. */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 evkey;
static inline bool before(const ev *a, const ev *b) {
  return ((evkey)a->t << 64 | a->seq) < ((evkey)b->t << 64 | b->seq);
}
#else
static inline bool before(const ev *a, const ev *b) {
  return (a->t < b->t) | ((a->t == b->t) & (a->seq < b->seq));
}
#endif

int evq_init(evq *q, size_t initial_cap) {
  memset(q, 0, sizeof *q);
  q->cap = initial_cap ? initial_cap : 64;
  q->a = malloc(q->cap * sizeof *q->a);
  return q->a ? 0 : -1;
}

void evq_free(evq *q) {
  for (unsigned i = 0; i < q->nlanes; i++) free(q->lanes[i].a);
  free(q->lanes);
  free(q->slots);
  free(q->a);
  memset(q, 0, sizeof *q);
}

int evq_lanes(evq *q, unsigned nlanes) {
  q->lanes = calloc(nlanes, sizeof *q->lanes);
  if (!q->lanes) return -1;
  q->nlanes = nlanes;
  return 0;
}

static void slot_clear(ev *e) { *e = (ev){UINT64_MAX, EVQ_SLOT_EMPTY, 0, 0, NULL}; }

int evq_slots(evq *q, unsigned nslots) {
  q->slots = malloc(nslots * sizeof *q->slots);
  if (!q->slots) return -1;
  for (unsigned i = 0; i < nslots; i++) slot_clear(&q->slots[i]);
  q->nslots = nslots;
  q->first = 0;
  return 0;
}

/* ---- the heap ------------------------------------------------------------------ */

/* The root leaves; e (the former last entry, or a lane's next event, or a
 * new one) takes its place and sinks to where it belongs. */
static void sift_root(evq *q, ev e) {
  size_t i = 0, n = q->n;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n) c += before(&q->a[c + 1], &q->a[c]);
    if (!before(&q->a[c], &e)) break;
    q->a[i] = q->a[c];
    i = c;
  }
  q->a[i] = e;
}

static int heap_insert(evq *q, ev e) {
  if (q->hole) { /* the popped root's place: one sift instead of two */
    q->hole = false;
    sift_root(q, e);
    return 0;
  }
  if (q->n == q->cap) {
    size_t cap = q->cap * 2;
    ev *a = realloc(q->a, cap * sizeof *a);
    if (!a) return -1;
    q->a = a;
    q->cap = cap;
  }
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

static void remove_root(evq *q) {
  ev last = q->a[--q->n];
  if (q->n) sift_root(q, last);
}

/* The root popped last is gone for good: the next push did not take its place. */
static void fill_hole(evq *q) {
  if (!q->hole) return;
  q->hole = false;
  remove_root(q);
}

/* ---- lanes ---------------------------------------------------------------------- */

static int lane_grow(evq_lane *l) {
  size_t cap = l->cap ? 2 * l->cap : LANE_CAP0;
  ev *a = malloc(cap * sizeof *a);
  if (!a) return -1;
  for (size_t k = 0; k < l->n; k++) a[k] = l->a[(l->head + k) & (l->cap - 1)];
  free(l->a);
  l->a = a;
  l->cap = cap;
  l->head = 0;
  return 0;
}

static inline const ev *lane_last(const evq_lane *l) {
  return &l->a[(l->head + l->n - 1) & (l->cap - 1)];
}

/* ---- slots ---------------------------------------------------------------------- */

/* The earliest slot's event when it comes before the heap's first, else NULL
 * (an empty slot's key is after every event's). The hole must be filled. */
static inline ev *slot_due(evq *q) {
  if (!q->nslots) return NULL;
  ev *s = &q->slots[q->first];
  if (s->seq == EVQ_SLOT_EMPTY) return NULL;
  return q->n == 0 || before(s, &q->a[0]) ? s : NULL;
}

static void slot_pop(evq *q, ev *s, ev *out) {
  *out = *s;
  slot_clear(s);
  for (unsigned i = 0; i < q->nslots; i++)
    if (before(&q->slots[i], &q->slots[q->first])) q->first = i;
  q->len--;
}

/* ---- public ---------------------------------------------------------------------- */

int evq_push(evq *q, uint64_t t, uint32_t kind, uint32_t arg, void *ptr) {
  ev e = {t, q->next_seq, kind, arg, ptr};
  if (heap_insert(q, e) < 0) return -1;
  q->next_seq++;
  q->len++;
  return 0;
}

int evq_push_lane(evq *q, unsigned lane, uint64_t t, uint32_t kind, uint32_t arg, void *ptr) {
  evq_lane *l = &q->lanes[lane];
  /* Out of order (the --reorder-max emulator): the heap keeps it in place. */
  if (l->n && t < lane_last(l)->t) return evq_push(q, t, kind, arg, ptr);
  if (l->n == l->cap && lane_grow(l) < 0) return -1;
  ev e = {t, q->next_seq, kind, arg, ptr};
  if (!l->n && heap_insert(q, (ev){t, e.seq, LANE_KIND, lane, NULL}) < 0) return -1;
  l->a[(l->head + l->n) & (l->cap - 1)] = e;
  l->n++;
  q->next_seq++;
  q->len++;
  return 0;
}

int evq_push_slot(evq *q, unsigned slot, uint64_t t, uint32_t kind, uint32_t arg, void *ptr) {
  ev *s = &q->slots[slot];
  if (s->seq != EVQ_SLOT_EMPTY) return evq_push(q, t, kind, arg, ptr);
  *s = (ev){t, q->next_seq++, kind, arg, ptr};
  q->len++;
  if (before(s, &q->slots[q->first])) q->first = slot;
  return 0;
}

uint64_t evq_next_time(evq *q) {
  fill_hole(q);
  const ev *s = slot_due(q);
  return s ? s->t : q->a[0].t;
}

bool evq_pop(evq *q, ev *out) {
  fill_hole(q);
  ev *s = slot_due(q);
  if (s) {
    slot_pop(q, s, out);
    return true;
  }
  if (q->n == 0) return false;
  q->len--;
  if (q->a[0].kind != LANE_KIND) {
    /* The root stays, as a hole, until the next push or pop: handling an
     * event usually schedules one, which then takes its place. */
    *out = q->a[0];
    q->hole = true;
    return true;
  }
  /* A lane's first event: its next one, if any, replaces it in the heap. */
  unsigned lane = q->a[0].arg;
  evq_lane *l = &q->lanes[lane];
  *out = l->a[l->head];
  l->head = (l->head + 1) & (l->cap - 1);
  if (--l->n == 0) {
    q->hole = true;
    return true;
  }
  const ev *next = &l->a[l->head];
  sift_root(q, (ev){next->t, next->seq, LANE_KIND, lane, NULL});
  return true;
}
