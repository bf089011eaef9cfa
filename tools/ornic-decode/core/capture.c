/* SPDX-License-Identifier: MIT */
/* Capture files: the tool's reader (reader.c) when it takes the file on,
 * else libpcap. The offset of a damaged record is what a user needs to cut
 * a file back to its good part (head -c), so it is tracked per record: for
 * pcap the record's start; for pcapng, whose blocks carry options and
 * padding, the stream position after the last good packet (libpcap's
 * position). The tool's reader knows both exactly. Through libpcap, pcap
 * offsets are computed (file header + record headers + captured bytes),
 * which works on pipes too, and pcapng's is the stream position; on a plain
 * file that position costs an lseek per packet (ftell), which dominated the
 * run time, so there it is found only after a failure, by reading the good
 * packets again. */
#include "capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linktype.h"
#include "live.h"

#define PCAP_FILE_HDR_LEN 24
#define PCAP_REC_HDR_LEN 16
#define PCAP_MOD_REC_HDR_LEN 24 /* Kuznetzov's patched header: + ifindex, protocol, pkt_type */
#define MAGIC_PCAPNG 0x0a0d0d0au
#define MAGIC_KUZNETZOV 0xa1b2cd34u

static uint32_t magic_word(const uint8_t m[4], bool swap) {
  return swap ? (uint32_t)m[3] << 24 | (uint32_t)m[2] << 16 | (uint32_t)m[1] << 8 | m[0]
              : (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3];
}

/* Format from the first four bytes, either byte order. */
static void classify_format(dec_capture *c) {
  uint8_t m[4] = {0};
  dec_input_magic(&c->in, m);
  c->pcapng = magic_word(m, false) == MAGIC_PCAPNG;
  bool kuz = magic_word(m, false) == MAGIC_KUZNETZOV || magic_word(m, true) == MAGIC_KUZNETZOV;
  c->rec_hdr_len = kuz ? PCAP_MOD_REC_HDR_LEN : PCAP_REC_HDR_LEN;
  c->next_off = c->pcapng ? dec_input_tell(&c->in) : PCAP_FILE_HDR_LEN;
}

/* A named plain file libpcap read can be read again to find where its
 * damage starts. */
static bool offset_by_rescan(const dec_capture *c) {
  return !c->own && c->pcapng && c->in.seekable && !c->in.gzip &&
         strcmp(c->in.name, "<stdin>") != 0;
}

/* Stream position after `records` packets of a fresh read of the file. */
static int64_t rescan_offset(const char *path, uint64_t records) {
  char pe[PCAP_ERRBUF_SIZE];
  pcap_t *p = pcap_open_offline(path, pe);
  if (!p) return -1;
  struct pcap_pkthdr *h;
  const u_char *d;
  uint64_t n = 0;
  while (n < records && pcap_next_ex(p, &h, &d) == 1) n++;
  long pos = n == records ? ftell(pcap_file(p)) : -1;
  pcap_close(p);
  return pos;
}

/* libpcap's "error reading dump file: Input/output error" is the EIO of our
 * stream, whose own error says what happened. */
static void open_failed(dec_capture *c, const char *why, char *err, size_t errlen) {
  const char *z = dec_input_error(&c->in);
  if (z && strncmp(why, "error reading dump file", 23) == 0) why = "cannot read the file header";
  snprintf(err, errlen, "%s%s%s%s", why, c->in.gzip ? " (in the gzip-decompressed data)" : "",
           z ? ": " : "", z ? z : "");
}

/* ORNIC_DECODE_READER=libpcap: libpcap reads every file. */
static bool own_reader_wanted(void) {
  const char *v = getenv("ORNIC_DECODE_READER");
  return !v || strcmp(v, "libpcap") != 0;
}

/* The tool's reader, if it takes the file on; else what it read is kept
 * for libpcap to be given again. Returns 1 when it reads the file. */
static int open_own(dec_capture *c) {
  if (dec_reader_open(&c->rd, &c->in) != DEC_READER_OURS) return 0;
  c->own = true;
  c->dlt = c->rd.dlt;
  c->pcapng = c->rd.pcapng;
  c->rec_hdr_len = (unsigned)c->rd.rec_hdr;
  c->next_off = c->rd.rec_off;
  return 1;
}

static int open_libpcap(dec_capture *c, char *err, size_t errlen) {
  char pe[PCAP_ERRBUF_SIZE] = "";
  c->pcap = pcap_fopen_offline_with_tstamp_precision(c->in.fp, PCAP_TSTAMP_PRECISION_NANO, pe);
  if (!c->pcap) {
    open_failed(c, pe, err, errlen);
    fclose(c->in.fp); /* libpcap owns the FILE only once the open succeeded */
    dec_input_free_buffer(&c->in);
    return -1;
  }
  c->dlt = pcap_datalink(c->pcap);
  c->snapshot = (uint32_t)pcap_snapshot(c->pcap);
  if (!dec_link_supported(c->dlt)) {
    const char *name = pcap_datalink_val_to_name(c->dlt);
    snprintf(err, errlen,
             "unsupported link type %d (%s): ornic-decode reads Ethernet, raw IP, "
             "Linux SLL and SLL2, native InfiniBand and ERF captures",
             c->dlt, name ? name : "unknown");
    dec_capture_close(c);
    return -1;
  }
  classify_format(c);
  return 0;
}

