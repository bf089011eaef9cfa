/* SPDX-License-Identifier: MIT */
#include "path_events.h"

#include <stdio.h>
#include <stdlib.h>

/* Microseconds of simulated time in picoseconds, rounded as net.c rounds the
 * paths' delays; a negative end (never recovers) is PATH_NEVER. */
static uint64_t path_us_to_ps(double us) {
  return us < 0 ? PATH_NEVER : (uint64_t)(us * 1e6 + 0.5);
}

int path_timeline_init(path_timeline *t, const sim_fabric *f, unsigned path) {
  t->w = NULL;
  t->n = 0;
  unsigned n = 0;
  for (size_t i = 0; i < f->nevents; i++) n += f->events[i].path == path;
  if (!n) return 0;
  if (!(t->w = calloc(n, sizeof *t->w))) return -1;
  for (size_t i = 0; i < f->nevents; i++) {
    const path_event *e = &f->events[i];
    if (e->path != path) continue;
    t->w[t->n++] =
        (path_window){path_us_to_ps(e->start_us), path_us_to_ps(e->end_us), e->kind, e->value};
  }
  return 0;
}

void path_timeline_free(path_timeline *t) {
  free(t->w);
  t->w = NULL;
  t->n = 0;
}

bool path_timeline_down(const path_timeline *t, uint64_t from_ps, uint64_t to_ps) {
  for (unsigned i = 0; i < t->n; i++) {
    const path_window *w = &t->w[i];
    if (w->kind == PATH_EV_FAIL && w->start_ps < to_ps && w->end_ps > from_ps) return true;
  }
  return false;
}

double path_timeline_value(const path_timeline *t, path_event_kind kind, uint64_t at_ps,
                           double base) {
  for (unsigned i = 0; i < t->n; i++) {
    const path_window *w = &t->w[i];
    if (w->kind == kind && w->start_ps <= at_ps && at_ps < w->end_ps) return w->value;
  }
  return base;
}

void path_event_format(const path_event *e, char *buf, size_t cap) {
  int n;
  if (e->kind == PATH_EV_FAIL)
    n = snprintf(buf, cap, "%u:fail@%g", e->path, e->start_us);
  else
    n = snprintf(buf, cap, "%u:%s=%g@%g", e->path, e->kind == PATH_EV_LOSS ? "loss" : "rate",
                 e->value, e->start_us);
  if (e->end_us >= 0 && n > 0 && (size_t)n < cap)
    snprintf(buf + n, cap - (size_t)n, ":recover@%g", e->end_us);
}

static bool overlap(const path_event *a, const path_event *b) {
  double a_end = a->end_us < 0 ? 1e300 : a->end_us, b_end = b->end_us < 0 ? 1e300 : b->end_us;
  return a->start_us < b_end && b->start_us < a_end;
}

int path_events_check(const sim_fabric *f, char *why, size_t cap) {
  char one[96], two[96];
  for (size_t i = 0; i < f->nevents; i++) {
    const path_event *e = &f->events[i];
    path_event_format(e, one, sizeof one);
    if (e->path >= f->paths) {
      snprintf(why, cap, "'%s': path %u does not exist (%u path%s, numbered from 0)", one, e->path,
               f->paths, f->paths == 1 ? "" : "s");
      return -1;
    }
    if (e->end_us >= 0 && e->end_us <= e->start_us) {
      snprintf(why, cap, "'%s': the path must recover after the event starts", one);
      return -1;
    }
    for (size_t j = 0; j < i; j++) {
      const path_event *o = &f->events[j];
      if (o->path != e->path || o->kind != e->kind || e->kind == PATH_EV_FAIL || !overlap(e, o))
        continue;
      path_event_format(o, two, sizeof two);
      snprintf(why, cap, "'%s' overlaps '%s': two %s values for path %u at once", one, two,
               e->kind == PATH_EV_LOSS ? "loss" : "rate", e->path);
      return -1;
    }
  }
  return 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

unsigned path_events_bounds(const sim_fabric *f, uint64_t *out) {
  unsigned n = 0;
  for (size_t i = 0; i < f->nevents && i < PATH_EVENTS_MAX; i++) {
    out[n++] = path_us_to_ps(f->events[i].start_us);
    if (f->events[i].end_us >= 0) out[n++] = path_us_to_ps(f->events[i].end_us);
  }
  qsort(out, n, sizeof *out, cmp_u64);
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++)
    if (!k || out[k - 1] != out[i]) out[k++] = out[i];
  return k;
}
