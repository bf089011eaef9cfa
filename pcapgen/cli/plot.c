/* SPDX-License-Identifier: MIT */
#include "plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ornic/psn.h"
#include "gnuplot.h"
#include "profile.h"
#include "sizing.h"
#include "workload.h"

/* SVG size grows with points: 50,000 circles make a file of about 5 MB. The
 * data file holds fewer than MAX_POINTS points (an even number: see thin()). */
#define MAX_POINTS 50000u
#define MAX_DIST 4096u /* histogram bins 0..MAX_DIST-1, then one overflow bin */

typedef struct {
  uint32_t psn;  /* last PSN seen */
  uint64_t rel;  /* its distance from the QP's first PSN, unwrapped */
  uint64_t high; /* highest rel seen */
  bool seen;
} qp_track;

struct plot {
  FILE *data;
  char data_path[64];
  qp_track *qp;
  uint32_t nqps;
  uint64_t stride, arrivals, points;
  uint64_t hist[MAX_DIST + 1];
  uint32_t max_bin;
  int thin_errno; /* thin() failed: no more points; plot_render reports it */
};

bool plot_gnuplot_available(void) {
  const char *path = getenv("PATH");
  char buf[4096];
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    size_t len = strcspn(p, ":");
    if (len && len < sizeof buf - 9) {
      snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)len, p);
      if (access(buf, X_OK) == 0) return true;
    }
    p += len + (p[len] == ':');
  }
  return false;
}

