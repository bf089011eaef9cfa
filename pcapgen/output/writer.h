/* SPDX-License-Identifier: MIT */
/* Capture files: pcap (the bytes libpcap's dump API writes on a little-endian
 * host), pcapng (which libpcap 1.10 cannot write), either gzip-compressed.
 * Each record is written in place into the background writer's buffer
 * (bg_writer.h), so a frame is copied once on its way to the file, not three
 * times as through libpcap, stdio and a copy into the writer's buffer. All
 * formats use nanosecond timestamps. The file is built under a
 * hidden temporary name in the target directory and renamed only by
 * writer_finish, so a failed run never leaves a complete-looking capture
 * (output_file.h: symbolic links, read-only directories, stale temporaries). */
#ifndef PCAPGEN_WRITER_H
#define PCAPGEN_WRITER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file format (--format); FMT_AUTO: pcapng when the name ends in .pcapng
 * or .pcapng.gz, else pcap. */
typedef enum { FMT_AUTO = 0, FMT_PCAP = 1, FMT_PCAPNG = 2 } out_format;

typedef struct writer writer;

/* Opens `path` ("-" = stdout; a device or FIFO is written in place).
 * NULL with a message in err on failure. */
writer *writer_open(const char *path, out_format fmt, uint32_t snaplen, int gz_level, char *err,
                    size_t errlen);

/* From now on a write blocked on a full pipe or FIFO gives up (EINTR) once
 * *stop is non-zero (a signal handler sets it; SA_RESTART must be off). */
void writer_watch(writer *w, const volatile sig_atomic_t *stop);

/* --max-output: the file may hold at most `bytes` (before compression; 0: no
 * limit). A frame that would pass it fails the run (writer_put's -1; the
 * temporary file is then removed by writer_abort), so a capture is whole or
 * absent, never cut at an arbitrary frame. */
void writer_limit(writer *w, uint64_t bytes);

/* Appends one frame (cut to the snaplen). 0, or -1 (see writer_error). */
int writer_put(writer *w, uint64_t ts_ns, const uint8_t *frame, uint32_t len);

/* Text of the first error, "" when none. */
const char *writer_error(const writer *w);

/* Bytes handed to the file so far (before compression). */
uint64_t writer_bytes(const writer *w);

/* Flushes, closes and renames into place; frees w. 0, or -1 with a message in
 * err (the temporary file is removed). */
int writer_finish(writer *w, char *err, size_t errlen);

/* Closes and removes the temporary file; frees w. */
void writer_abort(writer *w);

/* Whether a path's capture is gzip-compressed (its name ends in .gz). */
bool writer_is_gz(const char *path);

#endif
