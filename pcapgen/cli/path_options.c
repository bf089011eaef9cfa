/* SPDX-License-Identifier: MIT */
#include "path_options.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_num.h"
#include "path_events.h"

#define PROG "ornic-pcapgen"
#define UNSET (-1.0)           /* a --path value left out: every valid one is >= 0 */
#define MAX_LIST_PATHS 0x4000u /* as --paths */

/* "--OPT: 'SPEC': WHAT" as every usage error of the program; -1. */
static int fail(FILE *err, const char *opt, const char *spec, const char *what) {
  cli_usage_error(err, PROG, "%s: '%s': %s", opt, spec, what);
  return -1;
}

/* Ranges as the options the keys stand for: --base-delay-us, --path-rate-gbps, --loss. */
static const struct {
  const char *key;
  double lo, hi;
} path_keys[] = {{"delay", 0, 1e6}, {"rate", 0.001, 10000}, {"loss", 0, 0.5}};

/* One KEY=VALUE of a --path SPEC into v[key]. */
static int path_item(FILE *err, const char *spec, const char *item, size_t len, double *v) {
  static const char want[] = "expected delay=US, rate=GBPS or loss=P (each once, comma-separated)";
  char buf[64], why[160], what[240];
  const char *eq = memchr(item, '=', len);
  if (!eq || len >= sizeof buf) return fail(err, "--path", spec, want);
  size_t klen = (size_t)(eq - item);
  for (size_t k = 0; k < sizeof path_keys / sizeof path_keys[0]; k++) {
    if (strlen(path_keys[k].key) != klen || strncmp(item, path_keys[k].key, klen) != 0) continue;
    if (v[k] != UNSET) return fail(err, "--path", spec, want);
    memcpy(buf, eq + 1, len - klen - 1);
    buf[len - klen - 1] = 0;
    if (cli_parse_double(buf, path_keys[k].lo, path_keys[k].hi, &v[k], why, sizeof why) == 0)
      return 0;
    snprintf(what, sizeof what, "%s: %s", path_keys[k].key, why);
    return fail(err, "--path", spec, what);
  }
  return fail(err, "--path", spec, want);
}

int path_option_add(options *o, const char *spec, FILE *err) {
  double v[3] = {UNSET, UNSET, UNSET}; /* delay, rate, loss */
  if (!*spec) return fail(err, "--path", spec, "expected delay=US, rate=GBPS and/or loss=P");
  for (const char *p = spec;;) {
    size_t len = strcspn(p, ",");
    if (path_item(err, spec, p, len, v) < 0) return -1;
    if (!p[len]) break;
    p += len + 1;
  }
  if (o->npath_list >= MAX_LIST_PATHS) return fail(err, "--path", spec, "at most 16384 paths");
  path_spec *l = realloc(o->sim.fabric.path_list, (o->npath_list + 1) * sizeof *l);
  if (!l) return fail(err, "--path", spec, "out of memory");
  o->sim.fabric.path_list = l;
  l[o->npath_list++] = (path_spec){v[0], v[1], v[2]};
  return 0;
}

/* A time in microseconds of simulated time (as --capture-start). */
static int event_time(FILE *err, const char *spec, const char *s, const char *what, double *t) {
  char why[160], msg[240];
  if (cli_parse_double(s, 0, 1e12, t, why, sizeof why) == 0) return 0;
  snprintf(msg, sizeof msg, "%s: %s", what, why);
  return fail(err, "--path-event", spec, msg);
}

