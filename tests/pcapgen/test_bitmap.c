/* SPDX-License-Identifier: MIT */
/* ORNIC receive bitmap (libs/ornic-bitmap) against a brute-force
 * reference set: random arrival orders with bounded reordering and
 * duplicates, several block sizes, the PSN wrap, the worked NAK examples of
 * docs/PROTOCOL.md 6.8 and 6.9, pool accounting and exhaustion. */
#include "../check_fast.h"
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "ornic_bitmap.h"
#include "rng.h"

#define MASK 0xffffffu

/* Reference: one flag per packet of the WQE. */
typedef struct {
  uint32_t start, n, m;
  uint8_t *got;
} ref;

static uint32_t ref_first_missing(const ref *r) {
  uint32_t i = 0;
  while (i < r->n && r->got[i]) i++;
  return i;
}

/* Nodes the model should hold: blocks at or after the first missing one's with
 * some but not all of their PSNs received. */
static unsigned ref_held(const ref *r) {
  unsigned held = 0;
  uint32_t fm = ref_first_missing(r);
  for (uint32_t b = fm / r->m; (uint64_t)b * r->m < r->n; b++) {
    uint32_t lo = b * r->m, hi = lo + r->m < r->n ? lo + r->m : r->n, cnt = 0;
    for (uint32_t i = lo; i < hi; i++) cnt += r->got[i];
    held += cnt > 0 && cnt < hi - lo;
  }
  return held;
}

static void check_state(obm *b, const ref *r, rng *g) {
  uint32_t fm = ref_first_missing(r);
  ck_assert_uint_eq(obm_first_missing(b), (r->start + fm) & MASK);
  ck_assert_int_eq(obm_complete(b), fm == r->n);
  ck_assert_uint_eq(obm_blocks_held(b), ref_held(r));
  for (int k = 0; k < 8; k++) {
    uint32_t i = rng_below(g, r->n + 40);
    uint32_t psn = (r->start + i) & MASK;
    int want = i >= r->n ? -1 : r->got[i];
    ck_assert_int_eq(obm_test(b, psn), want);
    uint16_t bits = 0;
    for (uint32_t j = 0; j < 16; j++) bits |= (uint16_t)((i + j < r->n && r->got[i + j]) << j);
    if (i >= fm && i < r->n) ck_assert_uint_eq(obm_bits16(b, psn), bits);
  }
}

/* Arrival order: 0..n-1 with each packet displaced by less than `reorder`,
 * plus duplicates of earlier arrivals. */
