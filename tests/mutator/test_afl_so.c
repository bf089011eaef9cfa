/* SPDX-License-Identifier: MIT */
/* libornic_afl_mutator.so as afl-fuzz uses it (AFL++ docs/custom_mutators.md):
 * dlopen, dlsym of afl_custom_init/fuzz/describe/deinit, then calls with
 * ORNIC_MUT_SKIP=1 on a seed of fuzz_frame (mode byte, then an Ethernet
 * frame): the mode byte is kept and the frame stays consistent per
 * frame_oracle.h.   test_afl_so LIB.so SEED_FILE */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_oracle.h"

typedef void *(*init_fn)(void *, unsigned int);
typedef size_t (*fuzz_fn)(void *, uint8_t *, size_t, uint8_t **, uint8_t *, size_t, size_t);
typedef const char *(*describe_fn)(void *, size_t);
typedef void (*deinit_fn)(void *);

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  static uint8_t seed[70000];
  FILE *fp = fopen(argv[2], "rb");
  if (!fp) return 2;
  size_t len = fread(seed, 1, sizeof seed, fp);
  fclose(fp);
  if (len < 2 || oracle_check(seed + 1, len - 1) != ORACLE_OK) {
    fprintf(stderr, "FAIL: %s is not a consistent fuzz_frame Ethernet seed\n", argv[2]);
    return 1;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
    return 1;
  }
  init_fn init;
  fuzz_fn fuzz;
  describe_fn describe;
  deinit_fn deinit;
  /* POSIX dlsym returns void *; the cast through memcpy avoids the
   * object-to-function pointer conversion ISO C leaves undefined. */
  void *s;
  s = dlsym(h, "afl_custom_init"), memcpy(&init, &s, sizeof s);
  s = dlsym(h, "afl_custom_fuzz"), memcpy(&fuzz, &s, sizeof s);
  s = dlsym(h, "afl_custom_describe"), memcpy(&describe, &s, sizeof s);
  s = dlsym(h, "afl_custom_deinit"), memcpy(&deinit, &s, sizeof s);
  if (!init || !fuzz || !describe || !deinit) {
    fprintf(stderr, "FAIL: an afl_custom_* symbol is missing\n");
    return 1;
  }
  if (dlsym(h, "ornic_frame_decode") || dlsym(h, "mut_log")) {
    fprintf(stderr, "FAIL: the library exports more than AFL++'s entry points\n");
    return 1;
  }
  setenv("ORNIC_MUT_SKIP", "1", 1);
  void *d = init(NULL, 1234);
  if (!d) {
    fprintf(stderr, "FAIL: afl_custom_init returned NULL\n");
    return 1;
  }
  int bad = 0, changed = 0;
  for (int i = 0; i < 1000; i++) {
    uint8_t *o = NULL;
    size_t n = fuzz(d, seed, len, &o, NULL, 0, 1u << 20);
    if (!o || n < 2 || o[0] != seed[0] || oracle_check(o + 1, n - 1) != ORACLE_OK) bad++;
    changed += n != len || memcmp(o, seed, n) != 0;
    const char *desc = describe(d, 32);
    if (!desc || strlen(desc) >= 32 || strncmp(desc, "ornic-", 6) != 0) {
      fprintf(stderr, "FAIL: describe gave \"%s\"\n", desc ? desc : "(null)");
      return 1;
    }
  }
  uint8_t *o = NULL;
  size_t small = fuzz(d, seed, len, &o, NULL, 0, 10); /* max_size below the frame */
  deinit(d);
  dlclose(h);
  printf("1000 outputs: %d inconsistent or without the mode byte, %d changed; max_size 10 -> %zu\n",
         bad, changed, small);
  if (bad > 10 || changed < 950 || small > 10) {
    fprintf(stderr, "FAIL\n");
    return 1;
  }
  return 0;
}
