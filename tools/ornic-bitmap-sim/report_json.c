/* SPDX-License-Identifier: MIT */
/* The results as one JSON object (--json). Keys are documented in
 * docs/BITMAP_MODELS.md section 7. */
#include <math.h>

#include "results.h"

static void num(FILE *f, double x) {
  if (!isfinite(x))
    fputs("null", f);
  else
    fprintf(f, "%.10g", x);
}

static void stat(FILE *f, const char *key, const stat_acc *s) {
  fprintf(f, "\"%s\": ", key);
  if (!s->n) {
    fputs("null", f);
    return;
  }
  fprintf(f, "{\"n\": %u, \"mean\": ", s->n);
  num(f, stat_mean(s));
  fputs(", \"sd\": ", f);
  num(f, stat_sd(s));
  fputs(", \"min\": ", f);
  num(f, s->min);
  fputs(", \"max\": ", f);
  num(f, s->max);
  fputs(", \"ci95\": ", f);
  num(f, stat_ci95(s));
  fputs("}", f);
}

static void params(FILE *f, const options *o) {
  const exp_params *p = &o->exp;
  fprintf(f,
          "\"params\": {\"block_bits\": %u, \"bitmap_bits\": %u, \"nslots\": %u, \"qps\": %u, "
          "\"active\": %u, "
          "\"pool\": %u, \"reorder\": %u, \"reorder_source\": \"%s\", \"mdd_us\": ",
          p->block_bits, o->bitmap_bits, p->nslots, p->qps, p->active, p->pool, p->reorder,
          o->reorder_auto ? "eq3" : "fixed");
  num(f, o->mdd_us);
  fprintf(f, ", \"wqe_pkts\": %u, \"retry_limit\": %u, \"seed\": %llu, \"seeds\": %u},\n",
          p->wqe_pkts, p->retry_limit, (unsigned long long)o->seed, o->seeds);
  if (o->exp.cost_pointer)
    fputs(
        "\"cost_model\": \"block accesses through a pointer, one cycle each: the per-QP entry "
        "(ORNIC slot; "
        "list head/tail/cache pointer) is free, 1 per node read or written, 1 per next- or "
        "prev-pointer hop; "
        "pool push/pop and release work not counted (docs/BITMAP_MODELS.md section 2a)\",\n",
        f);
  else
    fputs(
        "\"cost_model\": \"memory accesses to reach the bit of a PSN, one cycle each: 1 for the "
        "per-QP "
        "entry (ORNIC slot; list head/tail/cache pointer), 1 per node read or written, 1 per "
        "next-pointer "
        "hop; pool push/pop and release work not counted (docs/BITMAP_MODELS.md section 2)\",\n",
        f);
  const bm_conf *c = &o->exp.conf;
  unsigned pb = options_pointer_bits(o), m = o->exp.block_bits;
  fprintf(f,
          "\"conventions\": {\"preset\": \"%s\", \"paper_conventions\": %s, \"arrivals\": \"%s\", "
          "\"arrivals_bound\": %u, \"cost\": \"%s\", \"left_cache_update\": \"%s\", "
          "\"left_threshold\": ",
          o->paper ? "paper" : "none", options_paper_conventions(o) ? "true" : "false",
          arr_kind_name(o->exp.arrivals), o->exp.reorder, options_cost_name(o),
          c->left_threshold == BM_CACHE_EVERY ? "every" : "threshold");
  if (c->left_threshold == BM_CACHE_EVERY)
    fputs("null", f);
  else
    fprintf(f, "%d", c->left_threshold);
  fprintf(f,
          ", \"leftplus_walk\": \"%s\", \"loss_scenario\": \"first_block\", \"pointer_bits\": %u, "
          "\"list_node_bits\": {\"next_only\": %u, \"next_and_prev\": %u}},\n",
          options_walk_name(o), pb, m + pb, m + 2 * pb);
}

