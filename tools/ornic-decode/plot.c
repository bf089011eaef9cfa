/* SPDX-License-Identifier: MIT */
/* --plot FILE.svg|FILE.png (plot.h): points streamed to a temporary file as
 * the capture is read, panels chosen at the end, one gnuplot script with the
 * points inline (datablocks), gnuplot run on it into a temporary image
 * renamed into place. */
#include "plot.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ornic/ornic.h>
#include <ornic/psn.h>

#include "cli_outfile.h"

/* The series, in drawing order (later ones on top). */
enum { S_ACK, S_NEW, S_OOO, S_READ, S_DUP, S_RETRANS, S_NAK, S_COUNT };

/* Points of two classes are thinned separately: packets, and the events a
 * reader looks for, which are usually few. */
enum { C_PACKETS, C_EVENTS, C_COUNT };

static const struct {
  const char *title; /* the key's text, before the count */
  const char *style; /* gnuplot's "with ..." */
  unsigned cls;
} series[S_COUNT] = {
    [S_ACK] = {"cumulative ACK", "steps lw 1.5 lc rgb '#2ca02c'", C_PACKETS},
    [S_NEW] = {"first arrival, in order", "points pt 7 ps 0.35 lc rgb '#1f4e9c'", C_PACKETS},
    [S_OOO] = {"out of order", "points pt 7 ps 0.35 lc rgb '#f08c00'", C_PACKETS},
    [S_READ] = {"READ response", "points pt 5 ps 0.35 lc rgb '#17a2b8'", C_PACKETS},
    [S_DUP] = {"duplicate", "points pt 4 ps 0.9 lw 1.5 lc rgb '#8e3fb5'", C_EVENTS},
    [S_RETRANS] = {"retransmission", "points pt 6 ps 1.1 lw 2 lc rgb '#d62728'", C_EVENTS},
    [S_NAK] = {"NAK", "points pt 11 ps 1.1 lc rgb '#000000'", C_EVENTS},
};

/* One point: 24 bytes in the temporary file. */
typedef struct {
  int64_t t_ns; /* since the capture's first packet */
  int64_t y;    /* PSN - the key's first PSN, unwrapped */
  uint32_t key; /* conversation * 2 + direction, as the engine said then */
  uint32_t sid; /* S_* */
} point;

/* A conversation direction as the engine named it when its packets came
 * (a later merge may make it part of another: dec_plot_draw follows). */
typedef struct {
  bool seen;
  uint32_t first; /* the first PSN placed: y 0 */
  uint32_t last;  /* the last PSN placed, and */
  int64_t rel;    /* its y, unwrapped */
  uint64_t n[S_COUNT];
} key_state;

struct dec_plot {
  char *path;     /* FILE */
  bool png;       /* else SVG */
  FILE *data;     /* the points (an unlinked temporary file) */
  int data_errno; /* writing or thinning the points failed: no more; draw says so */
  uint64_t in_file[C_COUNT], arrivals[C_COUNT], stride[C_COUNT];
  bool have_t0;
  int64_t sec0;
  uint32_t nsec0;
  key_state *keys; /* by key */
  uint32_t nkeys;
};

bool dec_plot_name_ok(const char *path) {
  size_t n = strlen(path);
  return n > 4 && (strcasecmp(path + n - 4, ".svg") == 0 || strcasecmp(path + n - 4, ".png") == 0);
}

static bool gnuplot_on_path(void) {
  const char *path = getenv("PATH");
  char buf[4096];
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    size_t len = strcspn(p, ":");
    /* An empty entry is the current directory, as execvp reads it. */
    int n = len ? snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)len, p)
                : snprintf(buf, sizeof buf, "./gnuplot");
    if (n > 0 && (size_t)n < sizeof buf && access(buf, X_OK) == 0) return true;
    p += len + (p[len] == ':');
  }
  return false;
}

static const char *tmp_dir(void) {
  const char *d = getenv("TMPDIR");
  return d && *d ? d : "/tmp";
}

/* A temporary file in TMPDIR, unlinked at once: nothing is left whatever
 * ends the process. */
static FILE *temp_file(void) {
  char path[512];
  if ((size_t)snprintf(path, sizeof path, "%s/ornic-decode-plot-XXXXXX", tmp_dir()) >=
      sizeof path) {
    errno = ENAMETOOLONG;
    return NULL;
  }
  int fd = mkstemp(path);
  if (fd < 0) return NULL;
  unlink(path);
  FILE *f = fdopen(fd, "w+b");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}

