/* SPDX-License-Identifier: MIT */
/* ornic-decode: decode RoCEv2/RoCEv1 and ORNIC packets in pcap/pcapng
 * captures or live from an interface. This file holds the read loop and the
 * exit statuses; the command line (options.c), capture input (core/, live.c
 * for interfaces, merge.c for several files read as one, ahead.c for the
 * reading and decoding on a thread of their own), -f on files
 * (filter.c), -w (dump.c), --plot (plot.c), the note on a
 * capture without RoCE (seen.c), output formats, statistics and signals
 * live in their own files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ornic/ornic.h>

#include "ahead.h"
#include "analysis.h"
#include "capture.h"
#include "cli.h"
#include "dump.h"
#include "filter.h"
#include "interrupt.h"
#include "live.h"
#include "merge.h"
#include "options.h"
#include "outbuf.h"
#include "packet.h"
#include "plot.h"
#include "print.h"
#include "seen.h"
#include "signals.h"
#include "stats.h"

enum {
  EXIT_OK = CLI_EXIT_OK,
  EXIT_FAIL = CLI_EXIT_FAILURE, /* unreadable or unsupported input, write error */
  EXIT_DAMAGED = 2, /* the capture is damaged (live: failed); packets before were decoded */
  EXIT_STRICT = 3   /* --strict: a bad iCRC or a decode error was seen */
};

/* The side streams of a run: -f on a file, -w, --plot. */
typedef struct {
  bool filtering, dumping;
  dec_filter filter;
  dec_dump dump;
  dec_plot *plot; /* NULL without --plot */
} dec_io;

typedef struct {
  uint64_t shown; /* packets that passed the filters and were not skipped */
  uint64_t icrc_bad, errors;
  bool damaged;
  bool failed;   /* -f or -w stopped the run (message printed) */
  dec_seen seen; /* what the capture held */
} dec_run;

static dec_out out; /* 256 KiB: static, not on the stack */

static bool wanted(const dec_opts *o, const dec_packet *pk) {
  return !o->have_qp || (pk->has_bth && pk->f.bth.destqp == o->qp);
}

/* What the text output shows is what -w writes: skipped packets with -v. */
static bool shown(const dec_opts *o, const dec_packet *pk) {
  return pk->cls != DEC_CLASS_SKIPPED || o->verbose;
}

static void print_packet(const dec_opts *o, const dec_packet *pk) {
  if (pk->cls == DEC_CLASS_SKIPPED) {
    if (!o->verbose) return;
    if (o->json)
      dec_json_skipped(&out, pk);
    else
      dec_text_skipped(&out, pk);
  } else if (o->json) {
    dec_json_packet(&out, pk);
  } else {
    dec_text_packet(&out, pk);
  }
}

/* A failure of -f or -w in the middle of the run: the output so far is
 * flushed before the complaint, as for a damaged capture. */
static int io_failed(dec_run *r, const char *err) {
  dec_out_flush(&out);
  fprintf(stderr, DEC_PROG ": %s\n", err);
  r->failed = true;
  return -1;
}

/* -f on a file: 1 keep, 0 pass over, -1 failed. */
static int filter_keeps(dec_io *io, dec_run *r, const dec_capture *cap, const struct pcap_pkthdr *h,
                        const uint8_t *data) {
  if (!io->filtering) return 1;
  char err[512];
  int m = dec_filter_match(&io->filter, cap->dlt, h, data, err, sizeof err);
  return m < 0 ? io_failed(r, err) : m;
}

/* One selected packet: printed or counted, and written by -w. 0, or -1
 * when -w failed. */
static int emit(const dec_opts *o, dec_io *io, dec_stats *st, dec_run *r, const dec_packet *pk,
                int dlt, const struct pcap_pkthdr *h, const uint8_t *data) {
  if (o->stats)
    dec_stats_add(st, pk);
  else if (dec_options_print_packets(o))
    print_packet(o, pk);
  char err[512];
  if (io->dumping && shown(o, pk) &&
      dec_dump_packet(&io->dump, dlt, pk->frame, h, data, err, sizeof err) < 0)
    return io_failed(r, err);
  r->icrc_bad += pk->icrc == DEC_ICRC_BAD;
  r->errors += pk->error != NULL;
  return 0;
}

/* A signal asked a file, pipe or stdin to stop (a live capture stops in
 * dec_capture_next, after draining what the kernel had buffered). */
