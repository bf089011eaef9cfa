/* The four receive-bitmap models of tools/ornic-bitmap-sim (ORNIC, which is
 * libs/ornic-bitmap, and the MELO+ / LEFT / LEFT+ lists) against a
 * brute-force reference set, block accounting over a shared pool, pool
 * exhaustion, the 24-bit PSN wrap, and the cost model of
 * docs/BITMAP_MODELS.md section 2 on hand-worked sequences. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "bm_model.h"
#include "prng.h"

#define MASK 0xffffffu

/* Reference: one flag per packet of the WQE. */
typedef struct {
  uint32_t start, n, m, nslots;
  uint8_t *got;
} ref;

static uint32_t ref_fm(const ref *r) {
  uint32_t i = 0;
  while (i < r->n && r->got[i]) i++;
  return i;
}

/* What a record of psn must return (the pool is large enough). */
static int ref_expect(const ref *r, uint32_t psn) {
  uint32_t off = (psn - r->start) & MASK, fm = ref_fm(r);
  if (off >= r->n) return BM_OUT_OF_RANGE;
  if (off < fm) return BM_DUP;
  if (off / r->m - fm / r->m >= r->nslots) return BM_OUT_OF_RANGE;
  return r->got[off] ? BM_DUP : BM_NEW;
}

/* Blocks at or after the first missing one's: ORNIC holds those with some
 * but not all PSNs; a list holds every block from there to the highest block
 * with a PSN received. */
static unsigned ref_held(const ref *r, bm_kind kind) {
  uint32_t fb = ref_fm(r) / r->m;
  unsigned partial = 0;
  int64_t highest = -1;
  for (uint32_t b = fb; (uint64_t)b * r->m < r->n; b++) {
    uint32_t lo = b * r->m, hi = lo + r->m < r->n ? lo + r->m : r->n, cnt = 0;
    for (uint32_t i = lo; i < hi; i++) cnt += r->got[i];
    partial += cnt > 0 && cnt < hi - lo;
    if (cnt) highest = b;
  }
  if (kind == BM_ORNIC) return partial;
  if (ref_fm(r) == r->n) return 0; /* complete: the last block, even partial, is freed */
  return highest < 0 ? 0 : (unsigned)(highest - fb + 1);
}

static void check_state(bm_qp *q, const ref *r, bm_kind kind, prng *g) {
  uint32_t fm = ref_fm(r);
  ck_assert_uint_eq(bm_first_missing(q), (r->start + fm) & MASK);
  ck_assert_int_eq(bm_complete(q), fm == r->n);
  ck_assert_uint_eq(bm_blocks_held(q), ref_held(r, kind));
  for (int k = 0; k < 6; k++) {
    uint32_t i = prng_below(g, r->n + 40);
    int want = i >= r->n ? -1 : r->got[i];
    ck_assert_int_eq(bm_test(q, (r->start + i) & MASK), want);
  }
}

static void check_missing(bm_qp *q, const ref *r) {
  uint32_t *out = malloc((r->n + 1) * sizeof *out);
  size_t n = bm_missing(q, out, r->n + 1), j = 0;
  for (uint32_t i = 0; i < r->n; i++)
    if (!r->got[i]) {
      ck_assert_uint_lt(j, n);
      ck_assert_uint_eq(out[j++], (r->start + i) & MASK);
    }
  ck_assert_uint_eq(j, n);
  free(out);
}

static void deliver(bm_qp *q, ref *r, bm_kind kind, uint32_t psn, prng *g) {
  int want = ref_expect(r, psn);
  ck_assert_int_eq(bm_record(q, psn), want);
  if (want == BM_NEW) r->got[(psn - r->start) & MASK] = 1;
  check_state(q, r, kind, g);
}

/* Random arrivals with bounded reordering, duplicates and PSNs outside the
 * WQE, then every PSN in order so that the WQE completes. */
