/* SPDX-License-Identifier: MIT */
/* ornic-pcapgen: command line, signals, and the life cycle of one run:
 * options -> writer -> simulation (profile engines) -> capture + summary. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk_space.h"
#include "incast.h"
#include "incast_plot.h"
#include "memory_budget.h"
#include "options.h"
#include "output_file.h"
#include "plot.h"
#include "profile.h"
#include "progress.h"
#include "records.h"
#include "sim.h"
#include "summary.h"
#include "truth.h"
#include "workload.h"
#include "writer.h"

/* Exit statuses (--help lists them). */
enum { EXIT_RUN_FAILED = 1, EXIT_BAD_OPTION = 2, EXIT_NO_PROGRESS = 3, EXIT_SIGNAL_BASE = 128 };

/* The only mutable global: the signal (SIGINT, SIGTERM, SIGHUP) that asked
 * the run to stop, polled by the event loop and by the writer. */
static volatile sig_atomic_t g_stop;

static void on_stop(int sig) { g_stop = sig; }

static const char *stop_name(int sig) {
  return sig == SIGINT    ? "SIGINT"
         : sig == SIGTERM ? "SIGTERM"
         : sig == SIGHUP  ? "SIGHUP"
                          : "a signal";
}

/* SIGTERM (timeout, systemd, kill) and SIGHUP (a closed terminal) stop the
 * run as Ctrl-C does: the capture so far is renamed into place, never left
 * as a hidden temporary file. No SA_RESTART: a write(2) blocked on a FIFO or
 * a full pipe, or an open(2) waiting for a FIFO's reader, returns EINTR so
 * the run can stop. A signal ignored when we started (nohup) stays ignored. */
