/* SPDX-License-Identifier: MIT */
/* The linked-list bitmap designs ORNIC is compared with: MELO+, LEFT, LEFT+.
 *
 * A QP's bitmap is a linked list of M-bit blocks taken from a shared pool,
 * one block per M consecutive PSNs, in PSN order and without gaps: the list
 * covers blocks head_blk .. head_blk + len - 1, and head_blk is the block of
 * the first missing PSN. The QP context holds the head and tail pointers,
 * head_blk and len (and, for LEFT and LEFT+, a pointer to a cached block with
 * its block number). Assumptions, stated where the papers leave room:
 *   - a PSN beyond the tail appends every block up to its own (the list stays
 *     contiguous); if the pool has fewer free blocks than that, nothing is
 *     taken and the packet is dropped (BM_NO_BLOCK);
 *   - blocks are freed only from the head, in order: when the head block is
 *     full it is freed, and so is every full block that follows it;
 *   - every node has a next pointer; LEFT+ with leftplus_both also follows
 *     prev pointers (a doubly linked list). With next pointers only, LEFT+
 *     walks forward from its cached block only when that block is before the
 *     target (it is then never further than the head); with both, from the
 *     cached block either way when it is nearer than the head. Nobody walks
 *     back from the tail: the paper's LEFT+ starts "from the cache pointer
 *     instead of the header pointer". A freed head leaves its successor's
 *     prev stale: no walk goes below the head, so nobody reads it;
 *   - the cache (bm_conf.left_threshold): BM_CACHE_EVERY, it holds the block
 *     of the last record (append and hits included); N >= 0, it moves only
 *     after a walk to a block more than N blocks after the head, for LEFT and
 *     LEFT+ alike (so the two hold the same cache and LEFT+ never costs more
 *     than LEFT on an access). Either way it is invalidated when its block is
 *     freed.
 *
 * Cost of reaching the bit of a PSN (bm_cost.total), one per memory access:
 *   - 1 for the QP-context entry holding head / tail / cache pointer (the
 *     block numbers compared with the PSN live in it too: no extra cost);
 *   - head, tail or cache hit: +1 (that node, read-modify-write once);
 *   - otherwise a walk: +1 for the node it starts from (head, or for LEFT+ the
 *     cached block) and +1 per next- or prev-pointer hop;
 *   - append of j blocks: +1 to write the old tail's next pointer (if the list
 *     was not empty) and +1 per new node (the last one gets the bit; the new
 *     node's prev is written with it);
 *   - pool empty: 1 (the context read); PSN before ePSN or out of range: 0.
 * Pool pushes and pops, and freeing blocks from the head after the access,
 * are not counted (ORNIC's obm_last_cost does not count them either). The
 * paper's convention (pointer accesses only) is total - ctx. */
#include <stdlib.h>

#include "bm_ops.h"

#define NIL 0xffffffffu

typedef struct {
  uint64_t bits;
  uint32_t next, prev;
} lnode;

typedef struct {
  unsigned m;
  size_t cap, nfree, peak;
  lnode *node;
  uint32_t *free; /* stack of free node indices */
} lpool;

typedef struct {
  lpool *pool;
  bm_kind kind;
  bm_conf conf;
  unsigned nslots;
  bool active;
  uint32_t start, npkts;
  uint32_t fm;              /* offset of the first missing PSN */
  uint32_t head, tail, len; /* list of blocks head_blk .. head_blk + len - 1 */
  uint32_t head_blk;
  uint32_t cache, cache_blk; /* LEFT, LEFT+: the cached block (NIL: none) */
  unsigned max_held;
  bm_cost cost;
} lqp;

static void *pool_new(unsigned block_bits, size_t capacity) {
  if (block_bits < 1 || block_bits > 64 || capacity == 0 || capacity >= NIL) return NULL;
  lpool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->m = block_bits;
  p->cap = capacity;
  p->node = malloc(capacity * sizeof *p->node);
  p->free = malloc(capacity * sizeof *p->free);
  if (!p->node || !p->free) {
    free(p->node);
    free(p->free);
    free(p);
    return NULL;
  }
  for (size_t i = 0; i < capacity; i++) p->free[i] = (uint32_t)(capacity - 1 - i);
  p->nfree = capacity;
  return p;
}