static bool interrupted(const dec_merge *m) { return !m->caps[0].live && dec_interrupted(); }

/* A damaged file (or a failed live capture): the good packets first, then
 * the complaint, naming the file, its packet and byte offset. The run ends
 * there, for several files too, as mergecap's merge does (Wireshark 4.0:
 * "appears to have been cut short", exit 2): the output is the files'
 * mergecap'd union's, and the analysis never sees one side of a
 * conversation go on while the other's packets are missing (which it would
 * report as losses). A ring's last file, cut when tcpdump was killed, is
 * last in time too: nothing of the others is after its cut. */
static void damage(const dec_merge *m, dec_run *r) {
  const dec_capture *cap = &m->caps[m->cur];
  char err[512];
  r->damaged = true;
  dec_capture_damage(cap, err, sizeof err);
  dec_out_flush(&out);
  if (m->n == 1)
    fprintf(stderr, DEC_PROG ": %s: %s\n", cap->in.name, err);
  else
    fprintf(stderr,
            DEC_PROG
            ": %s: %s; the merge of the %d files stops here, after frame %llu (cut the "
            "file there to read the others on)\n",
            cap->in.name, err, m->n, (unsigned long long)m->records);
}

/* What follows the decoding of one packet, the same with one thread or two:
 * the engine (an, NULL with --no-analysis) sees every packet, --qp or not
 * (pairing a QP needs both directions), then --qp, the output, -w and -c.
 * 0 to go on, 1 when -c's count is reached, -2 when -w failed. */
static int after_decode(const dec_opts *o, dec_io *io, ornic_analysis *an, dec_stats *st,
                        dec_run *r, dec_packet *pk, int dlt, const struct pcap_pkthdr *h,
                        const uint8_t *data) {
  dec_seen_add(&r->seen, pk);
  if (an) dec_analyse(an, pk, o->json);
  if (io->plot) dec_plot_packet(io->plot, pk); /* every packet: --qp picks conversations */
  if (!wanted(o, pk)) {
    if (o->stats) dec_stats_add_filtered(st, pk);
    return 0;
  }
  if (emit(o, io, st, r, pk, dlt, h, data) < 0) return -2;
  /* -c counts what passed --qp and was not skipped; count 0 never matches. */
  return pk->cls != DEC_CLASS_SKIPPED && ++r->shown == o->count;
}

/* The read loop (after_decode: what each packet goes through). A stop signal
 * ends it before the next packet. Returns dec_capture_next's last result
 * (0 when stopped), or -2 when -f or -w failed. */
static int run(const dec_opts *o, dec_io *io, dec_merge *m, ornic_analysis *an, dec_stats *st,
               dec_run *r) {
  dec_decode_cfg cfg = {.udp_port = o->port, .pmtu = o->pmtu, .verify_icrc = o->verify_icrc};
  const struct pcap_pkthdr *h;
  const uint8_t *data;
  dec_packet pk;
  int rc = 0, keep;
  while (!interrupted(m) && (rc = dec_merge_next(m, &h, &data)) != 0) {
    if (rc < 0) {
      /* Interrupted, the input read as ended wherever it was cut, perhaps
       * in a record: no damage. */
      if (interrupted(m)) return 0;
      damage(m, r);
      return -1;
    }
    /* Several files: a signal that came while one was read for its next
     * record stops before the record chosen without it. */
    if (m->n > 1 && interrupted(m)) return 0;
    const dec_capture *cap = &m->caps[m->cur];
    if ((keep = filter_keeps(io, r, cap, h, data)) <= 0) {
      if (keep < 0) return -2;
      continue;
    }
    cfg.dlt = cap->dlt;                    /* pcapng: each interface has its own */
    cfg.pcapng = cap->pcapng || cap->live; /* 64-bit seconds */
    /* Frame numbers run on across files: those of the files' mergecap'd union. */
    dec_packet_decode(&pk, &cfg, m->records, h, data);
    int step = after_decode(o, io, an, st, r, &pk, cap->dlt, h, data);
    if (step < 0) return step;
    if (step) break;
  }
  return rc;
}

/* run() with the reading and decoding on a thread of their own (ahead.h):
 * the same steps in the same order on the records it hands back, so the
 * output is the one-thread loop's. A stop signal is checked before each
 * packet here as there; m->records is set back to the packets this loop
 * took (the reader may have read further), for the messages that count
 * them. Returns as run(), or 1 when the thread could not be started and
 * nothing was read. */