dec_plot *dec_plot_open(const char *path, char *err, size_t errlen) {
  if (!gnuplot_on_path()) {
    snprintf(err, errlen,
             "--plot %s: gnuplot is not installed (not found on PATH; apt-get install "
             "gnuplot-nox): nothing was read",
             path);
    return NULL;
  }
  /* A folder that takes no file costs no reading; the image is made in
   * its place at the end, so a killed run leaves nothing there now. */
  cli_outfile probe;
  char why[512];
  if (cli_outfile_open(&probe, path, why, sizeof why) < 0) {
    snprintf(err, errlen, "--plot: %s", why);
    return NULL;
  }
  cli_outfile_discard(&probe);
  dec_plot *pl = calloc(1, sizeof *pl);
  if (!pl || !(pl->path = strdup(path))) {
    snprintf(err, errlen, "--plot %s: out of memory", path);
    dec_plot_free(pl);
    return NULL;
  }
  pl->png = strcasecmp(path + strlen(path) - 4, ".png") == 0;
  for (int c = 0; c < C_COUNT; c++) pl->stride[c] = 1;
  if (!(pl->data = temp_file())) {
    snprintf(err, errlen, "--plot %s: cannot create a temporary file in %s: %s", path, tmp_dir(),
             strerror(errno));
    dec_plot_free(pl);
    return NULL;
  }
  return pl;
}

void dec_plot_free(dec_plot *pl) {
  if (!pl) return;
  if (pl->data) fclose(pl->data);
  free(pl->keys);
  free(pl->path);
  free(pl);
}

static key_state *key_for(dec_plot *pl, uint32_t key) {
  if (key >= pl->nkeys) {
    uint32_t n = pl->nkeys ? pl->nkeys : 64;
    while (n <= key) n *= 2;
    key_state *k = realloc(pl->keys, (size_t)n * sizeof *k);
    if (!k) return NULL;
    memset(k + pl->nkeys, 0, (size_t)(n - pl->nkeys) * sizeof *k);
    pl->keys = k;
    pl->nkeys = n;
  }
  return &pl->keys[key];
}

/* psn's y in its key: the distance from the key's first PSN, following the
 * 24-bit wrap from the PSN placed before it. */
static int64_t unwrap(key_state *k, uint32_t psn) {
  if (!k->seen) {
    k->seen = true;
    k->first = k->last = psn;
    k->rel = 0;
  }
  k->rel += ornic_psn_diff(psn, k->last);
  k->last = psn;
  return k->rel;
}

/* The file reached DEC_PLOT_MAX_POINTS: the class that holds more of it
 * keeps every other point. Its points in the file were its arrivals 0, s,
 * 2s, ...: they become 0, 2s, 4s, ..., and the next it writes is the next
 * multiple of 2s (arrivals are sampled by their number, not by a count of
 * what was written), so they stay evenly spread. */
static void thin(dec_plot *pl) {
  unsigned c = pl->in_file[C_EVENTS] > pl->in_file[C_PACKETS] ? C_EVENTS : C_PACKETS;
  FILE *out = NULL;
  point p;
  uint64_t i = 0, kept = 0;
  errno = 0;
  if (fflush(pl->data) != 0 || fseek(pl->data, 0, SEEK_SET) != 0 || !(out = temp_file())) goto fail;
  while (fread(&p, sizeof p, 1, pl->data) == 1) {
    if (series[p.sid].cls == c && i++ % 2) continue;
    if (fwrite(&p, sizeof p, 1, out) != 1) goto fail;
    kept += series[p.sid].cls == c;
  }
  if (ferror(pl->data)) goto fail;
  fclose(pl->data);
  pl->data = out;
  pl->in_file[c] = kept;
  pl->stride[c] *= 2;
  return;
fail:
  pl->data_errno = errno ? errno : EIO;
  if (out) fclose(out);
}

static void add_point(dec_plot *pl, uint32_t key, key_state *k, unsigned s, int64_t t,
                      uint32_t psn) {
  int64_t y = unwrap(k, psn);
  unsigned c = series[s].cls;
  k->n[s]++;
  if (pl->arrivals[c]++ % pl->stride[c] || pl->data_errno) return;
  point p = {.t_ns = t, .y = y, .key = key, .sid = s};
  if (fwrite(&p, sizeof p, 1, pl->data) != 1) {
    pl->data_errno = errno ? errno : EIO;
    return;
  }
  pl->in_file[c]++;
  if (pl->in_file[C_PACKETS] + pl->in_file[C_EVENTS] >= DEC_PLOT_MAX_POINTS) thin(pl);
}

