/* SPDX-License-Identifier: MIT */
/* The decode floor's capture input (floor_input.h). The read() path is
 * ornic-decode's (tools/ornic-decode/core/reader.c): 128 KiB read()s into
 * a page-aligned buffer, a record that straddles two reads moved down just
 * far enough that the next read starts on a page. The record walk checks
 * what a reader must check to walk safely (lengths against the bytes and
 * the maximum), not libpcap's messages: the floor is the least a reader
 * can do. Formats: the pcap file format and pcapng (IETF
 * draft-ietf-opsawg-pcapng, sections 4.1-4.3 and 4.6). */
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#include "floor_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096u
#define CHUNK (128u * 1024u)
#define MAX_CAPLEN 262144u    /* libpcap's MAXIMUM_SNAPLEN */
#define MAX_BLOCK (16u << 20) /* libpcap's largest pcapng block */
#define MAX_IFACES 256u
#define MAGIC_USEC 0xa1b2c3d4u
#define MAGIC_NSEC 0xa1b23c4du
#define MAGIC_KUZNETZOV 0xa1b2cd34u /* 24-byte record headers */
#define NG_SHB 0x0a0d0d0au
#define NG_BOM 0x1a2b3c4du
enum { NG_IDB = 1, NG_PB = 2, NG_SPB = 3, NG_EPB = 6 }; /* NG_PB: obsolete, still written */