/* WHAT@US: fail, loss=P or rate=GBPS, and when. */
static int event_what(FILE *err, const char *spec, char *s, path_event *e) {
  char why[160], msg[240];
  char *at = strchr(s, '@');
  if (!at)
    return fail(err, "--path-event", spec, "expected WHAT@US (fail@US, loss=P@US, rate=GBPS@US)");
  *at = 0;
  if (event_time(err, spec, at + 1, "the time after '@'", &e->start_us) < 0) return -1;
  if (strcmp(s, "fail") == 0) {
    e->kind = PATH_EV_FAIL;
    return 0;
  }
  bool loss = strncmp(s, "loss=", 5) == 0, rate = strncmp(s, "rate=", 5) == 0;
  if (!loss && !rate) {
    snprintf(msg, sizeof msg, "expected fail, loss=P or rate=GBPS before '@', got '%s'", s);
    return fail(err, "--path-event", spec, msg);
  }
  e->kind = loss ? PATH_EV_LOSS : PATH_EV_RATE;
  if (cli_parse_double(s + 5, loss ? 0 : 0.001, loss ? 0.5 : 10000, &e->value, why, sizeof why) ==
      0)
    return 0;
  snprintf(msg, sizeof msg, "%s: %s", loss ? "loss" : "rate", why);
  return fail(err, "--path-event", spec, msg);
}

int path_event_option_add(options *o, const char *spec, FILE *err) {
  static const char want[] = "expected PATH:WHAT@US[:recover@US], WHAT = fail, loss=P or rate=GBPS";
  char buf[128], why[160], msg[240];
  char *field[4];
  int n = 0;
  uint64_t path;
  path_event e = {0, PATH_EV_FAIL, 0, 0, -1};
  if (strlen(spec) >= sizeof buf) return fail(err, "--path-event", spec, want);
  strcpy(buf, spec);
  for (char *save = NULL, *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save))
    if (n < 4) field[n++] = t;
  if (n < 2 || n > 3 || spec[0] == ':' || strstr(spec, "::") || spec[strlen(spec) - 1] == ':')
    return fail(err, "--path-event", spec, want);
  if (cli_parse_u64(field[0], 0, MAX_LIST_PATHS - 1, &path, why, sizeof why) < 0) {
    snprintf(msg, sizeof msg, "PATH: %s", why);
    return fail(err, "--path-event", spec, msg);
  }
  e.path = (uint32_t)path;
  if (event_what(err, spec, field[1], &e) < 0) return -1;
  if (n == 3 && strncmp(field[2], "recover@", 8) != 0)
    return fail(err, "--path-event", spec, "expected recover@US after the event");
  if (n == 3 && event_time(err, spec, field[2] + 8, "the time after 'recover@'", &e.end_us) < 0)
    return -1;
  if (n == 3 && e.end_us <= e.start_us)
    return fail(err, "--path-event", spec, "the path must recover after the event starts");
  if (o->sim.fabric.nevents >= PATH_EVENTS_MAX)
    return fail(err, "--path-event", spec, "at most 32 events in a run");
  path_event *l = realloc(o->sim.fabric.events, (o->sim.fabric.nevents + 1) * sizeof *l);
  if (!l) return fail(err, "--path-event", spec, "out of memory");
  o->sim.fabric.events = l;
  l[o->sim.fabric.nevents++] = e;
  return 0;
}

/* The list in place of the uniform set, its values left out taken from the
 * options they default to. */
static int resolve_list(options *o, FILE *err) {
  sim_fabric *f = &o->sim.fabric;
  if (!o->npath_list) return 0;
  if (o->paths_given || o->spread_given) {
    cli_usage_error(err, PROG,
                    "%s: the --path list sets the paths (%zu given); --paths and "
                    "--delay-spread-us describe the uniform set it replaces: give one or the other",
                    o->paths_given ? "--paths" : "--delay-spread-us", o->npath_list);
    return -1;
  }
  for (size_t i = 0; i < o->npath_list; i++) {
    path_spec *p = &f->path_list[i];
    if (p->delay_us == UNSET) p->delay_us = f->base_delay_us;
    if (p->rate_gbps == UNSET) p->rate_gbps = f->path_rate_gbps ? f->path_rate_gbps : f->rate_gbps;
    if (p->loss == UNSET) p->loss = f->loss;
  }
  f->paths = (uint32_t)o->npath_list;
  return 0;
}

int path_options_finish(options *o, FILE *err) {
  char why[300];
  if (resolve_list(o, err) < 0) return -1;
  if (path_events_check(&o->sim.fabric, why, sizeof why) == 0) return 0;
  cli_usage_error(err, PROG, "--path-event: %s", why);
  return -1;
}
