/* SPDX-License-Identifier: MIT */
/* One WQE's arrival order (arrivals.h): a sliding reordering bound or aligned
 * shuffled windows, with the lost packet retransmitted last; Eq. 3's bound. */
#include "arrivals.h"

#include <stdlib.h>
#include <string.h>

#include "ornic/sizing.h"

static const char *const arr_names[] = {"sliding", "aligned"};

const char *arr_kind_name(arr_kind kind) { return (unsigned)kind < 2 ? arr_names[kind] : "?"; }

int arr_kind_parse(const char *name) {
  for (int k = 0; k < 2; k++)
    if (strcmp(name, arr_names[k]) == 0) return k;
  return -1;
}

typedef struct {
  uint64_t key; /* (i + displacement) << 32 | random tie-break */
  uint32_t off;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* One packet of the first block is lost: it moves to the end (its
 * retransmission). Returns its offset. */
static int64_t lose_one(prng *g, uint32_t n, unsigned block_bits, uint32_t *out) {
  uint32_t first_block = block_bits < n ? block_bits : n;
  uint32_t lost = prng_below(g, first_block);
  uint32_t j = 0;
  for (uint32_t i = 0; i < n; i++)
    if (out[i] != lost) out[j++] = out[i];
  out[n - 1] = lost;
  return lost;
}

int64_t arrivals_make(prng *g, uint32_t n, uint32_t reorder, bool loss, unsigned block_bits,
                      uint32_t *out) {
  keyed *k = malloc((size_t)n * sizeof *k);
  if (!k) return -1;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t d = reorder ? prng_below(g, reorder + 1) : 0;
    k[i].key = ((uint64_t)i + d) << 32 | (uint32_t)prng_next(g);
    k[i].off = i;
  }
  qsort(k, n, sizeof *k, by_key);
  for (uint32_t i = 0; i < n; i++) out[i] = k[i].off;
  free(k);
  return loss ? lose_one(g, n, block_bits, out) : n;
}

int64_t arrivals_make_aligned(prng *g, uint32_t n, uint32_t window, bool loss, unsigned block_bits,
                              uint32_t *out) {
  for (uint32_t i = 0; i < n; i++) out[i] = i;
  if (window > 1)
    for (uint32_t lo = 0; lo < n; lo += window) {
      uint32_t len = n - lo < window ? n - lo : window;
      for (uint32_t i = len - 1; i > 0; i--) { /* Fisher-Yates on out[lo .. lo + len) */
        uint32_t j = prng_below(g, i + 1), t = out[lo + i];
        out[lo + i] = out[lo + j];
        out[lo + j] = t;
      }
    }
  return loss ? lose_one(g, n, block_bits, out) : n;
}

int64_t arrivals_make_kind(arr_kind kind, prng *g, uint32_t n, uint32_t bound, bool loss,
                           unsigned block_bits, uint32_t *out) {
  return kind == ARR_ALIGNED ? arrivals_make_aligned(g, n, bound, loss, block_bits, out)
                             : arrivals_make(g, n, bound, loss, block_bits, out);
}

uint32_t arrivals_eq3_bound(double mdd_us, double link_gbps, uint32_t active, uint32_t len_bytes) {
  return ornic_sizing_otd(mdd_us, link_gbps / (active ? active : 1), len_bytes);
}