struct floor_input {
  int fd;
  floor_mode mode;
  uint8_t *buf; /* read(): page-aligned; mmap: the file */
  size_t cap, pos, end;
  bool eof, ng, swapped;
  uint32_t linktype;          /* pcap: the file's */
  size_t rec_hdr;             /* pcap: 16, or 24 (Kuznetzov) */
  uint32_t iface[MAX_IFACES]; /* pcapng: each interface's */
  unsigned n_iface;
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static uint32_t u32(const floor_input *in, const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return in->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t u16(const floor_input *in, const uint8_t *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return in->swapped ? __builtin_bswap16(v) : v;
}

static size_t align_up(size_t n) { return (n + PAGE - 1) & ~(size_t)(PAGE - 1); }

/* Room for n bytes from pos and a read after them, the unread bytes ending
 * on a page so that the read lands page-aligned. */
static int make_room(floor_input *in, size_t n) {
  size_t have = in->end - in->pos, dst = align_up(have) - have;
  if (dst != in->pos) memmove(in->buf + dst, in->buf + in->pos, have);
  in->pos = dst;
  in->end = dst + have;
  size_t need = align_up(dst + n) + CHUNK;
  if (need <= in->cap) return 0;
  uint8_t *nb;
  if (posix_memalign((void **)&nb, PAGE, need) != 0) return -1;
  memcpy(nb, in->buf, in->end);
  free(in->buf);
  in->buf = nb;
  in->cap = need;
  return 0;
}

/* n readable bytes at pos: 1, 0 if the file ends first, -1 on an error.
 * The common case, the bytes already there, is inline (fill). */
static int refill(floor_input *in, size_t n, char *err, size_t errlen) {
  if (in->mode != FLOOR_READ) return 0;
  while (in->end - in->pos < n) {
    if (in->eof) return 0;
    if (make_room(in, n) < 0) return fail(err, errlen, "out of memory");
    ssize_t k = read(in->fd, in->buf + in->end, CHUNK);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return fail(err, errlen, "read: %s", strerror(errno));
    if (k == 0) in->eof = true;
    in->end += (size_t)k;
  }
  return 1;
}

static inline int fill(floor_input *in, size_t n, char *err, size_t errlen) {
  return in->end - in->pos >= n ? 1 : refill(in, n, err, errlen);
}

static int open_map(floor_input *in, const char *path, char *err, size_t errlen) {
  struct stat st;
  if (fstat(in->fd, &st) < 0) return fail(err, errlen, "%s: %s", path, strerror(errno));
  if (st.st_size == 0) return 0;
  int flags = MAP_PRIVATE | (in->mode == FLOOR_MMAP_POPULATE ? MAP_POPULATE : 0);
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, in->fd, 0);
  if (p == MAP_FAILED) return fail(err, errlen, "mmap %s: %s", path, strerror(errno));
  if (in->mode == FLOOR_MMAP) madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
  in->buf = p;
  in->cap = in->end = (size_t)st.st_size;
  return 0;
}

/* The file header: pcap's (24 bytes) or the first pcapng block's type. */
static int open_format(floor_input *in, char *err, size_t errlen) {
  if (fill(in, 24, err, errlen) <= 0) return fail(err, errlen, "not a pcap or pcapng file");
  const uint8_t *p = in->buf + in->pos;
  uint32_t magic;
  memcpy(&magic, p, 4);
  if (magic == NG_SHB) {
    in->ng = true;
    return 0;
  }
  in->swapped = magic != MAGIC_USEC && magic != MAGIC_NSEC && magic != MAGIC_KUZNETZOV;
  magic = in->swapped ? __builtin_bswap32(magic) : magic;
  if (magic != MAGIC_USEC && magic != MAGIC_NSEC && magic != MAGIC_KUZNETZOV)
    return fail(err, errlen, "not a pcap or pcapng file");
  in->rec_hdr = magic == MAGIC_KUZNETZOV ? 24 : 16;
  in->linktype = u32(in, p + 20) & 0x03ffffffu;
  in->pos += 24;
  return 0;
}

floor_input *floor_open(const char *path, floor_mode mode, char *err, size_t errlen) {
  floor_input *in = calloc(1, sizeof *in);
  if (!in) return NULL;
  in->mode = mode;
  in->fd = open(path, O_RDONLY);
  if (in->fd < 0) {
    fail(err, errlen, "%s: %s", path, strerror(errno));
    free(in);
    return NULL;
  }
  if ((mode != FLOOR_READ ? open_map(in, path, err, errlen) : 0) < 0 ||
      open_format(in, err, errlen) < 0) {
    floor_close(in);
    return NULL;
  }
  return in;
}

void floor_close(floor_input *in) {
  if (!in) return;
  if (in->mode == FLOOR_READ)
    free(in->buf);
  else if (in->buf)
    munmap(in->buf, in->cap);
  close(in->fd);
  free(in);
}

static int pcap_next(floor_input *in, floor_rec *rec, char *err, size_t errlen) {
  size_t h = in->rec_hdr;
  int k = fill(in, h, err, errlen);
  if (k <= 0) return k < 0 || in->end == in->pos ? k : fail(err, errlen, "truncated record header");
  uint32_t caplen = u32(in, in->buf + in->pos + 8);
  if (caplen > MAX_CAPLEN) return fail(err, errlen, "record of %u bytes", caplen);
  if ((k = fill(in, h + caplen, err, errlen)) <= 0)
    return k < 0 ? k : fail(err, errlen, "truncated record");
  rec->data = in->buf + in->pos + h;
  rec->caplen = caplen;
  rec->linktype = in->linktype;
  in->pos += h + caplen;
  return 1;
}

/* One pcapng block's body: 1 and a record, 2 for a block that holds none. */
static int ng_body(floor_input *in, uint32_t type, const uint8_t *b, size_t blen, floor_rec *rec,
                   char *err, size_t errlen) {
  if (type == NG_IDB) {
    if (blen < 8) return fail(err, errlen, "short interface block");
    if (in->n_iface == MAX_IFACES) return fail(err, errlen, "more than %u interfaces", MAX_IFACES);
    in->iface[in->n_iface++] = u16(in, b);
    return 2;
  }
  if (type == NG_EPB || type == NG_PB) {
    if (blen < 20) return fail(err, errlen, "short packet block");
    uint32_t id = type == NG_PB ? u16(in, b) : u32(in, b), caplen = u32(in, b + 12);
    if (id >= in->n_iface || caplen > blen - 20) return fail(err, errlen, "bad packet block");
    *rec = (floor_rec){b + 20, caplen, in->iface[id]};
    return 1;
  }
  if (type == NG_SPB) {
    if (blen < 4 || in->n_iface == 0) return fail(err, errlen, "bad simple packet block");
    uint32_t orig = u32(in, b);
    *rec = (floor_rec){b + 4, orig < blen - 4 ? orig : (uint32_t)(blen - 4), in->iface[0]};
    return 1;
  }
  return 2;
}

/* A Section Header Block sets its section's byte order and forgets the
 * interfaces of the section before. */
static void ng_section(floor_input *in, const uint8_t *p) {
  uint32_t bom;
  memcpy(&bom, p + 8, 4);
  in->swapped = bom != NG_BOM;
  in->n_iface = 0;
}

static int ng_next(floor_input *in, floor_rec *rec, char *err, size_t errlen) {
  for (;;) {
    int k = fill(in, 12, err, errlen);
    if (k <= 0) return k < 0 || in->end == in->pos ? k : fail(err, errlen, "truncated block");
    const uint8_t *p = in->buf + in->pos;
    uint32_t type;
    memcpy(&type, p, 4);
    if (type == NG_SHB) ng_section(in, p);
    type = u32(in, p);
    uint32_t tlen = u32(in, p + 4);
    if (tlen < 12 || tlen % 4 || tlen > MAX_BLOCK)
      return fail(err, errlen, "block length %u", tlen);
    if ((k = fill(in, tlen, err, errlen)) <= 0)
      return k < 0 ? k : fail(err, errlen, "truncated block");
    p = in->buf + in->pos;
    in->pos += tlen;
    k = ng_body(in, type, p + 8, tlen - 12, rec, err, errlen);
    if (k != 2) return k;
  }
}

int floor_next(floor_input *in, floor_rec *rec, char *err, size_t errlen) {
  return in->ng ? ng_next(in, rec, err, errlen) : pcap_next(in, rec, err, errlen);
}
