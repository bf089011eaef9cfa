/* SPDX-License-Identifier: MIT */
#include "summary.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "incast_report.h"
#include "path_report.h"
#include "profile.h"
#include "records.h"
#include "sizing.h"
#include "truth.h"

/* Derived figures, shared by the text and JSON forms. */
typedef struct {
  double goodput_gbps, overhead_pct, ct_mean_us, ct_p99_us, ct_max_us, sim_us;
} derived;

static derived derive(const stats *st) {
  derived d = {0};
  uint64_t span = st->last_done_ps > st->first_post_ps ? st->last_done_ps - st->first_post_ps : 0;
  /* bits / ps = Tb/s; x 1000 = Gb/s */
  if (span) d.goodput_gbps = (double)st->bytes_done * 8.0 / (double)span * 1000.0;
  if (st->bytes_wire)
    d.overhead_pct = 100.0 * (double)(st->bytes_wire - st->payload_wire) / (double)st->bytes_wire;
  if (st->wqe_ps.n) d.ct_mean_us = (double)(st->wqe_ps.sum / st->wqe_ps.n) / 1e6;
  d.ct_p99_us = (double)hist_quantile(&st->wqe_ps, 0.99) / 1e6;
  d.ct_max_us = (double)st->wqe_ps.max / 1e6;
  d.sim_us = (double)st->end_ps / 1e6;
  return d;
}

static const char *outcome(const stats *st) {
  return st->interrupted ? "interrupted" : st->bench_stop ? "bench" : "complete";
}

/* The OTD, the window, the emulator and the RNIC model in force, and where
 * their values came from (sizing.h: Eq. 3 and Eqs. 5-6). */
static void print_sizes(FILE *f, const stats *st, const options *o) {
  const sim_config *c = &o->sim;
  fprintf(f, "  OTD                %u packets (%s; Eq. 3: MDD %g us x %g Gb/s / %u B",
          c->protocol.otd, size_source_name(o->otd_source), sizing_mdd_us(c), c->fabric.rate_gbps,
          c->workload.pmtu);
  if (c->fabric.reorder_max > 1) fprintf(f, " + %u (--reorder-max)", c->fabric.reorder_max - 1);
  fprintf(f, " = %u)\n", o->otd_eq3);
  if (c->profile->caps & PROFILE_WINDOW)
    fprintf(
        f, "  window             %u packets (%s; Eqs. 5-6: OTD %u + BDP %u, + ACK slack %u = %u)\n",
        c->protocol.window, size_source_name(o->window_source), c->protocol.otd, o->bdp,
        sizing_ack_slack(c), sizing_window(c->protocol.otd, o->bdp) + sizing_ack_slack(c));
  if (c->protocol.ack_engine_ns)
    fprintf(f, "  ACKs               register scheduler, one per %u ns at most (%s)\n",
            c->protocol.ack_engine_ns,
            o->ack_engine_source == SIZE_AUTO ? "auto: one ACK frame's wire time" : "given");
  else if (c->profile->caps & PROFILE_ACK_OPTIONS)
    fprintf(f, "  ACKs               every %u packets%s\n", c->protocol.ack_every,
            c->protocol.ack_every ? "" : " (0: at WQE completion)");
  if (c->fabric.reorder_max)
    fprintf(f, "  reorder emulator   OOO distance below %u (--reorder-max)\n",
            c->fabric.reorder_max);
  if (c->profile->caps & PROFILE_NACK_THRESHOLD)
    fprintf(f, "  NACK threshold     %u (%s)\n", c->protocol.irn_nack_threshold,
            o->irn_nack_threshold_given          ? "given"
            : c->protocol.irn_nack_threshold > 1 ? "auto: the OTD, the fabric reorders"
                                                 : "auto: in-order fabric, IRN as published");
  if (!(c->profile->caps & PROFILE_RNIC)) return;
  const rnic_model *m = &c->protocol.rnic;
  fprintf(f, "  RNIC model         %s: NAK after %g us, resend after %g us, ",
          rnic_preset_name(o->rnic.preset), m->nak_delay_us, m->retx_delay_us);
  if (m->ack_req)
    fprintf(f, "A bit every %u packets, ", m->ack_req);
  else
    fprintf(f, "ACK every --ack-every, ");
  fprintf(f, "NAKs during a resend %s", m->ignore_nak_in_retry ? "ignored" : "acted on");
  if (m->ignore_nak_in_retry) fprintf(f, " (%llu)", (unsigned long long)st->naks_ignored);
  if (m->rto_us > 0 && m->timeout_exp)
    fprintf(f, ", RTO %g us doubling to %g us\n", m->rto_us, ldexp(4.096, (int)m->timeout_exp));
  else if (m->rto_us > 0)
    fprintf(f, ", RTO %g us doubling\n", m->rto_us);
  else
    fprintf(f, ", adaptive RTO\n");
}

