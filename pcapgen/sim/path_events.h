/* SPDX-License-Identifier: MIT */
/* A path's changes in time (--path-event, sim_config.h's path_event): when it
 * is down (a black hole), and which loss probability and link rate hold at a
 * moment. net.c keeps one timeline per path that has events; a path without
 * any never looks here, so the default fabric pays one test per frame.
 *
 * Windows are half-open, [start, end) of simulated time in picoseconds. A
 * frame is lost to a failure when its path is down at any moment between its
 * entry onto the path's link and its arrival at the other end (a link that
 * fails also loses what is on it); loss and rate windows apply to the frames
 * that enter the link within them. Fail windows of one path may overlap (it
 * is down in their union); two loss windows, or two rate windows, of one path
 * may not, since neither value would be the one in force: path_events_check
 * refuses them. */
#ifndef PCAPGEN_PATH_EVENTS_H
#define PCAPGEN_PATH_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_config.h"

#define PATH_NEVER UINT64_MAX /* the end of a window that never recovers */

typedef struct {
  uint64_t start_ps, end_ps;
  path_event_kind kind;
  double value;
} path_window;

/* The windows of one path. */
typedef struct {
  path_window *w;
  unsigned n;
} path_timeline;

/* The windows of `path` among f's events. 0, or -1 when out of memory; a path
 * without events gets an empty timeline and no allocation. */
int path_timeline_init(path_timeline *t, const sim_fabric *f, unsigned path);
void path_timeline_free(path_timeline *t);

/* Whether a fail window overlaps [from_ps, to_ps). */
bool path_timeline_down(const path_timeline *t, uint64_t from_ps, uint64_t to_ps);

/* The value of the `kind` window (PATH_EV_LOSS or PATH_EV_RATE) that holds at
 * at_ps, or `base` when none does. */
double path_timeline_value(const path_timeline *t, path_event_kind kind, uint64_t at_ps,
                           double base);

/* f's events against its paths: each names a path below `paths` and recovers
 * after it starts, and no two loss or two rate windows of one path overlap.
 * 0, or -1 with why[] saying which event (as path_event_format writes it) and
 * what is wrong. */
int path_events_check(const sim_fabric *f, char *why, size_t cap);

/* e as the command line writes it: PATH:fail@US[:recover@US],
 * PATH:loss=P@US[...] or PATH:rate=G@US[...]. */
void path_event_format(const path_event *e, char *buf, size_t cap);

/* The moments the events start or end, sorted, each once, in picoseconds:
 * the bounds of the run's phases (stats.h). Returns how many (at most
 * 2 x PATH_EVENTS_MAX; out must hold that many). */
unsigned path_events_bounds(const sim_fabric *f, uint64_t *out);

#endif
