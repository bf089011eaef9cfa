/* SPDX-License-Identifier: MIT */
/* fuzz_capture: the reading path of tools/ornic-decode, as the tool runs it:
 * the input stream (plain, or gzip through the inflating stream), libpcap's
 * pcap and pcapng readers, link types, the per-packet verdicts, the
 * conversation-analysis engine (libornicproto's ornic/analysis.h, with a
 * small window and conversation table so that its growth and limits are
 * reached), the text and JSON printers, --stats, and the damaged-file
 * report.
 *
 * Input: a capture file, as bytes (gzip-compressed or not). It is written to
 * a memory file and opened by path, exactly as `ornic-decode FILE` opens it;
 * output goes to /dev/null. The oracle is the sanitizers (memory, leaks,
 * undefined behaviour) plus: a file that does not open says why, and a
 * damaged file's report names the packet. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis.h"
#include "capture.h"
#include "fuzz_driver.h"
#include "outbuf.h"
#include "packet.h"
#include "print.h"
#include "stats.h"

/* Records per input: enough for every code path, few enough that a gzip
 * bomb of tiny packets cannot turn into a hang. */
#define MAX_RECORDS 2000

static int mem_fd = -1;
static char mem_path[64];
static dec_out out; /* 256 KiB: static, as in the tool */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  mem_fd = memfd_create("fuzz_capture", 0);
  FILE *devnull = fopen("/dev/null", "w");
  if (mem_fd < 0 || !devnull) {
    perror("fuzz_capture: setup");
    exit(1);
  }
  snprintf(mem_path, sizeof mem_path, "/proc/self/fd/%d", mem_fd);
  dec_out_init(&out, devnull, false);
  return 0;
}

static void store(const uint8_t *data, size_t size) {
  size_t done = 0;
  fuzz_check(ftruncate(mem_fd, 0) == 0, "ftruncate");
  while (done < size) {
    ssize_t n = pwrite(mem_fd, data + done, size - done, (off_t)done);
    fuzz_check(n > 0, "pwrite to the memory file");
    done += (size_t)n;
  }
}

static void print_all(const dec_packet *pk) {
  if (pk->cls == DEC_CLASS_SKIPPED) {
    dec_text_skipped(&out, pk);
    dec_json_skipped(&out, pk);
  } else {
    dec_text_packet(&out, pk);
    dec_json_packet(&out, pk);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  store(data, size);
  dec_capture cap;
  char err[512] = "";
  if (dec_capture_open(&cap, mem_path, err, sizeof err) < 0) {
    fuzz_check(err[0] != '\0', "open failed without a message");
    return 0;
  }
  ornic_analysis_cfg acfg;
  ornic_analysis_cfg_init(&acfg);
  acfg.window = 512;
  acfg.max_convs = 8;
  ornic_analysis *an = ornic_analysis_new(&acfg);
  fuzz_check(an != NULL, "ornic_analysis_new");
  dec_stats st;
  dec_stats_init(&st);
  st.an = an;
  st.an_cfg = acfg;
  dec_decode_cfg cfg = {.dlt = cap.dlt, .udp_port = 0, .verify_icrc = true, .pcapng = cap.pcapng};
  const struct pcap_pkthdr *h;
  const uint8_t *pkt;
  static dec_packet pk;
  int rc;
  while ((rc = dec_capture_next(&cap, &h, &pkt)) == 1 && cap.records <= MAX_RECORDS) {
    cfg.dlt = cap.dlt; /* pcapng: each interface has its own (as main.c) */
    dec_packet_decode(&pk, &cfg, cap.records, h, pkt);
    dec_analyse(an, &pk);
    print_all(&pk);
    dec_stats_add(&st, &pk);
  }
  if (rc < 0) {
    dec_capture_damage(&cap, err, sizeof err);
    fuzz_check(strstr(err, "damaged capture at packet") != NULL, "damage report: %s", err);
    st.damaged = true;
  }
  dec_stats_print_text(&out, &st, cap.in.name);
  dec_stats_print_json(&out, &st, cap.in.name);
  out.len = 0; /* nobody reads it: skip the write */
  dec_stats_free(&st);
  ornic_analysis_free(an);
  dec_capture_close(&cap);
  return 0;
}
