/* ornic-pcapgen: command line, signals, and the life cycle of one run:
 * options -> writer -> simulation (profile engines) -> capture + summary. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioi.h"
#include "irn.h"
#include "mprdma.h"
#include "options.h"
#include "ornic_req.h"
#include "ornic_resp.h"
#include "plot.h"
#include "workload.h"
#include "progress.h"
#include "rcpair.h"
#include "roce.h"
#include "sim.h"
#include "summary.h"
#include "truth.h"
#include "writer.h"

enum { EXIT_RUN_FAILED = 1, EXIT_BAD_OPTION = 2, EXIT_INTERRUPTED = 130 };

/* The only mutable global: set by SIGINT, polled by the event loop. */
static volatile sig_atomic_t g_stop;

static void on_sigint(int sig) {
  (void)sig;
  g_stop = 1;
}

static void setup_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sa.sa_flags = SA_RESTART; /* a write in progress completes */
  sigaction(SIGINT, &sa, NULL);
  /* A full pipe or a file-size limit must become an error message, not a kill. */
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
}

/* The profile's engines, created and torn down together. */
typedef struct {
  oreq *oreq;
  oresp *oresp;
  roce *roce;
  irn *irn;
  mprdma *mprdma;
  ioi *ioi;
  rcpair *rc;
} engines;

static bool engines_new(engines *e, sim *s, const options *o) {
  memset(e, 0, sizeof *e);
  if (o->profile == PROFILE_ROCE) return (e->roce = roce_new(s, o)) != NULL;
  if (o->profile == PROFILE_IRN) return (e->irn = irn_new(s, o)) != NULL;
  if (o->profile == PROFILE_MPRDMA) return (e->mprdma = mprdma_new(s, o)) != NULL;
  if (o->profile == PROFILE_IOI) return (e->ioi = ioi_new(s, o)) != NULL;
  if (o->profile == PROFILE_RC) return (e->rc = rcpair_new(s, o)) != NULL;
  e->oresp = oresp_new(s, o);
  e->oreq = e->oresp ? oreq_new(s, o) : NULL;
  return e->oresp && e->oreq;
}

static void engines_start(engines *e) {
  if (e->roce) roce_start(e->roce);
  if (e->irn) irn_start(e->irn);
  if (e->mprdma) mprdma_start(e->mprdma);
  if (e->ioi) ioi_start(e->ioi);
  if (e->oreq) oreq_start(e->oreq);
  if (e->rc) rcpair_start(e->rc);
}

/* The bitmap that tracks the data: the responder's for WRITE, the requester's for READ. */
static void engines_free(engines *e, stats *st, const options *o) {
  if (e->oresp && o->op == OP_WRITE)
    oresp_bitmap_stats(e->oresp, &st->max_blocks_qp, &st->pool_peak, &st->pool_capacity);
  if (e->oreq && o->op == OP_READ)
    oreq_bitmap_stats(e->oreq, &st->max_blocks_qp, &st->pool_peak, &st->pool_capacity);
  oreq_free(e->oreq);
  oresp_free(e->oresp);
  roce_free(e->roce);
  irn_free(e->irn);
  mprdma_free(e->mprdma);
  ioi_free(e->ioi);
  rcpair_free(e->rc);
}

static void plot_observer(void *ctx, uint64_t now, const pkt *p, const ornic_frame *f) {
  plot_arrival(ctx, now, p->m.qp, f->bth.psn, p->path, p->m.retx);
}

/* Runs the simulation into w (and pl, when plotting). Returns sim_run's
 * code; *msg gets an error. */
static int simulate(const options *o, stats *st, writer *w, plot *pl, char *msg, size_t msglen) {
  sim *s = sim_new(o, st, w, msg, msglen);
  if (!s) return -1;
  if (pl) sim_observe_data(s, o->op == OP_READ ? NODE_REQ : NODE_RESP, plot_observer, pl);
  engines e;
  if (!engines_new(&e, s, o)) {
    snprintf(msg, msglen, "out of memory setting up the %s engines", profile_name(o->profile));
    engines_free(&e, st, o);
    sim_free(s);
    return -1;
  }
  progress pg;
  progress_init(&pg, !o->quiet);
  engines_start(&e);
  double t0 = progress_clock();
  int rc = sim_failed(s) ? -1 : sim_run(s, &g_stop, &pg);
  st->wall_s = progress_clock() - t0;
  progress_end(&pg);
  if (rc < 0) snprintf(msg, msglen, "%s", sim_error(s));
  engines_free(&e, st, o);
  sim_free(s);
  return rc;
}

