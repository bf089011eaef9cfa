/* SPDX-License-Identifier: MIT */
/* Input stream: plain files go to libpcap as they are (seekable, so ftell
 * works and stdio reads straight from the page cache). Pipes and gzip files
 * go through a fopencookie() stream, which replays the bytes we peeked at
 * to detect gzip and inflates as libpcap reads: memory stays bounded by the
 * two buffers whatever the capture size. */
#define _GNU_SOURCE
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define DEC_RAW_BUF (256u * 1024u)   /* compressed / piped bytes read at once */
#define DEC_STDIO_BUF (256u * 1024u) /* stdio buffer libpcap reads through (fits L2) */

struct dec_source {
  int fd;
  bool gzip;
  bool in_eof;      /* read() returned 0 */
  bool member_done; /* inflate finished a gzip member (another may follow) */
  bool failed;
  const char *trailer_error; /* failed on a gzip member's CRC-32 or length check: which */
  z_stream z;
  uint8_t *raw; /* raw input; its first bytes are the peeked prefix */
  size_t raw_pos, raw_len;
  uint64_t out_pos; /* bytes handed to stdio so far */
  uint8_t magic[4];
  size_t magic_len;
  char err[160];
};

static ssize_t read_retry(int fd, void *buf, size_t n) {
  ssize_t r;
  do r = read(fd, buf, n);
  while (r < 0 && errno == EINTR);
  return r;
}

