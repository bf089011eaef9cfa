/* SPDX-License-Identifier: MIT */
/* The read-mutate-write loop of run.h. One rule per concern, each in its
 * place: reading and damage reports are ornic-decode's (core/capture.c),
 * RoCE or not is its codec's verdict (core/packet.c), the mutation is
 * fuzz/mutator's, atomic output files are libs/ornic-cli's (outfile.c). */
#include "run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "cli.h"
#include "cli_outfile.h"
#include "interrupt.h"
#include "ornic_mutator.h"
#include "packet.h"
#include "pcap_write.h"
#include "signals.h"

#define PROG "ornic-mutate"

typedef struct {
  const mut_opts *o;
  cli_outfile out, log;
  bool has_log;
  ornic_mut *mut;
  uint8_t *buf; /* one variant */
  mut_counts *n;
} mut_state;

/* One output record and its log line. kind: mutated, broken, original,
 * copied. */
static int emit(mut_state *s, int64_t sec, uint32_t nsec, const uint8_t *d, size_t len,
                const char *kind, const char *what) {
  if (nsec >= 1000000000u) { /* +1 ns per variant carried into the seconds */
    sec += nsec / 1000000000u;
    nsec %= 1000000000u;
  }
  if (mut_pcap_frame(s->out.fp, sec, nsec, d, len) < 0) return -1;
  s->n->out_frames++;
  if (s->has_log && fprintf(s->log.fp, "%" PRIu64 "\t%" PRIu64 "\t%s\t%s\n", s->n->out_frames,
                            s->n->in_frames, kind, what) < 0)
    return -1;
  return 0;
}

/* A RoCE frame: the original when asked, then the variants, 1 ns apart. */
static int mutate_frame(mut_state *s, int64_t sec, uint32_t nsec, const uint8_t *d, size_t len) {
  uint32_t t = 0;
  if (s->o->keep_original && emit(s, sec, nsec, d, len, "original", "-") < 0) return -1;
  if (s->o->keep_original) t++;
  for (unsigned v = 0; v < s->o->variants; v++, t++) {
    size_t m = ornic_mut_mutate(s->mut, d, len, s->buf, MUT_SNAPLEN);
    if (m == 0) { /* the mutator could not (cap): the frame as it was, said so */
      if (emit(s, sec, nsec + t, d, len, "copied", "mutator declined") < 0) return -1;
      continue;
    }
    bool broken = ornic_mut_last_broken(s->mut) != 0;
    if (emit(s, sec, nsec + t, s->buf, m, broken ? "broken" : "mutated", ornic_mut_last(s->mut)) <
        0)
      return -1;
    s->n->mutated++;
    s->n->broken += broken;
  }
  return 0;
}

/* One input record. Only Ethernet frames go into an Ethernet capture; a
 * frame the snaplen cut is not mutated (its iCRC is not there to fix). */
static int one_frame(mut_state *s, dec_capture *cap, const struct pcap_pkthdr *h,
                     const uint8_t *d) {
  static dec_packet pk; /* large: kept off the stack */
  dec_decode_cfg cfg = {.dlt = cap->dlt, .verify_icrc = false, .pcapng = cap->pcapng};
  if (cap->dlt != DLT_EN10MB) {
    s->n->skipped++;
    return 0;
  }
  dec_packet_decode(&pk, &cfg, s->n->in_frames, h, d);
  int64_t sec = pk.sec;
  uint32_t nsec = pk.nsec;
  if (pk.cls == DEC_CLASS_ROCE && !pk.snap_cut && h->caplen <= MUT_SNAPLEN)
    return mutate_frame(s, sec, nsec, d, h->caplen);
  if (s->o->drop_other) return 0;
  return emit(s, sec, nsec, d, h->caplen, "copied",
              pk.cls == DEC_CLASS_ROCE ? "cut by snaplen" : "not RoCE");
}

static void discard(mut_state *s) {
  mut_discard_on_signals(NULL, NULL);
  cli_outfile_discard(&s->out);
  if (s->has_log) cli_outfile_discard(&s->log);
}

