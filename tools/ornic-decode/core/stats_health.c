/* SPDX-License-Identifier: MIT */
/* --stats, the health report of each requester direction: throughput and
 * messages, latency distributions, capture quality, congestion, and the NIC
 * counters an engineer compares a capture with. Every figure is the
 * engine's (ornic_analysis_dir_report, docs/PROTOCOL.md 8.9); this file
 * only lays them out, as text or as JSON members. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ornic/ornic.h>

#include "stats.h"
#include "stats_health.h"

#define U(x) ((unsigned long long)(x))

/* A direction with anything to report. */
static bool dir_used(const ornic_an_dir_report *r) {
  return r->base.req_packets || r->base.resp_packets || r->base.cnp;
}

static bool report_of(const dec_stats *st, const ornic_an_conv *c, unsigned dir,
                      ornic_an_dir_report *r) {
  return ornic_analysis_dir_report(st->an, c->id, dir, r, sizeof *r) == ORNIC_OK && dir_used(r);
}

static const char *const kind_names[ORNIC_AN_MSG_KINDS] = {"SEND", "WRITE", "READ", "ATOMIC"};
static const char *const kind_keys[ORNIC_AN_MSG_KINDS] = {"send", "write", "read", "atomic"};
static const char *const ecn_names[4] = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};

/* The listed conversations' used directions with their reports, gathered
 * once: every section reads them (a report's percentiles are a pass over
 * its histograms). */
typedef struct {
  const ornic_an_conv *c;
  unsigned dir;
  ornic_an_dir_report r;
} dir_row;

typedef struct {
  dir_row *v;
  size_t n, cap;
} dir_rows;

static void rows_add(dir_rows *rows, const dir_row *row) {
  if (rows->n == rows->cap) {
    size_t cap = rows->cap ? 2 * rows->cap : 16;
    dir_row *v = realloc(rows->v, cap * sizeof *v);
    if (!v) return; /* out of memory: the report lists fewer directions */
    rows->v = v;
    rows->cap = cap;
  }
  rows->v[rows->n++] = *row;
}

static dir_rows rows_of(const dec_stats *st) {
  dir_rows rows = {NULL, 0, 0};
  uint32_t total = ornic_analysis_conv_count(st->an);
  for (uint32_t id = 1; id <= total; id++) {
    dir_row row = {.c = ornic_analysis_conv(st->an, id)};
    if (!dec_stats_conv_listed(st, row.c)) continue;
    for (row.dir = 0; row.dir < 2; row.dir++)
      if (report_of(st, row.c, row.dir, &row.r)) rows_add(&rows, &row);
  }
  return rows;
}

/* Visits the rows. */
typedef void (*dir_fn)(dec_out *o, const ornic_an_conv *c, unsigned dir,
                       const ornic_an_dir_report *r, void *user);

static void each_dir(dec_out *o, const dir_rows *rows, dir_fn fn, void *user) {
  for (size_t i = 0; i < rows->n; i++) fn(o, rows->v[i].c, rows->v[i].dir, &rows->v[i].r, user);
}

static const char *dir_name(unsigned dir) { return dir == ORNIC_AN_DIR_AB ? "A->B" : "B->A"; }

/* ---- text ---- */

static void text_us(dec_out *o, uint64_t ns) { dec_out_printf(o, " %10.3f", (double)ns / 1e3); }

static void text_sizes(dec_out *o, const ornic_an_dir_report *r) {
  bool any = false;
  for (unsigned b = 0; b < ORNIC_AN_SIZE_BUCKETS; b++) {
    if (!r->size_hist[b]) continue;
    dec_out_printf(o, "%s%s:%llu", any ? "," : " ", ornic_an_size_bucket_name(b),
                   U(r->size_hist[b]));
    any = true;
  }
  if (r->size_unknown) dec_out_printf(o, "%sunknown:%llu", any ? "," : " ", U(r->size_unknown));
  if (!any && !r->size_unknown) dec_out_lit(o, " -");
}

