/* SPDX-License-Identifier: MIT */
/* A memory file that holds the current input, for harnesses whose code under
 * test opens a path (ornic-decode's reader): the input is written to it and
 * the program opens /proc/self/fd/N, exactly as it opens a capture file. */
#ifndef ORNIC_FUZZ_MEMFILE_H
#define ORNIC_FUZZ_MEMFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  int fd;
  char path[64]; /* what to open */
} fuzz_memfile;

/* Creates it (named `name` in /proc/self/fd listings); exits on failure. */
void fuzz_memfile_init(fuzz_memfile *m, const char *name);
/* Makes its content exactly data[0 .. size). */
void fuzz_memfile_store(fuzz_memfile *m, const uint8_t *data, size_t size);

#endif
