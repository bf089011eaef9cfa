/* SPDX-License-Identifier: MIT */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "bg_writer.h"
#include "output_file.h"
#include "ornic/version.h"

#define BUF_CAP (1u << 20) /* without the background writer: one write per MiB */
#define DEFAULT_SNAPLEN 65535u
#define PCAP_REC_HDR 16u   /* ts_sec, ts_nsec, caplen, len */
#define PCAPNG_EPB_HDR 28u /* type, length, interface, ts high, ts low, caplen, len */
#define PCAPNG_EPB_END 4u  /* the length again */
#define PCAP_MAGIC_NS 0xa1b23c4du
#define LINKTYPE_ETHERNET 1u

struct writer {
  char *final_path;                  /* as given, for messages */
  outpath op;                        /* where the bytes go (temporary file, or in place) */
  const volatile sig_atomic_t *stop; /* set by a signal: blocked writes give up */
  int fd;
  out_format fmt;
  bool gzip;
  uint32_t snaplen; /* 0: whole frames */
  bgw *bg;          /* records go straight into its buffers; NULL: into buf */
  gzFile gz;        /* compressed: buf goes through zlib */
  uint8_t *buf;     /* without bg: records, written or compressed when full */
  /* Where records go: [cur, lim) is free room in bg's buffer or in buf; bytes
   * from start to cur are complete but not yet committed to bg (one
   * bgw_commit per buffer, not one call per record) or not yet flushed from
   * buf (start == buf). */
  uint8_t *start, *cur, *lim;
  uint64_t bytes;
  uint64_t limit; /* --max-output; 0: none */
  bool failed;
  char err[600];
};

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool writer_is_gz(const char *path) { return ends_with(path, ".gz"); }

/* The format a path gets under FMT_AUTO. */
static out_format writer_format_for(const char *path, out_format requested) {
  if (requested != FMT_AUTO) return requested;
  return ends_with(path, ".pcapng") || ends_with(path, ".pcapng.gz") ? FMT_PCAPNG : FMT_PCAP;
}

static int fail(writer *w, const char *what, int e) {
  if (!w->failed)
    snprintf(w->err, sizeof w->err, "cannot %s '%s': %s", what, w->final_path, strerror(e));
  w->failed = true;
  return -1;
}

const char *writer_error(const writer *w) { return w->err; }
void writer_limit(writer *w, uint64_t bytes) { w->limit = bytes; }

static int over_limit(writer *w) {
  snprintf(w->err, sizeof w->err,
           "'%s' would grow past --max-output %llu bytes (%llu written): stopped", w->final_path,
           (unsigned long long)w->limit, (unsigned long long)w->bytes);
  w->failed = true;
  return -1;
}
uint64_t writer_bytes(const writer *w) { return w->bytes; }

/* ---- where the bytes go ----------------------------------------------------- */

static int open_fd(writer *w) {
  if (strcmp(w->final_path, "-") == 0) {
    w->fd = STDOUT_FILENO;
    return 0;
  }
  if (outpath_open(&w->op, w->final_path, "-o", w->err, sizeof w->err) < 0) {
    w->failed = true;
    return -1;
  }
  w->fd = w->op.fd;
  w->op.fd = -1; /* ours now: gzclose may close it */
  /* Written in place (read-only directory): the old content goes now, as
   * with tcpdump; every other output was opened before this one. */
  if (!w->op.tmp_path && !w->op.special && ftruncate(w->fd, 0) != 0)
    return fail(w, "truncate", errno);
  return 0;
}

static bool stopping(const writer *w) { return w->stop && *w->stop; }

