/* SPDX-License-Identifier: MIT */
/* Input stream. One source per capture: a plain file read as it is, a pipe
 * (whose first bytes, peeked to detect gzip, are replayed), or gzip inflated
 * as it is read; memory stays bounded by the source's buffer whatever the
 * capture size. The tool's reader pulls bytes straight into its own aligned
 * buffers (dec_input_read). libpcap, when it is the reader, gets a
 * fopencookie() stream over the same source that first replays what the
 * tool's reader had already pulled, or, for a plain regular file, the file
 * itself rewound (seekable, so ftell works and the damaged-block offset can
 * be found by reading it again). */
#define _GNU_SOURCE
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "interrupt.h"

#define DEC_RAW_BUF (256u * 1024u)   /* compressed / piped bytes read at once */
#define DEC_STDIO_BUF (256u * 1024u) /* stdio buffer libpcap reads through (fits L2) */

struct dec_source {
  int fd;
  bool may_block; /* not a regular file: a read may wait for a writer (interrupt.h) */
  bool gzip;
  bool in_eof;      /* read() returned 0 */
  bool member_done; /* inflate finished a gzip member (another may follow) */
  bool failed;
  const char *trailer_error; /* failed on a gzip member's CRC-32 or length check: which */
  z_stream z;
  uint8_t *raw; /* raw input (gzip, pipes); its first bytes are the peeked prefix */
  size_t raw_pos, raw_len;
  uint64_t produced; /* bytes of the capture produced so far (decompressed) */
  uint8_t magic[4];
  size_t magic_len;
  /* The FILE* for libpcap (cookie): bytes the tool's reader already took,
   * handed out again first, and the stream position stdio sees. */
  uint8_t *replay;
  size_t replay_pos, replay_len;
  uint64_t cookie_pos;
  char err[160];
};

/* Before a read that may block (a pipe, a terminal): waits until fd has
 * data or a stop was asked for (interrupt.h). poll(2) is never restarted
 * after a signal handler, SA_RESTART or not, and the wake pipe covers a
 * signal that comes just before it. false: stopped. */
static bool wait_readable(int fd) {
  int wake = dec_interrupt_fd();
  if (wake < 0) return true; /* no stop to wait for: read as usual */
  struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = wake, .events = POLLIN}};
  for (;;) {
    if (dec_interrupted()) return false;
    int n = poll(p, 2, -1);
    if (n > 0) return p[1].revents == 0;
    if (n < 0 && errno != EINTR) return true; /* let read() report it */
  }
}

/* A read that a stop ends: it then returns 0, the end of the input, and
 * the read loop, which checks for the stop, does not call what it cut short
 * damage. */
static ssize_t read_retry(int fd, void *buf, size_t n, bool may_block) {
  ssize_t r;
  do {
    if (may_block && !wait_readable(fd)) return 0;
    r = read(fd, buf, n);
  } while (r < 0 && errno == EINTR);
  return r;
}