int dec_capture_open(dec_capture *c, const char *path, char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  if (dec_input_open(&c->in, path, err, errlen) < 0) return -1;
  if (own_reader_wanted() && open_own(c)) return 0;
  size_t n = 0;
  const uint8_t *replay = c->rd.buf ? dec_reader_replay(&c->rd, &n) : NULL;
  int rc = dec_input_fopen(&c->in, replay, n, err, errlen);
  dec_reader_free(&c->rd);
  if (rc < 0) {
    dec_input_close(&c->in);
    return -1;
  }
  return open_libpcap(c, err, errlen);
}

/* The next record from the tool's reader, as libpcap would hand it over. */
static inline int own_next(dec_capture *c, const struct pcap_pkthdr **hdr, const uint8_t **data) {
  dec_rec rec;
  int rc = dec_reader_next(&c->rd, &rec);
  c->next_off = c->rd.rec_off;
  if (rc != 1) return rc;
  c->records++;
  c->dlt = rec.dlt;
  c->hdr.caplen = rec.caplen;
  c->hdr.len = rec.len;
  c->hdr.ts.tv_sec = (time_t)rec.sec;
  c->hdr.ts.tv_usec = (suseconds_t)rec.nsec;
  *hdr = &c->hdr;
  *data = rec.data;
  return 1;
}

int dec_capture_next(dec_capture *c, const struct pcap_pkthdr **hdr, const uint8_t **data) {
  if (c->own) return own_next(c, hdr, data);
  if (c->live) return dec_live_next(c, hdr, data);
  struct pcap_pkthdr *h;
  int rc = pcap_next_ex(c->pcap, &h, data);
  if (rc == 1) {
    c->records++;
    if (c->pcapng && !offset_by_rescan(c))
      c->next_off = dec_input_tell(&c->in);
    else if (!c->pcapng && h->caplen == c->snapshot)
      c->next_off = dec_input_tell(&c->in); /* libpcap may have cut a longer record to this */
    else
      c->next_off += c->rec_hdr_len + h->caplen;
    *hdr = h;
    return 1;
  }
  return rc == PCAP_ERROR_BREAK ? 0 : -1;
}

/* A gzip trailer check (CRC-32, length) failed after libpcap had read every
 * decompressed byte as whole records: no record is cut, the data is only not
 * vouched for. Said so, rather than blaming a packet. */
static bool trailer_after_last(const dec_capture *c) {
  return dec_input_trailer_error(&c->in) != NULL && c->next_off >= 0 &&
         (uint64_t)c->next_off == dec_input_yielded(&c->in);
}

/* Where: the record (pcapng: block) the damage starts at, as a byte offset
 * a user can cut the file at (head -c). */
static void damage_where(const dec_capture *c, char *buf, size_t len) {
  const char *of = c->in.gzip ? " of the decompressed stream" : "";
  int64_t off = offset_by_rescan(c) ? rescan_offset(c->in.name, c->records) : c->next_off;
  if (trailer_after_last(c))
    snprintf(buf, len, "the gzip trailer after the last packet, at byte offset %lld%s",
             (long long)off, of);
  else if (off >= 0)
    snprintf(buf, len, "%s byte offset %lld%s", c->pcapng ? "the block at" : "the record at",
             (long long)off, of);
  else
    snprintf(buf, len, "an unknown offset");
}

/* What went wrong: libpcap's text, then the stream's error. When libpcap
 * only says "error reading dump file: Input/output error" (the EIO our
 * stream returned), the stream's text alone. */
static void damage_reason(const dec_capture *c, char *buf, size_t len) {
  const char *z = dec_input_error(&c->in);
  const char *p = c->own ? c->rd.err : pcap_geterr(c->pcap);
  if (trailer_after_last(c))
    snprintf(buf, len,
             "%s after the last packet: every record was read whole, but the data may "
             "be corrupt",
             dec_input_trailer_error(&c->in));
  else if (z && strncmp(p, "error reading dump file", 23) == 0)
    snprintf(buf, len, "%s", z);
  else
    snprintf(buf, len, "%s%s%s", p, z ? "; " : "", z ? z : "");
}

void dec_capture_damage(const dec_capture *c, char *msg, size_t len) {
  if (c->live) { /* no file, no offset: libpcap's reason is all there is */
    snprintf(msg, len, "the capture failed after %llu packets: %s", (unsigned long long)c->records,
             pcap_geterr(c->pcap));
    return;
  }
  char where[128], why[PCAP_ERRBUF_SIZE + 200];
  damage_where(c, where, sizeof where);
  damage_reason(c, why, sizeof why);
  snprintf(msg, len, "damaged capture at packet %llu (%s; %llu good packets before it): %s",
           (unsigned long long)c->records + 1, where, (unsigned long long)c->records, why);
}

void dec_capture_close(dec_capture *c) {
  if (c->pcap) pcap_close(c->pcap); /* also closes the input stream */
  c->pcap = NULL;
  if (c->own) {
    dec_reader_free(&c->rd);
    dec_input_close(&c->in);
    c->own = false;
  }
  free(c->live_buf);
  c->live_buf = NULL;
  dec_input_free_buffer(&c->in);
}
