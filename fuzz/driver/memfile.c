/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "memfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "fuzz_driver.h"

void fuzz_memfile_init(fuzz_memfile *m, const char *name) {
  m->fd = memfd_create(name, 0);
  if (m->fd < 0) {
    perror("memfd_create");
    exit(1);
  }
  snprintf(m->path, sizeof m->path, "/proc/self/fd/%d", m->fd);
}

void fuzz_memfile_store(fuzz_memfile *m, const uint8_t *data, size_t size) {
  size_t done = 0;
  fuzz_check(ftruncate(m->fd, 0) == 0, "ftruncate");
  while (done < size) {
    ssize_t n = pwrite(m->fd, data + done, size - done, (off_t)done);
    fuzz_check(n > 0, "pwrite to the memory file");
    done += (size_t)n;
  }
}