static uint32_t *arrivals(rng *g, uint32_t n, uint32_t reorder, uint32_t *count) {
  uint32_t *a = malloc(sizeof *a * (2 * n + 1));
  for (uint32_t i = 0; i < n; i++) a[i] = i;
  for (uint32_t i = 0; i + 1 < n; i++) {
    uint32_t span = n - i < reorder ? n - i : reorder;
    uint32_t j = i + rng_below(g, span);
    uint32_t t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  uint32_t k = n;
  for (uint32_t i = 0; i < n / 4; i++, k++) a[k] = a[rng_below(g, k)];
  *count = k;
  return a;
}

static void random_run(uint64_t seed, unsigned m, uint32_t n, uint32_t reorder, uint32_t start) {
  rng g;
  rng_seed(&g, seed, 0);
  unsigned nslots = (reorder + 2 * m) / m + 2;
  obm_pool *pool = obm_pool_new(m, nslots + 4);
  obm *b = obm_new(pool, nslots);
  ref r = {start, n, m, calloc(n, 1)};
  obm_start(b, start, n);
  uint32_t count, *a = arrivals(&g, n, reorder, &count);
  for (uint32_t k = 0; k < count; k++) {
    uint32_t i = a[k];
    /* The swaps can carry a packet far back; arrivals beyond the ring are refused. */
    bool beyond = i / m - ref_first_missing(&r) / m >= nslots;
    int want = r.got[i] ? OBM_DUP : beyond ? OBM_OUT_OF_RANGE : OBM_NEW;
    ck_assert_int_eq(obm_record(b, (start + i) & MASK), want);
    r.got[i] |= want == OBM_NEW;
    ck_assert_uint_eq(obm_pool_in_use(pool), obm_blocks_held(b));
    if (k % 7 == 0 || k == count - 1) check_state(b, &r, &g);
  }
  /* Retransmissions of whatever is still missing, in order. */
  for (uint32_t i = 0; i < n; i++) {
    if (!r.got[i]) ck_assert_int_eq(obm_record(b, (start + i) & MASK), OBM_NEW);
    r.got[i] = 1;
  }
  check_state(b, &r, &g);
  ck_assert(obm_complete(b));
  ck_assert_uint_eq(obm_blocks_held(b), 0);
  ck_assert_uint_eq(obm_pool_in_use(pool), 0); /* every block went back at once */
  obm_finish(b);
  free(a);
  free(r.got);
  obm_free(b);
  obm_pool_free(pool);
}

START_TEST(random_vs_reference) {
  static const unsigned ms[] = {16, 8, 32, 64, 5, 1};
  for (unsigned s = 0; s < 60; s++) {
    rng g;
    rng_seed(&g, 1000 + s, 1);
    unsigned m = ms[s % 6];
    uint32_t n = 1 + rng_below(&g, 1500);
    uint32_t reorder = 1 + rng_below(&g, 100);
    uint32_t start = s % 3 == 0 ? (MASK - rng_below(&g, 200)) : rng_below(&g, MASK + 1);
    random_run(s, m, n, reorder, start);
  }
}
END_TEST

START_TEST(psn_wrap) {
  obm_pool *pool = obm_pool_new(16, 8);
  obm *b = obm_new(pool, 4);
  obm_start(b, 0xfffff8, 20); /* PSNs 0xfffff8 .. 0x00000b */
  for (uint32_t i = 1; i < 20; i++) ck_assert_int_eq(obm_record(b, (0xfffff8 + i) & MASK), OBM_NEW);
  ck_assert_uint_eq(obm_first_missing(b), 0xfffff8);
  ck_assert_int_eq(obm_test(b, 0x00000b), 1);
  ck_assert_int_eq(obm_test(b, 0x00000c), -1);
  ck_assert_int_eq(obm_test(b, 0xfffff7), -1);
  uint16_t blk[4];
  ck_assert_uint_eq(obm_nak_blocks(b, 0xfffff8, 0x00000b, blk, 4), 2);
  ck_assert_uint_eq(blk[0], 0xfffe); /* bit 0 = Base, reserved */
  ck_assert_uint_eq(blk[1], 0x000f); /* 0x08..0x0b received, after the WQE zero */
  ck_assert_int_eq(obm_record(b, 0xfffff8), OBM_NEW);
  ck_assert(obm_complete(b));
  ck_assert_uint_eq(obm_first_missing(b), 0x00000c);
  ck_assert_uint_eq(obm_pool_in_use(pool), 0);
  obm_free(b);
  obm_pool_free(pool);
}
END_TEST

static void receive_all_but(obm *b, uint32_t first, uint32_t last, const uint32_t *skip,
                            int nskip) {
  for (uint32_t p = first; p <= last; p++) {
    bool s = false;
    for (int k = 0; k < nskip; k++) s |= skip[k] == p;
    if (!s) ck_assert_int_eq(obm_record(b, p), OBM_NEW);
  }
}

START_TEST(protocol_example_6_8) {
  /* WQE 5: N = 12, PSNs 0x46-0x51, all but 0x48 and 0x4B arrived: one block 0x03F6. */
  obm_pool *pool = obm_pool_new(16, 300);
  obm *b = obm_new(pool, 257);
  obm_start(b, 0x46, 12);
  static const uint32_t skip[] = {0x48, 0x4b};
  receive_all_but(b, 0x46, 0x51, skip, 2);
  ck_assert_uint_eq(obm_first_missing(b), 0x48);
  uint16_t blk[255];
  ck_assert_uint_eq(obm_nak_blocks(b, 0x48, 0x51, blk, 255), 1);
  ck_assert_uint_eq(blk[0], 0x03f6);
  obm_free(b);
  ck_assert_uint_eq(obm_pool_in_use(pool), 0);
  obm_pool_free(pool);
}
END_TEST

START_TEST(protocol_example_6_9) {
  /* WQE 6 from 0x52; ePSN 0x60 when 0x81 arrives: blocks 0xFF7C 0xFFDF 0x002B. */
  obm_pool *pool = obm_pool_new(16, 300);
  obm *b = obm_new(pool, 257);
  obm_start(b, 0x52, 64);
  static const uint32_t skip[] = {0x60, 0x61, 0x67, 0x75};
  receive_all_but(b, 0x52, 0x7f, skip, 4);
  static const uint32_t late[] = {0x80, 0x85, 0x83, 0x81};
  for (int k = 0; k < 4; k++) ck_assert_int_eq(obm_record(b, late[k]), OBM_NEW);
  ck_assert_uint_eq(obm_first_missing(b), 0x60);
  uint16_t blk[255];
  ck_assert_uint_eq(obm_nak_blocks(b, 0x60, 0x81, blk, 255), 3);
  ck_assert_uint_eq(blk[0], 0xff7c);
  ck_assert_uint_eq(blk[1], 0xffdf);
  ck_assert_uint_eq(blk[2], 0x002b);
  /* Slots are aligned to Start_PSN (0x52), not to the NAK's Base: holes sit in
   * 0x52-0x61, 0x62-0x71, 0x72-0x81 and 0x82-0x91, so four nodes are held. */
  ck_assert_uint_eq(obm_blocks_held(b), 4);
  obm_free(b);
  obm_pool_free(pool);
}
END_TEST

START_TEST(full_block_released_at_once) {
  obm_pool *pool = obm_pool_new(16, 4);
  obm *b = obm_new(pool, 4);
  obm_start(b, 100, 64);
  for (uint32_t i = 16; i < 32; i++) {
    ck_assert_int_eq(obm_record(b, 100 + i), OBM_NEW);
    ck_assert_uint_eq(obm_last_cost(b), 2); /* slot + node */
    ck_assert_uint_eq(obm_blocks_held(b), i < 31 ? 1 : 0);
  }
  ck_assert_uint_eq(obm_bits16(b, 116), 0xffff);
  ck_assert_int_eq(obm_test(b, 120), 1);
  ck_assert_uint_eq(obm_last_cost(b), 1); /* a FULL slot needs no node */
  ck_assert_int_eq(obm_record(b, 120), OBM_DUP);
  ck_assert_uint_eq(obm_max_blocks_held(b), 1);
  obm_free(b);
  obm_pool_free(pool);
}
END_TEST

START_TEST(pool_exhaustion_and_sharing) {
  obm_pool *pool = obm_pool_new(16, 2);
  obm *a = obm_new(pool, 8), *c = obm_new(pool, 8);
  obm_start(a, 0, 100);
  obm_start(c, 5000, 100);
  ck_assert_int_eq(obm_record(a, 20), OBM_NEW);
  ck_assert_int_eq(obm_record(c, 5020), OBM_NEW);
  ck_assert_uint_eq(obm_pool_in_use(pool), 2);
  ck_assert_int_eq(obm_record(a, 40), OBM_NO_BLOCK); /* pool empty: not recorded */
  ck_assert_int_eq(obm_test(a, 40), 0);
  ck_assert_int_eq(obm_record(a, 21), OBM_NEW); /* same block: no new node */
  obm_finish(c);                                /* WQE done: its node returns */
  ck_assert_uint_eq(obm_pool_in_use(pool), 1);
  ck_assert_int_eq(obm_record(a, 40), OBM_NEW);
  ck_assert_uint_eq(obm_pool_peak(pool), 2);
  obm_free(a);
  obm_free(c);
  ck_assert_uint_eq(obm_pool_in_use(pool), 0);
  obm_pool_free(pool);
}
END_TEST

START_TEST(ring_limits) {
  obm_pool *pool = obm_pool_new(16, 8);
  obm *b = obm_new(pool, 2); /* tracks 2 blocks from the first missing one */
  obm_start(b, 0, 100);
  ck_assert_int_eq(obm_record(b, 31), OBM_NEW);
  ck_assert_int_eq(obm_record(b, 32), OBM_OUT_OF_RANGE);
  ck_assert_int_eq(obm_record(b, 100), OBM_OUT_OF_RANGE); /* after the WQE */
  for (uint32_t p = 0; p < 16; p++) ck_assert_int_eq(obm_record(b, p), OBM_NEW);
  ck_assert_uint_eq(obm_first_missing(b), 16);
  ck_assert_int_eq(obm_record(b, 32), OBM_NEW); /* the ring moved on */
  ck_assert_int_eq(obm_record(b, 3), OBM_DUP);
  obm_free(b);
  obm_pool_free(pool);
}
END_TEST

typedef struct {
  uint32_t first[8], count[8];
  int n;
} runs;

static void collect(void *ctx, uint32_t first, uint32_t count) {
  runs *r = ctx;
  r->first[r->n] = first;
  r->count[r->n++] = count;
}

START_TEST(missing_runs) {
  obm_pool *pool = obm_pool_new(16, 8);
  obm *b = obm_new(pool, 8);
  obm_start(b, 0xfffffe, 40);
  static const uint32_t skip[] = {0xfffffe, 2, 3, 4, 20};
  for (uint32_t i = 0; i < 30; i++) {
    uint32_t p = (0xfffffe + i) & MASK;
    bool s = false;
    for (int k = 0; k < 5; k++) s |= skip[k] == p;
    if (!s) obm_record(b, p);
  }
  runs r = {.n = 0};
  ck_assert_uint_eq(obm_missing_runs(b, 0xfffffe, 30, collect, &r), 3);
  ck_assert_uint_eq(r.first[0], 0xfffffe);
  ck_assert_uint_eq(r.count[0], 1);
  ck_assert_uint_eq(r.first[1], 2);
  ck_assert_uint_eq(r.count[1], 3);
  ck_assert_uint_eq(r.first[2], 20);
  ck_assert_uint_eq(r.count[2], 1);
  obm_free(b);
  obm_pool_free(pool);
}
END_TEST

START_TEST(bad_arguments) {
  ck_assert_ptr_null(obm_pool_new(0, 4));
  ck_assert_ptr_null(obm_pool_new(65, 4));
  ck_assert_ptr_null(obm_pool_new(16, 0));
  obm_pool *pool = obm_pool_new(16, 1);
  ck_assert_ptr_null(obm_new(pool, 0));
  obm *b = obm_new(pool, 1);
  ck_assert_int_eq(obm_record(b, 5), OBM_OUT_OF_RANGE); /* no WQE yet */
  ck_assert_int_eq(obm_test(b, 5), -1);
  obm_free(b);
  obm_pool_free(pool);
}
END_TEST

int main(void) {
  TCase *tc = tcase_create("bitmap");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, random_vs_reference);
  tcase_add_test(tc, psn_wrap);
  tcase_add_test(tc, protocol_example_6_8);
  tcase_add_test(tc, protocol_example_6_9);
  tcase_add_test(tc, full_block_released_at_once);
  tcase_add_test(tc, pool_exhaustion_and_sharing);
  tcase_add_test(tc, ring_limits);
  tcase_add_test(tc, missing_runs);
  tcase_add_test(tc, bad_arguments);
  return run_tcase("pcapgen_bitmap", tc);
}