/* Without the background writer (gzip, or no thread to be had). */
static int write_all(writer *w, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t k = write(w->fd, p, n);
    /* EINTR: a signal (SA_RESTART is off, so a write blocked on a full pipe
     * or FIFO returns); give up only when it asked the run to stop. */
    if (k < 0 && errno == EINTR && !stopping(w)) continue;
    if (k <= 0) return fail(w, "write", k < 0 ? errno : EIO);
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static int flush_buf(writer *w) {
  size_t len = (size_t)(w->cur - w->buf);
  if (!len || w->failed) return w->failed ? -1 : 0;
  int rc = 0;
  if (w->gz) {
    if (gzwrite(w->gz, w->buf, (unsigned)len) != (int)len) {
      int zerr;
      const char *msg = gzerror(w->gz, &zerr);
      if (zerr == Z_ERRNO) return fail(w, "write", errno);
      snprintf(w->err, sizeof w->err, "cannot write '%s': zlib: %s", w->final_path, msg);
      w->failed = true;
      rc = -1;
    }
  } else {
    rc = write_all(w, w->buf, len);
  }
  w->cur = w->buf;
  return rc;
}

/* Hands the bytes written since the last commit to the background writer. */
static void commit(writer *w) {
  if (w->bg && w->cur != w->start) bgw_commit(w->bg, (size_t)(w->cur - w->start));
  w->start = w->cur;
}

/* room() when the current buffer is full: the next one. */
static uint8_t *refill(writer *w, size_t n) {
  if (w->bg) {
    size_t avail;
    commit(w);
    uint8_t *p = bgw_reserve(w->bg, n, &avail);
    if (!p) {
      w->start = w->cur = w->lim = NULL;
      fail(w, "write", errno);
      return NULL;
    }
    w->start = w->cur = p;
    w->lim = p + avail;
    return p;
  }
  if (flush_buf(w) < 0) return NULL;
  w->start = w->cur = w->buf;
  w->lim = w->buf + BUF_CAP;
  return w->cur;
}

/* Where the next n bytes of the file go (n <= BGW_MAX_RESERVE), written
 * there directly; they count once used() says so. NULL after an error. */
static inline uint8_t *room(writer *w, size_t n) {
  if ((size_t)(w->lim - w->cur) >= n) return w->cur;
  return refill(w, n);
}

static inline void used(writer *w, size_t n) {
  w->cur += n;
  w->bytes += n;
}

static int append(writer *w, const void *p, size_t n) {
  uint8_t *dst = room(w, n);
  if (!dst) return -1;
  memcpy(dst, p, n);
  used(w, n);
  return 0;
}

/* ---- the formats: little-endian, as libpcap writes them on this host ------------ */

static inline uint8_t *le32(uint8_t *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  memcpy(p, &v, 4); /* one store (a loop of byte stores was a third of writer_put) */
  return p + 4;
}

static uint8_t *le16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  return p + 2;
}

static uint32_t header_snaplen(const writer *w) {
  return w->snaplen ? w->snaplen : DEFAULT_SNAPLEN;
}

/* The same 24 bytes libpcap writes for a nanosecond Ethernet capture. */
static int pcap_header(writer *w) {
  uint8_t h[24], *p = h;
  p = le32(p, PCAP_MAGIC_NS);
  p = le16(p, 2);
  p = le16(p, 4);
  p = le32(p, 0); /* thiszone */
  p = le32(p, 0); /* sigfigs */
  p = le32(p, header_snaplen(w));
  le32(p, LINKTYPE_ETHERNET);
  return append(w, h, sizeof h);
}

/* Section Header Block + Interface Description Block with if_tsresol = 9 (ns). */
static int pcapng_header(writer *w) {
  char appl[64];
  int alen = snprintf(appl, sizeof appl, "ornic-pcapgen %s", ORNIC_VERSION_STRING);
  uint32_t apad = (uint32_t)((alen + 3) & ~3);
  uint32_t shb_len = 28 + 4 + apad + 4;
  uint8_t b[160] = {0}, *p = b;
  p = le32(p, 0x0A0D0D0Au);
  p = le32(p, shb_len);
  p = le32(p, 0x1A2B3C4Du);
  p = le16(p, 1);
  p = le16(p, 0);
  p = le32(p, 0xffffffffu); /* section length unknown (-1) */
  p = le32(p, 0xffffffffu);
  p = le16(p, 4); /* shb_userappl */
  p = le16(p, (uint16_t)alen);
  memcpy(p, appl, (size_t)alen);
  p += apad;
  p = le32(p, 0); /* opt_endofopt */
  p = le32(p, shb_len);
  p = le32(p, 1); /* IDB */
  p = le32(p, 32);
  p = le16(p, LINKTYPE_ETHERNET);
  p = le16(p, 0);
  p = le32(p, header_snaplen(w));
  p = le16(p, 9); /* if_tsresol */
  p = le16(p, 1);
  *p = 9; /* 10^-9 s */
  p += 4;
  p = le32(p, 0); /* opt_endofopt */
  p = le32(p, 32);
  return append(w, b, (size_t)(p - b));
}

/* One record, header and frame (cut to caplen) written in place: the frame
 * is copied once, from the packet to the file's buffer. */
