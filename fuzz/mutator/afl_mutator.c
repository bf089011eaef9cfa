/* SPDX-License-Identifier: MIT */
/* AFL++'s custom mutator entry points on the ORNIC mutator, for
 * AFL_CUSTOM_MUTATOR_LIBRARY=.../libornic_afl_mutator.so. The prototypes are
 * the ones AFL++'s docs/custom_mutators.md ("2) APIs") documents; AFL++ finds
 * them with dlsym, so no AFL++ header is needed (the afl_state_t pointer is
 * not used and stays opaque).
 *
 * Environment, read once in afl_custom_init:
 *   ORNIC_MUT_BYTE_RATE   share of outputs with byte mutations too (0.1)
 *   ORNIC_MUT_BREAK_RATE  share left with iCRC/lengths/checksums broken (0)
 *   ORNIC_MUT_STEPS       field mutations per output, at most (4)
 *   ORNIC_MUT_SKIP        leading bytes kept as they are, for a harness whose
 *                         input starts with a mode byte (fuzz_frame: 1) (0)
 *   ORNIC_MUT_LOG         when set, the change of every output on stderr */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ornic_mutator.h"

#define AFL_MUT_OUT_MAX (128u * 1024u) /* ornic_frame_encode writes at most 64 KiB */

#if defined(__GNUC__)
#define AFL_MUT_API __attribute__((visibility("default")))
#else
#define AFL_MUT_API
#endif

typedef struct {
  ornic_mut *m;
  size_t skip;
  int log;
  uint8_t out[AFL_MUT_OUT_MAX];
  char desc[64];
} afl_mut;

AFL_MUT_API void *afl_custom_init(void *afl, unsigned int seed);
AFL_MUT_API size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
                                   uint8_t *add_buf, size_t add_buf_size, size_t max_size);
AFL_MUT_API const char *afl_custom_describe(void *data, size_t max_description_len);
AFL_MUT_API void afl_custom_deinit(void *data);

static double env_double(const char *name, double dflt) {
  const char *v = getenv(name);
  return v && *v ? strtod(v, NULL) : dflt;
}

void *afl_custom_init(void *afl, unsigned int seed) {
  (void)afl;
  ornic_mut_cfg cfg;
  ornic_mut_cfg_default(&cfg);
  cfg.seed = seed;
  cfg.byte_rate = env_double("ORNIC_MUT_BYTE_RATE", cfg.byte_rate);
  cfg.break_rate = env_double("ORNIC_MUT_BREAK_RATE", cfg.break_rate);
  double steps = env_double("ORNIC_MUT_STEPS", cfg.max_steps);
  double skip = env_double("ORNIC_MUT_SKIP", 0);
  /* Out of range (or not a number): 0 steps, which ornic_mut_new refuses. */
  cfg.max_steps = steps >= 1 && steps <= 64 ? (unsigned)steps : 0;
  afl_mut *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->m = skip >= 0 && skip <= 65536 ? ornic_mut_new(&cfg) : NULL;
  if (!a->m) {
    fprintf(stderr,
            "ornic mutator: bad ORNIC_MUT_* setting (rates in [0,1], steps 1..64, "
            "skip 0..65536)\n");
    free(a);
    return NULL;
  }
  a->skip = (size_t)skip;
  a->log = getenv("ORNIC_MUT_LOG") != NULL;
  return a;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
                       uint8_t *add_buf, size_t add_buf_size, size_t max_size) {
  (void)add_buf;
  (void)add_buf_size;
  afl_mut *a = data;
  size_t cap = max_size < AFL_MUT_OUT_MAX ? max_size : AFL_MUT_OUT_MAX;
  size_t skip = a->skip < buf_size ? a->skip : buf_size;
  if (skip > cap) skip = cap;
  memcpy(a->out, buf, skip);
  size_t n = ornic_mut_mutate(a->m, buf + skip, buf_size - skip, a->out + skip, cap - skip);
  if (a->log) fprintf(stderr, "ornic mutator: %s\n", ornic_mut_last(a->m));
  *out_buf = a->out;
  return n ? skip + n : 0;
}

/* AFL++ names queue entries after this: the first change, as a file name. */
const char *afl_custom_describe(void *data, size_t max_description_len) {
  afl_mut *a = data;
  const char *last = ornic_mut_last(a->m);
  size_t n = 0, lim = max_description_len < sizeof a->desc ? max_description_len : sizeof a->desc;
  for (const char *p = "ornic-"; *p && n + 1 < lim; p++) a->desc[n++] = *p;
  for (const char *p = last; *p && *p != ';' && n + 1 < lim; p++)
    a->desc[n++] = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p : '_';
  if (lim) a->desc[n] = 0;
  return a->desc;
}

void afl_custom_deinit(void *data) {
  afl_mut *a = data;
  if (!a) return;
  ornic_mut_free(a->m);
  free(a);
}