static void pool_free(void *vp) {
  lpool *p = vp;
  if (!p) return;
  free(p->node);
  free(p->free);
  free(p);
}

static size_t pool_capacity(const void *p) { return ((const lpool *)p)->cap; }
static size_t pool_in_use(const void *vp) {
  const lpool *p = vp;
  return p->cap - p->nfree;
}
static size_t pool_peak(const void *p) { return ((const lpool *)p)->peak; }

static uint32_t node_take(lpool *p) {
  uint32_t n = p->free[--p->nfree];
  p->node[n].bits = 0;
  p->node[n].next = NIL;
  p->node[n].prev = NIL;
  if (p->cap - p->nfree > p->peak) p->peak = p->cap - p->nfree;
  return n;
}

static void node_give(lpool *p, uint32_t n) { p->free[p->nfree++] = n; }

static void *qp_new(void *pool, unsigned nslots, bm_kind kind, const bm_conf *conf) {
  if (!pool || nslots == 0) return NULL;
  lqp *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->pool = pool;
  q->kind = kind;
  q->conf = conf ? *conf : bm_conf_default();
  q->nslots = nslots;
  q->head = q->tail = q->cache = NIL;
  return q;
}

static void finish(void *vq) {
  lqp *q = vq;
  for (uint32_t n = q->head; n != NIL;) {
    uint32_t next = q->pool->node[n].next;
    node_give(q->pool, n);
    n = next;
  }
  q->head = q->tail = q->cache = NIL;
  q->len = 0;
  q->active = false;
}

static void qp_free(void *q) {
  if (!q) return;
  finish(q);
  free(q);
}

static void start(void *vq, uint32_t start_psn, uint32_t npkts) {
  lqp *q = vq;
  if (q->active) finish(q);
  q->start = start_psn & BM_PSN_MASK;
  q->npkts = npkts ? npkts : 1;
  q->fm = 0;
  q->head_blk = 0;
  q->active = true;
}

static bool complete(const void *vq) {
  const lqp *q = vq;
  return q->active && q->fm >= q->npkts;
}

static uint32_t first_missing(const void *vq) {
  const lqp *q = vq;
  return (q->start + q->fm) & BM_PSN_MASK;
}

static unsigned blocks_held(const void *q) { return ((const lqp *)q)->len; }
static unsigned max_blocks_held(const void *q) { return ((const lqp *)q)->max_held; }
static bm_cost last_cost(const void *q) { return ((const lqp *)q)->cost; }