static void random_run(bm_kind kind, uint64_t seed, unsigned m, unsigned nslots, uint32_t n, uint32_t reorder,
                       uint32_t start) {
  prng g;
  prng_seed(&g, seed, 100, kind);
  bm_pool *pool = bm_pool_new(kind, m, nslots + 2);
  bm_qp *q = bm_qp_new(pool, nslots);
  ck_assert_ptr_nonnull(q);
  ref r = {start & MASK, n, m, nslots, calloc(n, 1)};
  bm_start(q, start, n);
  uint32_t *order = malloc(n * sizeof *order);
  arrivals_make(&g, n, reorder, prng_below(&g, 2), m, order);
  for (uint32_t i = 0; i < n; i++) {
    deliver(q, &r, kind, (r.start + order[i]) & MASK, &g);
    uint32_t roll = prng_below(&g, 8);
    if (roll == 0) deliver(q, &r, kind, (r.start + order[prng_below(&g, i + 1)]) & MASK, &g); /* duplicate */
    if (roll == 1) deliver(q, &r, kind, (r.start - 1 - prng_below(&g, 5)) & MASK, &g);      /* before */
    if (roll == 2) deliver(q, &r, kind, (r.start + n + prng_below(&g, 5)) & MASK, &g);      /* after */
    if (i % 37 == 0) check_missing(q, &r);
  }
  for (uint32_t i = 0; i < n; i++) deliver(q, &r, kind, (r.start + i) & MASK, &g);
  check_missing(q, &r);
  ck_assert(bm_complete(q));
  ck_assert_uint_eq(bm_blocks_held(q), 0);
  ck_assert_uint_eq(bm_pool_in_use(pool), 0); /* a complete WQE holds nothing */
  bm_finish(q);
  bm_qp_free(q);
  bm_pool_free(pool);
  free(order);
  free(r.got);
}

START_TEST(reference_random) {
  static const unsigned ms[] = {1, 7, 16, 64};
  bm_kind kind = (bm_kind)_i;
  for (unsigned s = 0; s < 24; s++) {
    unsigned m = ms[s % 4];
    uint32_t n = 1 + (s * 53) % 300;
    uint32_t reorder = (s % 3) * 40;
    unsigned nslots = s % 5 == 4 ? 3 : (reorder + 2 * m) / m + 2; /* sometimes too small: out of range */
    uint32_t start = s % 2 ? MASK - (s * 7) % 200 : s * 1000; /* half of them wrap */
    random_run(kind, s + 1, m, nslots, n, reorder, start);
  }
}
END_TEST

/* Several QPs over one small pool: held blocks add up to the pool's count,
 * every WQE returns all its blocks, an abandoned WQE too. */
START_TEST(shared_pool_accounting) {
  bm_kind kind = (bm_kind)_i;
  enum { NQ = 6, N = 200 };
  prng g;
  prng_seed(&g, 7, 101, kind);
  bm_pool *pool = bm_pool_new(kind, 16, NQ * 13);
  bm_qp *q[NQ];
  uint32_t order[NQ][N], pos[NQ];
  for (int i = 0; i < NQ; i++) {
    q[i] = bm_qp_new(pool, 13);
    bm_start(q[i], (uint32_t)(MASK - 50 * i), N);
    arrivals_make(&g, N, 64, i % 2, 16, order[i]);
    pos[i] = 0;
  }
  unsigned done = 0;
  while (done < NQ) {
    int i = (int)prng_below(&g, NQ);
    if (pos[i] == N) continue;
    ck_assert_int_eq(bm_record(q[i], (uint32_t)(MASK - 50 * i + order[i][pos[i]]) & MASK), BM_NEW);
    pos[i]++;
    size_t held = 0;
    for (int k = 0; k < NQ; k++) held += bm_blocks_held(q[k]);
    ck_assert_uint_eq(held, bm_pool_in_use(pool));
    if (pos[i] == N) {
      ck_assert(bm_complete(q[i]));
      ck_assert_uint_eq(bm_blocks_held(q[i]), 0);
      done++;
    }
  }
  ck_assert_uint_eq(bm_pool_in_use(pool), 0);
  ck_assert_uint_gt(bm_pool_peak(pool), 0);
  /* Abandoned mid-WQE: bm_finish and a new bm_start both give everything back. */
  bm_start(q[0], 0, N);
  for (uint32_t p = 1; p < 100; p += 2) ck_assert_int_eq(bm_record(q[0], p), BM_NEW);
  ck_assert_uint_gt(bm_pool_in_use(pool), 0);
  bm_start(q[0], 5000, N);
  ck_assert_uint_eq(bm_pool_in_use(pool), 0);
  ck_assert_int_eq(bm_record(q[0], 5003), BM_NEW);
  bm_finish(q[0]);
  ck_assert_uint_eq(bm_pool_in_use(pool), 0);
  for (int i = 0; i < NQ; i++) bm_qp_free(q[i]);
  bm_pool_free(pool);
}
END_TEST

