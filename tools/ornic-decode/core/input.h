/* SPDX-License-Identifier: MIT */
/* The byte stream under the capture readers: a file or stdin, plain or
 * gzip-compressed. The tool's own reader (reader.h) pulls bytes with
 * dec_input_read into its buffers; libpcap gets a FILE* (dec_input_fopen)
 * that starts at byte 0 of the capture whatever was read before. */
#ifndef DEC_INPUT_H
#define DEC_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct dec_source dec_source;

typedef struct {
  FILE *fp;         /* for libpcap once dec_input_fopen made it; libpcap fclose()s it */
  const char *name; /* for messages: the path, or "<stdin>" */
  bool gzip;        /* the bytes are the decompressed stream */
  bool seekable;    /* fp is the plain file itself (libpcap may ftell and reopen it) */
  uint64_t start;   /* file position the capture starts at (stdin may be mid-file) */
  dec_source *src;  /* stream state; owned by fp once there is one */
  char *iobuf;      /* fp's stdio buffer: free with dec_input_free_buffer after fclose */
} dec_input;

/* Opens `path` ("-" or NULL: stdin). On failure returns -1 with a message in
 * err. Reads ahead only a few bytes, to tell gzip by its magic. */
int dec_input_open(dec_input *in, const char *path, char *err, size_t errlen);

/* Up to n bytes of the (decompressed) capture into buf: the count, 0 at the
 * end, or -1 on a read or decompression error (dec_input_error says which).
 * Every byte decompressed before an error is returned before the -1. */
ssize_t dec_input_read(dec_input *in, uint8_t *buf, size_t n);

/* Makes in->fp for libpcap, reading from byte 0 of the capture: the `n`
 * bytes dec_input_read returned so far (`replay`, all of them) and then the
 * rest. A plain regular file is rewound and read directly (seekable). */
int dec_input_fopen(dec_input *in, const uint8_t *replay, size_t n, char *err, size_t errlen);

/* Closes a stream that no fp owns (the tool's reader read it all). */
void dec_input_close(dec_input *in);

/* Frees the stdio buffer; call after fp was closed (by pcap_close). */
void dec_input_free_buffer(dec_input *in);

/* The first (up to 4) bytes of the capture after any decompression, once
 * they were read. Returns how many there are. */
size_t dec_input_magic(const dec_input *in, uint8_t magic[4]);

/* Byte offset in the (decompressed) capture of the next byte libpcap will
 * read, or -1 if unknown. */
int64_t dec_input_tell(const dec_input *in);

/* A decompression or read error the stream hit, or NULL. Valid until the
 * stream is closed. */
const char *dec_input_error(const dec_input *in);

/* When the error is a gzip trailer check, "gzip CRC mismatch" or "gzip
 * length mismatch" (the member's data was all yielded, it is the data that
 * may be wrong); else NULL. */
const char *dec_input_trailer_error(const dec_input *in);

/* Bytes of the (decompressed) capture the stream produced so far. */
uint64_t dec_input_yielded(const dec_input *in);

#endif
