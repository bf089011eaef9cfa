/* SPDX-License-Identifier: MIT */
/* The four receive-bitmap models of tools/ornic-bitmap-sim (ORNIC, which is
 * libs/ornic-bitmap, and the MELO+ / LEFT / LEFT+ lists) against a
 * brute-force reference set (with today's list variants and the paper's),
 * block accounting over a shared pool, pool exhaustion, the 24-bit PSN wrap,
 * the cost model of docs/BITMAP_MODELS.md section 2 on hand-worked sequences,
 * and the paper's variants of section 2a (LEFT's threshold rule, LEFT+
 * walking both ways) on hand-built sequences with known costs. */
#include "../check_fast.h"
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
static void random_run(bm_kind kind, const bm_conf *conf, uint64_t seed, unsigned m,
                       unsigned nslots, uint32_t n, uint32_t reorder, uint32_t start) {
  prng g;
  prng_seed(&g, seed, 100, kind);
  bm_pool *pool = bm_pool_new_conf(kind, m, nslots + 2, conf);
  bm_qp *q = bm_qp_new(pool, nslots);
  ck_assert_ptr_nonnull(q);
  ref r = {start & MASK, n, m, nslots, calloc(n, 1)};
  bm_start(q, start, n);
  uint32_t *order = malloc(n * sizeof *order);
  arrivals_make_kind(seed % 4 == 3 ? ARR_ALIGNED : ARR_SLIDING, &g, n, reorder, prng_below(&g, 2),
                     m, order);
  for (uint32_t i = 0; i < n; i++) {
    deliver(q, &r, kind, (r.start + order[i]) & MASK, &g);
    uint32_t roll = prng_below(&g, 8);
    if (roll == 0)
      deliver(q, &r, kind, (r.start + order[prng_below(&g, i + 1)]) & MASK, &g); /* duplicate */
    if (roll == 1) deliver(q, &r, kind, (r.start - 1 - prng_below(&g, 5)) & MASK, &g); /* before */
    if (roll == 2) deliver(q, &r, kind, (r.start + n + prng_below(&g, 5)) & MASK, &g); /* after */
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

/* _i: model + BM_NMODELS * variant; variant 0 today's lists, 1 the paper's
 * (threshold 1, LEFT+ both ways), 2 threshold 0 both ways (the most cache
 * moves and backward walks). */
START_TEST(reference_random) {
  static const unsigned ms[] = {1, 7, 16, 64};
  static const bm_conf confs[] = {{BM_CACHE_EVERY, false}, {1, true}, {0, true}};
  bm_kind kind = (bm_kind)(_i % BM_NMODELS);
  const bm_conf *conf = &confs[_i / BM_NMODELS];
  for (unsigned s = 0; s < 24; s++) {
    unsigned m = ms[s % 4];
    uint32_t n = 1 + (s * 53) % 300;
    uint32_t reorder = (s % 3) * 40;
    unsigned nslots =
        s % 5 == 4 ? 3 : (reorder + 2 * m) / m + 2; /* sometimes too small: out of range */
    uint32_t start = s % 2 ? MASK - (s * 7) % 200 : s * 1000; /* half of them wrap */
    random_run(kind, conf, s + 1, m, nslots, n, reorder, start);
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
  ck_assert_int_eq(bm_record(a, 101), BM_NEW);     /* block 0 */
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
    ck_assert_msg(c.total == steps[i].cost[kind], "%s step %zu: cost %u, want %u",
                  bm_kind_name(kind), i, c.total, steps[i].cost[kind]);
    ck_assert_uint_eq(c.hops, steps[i].hops[kind]);
    ck_assert_uint_eq(c.ctx, 1);
  }
  /* Head full: freed (a list frees from the head only, in order). */
  for (uint32_t p = 1; p < 4; p++) bm_record(q, p);
  ck_assert_uint_eq(bm_first_missing(q), 4);
  ck_assert_uint_eq(bm_blocks_held(q),
                    kind == BM_ORNIC ? 5 : 6); /* ORNIC: blocks 2..6 (1 is empty); lists: 1..6 */
  ck_assert_int_eq(bm_record(q, 2), BM_DUP);   /* before ePSN: no memory access */
  ck_assert_uint_eq(bm_last_cost(q).total, 0);
  bm_qp_free(q);
  bm_pool_free(pool);
}
END_TEST

/* The paper's variants by hand: 4-bit blocks, PSNs from 0, a list of blocks
 * 0..6 after the first arrival. `total` counts the per-QP entry (today's
 * convention); the paper's pointer cost is total - 1 on every step here. */
typedef struct {
  uint32_t psn;
  const char *what;
  unsigned total[4]; /* melo+; left, left+ forward, left+ both (all threshold 1) */
  unsigned hops[4];
} var_step;

enum { V_MELO, V_LEFT, V_LPF, V_LPB, V_N };

static const var_step var_steps[] = {
    {24,
     "block 6 into an empty list: append 7 (1 + 7), no walk: the cache stays empty",
     {8, 8, 8, 8},
     {0, 0, 0, 0}},
    {4,
     "block 1: walk of 1 from the head, not more than 1: no cache update",
     {3, 3, 3, 3},
     {1, 1, 1, 1}},
    {5,
     "block 1 again: still walked (every-access rule: a cache hit, 2)",
     {3, 3, 3, 3},
     {1, 1, 1, 1}},
    {8, "block 2: walk of 2 > 1: the cache moves to block 2", {4, 4, 4, 4}, {2, 2, 2, 2}},
    {9, "block 2 again: cache hit", {4, 2, 2, 2}, {2, 0, 0, 0}},
    {0, "the head: a hit, the cache stays", {2, 2, 2, 2}, {0, 0, 0, 0}},
    {25, "the tail: a hit, the cache stays", {2, 2, 2, 2}, {0, 0, 0, 0}},
    {10, "block 2: still cached after the head and tail hits", {4, 2, 2, 2}, {2, 0, 0, 0}},
    {16,
     "block 4: LEFT from the head (4), LEFT+ forward from block 2 (2); cache to 4",
     {6, 6, 4, 4},
     {4, 4, 2, 2}},
    {12,
     "block 3: LEFT and forward LEFT+ from the head (3), LEFT+ back from 4 (1); cache to 3",
     {5, 5, 5, 3},
     {3, 3, 3, 1}},
    {20,
     "block 5: LEFT from the head (5), LEFT+ forward from 3 (2); cache to 5",
     {7, 7, 4, 4},
     {5, 5, 2, 2}},
    {6,
     "block 1: from the head (1) for everyone: back from 5 would be 4; no update",
     {3, 3, 3, 3},
     {1, 1, 1, 1}},
    {21, "block 5: cache hit: the walk of 1 did not move it", {7, 2, 2, 2}, {5, 0, 0, 0}},
    {13,
     "block 3: LEFT+ both back from 5 (2), the others from the head (3)",
     {5, 5, 5, 4},
     {3, 3, 3, 2}},
};

START_TEST(left_threshold_rule) {
  static const bm_kind kinds[V_N] = {BM_MELO_PLUS, BM_LEFT, BM_LEFT_PLUS, BM_LEFT_PLUS};
  int v = _i;
  bm_conf conf = {1, v == V_LPB};
  bm_pool *pool = bm_pool_new_conf(kinds[v], 4, 64, &conf);
  bm_qp *q = bm_qp_new(pool, 8);
  bm_start(q, 0, 32);
  for (size_t i = 0; i < sizeof var_steps / sizeof *var_steps; i++) {
    const var_step *st = &var_steps[i];
    ck_assert_int_eq(bm_record(q, st->psn), BM_NEW);
    bm_cost c = bm_last_cost(q);
    ck_assert_msg(c.total == st->total[v] && c.hops == st->hops[v],
                  "variant %d step %zu (%s): total %u hops %u, want %u / %u", v, i, st->what,
                  c.total, c.hops, st->total[v], st->hops[v]);
    ck_assert_uint_eq(c.total - c.ctx, st->total[v] - 1); /* the paper's pointer cost */
  }
  bm_qp_free(q);
  bm_pool_free(pool);
}
END_TEST

/* A higher threshold: with N = 3 a walk of 3 leaves the cache alone and a
 * walk of 4 moves it; with N = 0 any walk moves it. LEFT, blocks 0..6. */
START_TEST(left_threshold_values) {
  static const struct {
    int t;
    uint32_t psn;
    unsigned total;
  } seq[] = {
      {3, 24, 8}, {3, 12, 5}, {3, 13, 5}, /* walk of 3: not cached */
      {3, 16, 6}, {3, 17, 2},             /* walk of 4: cached */
      {0, 24, 8}, {0, 4, 3},  {0, 5, 2},  /* threshold 0: the walk of 1 caches block 1 */
  };
  bm_pool *pool = NULL;
  bm_qp *q = NULL;
  int t = -2;
  for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
    if (seq[i].t != t) {
      bm_qp_free(q);
      bm_pool_free(pool);
      t = seq[i].t;
      bm_conf conf = {t, false};
      pool = bm_pool_new_conf(BM_LEFT, 4, 64, &conf);
      q = bm_qp_new(pool, 8);
      bm_start(q, 0, 32);
    }
    ck_assert_int_eq(bm_record(q, seq[i].psn), BM_NEW);
    ck_assert_msg(bm_last_cost(q).total == seq[i].total, "threshold %d, step %zu: %u, want %u", t,
                  i, bm_last_cost(q).total, seq[i].total);
  }
  bm_qp_free(q);
  bm_pool_free(pool);
  bm_conf bad = {-2, false};
  ck_assert_ptr_null(bm_pool_new_conf(BM_LEFT, 4, 64, &bad));
}
END_TEST

/* LEFT+ walking both ways with today's cache rule (the block of every
 * access): back along prev pointers when the cached block is nearer than
 * the head, forward otherwise; forward-only walks from the head instead. The
 * bits land in the right blocks (bm_test reads them back by a forward walk
 * from the head). 4-bit blocks, PSNs from 100. */
START_TEST(leftplus_both_ways) {
  static const struct {
    uint32_t off;
    unsigned both, fwd; /* total, today's convention */
  } seq[] = {
      {36, 11, 11}, /* block 9 into an empty list: 1 + 10 blocks; cache 9 */
      {28, 4, 9},   /* block 7: back 2 from 9 (1 + 1 + 2), forward-only from the head (1 + 1 + 7) */
      {20, 4, 7},   /* block 5: back 2 from 7; head 5 */
      {8, 4, 4},    /* block 2: back 3 from 5 is more than head 2: from the head for both */
      {12, 3, 3},   /* block 3: forward 1 from 2 */
      {24, 5, 5},   /* block 6: forward 3 from 3 */
      {16, 4, 6}, /* block 4: back 2 from 6, nearer than the head's 4; forward-only from the head */
  };
  for (int both = 0; both < 2; both++) {
    bm_conf conf = {BM_CACHE_EVERY, both != 0};
    bm_pool *pool = bm_pool_new_conf(BM_LEFT_PLUS, 4, 64, &conf);
    bm_qp *q = bm_qp_new(pool, 12);
    bm_start(q, 100, 48);
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
      ck_assert_int_eq(bm_record(q, 100 + seq[i].off), BM_NEW);
      unsigned want = both ? seq[i].both : seq[i].fwd;
      ck_assert_msg(bm_last_cost(q).total == want, "%s step %zu: %u, want %u",
                    both ? "both" : "forward", i, bm_last_cost(q).total, want);
    }
    for (uint32_t off = 0; off < 48; off++) {
      bool set = false;
      for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) set |= seq[i].off == off;
      ck_assert_int_eq(bm_test(q, 100 + off), set);
    }
    bm_qp_free(q);
    bm_pool_free(pool);
  }
}
END_TEST