static uint64_t full_mask(const lqp *q, uint32_t blk) {
  uint64_t first = (uint64_t)blk * q->pool->m;
  uint64_t n = q->npkts - first < q->pool->m ? q->npkts - first : q->pool->m;
  return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static bool has_cache(const lqp *q) { return q->kind == BM_LEFT || q->kind == BM_LEFT_PLUS; }

/* The node of block blk, which is in the list, and what reaching it costs.
 * *walked: it took a walk (no head, tail or cache hit). */
static uint32_t locate(const lqp *q, uint32_t blk, bm_cost *c, bool *walked) {
  uint32_t k = blk - q->head_blk;
  *c = (bm_cost){2, 1, 0};
  *walked = false;
  if (k == 0) return q->head;
  if (k == q->len - 1) return q->tail;
  bool cached = has_cache(q) && q->cache != NIL;
  if (cached && q->cache_blk == blk) return q->cache;
  *walked = true;
  if (q->kind == BM_LEFT_PLUS && cached && q->conf.leftplus_both && q->cache_blk > blk &&
      q->cache_blk - blk < k) {
    /* Back from the cached block along prev pointers. */
    c->hops = q->cache_blk - blk;
    c->total += c->hops;
    uint32_t n = q->cache;
    for (uint32_t at = q->cache_blk; at > blk; at--) n = q->pool->node[n].prev;
    return n;
  }
  uint32_t n = q->head, at = q->head_blk;
  if (q->kind == BM_LEFT_PLUS && cached && q->cache_blk < blk) {
    n = q->cache;
    at = q->cache_blk;
  }
  c->hops = blk - at;
  c->total += c->hops;
  for (; at < blk; at++) n = q->pool->node[n].next;
  return n;
}

/* Appends blocks up to blk (all or nothing). NIL when the pool is short. */
static uint32_t append(lqp *q, uint32_t blk, bm_cost *c) {
  uint32_t j = blk - (q->head_blk + q->len) + 1;
  *c = (bm_cost){1, 1, 0};
  if (q->pool->nfree < j) return NIL;
  c->total += (q->len ? 1 : 0) + j;
  for (uint32_t i = 0; i < j; i++) {
    uint32_t n = node_take(q->pool);
    q->pool->node[n].prev = q->len ? q->tail : NIL;
    if (q->len++)
      q->pool->node[q->tail].next = n;
    else
      q->head = n;
    q->tail = n;
  }
  if (q->len > q->max_held) q->max_held = q->len;
  return q->tail;
}

/* Frees full blocks from the head, then finds the first missing PSN. */
static void advance(lqp *q) {
  lpool *p = q->pool;
  while (q->len && p->node[q->head].bits == full_mask(q, q->head_blk)) {
    uint32_t next = p->node[q->head].next;
    node_give(p, q->head);
    q->head = next;
    q->head_blk++;
    if (--q->len == 0) q->tail = NIL;
  }
  if (q->cache != NIL && q->cache_blk < q->head_blk) q->cache = NIL;
  uint64_t base = (uint64_t)q->head_blk * p->m;
  if (!q->len) {
    q->fm = base < q->npkts ? (uint32_t)base : q->npkts;
    return;
  }
  uint64_t holes = ~p->node[q->head].bits & full_mask(q, q->head_blk);
  q->fm = (uint32_t)base + (uint32_t)__builtin_ctzll(holes);
}

static int record(void *vq, uint32_t psn) {
  lqp *q = vq;
  uint32_t off = (psn - q->start) & BM_PSN_MASK;
  q->cost = (bm_cost){0, 0, 0};
  if (!q->active || off >= q->npkts) return BM_OUT_OF_RANGE;
  if (off < q->fm) return BM_DUP;
  uint32_t blk = off / q->pool->m;
  if (blk - q->head_blk >= q->nslots) return BM_OUT_OF_RANGE;
  uint32_t k = blk - q->head_blk;
  bool walked = false;
  uint32_t n = k < q->len ? locate(q, blk, &q->cost, &walked) : append(q, blk, &q->cost);
  if (n == NIL) return BM_NO_BLOCK;
  int t = q->conf.left_threshold;
  if (has_cache(q) && (t == BM_CACHE_EVERY || (walked && k > (uint32_t)t))) {
    q->cache = n;
    q->cache_blk = blk;
  }
  uint64_t bit = 1ull << (off % q->pool->m);
  if (q->pool->node[n].bits & bit) return BM_DUP;
  q->pool->node[n].bits |= bit;
  if (blk == q->head_blk) advance(q);
  return BM_NEW;
}

/* State of offset off (< npkts), no cost. */
static int state_at(const lqp *q, uint32_t off) {
  if (off < q->fm) return 1;
  uint32_t blk = off / q->pool->m;
  if (blk - q->head_blk >= q->len) return 0;
  uint32_t n = q->head;
  for (uint32_t at = q->head_blk; at < blk; at++) n = q->pool->node[n].next;
  return (int)((q->pool->node[n].bits >> (off % q->pool->m)) & 1);
}

static int test(void *vq, uint32_t psn) {
  lqp *q = vq;
  uint32_t off = (psn - q->start) & BM_PSN_MASK;
  q->cost = (bm_cost){0, 0, 0};
  if (!q->active || off >= q->npkts) return -1;
  if (off >= q->fm) {
    uint32_t blk = off / q->pool->m;
    bool walked;
    if (blk - q->head_blk < q->len)
      locate(q, blk, &q->cost, &walked);
    else
      q->cost = (bm_cost){1, 1, 0};
  }
  return state_at(q, off);
}

static size_t missing(void *vq, uint32_t *out, size_t max) {
  lqp *q = vq;
  size_t n = 0;
  if (!q->active) return 0;
  for (uint32_t off = q->fm; off < q->npkts; off++) {
    if (state_at(q, off)) continue;
    if (n < max) out[n] = (q->start + off) & BM_PSN_MASK;
    n++;
  }
  return n;
}

const bm_ops bm_list_ops = {
    pool_new,      pool_free, pool_capacity, pool_in_use,     pool_peak, qp_new,
    qp_free,       start,     finish,        record,          test,      complete,
    first_missing, missing,   blocks_held,   max_blocks_held, last_cost};
