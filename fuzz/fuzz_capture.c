/* SPDX-License-Identifier: MIT */
/* fuzz_capture: the reading path of tools/ornic-decode, as the tool runs it:
 * the input stream (plain, or gzip through the inflating stream), the tool's
 * own pcap and pcapng reader (core/reader.c) and libpcap's for the files it
 * does not take on (core/capture.c), link types, the per-packet verdicts, the
 * conversation-analysis engine (libornicproto's ornic/analysis.h, with its
 * default window and table and a memory budget of 4 MiB, so that its limits
 * are reached: docs/RELIABILITY.md "Hostile captures"), the text and JSON
 * printers, --stats, and the damaged-file report.
 *
 * Input: a capture file, as bytes (gzip-compressed or not). It is written to
 * a memory file and opened by path, exactly as `ornic-decode FILE` opens it;
 * output goes to /dev/null. The oracle is the sanitizers (memory, leaks,
 * undefined behaviour) plus: a file that does not open says why, a
 * damaged file's report names the packet, and each frame prints the same
 * text and JSON whatever the packet state held before: decoded after the
 * previous frame (as the tool does), into states poisoned with 0xA5 and
 * 0x5A bytes, and into a zeroed one (stale_state_check; issue 28 item 4: a frame cut
 * inside its ERF or SLL header printed the previous frame's LRH); and the
 * analysis keeps its limits (limits_check). */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis.h"
#include "capture.h"
#include "fuzz_driver.h"
#include "memfile.h"
#include "outbuf.h"
#include "packet.h"
#include "print.h"
#include "stats.h"

/* Records per input: enough for every code path, few enough that a gzip
 * bomb of tiny packets cannot turn into a hang. */
#define MAX_RECORDS 2000

static fuzz_memfile mem;
static dec_out out; /* 256 KiB: static, as in the tool */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_memfile_init(&mem, "fuzz_capture");
  FILE *devnull = fopen("/dev/null", "w");
  if (!devnull) {
    perror("fuzz_capture: /dev/null");
    exit(1);
  }
  dec_out_init(&out, devnull, false);
  return 0;
}

static void print_to(dec_out *o, const dec_packet *pk) {
  if (pk->cls == DEC_CLASS_SKIPPED) {
    dec_text_skipped(o, pk);
    dec_json_skipped(o, pk);
  } else {
    dec_text_packet(o, pk);
    dec_json_packet(o, pk);
  }
}

static void print_all(const dec_packet *pk) { print_to(&out, pk); }

/* One frame's text and JSON, from a fresh buffer (its caches empty, so the
 * three renderings compared below start alike); one frame's output is far
 * below the buffer's size, so it stays whole in o->buf. */
static void render(dec_out *o, const dec_packet *pk) {
  dec_out_init(o, out.fp, false);
  print_to(o, pk);
}

/* One frame decoded into a state filled with `poison`, rendered into o. */
static void render_poisoned(dec_out *o, uint8_t poison, const dec_decode_cfg *cfg, uint64_t frame,
                            const struct pcap_pkthdr *h, const uint8_t *pkt) {
  static dec_packet pk;
  memset(&pk, poison, sizeof pk);
  dec_packet_decode(&pk, cfg, frame, h, pkt);
  render(o, &pk);
}

static bool same(const dec_out *a, const dec_out *b) {
  return a->len == b->len && memcmp(a->buf, b->buf, a->len) == 0;
}

/* The frame in `after` was decoded over the previous frame's state (before
 * the analysis engine saw it: its verdict is not part of the frame); decoded
 * again into a zeroed state and into states filled with 0xA5 and with 0x5A
 * (between them every bit set: a stale flag such as ORNIC_LAYER_LRH, bit 4,
 * is 0 in 0xA5), it must print the same bytes. A difference is a field the
 * printers read that decoding did not set for this frame. */
static void stale_state_check(const dec_packet *after, const dec_decode_cfg *cfg,
                              const struct pcap_pkthdr *h, const uint8_t *pkt) {
  static dec_out o_clean, o_other;
  static const uint8_t poisons[] = {0xA5, 0x5A};
  render_poisoned(&o_clean, 0, cfg, after->frame, h, pkt);
  render(&o_other, after);
  const char *how = same(&o_other, &o_clean) ? NULL : "after the previous frame";
  for (size_t i = 0; !how && i < sizeof poisons; i++) {
    render_poisoned(&o_other, poisons[i], cfg, after->frame, h, pkt);
    if (!same(&o_other, &o_clean)) how = poisons[i] == 0xA5 ? "from 0xA5 bytes" : "from 0x5A bytes";
  }
  fuzz_check(how == NULL,
             "frame %llu prints differently %s:\n%.*s\nthan from a zeroed state:\n%.*s",
             (unsigned long long)after->frame, how, (int)o_other.len, o_other.buf, (int)o_clean.len,
             o_clean.buf);
}

/* The engine's promises (analysis.h "Memory" and "Work"): its memory stays
 * within the budget, but for the forced first window and WQE ring of each
 * direction of the conversations it admitted (their room was reserved) and
 * the doubling of its maps (at most their size again); its range walks take
 * at most 12 windows per direction and 2112 steps per packet, whatever
 * ranges the packets name. */
static void limits_check(const ornic_analysis *an, const ornic_analysis_cfg *acfg,
                         uint64_t packets) {
  ornic_an_limits l;
  ornic_analysis_limits(an, &l);
  uint64_t convs = ornic_analysis_conv_count(an);
  fuzz_check(l.memory_peak <= acfg->max_memory + acfg->max_memory / 4 + 65536,
             "analysis memory peak %llu over the budget %llu", (unsigned long long)l.memory_peak,
             (unsigned long long)acfg->max_memory);
  uint64_t bound = 2 * convs * 12 * (uint64_t)acfg->window + packets * 2112;
  fuzz_check(l.work_steps <= bound, "analysis work %llu steps over its bound %llu (%llu packets)",
             (unsigned long long)l.work_steps, (unsigned long long)bound,
             (unsigned long long)packets);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_memfile_store(&mem, data, size);
  dec_capture cap;
  char err[512] = "";
  if (dec_capture_open(&cap, mem.path, err, sizeof err) < 0) {
    fuzz_check(err[0] != '\0', "open failed without a message");
    return 0;
  }
  ornic_analysis_cfg acfg;
  ornic_analysis_cfg_init(&acfg);
  acfg.max_memory = 4u << 20;
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
    stale_state_check(&pk, &cfg, h, pkt);
    dec_analyse(an, &pk, true);
    print_all(&pk);
    dec_stats_add(&st, &pk);
  }
  if (rc < 0) {
    dec_capture_damage(&cap, err, sizeof err);
    fuzz_check(strstr(err, "damaged capture at packet") != NULL, "damage report: %s", err);
    st.damaged = true;
  }
  limits_check(an, &acfg, cap.records);
  dec_stats_print_text(&out, &st, cap.in.name);
  dec_stats_print_json(&out, &st, cap.in.name);
  out.len = 0; /* nobody reads it: skip the write */
  dec_stats_free(&st);
  ornic_analysis_free(an);
  dec_capture_close(&cap);
  return 0;
}
