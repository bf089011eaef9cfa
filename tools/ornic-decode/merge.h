/* SPDX-License-Identifier: MIT */
/* Several capture files read as one (`ornic-decode a.pcap b.pcap`: a
 * tcpdump -C/-W ring, or two capture points): their packets in timestamp
 * order, a k-way merge as mergecap's: each file's own order is kept, and of
 * equal times the file named last goes first (mergecap 4.0 does so). The
 * time is the one shown (an ERF record's is its ERF header's). Each file is
 * opened and read by dec_capture (its own format, gzip, link types); one
 * record per file is held, a view into that file's reader, until it is the
 * earliest. One file is read straight through, with no look-ahead (a pipe's
 * packets are decoded as they come; a live capture is one input). */
#ifndef DEC_MERGE_H
#define DEC_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"

typedef struct dec_merge_head dec_merge_head;

typedef struct {
  dec_capture *caps; /* one per file, in command-line order */
  dec_merge_head *heads;
  int n;
  int cur;          /* the file the last record (or the last damage) came from */
  uint64_t records; /* records handed out, all files: the merged frame number */
  char *name;       /* the file's name, or "a.pcap + b.pcap" */
} dec_merge;

/* Opens every file (NULL or "-": stdin), in order. 0, or -1 with a message
 * in err and *failed the index of the file that could not be opened (-1:
 * out of memory); then nothing stays open. */
int dec_merge_open(dec_merge *m, const char *const *paths, int n, int *failed, char *err,
                   size_t errlen);

/* The one input of a live capture (dec_live_open fills it). */
int dec_merge_single(dec_merge *m);

/* 1: the earliest record (*hdr and *data valid until the next call; the
 * capture it came from is m->caps[m->cur], whose dlt is its link type);
 * 0: every file has ended; -1: file m->cur is damaged here (its
 * dec_capture_damage says how; the records before were handed out). The
 * caller stops there, as mergecap does; called again, the merge would go on
 * without that file. */
int dec_merge_next_many(dec_merge *m, const struct pcap_pkthdr **hdr, const uint8_t **data);
static inline int dec_merge_next(dec_merge *m, const struct pcap_pkthdr **hdr,
                                 const uint8_t **data) {
  if (m->n != 1) return dec_merge_next_many(m, hdr, data);
  int rc = dec_capture_next(&m->caps[0], hdr, data); /* one file: straight through */
  m->records += rc == 1;
  return rc;
}

void dec_merge_close(dec_merge *m);

#endif
