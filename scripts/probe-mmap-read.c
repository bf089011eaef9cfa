/* SPDX-License-Identifier: MIT */
/* Is mmap a way around read()'s copy out of the page cache on this machine?
 * (docs/PERFORMANCE.md, "Noticed while measuring"; a probe, built by hand:
 *   cc -O2 -o /tmp/probe scripts/probe-mmap-read.c
 *   for m in 0 1 2; do /tmp/probe FILE $m; done
 * mode 0: mmap with MAP_POPULATE; 1: mmap with MADV_SEQUENTIAL; 2: read()
 * into a page-aligned 128 KiB buffer. Each touches one byte per 64 and
 * prints its own user and system CPU time. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned long touch(const unsigned char *p, size_t n) {
  unsigned long sum = 0;
  for (size_t i = 0; i < n; i += 64) sum += p[i];
  return sum;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: probe FILE 0|1|2\n");
    return 2;
  }
  int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0) {
    perror(argv[1]);
    return 1;
  }
  int mode = atoi(argv[2]);
  size_t size = (size_t)st.st_size;
  unsigned long sum = 0;
  if (mode == 0 || mode == 1) {
    unsigned char *p =
        mmap(NULL, size, PROT_READ, MAP_PRIVATE | (mode == 0 ? MAP_POPULATE : 0), fd, 0);
    if (p == MAP_FAILED) {
      perror("mmap");
      return 1;
    }
    if (mode == 1) madvise(p, size, MADV_SEQUENTIAL);
    sum = touch(p, size);
  } else {
    static unsigned char buf[131072] __attribute__((aligned(4096)));
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) sum += touch(buf, (size_t)n);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("mode %d: user %.3f s, system %.3f s (checksum bit %lu)\n", mode,
         (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, sum & 1);
  return 0;
}