static void text_traffic_row(dec_out *o, const ornic_an_conv *c, unsigned dir,
                             const ornic_an_dir_report *r, void *user) {
  (void)user;
  char reads[32];
  if (r->read_depth)
    snprintf(reads, sizeof reads, "%u/%u", r->reads_max, r->read_depth);
  else
    snprintf(reads, sizeof reads, "%u/-", r->reads_max);
  dec_out_printf(o, "  %-5u %-4s %10.3f %12.1f %12.1f %8u %9s  ", c->id, dir_name(dir), r->req_gbps,
                 r->msgs_per_s, r->done_per_s, r->flight_max, reads);
  bool any = false;
  for (unsigned k = 0; k < ORNIC_AN_MSG_KINDS; k++) {
    if (!r->msgs[k]) continue;
    dec_out_printf(o, "%s%s %llu", any ? ", " : "", kind_names[k], U(r->msgs[k]));
    any = true;
  }
  if (!any) dec_out_char(o, '-');
  dec_out_lit(o, "  sizes");
  text_sizes(o, r);
  if (r->reads_over_depth) /* PROTOCOL.md 8.10 */
    dec_out_printf(o, " [READ depth exceeded by %llu READ requests]", U(r->reads_over_depth));
  dec_out_char(o, '\n');
}

static void text_lat_row(dec_out *o, const ornic_an_conv *c, unsigned dir, const char *name,
                         const ornic_an_latency *l) {
  if (!l->count) return;
  dec_out_printf(o, "  %-5u %-4s %-12s %8llu", c->id, dir_name(dir), name, U(l->count));
  text_us(o, l->min_ns);
  text_us(o, l->avg_ns);
  if (l->percentiles) {
    text_us(o, l->p50_ns);
    text_us(o, l->p90_ns);
    text_us(o, l->p99_ns);
    text_us(o, l->p999_ns);
  } else {
    dec_out_printf(o, " %10s %10s %10s %10s", "-", "-", "-", "-");
  }
  text_us(o, l->max_ns);
  dec_out_char(o, '\n');
}

static void text_lat_rows(dec_out *o, const ornic_an_conv *c, unsigned dir,
                          const ornic_an_dir_report *r, void *user) {
  (void)user;
  text_lat_row(o, c, dir, "ack_rtt", &r->ack_rtt);
  text_lat_row(o, c, dir, "wqe_time", &r->msg_time);
  text_lat_row(o, c, dir, "read_time", &r->read_time);
  text_lat_row(o, c, dir, "cnp_reaction", &r->cnp_reaction);
}

/* One headline per direction (8.5). */
static void text_quality_row(dec_out *o, const ornic_an_conv *c, unsigned dir,
                             const ornic_an_dir_report *r, void *user) {
  (void)user;
  dec_out_printf(o, "  %-5u %-4s ", c->id, dir_name(dir));
  if (r->psn_span)
    dec_out_printf(o, "%.1f%% of PSNs missing (%llu of %llu",
                   100.0 * (double)r->psn_missing / (double)r->psn_span, U(r->psn_missing),
                   U(r->psn_span));
  else
    dec_out_lit(o, "no requests (");
  dec_out_printf(o,
                 "; %llu gaps before a request, %llu PSNs acknowledged unseen); "
                 "%llu requests stored after their ACK; %llu packets cut by the snaplen\n",
                 U(r->gaps), U(r->base.not_captured), U(r->acked_before_seen), U(r->cut));
}

static void text_marks(dec_out *o, const ornic_an_dir_report *r) {
  bool any = false;
  for (unsigned e = 0; e < 4; e++) {
    if (!(r->ecn_seen & (1u << e))) continue;
    dec_out_printf(o, "%s%s", any ? "+" : " ", ecn_names[e]);
    any = true;
  }
  if (!any) dec_out_lit(o, " -");
  dec_out_lit(o, ", DSCP");
  any = false;
  for (unsigned d = 0; d < 64; d++) {
    if (!(r->dscp_seen >> d & 1u)) continue;
    dec_out_printf(o, "%s%u", any ? "," : " ", d);
    any = true;
  }
  if (!any) dec_out_lit(o, " -");
  if (r->mixed_marking) dec_out_lit(o, " [mixed markings]");
}