/* An empty pool drops the packet unrecorded; blocks freed elsewhere make room. */
START_TEST(pool_exhaustion) {
  bm_kind kind = (bm_kind)_i;
  bm_pool *pool = bm_pool_new(kind, 4, 2);
  bm_qp *a = bm_qp_new(pool, 8), *b = bm_qp_new(pool, 8);
  bm_start(a, 100, 32);
  bm_start(b, 200, 32);
  ck_assert_int_eq(bm_record(a, 101), BM_NEW); /* block 0 */
  ck_assert_int_eq(bm_record(a, 100 + 5), BM_NEW); /* block 1 (a list appends it too) */
  ck_assert_uint_eq(bm_pool_in_use(pool), 2);
  ck_assert_int_eq(bm_record(b, 201), BM_NO_BLOCK);
  ck_assert_uint_eq(bm_last_cost(b).total, 1); /* the per-QP entry was read */
  ck_assert_int_eq(bm_test(b, 201), 0);
  ck_assert_uint_eq(bm_blocks_held(b), 0);
  bm_finish(a);
  ck_assert_int_eq(bm_record(b, 201), BM_NEW);
  ck_assert_int_eq(bm_test(b, 201), 1);
  /* A list needs every block up to the PSN's: all or nothing. */
  if (kind != BM_ORNIC) {
    bm_start(a, 0, 32);
    ck_assert_int_eq(bm_record(a, 9), BM_NO_BLOCK); /* blocks 0..2, one free */
    ck_assert_uint_eq(bm_pool_in_use(pool), 1);
    ck_assert_uint_eq(bm_blocks_held(a), 0);
  }
  bm_qp_free(a);
  bm_qp_free(b);
  ck_assert_uint_eq(bm_pool_in_use(pool), 0);
  bm_pool_free(pool);
}
END_TEST

/* A WQE across the 24-bit PSN wrap. */
START_TEST(psn_wrap) {
  bm_kind kind = (bm_kind)_i;
  bm_pool *pool = bm_pool_new(kind, 16, 8);
  bm_qp *q = bm_qp_new(pool, 4);
  const uint32_t start = 0xfffff8, n = 40; /* PSNs 0xfffff8 .. 0x00001f */
  bm_start(q, start, n);
  ck_assert_int_eq(bm_record(q, 0xfffff7), BM_OUT_OF_RANGE);
  ck_assert_int_eq(bm_record(q, 0x000020), BM_OUT_OF_RANGE);
  ck_assert_int_eq(bm_test(q, 0xfffff7), -1);
  for (uint32_t i = n; i-- > 1;) ck_assert_int_eq(bm_record(q, (start + i) & MASK), BM_NEW);
  ck_assert_uint_eq(bm_first_missing(q), 0xfffff8);
  uint32_t miss[4];
  ck_assert_uint_eq(bm_missing(q, miss, 4), 1);
  ck_assert_uint_eq(miss[0], 0xfffff8);
  ck_assert_int_eq(bm_test(q, 0x000005), 1);
  ck_assert_int_eq(bm_record(q, 0xfffff8), BM_NEW);
  ck_assert(bm_complete(q));
  ck_assert_uint_eq(bm_first_missing(q), 0x000020);
  ck_assert_uint_eq(bm_pool_in_use(pool), 0);
  ck_assert_int_eq(bm_record(q, 0x00000a), BM_DUP);
  bm_qp_free(q);
  bm_pool_free(pool);
}
END_TEST

/* The cost model, worked by hand: 4-bit blocks, PSNs from 0. */
typedef struct {
  uint32_t psn;
  int rc;
  unsigned cost[BM_NMODELS]; /* ornic, melo+, left, left+ */
  unsigned hops[BM_NMODELS];
} cost_step;

