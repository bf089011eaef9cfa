/* SPDX-License-Identifier: MIT */
#include "scenario.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCENARIO_BYTES (1u << 20) /* a scenario is a few lines; this catches a wrong file */
#define MAX_WQE_SIZE (1ull << 30)     /* as --wqe-size */

typedef struct {
  const char *path;
  unsigned line;
  FILE *err;
} where;

static int fail(const where *w, const char *fmt, const char *arg) {
  fprintf(w->err, "ornic-pcapgen: %s:%u: ", w->path, w->line);
  fprintf(w->err, fmt, arg);
  fputc('\n', w->err);
  return -1;
}

static char *read_all(const char *path, FILE *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(err, "ornic-pcapgen: cannot read the scenario '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  char *buf = malloc(MAX_SCENARIO_BYTES + 1);
  size_t n = buf ? fread(buf, 1, MAX_SCENARIO_BYTES + 1, f) : 0;
  bool bad = !buf || ferror(f) || n > MAX_SCENARIO_BYTES || memchr(buf, 0, n);
  if (bad)
    fprintf(err, "ornic-pcapgen: the scenario '%s' %s\n", path,
            !buf                     ? "does not fit in memory"
            : ferror(f)              ? "could not be read"
            : n > MAX_SCENARIO_BYTES ? "is larger than 1 MiB: not a scenario file?"
                                     : "contains NUL bytes: not a text file?");
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  return buf;
}

/* Splits s in place into at most max whitespace-separated tokens; returns
 * how many there were (more than max means too many). */
static int tokens(char *s, char **tok, int max) {
  int n = 0;
  for (char *save = NULL, *t = strtok_r(s, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
    if (n < max) tok[n] = t;
    n++;
  }
  return n;
}

/* qp=N, qp=A-B or qp=all. */
static int parse_qps(const where *w, const char *s, wqe_group *g) {
  if (strcmp(s, "all") == 0) {
    g->qp_lo = 0;
    g->qp_hi = UINT32_MAX; /* resolved against `qps` at the end (workload.c) */
    return 0;
  }
  char buf[48];
  uint64_t lo, hi;
  size_t cut = strcspn(s, "-");
  if (cut >= sizeof buf) return fail(w, "qp=%s: expected N, A-B or all", s);
  memcpy(buf, s, cut);
  buf[cut] = 0;
  if (options_parse_number(buf, &lo, false) < 0 ||
      options_parse_number(s[cut] ? s + cut + 1 : buf, &hi, false) < 0 || hi < lo || hi >= 4096)
    return fail(w, "qp=%s: expected N, A-B (A <= B < 4096) or all", s);
  g->qp_lo = (uint32_t)lo;
  g->qp_hi = (uint32_t)hi;
  return 0;
}

/* wqe SIZE [xCOUNT] [qp=...] */
static int parse_wqe(options *o, const where *w, char **tok, int n) {
  wqe_group g = {0, 1, 0, UINT32_MAX, w->line};
  if (n < 2 || n > 4) return fail(w, "%s: expected 'wqe SIZE [xCOUNT] [qp=N|A-B|all]'", "wqe");
  if (options_parse_number(tok[1], &g.size, true) < 0 || g.size > MAX_WQE_SIZE)
    return fail(w, "wqe size '%s': expected bytes up to 1G (suffixes K, M, G)", tok[1]);
  for (int i = 2; i < n; i++) {
    if (tok[i][0] == 'x') {
      if (options_parse_number(tok[i] + 1, &g.count, false) < 0 || !g.count ||
          g.count > (1ull << 40))
        return fail(w, "wqe count '%s': expected x1 to x2^40", tok[i]);
    } else if (strncmp(tok[i], "qp=", 3) == 0) {
      if (parse_qps(w, tok[i] + 3, &g) < 0) return -1;
    } else {
      return fail(w, "wqe: unexpected '%s' (expected xCOUNT or qp=...)", tok[i]);
    }
  }
  wqe_group *p = realloc(o->sim.workload.plan, (o->sim.workload.nplan + 1) * sizeof *p);
  if (!p) return fail(w, "%s: out of memory", "wqe");
  o->sim.workload.plan = p;
  o->sim.workload.plan[o->sim.workload.nplan++] = g;
  return 0;
}

static int apply_line(options *o, const where *w, char *line) {
  char *hash = strchr(line, '#');
  if (hash) *hash = 0;
  char *tok[4];
  int n = tokens(line, tok, 4);
  if (n == 0) return 0;
  if (strcmp(tok[0], "wqe") == 0) return parse_wqe(o, w, tok, n);
  const char *name = strncmp(tok[0], "--", 2) == 0 ? tok[0] + 2 : tok[0];
  if (n > 2) return fail(w, "'%s' takes at most one value", name);
  /* The wqe lines replace these: an error, wherever the wqe lines stand. */
  if (!o->wqes_line && (strcmp(name, "wqes") == 0 || strcmp(name, "wqe-size") == 0))
    o->wqes_line = w->line;
  if (options_apply_named(o, name, n == 2 ? tok[1] : NULL, w->err) < 0)
    return fail(w, "in the line for '%s'", name);
  return 0;
}

int scenario_load(options *o, const char *path, FILE *err) {
  if (o->scenario_text) {
    fprintf(err, "ornic-pcapgen: --scenario: only one scenario file per run\n");
    return -1;
  }
  if (!(o->scenario_text = read_all(path, err))) return -1;
  o->scenario_len = strlen(o->scenario_text); /* before apply_line cuts it */
  o->scenario = path;
  where w = {path, 0, err};
  for (char *line = o->scenario_text; line;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = 0;
    w.line++;
    if (apply_line(o, &w, line) < 0) return -1;
    line = next;
  }
  return 0;
}
