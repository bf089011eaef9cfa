/* SPDX-License-Identifier: MIT */
/* --plot FILE.svg|FILE.png: writes a gnuplot script (FILE.svg.gp, data inline) and runs
 * gnuplot on it. Without gnuplot the script stays for later and the caller
 * is told so. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results.h"

static void bars(FILE *f, const char *name, const options *o, const results *r, bool blocks) {
  fprintf(f, "$%s << EOD\n", name);
  int x = 0;
  for (int k = 0; k < BM_NMODELS; k++) {
    if (!o->model[k]) continue;
    const stat_acc *a =
        blocks ? &r->main[k][SC_NO_LOSS].max_blocks : &r->main[k][SC_NO_LOSS].cost_ooo;
    const stat_acc *b = blocks ? &r->main[k][SC_LOSS].max_blocks : &r->main[k][SC_LOSS].cost_ooo;
    fprintf(f, "%d \"%s\" %.6g %.6g %.6g %.6g\n", x++, bm_kind_name((bm_kind)k), stat_mean(a),
            stat_sd(a), stat_mean(b), stat_sd(b));
  }
  fputs("EOD\n", f);
}

static void sweep_data(FILE *f, const options *o, const results *r, bool aborted) {
  fprintf(f, "$%s << EOD\nqps", aborted ? "aborted" : "empty");
  for (int k = 0; k < BM_NMODELS; k++)
    if (o->model[k]) fprintf(f, " \"%s\"", bm_kind_name((bm_kind)k));
  fputs("\n", f);
  for (size_t i = 0; i < o->nsweep; i++) {
    fprintf(f, "%u", r->sweep[i].qps);
    for (int k = 0; k < BM_NMODELS; k++) {
      if (!o->model[k]) continue;
      const model_stats *s = &r->sweep[i].m[k];
      fprintf(f, " %.6g", stat_mean(aborted ? &s->aborted : &s->pool_empty));
    }
    fputs("\n", f);
  }
  fputs("EOD\n", f);
}

/* One block per detector (blank-line separated, gnuplot "index"). */
static void detector_data(FILE *f, const options *o, const results *r) {
  fputs("$det << EOD\n", f);
  for (size_t i = 0; i < r->ndet; i++) {
    const det_row *d = &r->det[i];
    bool first = i == 0 || strcmp(d->name, r->det[i - 1].name) != 0;
    if (i && first) fputs("\n\n", f);
    if (first) fprintf(f, "diff_us delay_us false \"%s\"\n", d->name); /* read by columnhead(4) */
    fprintf(f, "%.6g %.6g %.6g \"%s\"\n", d->diff_us, d->delay_us.n ? stat_mean(&d->delay_us) : 0.0,
            stat_mean(&d->false_per_1000), d->name);
  }
  fputs("EOD\n", f);
  (void)o;
}

