/* SPDX-License-Identifier: MIT */
/* Replay of saved inputs: what CI runs over the corpus and the regression
 * files, and how a crash found by any fuzzer is reproduced without it. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_driver.h"

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s:%d: fuzz oracle failed: %s: ", file, line, cond);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  abort();
}

/* 0, or -1 with a message on stderr. */
static int run_file(const char *path, unsigned long *count) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fprintf(stderr, "fuzz replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
    len += n;
    if (len == cap) {
      uint8_t *bigger = realloc(buf, cap *= 2);
      if (!bigger) free(buf);
      buf = bigger;
    }
  }
  int err = ferror(fp);
  fclose(fp);
  if (!buf || err) {
    fprintf(stderr, "fuzz replay: %s: %s\n", path, buf ? "read error" : "out of memory");
    free(buf);
    return -1;
  }
  /* Exactly len bytes, so the sanitizer's redzone starts right after the input. */
  uint8_t *exact = malloc(len ? len : 1);
  if (!exact) {
    free(buf);
    return -1;
  }
  memcpy(exact, buf, len);
  free(buf);
  fprintf(stderr, "fuzz replay: %s (%zu bytes)\n", path, len);
  LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  (*count)++;
  return 0;
}

static int skip_name(const struct dirent *e) { return e->d_name[0] != '.'; }

static int run_dir(const char *dir, unsigned long *count) {
  struct dirent **names;
  int n = scandir(dir, &names, skip_name, alphasort);
  if (n < 0) {
    fprintf(stderr, "fuzz replay: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < n; i++) {
    size_t plen = strlen(dir) + strlen(names[i]->d_name) + 2;
    char *path = malloc(plen);
    struct stat st;
    if (path) {
      snprintf(path, plen, "%s/%s", dir, names[i]->d_name);
      if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && run_file(path, count) < 0) rc = -1;
    } else {
      rc = -1;
    }
    free(path);
    free(names[i]);
  }
  free(names);
  return rc;
}

int fuzz_replay_main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  unsigned long count = 0;
  int rc = 0, paths = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-') continue;
    struct stat st;
    paths++;
    if (stat(argv[i], &st) < 0) {
      fprintf(stderr, "fuzz replay: %s: %s\n", argv[i], strerror(errno));
      rc = -1;
    } else if (S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) < 0 : run_file(argv[i], &count) < 0) {
      rc = -1;
    }
  }
  if (!paths) {
    fprintf(stderr, "usage: %s FILE|DIR...   (replays each input once)\n", argv[0]);
    return 2;
  }
  fprintf(stderr, "fuzz replay: %lu inputs replayed%s\n", count, rc ? ", some unreadable" : "");
  return rc ? 1 : 0;
}
