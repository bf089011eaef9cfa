/* SPDX-License-Identifier: MIT */
#include "ornic_bitmap.h"

#include <stdlib.h>

#include "ornic/psn.h"

#define SLOT_EMPTY 0xffffffffu
#define SLOT_FULL 0xfffffffeu

struct obm_pool {
  unsigned m; /* bits per block */
  size_t cap;
  uint64_t *bits; /* node contents */
  uint32_t *free; /* stack of free node indices */
  size_t nfree, peak;
};

struct obm {
  obm_pool *pool;
  uint32_t *slot; /* ring of nslots: SLOT_EMPTY, SLOT_FULL or a node index */
  unsigned nslots;
  bool active;
  uint32_t start; /* Start_PSN */
  uint32_t npkts;
  uint32_t fm; /* offset of the first missing PSN from start */
  unsigned held, max_held, cost;
};

obm_pool *obm_pool_new(unsigned block_bits, size_t capacity) {
  if (block_bits < 1 || block_bits > 64 || capacity == 0 || capacity >= SLOT_FULL) return NULL;
  obm_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->m = block_bits;
  p->cap = capacity;
  p->bits = malloc(capacity * sizeof *p->bits);
  p->free = malloc(capacity * sizeof *p->free);
  if (!p->bits || !p->free) {
    obm_pool_free(p);
    return NULL;
  }
  /* Lowest index on top, so node use is deterministic and easy to read. */
  for (size_t i = 0; i < capacity; i++) p->free[i] = (uint32_t)(capacity - 1 - i);
  p->nfree = capacity;
  return p;
}

void obm_pool_free(obm_pool *p) {
  if (!p) return;
  free(p->bits);
  free(p->free);
  free(p);
}

size_t obm_pool_capacity(const obm_pool *p) { return p->cap; }
size_t obm_pool_in_use(const obm_pool *p) { return p->cap - p->nfree; }
size_t obm_pool_peak(const obm_pool *p) { return p->peak; }

static bool node_take(obm_pool *p, uint32_t *node) {
  if (p->nfree == 0) return false;
  *node = p->free[--p->nfree];
  p->bits[*node] = 0;
  size_t used = p->cap - p->nfree;
  if (used > p->peak) p->peak = used;
  return true;
}

static void node_give(obm_pool *p, uint32_t node) { p->free[p->nfree++] = node; }

obm *obm_new(obm_pool *pool, unsigned nslots) {
  if (!pool || nslots == 0) return NULL;
  obm *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->slot = malloc(nslots * sizeof *b->slot);
  if (!b->slot) {
    free(b);
    return NULL;
  }
  for (unsigned i = 0; i < nslots; i++) b->slot[i] = SLOT_EMPTY;
  b->pool = pool;
  b->nslots = nslots;
  return b;
}

void obm_free(obm *b) {
  if (!b) return;
  obm_finish(b);
  free(b->slot);
  free(b);
}

static void slot_release(obm *b, uint32_t *s) {
  if (*s != SLOT_EMPTY && *s != SLOT_FULL) {
    node_give(b->pool, *s);
    b->held--;
  }
  *s = SLOT_EMPTY;
}

void obm_finish(obm *b) {
  for (unsigned i = 0; i < b->nslots; i++) slot_release(b, &b->slot[i]);
  b->active = false;
}

void obm_start(obm *b, uint32_t start_psn, uint32_t npkts) {
  if (b->active) obm_finish(b);
  b->start = start_psn & ORNIC_PSN_MASK;
  b->npkts = npkts ? npkts : 1;
  b->fm = 0;
  b->active = true;
}

bool obm_active(const obm *b) { return b->active; }
uint32_t obm_start_psn(const obm *b) { return b->start; }
uint32_t obm_npkts(const obm *b) { return b->npkts; }
uint32_t obm_first_missing(const obm *b) { return ornic_psn_add(b->start, (int32_t)b->fm); }
bool obm_complete(const obm *b) { return b->active && b->fm >= b->npkts; }
unsigned obm_blocks_held(const obm *b) { return b->held; }
unsigned obm_max_blocks_held(const obm *b) { return b->max_held; }
unsigned obm_last_cost(const obm *b) { return b->cost; }

static inline uint32_t *slot_of(obm *b, uint32_t blk) { return &b->slot[blk % b->nslots]; }

