/* SPDX-License-Identifier: MIT */
/* The decode floor's capture input: a pcap or pcapng file's records, read
 * the way ornic-decode's reader reads them (page-aligned 128 KiB read()s,
 * records handed out where they lie) or through one mmap of the file. */
#ifndef FLOOR_INPUT_H
#define FLOOR_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { FLOOR_READ, FLOOR_MMAP, FLOOR_MMAP_POPULATE } floor_mode;

typedef struct {
  const uint8_t *data;
  uint32_t caplen;
  uint32_t linktype; /* LINKTYPE_ value (1: Ethernet) */
} floor_rec;

typedef struct floor_input floor_input;

/* Opens path in mode. NULL with a message in err on failure. */
floor_input *floor_open(const char *path, floor_mode mode, char *err, size_t errlen);
/* The next record: 1, 0 at the end, -1 on a damaged file (message in err). */
int floor_next(floor_input *in, floor_rec *rec, char *err, size_t errlen);
void floor_close(floor_input *in);

#endif
