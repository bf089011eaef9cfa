/* SPDX-License-Identifier: MIT */
/* The tables as text (the default output). */
#include "results.h"

static const char *const scen_name[2] = {"no_loss", "loss"};

/* With --reorder auto, where each QP's bound came from (docs/BITMAP_MODELS.md
 * section 4d): one line of its own, so that a fixed bound's header is as it was. */
static void eq3_line(FILE *f, const options *o) {
  const exp_params *p = &o->exp;
  if (!o->reorder_auto) return;
  uint32_t n = p->active < p->qps ? p->active : p->qps;
  double x = o->mdd_us * (o->spray.link_gbps / n) * 1e3 / 8.0 / o->spray.payload_bytes;
  fprintf(f,
          "Reordering per QP from Eq. 3: MDD %g us x (%g Gb/s / %u QPs at once) / %u B = %.3f "
          "packets, rounded up.\n",
          o->mdd_us, o->spray.link_gbps, n, o->spray.payload_bytes, x);
}

static void header(FILE *f, const options *o) {
  const exp_params *p = &o->exp;
  char arr[64];
  const char *per_qp = o->reorder_auto ? " per QP" : "";
  if (p->arrivals == ARR_ALIGNED)
    snprintf(arr, sizeof arr, "shuffled in aligned windows of %u PSN%s%s", p->reorder,
             p->reorder == 1 ? "" : "s", per_qp);
  else
    snprintf(arr, sizeof arr, "reorder <= %u PSN%s%s", p->reorder, p->reorder == 1 ? "" : "s",
             per_qp);
  fprintf(f,
          "Bitmap models: %u-bit blocks, %u-bit bitmap per QP (%u blocks), %u QPs (%u at a time), "
          "pool of %u "
          "blocks,\n%s, WQE of %u packets, %u seeds from %llu. Cost model: docs/BITMAP_MODELS.md "
          "section %s.\n",
          p->block_bits, o->bitmap_bits, p->nslots, p->qps, p->active < p->qps ? p->active : p->qps,
          p->pool, arr, p->wqe_pkts, o->seeds, (unsigned long long)o->seed,
          p->cost_pointer ? "2a" : "2");
  eq3_line(f, o);
  char thr[48];
  if (p->conf.left_threshold == BM_CACHE_EVERY)
    snprintf(thr, sizeof thr, "on every access");
  else
    snprintf(thr, sizeof thr, "after walks of more than %d block%s", p->conf.left_threshold,
             p->conf.left_threshold == 1 ? "" : "s");
  const char *preset =
      o->paper ? (options_paper_conventions(o) ? " (--paper)" : " (--paper, overridden)")
               : (options_paper_conventions(o) ? " (the paper's)" : "");
  fprintf(
      f,
      "Conventions%s: arrivals %s; cost %s (%s);\nLEFT/LEFT+ cache moved %s; LEFT+ walks %s from "
      "its cache "
      "(%u-bit list nodes);\nloss: one random packet of the first block, retransmitted after all "
      "others.\n\n",
      preset, arr_kind_name(p->arrivals), options_cost_name(o),
      p->cost_pointer ? "pointer accesses only, the per-QP entry free" : "the per-QP entry counted",
      thr, p->conf.leftplus_both ? "both ways (prev pointers)" : "forward only",
      p->block_bits + (p->conf.leftplus_both ? 2 : 1) * options_pointer_bits(o));
}

static void main_table(FILE *f, const options *o, const results *r) {
  fprintf(f, "Access cost per out-of-order packet (%s), spread over seeds; blocks held\n",
          o->exp.cost_pointer ? "pointer accesses" : "memory accesses");
  fprintf(f, "%-8s %-6s | %6s %6s %6s %6s %7s | %6s %6s %5s | %-17s | %8s %9s\n", "scenario",
          "model", "cost", "sd", "min", "max", "ci95", "nodes", "hops", "worst", "max blocks/QP",
          "mean blk", "pool peak");
  for (int sc = 0; sc < 2; sc++)
    for (int k = 0; k < BM_NMODELS; k++) {
      if (!o->model[k]) continue;
      const model_stats *s = &r->main[k][sc];
      char blocks[40];
      snprintf(blocks, sizeof blocks, "%u (%.1f [%g,%g])", s->max_blocks_all,
               stat_mean(&s->max_blocks), s->max_blocks.min, s->max_blocks.max);
      fprintf(f,
              "%-8s %-6s | %6.3f %6.3f %6.3f %6.3f %7.4f | %6.3f %6.3f %5u | %-17s | %8.2f %9.0f\n",
              scen_name[sc], bm_kind_name((bm_kind)k), stat_mean(&s->cost_ooo),
              stat_sd(&s->cost_ooo), s->cost_ooo.min, s->cost_ooo.max, stat_ci95(&s->cost_ooo),
              stat_mean(&s->node_ooo), stat_mean(&s->hops_ooo), s->max_cost, blocks,
              stat_mean(&s->mean_blocks), stat_mean(&s->pool_peak));
    }
  fprintf(f,
          "cost: mean over seeds of the per-seed mean (sd, min, max, 95%% CI half-width); nodes: "
          "accesses without the per-QP\nentry read; worst: most expensive access; max blocks/QP: "
          "overall (mean "
          "[min,max] of the per-seed maxima);\nmean blk: blocks its QP holds after an arrival, "
          "mean; pool peak: most blocks held by all QPs at once.\n\n");
}