/* Bits of block blk that stand for PSNs of the WQE (the last block may be partial). */
static uint64_t full_mask(const obm *b, uint32_t blk) {
  unsigned m = b->pool->m;
  uint64_t first = (uint64_t)blk * m;
  uint64_t n = b->npkts - first < m ? b->npkts - first : m;
  return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static uint32_t blk_end(const obm *b, uint32_t blk) {
  uint64_t end = ((uint64_t)blk + 1) * b->pool->m;
  return end < b->npkts ? (uint32_t)end : b->npkts;
}

/* Moves the first-missing offset over received PSNs, releasing every slot it
 * leaves behind (full blocks before ePSN go back to the pool). */
static void advance(obm *b) {
  unsigned m = b->pool->m;
  while (b->fm < b->npkts) {
    uint32_t blk = b->fm / m;
    uint32_t *s = slot_of(b, blk);
    if (*s == SLOT_EMPTY) break;
    if (*s != SLOT_FULL) {
      unsigned i = b->fm % m;
      uint64_t from_i = i ? ~((1ull << i) - 1) : ~0ull;
      uint64_t holes = ~b->pool->bits[*s] & from_i & full_mask(b, blk);
      if (holes) {
        b->fm = blk * m + (uint32_t)__builtin_ctzll(holes);
        break;
      }
    }
    slot_release(b, s);
    b->fm = blk_end(b, blk);
  }
}

int obm_record(obm *b, uint32_t psn) {
  unsigned m = b->pool->m;
  uint32_t off = ornic_psn_off(psn, b->start);
  b->cost = 0;
  if (!b->active || off >= b->npkts) return OBM_OUT_OF_RANGE;
  if (off < b->fm) return OBM_DUP;
  uint32_t blk = off / m;
  if (blk - b->fm / m >= b->nslots) return OBM_OUT_OF_RANGE;
  uint32_t *s = slot_of(b, blk);
  b->cost = 1;
  if (*s == SLOT_FULL) return OBM_DUP;
  if (*s == SLOT_EMPTY) {
    if (!node_take(b->pool, s)) return OBM_NO_BLOCK;
    if (++b->held > b->max_held) b->max_held = b->held;
  }
  b->cost = 2;
  uint64_t *bits = &b->pool->bits[*s];
  uint64_t bit = 1ull << (off % m);
  if (*bits & bit) return OBM_DUP;
  *bits |= bit;
  if (*bits == full_mask(b, blk)) {
    /* Released at once; the slot reads as all ones from now on. */
    node_give(b->pool, *s);
    b->held--;
    *s = SLOT_FULL;
  }
  if (off == b->fm) advance(b);
  return OBM_NEW;
}

/* State of offset off (< npkts) without touching the cost counter. */
static int state_at(const obm *b, uint32_t off) {
  unsigned m = b->pool->m;
  if (off < b->fm) return 1;
  uint32_t blk = off / m;
  if (blk - b->fm / m >= b->nslots) return 0;
  uint32_t s = b->slot[blk % b->nslots];
  if (s == SLOT_EMPTY) return 0;
  if (s == SLOT_FULL) return 1;
  return (int)((b->pool->bits[s] >> (off % m)) & 1);
}

int obm_test(obm *b, uint32_t psn) {
  uint32_t off = ornic_psn_off(psn, b->start);
  b->cost = 0;
  if (!b->active || off >= b->npkts) return -1;
  if (off >= b->fm) {
    uint32_t s = b->slot[(off / b->pool->m) % b->nslots];
    b->cost = (s == SLOT_EMPTY || s == SLOT_FULL) ? 1 : 2;
  }
  return state_at(b, off);
}

uint16_t obm_bits16(obm *b, uint32_t psn) {
  uint16_t v = 0;
  for (unsigned i = 0; i < 16; i++) {
    uint32_t off = ornic_psn_off(psn + i, b->start);
    if (b->active && off < b->npkts && state_at(b, off)) v |= (uint16_t)(1u << i);
  }
  return v;
}

unsigned obm_nak_blocks(obm *b, uint32_t base, uint32_t trigger, uint16_t *blocks,
                        unsigned max_blocks) {
  uint32_t span = ornic_psn_off(trigger, base);
  if (span >= 0x800000u) span = 0; /* trigger before base: one block */
  uint32_t n = span / 16 + 1;
  if (n > max_blocks) n = max_blocks;
  for (uint32_t k = 0; k < n; k++)
    blocks[k] = obm_bits16(b, ornic_psn_add(base, (int32_t)(16 * k)));
  blocks[0] &= (uint16_t)~1u; /* reserved: Base is missing by definition */
  return n;
}

size_t obm_missing_runs(obm *b, uint32_t from, uint32_t span, obm_run_fn fn, void *ctx) {
  size_t runs = 0;
  uint32_t run_start = 0, run_len = 0;
  for (uint32_t i = 0; i < span; i++) {
    uint32_t psn = ornic_psn_add(from, (int32_t)i);
    uint32_t off = ornic_psn_off(psn, b->start);
    bool missing = b->active && off < b->npkts && !state_at(b, off);
    if (missing) {
      if (run_len++ == 0) run_start = psn;
      continue;
    }
    if (run_len) {
      fn(ctx, run_start, run_len);
      runs++;
      run_len = 0;
    }
  }
  if (run_len) {
    fn(ctx, run_start, run_len);
    runs++;
  }
  return runs;
}