static void setup_signals(void) {
  static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  for (size_t i = 0; i < sizeof stops / sizeof *stops; i++)
    if (sigaction(stops[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(stops[i], &sa, NULL);
  /* A full pipe or a file-size limit must become an error message, not a kill. */
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
}

static void plot_observer(void *ctx, uint64_t now, const pkt *p, const ornic_frame *f) {
  plot_arrival(ctx, now, p->m.qp, f->bth.psn, p->path, p->m.retx);
}

static void show_progress(void *ctx, const stats *st, uint64_t bytes_written) {
  progress_update(ctx, st->wqes_done, st->wqes_total, st->pkts_captured, bytes_written);
}

/* Runs the simulation into w (and pl, when plotting) with the engines of the
 * profile (profile.h). Returns sim_run's code; *msg gets an error. */
static int simulate(const options *o, stats *st, writer *w, plot *pl, char *msg, size_t msglen) {
  if (o->sim.incast.senders) { /* --senders: N sims behind a switch (fabric/incast.h) */
    double t0 = progress_clock();
    int rc = incast_run(&o->sim, st, w, &g_stop, msg, msglen);
    st->wall_s = progress_clock() - t0;
    return rc;
  }
  sim *s = sim_new(&o->sim, st, w, msg, msglen);
  if (!s) return -1;
  if (pl)
    sim_observe_data(s, o->sim.workload.op == OP_READ ? NODE_REQ : NODE_RESP, plot_observer, pl);
  const profile_engines *pe = o->sim.profile->engines;
  void *e = pe->create(s, &o->sim);
  if (!e) {
    snprintf(msg, msglen, "out of memory setting up the %s engines", o->sim.profile->name);
    sim_free(s);
    return -1;
  }
  progress pg;
  progress_init(&pg, !o->quiet);
  pe->start(e);
  double t0 = progress_clock();
  int rc = sim_failed(s) ? -1 : sim_run(s, &g_stop, show_progress, &pg);
  st->wall_s = progress_clock() - t0;
  progress_end(&pg);
  if (rc < 0) snprintf(msg, msglen, "%s", sim_error(s));
  if (pe->stats) pe->stats(e, st);
  pe->destroy(e);
  sim_free(s);
  return rc;
}

static void report(const options *o, const stats *st) {
  FILE *out = strcmp(o->output, "-") == 0 ? stderr : stdout;
  if (o->sim.bench_packets) {
    double mb = (double)st->bytes_captured / 1e6;
    fprintf(out, "bench: %llu packets, %.1f MB of frames in %.3f s: %.0f packets/s, %.1f MB/s\n",
            (unsigned long long)st->pkts_captured, mb, st->wall_s,
            (double)st->pkts_captured / st->wall_s, mb / st->wall_s);
  }
  if (!o->quiet) summary_print(out, st, o);
}

/* --summary-json and --plot: opened before the run (a bad path costs no
 * run), replaced atomically after it. "-" (summary to stdout) is not a file. */
typedef struct {
  outpath summary, plot;
} side_outputs;

static int open_side_outputs(const options *o, side_outputs *so, char *msg, size_t len) {
  so->summary = (outpath){NULL, NULL, -1, false};
  so->plot = (outpath){NULL, NULL, -1, false};
  if (o->summary_json && strcmp(o->summary_json, "-") != 0 &&
      outpath_open(&so->summary, o->summary_json, "--summary-json", msg, len) < 0)
    return -1;
  if (o->plot && outpath_open(&so->plot, o->plot, "--plot", msg, len) < 0) {
    outpath_discard(&so->summary);
    return -1;
  }
  return 0;
}

static void discard_side_outputs(side_outputs *so) {
  outpath_discard(&so->summary);
  outpath_discard(&so->plot);
}

/* The summary into its temporary file, synced (it is small, and a summary
 * that vanishes in a crash while the capture stays would mislead), renamed. */
static int write_summary(const options *o, const stats *st, outpath *op, char *msg, size_t len) {
  if (strcmp(o->summary_json, "-") == 0) {
    if (summary_write_json("-", st, o) == 0) return 0;
    snprintf(msg, len, "cannot write the summary to stdout: %s", strerror(errno));
    return -1;
  }
  FILE *f = NULL;
  bool ok = (op->tmp_path || op->special || ftruncate(op->fd, 0) == 0) &&
            (f = fdopen(op->fd, "w")) != NULL;
  if (f) op->fd = -1; /* fclose closes it */
  ok = ok && summary_write_json_stream(f, st, o) == 0 && (op->special || fsync(fileno(f)) == 0);
  int e = errno;
  if (f && fclose(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    snprintf(msg, len, "cannot write the summary to '%s': %s", o->summary_json, strerror(e));
    outpath_discard(op);
    return -1;
  }
  return outpath_commit(op, false, msg, len);
}

static int write_plot(const options *o, const stats *st, plot *pl, outpath *op, char *msg,
                      size_t len) {
  int rc = o->sim.incast.senders ? incast_plot_render(st, o, outpath_current(op), msg, len)
                                 : plot_render(pl, o, outpath_current(op), msg, len);
  if (rc < 0) {
    outpath_discard(op);
    return -1;
  }
  return outpath_commit(op, true, msg, len);
}

static int interrupted(const options *o, const stats *st) {
  fprintf(stderr,
          "ornic-pcapgen: interrupted by %s: %s holds a valid capture of the %llu packets written "
          "so far (%llu of %llu WQEs completed)\n",
          stop_name(g_stop), o->output, (unsigned long long)st->pkts_captured,
          (unsigned long long)st->wqes_done, (unsigned long long)st->wqes_total);
  return EXIT_SIGNAL_BASE + g_stop;
}

static int finish_output(const options *o, const stats *st, writer *w, plot *pl, side_outputs *so) {
  char msg[700];
  if (writer_finish(w, msg, sizeof msg) < 0) {
    discard_side_outputs(so);
    fprintf(stderr, "ornic-pcapgen: %s\n", msg);
    if (g_stop) {
      fprintf(stderr,
              "ornic-pcapgen: interrupted by %s while the output was blocked: %s is "
              "incomplete\n",
              stop_name(g_stop), o->output);
      return EXIT_SIGNAL_BASE + g_stop;
    }
    return EXIT_RUN_FAILED;
  }
  report(o, st);
  if (pl && write_plot(o, st, pl, &so->plot, msg, sizeof msg) < 0) {
    outpath_discard(&so->summary);
    fprintf(stderr, "ornic-pcapgen: %s (the capture %s was written)\n", msg, o->output);
    return EXIT_RUN_FAILED;
  }
  if (o->summary_json && write_summary(o, st, &so->summary, msg, sizeof msg) < 0) {
    fprintf(stderr, "ornic-pcapgen: %s (the capture %s was written)\n", msg, o->output);
    return EXIT_RUN_FAILED;
  }
  return st->interrupted ? interrupted(o, st) : 0;
}

/* A run that failed: nothing but a message (and a FIFO's partial bytes). */
static int run_failed(const options *o, const stats *st, const char *msg) {
  fprintf(stderr, "ornic-pcapgen: %s\n", msg);
  if (g_stop) {
    fprintf(stderr,
            "ornic-pcapgen: interrupted by %s while the output was blocked; no capture "
            "written%s\n",
            stop_name(g_stop), strcmp(o->output, "-") ? "" : " (stdout is cut)");
    return EXIT_SIGNAL_BASE + g_stop;
  }
  fprintf(stderr, "ornic-pcapgen: no capture written\n");
  return st && st->stalled ? EXIT_NO_PROGRESS : EXIT_RUN_FAILED;
}

/* A capture of a gigabyte or more is worth a word before it is written (the
 * floor: go-back-N's resends can multiply it; --max-output caps it). Not
 * when the tap keeps less than every frame whole: the floor would not hold. */
static void size_notice(const options *o) {
  double floor = wl_capture_floor(&o->sim);
  if (!space_capture_whole(o) || floor < 1e9 || o->sim.bench_packets ||
      !strcmp(o->output, "/dev/null"))
    return;
  bool gz = writer_is_gz(o->output);
  fprintf(stderr, "ornic-pcapgen: '%s' will hold at least %.2f GB%s%s\n", o->output, floor / 1e9,
          gz ? " before compression" : "", o->max_output ? "" : " (--max-output SIZE caps it)");
}

/* Everything that can be refused is refused before the run: memory, disk
 * space, gnuplot, every output path. EXIT_* or 0. */
static int prepare(const options *o, side_outputs *so, plot **pl, writer **w) {
  char msg[700];
  *pl = NULL;
  *w = NULL;
  if (budget_check(&o->sim, stderr) < 0) return EXIT_BAD_OPTION;
  /* Before any output is opened: discarding one written in place (output_file.h)
   * would truncate it. */
  if (space_check(o, stderr) < 0) return EXIT_RUN_FAILED;
  if (o->plot && !plot_gnuplot_available()) {
    fprintf(stderr,
            "ornic-pcapgen: --plot needs gnuplot, which is not installed "
            "(apt-get install gnuplot-nox); nothing was written\n");
    return EXIT_RUN_FAILED;
  }
  if (open_side_outputs(o, so, msg, sizeof msg) < 0) {
    fprintf(stderr, "ornic-pcapgen: %s; nothing was run\n", msg);
    return g_stop ? EXIT_SIGNAL_BASE + g_stop : EXIT_RUN_FAILED;
  }
  if (o->plot && !(*pl = plot_new(o, msg, sizeof msg))) {
    fprintf(stderr, "ornic-pcapgen: %s; nothing was written\n", msg);
    discard_side_outputs(so);
    return EXIT_RUN_FAILED;
  }
  size_notice(o);
  /* Last: written in place, the capture's old content goes when it opens. */
  if (!(*w = writer_open(o->output, o->format, o->snaplen, o->gz_level, msg, sizeof msg))) {
    fprintf(stderr, "ornic-pcapgen: %s; nothing was run\n", msg);
    discard_side_outputs(so);
    plot_free(*pl);
    *pl = NULL;
    return g_stop ? EXIT_SIGNAL_BASE + g_stop : EXIT_RUN_FAILED;
  }
  writer_watch(*w, &g_stop);
  writer_limit(*w, o->max_output);
  return 0;
}

int main(int argc, char **argv) {
  options o;
  int prc = options_parse(&o, argc, argv, stderr);
  if (prc != 0) {
    options_free(&o);
    return prc == 1 ? 0 : prc == 2 ? EXIT_RUN_FAILED : EXIT_BAD_OPTION;
  }
  setup_signals();
  side_outputs so;
  plot *pl;
  writer *w;
  int status = prepare(&o, &so, &pl, &w);
  if (status) {
    options_free(&o);
    return status;
  }
  char msg[700];
  stats *st = calloc(1, sizeof *st); /* large (histogram): not on the stack */
  int rc = -1;
  snprintf(msg, sizeof msg, "out of memory");
  /* Ground truth costs memory: only when a summary will show it. */
  if (st && o.summary_json && !o.sim.incast.senders &&
      !(st->truth = truth_new(o.sim.capture.start_us))) {
    free(st);
    st = NULL;
  }
  if (st && o.records && !(st->records = records_new(o.records, o.sim.workload.qps))) {
    truth_free(st->truth);
    free(st);
    st = NULL;
  }
  if (st && sim_fabric_custom(&o.sim.fabric) && stats_paths_new(st, &o.sim.fabric) < 0) {
    truth_free(st->truth);
    records_free(st->records);
    free(st);
    st = NULL;
  }
  if (st) {
    st->wqes_total = wl_total_wqes(&o.sim);
    rc = simulate(&o, st, w, pl, msg, sizeof msg);
  }
  if (rc < 0) {
    writer_abort(w);
    discard_side_outputs(&so);
    status = run_failed(&o, st, msg);
  } else {
    status = finish_output(&o, st, w, pl, &so);
  }
  if (st) {
    truth_free(st->truth);
    records_free(st->records);
    stats_paths_free(st);
    incast_result_free(st->incast);
  }
  free(st);
  plot_free(pl);
  options_free(&o);
  return status;
}
