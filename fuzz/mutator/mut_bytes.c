/* SPDX-License-Identifier: MIT */
/* Plain byte mutations, the kind AFL++'s havoc stage makes (bit flips,
 * random bytes, interesting values, AFL++ docs "havoc"), kept to one region
 * so the caller can restore the consistency around it. */
#include "mut_internal.h"

void mut_bytes(ornic_mut *m, uint8_t *out, size_t from, size_t to) {
  static const uint8_t interesting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x10, 0x20, 0x40};
  if (to <= from) return;
  unsigned n = 1 + mut_rng_below(&m->rng, 4);
  for (unsigned i = 0; i < n; i++) {
    size_t at = from + mut_rng_below(&m->rng, (uint32_t)(to - from));
    switch (mut_rng_below(&m->rng, 3)) {
    case 0: out[at] ^= (uint8_t)(1u << mut_rng_below(&m->rng, 8)); break;
    case 1: out[at] = (uint8_t)mut_rng_next(&m->rng); break;
    default: out[at] = interesting[mut_rng_below(&m->rng, sizeof interesting)];
    }
  }
  mut_log(m, "bytes: %u changed in [%zu,%zu)", n, from, to);
}
