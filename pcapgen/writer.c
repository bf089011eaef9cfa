/* SPDX-License-Identifier: MIT */
/* fopencookie: libpcap writes through a FILE*, and ours feeds the background writer. */
#define _GNU_SOURCE
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "bgwrite.h"
#include "outpath.h"
#include "ornic/version.h"

#define BUF_CAP (1u << 20)   /* our own formats: one write per MiB */
#define STDIO_BUF (1u << 20) /* libpcap's FILE*: same */
#define DEFAULT_SNAPLEN 65535u
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
  bgw *bg;          /* background writes to fd; NULL: write(2) here */
  FILE *fp;         /* libpcap path */
  bool fp_owns_fd;  /* fclose(fp) closes fd (no background writer) */
  pcap_t *pd;
  pcap_dumper_t *dumper;
  gzFile gz;    /* own formats, compressed */
  uint8_t *buf; /* own formats */
  size_t len;
  uint64_t bytes;
  bool failed;
  bool libpcap; /* buf is the FILE*'s buffer, not ours to flush */
  char err[600];
};

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

out_format writer_format_for(const char *path, out_format requested) {
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
  w->op.fd = -1; /* ours now: gzclose or fclose may close it */
  /* Written in place (read-only directory): the old content goes now, as
   * with tcpdump; every other output was opened before this one. */
  if (!w->op.tmp_path && !w->op.special && ftruncate(w->fd, 0) != 0)
    return fail(w, "truncate", errno);
  return 0;
}

static bool stopping(const writer *w) { return w->stop && *w->stop; }

static int write_all(writer *w, const uint8_t *p, size_t n) {
  if (w->bg) return bgw_write(w->bg, p, n) < 0 ? fail(w, "write", errno) : 0;
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
  if (!w->len || w->failed) return w->failed ? -1 : 0;
  int rc = 0;
  if (w->gz) {
    if (gzwrite(w->gz, w->buf, (unsigned)w->len) != (int)w->len) {
      int zerr;
      const char *msg = gzerror(w->gz, &zerr);
      if (zerr == Z_ERRNO) return fail(w, "write", errno);
      snprintf(w->err, sizeof w->err, "cannot write '%s': zlib: %s", w->final_path, msg);
      w->failed = true;
      rc = -1;
    }
  } else {
    rc = write_all(w, w->buf, w->len);
  }
  w->len = 0;
  return rc;
}

static int append(writer *w, const void *p, size_t n) {
  if (w->len + n > BUF_CAP && flush_buf(w) < 0) return -1;
  memcpy(w->buf + w->len, p, n);
  w->len += n;
  w->bytes += n;
  return 0;
}

/* ---- our formats: little-endian, as the host libpcap would write them --------- */

static uint8_t *le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
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

static int own_record(writer *w, uint64_t ts_ns, const uint8_t *frame, uint32_t caplen,
                      uint32_t len) {
  uint8_t h[28], *p = h;
  static const uint8_t zeros[4] = {0};
  if (w->fmt == FMT_PCAPNG) {
    uint32_t pad = (4 - caplen % 4) % 4, total = 32 + caplen + pad;
    p = le32(p, 6); /* Enhanced Packet Block */
    p = le32(p, total);
    p = le32(p, 0); /* interface 0 */
    p = le32(p, (uint32_t)(ts_ns >> 32));
    p = le32(p, (uint32_t)ts_ns);
    p = le32(p, caplen);
    p = le32(p, len);
    if (append(w, h, 28) < 0 || append(w, frame, caplen) < 0 || append(w, zeros, pad) < 0)
      return -1;
    le32(h, total);
    return append(w, h, 4);
  }
  p = le32(p, (uint32_t)(ts_ns / 1000000000u));
  p = le32(p, (uint32_t)(ts_ns % 1000000000u));
  p = le32(p, caplen);
  le32(p, len);
  if (append(w, h, 16) < 0) return -1;
  return append(w, frame, caplen);
}

/* ---- libpcap ----------------------------------------------------------------- */