static void report(const options *o, const stats *st) {
  FILE *out = strcmp(o->output, "-") == 0 ? stderr : stdout;
  if (o->bench_packets) {
    double mb = (double)st->bytes_captured / 1e6;
    fprintf(out, "bench: %llu packets, %.1f MB of frames in %.3f s: %.0f packets/s, %.1f MB/s\n",
            (unsigned long long)st->pkts_captured, mb, st->wall_s,
            (double)st->pkts_captured / st->wall_s, mb / st->wall_s);
  }
  if (!o->quiet) summary_print(out, st, o);
}

static int finish_output(const options *o, const stats *st, writer *w, plot *pl) {
  char msg[700];
  if (writer_finish(w, msg, sizeof msg) < 0) {
    fprintf(stderr, "ornic-pcapgen: %s\n", msg);
    return EXIT_RUN_FAILED;
  }
  report(o, st);
  if (pl && plot_render(pl, o, msg, sizeof msg) < 0) {
    fprintf(stderr, "ornic-pcapgen: %s (the capture %s was written)\n", msg, o->output);
    return EXIT_RUN_FAILED;
  }
  if (o->summary_json && summary_write_json(o->summary_json, st, o) < 0) {
    fprintf(stderr, "ornic-pcapgen: cannot write the summary to '%s': %s\n", o->summary_json,
            strerror(errno));
    return EXIT_RUN_FAILED;
  }
  if (st->interrupted) {
    fprintf(stderr,
            "ornic-pcapgen: interrupted: %s holds a valid capture of the %llu packets written "
            "so far (%llu of %llu WQEs completed)\n",
            o->output, (unsigned long long)st->pkts_captured, (unsigned long long)st->wqes_done,
            (unsigned long long)st->wqes_total);
    return EXIT_INTERRUPTED;
  }
  return 0;
}

int main(int argc, char **argv) {
  options o;
  int prc = options_parse(&o, argc, argv, stderr);
  if (prc != 0) {
    options_free(&o);
    return prc > 0 ? 0 : EXIT_BAD_OPTION;
  }
  setup_signals();
  char msg[700];
  /* Checked before the run, which may be long, not after it. */
  if (o.plot && !plot_gnuplot_available()) {
    fprintf(stderr, "ornic-pcapgen: --plot needs gnuplot, which is not installed "
                    "(apt-get install gnuplot-nox); nothing was written\n");
    options_free(&o);
    return EXIT_RUN_FAILED;
  }
  plot *pl = o.plot ? plot_new(&o, msg, sizeof msg) : NULL;
  if (o.plot && !pl) {
    fprintf(stderr, "ornic-pcapgen: %s; nothing was written\n", msg);
    options_free(&o);
    return EXIT_RUN_FAILED;
  }
  writer *w = writer_open(o.output, o.format, o.snaplen, o.gz_level, msg, sizeof msg);
  if (!w) {
    fprintf(stderr, "ornic-pcapgen: %s\n", msg);
    plot_free(pl);
    options_free(&o);
    return EXIT_RUN_FAILED;
  }
  stats *st = calloc(1, sizeof *st); /* large (histogram): not on the stack */
  int rc = -1;
  snprintf(msg, sizeof msg, "out of memory");
  /* Ground truth costs memory: only when a summary will show it. */
  if (st && o.summary_json && !(st->truth = truth_new(&o))) {
    free(st);
    st = NULL;
  }
  if (st) {
    st->wqes_total = wl_total_wqes(&o);
    rc = simulate(&o, st, w, pl, msg, sizeof msg);
  }
  int status;
  if (rc < 0) {
    writer_abort(w);
    fprintf(stderr, "ornic-pcapgen: %s\nornic-pcapgen: no capture written\n", msg);
    status = EXIT_RUN_FAILED;
  } else {
    status = finish_output(&o, st, w, pl);
  }
  if (st) truth_free(st->truth);
  free(st);
  plot_free(pl);
  options_free(&o);
  return status;
}
