/* SPDX-License-Identifier: MIT */
/* The event queue's lanes (pcapgen/evq.h, issue 18): events pushed to lanes
 * (in order, or out of order as the --reorder-max emulator makes them) and
 * to the heap, popped in between, come out in exactly the (time, push
 * order) order of a plain priority queue; evq_next_time agrees; the queue
 * empties. */
#include <check.h>
#include <stdlib.h>

#include "check_main.h"
#include "evq.h"
#include "rng.h"

#define LANES 8u
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

START_TEST(lanes_pop_in_time_then_push_order) {
  static key model[EVENTS];
  uint64_t last[LANES] = {0}, now = 0, seq = 0;
  size_t n = 0;
  evq q;
  rng g;
  rng_seed(&g, 7, (uint64_t)_i);
  ck_assert_int_eq(evq_init(&q, 4), 0);
  ck_assert_int_eq(evq_lanes(&q, LANES), 0);
  for (uint32_t pushed = 0; pushed < EVENTS || n;) {
    if (pushed < EVENTS && (n == 0 || rng_below(&g, 2))) { /* n stays small: the model is O(n) */
      /* Times never before now (a simulation's rule), often equal. */
      unsigned lane = rng_below(&g, LANES + 1); /* LANES: the heap itself */
      uint64_t t = now + rng_below(&g, 8);
      if (lane < LANES && rng_below(&g, 10) && t < last[lane]) t = last[lane]; /* mostly in order */
      int rc = lane < LANES ? evq_push_lane(&q, lane, t, 1, pushed, NULL)
                            : evq_push(&q, t, 2, pushed, NULL);
      ck_assert_int_eq(rc, 0);
      if (lane < LANES && t > last[lane]) last[lane] = t;
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