/* Reads until n bytes or end of input; pipes may return less per call. */
static ssize_t read_full(int fd, uint8_t *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read_retry(fd, buf + got, n - got, true);
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

static void src_account(dec_source *s, const uint8_t *buf, size_t n) {
  for (size_t i = 0; s->magic_len < sizeof s->magic && i < n; i++)
    s->magic[s->magic_len++] = buf[i];
  s->produced += n;
}

/* Up to size bytes of the len-byte prefix from *pos on (0 once it is all
 * taken): bytes already read before the reader knew who would want them. */
static ssize_t take_prefix(const uint8_t *from, size_t len, size_t *pos, void *buf, size_t size) {
  size_t left = len - *pos, n = size < left ? size : left;
  if (n) memcpy(buf, from + *pos, n);
  *pos += n;
  return (ssize_t)n;
}

/* A plain stream: the peeked prefix of a pipe first, then the descriptor. */
static ssize_t src_read_plain(dec_source *s, uint8_t *buf, size_t size) {
  ssize_t n = take_prefix(s->raw, s->raw_len, &s->raw_pos, buf, size);
  if (n == 0) {
    n = read_retry(s->fd, buf, size, s->may_block);
    if (n < 0) return src_fail(s, "read error", strerror(errno));
  }
  src_account(s, buf, (size_t)n);
  return n;
}

static int src_refill(dec_source *s) {
  ssize_t r = read_retry(s->fd, s->raw, DEC_RAW_BUF, s->may_block);
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
 * the error is kept and the next read reports it, so the reader gets every
 * byte before the damage (as gzip -dc writes them) and names the right
 * record. -1 only when it failed without output. */
static ssize_t src_inflate(dec_source *s, uint8_t *buf, size_t size) {
  s->z.next_out = buf;
  s->z.avail_out = (uInt)(size < 0x40000000u ? size : 0x40000000u);
  int zr = inflate(&s->z, Z_NO_FLUSH);
  size_t produced = (size_t)(s->z.next_out - buf);
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
static ssize_t src_read_gzip(dec_source *s, uint8_t *buf, size_t size) {
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

static ssize_t src_read(dec_source *s, uint8_t *buf, size_t size) {
  if (s->failed) {
    errno = EIO;
    return -1;
  }
  if (size == 0) return 0;
  return s->gzip ? src_read_gzip(s, buf, size) : src_read_plain(s, buf, size);
}

ssize_t dec_input_read(dec_input *in, uint8_t *buf, size_t n) { return src_read(in->src, buf, n); }

/* ---- the FILE* libpcap reads ---------------------------------------------- */

static ssize_t cookie_read(void *cookie, char *buf, size_t size) {
  dec_source *s = cookie;
  ssize_t n = take_prefix(s->replay, s->replay_len, &s->replay_pos, buf, size);
  if (n == 0) {
    n = src_read(s, (uint8_t *)buf, size);
  }
  if (n > 0) s->cookie_pos += (uint64_t)n;
  return n;
}

/* Only "where am I" is supported, which is all ftell() asks. */
static int cookie_seek(void *cookie, off64_t *pos, int whence) {
  dec_source *s = cookie;
  if ((whence == SEEK_CUR && *pos == 0) ||
      (whence == SEEK_SET && (uint64_t)*pos == s->cookie_pos)) {
    *pos = (off64_t)s->cookie_pos;
    return 0;
  }
  errno = ESPIPE;
  return -1;
}

static void src_free(dec_source *s) {
  if (s->gzip) inflateEnd(&s->z);
  free(s->raw);
  free(s->replay);
  free(s);
}

static int cookie_close(void *cookie) {
  dec_source *s = cookie;
  int rc = close(s->fd);
  src_free(s);
  return rc;
}

/* libpcap freads a 16-byte record header, then the packet: with glibc's
 * default 4 KiB buffer that is a read() per 4 KiB and the system calls cost
 * more than the decoding. glibc ignores setvbuf's size unless it is given
 * the buffer, hence our own. */
static void set_buffer(dec_input *in) {
  in->iobuf = malloc(DEC_STDIO_BUF);
  if (in->iobuf) setvbuf(in->fp, in->iobuf, _IOFBF, DEC_STDIO_BUF);
}

/* A plain regular file: rewound and handed over as it is. */
static int fopen_plain(dec_input *in, char *err, size_t errlen) {
  dec_source *s = in->src;
  if (lseek(s->fd, (off_t)in->start, SEEK_SET) < 0 || !(in->fp = fdopen(s->fd, "rb"))) {
    snprintf(err, errlen, "%s", strerror(errno));
    return -1;
  }
  s->fd = -1; /* fp's now */
  src_free(s);
  in->src = NULL;
  return 0;
}

static int fopen_cookie(dec_input *in, const uint8_t *replay, size_t n, char *err, size_t errlen) {
  dec_source *s = in->src;
  if (n) {
    s->replay = malloc(n);
    if (!s->replay) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
    memcpy(s->replay, replay, n);
    s->replay_len = n;
  }
  cookie_io_functions_t io = {.read = cookie_read, .seek = cookie_seek, .close = cookie_close};
  in->fp = fopencookie(s, "rb", io);
  if (!in->fp) {
    snprintf(err, errlen, "fopencookie: %s", strerror(errno));
    return -1;
  }
  in->start = 0; /* offsets count the bytes the stream yields */
  return 0;
}

int dec_input_fopen(dec_input *in, const uint8_t *replay, size_t n, char *err, size_t errlen) {
  int rc = in->seekable ? fopen_plain(in, err, errlen) : fopen_cookie(in, replay, n, err, errlen);
  if (rc == 0) set_buffer(in);
  return rc;
}

/* ---- opening ----------------------------------------------------------------- */

static int open_source(dec_input *in, int fd, const uint8_t *prefix, size_t n, char *err,
                       size_t errlen) {
  dec_source *s = calloc(1, sizeof *s);
  uint8_t *raw = in->seekable ? NULL : malloc(DEC_RAW_BUF);
  if (!s || (!in->seekable && !raw)) {
    free(s);
    free(raw);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  s->fd = fd;
  s->raw = raw;
  if (n) memcpy(raw, prefix, n);
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
  in->src = s;
  return 0;
}

/* Peeks at the first bytes without consuming them from a regular file
 * (pread), or by reading them from a pipe (the source replays them). */
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
  in->seekable = regular && !in->gzip;
  if (in->seekable) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  if (open_source(in, fd, head, regular ? 0 : (size_t)n, err, errlen) < 0) return -1;
  in->src->may_block = !regular;
  return 0;
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
    close(fd);
    return -1;
  }
  return 0;
}

void dec_input_close(dec_input *in) {
  if (in->fp || !in->src) return; /* fp owns the stream */
  close(in->src->fd);
  src_free(in->src);
  in->src = NULL;
}

void dec_input_free_buffer(dec_input *in) {
  free(in->iobuf);
  in->iobuf = NULL;
}

size_t dec_input_magic(const dec_input *in, uint8_t magic[4]) {
  if (!in->src) { /* a plain file libpcap reads itself: its first bytes */
    ssize_t n = pread(fileno(in->fp), magic, 4, (off_t)in->start);
    return n > 0 ? (size_t)n : 0;
  }
  memcpy(magic, in->src->magic, in->src->magic_len);
  return in->src->magic_len;
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

uint64_t dec_input_yielded(const dec_input *in) { return in->src ? in->src->produced : 0; }