static int put_record(writer *w, uint64_t ts_ns, const uint8_t *frame, uint32_t caplen,
                      uint32_t len) {
  bool ng = w->fmt == FMT_PCAPNG;
  uint32_t pad = ng ? (4 - caplen % 4) % 4 : 0;
  uint32_t total = ng ? PCAPNG_EPB_HDR + caplen + pad + PCAPNG_EPB_END : PCAP_REC_HDR + caplen;
  if (w->limit && w->bytes + total > w->limit) return over_limit(w);
  uint8_t *p = room(w, total);
  if (!p) return -1;
  if (ng) {
    p = le32(p, 6); /* Enhanced Packet Block */
    p = le32(p, total);
    p = le32(p, 0); /* interface 0 */
    p = le32(p, (uint32_t)(ts_ns >> 32));
    p = le32(p, (uint32_t)ts_ns);
  } else {
    p = le32(p, (uint32_t)(ts_ns / 1000000000u));
    p = le32(p, (uint32_t)(ts_ns % 1000000000u));
  }
  p = le32(p, caplen);
  p = le32(p, len);
  memcpy(p, frame, caplen);
  if (ng) {
    memset(p + caplen, 0, pad);
    le32(p + caplen + pad, total);
  }
  used(w, total);
  return 0;
}

/* ---- public ---------------------------------------------------------------------- */

static int open_format(writer *w, int gz_level) {
  if (!w->gzip) w->bg = bgw_start(w->fd); /* zlib is slower than the disk: no need there */
  if (!w->bg && !(w->buf = malloc(BUF_CAP))) return fail(w, "open", ENOMEM);
  if (!w->bg) {
    w->start = w->cur = w->buf;
    w->lim = w->buf + BUF_CAP;
  }
  if (w->gzip) {
    char mode[8];
    snprintf(mode, sizeof mode, "wb%d", gz_level);
    if (!(w->gz = gzdopen(w->fd, mode))) return fail(w, "open", errno ? errno : ENOMEM);
    gzbuffer(w->gz, 1u << 18);
  }
  return w->fmt == FMT_PCAPNG ? pcapng_header(w) : pcap_header(w);
}

writer *writer_open(const char *path, out_format fmt, uint32_t snaplen, int gz_level, char *err,
                    size_t errlen) {
  writer *w = calloc(1, sizeof *w);
  if (!w || !(w->final_path = strdup(path))) {
    snprintf(err, errlen, "out of memory");
    free(w);
    return NULL;
  }
  w->fd = -1;
  w->op.fd = -1;
  w->fmt = writer_format_for(path, fmt);
  w->gzip = writer_is_gz(path);
  w->snaplen = snaplen;
  if (open_fd(w) < 0 || open_format(w, gz_level) < 0) {
    snprintf(err, errlen, "%s", w->err);
    writer_abort(w);
    return NULL;
  }
  return w;
}

void writer_watch(writer *w, const volatile sig_atomic_t *stop) {
  w->stop = stop;
  if (w->bg) bgw_watch(w->bg, stop);
}

int writer_put(writer *w, uint64_t ts_ns, const uint8_t *frame, uint32_t len) {
  if (w->failed) return -1;
  uint32_t caplen = w->snaplen && len > w->snaplen ? w->snaplen : len;
  return put_record(w, ts_ns, frame, caplen, len);
}

/* Closes everything; returns 0 or -1 (first error kept in w->err). */
static int close_all(writer *w) {
  int rc = w->failed ? -1 : 0;
  if (w->buf && flush_buf(w) < 0) rc = -1;
  if (w->bg) {
    if (!w->failed) commit(w);
    if (bgw_finish(w->bg) < 0 && rc == 0) rc = fail(w, "write", errno);
    w->bg = NULL;
  }
  if (w->gz) {
    int zrc = gzclose(w->gz); /* also closes fd */
    if (zrc != Z_OK && rc == 0) rc = fail(w, "write", zrc == Z_ERRNO ? errno : EIO);
    w->gz = NULL;
    w->fd = -1;
  }
  if (w->fd >= 0 && w->fd != STDOUT_FILENO && close(w->fd) != 0 && rc == 0)
    rc = fail(w, "write", errno);
  w->fd = -1;
  return rc;
}

static void destroy(writer *w) {
  free(w->buf);
  free(w->final_path);
  free(w);
}

int writer_finish(writer *w, char *err, size_t errlen) {
  int rc = close_all(w);
  /* No fsync: a capture is gigabytes, and rename over an existing file is
   * ordered after its data by ext4 (auto_da_alloc) and XFS. */
  if (rc == 0 && w->op.final_path && outpath_commit(&w->op, false, w->err, sizeof w->err) < 0)
    rc = -1;
  if (rc < 0) {
    snprintf(err, errlen, "%s", w->err);
    outpath_discard(&w->op);
  }
  destroy(w);
  return rc;
}

void writer_abort(writer *w) {
  if (!w) return;
  w->failed = true; /* nothing more is flushed on purpose */
  w->cur = w->start;
  close_all(w);
  outpath_discard(&w->op);
  destroy(w);
}
