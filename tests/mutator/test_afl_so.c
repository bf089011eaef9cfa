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
typedef size_t (*post_fn)(void *, uint8_t *, size_t, uint8_t **);
typedef uint32_t (*count_fn)(void *, const uint8_t *, size_t);

static post_fn post;
static count_fn count;

/* afl_custom_post_process and afl_custom_fuzz_count with ORNIC_MUT_SKIP=1:
 * a damaged seed (IPv4 total length and a payload byte changed) comes back
 * consistent, garbage as it was; the seed gets a count, garbage 0. */
static int check_post_count(void *d, const uint8_t *seed, size_t len) {
  static uint8_t dmg[70000];
  static const uint8_t garbage[24] = {0, 1, 2, 3};
  memcpy(dmg, seed, len);
  dmg[1 + 14 + 3] ^= 0x04;
  dmg[len - 6] ^= 0x5a;
  uint8_t *o = NULL;
  size_t n = post(d, dmg, len, &o);
  int fixed = o && n == len && o[0] == seed[0] && oracle_check(o + 1, n - 1) == ORACLE_OK &&
              oracle_check(dmg + 1, len - 1) != ORACLE_OK; /* the input itself untouched */
  n = post(d, (uint8_t *)garbage, sizeof garbage, &o);
  int alone = o && n == sizeof garbage && memcmp(o, garbage, n) == 0;
  uint32_t cs = count(d, seed, len), cg = count(d, garbage, sizeof garbage);
  printf("post_process: damaged seed %s, garbage %s; fuzz_count: seed %u, garbage %u\n",
         fixed ? "consistent again" : "NOT FIXED", alone ? "unchanged" : "CHANGED", cs, cg);
  return fixed && alone && cs > 0 && cg == 0;
}

/* ORNIC_MUT_RECORDS=1, ORNIC_MUT_SKIP=4: a prefix, two copies of the seed's
 * frame and a pause; every output keeps the prefix, parses as records to its
 * end and, post-processed, has every frame record consistent. */
static int check_records(init_fn init, fuzz_fn fuzz, deinit_fn deinit, const uint8_t *frame,
                         size_t flen) {
  static uint8_t in[140000];
  size_t n = 0;
  memcpy(in, "\x01\x02\x03\x04", 4);
  n = 4;
  for (int k = 0; k < 3; k++) {
    size_t l = k == 2 ? 3 : flen;
    in[n++] = (uint8_t)(l >> 8);
    in[n++] = (uint8_t)l;
    memcpy(in + n, k == 2 ? (const uint8_t *)"\x00\x10\x00" : frame, l);
    n += l;
  }
  setenv("ORNIC_MUT_RECORDS", "1", 1);
  setenv("ORNIC_MUT_SKIP", "4", 1);
  void *d = init(NULL, 99);
  if (!d) return 0;
  int bad = 0;
  for (int i = 0; i < 500; i++) {
    uint8_t *o = NULL, *p = NULL;
    size_t on = fuzz(d, in, n, &o, in, n, 1u << 20);
    size_t pn = post(d, o, on, &p);
    int ok = on >= 4 && memcmp(o, in, 4) == 0 && pn == on;
    size_t at = 4;
    while (ok && at + 2 <= pn) {
      size_t l = (size_t)p[at] << 8 | p[at + 1];
      if (at + 2 + l > pn) break;
      if (l >= 14 && oracle_check(p + at + 2, l) != ORACLE_OK) ok = 0;
      at += 2 + l;
    }
    bad += !ok || at != pn;
  }
  deinit(d);
  unsetenv("ORNIC_MUT_RECORDS");
  printf("records: 500 outputs, %d without the prefix, not records to the end or inconsistent\n",
         bad);
  return bad == 0;
}

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
  s = dlsym(h, "afl_custom_post_process"), memcpy(&post, &s, sizeof s);
  s = dlsym(h, "afl_custom_fuzz_count"), memcpy(&count, &s, sizeof s);
  if (!init || !fuzz || !describe || !deinit || !post || !count) {
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
    uint8_t *p = NULL; /* AFL++ runs the output through post_process before describing it */
    (void)post(d, o, n, &p);
    const char *desc = describe(d, 32);
    if (!desc || strlen(desc) >= 32 || strncmp(desc, "ornic-", 6) != 0 ||
        strncmp(desc, "ornic-fixed", 11) == 0) { /* the mutation, not the repair */
      fprintf(stderr, "FAIL: describe gave \"%s\"\n", desc ? desc : "(null)");
      return 1;
    }
  }
  uint8_t *o = NULL;
  size_t small = fuzz(d, seed, len, &o, NULL, 0, 10); /* max_size below the frame */
  int post_ok = check_post_count(d, seed, len);
  deinit(d);
  setenv("ORNIC_MUT_POST", "0", 1); /* off: the input handed on as it is */
  d = init(NULL, 1);
  uint8_t *po = NULL;
  post_ok &= d && post(d, seed, len, &po) == len && po == seed;
  if (d) deinit(d);
  unsetenv("ORNIC_MUT_POST");
  post_ok &= check_records(init, fuzz, deinit, seed + 1, len - 1);
  dlclose(h);
  printf("1000 outputs: %d inconsistent or without the mode byte, %d changed; max_size 10 -> %zu\n",
         bad, changed, small);
  if (bad > 10 || changed < 950 || small > 10 || !post_ok) {
    fprintf(stderr, "FAIL\n");
    return 1;
  }
  return 0;
}
