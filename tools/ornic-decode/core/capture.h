/* SPDX-License-Identifier: MIT */
/* Capture files: pcap (micro- or nanosecond) and pcapng, plain or gzip,
 * from a path or stdin, through the tool's own reader (reader.h) or, for
 * what that does not take on, libpcap; packets with nanosecond timestamps;
 * and, when a file turns out damaged, where. Both readers give the same
 * packets and the same damage reports. ORNIC_DECODE_READER=libpcap in the
 * environment makes libpcap read everything (a debugging aid, and how the
 * tests compare the two). */
#ifndef DEC_CAPTURE_H
#define DEC_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <pcap/pcap.h>

#include "input.h"
#include "reader.h"

typedef struct {
  dec_input in;
  pcap_t *pcap;  /* libpcap reads the file (or the interface), or NULL */
  dec_reader rd; /* else the tool's reader */
  bool own;      /* rd is the reader */
  int dlt;       /* the current packet's link type (pcapng: of its interface) */
  bool pcapng;
  unsigned rec_hdr_len; /* pcap: 16, or 24 in the "modified" (Kuznetzov) format */
  uint32_t snapshot;    /* libpcap's snaplen: a record longer than it is handed over cut to it */
  uint64_t records;     /* packets read so far */
  int64_t next_off;     /* byte offset of the next record (-1 if unknown) */
  /* A live capture (live.h): in.name is the interface, in.fp is NULL. */
  bool live;
  bool draining;           /* stop seen: reading what the kernel buffered before it */
  bool stopped;            /* nothing more to read */
  bool usec;               /* the interface gives microseconds (hdr holds nanoseconds) */
  bool got;                /* the last read delivered a packet */
  struct timespec stop_at; /* when the stop was seen; packets stamped later arrived after it */
  struct pcap_pkthdr hdr;  /* live, own reader: the current packet's header, timestamp in ns */
  uint8_t *live_buf;       /* the current packet's bytes */
  size_t live_buf_len;
} dec_capture;

/* Opens and checks the link type. Returns 0, or -1 with a message in err. */
int dec_capture_open(dec_capture *c, const char *path, char *err, size_t errlen);

/* 1: a packet (*hdr, *data valid until the next call; c->dlt is its link
 * type); 0: end of file (live: stopped); -1: the file is damaged, or the
 * live capture failed (see dec_capture_damage). */
int dec_capture_next(dec_capture *c, const struct pcap_pkthdr **hdr, const uint8_t **data);

/* Describes the damage after dec_capture_next returned -1: packet number,
 * byte offset and libpcap's (and the decompressor's) explanation. */
void dec_capture_damage(const dec_capture *c, char *msg, size_t len);

void dec_capture_close(dec_capture *c);

#endif