static void text_congestion_row(dec_out *o, const ornic_an_conv *c, unsigned dir,
                                const ornic_an_dir_report *r, void *user) {
  (void)user;
  dec_out_printf(o, "  %-5u %-4s CE %llu, FECN %llu, BECN %llu, CNP %llu", c->id, dir_name(dir),
                 U(r->ce), U(r->fecn), U(r->becn), U(r->cnps));
  if (r->cnp_reaction.count)
    dec_out_printf(o, " (CE->CNP avg %.3f us over %llu)", (double)r->cnp_reaction.avg_ns / 1e3,
                   U(r->cnp_reaction.count));
  dec_out_lit(o, "; ECN");
  text_marks(o, r);
  dec_out_printf(o,
                 "; NAKs: sequence %llu, RNR %llu, fatal %llu; duplicate ACKs %llu; ACKs with "
                 "credit 0 %llu\n",
                 U(r->seq_naks), U(r->rnr_naks), U(r->fatal_naks), U(r->dup_acks),
                 U(r->credit0_acks));
}

/* ---- NIC counters: the sums over every listed direction ---- */

typedef struct {
  uint64_t seq_naks, rnr_naks, fatal_naks, dups, retrans, cnps, ce, msgs[ORNIC_AN_MSG_KINDS];
} nic_sums;

static void sum_dir(dec_out *o, const ornic_an_conv *c, unsigned dir, const ornic_an_dir_report *r,
                    void *user) {
  (void)o;
  (void)c;
  (void)dir;
  nic_sums *s = user;
  s->seq_naks += r->seq_naks;
  s->rnr_naks += r->rnr_naks;
  s->fatal_naks += r->fatal_naks;
  s->dups += r->base.dups;
  s->retrans += r->base.retrans;
  s->cnps += r->cnps;
  s->ce += r->ce;
  for (unsigned k = 0; k < ORNIC_AN_MSG_KINDS; k++) s->msgs[k] += r->msgs[k];
}

/* The counters (mlx5/irdma names; docs/PROTOCOL.md 8.9 says what each
 * counts on the NIC): the capture's figure, and what it cannot show. */
typedef struct {
  const char *name;
  const char *note;
} nic_row;

#define NIC_ROWS 10
static const nic_row nic_rows[NIC_ROWS] = {
    {"out_of_sequence", "sequence-error NAKs seen (RC); ORNIC arrivals out of order are in 'ooo'"},
    {"packet_seq_err", "sequence-error NAKs seen, as the requester receives them"},
    {"duplicate_request", "requests seen again: duplicates plus retransmissions"},
    {"rnr_nak_retry_err", "RNR NAKs seen; the retry-exhausted error itself is not on the wire"},
    {"local_ack_timeout_err", "not on the wire; retransmissions no NAK asked for are in 'retrans'"},
    {"req_remote_access_errors", "fatal NAKs seen (remote access, invalid request, operational)"},
    {"np_ecn_marked_roce_packets", "requests with IP ECN CE"},
    {"np_cnp_sent", "CNPs seen (sent by the notification point)"},
    {"rp_cnp_handled", "CNPs seen; whether the requester handled them is not on the wire"},
    {"rx_write/read/atomic_requests", "messages seen by kind (the NIC counts packets)"},
};

static uint64_t nic_value(const nic_sums *s, unsigned i) {
  switch (i) {
  case 0:
  case 1: return s->seq_naks;
  case 2: return s->dups + s->retrans;
  case 3: return s->rnr_naks;
  case 4: return UINT64_MAX;
  case 5: return s->fatal_naks;
  case 6: return s->ce;
  case 7:
  case 8: return s->cnps;
  default: return UINT64_MAX;
  }
}