void summary_print(FILE *f, const stats *st, const options *o) {
  const sim_config *c = &o->sim;
  derived d = derive(st);
  if (c->profile->caps & PROFILE_TWO_HOSTS)
    fprintf(f, "profile %s, %s, %u outstanding, ", c->profile->name,
            c->protocol.rc.a2b ? "A to B" : "both ways", c->protocol.rc.outstanding);
  else
    fprintf(f, "profile %s, %s, ", c->profile->name,
            c->workload.op == OP_READ ? "OOO READ" : "WRITE");
  fprintf(f, "%u QP(s), %u path(s), spray %s, seed %llu: %s\n", c->workload.qps, c->fabric.paths,
          spray_name(c->fabric.spray), (unsigned long long)c->seed, outcome(st));
  fprintf(f, "  WQEs completed     %llu of %llu (%llu verified byte for byte)\n",
          (unsigned long long)st->wqes_done, (unsigned long long)st->wqes_total,
          (unsigned long long)st->wqes_verified);
  fprintf(f, "  goodput            %.3f Gb/s over %.3f us simulated\n", d.goodput_gbps, d.sim_us);
  fprintf(f, "  WQE completion     mean %.3f us, p99 %.3f us, max %.3f us\n", d.ct_mean_us,
          d.ct_p99_us, d.ct_max_us);
  fprintf(f, "  on the wire        %llu packets, %llu bytes, header overhead %.2f%%\n",
          (unsigned long long)st->pkts_wire, (unsigned long long)st->bytes_wire, d.overhead_pct);
  fprintf(f, "  captured           %llu packets, %llu bytes\n",
          (unsigned long long)st->pkts_captured, (unsigned long long)st->bytes_captured);
  fprintf(f, "  data / READ req    %llu / %llu (retransmitted %llu)\n",
          (unsigned long long)st->data_pkts, (unsigned long long)st->read_reqs,
          (unsigned long long)st->retx);
  fprintf(f, "  ACK / NAK / fatal  %llu / %llu / %llu\n", (unsigned long long)st->acks,
          (unsigned long long)st->naks, (unsigned long long)st->fatal);
  fprintf(f, "  lost               %llu random, %llu by --drop",
          (unsigned long long)st->drops_random, (unsigned long long)st->drops_rule);
  if (st->paths) fprintf(f, ", %llu on a path that was down", (unsigned long long)st->drops_down);
  if (st->incast) fprintf(f, ", %llu at the switch", (unsigned long long)st->drops_switch);
  fprintf(f, "; %llu timeouts; %llu duplicates\n", (unsigned long long)st->timeouts,
          (unsigned long long)st->dup_data);
  if (c->profile->rx_drops)
    fprintf(f, "  receiver drops     %llu (%s)\n", (unsigned long long)st->rx_drops,
            c->profile->rx_drops);
  if (c->profile->caps & PROFILE_BITMAP)
    fprintf(f, "  bitmap blocks      at most %u held by one QP; pool peak %llu of %llu%s\n",
            st->max_blocks_qp, (unsigned long long)st->pool_peak,
            (unsigned long long)st->pool_capacity, st->pool_drops ? " (exhausted)" : "");
  print_sizes(f, st, o);
  path_report_text(f, st, o);
  incast_report_text(f, st, o);
  if (st->unused_drop_rules)
    fprintf(f, "  note: %u --drop rule(s) never matched a packet\n", st->unused_drop_rules);
}

static void json_u64(FILE *f, const char *k, uint64_t v, bool comma) {
  fprintf(f, "  \"%s\": %llu%s\n", k, (unsigned long long)v, comma ? "," : "");
}

static void json_num(FILE *f, const char *k, double v) { fprintf(f, "  \"%s\": %.6f,\n", k, v); }

/* As print_sizes: "otd", "otd_source" (default, auto or given), "otd_eq3",
 * "mdd_us", "window", "window_source", "bdp_packets", "reorder_max", where the
 * profile takes ACK options "ack_engine_ns" (0: EVERY_N) and "ack_every", for the
 * irn profile "irn_nack_threshold" and, for the roce profile, "rnic". */