static int run_ahead(const dec_opts *o, dec_io *io, dec_merge *m, ornic_analysis *an, dec_stats *st,
                     dec_run *r) {
  dec_decode_cfg cfg = {.udp_port = o->port, .pmtu = o->pmtu, .verify_icrc = o->verify_icrc};
  /* The iCRC on the side with less to do: here when no line is printed
   * per packet (--stats, -w), where the engine alone is less than the
   * reading and decoding; with the lines, on the reader thread. */
  cfg.later_crc = !dec_options_print_packets(o);
  uint64_t taken = m->records; /* before the reader thread owns m */
  dec_ahead *a = dec_ahead_start(m, &cfg);
  if (!a) return 1;
  dec_ahead_rec *x;
  int rc = 0;
  bool early = false;
  while (!early && (x = dec_ahead_next(a)) != NULL) {
    if (dec_interrupted()) break;
    dec_packet *pk = &x->pk;
    dec_packet_crc(pk, &cfg, x->data);
    taken = pk->frame;
    int step = after_decode(o, io, an, st, r, pk, x->dlt, &x->h, x->data);
    if (step < 0) rc = step;
    early = step != 0;
  }
  int end = dec_ahead_finish(a);
  m->records = taken;
  if (early || dec_interrupted()) return rc;
  if (end == -1) {
    damage(m, r);
    return -1;
  }
  if (end < 0) {
    r->failed = true;
    dec_out_flush(&out);
    fputs(DEC_PROG ": out of memory for a record\n", stderr);
    return -2;
  }
  return 0;
}

/* Notes for a first user, on stderr after the output (not with -q): a
 * capture without RoCE, or --qp matching none of its RoCE packets. */
static void notes(const dec_opts *o, const dec_merge *m, const dec_run *r) {
  const dec_capture *cap = &m->caps[0];
  if (o->quiet || r->failed || r->damaged) return;
  dec_seen_ctx c = {.records = m->records,
                    .filter = cap->live ? NULL : o->filter,
                    .live = cap->live,
                    .port = o->port};
  if (dec_seen_note_no_roce(&r->seen, &c) || !o->have_qp || r->shown) return;
  fprintf(stderr, DEC_PROG ": none of the %llu RoCE packets has DestQP 0x%06x (--qp)\n",
          (unsigned long long)r->seen.roce, o->qp);
}

/* -w: the file appears once everything selected is in it; a run that
 * failed leaves nothing. A damaged capture's packets before the damage are
 * all there: the file is as complete as the input allows. */
static int finish_dump(const dec_opts *o, dec_io *io, const dec_run *r) {
  if (!io->dumping) return 0;
  char err[512];
  if (r->failed) {
    dec_dump_discard(&io->dump);
    return -1;
  }
  /* Interrupted, the file holds every packet selected before the signal,
   * each whole: a valid capture, committed as tcpdump keeps its -w file on
   * Ctrl-C; the exit status and stderr say it ends early. */
  if (dec_dump_commit(&io->dump, err, sizeof err) < 0) {
    fprintf(stderr, DEC_PROG ": %s\n", err);
    return -1;
  }
  if (!o->quiet && strcmp(o->write, "-") != 0)
    fprintf(stderr, DEC_PROG ": %llu packets written to %s\n", (unsigned long long)io->dump.written,
            o->write);
  return 0;
}

/* --plot: drawn from what was read, as --stats is (a signal or damage ends
 * it early: the title says so); not after -f or -w failed. */
static int finish_plot(const dec_opts *o, dec_io *io, const dec_stats *st, const char *name,
                       const dec_run *r) {
  if (!io->plot || r->failed) return 0;
  dec_plot_end e = {.an = st->an,
                    .capture = name,
                    .have_qp = st->have_qp,
                    .qp = st->qp,
                    .interrupted = st->interrupted,
                    .damaged = r->damaged};
  char err[512];
  unsigned panels;
  if (dec_plot_draw(io->plot, &e, &panels, err, sizeof err) < 0) {
    fprintf(stderr, DEC_PROG ": %s\n", err);
    return -1;
  }
  if (!o->quiet)
    fprintf(stderr, DEC_PROG ": %u conversation direction%s drawn to %s\n", panels,
            panels == 1 ? "" : "s", o->plot);
  return 0;
}