plot *plot_new(const options *o, char *err, size_t errlen) {
  plot *pl = calloc(1, sizeof *pl);
  if (pl) pl->qp = calloc(o->sim.workload.qps, sizeof *pl->qp);
  if (!pl || !pl->qp) {
    snprintf(err, errlen, "--plot: out of memory");
    plot_free(pl);
    return NULL;
  }
  pl->nqps = o->sim.workload.qps;
  for (uint32_t q = 0; q < o->sim.workload.qps; q++) pl->qp[q].psn = wl_start_psn(&o->sim, q);
  uint64_t expected = wl_total_packets(&o->sim);
  pl->stride = expected / MAX_POINTS + 1;
  if (!(pl->data = gp_temp_file(pl->data_path, sizeof pl->data_path, "plot"))) {
    snprintf(err, errlen, "--plot: cannot create a temporary file in %s: %s",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
    plot_free(pl);
    return NULL;
  }
  return pl;
}

void plot_free(plot *pl) {
  if (!pl) return;
  if (pl->data) {
    fclose(pl->data);
    unlink(pl->data_path);
  }
  free(pl->qp);
  free(pl);
}

/* PSN -> distance from the QP's first PSN, following the 24-bit wrap. */
static uint64_t unwrap(qp_track *t, uint32_t psn) {
  int64_t rel = (int64_t)t->rel + ornic_psn_diff(psn, t->psn);
  t->psn = psn;
  t->rel = rel < 0 ? 0 : (uint64_t)rel;
  return t->rel;
}

/* The run sends more packets than its workload needs (retransmissions: a
 * go-back-N run on a sprayed fabric sends 20 to 90 times as many): keep every
 * other point and double the stride. The file held the arrivals 0, s, 2s, ...,
 * (MAX_POINTS - 1)s; it now holds 0, 2s, 4s, ..., and the next point, arrival
 * MAX_POINTS x s, is a multiple of 2s, so the points stay evenly spread. */
static void thin(plot *pl) {
  char path[64], line[256];
  FILE *in = NULL, *out = NULL;
  uint64_t i = 0, kept = 0;
  errno = 0;
  if (fflush(pl->data) != 0 || !(in = fopen(pl->data_path, "r")) ||
      !(out = gp_temp_file(path, sizeof path, "plot")))
    goto fail;
  while (fgets(line, sizeof line, in))
    if (i++ % 2 == 0 && fputs(line, out) != EOF) kept++;
  if (ferror(in) || ferror(out) || fflush(out) != 0) goto fail;
  fclose(in);
  fclose(pl->data);
  unlink(pl->data_path);
  pl->data = out;
  memcpy(pl->data_path, path, sizeof path);
  pl->points = kept;
  pl->stride *= 2;
  return;
fail:
  pl->thin_errno = errno ? errno : EIO;
  if (in) fclose(in);
  if (out) {
    fclose(out);
    unlink(path);
  }
}

void plot_arrival(plot *pl, uint64_t t_ps, uint32_t qp, uint32_t psn, uint32_t path, bool retx) {
  if (qp >= pl->nqps) return;
  qp_track *t = &pl->qp[qp];
  uint64_t rel = unwrap(t, psn);
  if (!retx) {
    uint64_t dist = t->seen && t->high > rel ? t->high - rel : 0;
    uint32_t bin = dist < MAX_DIST ? (uint32_t)dist : MAX_DIST;
    pl->hist[bin]++;
    if (bin > pl->max_bin) pl->max_bin = bin;
  }
  if (!t->seen || rel > t->high) t->high = rel;
  t->seen = true;
  if (pl->arrivals++ % pl->stride || pl->thin_errno) return;
  pl->points++;
  fprintf(pl->data, "%.4f %llu %u %d\n", (double)t_ps / 1e6, (unsigned long long)rel, path,
          retx ? 1 : 0);
  if (pl->points >= MAX_POINTS) thin(pl);
}

static int write_hist(const plot *pl, char *path, size_t cap) {
  FILE *f = gp_temp_file(path, cap, "hist");
  if (!f) return -1;
  for (uint32_t d = 0; d <= pl->max_bin; d++)
    if (pl->hist[d]) fprintf(f, "%u %llu\n", d, (unsigned long long)pl->hist[d]);
  return fclose(f);
}

static void write_psn_plot(FILE *f, const plot *pl, const options *o) {
  const char *where = o->sim.workload.op == OP_READ ? "requester" : "responder";
  fprintf(f, "set title \"PSN against arrival time at the %s (%s%llu packets)\"\n", where,
          pl->stride > 1 ? "sampled: " : "", (unsigned long long)pl->points);
  fputs(
      "set xlabel 'time (us)'\nset ylabel 'PSN - first PSN of the QP'\n"
      "set key outside right top\nset grid\n",
      f);
  fputs("plot ", f);
  if (o->sim.fabric.paths <= 8) {
    for (uint32_t i = 0; i < o->sim.fabric.paths; i++) {
      gp_put_quoted(f, pl->data_path);
      fprintf(f,
              " using ($3 == %u && $4 == 0 ? $1 : NaN):2 with points pt 7 ps 0.25 "
              "lc %u title 'path %u', ",
              i, i + 1, i);
    }
  } else {
    gp_put_quoted(f, pl->data_path);
    fputs(
        " using ($4 == 0 ? $1 : NaN):2:($3 % 8 + 1) with points pt 7 ps 0.25 lc variable "
        "title 'colour = path mod 8', ",
        f);
  }
  gp_put_quoted(f, pl->data_path);
  fputs(
      " using ($4 == 1 ? $1 : NaN):2 with points pt 2 ps 0.6 lc rgb 'black' "
      "title 'retransmission'\n",
      f);
}

static void write_hist_plot(FILE *f, const char *hist_path, const plot *pl) {
  fprintf(f,
          "set title \"Out-of-order distance of first transmissions (PSNs behind the "
          "highest received; bin %u: %u or more)\"\n",
          MAX_DIST, MAX_DIST);
  fputs(
      "set xlabel 'out-of-order distance (PSNs)'\nset ylabel 'packets'\n"
      "set logscale y\nset yrange [0.8:*]\nset style fill solid 0.6\nunset key\n"
      /* One PSN per box: by default gnuplot widens a box next to an empty bin
         * (empty bins are not written) to half the gap to its neighbour. */
      "set boxwidth 1 absolute\n",
      f);
  fprintf(f, "set xrange [-0.5:%u.5]\n", pl->max_bin < 8 ? 8 : pl->max_bin);
  fputs("plot ", f);
  gp_put_quoted(f, hist_path);
  fputs(" using 1:2 with boxes lc rgb '#4060a0'\n", f);
}

static int write_script(const plot *pl, const options *o, const char *svg_tmp,
                        const char *hist_path, char *path, size_t cap) {
  FILE *f = gp_temp_file(path, cap, "gp");
  if (!f) return -1;
  gp_terminal(f, o->plot, 1100, 900);
  fputs("set output ", f);
  gp_put_quoted(f, svg_tmp);
  if (o->sim.fabric.path_list) /* its own delays and losses: --path-events add more */
    fprintf(f,
            "\nset multiplot layout 2,1 title \"ornic-pcapgen --profile %s, %s, %u QP(s), "
            "%u paths (--path list, %g us between delays), seed %llu\"\n",
            o->sim.profile->name, o->sim.workload.op == OP_READ ? "read" : "write",
            o->sim.workload.qps, o->sim.fabric.paths, sizing_mdd_us(&o->sim),
            (unsigned long long)o->sim.seed);
  else
    fprintf(f,
            "\nset multiplot layout 2,1 title \"ornic-pcapgen --profile %s, %s, %u QP(s), "
            "%u paths, %g us delay spread, loss %g, seed %llu\"\n",
            o->sim.profile->name, o->sim.workload.op == OP_READ ? "read" : "write",
            o->sim.workload.qps, o->sim.fabric.paths, o->sim.fabric.delay_spread_us,
            o->sim.fabric.loss, (unsigned long long)o->sim.seed);
  write_psn_plot(f, pl, o);
  write_hist_plot(f, hist_path, pl);
  fputs("unset multiplot\n", f);
  return fclose(f);
}

int plot_render(plot *pl, const options *o, const char *dest, char *err, size_t errlen) {
  char hist_path[64] = "", script[64] = "";
  const char *svg_tmp = dest; /* main.c made it (output_file.h) and renames it */
  int rc = -1;
  if (pl->thin_errno) {
    snprintf(err, errlen, "--plot: thinning the temporary data file failed: %s",
             strerror(pl->thin_errno));
  } else if (fflush(pl->data) != 0 || ferror(pl->data)) {
    snprintf(err, errlen, "--plot: writing the temporary data file failed: %s", strerror(errno));
  } else if (write_hist(pl, hist_path, sizeof hist_path) != 0 ||
             write_script(pl, o, svg_tmp, hist_path, script, sizeof script) != 0) {
    snprintf(err, errlen, "--plot: cannot write a temporary file: %s", strerror(errno));
  } else {
    rc = gp_render(script, err, errlen);
  }
  if (*hist_path) unlink(hist_path);
  if (*script) unlink(script);
  return rc;
}