static void text_nic(dec_out *o, const dir_rows *rows) {
  nic_sums s;
  memset(&s, 0, sizeof s);
  each_dir(o, rows, sum_dir, &s);
  dec_out_lit(o, "NIC counters, as the capture shows them (every listed conversation)\n");
  for (unsigned i = 0; i < NIC_ROWS; i++) {
    uint64_t v = nic_value(&s, i);
    char buf[64];
    if (i == NIC_ROWS - 1)
      snprintf(buf, sizeof buf, "%llu/%llu/%llu", U(s.msgs[ORNIC_AN_MSG_WRITE]),
               U(s.msgs[ORNIC_AN_MSG_READ]), U(s.msgs[ORNIC_AN_MSG_ATOMIC]));
    else if (v == UINT64_MAX)
      snprintf(buf, sizeof buf, "-");
    else
      snprintf(buf, sizeof buf, "%llu", U(v));
    dec_out_printf(o, "  %-30s %14s  %s\n", nic_rows[i].name, buf, nic_rows[i].note);
  }
}

void dec_health_print_text(dec_out *o, const dec_stats *st) {
  if (!st->an) return;
  dir_rows rows = rows_of(st);
  if (!rows.n) {
    free(rows.v);
    return;
  }
  dec_out_printf(
      o,
      "traffic (per requester direction; Gb/s of request payload over the "
      "direction's duration; flight: most PSNs unacknowledged; reads: most READs "
      "outstanding/the depth RDMA-CM negotiated)\n  %-5s %-4s %10s %12s %12s %8s %9s  %s\n",
      "conv", "dir", "Gb/s", "msgs/s", "done/s", "flight", "reads", "messages, sizes (bytes)");
  each_dir(o, &rows, text_traffic_row, NULL);
  dec_out_printf(o,
                 "latency (us; percentiles within 6.25%%)\n  %-5s %-4s %-12s %8s %10s %10s %10s "
                 "%10s %10s %10s %10s\n",
                 "conv", "dir", "metric", "n", "min", "avg", "p50", "p90", "p99", "p99.9", "max");
  each_dir(o, &rows, text_lat_rows, NULL);
  dec_out_lit(o, "capture quality\n");
  each_dir(o, &rows, text_quality_row, NULL);
  dec_out_lit(o, "congestion\n");
  each_dir(o, &rows, text_congestion_row, NULL);
  text_nic(o, &rows);
  free(rows.v);
}

/* ---- JSON ---- */

static void json_lat(dec_out *o, const char *key, const ornic_an_latency *l) {
  dec_out_printf(o, "\"%s\":", key);
  if (!l->count) {
    dec_out_lit(o, "null");
    return;
  }
  dec_out_printf(o, "{\"count\":%llu,\"min_ns\":%llu,\"avg_ns\":%llu,\"max_ns\":%llu,", U(l->count),
                 U(l->min_ns), U(l->avg_ns), U(l->max_ns));
  if (l->percentiles)
    dec_out_printf(o, "\"p50_ns\":%llu,\"p90_ns\":%llu,\"p99_ns\":%llu,\"p999_ns\":%llu}",
                   U(l->p50_ns), U(l->p90_ns), U(l->p99_ns), U(l->p999_ns));
  else
    dec_out_lit(o, "\"p50_ns\":null,\"p90_ns\":null,\"p99_ns\":null,\"p999_ns\":null}");
}

