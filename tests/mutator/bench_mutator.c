/* SPDX-License-Identifier: MIT */
/* The mutator's cost per output against a plain byte-flip mutator on the same
 * inputs: CPU time (CLOCK_PROCESS_CPUTIME_ID) of ROUNDS interleaved rounds of
 * N outputs each, the median reported. Not a test: timings never decide a
 * pass (tests/README.md).   bench_mutator CORPUS_DIR [ROUNDS N] */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ornic_mutator.h"

#define MAX_FRAMES 512

static uint8_t *frames[MAX_FRAMES];
static size_t lens[MAX_FRAMES], nframes;
static uint8_t out[70000];

static void load(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) && nframes < MAX_FRAMES) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *fp = e->d_name[0] != '.' ? fopen(path, "rb") : NULL;
    if (!fp) continue;
    static uint8_t buf[70000];
    size_t len = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    if (len < 2 || buf[0] % 6) continue;
    frames[nframes] = malloc(len - 1);
    memcpy(frames[nframes], buf + 1, len - 1);
    lens[nframes++] = len - 1;
  }
  if (d) closedir(d);
}

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile size_t sink;

/* The baseline: copy, then flip 1..4 random bits (an xorshift64 generator). */
static double run_flip(size_t n) {
  uint64_t s = 88172645463325252ull;
  double t0 = cpu_now();
  for (size_t i = 0; i < n; i++) {
    size_t k = i % nframes, len = lens[k];
    memcpy(out, frames[k], len);
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    for (unsigned j = 0; j <= (s & 3); j++)
      out[(s >> (8 + 16 * j)) % len] ^= (uint8_t)(1u << (j + (s >> 60) % 5));
    sink += out[0];
  }
  return (cpu_now() - t0) / (double)n;
}

static double run_mut(ornic_mut *m, size_t n) {
  double t0 = cpu_now();
  for (size_t i = 0; i < n; i++)
    sink += ornic_mut_mutate(m, frames[i % nframes], lens[i % nframes], out, sizeof out);
  return (cpu_now() - t0) / (double)n;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int rounds = argc > 2 ? atoi(argv[2]) : 7;
  size_t n = argc > 3 ? (size_t)atol(argv[3]) : 200000;
  if (rounds < 1 || rounds > 99 || n == 0) return 2;
  load(argv[1]);
  if (!nframes) return 1;
  ornic_mut_cfg c;
  ornic_mut_cfg_default(&c);
  c.seed = 1;
  ornic_mut *m = ornic_mut_new(&c);
  double flip[99], mut[99];
  for (int r = 0; r < rounds; r++) {
    flip[r] = run_flip(n);
    mut[r] = run_mut(m, n);
  }
  qsort(flip, (size_t)rounds, sizeof flip[0], cmp);
  qsort(mut, (size_t)rounds, sizeof mut[0], cmp);
  double f = flip[rounds / 2], u = mut[rounds / 2];
  printf("%zu seed frames, %d interleaved rounds of %zu outputs, median CPU time per output:\n",
         nframes, rounds, n);
  printf("  byte-flip baseline  %8.1f ns  (%.2f M outputs/s)\n", f * 1e9, 1e-6 / f);
  printf("  ornic mutator       %8.1f ns  (%.2f M outputs/s), %.1fx the baseline\n", u * 1e9,
         1e-6 / u, u / f);
  ornic_mut_free(m);
  return 0;
}
