/* SPDX-License-Identifier: MIT */
#include "incast_plot.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "incast.h"
#include "gnuplot.h"
#include "profile.h"

#define RATE_WINDOW_PS 100000000ull /* the delivered rate's averaging window: 100 us */

/* One line per sample: time (us), queue (KB), then per sender its delivered
 * rate and its DCQCN rate (Gb/s). */
static int write_data(const incast_result *r, uint32_t pmtu, char *path, size_t cap) {
  const incast_timeline *tl = &r->tl;
  FILE *f = gp_temp_file(path, cap, "incast");
  if (!f) return -1;
  size_t w = RATE_WINDOW_PS / tl->interval_ps;
  if (w < 1) w = 1;
  for (size_t i = 0; i < tl->n; i++) {
    size_t j = i >= w ? i - w : 0;
    double span_ps = (double)(i - j) * (double)tl->interval_ps;
    fprintf(f, "%.3f %.3f", (double)(i * tl->interval_ps) / 1e6, (double)tl->queue[i] / 1e3);
    for (uint32_t k = 0; k < r->senders; k++) {
      uint64_t d = tl->accepted[i * r->senders + k] - tl->accepted[j * r->senders + k];
      fprintf(f, " %.4f %.4f", span_ps > 0 ? (double)d * pmtu * 8.0 / span_ps * 1000.0 : 0.0,
              tl->rate[i * r->senders + k]);
    }
    fputc('\n', f);
  }
  return fclose(f);
}

/* Panel: every sender's column `col0 + 2k` against time. */
static void rate_panel(FILE *f, const char *data, uint32_t n, int col0, const char *ylabel) {
  fprintf(f, "set ylabel '%s'\nset key off\nplot ", ylabel);
  for (uint32_t k = 0; k < n; k++) {
    fputs(k ? ", '' " : "", f);
    if (!k) gp_put_quoted(f, data);
    fprintf(f, " using 1:%u with lines lw 1 title 'sender %u'", col0 + 2 * k, k + 1);
  }
  fputc('\n', f);
}

static int write_script(const stats *st, const options *o, const char *img, const char *data,
                        char *path, size_t cap) {
  const incast_result *r = st->incast;
  const sim_incast *c = &o->sim.incast;
  FILE *f = gp_temp_file(path, cap, "gp");
  if (!f) return -1;
  gp_terminal(f, o->plot, 1100, 1000);
  char ecn[64] = "off";
  if (c->ecn)
    snprintf(ecn, sizeof ecn, "%llu-%llu KB at Pmax %g", (unsigned long long)(c->kmin >> 10),
             (unsigned long long)(c->kmax >> 10), c->pmax);
  fputs("set output ", f);
  gp_put_quoted(f, img);
  fprintf(f,
          "\nset multiplot layout %d,1 title \"ornic-pcapgen --senders %u --profile %s: "
          "DCQCN %s, PFC %s, ECN %s, buffer %llu KB, seed %llu\"\n",
          c->dcqcn ? 3 : 2, r->senders, o->sim.profile->name, c->dcqcn ? "on" : "off",
          c->pfc ? "on" : "off", ecn, (unsigned long long)(c->buffer_bytes >> 10),
          (unsigned long long)o->sim.seed);
  fputs("set grid\nset xlabel 'time (us)'\nset ylabel 'switch queue (KB)'\nset key top right\n", f);
  if (c->ecn)
    fprintf(f,
            "set arrow 1 from graph 0, first %.3f to graph 1, first %.3f nohead dt 2 lc rgb "
            "'#2ca02c'\nset arrow 2 from graph 0, first %.3f to graph 1, first %.3f nohead dt 2 "
            "lc rgb '#d62728'\nset label 1 'Kmin' at graph 0.01, first %.3f offset 0,0.6\n"
            "set label 2 'Kmax' at graph 0.01, first %.3f offset 0,0.6\n",
            c->kmin / 1e3, c->kmin / 1e3, c->kmax / 1e3, c->kmax / 1e3, c->kmin / 1e3,
            c->kmax / 1e3);
  fputs("plot ", f);
  gp_put_quoted(f, data);
  fputs(
      " using 1:2 with lines lw 1.5 lc rgb '#1f77b4' title 'queue'\n"
      "unset arrow\nunset label\n",
      f);
  rate_panel(f, data, r->senders, 3, "delivered (Gb/s, 100 us mean)");
  if (c->dcqcn) rate_panel(f, data, r->senders, 4, "DCQCN rate Rc (Gb/s)");
  fputs("unset multiplot\n", f);
  return fclose(f);
}

int incast_plot_render(const stats *st, const options *o, const char *dest, char *err,
                       size_t errlen) {
  char data[64] = "", script[64] = "";
  int rc = -1;
  if (!st->incast) {
    snprintf(err, errlen, "--plot: the incast run left no timeline");
  } else if (write_data(st->incast, o->sim.workload.pmtu, data, sizeof data) != 0 ||
             write_script(st, o, dest, data, script, sizeof script) != 0) {
    snprintf(err, errlen, "--plot: cannot write a temporary file: %s", strerror(errno));
  } else {
    rc = gp_render(script, err, errlen);
  }
  if (*data) unlink(data);
  if (*script) unlink(script);
  return rc;
}