static void json_report(dec_out *o, const ornic_an_dir_report *r) {
  dec_out_printf(o,
                 "{\"available\":%s,\"duration_s\":%.9f,\"gbps\":%.6f,\"msgs_per_s\":%.3f,"
                 "\"done_per_s\":%.3f,\"flight_max\":%u,\"reads_max\":%u,\"read_depth\":%u,"
                 "\"reads_over_depth\":%llu,\"messages\":{",
                 r->available ? "true" : "false", r->duration_s, r->req_gbps, r->msgs_per_s,
                 r->done_per_s, r->flight_max, r->reads_max, r->read_depth, U(r->reads_over_depth));
  for (unsigned k = 0; k < ORNIC_AN_MSG_KINDS; k++)
    dec_out_printf(o, "%s\"%s\":%llu", k ? "," : "", kind_keys[k], U(r->msgs[k]));
  dec_out_lit(o, "},\"sizes\":{");
  bool any = false;
  for (unsigned b = 0; b < ORNIC_AN_SIZE_BUCKETS; b++) {
    if (!r->size_hist[b]) continue;
    dec_out_printf(o, "%s\"%s\":%llu", any ? "," : "", ornic_an_size_bucket_name(b),
                   U(r->size_hist[b]));
    any = true;
  }
  dec_out_printf(o, "},\"sizes_unknown\":%llu,\"latency\":{", U(r->size_unknown));
  json_lat(o, "ack_rtt", &r->ack_rtt);
  dec_out_char(o, ',');
  json_lat(o, "wqe_time", &r->msg_time);
  dec_out_char(o, ',');
  json_lat(o, "read_time", &r->read_time);
  dec_out_char(o, ',');
  json_lat(o, "cnp_reaction", &r->cnp_reaction);
  dec_out_printf(o,
                 "},\"capture_quality\":{\"psn_span\":%llu,\"psn_missing\":%llu,\"gaps\":%llu,"
                 "\"gap_psns\":%llu,\"acked_unseen\":%llu,\"acked_before_seen\":%llu,\"cut\":%llu}",
                 U(r->psn_span), U(r->psn_missing), U(r->gaps), U(r->gap_psns),
                 U(r->base.not_captured), U(r->acked_before_seen), U(r->cut));
  dec_out_printf(o,
                 ",\"congestion\":{\"ce\":%llu,\"fecn\":%llu,\"becn\":%llu,\"cnps\":%llu,"
                 "\"ecn\":[",
                 U(r->ce), U(r->fecn), U(r->becn), U(r->cnps));
  any = false;
  for (unsigned e = 0; e < 4; e++) {
    if (!(r->ecn_seen & (1u << e))) continue;
    dec_out_printf(o, "%s\"%s\"", any ? "," : "", ecn_names[e]);
    any = true;
  }
  dec_out_lit(o, "],\"dscp\":[");
  any = false;
  for (unsigned d = 0; d < 64; d++) {
    if (!(r->dscp_seen >> d & 1u)) continue;
    dec_out_printf(o, "%s%u", any ? "," : "", d);
    any = true;
  }
  dec_out_printf(o,
                 "],\"mixed_marking\":%s,\"seq_naks\":%llu,\"rnr_naks\":%llu,\"fatal_naks\":%llu,"
                 "\"dup_acks\":%llu,\"credit0_acks\":%llu}}",
                 r->mixed_marking ? "true" : "false", U(r->seq_naks), U(r->rnr_naks),
                 U(r->fatal_naks), U(r->dup_acks), U(r->credit0_acks));
}

void dec_health_print_json_conv(dec_out *o, const dec_stats *st, const ornic_an_conv *c) {
  dec_out_lit(o, ",\"report\":{");
  for (unsigned dir = 0; dir < 2; dir++) {
    ornic_an_dir_report r;
    dec_out_printf(o, "%s\"%s\":", dir ? "," : "", dir ? "b_to_a" : "a_to_b");
    if (ornic_analysis_dir_report(st->an, c->id, dir, &r, sizeof r) == ORNIC_OK)
      json_report(o, &r);
    else
      dec_out_lit(o, "null");
  }
  dec_out_char(o, '}');
}

void dec_health_print_json_nic(dec_out *o, const dec_stats *st) {
  if (!st->an) return;
  nic_sums s;
  memset(&s, 0, sizeof s);
  dir_rows rows = rows_of(st);
  each_dir(o, &rows, sum_dir, &s);
  free(rows.v);
  dec_out_lit(o, ",\"nic_counters\":{");
  for (unsigned i = 0; i + 1 < NIC_ROWS; i++) {
    uint64_t v = nic_value(&s, i);
    dec_out_printf(o, "%s\"%s\":", i ? "," : "", nic_rows[i].name);
    if (v == UINT64_MAX)
      dec_out_lit(o, "null");
    else
      dec_out_printf(o, "%llu", U(v));
  }
  dec_out_printf(o,
                 ",\"rx_write_requests\":%llu,\"rx_read_requests\":%llu,"
                 "\"rx_atomic_requests\":%llu}",
                 U(s.msgs[ORNIC_AN_MSG_WRITE]), U(s.msgs[ORNIC_AN_MSG_READ]),
                 U(s.msgs[ORNIC_AN_MSG_ATOMIC]));
}
