/* SPDX-License-Identifier: MIT */
/* The event queue's lanes and slots (pcapgen/sim/event_queue.h, issue 18): events
 * pushed to lanes (in order, or out of order as the --reorder-max emulator
 * makes them), to slots (empty or already holding one) and to the heap,
 * popped in between, come out in exactly the (time, push order) order of a
 * plain priority queue; evq_next_time agrees; the queue empties. */
#include "../check_fast.h"
#include <stdlib.h>

#include "check_main.h"
#include "event_queue.h"
#include "rng.h"

#define LANES 8u
#define SLOTS 3u
#define EVENTS 20000u

typedef struct {
  uint64_t t, seq;
} key;

static int by_key(const void *a, const void *b) {
  const key *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Pending events (a model of the queue): the smallest is the next pop. */
static size_t model_min(const key *k, size_t n) {
  size_t m = 0;
  for (size_t i = 1; i < n; i++)
    if (by_key(&k[i], &k[m]) < 0) m = i;
  return m;
}

/* Pushes event `id` at t to `where`: a lane (< LANES), a slot (the next
 * SLOTS) or the heap itself. 0 or -1, as evq_push*. */
static int push_to(evq *q, unsigned where, uint64_t t, uint32_t id) {
  if (where < LANES) return evq_push_lane(q, where, t, 1, id, NULL);
  if (where < LANES + SLOTS) return evq_push_slot(q, where - LANES, t, 3, id, NULL);
  return evq_push(q, t, 2, id, NULL);
}

START_TEST(lanes_pop_in_time_then_push_order) {
  static key model[EVENTS];
  uint64_t last[LANES] = {0}, now = 0, seq = 0;
  size_t n = 0;
  evq q;
  rng g;
  rng_seed(&g, 7, (uint64_t)_i);
  ck_assert_int_eq(evq_init(&q, 4), 0);
  ck_assert_int_eq(evq_lanes(&q, LANES), 0);
  ck_assert_int_eq(evq_slots(&q, SLOTS), 0);
  for (uint32_t pushed = 0; pushed < EVENTS || n;) {
    if (pushed < EVENTS && (n == 0 || rng_below(&g, 2))) { /* n stays small: the model is O(n) */
      /* Times never before now (a simulation's rule), often equal. */
      unsigned where = rng_below(&g, LANES + SLOTS + 1);
      uint64_t t = now + rng_below(&g, 8);
      bool lane = where < LANES;
      if (lane && rng_below(&g, 10) && t < last[where]) t = last[where]; /* mostly in order */
      ck_assert_int_eq(push_to(&q, where, t, pushed), 0);
      if (lane && t > last[where]) last[where] = t;
      model[n++] = (key){t, seq++};
      pushed++;
      continue;
    }
    size_t m = model_min(model, n);
    ck_assert_uint_eq(evq_next_time(&q), model[m].t);
    ev e;
    ck_assert(evq_pop(&q, &e));
    ck_assert_uint_eq(e.t, model[m].t);
    ck_assert_uint_eq(e.seq, model[m].seq);
    now = e.t;
    model[m] = model[--n];
    ck_assert_uint_eq(evq_len(&q), n);
  }
  ev e;
  ck_assert(!evq_pop(&q, &e));
  evq_free(&q);
}
END_TEST

int main(void) {
  TCase *tc = tcase_create("evq");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, lanes_pop_in_time_then_push_order, 0, 4);
  return run_tcase("pcapgen_evq", tc);
}