static int finish(const dec_opts *o, dec_io *io, const dec_merge *m, dec_stats *st,
                  const dec_run *r) {
  const char *name = m->name ? m->name : m->caps[0].in.name;
  if (o->stats && !r->failed) {
    st->damaged = r->damaged;
    if (o->json)
      dec_stats_print_json(&out, st, name);
    else
      dec_stats_print_text(&out, st, name);
  }
  dec_out_flush(&out);
  bool write_error = out.failed || ferror(stdout);
  if (write_error) fprintf(stderr, DEC_PROG ": error writing the output: %s\n", strerror(errno));
  if (st->interrupted && !o->quiet)
    fprintf(stderr, DEC_PROG ": %s: interrupted by %s after %llu packets\n", name, st->interrupted,
            (unsigned long long)m->records);
  bool plot_failed = finish_plot(o, io, st, name, r) < 0;
  if (finish_dump(o, io, r) < 0 || write_error || r->failed || plot_failed) return EXIT_FAIL;
  if (!st->interrupted) notes(o, m, r); /* about a capture read through */
  /* 128 + N, the shell's status for death by signal N (and pcapgen's): a
   * script learns the output ends early. */
  if (st->interrupted) return 128 + dec_stop_signal();
  if (r->damaged) return EXIT_DAMAGED;
  if (o->strict && (r->icrc_bad || r->errors)) return EXIT_STRICT;
  return EXIT_OK;
}

/* -i: the interface, ready to read, and the signals that end the capture.
 * "listening on" goes to stderr once packets are being captured, as
 * tcpdump's: a script can wait for it before it sends. */
static int open_live(const dec_opts *o, dec_capture *cap) {
  char err[512], warn[512];
  dec_live_cfg cfg = {.iface = o->iface,
                      .filter = o->filter,
                      .promisc = !o->no_promisc,
                      .buffer_kib = o->buffer_kib,
                      .snaplen = o->snaplen};
  if (dec_live_open(cap, &cfg, err, sizeof err, warn, sizeof warn) < 0) {
    fprintf(stderr, DEC_PROG ": %s\n", err);
    return -1;
  }
  if (warn[0]) fprintf(stderr, DEC_PROG ": warning: %s\n", warn);
  dec_live_describe(cap, err, sizeof err);
  if (!o->quiet) fprintf(stderr, DEC_PROG ": %s\n", err);
  dec_stop_on_signals(cap);
  return 0;
}

/* Files, a pipe or stdin: the signals first, as opening reads (and a pipe
 * may have nothing to read yet). Every file is opened before any is read: a
 * missing one costs no output. */
static int open_input(const dec_opts *o, dec_merge *m) {
  if (o->iface) {
    if (dec_merge_single(m) < 0) {
      fputs(DEC_PROG ": out of memory\n", stderr);
      return -1;
    }
    if (open_live(o, &m->caps[0]) == 0) return 0;
    dec_merge_close(m);
    return -1;
  }
  dec_stop_on_signals(NULL);
  char err[512];
  const char *one[1] = {o->path};
  const char *const *paths = o->npaths ? o->paths : one;
  int failed;
  if (dec_merge_open(m, paths, o->npaths ? o->npaths : 1, &failed, err, sizeof err) == 0) return 0;
  const char *path = failed >= 0 ? paths[failed] : NULL;
  const char *name = path && strcmp(path, "-") ? path : "<stdin>";
  if (failed < 0)
    fprintf(stderr, DEC_PROG ": %s\n", err);
  else if (dec_stop_signal())
    fprintf(stderr, DEC_PROG ": %s: interrupted by %s before the capture's header was read\n", name,
            dec_signal_name(dec_stop_signal()));
  else
    fprintf(stderr, DEC_PROG ": %s: %s\n", name, err);
  return -1;
}

/* -f on a file and -w, once the capture's link type is known: a bad filter
 * or an output that cannot be created costs no reading. */