static void sweep_table(FILE *f, const options *o, const results *r) {
  if (!o->nsweep) return;
  fprintf(
      f,
      "Pool exhaustion, loss scenario, every QP at once, pool of %u blocks: arrivals that "
      "found the pool "
      "empty,\nmean over seeds [min,max] / WQEs aborted after %u drops of one packet (mean)%s\n",
      o->exp.pool, o->exp.retry_limit,
      o->reorder_auto ? ";\nR: each QP's reordering bound, Eq. 3 for that many QPs at once" : "");
  fprintf(f, "%6s", "QPs");
  if (o->reorder_auto) fprintf(f, " %4s", "R");
  for (int k = 0; k < BM_NMODELS; k++)
    if (o->model[k]) fprintf(f, " | %-30s", bm_kind_name((bm_kind)k));
  fprintf(f, "\n");
  for (size_t i = 0; i < o->nsweep; i++) {
    fprintf(f, "%6u", r->sweep[i].qps);
    if (o->reorder_auto) fprintf(f, " %4u", r->sweep[i].reorder);
    for (int k = 0; k < BM_NMODELS; k++) {
      if (!o->model[k]) continue;
      const model_stats *s = &r->sweep[i].m[k];
      char cell[64];
      snprintf(cell, sizeof cell, "%.0f [%.0f,%.0f] / %.1f", stat_mean(&s->pool_empty),
               s->pool_empty.min, s->pool_empty.max, stat_mean(&s->aborted));
      fprintf(f, " | %-30s", cell);
    }
    fprintf(f, "\n");
  }
  fprintf(f, "\n");
}

static void detector_table(FILE *f, const options *o, const results *r) {
  if (!o->detectors) return;
  const spray_params *sp = &o->spray;
  fprintf(f,
          "Loss detectors on the same arrivals: %u B payload (%u B on the wire, %.3f us at %g "
          "Gb/s), sprayed "
          "uniformly on %u paths\nwith delays %g us + k * diff / %u, %u packets per trial, one "
          "lost in [%u, %u), "
          "%u trials per row\n",
          sp->payload_bytes, sp->payload_bytes + 82, r->pkt_time_us, sp->link_gbps, sp->paths,
          sp->base_delay_us, sp->paths > 1 ? sp->paths - 1 : 1, sp->npkts, sp->npkts / 4,
          sp->npkts / 2, o->seeds);
  fprintf(f, "%-10s %7s | %-24s | %-26s | %-20s | %6s\n", "detector", "diff us",
          "delay pkts mean [min,max]", "delay us mean [min,max]", "false /1000 mean max", "missed");
  for (size_t i = 0; i < r->ndet; i++) {
    const det_row *d = &r->det[i];
    char pk[48] = "-", us[48] = "-", fa[40];
    if (d->delay_pkts.n) {
      snprintf(pk, sizeof pk, "%.1f [%g,%g]", stat_mean(&d->delay_pkts), d->delay_pkts.min,
               d->delay_pkts.max);
      snprintf(us, sizeof us, "%.2f [%.2f,%.2f]", stat_mean(&d->delay_us), d->delay_us.min,
               d->delay_us.max);
    }
    snprintf(fa, sizeof fa, "%.2f %.2f", stat_mean(&d->false_per_1000), d->false_per_1000.max);
    fprintf(f, "%-10s %7g | %-24s | %-26s | %-20s | %6u\n", d->name, d->diff_us, pk, us, fa,
            d->missed);
  }
  fprintf(f,
          "delay: arrivals (and us) from the lost packet's would-be arrival to the arrival that "
          "declares it; "
          "<= 0: declared\nbefore it could have arrived. false: PSNs declared lost that were only "
          "late, per "
          "1000 arrivals.\n");
}

void report_text(FILE *f, const options *o, const results *r) {
  header(f, o);
  main_table(f, o, r);
  sweep_table(f, o, r);
  detector_table(f, o, r);
}
