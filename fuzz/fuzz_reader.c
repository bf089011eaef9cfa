/* SPDX-License-Identifier: MIT */
/* fuzz_reader: tools/ornic-decode's own capture reader (core/reader.c)
 * against libpcap, on the same bytes. The reader's contract (reader.h) is
 * what libpcap 1.10 gives: the same records, lengths, nanosecond times and
 * bytes, and an end or a damage report at the same record. The input is a
 * capture file: the reader reads it from a memfd opened by path, as
 * `ornic-decode FILE` does; libpcap reads it through fmemopen
 * (pcap_fopen_offline, nanosecond precision). Files the reader leaves to
 * libpcap (another format or version, a link type the decoder lacks, a
 * header libpcap would refuse) and gzip (fuzz_capture's) are not compared:
 * in the tool libpcap alone reads them.
 *
 * The oracle, record by record for as long as both give one: time, caplen,
 * len, bytes and link type equal; then both end the same way (end of file,
 * or damage). The differences documented as deliberate are allowed, each
 * with its source below (allowed_stop); any other aborts. */
#define _GNU_SOURCE
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_driver.h"
#include "memfile.h"
#include "input.h"
#include "reader.h"

/* Records per input: every code path, and no hang on a file of tiny ones. */
#define MAX_RECORDS 5000

static fuzz_memfile mem;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_memfile_init(&mem, "fuzz_reader");
  return 0;
}

/* libpcap on a stdio stream over the input (it owns the stream from here). */
static pcap_t *open_libpcap(const uint8_t *data, size_t size, char *err) {
  FILE *fp = fmemopen((void *)data, size, "rb");
  if (!fp) return NULL;
  pcap_t *p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, err);
  if (!p) fclose(fp);
  return p;
}

/* Where libpcap may stop although the reader goes on: the differences the
 * documents call deliberate. 1: allowed (stop comparing); 0: not. */
static int allowed_stop(const dec_reader *r, const char *lib_err) {
  /* tools/ornic-decode/README.md "Input" and reader.c's header: libpcap
   * refuses a pcapng interface whose link type or snaplen differs from the
   * first one's; the tool's reader gives each interface its own
   * (tests/decode-io/run_identity.sh, "where the readers differ by design"). */
  if (strstr(lib_err, "different from the type of the first interface") ||
      strstr(lib_err, "different from the snapshot length of the first interface"))
    return 1;
  /* The same document: a pcapng section whose byte order differs from the
   * one before; libpcap reads its header in the old order and fails in one
   * of several ways, the reader follows the new order (issue 28 item 7,
   * tests/decode-io/pcapng_byte_order.py). */
  return r->mixed_order;
}

/* Both gave a record: the same one. pcap seconds are compared as unsigned
 * 32-bit: libpcap copies them through a signed 32-bit field, so from 2038
 * on its tv_sec is negative where the reader's is not (docs/RELIABILITY.md,
 * "Timestamps after 2038"; core/packet.c capture_seconds undoes it in the
 * tool). libpcap's tv_usec holds nanoseconds (NANO precision), in a long
 * the reader's 32-bit value wraps like (reader.c ng_time, classic_next). */
static void compare_record(const dec_reader *r, pcap_t *p, uint64_t n, const dec_rec *rec,
                           const struct pcap_pkthdr *h, const uint8_t *d) {
  int64_t lib_sec = r->pcapng ? (int64_t)h->ts.tv_sec : (int64_t)(uint32_t)h->ts.tv_sec;
  fuzz_check(rec->sec == lib_sec && rec->nsec == (uint32_t)h->ts.tv_usec,
             "record %llu: time %lld.%09u, libpcap %lld.%09u", (unsigned long long)n,
             (long long)rec->sec, rec->nsec, (long long)lib_sec, (unsigned)h->ts.tv_usec);
  fuzz_check(rec->caplen == h->caplen && rec->len == h->len,
             "record %llu: caplen %u len %u, libpcap caplen %u len %u", (unsigned long long)n,
             rec->caplen, rec->len, h->caplen, h->len);
  fuzz_check(rec->caplen == 0 || memcmp(rec->data, d, rec->caplen) == 0,
             "record %llu: the bytes differ", (unsigned long long)n);
  fuzz_check(rec->dlt < 0 || rec->dlt == pcap_datalink(p), "record %llu: DLT %d, libpcap %d",
             (unsigned long long)n, rec->dlt, pcap_datalink(p));
}

/* The reader's and libpcap's records side by side, then how each ended. */
static void compare(dec_reader *r, pcap_t *p) {
  uint64_t n = 0;
  for (;;) {
    dec_rec rec;
    struct pcap_pkthdr *h;
    const u_char *d;
    int ro = dec_reader_next(r, &rec);
    int rl = pcap_next_ex(p, &h, &d);
    if (ro == 1 && rl == 1) {
      compare_record(r, p, ++n, &rec, h, d);
      if (n == MAX_RECORDS) return;
      continue;
    }
    const char *lib_err = rl == PCAP_ERROR ? pcap_geterr(p) : "";
    if (rl == PCAP_ERROR && allowed_stop(r, lib_err)) return;
    /* The same end: a record from one alone is a count difference; end of
     * file against damage would change the tool's exit status. */
    fuzz_check((ro == 1) == (rl == 1) && (ro < 0) == (rl == PCAP_ERROR),
               "after %llu records: the reader %s (%s), libpcap %s (%s)", (unsigned long long)n,
               ro == 1   ? "gave a record"
               : ro == 0 ? "ended"
                         : "found damage",
               ro < 0 ? r->err : "",
               rl == 1            ? "gave a record"
               : rl == PCAP_ERROR ? "found damage"
                                  : "ended",
               lib_err);
    return;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0; /* no capture; fmemopen refuses an empty buffer */
  fuzz_memfile_store(&mem, data, size);
  dec_input in;
  char err[PCAP_ERRBUF_SIZE] = "";
  if (dec_input_open(&in, mem.path, err, sizeof err) < 0) return 0;
  dec_reader r;
  if (in.gzip || dec_reader_open(&r, &in) != DEC_READER_OURS) {
    if (!in.gzip) dec_reader_free(&r);
    dec_input_close(&in);
    return 0;
  }
  pcap_t *p = open_libpcap(data, size, err);
  /* The reader takes on only what libpcap opens (reader.h), but for a
   * section of the other byte order before the first interface (an empty
   * first section): allowed_stop's second case, met while opening. */
  fuzz_check(p != NULL || r.mixed_order, "the reader opened a file libpcap refuses: %s", err);
  if (p) {
    compare(&r, p);
    pcap_close(p);
  }
  dec_reader_free(&r);
  dec_input_close(&in);
  return 0;
}