void dec_plot_packet(dec_plot *pl, const dec_packet *pk) {
  if (!pl->have_t0) {
    pl->have_t0 = true;
    pl->sec0 = pk->sec;
    pl->nsec0 = pk->nsec;
  }
  const ornic_an_verdict *v = &pk->an;
  if (!pk->analysed || !v->conv || v->dir > 1 || v->conv > UINT32_MAX / 2 - 1) return;
  if (v->role != ORNIC_AN_ROLE_REQUEST && v->role != ORNIC_AN_ROLE_RESPONSE) return;
  uint32_t key = v->conv * 2 + v->dir;
  key_state *k = key_for(pl, key);
  if (!k) {
    pl->data_errno = ENOMEM;
    return;
  }
  int64_t t = (pk->sec - pl->sec0) * 1000000000 + ((int64_t)pk->nsec - pl->nsec0);
  uint32_t psn = pk->f.bth.psn, fl = v->flags;
  uint16_t op = ornic_opcode_info_get(pk->f.bth.opcode)->flags;
  if (fl & ORNIC_AN_RETRANS) {
    add_point(pl, key, k, S_RETRANS, t, psn);
  } else if (fl & ORNIC_AN_DUP) {
    add_point(pl, key, k, S_DUP, t, psn);
  } else if (v->role == ORNIC_AN_ROLE_REQUEST) {
    add_point(pl, key, k, fl & ORNIC_AN_OOO ? S_OOO : S_NEW, t, psn);
  } else if ((op & ORNIC_OPF_READ) && !(op & ORNIC_OPF_ACK)) {
    add_point(pl, key, k, S_READ, t, psn);
  }
  if (fl & ORNIC_AN_NAK) add_point(pl, key, k, S_NAK, t, psn);
  /* The cumulative PSN, from ACKs (stale ones too: the line stays level)
   * and from what NAKs and RC READ responses acknowledge. */
  if (v->role == ORNIC_AN_ROLE_RESPONSE && ((fl & ORNIC_AN_ACK) || v->ack_newly))
    add_point(pl, key, k, S_ACK, t, ornic_psn_add(v->ack_prev, (int32_t)v->ack_newly));
}

/* ---- drawing ---- */

typedef struct {
  const ornic_an_conv *c; /* the conversation that holds the direction's counters */
  unsigned dir;
  uint64_t packets; /* requests and responses: what "busiest" ranks */
  uint64_t n[S_COUNT];
  uint64_t drawn[S_COUNT];            /* points in the image */
  int64_t t_min, t_max, y_min, y_max; /* their extent, when any is drawn */
} panel;

typedef struct {
  panel p[DEC_PLOT_MAX_PANELS];
  unsigned n;
  uint64_t candidates; /* directions with requests (of --qp's conversations) */
} panel_set;

static bool busier(const panel *a, const panel *b) {
  if (a->packets != b->packets) return a->packets > b->packets;
  if (a->c->id != b->c->id) return a->c->id < b->c->id;
  return a->dir < b->dir;
}

static bool has_qp(const ornic_an_conv *c, uint32_t qp) {
  return (c->qp_a_known && c->qp_a == qp) || (c->qp_b_known && c->qp_b == qp);
}