/* A gnuplot double-quoted string: the path may hold quotes or backslashes. */
static void put_quoted(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void script(FILE *f, const options *o, const results *r) {
  int nmodels = 0;
  for (int k = 0; k < BM_NMODELS; k++) nmodels += o->model[k];
  bool sweep = o->nsweep > 0, det = o->detectors && r->ndet;
  int rows = 1 + sweep + det;
  if (ends_with(o->plot, ".png"))
    fprintf(f, "set terminal pngcairo size 1100,%d font 'sans,10'\n", 380 * rows);
  else
    fprintf(f, "set terminal svg size 1100,%d dynamic font 'sans,11' background '#ffffff'\n",
            380 * rows);
  fputs("set output ", f);
  put_quoted(f, o->plot);
  fputs("\n", f);
  bars(f, "cost", o, r, false);
  bars(f, "blocks", o, r, true);
  if (sweep) sweep_data(f, o, r, false), sweep_data(f, o, r, true);
  if (det) detector_data(f, o, r);
  fprintf(f,
          "set multiplot layout %d,2\nset style fill solid 0.6 border -1\nset boxwidth 0.35\nset "
          "grid ytics\n"
          "set xrange [-0.6:%d.6]\nset key top left\n",
          rows, nmodels - 1);
  fprintf(
      f, "set title 'Access cost per out-of-order packet (mean, sd over seeds)'\nset ylabel '%s'\n",
      o->exp.cost_pointer ? "pointer accesses (per-QP entry free)" : "memory accesses");
  fputs(
      "set yrange [0:*]\n"
      "plot $cost using ($1-0.18):3:4:xtic(2) with boxerrorbars title 'no loss', "
      "$cost using ($1+0.18):5:6 with boxerrorbars title 'loss'\n",
      f);
  fputs(
      "set title 'Most blocks one QP held (per-seed maximum: mean, sd)'\nset ylabel 'blocks'\n"
      "plot $blocks using ($1-0.18):3:4:xtic(2) with boxerrorbars title 'no loss', "
      "$blocks using ($1+0.18):5:6 with boxerrorbars title 'loss'\n",
      f);
  fputs("unset xrange\nunset xtics\nset xtics\nset logscale x 2\nset key autotitle columnhead\n",
        f);
  if (sweep) {
    fprintf(f,
            "set title 'Pool exhaustion with loss (pool %u): arrivals finding it empty'\nset "
            "xlabel 'QPs at once'\n"
            "set ylabel 'arrivals (mean over seeds)'\nplot for [i=2:%d] $empty using 1:i with "
            "linespoints lw 2\n",
            o->exp.pool, nmodels + 1);
    fprintf(f,
            "set title 'WQEs aborted (a packet dropped %u times)'\nset ylabel 'WQEs (mean over "
            "seeds)'\n"
            "plot for [i=2:%d] $aborted using 1:i with linespoints lw 2\n",
            o->exp.retry_limit, nmodels + 1);
  }
  if (det) {
    fputs(
        "unset logscale x\nset key autotitle center right\nset xlabel 'path delay difference "
        "(us)'\n"
        "set title 'Loss detection delay'\nset ylabel 'us after the would-be arrival'\n"
        "set yrange [*:*]\nplot for [i=0:*] $det index i using 1:2 with linespoints lw 2 title "
        "columnhead(4)\n"
        "set title 'False alarms (late packets declared lost)'\nset ylabel 'per 1000 arrivals'\n"
        "plot for [i=0:*] $det index i using 1:3 with linespoints lw 2 title columnhead(4)\n",
        f);
  }
  fputs("unset multiplot\n", f);
}

int plot_svg(const options *o, const results *r) {
  size_t len = strlen(o->plot) + 4;
  char *gp = malloc(len);
  if (!gp) return -1;
  snprintf(gp, len, "%s.gp", o->plot);
  FILE *f = fopen(gp, "w");
  if (!f) {
    fprintf(stderr, "ornic-bitmap-sim: cannot write %s: %s\n", gp, strerror(errno));
    free(gp);
    return -1;
  }
  script(f, o, r);
  if (fclose(f) != 0) {
    fprintf(stderr, "ornic-bitmap-sim: cannot write %s: %s\n", gp, strerror(errno));
    free(gp);
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", gp, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  int rc = -1;
  if (pid < 0) {
    fprintf(stderr, "ornic-bitmap-sim: cannot start gnuplot: %s\n", strerror(errno));
  } else if (waitpid(pid, &status, 0) < 0) {
    fprintf(stderr, "ornic-bitmap-sim: waiting for gnuplot: %s\n", strerror(errno));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    fprintf(stderr,
            "ornic-bitmap-sim: gnuplot is not installed: %s NOT drawn (apt install gnuplot-nox, "
            "then run "
            "'gnuplot %s')\n",
            o->plot, gp);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "ornic-bitmap-sim: gnuplot failed on %s: %s NOT drawn\n", gp, o->plot);
  } else {
    rc = 0;
  }
  free(gp);
  return rc;
}