static void json_sizes(FILE *f, const options *o) {
  const sim_config *c = &o->sim;
  json_u64(f, "otd", c->protocol.otd, true);
  fprintf(f, "  \"otd_source\": \"%s\",\n", size_source_name(o->otd_source));
  json_u64(f, "otd_eq3", o->otd_eq3, true);
  json_num(f, "mdd_us", sizing_mdd_us(c));
  json_u64(f, "window", c->protocol.window, true);
  fprintf(f, "  \"window_source\": \"%s\",\n", size_source_name(o->window_source));
  json_u64(f, "bdp_packets", o->bdp, true);
  json_u64(f, "reorder_max", c->fabric.reorder_max, true);
  if (c->profile->caps & PROFILE_ACK_OPTIONS) {
    json_u64(f, "ack_engine_ns", c->protocol.ack_engine_ns, true); /* 0: EVERY_N */
    json_u64(f, "ack_every", c->protocol.ack_engine_ns ? 0 : c->protocol.ack_every, true);
  }
  if (c->profile->caps & PROFILE_NACK_THRESHOLD)
    json_u64(f, "irn_nack_threshold", c->protocol.irn_nack_threshold, true);
  if (!(c->profile->caps & PROFILE_RNIC)) return;
  const rnic_model *m = &c->protocol.rnic;
  fprintf(f,
          "  \"rnic\": {\"model\": \"%s\", \"nak_delay_us\": %.6f, \"retx_delay_us\": %.6f, "
          "\"ack_req\": %u, \"nak_in_retry\": \"%s\", \"rto_us\": %.6f, \"timeout\": %u},\n",
          rnic_preset_name(o->rnic.preset), m->nak_delay_us, m->retx_delay_us, m->ack_req,
          m->ignore_nak_in_retry ? "ignore" : "act", m->rto_us, m->timeout_exp);
}

static void json_body(FILE *f, const stats *st, const options *o) {
  const sim_config *c = &o->sim;
  derived d = derive(st);
  fprintf(f, "{\n  \"profile\": \"%s\",\n  \"op\": \"%s\",\n  \"outcome\": \"%s\",\n",
          c->profile->name, c->workload.op == OP_READ ? "read" : "write", outcome(st));
  json_u64(f, "seed", c->seed, true);
  json_u64(f, "qps", c->workload.qps, true);
  json_u64(f, "paths", c->fabric.paths, true);
  json_u64(f, "wqes_total", st->wqes_total, true);
  json_u64(f, "wqes_completed", st->wqes_done, true);
  json_u64(f, "wqes_verified", st->wqes_verified, true);
  json_u64(f, "bytes_completed", st->bytes_done, true);
  json_num(f, "goodput_gbps", d.goodput_gbps);
  json_num(f, "sim_time_us", d.sim_us);
  fprintf(f, "  \"wqe_completion_us\": {\"mean\": %.6f, \"p99\": %.6f, \"max\": %.6f},\n",
          d.ct_mean_us, d.ct_p99_us, d.ct_max_us);
  json_u64(f, "packets_on_wire", st->pkts_wire, true);
  json_u64(f, "bytes_on_wire", st->bytes_wire, true);
  json_u64(f, "payload_bytes_on_wire", st->payload_wire, true);
  json_num(f, "header_overhead_pct", d.overhead_pct);
  json_u64(f, "packets_captured", st->pkts_captured, true);
  json_u64(f, "bytes_captured", st->bytes_captured, true);
  json_u64(f, "data_packets", st->data_pkts, true);
  json_u64(f, "read_requests", st->read_reqs, true);
  json_u64(f, "retransmissions", st->retx, true);
  json_u64(f, "acks", st->acks, true);
  json_u64(f, "naks", st->naks, true);
  json_u64(f, "fatal_naks", st->fatal, true);
  json_u64(f, "timeouts", st->timeouts, true);
  json_u64(f, "drops_random", st->drops_random, true);
  json_u64(f, "drops_rule", st->drops_rule, true);
  json_u64(f, "unused_drop_rules", st->unused_drop_rules, true);
  json_u64(f, "duplicates_received", st->dup_data, true);
  json_u64(f, "bitmap_pool_drops", st->pool_drops, true);
  json_u64(f, "receiver_drops", st->rx_drops, true);
  json_u64(f, "naks_ignored", st->naks_ignored, true);
  json_u64(f, "max_bitmap_blocks_per_qp", st->max_blocks_qp, true);
  json_u64(f, "bitmap_pool_peak", st->pool_peak, true);
  json_u64(f, "bitmap_pool_capacity", st->pool_capacity, true);
  records_write_json(f, st->records);
  json_sizes(f, o);
  path_report_json(f, st, o);
  incast_report_json(f, st, o);
  json_u64(f, "packet_buffers_peak", st->pkts_in_flight_peak, st->truth != NULL);
  if (st->truth) {
    truth_write_json(f, st->truth, st->pkts_captured, st->pkts_full);
    fputc('\n', f);
  }
  fputs("}\n", f);
}

int summary_write_json_stream(FILE *f, const stats *st, const options *o) {
  json_body(f, st, o);
  return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

int summary_write_json(const char *path, const stats *st, const options *o) {
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
  if (!f) return -1;
  json_body(f, st, o);
  if (f == stdout) return fflush(f) == 0 ? 0 : -1;
  int bad = ferror(f);
  int e = errno;
  if (fclose(f) != 0 || bad) {
    errno = bad ? e : errno;
    return -1;
  }
  return 0;
}