static int open_outputs(mut_state *s) {
  char err[512];
  if (cli_outfile_open(&s->out, s->o->out, err, sizeof err) < 0) {
    fprintf(stderr, PROG ": %s\n", err);
    return -1;
  }
  s->has_log = s->o->log != NULL;
  if (s->has_log && cli_outfile_open(&s->log, s->o->log, err, sizeof err) < 0) {
    fprintf(stderr, PROG ": %s\n", err);
    cli_outfile_discard(&s->out);
    return -1;
  }
  mut_discard_on_signals(s->out.tmp, s->has_log ? s->log.tmp : NULL);
  if (mut_pcap_begin(s->out.fp) < 0) {
    fprintf(stderr, PROG ": %s: cannot write\n", s->o->out);
    discard(s);
    return -1;
  }
  return 0;
}

static int commit(mut_state *s) {
  char err[512];
  /* Commit frees the temporary names the handler would read; a second signal
   * during it leaves a `.NAME.tmp.*`, which pcapgen's stale-file sweep knows. */
  mut_discard_on_signals(NULL, NULL);
  if (cli_outfile_commit(&s->out, err, sizeof err) < 0 ||
      (s->has_log && cli_outfile_commit(&s->log, err, sizeof err) < 0)) {
    fprintf(stderr, PROG ": %s\n", err);
    discard(s);
    return -1;
  }
  return 0;
}

/* The loop: 1 a frame could not be written, -1 IN is damaged (reported),
 * 0 its end or a stop signal. */
static int loop(mut_state *s, dec_capture *cap) {
  const struct pcap_pkthdr *h;
  const uint8_t *d;
  int rc;
  while (!dec_interrupted() && (rc = dec_capture_next(cap, &h, &d)) != 0) {
    if (rc < 0) {
      if (dec_interrupted()) return 0; /* the input read as ended where the stop cut it */
      char err[512];
      dec_capture_damage(cap, err, sizeof err);
      fprintf(stderr, PROG ": %s: %s\n", cap->in.name, err);
      return -1;
    }
    s->n->in_frames++;
    if (one_frame(s, cap, h, d) < 0) {
      fprintf(stderr, PROG ": %s: cannot write (frame %" PRIu64 ")\n", s->o->out, s->n->in_frames);
      return 1;
    }
  }
  return 0;
}

static ornic_mut *new_mutator(const mut_opts *o) {
  ornic_mut_cfg cfg;
  ornic_mut_cfg_default(&cfg);
  cfg.seed = o->seed;
  cfg.byte_rate = o->byte_rate;
  cfg.break_rate = o->break_rate;
  cfg.break_kinds = o->break_kinds;
  cfg.max_steps = o->steps;
  return ornic_mut_new(&cfg);
}

/* Runs the loop and completes or discards the outputs. */
static int work(mut_state *s, dec_capture *cap) {
  if (loop(s, cap) != 0) {
    discard(s);
    return CLI_EXIT_FAILURE;
  }
  if (commit(s) < 0) return CLI_EXIT_FAILURE;
  int sig = mut_stop_signal();
  return sig ? 128 + sig : CLI_EXIT_OK;
}

int mut_run(const mut_opts *o, mut_counts *n) {
  mut_state s = {.o = o, .n = n};
  dec_capture cap;
  char err[512];
  int rc = CLI_EXIT_FAILURE;
  *n = (mut_counts){0};
  mut_stop_on_signals();
  if (dec_capture_open(&cap, o->in, err, sizeof err) < 0) {
    fprintf(stderr, PROG ": %s: %s\n", o->in, err);
    return CLI_EXIT_FAILURE;
  }
  s.mut = new_mutator(o);
  s.buf = malloc(MUT_SNAPLEN);
  if (!s.mut || !s.buf)
    fprintf(stderr, PROG ": out of memory\n");
  else if (open_outputs(&s) == 0)
    rc = work(&s, &cap);
  ornic_mut_free(s.mut);
  free(s.buf);
  dec_capture_close(&cap);
  return rc;
}