/* Reads until n bytes or end of input; pipes may return less per call. */
static ssize_t read_full(int fd, uint8_t *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read_retry(fd, buf + got, n - got);
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

static ssize_t src_fail(dec_source *s, const char *what, const char *detail) {
  if (!s->failed)
    snprintf(s->err, sizeof s->err, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
  s->failed = true;
  errno = EIO;
  return -1;
}

static void src_account(dec_source *s, const char *buf, size_t n) {
  for (size_t i = 0; s->magic_len < sizeof s->magic && i < n; i++)
    s->magic[s->magic_len++] = (uint8_t)buf[i];
  s->out_pos += n;
}

static ssize_t src_read_plain(dec_source *s, char *buf, size_t size) {
  ssize_t n;
  if (s->raw_pos < s->raw_len) {
    size_t left = s->raw_len - s->raw_pos;
    n = (ssize_t)(size < left ? size : left);
    memcpy(buf, s->raw + s->raw_pos, (size_t)n);
    s->raw_pos += (size_t)n;
  } else {
    n = read_retry(s->fd, buf, size);
    if (n < 0) return src_fail(s, "read error", strerror(errno));
  }
  src_account(s, buf, (size_t)n);
  return n;
}

static int src_refill(dec_source *s) {
  ssize_t r = read_retry(s->fd, s->raw, DEC_RAW_BUF);
  if (r < 0) return -1;
  if (r == 0) s->in_eof = true;
  s->z.next_in = s->raw;
  s->z.avail_in = (uInt)r;
  return 0;
}

/* Remembers an inflate error. The trailer checks get their own words: they
 * come after every byte of the member was inflated, so the records read so
 * far are whole, only not vouched for. */
static void src_inflate_failed(dec_source *s, int zr) {
  const char *m = s->z.msg ? s->z.msg : zError(zr);
  if (strcmp(m, "incorrect data check") == 0) { /* zlib's text for a gzip CRC-32 mismatch */
    s->trailer_error = "gzip CRC mismatch";
    src_fail(s, s->trailer_error, "the CRC-32 in the gzip trailer does not match the data");
  } else if (strcmp(m, "incorrect length check") == 0) {
    s->trailer_error = "gzip length mismatch";
    src_fail(s, s->trailer_error, "the length in the gzip trailer does not match the data");
  } else {
    src_fail(s, "gzip: corrupt compressed data", m);
  }
}

/* One inflate call. Returns the bytes it produced even when it also failed:
 * the error is kept and the next read reports it, so libpcap gets every
 * byte before the damage (as gzip -dc writes them) and names the right
 * record. -1 only when it failed without output. */
static ssize_t src_inflate(dec_source *s, char *buf, size_t size) {
  s->z.next_out = (Bytef *)buf;
  s->z.avail_out = (uInt)(size < 0x40000000u ? size : 0x40000000u);
  int zr = inflate(&s->z, Z_NO_FLUSH);
  size_t produced = (size_t)((Bytef *)s->z.next_out - (Bytef *)buf);
  if (zr == Z_STREAM_END)
    s->member_done = true;
  else if (zr != Z_OK && zr != Z_BUF_ERROR)
    src_inflate_failed(s, zr);
  if (produced)
    src_account(s, buf, produced);
  else if (s->failed)
    return -1;
  return (ssize_t)produced;
}

/* Inflates into buf. Concatenated gzip members (cat a.gz b.gz) are one
 * stream, as gzip -d treats them. At the end of the input inflate is still
 * called: it may hold output that did not fit the last buffer, and only
 * once it has none is the file truncated. */
static ssize_t src_read_gzip(dec_source *s, char *buf, size_t size) {
  for (;;) {
    if (s->z.avail_in == 0 && !s->in_eof && src_refill(s) < 0)
      return src_fail(s, "read error", strerror(errno));
    if (s->member_done) {
      if (s->z.avail_in == 0 && s->in_eof) return 0;
      inflateReset(&s->z);
      s->member_done = false;
    }
    ssize_t n = src_inflate(s, buf, size);
    if (n != 0) return n;
    if (!s->member_done && s->z.avail_in == 0 && s->in_eof)
      return src_fail(s, "gzip: compressed data ends early (truncated .gz file)", NULL);
  }
}

static ssize_t src_read(void *cookie, char *buf, size_t size) {
  dec_source *s = cookie;
  if (s->failed) {
    errno = EIO;
    return -1;
  }
  return s->gzip ? src_read_gzip(s, buf, size) : src_read_plain(s, buf, size);
}

/* Only "where am I" is supported, which is all ftell() asks. */
static int src_seek(void *cookie, off64_t *pos, int whence) {
  dec_source *s = cookie;
  if ((whence == SEEK_CUR && *pos == 0) || (whence == SEEK_SET && (uint64_t)*pos == s->out_pos)) {
    *pos = (off64_t)s->out_pos;
    return 0;
  }
  errno = ESPIPE;
  return -1;
}

static void src_free(dec_source *s) {
  if (s->gzip) inflateEnd(&s->z);
  free(s->raw);
  free(s);
}

static int src_close(void *cookie) {
  dec_source *s = cookie;
  int rc = close(s->fd);
  src_free(s);
  return rc;
}

static int open_cookie(dec_input *in, int fd, const uint8_t *prefix, size_t n, char *err,
                       size_t errlen) {
  dec_source *s = calloc(1, sizeof *s);
  uint8_t *raw = malloc(DEC_RAW_BUF);
  if (!s || !raw) {
    free(s);
    free(raw);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  s->fd = fd;
  s->raw = raw;
  memcpy(raw, prefix, n);
  s->raw_len = n;
  s->gzip = in->gzip;
  if (s->gzip) {
    s->z.next_in = raw;
    s->z.avail_in = (uInt)n;
    if (inflateInit2(&s->z, 15 + 16) != Z_OK) { /* 16: gzip wrapper only */
      free(raw);
      free(s);
      snprintf(err, errlen, "zlib initialisation failed");
      return -1;
    }
  }
  cookie_io_functions_t io = {.read = src_read, .seek = src_seek, .close = src_close};
  in->fp = fopencookie(s, "rb", io);
  if (!in->fp) {
    snprintf(err, errlen, "fopencookie: %s", strerror(errno));
    src_free(s);
    return -1;
  }
  in->src = s;
  in->start = 0; /* offsets count the bytes the stream yields */
  return 0;
}

static int open_plain(dec_input *in, int fd, char *err, size_t errlen) {
  in->fp = fdopen(fd, "rb");
  if (!in->fp) {
    snprintf(err, errlen, "%s", strerror(errno));
    return -1;
  }
  in->seekable = true;
  (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return 0;
}

/* libpcap freads a 16-byte record header, then the packet: with glibc's
 * default 4 KiB buffer that is a read() per 4 KiB and the system calls cost
 * more than the decoding. glibc ignores setvbuf's size unless it is given
 * the buffer, hence our own. */
static void set_buffer(dec_input *in) {
  in->iobuf = malloc(DEC_STDIO_BUF);
  if (in->iobuf) setvbuf(in->fp, in->iobuf, _IOFBF, DEC_STDIO_BUF);
}

/* Peeks at the first bytes without consuming them from a regular file
 * (pread), or by reading them from a pipe (the cookie replays them). */
static int open_fd(dec_input *in, int fd, char *err, size_t errlen) {
  struct stat st;
  uint8_t head[4];
  ssize_t n;
  bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  off_t start = regular ? lseek(fd, 0, SEEK_CUR) : -1;
  if (regular && start >= 0) {
    in->start = (uint64_t)start;
    do n = pread(fd, head, sizeof head, start);
    while (n < 0 && errno == EINTR);
  } else {
    regular = false;
    n = read_full(fd, head, sizeof head);
  }
  if (n < 0) {
    snprintf(err, errlen, "read error: %s", strerror(errno));
    return -1;
  }
  if (n == 0) {
    snprintf(err, errlen, "empty input (0 bytes): not a capture file");
    return -1;
  }
  in->gzip = n >= 2 && head[0] == 0x1f && head[1] == 0x8b;
  memcpy(in->magic, head, (size_t)n);
  in->magic_len = (size_t)n;
  int rc = regular && !in->gzip ? open_plain(in, fd, err, errlen)
                                : open_cookie(in, fd, head, regular ? 0 : (size_t)n, err, errlen);
  if (rc == 0) set_buffer(in);
  return rc;
}

int dec_input_open(dec_input *in, const char *path, char *err, size_t errlen) {
  bool use_stdin = !path || strcmp(path, "-") == 0;
  memset(in, 0, sizeof *in);
  in->name = use_stdin ? "<stdin>" : path;
  int fd = use_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s", strerror(errno));
    return -1;
  }
  if (open_fd(in, fd, err, errlen) < 0) {
    if (!in->fp) close(fd);
    return -1;
  }
  return 0;
}

void dec_input_free_buffer(dec_input *in) {
  free(in->iobuf);
  in->iobuf = NULL;
}

size_t dec_input_magic(const dec_input *in, uint8_t magic[4]) {
  const uint8_t *m = in->gzip ? in->src->magic : in->magic;
  size_t n = in->gzip ? in->src->magic_len : in->magic_len;
  memcpy(magic, m, n);
  return n;
}

int64_t dec_input_tell(const dec_input *in) {
  long pos = ftell(in->fp);
  return pos < 0 ? -1 : (int64_t)pos - (int64_t)in->start;
}

const char *dec_input_error(const dec_input *in) {
  return in->src && in->src->failed ? in->src->err : NULL;
}

const char *dec_input_trailer_error(const dec_input *in) {
  return in->src && in->src->failed ? in->src->trailer_error : NULL;
}

uint64_t dec_input_yielded(const dec_input *in) { return in->src ? in->src->out_pos : 0; }