static const cost_step steps[] = {
    /* block 5 into an empty list: 6 blocks appended (1 + 6); ORNIC slot + node */
    {20, BM_NEW, {2, 7, 7, 7}, {0, 0, 0, 0}},
    /* block 2, middle: walk head -> 2 (1 + 1 + 2 hops); the cache (block 5) is after it */
    {8, BM_NEW, {2, 4, 4, 4}, {0, 2, 2, 2}},
    /* block 2 again: LEFT and LEFT+ hit the cache */
    {9, BM_NEW, {2, 4, 2, 2}, {0, 2, 0, 0}},
    /* block 3: LEFT walks from the head, LEFT+ from the cached block 2 */
    {12, BM_NEW, {2, 5, 5, 3}, {0, 3, 3, 1}},
    /* the head */
    {0, BM_NEW, {2, 2, 2, 2}, {0, 0, 0, 0}},
    /* the tail, bit already set */
    {20, BM_DUP, {2, 2, 2, 2}, {0, 0, 0, 0}},
    /* block 6: append one after the tail (1 + tail link + new node) */
    {24, BM_NEW, {2, 3, 3, 3}, {0, 0, 0, 0}},
    /* block 4: LEFT+'s cache (block 6) is after it: from the head */
    {16, BM_NEW, {2, 6, 6, 6}, {0, 4, 4, 4}},
};

START_TEST(cost_model) {
  bm_kind kind = (bm_kind)_i;
  bm_pool *pool = bm_pool_new(kind, 4, 64);
  bm_qp *q = bm_qp_new(pool, 8);
  bm_start(q, 0, 32);
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
    ck_assert_int_eq(bm_record(q, steps[i].psn), steps[i].rc);
    bm_cost c = bm_last_cost(q);
    ck_assert_msg(c.total == steps[i].cost[kind], "%s step %zu: cost %u, want %u", bm_kind_name(kind), i,
                  c.total, steps[i].cost[kind]);
    ck_assert_uint_eq(c.hops, steps[i].hops[kind]);
    ck_assert_uint_eq(c.ctx, 1);
  }
  /* Head full: freed (a list frees from the head only, in order). */
  for (uint32_t p = 1; p < 4; p++) bm_record(q, p);
  ck_assert_uint_eq(bm_first_missing(q), 4);
  ck_assert_uint_eq(bm_blocks_held(q), kind == BM_ORNIC ? 5 : 6); /* ORNIC: blocks 2..6 (1 is empty); lists: 1..6 */
  ck_assert_int_eq(bm_record(q, 2), BM_DUP); /* before ePSN: no memory access */
  ck_assert_uint_eq(bm_last_cost(q).total, 0);
  bm_qp_free(q);
  bm_pool_free(pool);
}
END_TEST

/* ORNIC releases a full block at once; a list keeps it until it reaches the head. */
START_TEST(full_block_release) {
  bm_kind kind = (bm_kind)_i;
  bm_pool *pool = bm_pool_new(kind, 16, 64);
  bm_qp *q = bm_qp_new(pool, 20);
  bm_start(q, 1000, 320);
  for (uint32_t i = 1; i < 320; i++) ck_assert_int_eq(bm_record(q, 1000 + i), BM_NEW); /* PSN 1000 lost */
  ck_assert_uint_eq(bm_blocks_held(q), kind == BM_ORNIC ? 1 : 20);
  ck_assert_uint_eq(bm_max_blocks_held(q), kind == BM_ORNIC ? 2 : 20);
  ck_assert_int_eq(bm_test(q, 1000 + 300), 1);
  ck_assert_int_eq(bm_record(q, 1000), BM_NEW);
  ck_assert(bm_complete(q));
  ck_assert_uint_eq(bm_pool_in_use(pool), 0);
  bm_qp_free(q);
  bm_pool_free(pool);
}
END_TEST

START_TEST(kind_names) {
  for (int k = 0; k < BM_NMODELS; k++) ck_assert_int_eq(bm_kind_parse(bm_kind_name((bm_kind)k)), k);
  ck_assert_int_eq(bm_kind_parse("melo"), -1);
  ck_assert_ptr_null(bm_pool_new(BM_LEFT, 0, 4));
  ck_assert_ptr_null(bm_pool_new(BM_ORNIC, 65, 4));
  ck_assert_ptr_null(bm_pool_new(BM_MELO_PLUS, 16, 0));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("bitmap_models");
  TCase *tc = tcase_create("models");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, reference_random, 0, BM_NMODELS);
  tcase_add_loop_test(tc, shared_pool_accounting, 0, BM_NMODELS);
  tcase_add_loop_test(tc, pool_exhaustion, 0, BM_NMODELS);
  tcase_add_loop_test(tc, psn_wrap, 0, BM_NMODELS);
  tcase_add_loop_test(tc, cost_model, 0, BM_NMODELS);
  tcase_add_loop_test(tc, full_block_release, 0, BM_NMODELS);
  tcase_add_test(tc, kind_names);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