/* The busiest directions with requests, shown in conversation order. */
static void choose_panels(const dec_plot_end *e, panel_set *ps) {
  memset(ps, 0, sizeof *ps);
  uint32_t count = ornic_analysis_conv_count(e->an);
  for (uint32_t id = 1; id <= count; id++) {
    const ornic_an_conv *c = ornic_analysis_conv(e->an, id);
    if (!c || c->merged_into || (e->have_qp && !has_qp(c, e->qp))) continue;
    for (unsigned d = 0; d < 2; d++) {
      const ornic_an_dir_stats *ds = &c->dir[d];
      if (!ds->req_packets || !ds->have_psn) continue;
      ps->candidates++;
      panel cand = {.c = c, .dir = d, .packets = ds->req_packets + ds->resp_packets};
      unsigned at = ps->n;
      while (at > 0 && busier(&cand, &ps->p[at - 1])) at--;
      if (at >= DEC_PLOT_MAX_PANELS) continue;
      unsigned last = ps->n < DEC_PLOT_MAX_PANELS ? ps->n : DEC_PLOT_MAX_PANELS - 1;
      memmove(&ps->p[at + 1], &ps->p[at], (last - at) * sizeof *ps->p);
      ps->p[at] = cand;
      if (ps->n < DEC_PLOT_MAX_PANELS) ps->n++;
    }
  }
  for (unsigned i = 1; i < ps->n; i++) /* conversation order: an insertion sort of six */
    for (unsigned j = i; j > 0; j--) {
      panel *a = &ps->p[j - 1], *b = &ps->p[j];
      if (a->c->id < b->c->id || (a->c->id == b->c->id && a->dir < b->dir)) break;
      panel t = *a;
      *a = *b;
      *b = t;
    }
}

/* Where a key's points go: the panel of the conversation and direction it
 * became part of (a merge makes the merged one's A the keeper's B), and the
 * offset from the key's y to the panel's (its first request PSN). -1: none. */
static int key_panel(const dec_plot_end *e, const panel_set *ps, uint32_t key, const key_state *k,
                     int64_t *offset) {
  const ornic_an_conv *c = ornic_analysis_conv(e->an, key / 2);
  unsigned dir = key % 2;
  for (unsigned hops = 0; c && c->merged_into && hops < 64; hops++) {
    c = ornic_analysis_conv(e->an, c->merged_into);
    dir ^= 1;
  }
  if (!c) return -1;
  for (unsigned i = 0; i < ps->n; i++)
    if (ps->p[i].c == c && ps->p[i].dir == dir) {
      *offset = ornic_psn_diff(k->first, c->dir[dir].psn_first);
      return (int)i;
    }
  return -1;
}

typedef struct {
  int64_t t_ns, y;
  uint32_t panel, sid;
  uint64_t seq; /* order in the file: time order */
} drawn_point;

static int cmp_drawn(const void *pa, const void *pb) {
  const drawn_point *a = pa, *b = pb;
  if (a->panel != b->panel) return a->panel < b->panel ? -1 : 1;
  if (a->sid != b->sid) return a->sid < b->sid ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The points of the chosen panels, sorted by panel and series (at most
 * DEC_PLOT_MAX_POINTS: the file's). NULL with errno set on failure. */
static drawn_point *collect(dec_plot *pl, const dec_plot_end *e, panel_set *ps, size_t *n) {
  *n = 0;
  uint64_t total = pl->in_file[C_PACKETS] + pl->in_file[C_EVENTS];
  drawn_point *out = malloc((total ? total : 1) * sizeof *out);
  int *kp = malloc((pl->nkeys ? pl->nkeys : 1) * sizeof *kp);
  int64_t *ko = malloc((pl->nkeys ? pl->nkeys : 1) * sizeof *ko);
  if (!out || !kp || !ko) {
    free(out);
    free(kp);
    free(ko);
    errno = ENOMEM;
    return NULL;
  }
  for (uint32_t key = 0; key < pl->nkeys; key++) {
    const key_state *k = &pl->keys[key];
    kp[key] = k->seen ? key_panel(e, ps, key, k, &ko[key]) : -1;
    if (kp[key] >= 0)
      for (int s = 0; s < S_COUNT; s++) ps->p[kp[key]].n[s] += k->n[s];
  }
  point p;
  errno = 0;
  if (fflush(pl->data) != 0 || fseek(pl->data, 0, SEEK_SET) != 0) goto fail;
  for (uint64_t seq = 0; *n < total && fread(&p, sizeof p, 1, pl->data) == 1; seq++) {
    if (p.key >= pl->nkeys || kp[p.key] < 0) continue;
    drawn_point *d = &out[(*n)++];
    *d = (drawn_point){.t_ns = p.t_ns,
                       .y = p.y + ko[p.key],
                       .panel = (uint32_t)kp[p.key],
                       .sid = p.sid,
                       .seq = seq};
    panel *pn = &ps->p[d->panel];
    bool first = true;
    for (int s = 0; s < S_COUNT; s++) first &= pn->drawn[s] == 0;
    if (first || d->t_ns < pn->t_min) pn->t_min = d->t_ns;
    if (first || d->t_ns > pn->t_max) pn->t_max = d->t_ns;
    if (first || d->y < pn->y_min) pn->y_min = d->y;
    if (first || d->y > pn->y_max) pn->y_max = d->y;
    pn->drawn[d->sid]++;
  }
  if (ferror(pl->data)) goto fail;
  free(kp);
  free(ko);
  qsort(out, *n, sizeof *out, cmp_drawn);
  return out;
fail:
  if (!errno) errno = EIO;
  free(out);
  free(kp);
  free(ko);
  return NULL;
}

/* A string inside gnuplot's single quotes: a quote is written twice, and
 * control characters (a file name may hold a newline) become '?'. */
static void put_quoted(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'') fputc('\'', f);
    fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
  }
  fputc('\'', f);
}

