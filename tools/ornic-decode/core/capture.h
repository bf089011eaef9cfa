/* SPDX-License-Identifier: MIT */
/* Capture files through libpcap: pcap (micro- or nanosecond) and pcapng,
 * plain or gzip, from a path or stdin; packets with nanosecond timestamps;
 * and, when a file turns out damaged, where. */
#ifndef DEC_CAPTURE_H
#define DEC_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <pcap/pcap.h>

#include "input.h"

typedef struct {
  dec_input in;
  pcap_t *pcap;
  int dlt;
  bool pcapng;
  unsigned rec_hdr_len; /* pcap: 16, or 24 in the "modified" (Kuznetzov) format */
  uint64_t records;     /* packets read so far */
  int64_t next_off;     /* byte offset of the next record (-1 if unknown) */
  /* A live capture (live.h): in.name is the interface, in.fp is NULL. */
  bool live;
  bool draining;           /* stop seen: reading what the kernel buffered before it */
  bool stopped;            /* nothing more to read */
  bool usec;               /* the interface gives microseconds (hdr holds nanoseconds) */
  bool got;                /* the last read delivered a packet */
  struct timespec stop_at; /* when the stop was seen; packets stamped later arrived after it */
  struct pcap_pkthdr hdr;  /* the current packet's header, timestamp in nanoseconds */
  uint8_t *live_buf;       /* the current packet's bytes */
  size_t live_buf_len;
} dec_capture;

/* Opens and checks the link type. Returns 0, or -1 with a message in err. */
int dec_capture_open(dec_capture *c, const char *path, char *err, size_t errlen);

/* 1: a packet (*hdr, *data valid until the next call); 0: end of file (live:
 * stopped); -1: the file is damaged, or the live capture failed (see
 * dec_capture_damage). */
int dec_capture_next(dec_capture *c, const struct pcap_pkthdr **hdr, const uint8_t **data);

/* Describes the damage after dec_capture_next returned -1: packet number,
 * byte offset and libpcap's (and the decompressor's) explanation. */
void dec_capture_damage(const dec_capture *c, char *msg, size_t len);

void dec_capture_close(dec_capture *c);

#endif