/* ORNIC releases a full block at once; a list keeps it until it reaches the head. */
START_TEST(full_block_release) {
  bm_kind kind = (bm_kind)_i;
  bm_pool *pool = bm_pool_new(kind, 16, 64);
  bm_qp *q = bm_qp_new(pool, 20);
  bm_start(q, 1000, 320);
  for (uint32_t i = 1; i < 320; i++)
    ck_assert_int_eq(bm_record(q, 1000 + i), BM_NEW); /* PSN 1000 lost */
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
  tcase_add_loop_test(tc, reference_random, 0, 3 * BM_NMODELS);
  tcase_add_loop_test(tc, shared_pool_accounting, 0, BM_NMODELS);
  tcase_add_loop_test(tc, pool_exhaustion, 0, BM_NMODELS);
  tcase_add_loop_test(tc, psn_wrap, 0, BM_NMODELS);
  tcase_add_loop_test(tc, cost_model, 0, BM_NMODELS);
  tcase_add_loop_test(tc, full_block_release, 0, BM_NMODELS);
  tcase_add_test(tc, kind_names);
  tcase_add_loop_test(tc, left_threshold_rule, 0, V_N);
  tcase_add_test(tc, left_threshold_values);
  tcase_add_test(tc, leftplus_both_ways);
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