/* libpcap writes to a FILE*: with a background writer, one whose bytes go to it. */
static ssize_t cookie_write(void *cookie, const char *p, size_t n) {
  return bgw_write(cookie, p, n) < 0 ? -1 : (ssize_t)n;
}

static int cookie_close(void *cookie) {
  (void)cookie; /* close_all finishes the writer and closes fd, checking both */
  return 0;
}

static FILE *open_stream(writer *w) {
  if (!w->bg) {
    w->fp_owns_fd = true;
    return fdopen(w->fd, "wb");
  }
  cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};
  return fopencookie(w->bg, "wb", io);
}

static int open_libpcap(writer *w) {
  char errbuf[PCAP_ERRBUF_SIZE];
  if (!(w->fp = open_stream(w))) return fail(w, "open", errno);
  /* glibc ignores the size when setvbuf is given no buffer: give it one. */
  if (!(w->buf = malloc(STDIO_BUF))) return fail(w, "open", ENOMEM);
  w->libpcap = true;
  setvbuf(w->fp, (char *)w->buf, _IOFBF, STDIO_BUF);
  w->pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)header_snaplen(w),
                                               PCAP_TSTAMP_PRECISION_NANO);
  if (!w->pd) return fail(w, "open", ENOMEM);
  if (!(w->dumper = pcap_dump_fopen(w->pd, w->fp))) {
    snprintf(errbuf, sizeof errbuf, "%s", pcap_geterr(w->pd));
    snprintf(w->err, sizeof w->err, "cannot write '%s': libpcap: %s", w->final_path, errbuf);
    w->failed = true;
    return -1;
  }
  w->bytes = 24;
  /* libpcap wrote the header into the stdio buffer; a full disk shows at flush. */
  return 0;
}

static int libpcap_record(writer *w, uint64_t ts_ns, const uint8_t *frame, uint32_t caplen,
                          uint32_t len) {
  struct pcap_pkthdr h;
  h.ts.tv_sec = (time_t)(ts_ns / 1000000000u);
  h.ts.tv_usec = (suseconds_t)(ts_ns % 1000000000u); /* nanoseconds: a NANO handle */
  h.caplen = caplen;
  h.len = len;
  pcap_dump((u_char *)w->dumper, &h, frame);
  w->bytes += 16 + caplen;
  if (ferror_unlocked(w->fp)) return fail(w, "write", errno ? errno : EIO);
  return 0;
}

/* ---- public ---------------------------------------------------------------------- */

static int open_format(writer *w, int gz_level) {
  if (!w->gzip) w->bg = bgw_start(w->fd); /* zlib is slower than the disk: no need there */
  if (!w->gzip && w->fmt == FMT_PCAP) return open_libpcap(w);
  if (!(w->buf = malloc(BUF_CAP))) return fail(w, "open", ENOMEM);
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
  w->gzip = ends_with(path, ".gz");
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
  if (w->dumper) return libpcap_record(w, ts_ns, frame, caplen, len);
  return own_record(w, ts_ns, frame, caplen, len);
}

/* Closes everything; returns 0 or -1 (first error kept in w->err). */
static int close_all(writer *w) {
  int rc = w->failed ? -1 : 0;
  if (w->dumper && pcap_dump_flush(w->dumper) != 0 && rc == 0)
    rc = fail(w, "write", errno ? errno : EIO);
  if (w->buf && !w->libpcap && flush_buf(w) < 0) rc = -1;
  if (w->bg) {
    if (bgw_finish(w->bg) < 0 && rc == 0) rc = fail(w, "write", errno);
    w->bg = NULL;
  }
  if (w->dumper) {
    pcap_dump_close(w->dumper); /* closes fp */
    w->dumper = NULL;
  } else if (w->fp && fclose(w->fp) != 0 && rc == 0) {
    rc = fail(w, "write", errno);
  }
  if (w->fp && w->fp_owns_fd) w->fd = -1;
  w->fp = NULL;
  if (w->pd) pcap_close(w->pd);
  w->pd = NULL;
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
  w->len = 0;
  close_all(w);
  outpath_discard(&w->op);
  destroy(w);
}
