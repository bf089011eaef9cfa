/* SPDX-License-Identifier: MIT */
/* The seed frames tests/mutator mutates (seed_frames.h). */
#include "seed_frames.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "frame_oracle.h"

int failed;

static int by_name(const struct dirent **a, const struct dirent **b) {
  return strcmp((*a)->d_name, (*b)->d_name);
}

size_t seed_frames_load(const char *dir, uint8_t **frames, size_t *lens, size_t max, size_t max_len,
                        size_t *v6) {
  struct dirent **names;
  size_t n = 0, six = 0;
  int k = scandir(dir, &names, NULL, by_name);
  if (k < 0) {
    perror(dir);
    exit(2);
  }
  for (int i = 0; i < k; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
    FILE *fp = names[i]->d_name[0] != '.' ? fopen(path, "rb") : NULL;
    free(names[i]);
    if (!fp) continue;
    static uint8_t buf[70000];
    size_t len = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    if (len < 2 || buf[0] % 6 != 0 || n == max || len - 1 > max_len) continue;
    if (oracle_check(buf + 1, len - 1) != ORACLE_OK) continue;
    frames[n] = malloc(len - 1);
    memcpy(frames[n], buf + 1, len - 1);
    lens[n++] = len - 1;
    six += buf[1 + 12] == 0x86 || (buf[1 + 12] == 0x81 && buf[1 + 16] == 0x86);
  }
  free(names);
  if (v6) *v6 = six;
  return n;
}

ornic_mut *seed_mut_new(uint64_t seed, double byte_rate, double break_rate) {
  ornic_mut_cfg c;
  ornic_mut_cfg_default(&c);
  c.seed = seed;
  c.byte_rate = byte_rate;
  c.break_rate = break_rate;
  ornic_mut *m = ornic_mut_new(&c);
  if (!m) {
    fprintf(stderr, "FAIL: ornic_mut_new\n");
    exit(1);
  }
  return m;
}