/* The time axis: microseconds, milliseconds or seconds, whichever keeps
 * the tick labels short. */
typedef struct {
  const char *name;
  double div;
  int decimals;
} time_unit;

static time_unit pick_unit(const drawn_point *pts, size_t n) {
  int64_t span = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t t = pts[i].t_ns < 0 ? -pts[i].t_ns : pts[i].t_ns;
    if (t > span) span = t;
  }
  if (span < 2000000) return (time_unit){"µs", 1e3, 3};
  if (span < 2000000000) return (time_unit){"ms", 1e6, 6};
  return (time_unit){"s", 1e9, 9};
}

static void write_terminal(FILE *f, const dec_plot *pl, unsigned cols, unsigned rows) {
  unsigned w = cols == 1 ? 1100 : 1700, h = 90 + rows * 330;
  fputs("set encoding utf8\n", f);
  if (pl->png)
    fprintf(f,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size %u,%u noenhanced font 'sans,11' background '#ffffff'\n"
            "} else {\n"
            "  set terminal png size %u,%u noenhanced background '#ffffff'\n"
            "}\n",
            w, h, w, h);
  else
    fprintf(f,
            "set terminal svg size %u,%u dynamic noenhanced font 'sans,11' "
            "background '#ffffff'\n",
            w, h);
}

static void write_title(FILE *f, const dec_plot *pl, const dec_plot_end *e, const panel_set *ps) {
  char line[1024];
  int n = snprintf(line, sizeof line, "%s: PSN against time per conversation direction",
                   e->capture ? e->capture : "<stdin>");
  if (e->have_qp && n > 0 && (size_t)n < sizeof line)
    n += snprintf(line + n, sizeof line - n, " of QP 0x%06x", e->qp);
  if (n > 0 && (size_t)n < sizeof line) {
    if (ps->candidates > ps->n)
      n += snprintf(line + n, sizeof line - n,
                    "\nthe %u busiest of %llu directions with requests (by packets: requests and "
                    "responses)",
                    ps->n, (unsigned long long)ps->candidates);
    else
      n += snprintf(line + n, sizeof line - n, "\n%u direction%s with requests", ps->n,
                    ps->n == 1 ? "" : "s");
  }
  unsigned long long sp = pl->stride[C_PACKETS], se = pl->stride[C_EVENTS];
  if (n > 0 && (size_t)n < sizeof line && se > 1)
    n += snprintf(line + n, sizeof line - n,
                  "; drawn: 1 in %llu packets, 1 in %llu retransmissions, duplicates and NAKs "
                  "(the keys count all)",
                  sp, se);
  else if (n > 0 && (size_t)n < sizeof line && sp > 1)
    n += snprintf(line + n, sizeof line - n,
                  "; drawn: 1 in %llu packets, every retransmission, duplicate and NAK "
                  "(the keys count all)",
                  sp);
  if (n > 0 && (size_t)n < sizeof line && e->interrupted)
    n += snprintf(line + n, sizeof line - n, "\ninterrupted by %s: the packets read before it",
                  e->interrupted);
  else if (n > 0 && (size_t)n < sizeof line && e->damaged)
    n += snprintf(line + n, sizeof line - n, "\ndamaged capture: the packets before the damage");
  /* gnuplot's single quotes take no \n: the lines are joined with ."\n". */
  fputs("set multiplot layout ", f);
  unsigned cols = ps->n <= 3 ? 1 : 2, rows = ps->n ? (ps->n + cols - 1) / cols : 1;
  fprintf(f, "%u,%u rowsfirst title ", rows, cols);
  char *s = line;
  for (char *nl; (nl = strchr(s, '\n')); s = nl + 1) {
    *nl = '\0';
    put_quoted(f, s);
    fputs(".\"\\n\".", f);
  }
  put_quoted(f, s);
  fputs(" font ',13'\n", f);
}

