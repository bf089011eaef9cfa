/* SPDX-License-Identifier: MIT */
#include "path_report.h"

#include "path_events.h"

/* One phase of the run (stats.h): from the first post, or the bound before
 * it, to the bound after it, or the last completion; clipped to the run. */
typedef struct {
  double from_us, to_us, gbps; /* gbps < 0: the phase has no duration */
  uint64_t wqes, bytes;
} phase_figures;

static phase_figures phase_at(const stats *st, unsigned k) {
  const phases *ph = &st->phase;
  uint64_t from = k ? ph->bound_ps[k - 1] : st->first_post_ps;
  uint64_t to = k < ph->nbounds ? ph->bound_ps[k] : st->last_done_ps;
  if (from < st->first_post_ps) from = st->first_post_ps;
  if (to > st->last_done_ps) to = st->last_done_ps;
  phase_figures p = {(double)from / 1e6, (double)to / 1e6, -1, ph->wqes[k], ph->bytes[k]};
  /* bits / ps = Tb/s; x 1000 = Gb/s, as the run's goodput */
  if (to > from) p.gbps = (double)p.bytes * 8.0 / (double)(to - from) * 1000.0;
  if (to < from) p.to_us = p.from_us; /* a phase after the run's end */
  return p;
}

static const char *event_name(path_event_kind k) {
  return k == PATH_EV_FAIL ? "fail" : k == PATH_EV_LOSS ? "loss" : "rate";
}

void path_report_text(FILE *f, const stats *st, const options *o) {
  const sim_fabric *fab = &o->sim.fabric;
  if (!st->paths) return;
  for (uint32_t i = 0; i < fab->paths; i++) {
    path_spec sp = sim_fabric_path(fab, i);
    const path_count *c = &st->paths[i];
    fprintf(f, "  path %-13u %g us, %g Gb/s, loss %g: %llu frames, %llu delivered, %llu lost", i,
            sp.delay_us, sp.rate_gbps, sp.loss, (unsigned long long)c->frames,
            (unsigned long long)c->delivered, (unsigned long long)c->lost);
    if (c->lost_down) fprintf(f, " (%llu while down)", (unsigned long long)c->lost_down);
    fputc('\n', f);
  }
  for (size_t i = 0; i < fab->nevents; i++) {
    char ev[96];
    path_event_format(&fab->events[i], ev, sizeof ev);
    fprintf(f, "  path event         %s\n", ev);
  }
  for (unsigned k = 0; st->phase.nbounds && k <= st->phase.nbounds; k++) {
    phase_figures p = phase_at(st, k);
    fprintf(f, "  goodput phase      %.3f-%.3f us: ", p.from_us, p.to_us);
    if (p.gbps >= 0)
      fprintf(f, "%.3f Gb/s", p.gbps);
    else
      fprintf(f, "- (no time of the run)");
    fprintf(f, " (%llu WQE%s completed)\n", (unsigned long long)p.wqes, p.wqes == 1 ? "" : "s");
  }
}

static void json_paths(FILE *f, const stats *st, const sim_fabric *fab) {
  fputs("  \"path_list\": [", f);
  for (uint32_t i = 0; i < fab->paths; i++) {
    path_spec sp = sim_fabric_path(fab, i);
    const path_count *c = &st->paths[i];
    fprintf(f,
            "%s\n    {\"path\": %u, \"delay_us\": %.6f, \"rate_gbps\": %.6f, \"loss\": %.6f, "
            "\"frames\": %llu, \"delivered\": %llu, \"lost\": %llu, \"lost_down\": %llu}",
            i ? "," : "", i, sp.delay_us, sp.rate_gbps, sp.loss, (unsigned long long)c->frames,
            (unsigned long long)c->delivered, (unsigned long long)c->lost,
            (unsigned long long)c->lost_down);
  }
  fputs("\n  ],\n", f);
}

static void json_events(FILE *f, const sim_fabric *fab) {
  fputs("  \"path_events\": [", f);
  for (size_t i = 0; i < fab->nevents; i++) {
    const path_event *e = &fab->events[i];
    fprintf(f, "%s\n    {\"path\": %u, \"event\": \"%s\", \"value\": ", i ? "," : "", e->path,
            event_name(e->kind));
    if (e->kind == PATH_EV_FAIL)
      fputs("null", f);
    else
      fprintf(f, "%.6f", e->value);
    fprintf(f, ", \"start_us\": %.6f, \"recover_us\": ", e->start_us);
    if (e->end_us < 0)
      fputs("null}", f);
    else
      fprintf(f, "%.6f}", e->end_us);
  }
  fputs(fab->nevents ? "\n  ],\n" : "],\n", f);
}

static void json_phases(FILE *f, const stats *st) {
  fputs("  \"goodput_phases\": [", f);
  for (unsigned k = 0; st->phase.nbounds && k <= st->phase.nbounds; k++) {
    phase_figures p = phase_at(st, k);
    fprintf(f,
            "%s\n    {\"from_us\": %.6f, \"to_us\": %.6f, \"wqes\": %llu, \"bytes\": %llu, "
            "\"goodput_gbps\": ",
            k ? "," : "", p.from_us, p.to_us, (unsigned long long)p.wqes,
            (unsigned long long)p.bytes);
    if (p.gbps >= 0)
      fprintf(f, "%.6f}", p.gbps);
    else
      fputs("null}", f);
  }
  fputs(st->phase.nbounds ? "\n  ],\n" : "],\n", f);
}

void path_report_json(FILE *f, const stats *st, const options *o) {
  if (!st->paths) return;
  fprintf(f, "  \"drops_path_down\": %llu,\n", (unsigned long long)st->drops_down);
  json_paths(f, st, &o->sim.fabric);
  json_events(f, &o->sim.fabric);
  json_phases(f, st);
}