static int open_io(const dec_opts *o, dec_io *io, const dec_merge *m) {
  const dec_capture *cap = &m->caps[0]; /* a packet of another link type compiles its own filter */
  char err[512];
  memset(io, 0, sizeof *io);
  if (o->plot && !(io->plot = dec_plot_open(o->plot, err, sizeof err))) goto fail;
  if (o->filter && !cap->live) {
    if (dec_filter_init(&io->filter, o->filter, cap->dlt, err, sizeof err) < 0) goto fail;
    io->filtering = true;
  }
  if (o->write) {
    int snap = cap->live ? pcap_snapshot(cap->pcap) : DEC_LIVE_SNAPLEN;
    if (dec_dump_open(&io->dump, o->write, cap->dlt, snap, err, sizeof err) < 0) goto fail;
    io->dumping = true;
    /* A stop signal ends the run cleanly (the file is committed); SIGPIPE
     * and a second signal kill it, and then the temporary file goes. */
    dec_discard_on_signals(io->dump.out.tmp);
  }
  return 0;
fail:
  fprintf(stderr, DEC_PROG ": %s\n", err);
  if (io->filtering) dec_filter_free(&io->filter);
  dec_plot_free(io->plot);
  return -1;
}

static ornic_analysis *open_analysis(const dec_opts *o, dec_stats *st) {
  ornic_analysis_cfg_init(&st->an_cfg); /* the defaults, which --stats prints */
  if (o->otd) st->an_cfg.otd = o->otd;
  st->an_cfg.pmtu = o->pmtu;
  st->an_cfg.max_memory = o->max_memory;
  if (o->max_convs) st->an_cfg.max_convs = o->max_convs;
  ornic_analysis *an = ornic_analysis_new(&st->an_cfg);
  if (!an) fputs(DEC_PROG ": out of memory for the conversation analysis\n", stderr);
  return an;
}

/* Reads the capture through and reports; the exit status. */
static int decode(const dec_opts *o, dec_io *io, dec_merge *m, dec_stats *st) {
  dec_capture *cap = &m->caps[0]; /* a live capture's */
  ornic_analysis *an = NULL;
  if (o->analysis && !(an = open_analysis(o, st))) return EXIT_FAIL;
  st->an = an;
  st->have_qp = o->have_qp;
  st->qp = o->qp;
  st->fabric.link_gbps = o->link_gbps; /* --stats' PFC/PAUSE times */
  dec_run r = {0};
  char err[512];
  /* --threads: where the reading can go to a thread (ahead.h); else, or
   * when no thread can be had, the one-thread loop. */
  const char *one[1] = {o->path}; /* -r FILE, or stdin */
  if (o->threads < 2 || cap->live ||
      !dec_ahead_applies(o->npaths ? o->paths : one, o->npaths ? o->npaths : 1, out.line_flush,
                         io->filtering) ||
      run_ahead(o, io, m, an, st, &r) == 1)
    run(o, io, m, an, st, &r); /* reports damage itself */
  if (interrupted(m)) st->interrupted = dec_signal_name(dec_stop_signal());
  if (cap->live)
    st->live = dec_live_counts(cap, &st->live_recv, &st->live_drop, &st->live_ifdrop) == 0;
  int status = finish(o, io, m, st, &r);
  if (cap->live && !o->quiet) { /* after the output: the counts say whether it is complete */
    dec_live_summary(cap, err, sizeof err);
    fprintf(stderr, DEC_PROG ": %s\n", err);
  }
  if (an) ornic_analysis_free(an);
  return status;
}

int main(int argc, char **argv) {
  dec_opts o;
  int prc = dec_options_parse(&o, argc, argv);
  if (prc >= 0) return prc;
  dec_merge cap;
  dec_io io;
  if (open_input(&o, &cap) < 0) return dec_stop_signal() ? 128 + dec_stop_signal() : EXIT_FAIL;
  if (open_io(&o, &io, &cap) < 0) {
    dec_merge_close(&cap);
    return EXIT_FAIL;
  }
  /* stdout is written through dec_out's 256 KiB buffer, in chunks that
   * bypass stdio's own (glibc ignores setvbuf sizes without a buffer). */
  dec_out_init(&out, stdout, o.line_buffered || isatty(STDOUT_FILENO));
  dec_stats st;
  dec_stats_init(&st);
  int status = decode(&o, &io, &cap, &st);
  if (io.dumping) dec_dump_discard(&io.dump); /* no-op after a commit */
  if (io.filtering) dec_filter_free(&io.filter);
  dec_plot_free(io.plot);
  dec_stats_free(&st);
  dec_merge_close(&cap);
  return status;
}
