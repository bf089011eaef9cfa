/* SPDX-License-Identifier: MIT */
/* The byte stream under the capture reader: a file or stdin, plain or
 * gzip-compressed, handed to libpcap as a FILE*. */
#ifndef DEC_INPUT_H
#define DEC_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct dec_source dec_source;

typedef struct {
  FILE *fp;         /* give to libpcap, which fclose()s it */
  const char *name; /* for messages: the path, or "<stdin>" */
  bool gzip;        /* fp yields the decompressed bytes */
  bool seekable;    /* fp is the plain file itself */
  uint64_t start;   /* file position the capture starts at (stdin may be mid-file) */
  dec_source *src;  /* stream state behind fp when not a plain file; owned by fp */
  char *iobuf;      /* fp's stdio buffer: free with dec_input_free_buffer after fclose */
  uint8_t magic[4]; /* first bytes of a plain file */
  size_t magic_len;
} dec_input;

/* Opens `path` ("-" or NULL: stdin). On failure returns -1 with a message in
 * err. Reads ahead only a few bytes (gzip is inflated as libpcap reads). */
int dec_input_open(dec_input *in, const char *path, char *err, size_t errlen);

/* Frees the stdio buffer; call after fp was closed (by pcap_close). */
void dec_input_free_buffer(dec_input *in);

/* The first (up to 4) bytes of the capture after any decompression; valid
 * once libpcap has read the file header. Returns how many there are. */
size_t dec_input_magic(const dec_input *in, uint8_t magic[4]);

/* Byte offset in the (decompressed) capture of the next byte libpcap will
 * read, or -1 if unknown. */
int64_t dec_input_tell(const dec_input *in);

/* A decompression or read error the stream hit, or NULL. Valid until fp is
 * closed. The stream yields every byte it decompressed before the error. */
const char *dec_input_error(const dec_input *in);

/* When the error is a gzip trailer check, "gzip CRC mismatch" or "gzip
 * length mismatch" (the member's data was all yielded, it is the data that
 * may be wrong); else NULL. */
const char *dec_input_trailer_error(const dec_input *in);

/* Bytes the stream behind fp yielded so far (decompressed); 0 for a plain
 * file, which has no such stream. */
uint64_t dec_input_yielded(const dec_input *in);

#endif
