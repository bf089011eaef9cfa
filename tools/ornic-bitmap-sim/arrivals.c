#include "arrivals.h"

#include <stdlib.h>

typedef struct {
  uint64_t key; /* (i + displacement) << 32 | random tie-break */
  uint32_t off;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->off < y->off ? -1 : x->off > y->off;
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
  if (!loss) return n;
  uint32_t first_block = block_bits < n ? block_bits : n;
  uint32_t lost = prng_below(g, first_block);
  uint32_t j = 0;
  for (uint32_t i = 0; i < n; i++)
    if (out[i] != lost) out[j++] = out[i];
  out[n - 1] = lost;
  return lost;
}
