/* SPDX-License-Identifier: MIT */
/* The tool's own capture reader: pcap (micro- and nanosecond, either byte
 * order, Kuznetzov's modified records) and pcapng (sections, interfaces
 * with their own link types, snaplens, tsresol and tsoffset; EPB, SPB and
 * the obsolete PB; other blocks skipped), plain or gzip, from a file or a
 * pipe. It reads into page-aligned buffers in large chunks and hands out
 * records as views into them: no copy per packet, no allocation but when an
 * interface is described or a block is larger than any before.
 *
 * Its one contract besides speed: what libpcap 1.10 gives for the same
 * bytes. The same records, lengths and nanosecond timestamps; on damage,
 * libpcap's words for it (sf-pcap.c, sf-pcapng.c), at the record libpcap
 * fails on. Whatever it does not take on (another format or version, a link
 * type the decoder lacks, a header libpcap would refuse) it leaves to
 * libpcap before the first packet: dec_reader_open says so, and every byte
 * it has read is still in its buffer for libpcap to be given again. */
#ifndef DEC_READER_H
#define DEC_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "input.h"

/* One packet record: a view into the reader's buffer, valid until the next
 * dec_reader_next. */
typedef struct {
  const uint8_t *data;
  uint32_t caplen, len;
  int64_t sec; /* pcap: the record's unsigned 32-bit seconds; pcapng: 64-bit */
  uint32_t nsec;
  int dlt; /* the record's interface's DLT_ value; -1: a link type the decoder lacks */
} dec_rec;

typedef struct dec_rd_iface dec_rd_iface;

typedef struct {
  dec_input *in;
  uint8_t *buf; /* page-aligned */
  size_t cap;
  size_t pos, end; /* unread bytes: buf[pos, end) */
  int64_t base;    /* stream offset of buf[0] */
  bool keep;       /* opening: nothing read may be dropped (libpcap may need it) */
  bool eof, failed;
  int read_errno;
  bool pcapng;
  bool swapped;     /* the file's (pcapng: the section's) byte order is not the host's */
  bool mixed_order; /* pcapng: a later section has another byte order (libpcap stops there) */
  bool nsec_ts;     /* pcap: nanosecond timestamps */
  size_t rec_hdr;   /* pcap: 16, or 24 for Kuznetzov's records */
  int dlt;          /* pcap: the file's DLT_; pcapng: the first interface's */
  uint32_t snapshot;
  uint32_t limit; /* pcap: the largest caplen read as it is (snapshot, libpcap's maximum) */
  /* pcapng: the section's interfaces */
  dec_rd_iface *ifaces;
  uint32_t nifaces, ifaces_cap;
  int64_t rec_off; /* pcap: the record being read; pcapng: the end of the last packet block */
  char err[256];
} dec_reader;

enum { DEC_READER_OURS = 1, DEC_READER_LIBPCAP = 0 };

/* Reads the file header (pcapng: up to the first interface). Returns
 * DEC_READER_OURS, or DEC_READER_LIBPCAP when libpcap should read the
 * capture: then dec_reader_replay gives the bytes taken from `in`. */
int dec_reader_open(dec_reader *r, dec_input *in);

/* What dec_reader_open read before it gave up (the capture's first bytes). */
const uint8_t *dec_reader_replay(const dec_reader *r, size_t *n);

int dec_reader_next_slow(dec_reader *r, dec_rec *rec);

/* 1: a packet; 0: end of the capture; -1: damaged (r->err says how, as
 * libpcap would, and r->rec_off where). Inline, the common case: a classic
 * pcap record in the host's byte order, whole in the buffer; everything
 * else (and every check that can fail) is dec_reader_next_slow's. */
static inline int dec_reader_next(dec_reader *r, dec_rec *rec) {
  size_t h = r->rec_hdr, have = r->end - r->pos;
  if (!r->pcapng && !r->swapped && have >= h) {
    const uint8_t *p = r->buf + r->pos;
    uint32_t w[4]; /* seconds, fraction, caplen, len */
    memcpy(w, p, sizeof w);
    if (w[2] <= r->limit && have - h >= w[2]) {
      rec->sec = w[0];
      rec->nsec = r->nsec_ts ? w[1] : w[1] * 1000u; /* wraps as libpcap's scaling does */
      rec->caplen = w[2];
      rec->len = w[3];
      rec->data = p + h;
      rec->dlt = r->dlt;
      r->pos += h + w[2];
      return 1;
    }
  }
  return dec_reader_next_slow(r, rec);
}

void dec_reader_free(dec_reader *r);

#endif
