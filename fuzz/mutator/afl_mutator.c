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
 *   ORNIC_MUT_RECORDS     1: inputs in "frame records" form (ornic_mutator.h),
 *                         the prefix ORNIC_MUT_SKIP; AFL++'s add_buf is
 *                         crossed over with 1 in 8 inputs (0)
 *   ORNIC_MUT_POST        0: afl_custom_post_process hands inputs on as they
 *                         are; otherwise it repairs every frame (or frame
 *                         record) of every input AFL++ runs, havoc's too,
 *                         with ornic_mut_fix, breaking again at
 *                         ORNIC_MUT_BREAK_RATE (POST_DEFAULT below)
 *   ORNIC_MUT_COUNT       outputs per queue entry of the custom stage when it
 *                         decodes (afl_custom_fuzz_count; 0 for an input that
 *                         does not: havoc's byte mutations are all the
 *                         mutator would make of it, unless
 *                         AFL_CUSTOM_MUTATOR_ONLY is set) (256)
 *   ORNIC_MUT_LOG         when set, the change of every output on stderr */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ornic_mutator.h"

#define AFL_MUT_OUT_MAX (1024u * 1024u) /* AFL++'s MAX_FILE (config.h): its largest input */
/* AFL++'s stage count for a queue entry of performance score 100: HAVOC_CYCLES
 * (config.h) */
#define AFL_MUT_COUNT 256
/* ORNIC_MUT_POST's default: on, after fuzz_frame runs with and without it
 * (docs/FUZZING.md, "Fuzz your own parser: the structure-aware mutator") */
#define POST_DEFAULT 1

#if defined(__GNUC__)
#define AFL_MUT_API __attribute__((visibility("default")))
#else
#define AFL_MUT_API
#endif

typedef struct {
  ornic_mut *m;
  size_t skip;
  int log, records, post, only;
  uint32_t count;
  uint64_t calls; /* records mode: every 8th call crosses over with add_buf */
  uint8_t out[AFL_MUT_OUT_MAX];
  uint8_t fixed[AFL_MUT_OUT_MAX]; /* post_process's output */
  char desc[64];
  char last[64]; /* the last output's change: post_process's repair logs over the mutator's */
} afl_mut;

AFL_MUT_API void *afl_custom_init(void *afl, unsigned int seed);
AFL_MUT_API size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
                                   uint8_t *add_buf, size_t add_buf_size, size_t max_size);
AFL_MUT_API const char *afl_custom_describe(void *data, size_t max_description_len);
AFL_MUT_API size_t afl_custom_post_process(void *data, uint8_t *buf, size_t buf_size,
                                           uint8_t **out_buf);
AFL_MUT_API uint32_t afl_custom_fuzz_count(void *data, const uint8_t *buf, size_t buf_size);
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
  double count = env_double("ORNIC_MUT_COUNT", AFL_MUT_COUNT);
  /* Out of range (or not a number): 0 steps, which ornic_mut_new refuses. */
  cfg.max_steps = steps >= 1 && steps <= 64 ? (unsigned)steps : 0;
  afl_mut *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->m = skip >= 0 && skip <= 65536 && count >= 0 && count <= 65536 ? ornic_mut_new(&cfg) : NULL;
  if (!a->m) {
    fprintf(stderr,
            "ornic mutator: bad ORNIC_MUT_* setting (rates in [0,1], steps 1..64, "
            "skip 0..65536, count 0..65536)\n");
    free(a);
    return NULL;
  }
  a->skip = (size_t)skip;
  a->count = (uint32_t)count;
  a->log = getenv("ORNIC_MUT_LOG") != NULL;
  a->records = env_double("ORNIC_MUT_RECORDS", 0) == 1;
  a->post = env_double("ORNIC_MUT_POST", POST_DEFAULT) != 0;
  a->only = getenv("AFL_CUSTOM_MUTATOR_ONLY") != NULL;
  return a;
}

/* What the output changed, for afl_custom_describe (AFL++ asks after running
 * it, when post_process has logged its repair) and ORNIC_MUT_LOG. */
static void keep_last(afl_mut *a) {
  const char *last = ornic_mut_last(a->m);
  if (a->log) fprintf(stderr, "ornic mutator: %s\n", last);
  snprintf(a->last, sizeof a->last, "%s", last);
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
                       uint8_t *add_buf, size_t add_buf_size, size_t max_size) {
  afl_mut *a = data;
  size_t cap = max_size < AFL_MUT_OUT_MAX ? max_size : AFL_MUT_OUT_MAX;
  if (a->records) {
    size_t n = add_buf && (++a->calls & 7) == 0
                   ? ornic_mut_crossover_records(a->m, buf, buf_size, add_buf, add_buf_size,
                                                 a->skip, a->out, cap)
                   : ornic_mut_mutate_records(a->m, buf, buf_size, a->skip, a->out, cap);
    keep_last(a);
    *out_buf = a->out;
    return n;
  }
  size_t skip = a->skip < buf_size ? a->skip : buf_size;
  if (skip > cap) skip = cap;
  memcpy(a->out, buf, skip);
  size_t n = ornic_mut_mutate(a->m, buf + skip, buf_size - skip, a->out + skip, cap - skip);
  keep_last(a);
  *out_buf = a->out;
  return n ? skip + n : 0;
}

/* AFL++ names queue entries after this: the first change, as a file name. */
const char *afl_custom_describe(void *data, size_t max_description_len) {
  afl_mut *a = data;
  const char *last = a->last;
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

/* AFL++ hands every input to this before it runs the target (havoc's and
 * splicing's too, docs/custom_mutators.md "post_process"): the frames'
 * lengths, checksums and iCRC made right again, so that the target's first
 * checks pass (ornic_mut_fix). The input is copied, never changed where it
 * lies: AFL++ keeps the unrepaired bytes in its queue and repairs them again,
 * the same way, each time it runs them. */
size_t afl_custom_post_process(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf) {
  afl_mut *a = data;
  *out_buf = buf;
  if (!a->post || buf_size > AFL_MUT_OUT_MAX || buf_size <= a->skip) return buf_size;
  memcpy(a->fixed, buf, buf_size);
  if (a->records)
    (void)ornic_mut_fix_records(a->m, a->fixed, buf_size, a->skip);
  else
    (void)ornic_mut_fix(a->m, a->fixed + a->skip, buf_size - a->skip);
  *out_buf = a->fixed;
  return buf_size;
}

/* How many outputs the custom stage makes of a queue entry: none when the
 * mutator could only make byte mutations of it (a frame that does not
 * decode, records without one whole record), since havoc makes those
 * already; ORNIC_MUT_COUNT otherwise, and always under
 * AFL_CUSTOM_MUTATOR_ONLY, where there is no havoc. */
uint32_t afl_custom_fuzz_count(void *data, const uint8_t *buf, size_t buf_size) {
  afl_mut *a = data;
  if (a->only) return a->count;
  if (buf_size <= a->skip) return 0;
  if (a->records) return ornic_mut_records_count(buf, buf_size, a->skip, NULL) ? a->count : 0;
  return ornic_mut_decodes(buf + a->skip, buf_size - a->skip) ? a->count : 0;
}
