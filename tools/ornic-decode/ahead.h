/* SPDX-License-Identifier: MIT */
/* --threads: a reader thread that reads the records of a capture, copies
 * them out of the reader's buffer, and runs the codec (the iCRC too, unless
 * cfg->later_crc leaves it to the main thread) on them, a batch of packets at a time into a ring of preallocated batches;
 * the main thread takes the packets back in capture order and does all the
 * rest (analysis, statistics, output) as the one-thread loop does, so the
 * output is the same byte for byte. The conversation engine is fed in
 * capture order by one thread: its verdicts cannot depend on the split. */
#ifndef DEC_AHEAD_H
#define DEC_AHEAD_H

#include <stdbool.h>
#include <stdint.h>

#include <pcap/pcap.h>

#include "merge.h"
#include "packet.h"

typedef struct dec_ahead dec_ahead;

/* One record as the one-thread loop has it after dec_packet_decode: the
 * packet (its views point into data, which lives as long as the record),
 * the record header, its bytes and its capture's link type. */
typedef struct {
  dec_packet pk;
  struct pcap_pkthdr h;
  const uint8_t *data;
  int dlt;
} dec_ahead_rec;

/* Starts the reader thread on m (which it alone touches until
 * dec_ahead_finish). cfg: the decode settings but the per-record dlt and
 * pcapng. NULL when memory or a thread could not be had: then nothing was
 * read, and the caller reads with one thread. */
dec_ahead *dec_ahead_start(dec_merge *m, const dec_decode_cfg *cfg);

/* The next record in capture order, valid until the next call; NULL when
 * the reader has stopped (end, damage or a stop signal) and everything it
 * read was handed out. */
dec_ahead_rec *dec_ahead_next(dec_ahead *a);

/* Stops the reader (if it still runs), waits for it and frees everything.
 * Returns what dec_merge_next last returned as the one-thread loop sees
 * it: 0 (end, or a stop signal), -1 (m->caps[m->cur] is damaged there);
 * or -2: out of memory for a record's bytes (the reading stopped there). */
int dec_ahead_finish(dec_ahead *a);

/* Whether the reading may go to a thread: the captures (paths; NULL or
 * "-": stdin) are regular files
 * (a pipe's packets are decoded as they come, and a batch would hold them
 * back), the output is not line-buffered (the same), and no -f on the file
 * (it selects before the decoding). */
bool dec_ahead_applies(const char *const *paths, int n, bool line_buffered, bool filter);

#endif