static void write_block(FILE *f, unsigned pi, unsigned s, const drawn_point *pts, size_t n,
                        time_unit u) {
  fprintf(f, "$p%us%u << EOD\n", pi, s);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%.*f %lld\n", u.decimals, (double)pts[i].t_ns / u.div, (long long)pts[i].y);
  fputs("EOD\n", f);
}

static void write_panel(FILE *f, unsigned pi, const panel *p, time_unit u) {
  char dir[120], title[256];
  ornic_an_dir_label(p->c, p->dir, dir, sizeof dir);
  bool qp_known = p->dir == ORNIC_AN_DIR_AB ? p->c->qp_b_known : p->c->qp_a_known;
  uint32_t qp = p->dir == ORNIC_AN_DIR_AB ? p->c->qp_b : p->c->qp_a;
  char qps[16] = "?";
  if (qp_known) snprintf(qps, sizeof qps, "0x%06x", qp);
  snprintf(title, sizeof title, "conv %u %s: %s QP %s%s (%llu requests, %llu responses)", p->c->id,
           p->dir == ORNIC_AN_DIR_AB ? "A->B" : "B->A", dir, qps,
           p->c->transport_ornic ? " ORNIC" : "", (unsigned long long)p->c->dir[p->dir].req_packets,
           (unsigned long long)p->c->dir[p->dir].resp_packets);
  fputs("set title ", f);
  put_quoted(f, title);
  fprintf(f,
          "\nset xlabel 'time since the first packet (%s)'\n"
          "set ylabel 'PSN - %u (first request)'\n",
          u.name, p->c->dir[p->dir].psn_first);
  /* The points' own extent and a margin (not the next tick's; a panel of
   * one point has a range too), and whole PSNs on a short y axis. */
  double t0 = (double)p->t_min / u.div, t1 = (double)p->t_max / u.div;
  double y0 = (double)p->y_min, y1 = (double)p->y_max;
  double dt = t1 > t0 ? (t1 - t0) * 0.02 : 1, dy = y1 > y0 ? (y1 - y0) * 0.06 : 1;
  fprintf(f, "set xrange [%.*f:%.*f]\nset yrange [%.3f:%.3f]\n", u.decimals, t0 - dt, u.decimals,
          t1 + dt, y0 - dy, y1 + dy);
  fputs(y1 - y0 <= 10 ? "set ytics 1\n" : "set ytics autofreq\n", f);
  bool any = false;
  for (unsigned s = 0; s < S_COUNT; s++) any |= p->drawn[s] > 0;
  if (!any) {
    fputs(
        "set label 1 'no point sampled' at graph 0.5,0.5 center\n"
        "plot [0:1][0:1] NaN notitle\nunset label 1\n",
        f);
    return;
  }
  fputs("plot", f);
  const char *sep = " ";
  for (unsigned s = 0; s < S_COUNT; s++) {
    if (!p->drawn[s]) continue;
    char key[96];
    if (s == S_ACK)
      snprintf(key, sizeof key, "%s", series[s].title);
    else
      snprintf(key, sizeof key, "%s (%llu)", series[s].title, (unsigned long long)p->n[s]);
    fprintf(f, "%s$p%us%u using 1:2 with %s title ", sep, pi, s, series[s].style);
    put_quoted(f, key);
    sep = ", \\\n     ";
  }
  fputc('\n', f);
}