static void scenario(FILE *f, const char *name, const model_stats *s) {
  fprintf(f, "    \"%s\": {\"mean_access_cost\": ", name);
  num(f, stat_mean(&s->cost_ooo));
  fprintf(f, ", \"max_blocks\": %u, ", s->max_blocks_all);
  stat(f, "access_cost", &s->cost_ooo);
  fputs(", ", f);
  stat(f, "access_cost_all_packets", &s->cost_all);
  fputs(", ", f);
  stat(f, "node_accesses", &s->node_ooo);
  fputs(", ", f);
  stat(f, "hops", &s->hops_ooo);
  fprintf(f, ", \"max_access_cost\": %u, ", s->max_cost);
  stat(f, "max_blocks_per_seed", &s->max_blocks);
  fputs(", ", f);
  stat(f, "mean_blocks_held", &s->mean_blocks);
  fputs(", ", f);
  stat(f, "pool_peak", &s->pool_peak);
  fprintf(f,
          ", \"arrivals\": %llu, \"ooo_arrivals\": %llu, \"pool_empty_arrivals\": %llu, "
          "\"aborted_wqes\": %llu, "
          "\"out_of_window_arrivals\": %llu}",
          (unsigned long long)s->arrivals, (unsigned long long)s->ooo,
          (unsigned long long)s->pool_empty_total, (unsigned long long)s->aborted_total,
          (unsigned long long)s->out_of_window_total);
}

static void models(FILE *f, const options *o, const results *r) {
  fputs("\"models\": {", f);
  const char *sep = "\n";
  for (int k = 0; k < BM_NMODELS; k++) {
    if (!o->model[k]) continue;
    fprintf(f, "%s  \"%s\": {\n", sep, bm_kind_name((bm_kind)k));
    scenario(f, "no_loss", &r->main[k][SC_NO_LOSS]);
    fputs(",\n", f);
    scenario(f, "loss", &r->main[k][SC_LOSS]);
    fputs("}", f);
    sep = ",\n";
  }
  fputs("},\n", f);
}

static void exhaustion(FILE *f, const options *o, const results *r) {
  fprintf(f, "\"exhaustion\": {\"scenario\": \"loss\", \"pool\": %u, \"points\": [", o->exp.pool);
  for (size_t i = 0; i < o->nsweep; i++) {
    fprintf(f, "%s\n  {\"qps\": %u, \"reorder\": %u, \"models\": {", i ? "," : "", r->sweep[i].qps,
            r->sweep[i].reorder);
    const char *sep = "";
    for (int k = 0; k < BM_NMODELS; k++) {
      if (!o->model[k]) continue;
      const model_stats *s = &r->sweep[i].m[k];
      fprintf(f, "%s\"%s\": {", sep, bm_kind_name((bm_kind)k));
      stat(f, "pool_empty_arrivals", &s->pool_empty);
      fputs(", ", f);
      stat(f, "aborted_wqes", &s->aborted);
      fputs(", ", f);
      stat(f, "pool_peak", &s->pool_peak);
      fprintf(f, ", \"max_blocks\": %u}", s->max_blocks_all);
      sep = ", ";
    }
    fputs("}}", f);
  }
  fputs("]}", f);
}

static void detectors(FILE *f, const options *o, const results *r) {
  const spray_params *sp = &o->spray;
  fprintf(f, ",\n\"detectors\": {\"payload_bytes\": %u, \"wire_bytes\": %u, \"pkt_time_us\": ",
          sp->payload_bytes, sp->payload_bytes + 82);
  num(f, r->pkt_time_us);
  fputs(", \"link_gbps\": ", f);
  num(f, sp->link_gbps);
  fprintf(f, ", \"paths\": %u, \"base_delay_us\": ", sp->paths);
  num(f, sp->base_delay_us);
  fprintf(f, ", \"stream_pkts\": %u, \"sr_window\": %u, \"rows\": [", sp->npkts, o->sr_window);
  for (size_t i = 0; i < r->ndet; i++) {
    const det_row *d = &r->det[i];
    fprintf(f, "%s\n  {\"detector\": \"%s\", \"delay_diff_us\": ", i ? "," : "", d->name);
    num(f, d->diff_us);
    fprintf(f, ", \"trials\": %u, \"missed\": %u, ", d->trials, d->missed);
    stat(f, "delay_pkts", &d->delay_pkts);
    fputs(", ", f);
    stat(f, "delay_us", &d->delay_us);
    fputs(", ", f);
    stat(f, "false_alarms_per_1000", &d->false_per_1000);
    fputs("}", f);
  }
  fputs("]}", f);
}

void report_json(FILE *f, const options *o, const results *r) {
  fputs("{\"tool\": \"ornic-bitmap-sim\",\n", f);
  params(f, o);
  models(f, o, r);
  exhaustion(f, o, r);
  if (o->detectors) detectors(f, o, r);
  fputs("}\n", f);
}
