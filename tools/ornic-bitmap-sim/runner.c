/* SPDX-License-Identifier: MIT */
/* Implements results.h: the run (results_run), i.e. the bitmap experiment per
 * model and scenario, the pool-exhaustion sweep and the detector trials, each
 * aggregated over seeds, and results_free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector.h"
#include "results.h"

static void add_seed(model_stats *s, const exp_result *e) {
  stat_add(&s->cost_ooo, e->ooo ? (double)e->cost_ooo / e->ooo : 0.0);
  stat_add(&s->cost_all, e->arrivals ? (double)e->cost_all / e->arrivals : 0.0);
  stat_add(&s->node_ooo, e->ooo ? (double)e->node_ooo / e->ooo : 0.0);
  stat_add(&s->hops_ooo, e->ooo ? (double)e->hops_ooo / e->ooo : 0.0);
  stat_add(&s->max_blocks, e->max_blocks);
  stat_add(&s->mean_blocks, e->arrivals ? (double)e->blocks_sum / e->arrivals : 0.0);
  stat_add(&s->pool_peak, (double)e->pool_peak);
  stat_add(&s->pool_empty, (double)e->pool_empty);
  stat_add(&s->aborted, (double)e->aborted);
  if (e->max_blocks > s->max_blocks_all) s->max_blocks_all = e->max_blocks;
  if (e->max_cost > s->max_cost) s->max_cost = e->max_cost;
  s->arrivals += e->arrivals;
  s->ooo += e->ooo;
  s->pool_empty_total += e->pool_empty;
  s->aborted_total += e->aborted;
  s->out_of_window_total += e->out_of_window;
}

static int run_models(const options *o, const exp_params *p, bool loss, model_stats *out) {
  for (int k = 0; k < BM_NMODELS; k++) {
    if (!o->model[k]) continue;
    for (unsigned s = 0; s < o->seeds; s++) {
      exp_result e;
      if (exp_run(p, (bm_kind)k, loss, o->seed + s, &e) < 0) {
        fprintf(stderr,
                "ornic-bitmap-sim: model %s, seed %llu: out of memory or blocks not returned\n",
                bm_kind_name((bm_kind)k), (unsigned long long)(o->seed + s));
        return -1;
      }
      add_seed(&out[k], &e);
    }
  }
  return 0;
}

static int run_detector(const options *o, det_row *row, bool otd, uint32_t param) {
  spray_params sp = o->spray;
  sp.diff_us = row->diff_us;
  for (unsigned s = 0; s < o->seeds; s++) {
    spray_trace t = {0};
    det_result d;
    if (spray_make(&sp, o->seed + s, &t) < 0) return -1;
    double rtt = o->rtt_us > 0 ? o->rtt_us : 2.0 * (sp.base_delay_us + sp.diff_us / 2.0);
    int rc = otd ? det_otd(&t, sp.npkts, param, rtt, spray_pkt_time_us(&sp), &d)
                 : det_shift(&t, sp.npkts, param, &d);
    if (rc == 0) {
      row->trials++;
      stat_add(&row->false_per_1000, 1000.0 * d.false_alarms / t.n);
      if (d.detected) {
        stat_add(&row->delay_pkts, det_delay_pkts(&t, &d));
        stat_add(&row->delay_us, det_delay_us(&t, &d));
      } else {
        row->missed++;
      }
    }
    spray_free(&t);
    if (rc < 0) return -1;
  }
  return 0;
}

static int run_detectors(const options *o, results *r) {
  size_t ndet = (o->notd + 1) * o->ndiff;
  r->det = calloc(ndet, sizeof *r->det);
  if (!r->det) return -1;
  r->ndet = ndet;
  size_t i = 0;
  for (size_t d = 0; d <= o->notd; d++) {
    bool otd = d < o->notd;
    uint32_t param = otd ? o->otd[d] : o->sr_window;
    for (size_t j = 0; j < o->ndiff; j++, i++) {
      det_row *row = &r->det[i];
      snprintf(row->name, sizeof row->name, otd ? "otd%u" : "shift%u", param);
      row->diff_us = o->diff_us[j];
      if (run_detector(o, row, otd, param) < 0) return -1;
    }
  }
  return 0;
}

int results_run(const options *o, results *r) {
  memset(r, 0, sizeof *r);
  r->pkt_time_us = spray_pkt_time_us(&o->spray);
  model_stats scen[2][BM_NMODELS];
  memset(scen, 0, sizeof scen);
  for (int sc = 0; sc < 2; sc++)
    if (run_models(o, &o->exp, sc == SC_LOSS, scen[sc]) < 0) return -1;
  for (int k = 0; k < BM_NMODELS; k++) {
    r->main[k][SC_NO_LOSS] = scen[SC_NO_LOSS][k];
    r->main[k][SC_LOSS] = scen[SC_LOSS][k];
  }
  for (size_t i = 0; i < o->nsweep; i++) {
    exp_params p = o->exp;
    p.qps = p.active = o->sweep[i];
    p.reorder = options_reorder_for(o, o->sweep[i]); /* with auto: Eq. 3 for these QPs */
    r->sweep[i].qps = o->sweep[i];
    r->sweep[i].reorder = p.reorder;
    if (run_models(o, &p, true, r->sweep[i].m) < 0) return -1;
  }
  if (o->detectors && run_detectors(o, r) < 0) {
    fprintf(stderr, "ornic-bitmap-sim: out of memory in the detector comparison\n");
    return -1;
  }
  return 0;
}

void results_free(results *r) {
  free(r->det);
  r->det = NULL;
}