static int write_script(FILE *f, const dec_plot *pl, const dec_plot_end *e, const panel_set *ps,
                        const drawn_point *pts, size_t n, const char *image) {
  time_unit u = pick_unit(pts, n);
  unsigned cols = ps->n <= 3 ? 1 : 2, rows = ps->n ? (ps->n + cols - 1) / cols : 1;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pts[j].panel == pts[i].panel && pts[j].sid == pts[i].sid) j++;
    write_block(f, pts[i].panel, pts[i].sid, pts + i, j - i, u);
    i = j;
  }
  write_terminal(f, pl, cols, rows);
  fputs("set output ", f);
  put_quoted(f, image);
  fputs(
      "\nset grid lc rgb '#dddddd'\n"
      "set key outside right top vertical Left reverse box lc rgb '#bbbbbb' samplen 1.5 spacing "
      "1.1 width -6 font ',10'\n"
      "set format y '%.0f'\nset format x '%g'\nset xtics nomirror\nset ytics nomirror\n",
      f);
  write_title(f, pl, e, ps);
  for (unsigned i = 0; i < ps->n; i++) write_panel(f, i, &ps->p[i], u);
  if (!ps->n) {
    char why[160];
    snprintf(why, sizeof why, "no conversation direction with requests%s",
             e->have_qp ? " for this QP (--qp)" : "");
    fputs(
        "unset border\nunset tics\nunset key\nunset xlabel\nunset ylabel\n"
        "set label 1 ",
        f);
    put_quoted(f, why);
    fputs(" at graph 0.5,0.5 center font ',12'\nplot [0:1][0:1] NaN notitle\n", f);
  }
  fputs("unset multiplot\n", f);
  return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

/* gnuplot on the script (an unlinked file, its standard input), away from
 * the terminal's signals (its own process group: Ctrl-C during the drawing
 * reaches ornic-decode alone, whose first stop signal lets the drawing
 * finish) and dying with ornic-decode (a second signal kills ornic-decode).
 * Its exit status, or -1 (errno). */
static int run_gnuplot(FILE *script) {
  if (fflush(script) != 0 || fseek(script, 0, SEEK_SET) != 0) return -1;
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent || dup2(fileno(script), STDIN_FILENO) < 0) _exit(127);
    /* By a name, so that gnuplot's messages give line numbers. */
    execlp("gnuplot", "gnuplot", "/dev/stdin", (char *)NULL);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The script and gnuplot, into the temporary image. 0, or -1 with err. */
static int render(dec_plot *pl, const dec_plot_end *e, panel_set *ps, const char *image, char *err,
                  size_t errlen) {
  size_t n = 0;
  drawn_point *pts = collect(pl, e, ps, &n);
  if (!pts) {
    snprintf(err, errlen, "--plot %s: reading the temporary point file failed: %s", pl->path,
             strerror(errno));
    return -1;
  }
  FILE *f = temp_file();
  int rc = -1;
  if (!f || write_script(f, pl, e, ps, pts, n, image) < 0) {
    snprintf(err, errlen, "--plot %s: cannot write the gnuplot script in %s: %s", pl->path,
             tmp_dir(), strerror(errno ? errno : EIO));
  } else {
    int gp = run_gnuplot(f);
    struct stat sb;
    if (gp < 0)
      snprintf(err, errlen, "--plot %s: cannot run gnuplot: %s; no plot written", pl->path,
               strerror(errno));
    else if (gp == 127)
      snprintf(err, errlen,
               "--plot %s: gnuplot could not be started (exit status 127); no plot written",
               pl->path);
    else if (gp != 0)
      snprintf(err, errlen, "--plot %s: gnuplot failed (exit status %d); no plot written", pl->path,
               gp);
    else if (stat(image, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0)
      snprintf(err, errlen, "--plot %s: gnuplot wrote nothing; no plot written", pl->path);
    else
      rc = 0;
  }
  if (f) fclose(f);
  free(pts);
  return rc;
}

int dec_plot_draw(dec_plot *pl, const dec_plot_end *e, unsigned *panels, char *err, size_t errlen) {
  *panels = 0;
  if (pl->data_errno) {
    snprintf(err, errlen, "--plot %s: writing the temporary point file failed: %s; no plot written",
             pl->path, strerror(pl->data_errno));
    return -1;
  }
  if (!e->an) {
    snprintf(err, errlen, "--plot %s: no conversation analysis to draw", pl->path);
    return -1;
  }
  panel_set ps;
  choose_panels(e, &ps);
  cli_outfile out;
  char why[512];
  if (cli_outfile_open(&out, pl->path, why, sizeof why) < 0) {
    snprintf(err, errlen, "--plot: %s", why);
    return -1;
  }
  /* gnuplot opens the temporary file (or a device) itself, by its name. */
  if (render(pl, e, &ps, out.tmp ? out.tmp : out.path, err, errlen) < 0) {
    cli_outfile_discard(&out);
    return -1;
  }
  if (cli_outfile_commit(&out, why, sizeof why) < 0) {
    snprintf(err, errlen, "--plot: %s", why);
    return -1;
  }
  *panels = ps.n;
  return 0;
}
