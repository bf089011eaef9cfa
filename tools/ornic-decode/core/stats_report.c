/* SPDX-License-Identifier: MIT */
/* The --stats summary, as text for people or one JSON object. Conversations
 * are the analysis engine's, listed by id (the order they were first seen),
 * so two runs diff cleanly; conversations merged into another are not
 * listed, their counters live in the one they merged into. */
#include <stdlib.h>
#include <string.h>

#include <ornic/ornic.h>

#include "analysis.h"
#include "stats.h"
#include "stats_health.h"

static uint64_t skipped_total(const dec_stats *st) {
  uint64_t n = 0;
  for (int i = 0; i < DEC_SKIP_COUNT; i++) n += st->skipped[i];
  return n;
}

static const char *opcode_short(uint8_t op) {
  const char *n = ornic_opcode_info_get(op)->short_name;
  return n ? n : "UNKNOWN";
}

/* ---- text ---- */

static void text_summary(dec_out *o, const dec_stats *st, const char *name) {
  dec_out_printf(o, "capture   %s%s", name,
                 st->damaged ? " (damaged: statistics cover the packets before the damage)" : "");
  if (st->interrupted)
    dec_out_printf(o, " (interrupted by %s: statistics cover the packets read before it)",
                   st->interrupted);
  if (st->live)
    dec_out_printf(o, " (live: %llu received by filter, %llu dropped by kernel, %llu by interface)",
                   (unsigned long long)st->live_recv, (unsigned long long)st->live_drop,
                   (unsigned long long)st->live_ifdrop);
  dec_out_printf(o, "\n");
  dec_out_printf(o, "packets   %llu total: %llu RoCE, %llu skipped, %llu broken",
                 (unsigned long long)st->total, (unsigned long long)st->roce,
                 (unsigned long long)skipped_total(st), (unsigned long long)st->broken);
  if (st->filtered) dec_out_printf(o, ", %llu other QPs (-q)", (unsigned long long)st->filtered);
  dec_out_printf(o, "\nskipped  ");
  for (int i = 1; i < DEC_SKIP_COUNT; i++)
    dec_out_printf(o, " %s=%llu", dec_skip_key((dec_skip)i), (unsigned long long)st->skipped[i]);
  dec_out_printf(o, "\nerrors    %llu (packets with a decode error), warnings %llu (packets)\n",
                 (unsigned long long)st->errors, (unsigned long long)st->warned);
  dec_out_printf(
      o, "icrc      ok=%llu bad=%llu n/a=%llu unchecked=%llu\n",
      (unsigned long long)st->icrc[DEC_ICRC_OK], (unsigned long long)st->icrc[DEC_ICRC_BAD],
      (unsigned long long)st->icrc[DEC_ICRC_NA], (unsigned long long)st->icrc[DEC_ICRC_UNCHECKED]);
  if (!st->have_time) return;
  dec_out_lit(o, "time      ");
  dec_out_time(o, st->first_sec, st->first_nsec);
  dec_out_lit(o, " .. ");
  dec_out_time(o, st->last_sec, st->last_nsec);
  dec_out_char(o, '\n');
}

static void text_opcodes(dec_out *o, const dec_stats *st) {
  dec_out_lit(o, "opcodes\n");
  for (int op = 0; op < 256; op++)
    if (st->opcodes[op])
      dec_out_printf(o, "  0x%02x %-44s %12llu\n", op, opcode_short((uint8_t)op),
                     (unsigned long long)st->opcodes[op]);
}

/* ---- conversations (both formats) ---- */

bool dec_stats_conv_listed(const dec_stats *st, const ornic_an_conv *c) {
  if (!c || c->merged_into) return false;
  if (!st->have_qp) return true;
  return (c->qp_a_known && c->qp_a == st->qp) || (c->qp_b_known && c->qp_b == st->qp);
}

static uint32_t conv_count_listed(const dec_stats *st, uint32_t *merged) {
  uint32_t n = 0, m = 0, total = ornic_analysis_conv_count(st->an);
  for (uint32_t id = 1; id <= total; id++) {
    const ornic_an_conv *c = ornic_analysis_conv(st->an, id);
    if (c && c->merged_into) m++;
    n += dec_stats_conv_listed(st, c);
  }
  if (merged) *merged = m;
  return n;
}

/* The time from the direction's first to its last packet (0 if it runs
 * backwards). Kept as seconds and nanoseconds: in nanoseconds alone an int64
 * overflows past 292 years, which pcapng's 64-bit timestamps can span. */
typedef struct {
  uint64_t sec;
  uint32_t nsec;
} dir_span;

static dir_span dir_duration(const ornic_an_dir_stats *d) {
  dir_span s = {0, 0};
  if (d->last_sec < d->first_sec || (d->last_sec == d->first_sec && d->last_nsec <= d->first_nsec))
    return s;
  s.sec = (uint64_t)d->last_sec - (uint64_t)d->first_sec;
  if (d->last_nsec >= d->first_nsec) {
    s.nsec = d->last_nsec - d->first_nsec;
  } else { /* borrow a second */
    s.sec--;
    s.nsec = 1000000000u + d->last_nsec - d->first_nsec;
  }
  return s;
}

static void put_duration(dec_out *o, dir_span s) {
  dec_out_printf(o, "%llu.%09u", (unsigned long long)s.sec, s.nsec);
}

static void put_conv_addr(dec_out *o, const ornic_an_conv *c, const uint8_t *addr) {
  dec_out_addr(o, addr, c->addr_len == 4);
}

/* ---- text ---- */

static void text_qp(dec_out *o, bool known, uint32_t qp) {
  dec_out_lit(o, " QP ");
  if (known)
    dec_out_hex(o, qp, 6);
  else
    dec_out_char(o, '?');
}

static void text_conv_label(dec_out *o, const ornic_an_conv *c) {
  dec_out_printf(o, "  %u: A ", c->id);
  if (c->addr_len) put_conv_addr(o, c, c->a);
  text_qp(o, c->qp_a_known, c->qp_a);
  dec_out_lit(o, " <-> B ");
  if (c->addr_len) put_conv_addr(o, c, c->b);
  text_qp(o, c->qp_b_known, c->qp_b);
  if (c->transport_ornic) dec_out_lit(o, " (ORNIC)");
  /* Notes (docs/PROTOCOL.md 8.1, 8.5), only when there is something to say. */
  if ((c->roce_versions & ORNIC_AN_ROCE_V1) && (c->roce_versions & ORNIC_AN_ROCE_V2))
    dec_out_lit(o, " [mixes RoCEv1 and RoCEv2]");
  if (c->cm_frame) /* PROTOCOL.md 8.10 */
    dec_out_printf(o,
                   " [RDMA-CM in frame %llu: start PSNs A->B %u, B->A %u; PMTU %u; READ depth "
                   "%u/%u]",
                   (unsigned long long)c->cm_frame, c->cm_start_psn[0], c->cm_start_psn[1],
                   c->cm_pmtu, c->cm_read_depth[0], c->cm_read_depth[1]);
  if (c->acked_before_seen[0] || c->acked_before_seen[1])
    dec_out_printf(o, " [requests stored after their ACK: A->B %llu, B->A %llu]",
                   (unsigned long long)c->acked_before_seen[0],
                   (unsigned long long)c->acked_before_seen[1]);
  dec_out_char(o, '\n');
}

/* "1:5,2-3:7" over the buckets that are not empty, or "-". */
static void text_ooo_hist(dec_out *o, const ornic_an_dir_stats *d) {
  bool first = true;
  for (unsigned b = 0; b < ORNIC_AN_OOO_BUCKETS; b++) {
    if (!d->ooo_hist[b]) continue;
    dec_out_printf(o, "%s%s:%llu", first ? "" : ",", ornic_an_ooo_bucket_name(b),
                   (unsigned long long)d->ooo_hist[b]);
    first = false;
  }
  if (first) dec_out_char(o, '-');
}

#define U(x) ((unsigned long long)(x))

static void text_dir(dec_out *o, uint32_t id, const char *dir, const ornic_an_dir_stats *d) {
  dec_out_printf(
      o,
      "  %-5u %-4s %10llu %14llu %10llu %7llu %7llu %9llu %7u %8llu %8llu %8llu %8llu %6llu "
      "%9llu %6llu %7llu %6llu ",
      id, dir, U(d->req_packets), U(d->req_bytes), U(d->resp_packets), U(d->wqes), U(d->wqes_done),
      U(d->ooo), d->ooo_max, U(d->retrans), U(d->dups), U(d->loss), U(d->not_captured), U(d->naks),
      U(d->acks), U(d->acks_stale), U(d->ecn), U(d->cnp));
  if (d->have_time) {
    char buf[32];
    dir_span t = dir_duration(d);
    snprintf(buf, sizeof buf, "%llu.%09u", U(t.sec), t.nsec);
    dec_out_printf(o, "%14s  ", buf);
  } else {
    dec_out_printf(o, "%14s  ", "-");
  }
  text_ooo_hist(o, d);
  dec_out_char(o, '\n');
}

/* MiB with one decimal, or "no limit". */
static void put_mib(dec_out *o, uint64_t bytes) {
  if (bytes == UINT64_MAX)
    dec_out_lit(o, "no limit");
  else
    dec_out_printf(o, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

/* What the analysis' limits did (docs/RELIABILITY.md "Hostile captures"):
 * a line only when one of them acted, so that a benign capture's summary
 * says nothing about them. */
static void text_limits(dec_out *o, const dec_stats *st) {
  ornic_an_limits l;
  ornic_analysis_limits(st->an, &l);
  if (!l.untracked_table && !l.untracked_memory && !l.windows_held && !l.work_limited) return;
  dec_out_lit(o, "limits    analysis memory ");
  put_mib(o, l.memory_peak);
  dec_out_lit(o, " at most, budget ");
  put_mib(o, l.memory_budget);
  dec_out_printf(o,
                 " (--max-memory); untracked %llu packets for the budget, %llu for the table;"
                 " windows held by the budget %llu times; directions cut for their work %llu\n",
                 U(l.untracked_memory), U(l.untracked_table), U(l.windows_held), U(l.work_limited));
}

static void text_convs(dec_out *o, const dec_stats *st) {
  if (!st->an) {
    dec_out_lit(o, "conversations not analysed (--no-analysis)\n");
    return;
  }
  uint32_t merged, n = conv_count_listed(st, &merged);
  const ornic_analysis_cfg *cfg = &st->an_cfg;
  dec_out_printf(o, "conversations %u", n);
  if (st->have_qp) dec_out_printf(o, " of QP 0x%06x", st->qp);
  dec_out_printf(o, " (otd %u, pmtu ", cfg->otd);
  if (cfg->pmtu)
    dec_out_printf(o, "%u", cfg->pmtu);
  else
    dec_out_lit(o, "learnt");
  dec_out_printf(o, "; at most %u tracked, %llu packets untracked)\n", cfg->max_convs,
                 U(st->an_untracked));
  text_limits(o, st);
  if (!n) return;
  dec_out_printf(
      o,
      "  %-5s %-4s %10s %14s %10s %7s %7s %9s %7s %8s %8s %8s %8s %6s %9s %6s %7s %6s %14s  %s\n",
      "conv", "dir", "requests", "req_bytes", "responses", "wqes", "done", "ooo", "ooo_max",
      "retrans", "dups", "loss", "not_capt", "naks", "acks", "stale", "ecn", "cnp", "duration_s",
      "ooo_hist");
  uint32_t total = ornic_analysis_conv_count(st->an);
  for (uint32_t id = 1; id <= total; id++) {
    const ornic_an_conv *c = ornic_analysis_conv(st->an, id);
    if (!dec_stats_conv_listed(st, c)) continue;
    text_conv_label(o, c);
    text_dir(o, c->id, "A->B", &c->dir[ORNIC_AN_DIR_AB]);
    text_dir(o, c->id, "B->A", &c->dir[ORNIC_AN_DIR_BA]);
  }
}

void dec_stats_print_text(dec_out *o, const dec_stats *st, const char *name) {
  text_summary(o, st, name);
  text_opcodes(o, st);
  text_convs(o, st);
  dec_health_print_text(o, st);
  dec_fabric_print_text(o, &st->fabric);
}

/* ---- JSON ---- */

static void json_counts(dec_out *o, const dec_stats *st) {
  dec_out_printf(o,
                 "\"packets\":{\"total\":%llu,\"roce\":%llu,\"skipped\":%llu,\"broken\":%llu,"
                 "\"filtered_out\":%llu},\"skipped\":{",
                 (unsigned long long)st->total, (unsigned long long)st->roce,
                 (unsigned long long)skipped_total(st), (unsigned long long)st->broken,
                 (unsigned long long)st->filtered);
  for (int i = 1; i < DEC_SKIP_COUNT; i++)
    dec_out_printf(o, "%s\"%s\":%llu", i > 1 ? "," : "", dec_skip_key((dec_skip)i),
                   (unsigned long long)st->skipped[i]);
  dec_out_printf(
      o,
      "},\"errors\":%llu,\"warnings\":%llu,\"icrc\":{\"ok\":%llu,\"bad\":%llu,"
      "\"unverifiable\":%llu,\"unchecked\":%llu}",
      (unsigned long long)st->errors, (unsigned long long)st->warned,
      (unsigned long long)st->icrc[DEC_ICRC_OK], (unsigned long long)st->icrc[DEC_ICRC_BAD],
      (unsigned long long)st->icrc[DEC_ICRC_NA], (unsigned long long)st->icrc[DEC_ICRC_UNCHECKED]);
}

static void json_time(dec_out *o, const dec_stats *st) {
  if (!st->have_time) {
    dec_out_str(o, ",\"time\":null");
    return;
  }
  dec_out_str(o, ",\"time\":{\"first\":\"");
  dec_out_time(o, st->first_sec, st->first_nsec);
  dec_out_str(o, "\",\"last\":\"");
  dec_out_time(o, st->last_sec, st->last_nsec);
  dec_out_str(o, "\"}");
}

static void json_opcodes(dec_out *o, const dec_stats *st) {
  bool first = true;
  dec_out_str(o, ",\"opcodes\":[");
  for (int op = 0; op < 256; op++) {
    if (!st->opcodes[op]) continue;
    dec_out_printf(o, "%s{\"opcode\":%d,\"name\":", first ? "" : ",", op);
    dec_out_json_str(o, ornic_opcode_name((uint8_t)op));
    dec_out_printf(o, ",\"count\":%llu}", (unsigned long long)st->opcodes[op]);
    first = false;
  }
  dec_out_char(o, ']');
  dec_health_print_json_nic(o, st);
}

static void json_qp(dec_out *o, const char *key, bool known, uint32_t qp) {
  if (known)
    dec_out_printf(o, ",\"%s\":%u", key, qp);
  else
    dec_out_printf(o, ",\"%s\":null", key);
}

static void json_conv_addr(dec_out *o, const char *key, const ornic_an_conv *c, const uint8_t *a) {
  dec_out_printf(o, ",\"%s\":", key);
  if (!c->addr_len) {
    dec_out_lit(o, "null");
    return;
  }
  dec_out_char(o, '"');
  put_conv_addr(o, c, a);
  dec_out_char(o, '"');
}

static void json_dir(dec_out *o, const ornic_an_dir_stats *d) {
  dec_out_printf(o,
                 "{\"requests\":%llu,\"request_bytes\":%llu,\"responses\":%llu,"
                 "\"response_bytes\":%llu,\"wqes\":%llu,\"wqes_completed\":%llu,\"ooo\":%llu,"
                 "\"ooo_max_distance\":%u,\"ooo_histogram\":{",
                 U(d->req_packets), U(d->req_bytes), U(d->resp_packets), U(d->resp_bytes),
                 U(d->wqes), U(d->wqes_done), U(d->ooo), d->ooo_max);
  for (unsigned b = 0; b < ORNIC_AN_OOO_BUCKETS; b++)
    dec_out_printf(o, "%s\"%s\":%llu", b ? "," : "", ornic_an_ooo_bucket_name(b),
                   U(d->ooo_hist[b]));
  dec_out_printf(o,
                 "},\"retransmissions\":%llu,\"duplicates\":%llu,\"losses\":%llu,"
                 "\"not_captured\":%llu,\"naks\":%llu,\"acks\":%llu,\"acks_stale\":%llu,"
                 "\"ecn\":%llu,\"cnps\":%llu,",
                 U(d->retrans), U(d->dups), U(d->loss), U(d->not_captured), U(d->naks), U(d->acks),
                 U(d->acks_stale), U(d->ecn), U(d->cnp));
  if (d->have_psn)
    dec_out_printf(o, "\"psn_first\":%u,\"psn_high\":%u,", d->psn_first, d->psn_high);
  else
    dec_out_lit(o, "\"psn_first\":null,\"psn_high\":null,");
  if (!d->have_time) {
    dec_out_lit(o, "\"time\":null,\"duration\":null}");
    return;
  }
  dec_out_lit(o, "\"time\":{\"first\":\"");
  dec_out_time(o, d->first_sec, d->first_nsec);
  dec_out_lit(o, "\",\"last\":\"");
  dec_out_time(o, d->last_sec, d->last_nsec);
  dec_out_lit(o, "\"},\"duration\":\"");
  put_duration(o, dir_duration(d));
  dec_out_lit(o, "\"}");
}

static void json_conv(dec_out *o, const dec_stats *st, const ornic_an_conv *c) {
  dec_out_printf(o, "{\"id\":%u", c->id);
  json_conv_addr(o, "a", c, c->a);
  json_conv_addr(o, "b", c, c->b);
  json_qp(o, "qp_a", c->qp_a_known, c->qp_a);
  json_qp(o, "qp_b", c->qp_b_known, c->qp_b);
  dec_out_printf(
      o, ",\"ornic\":%s,\"directions\":{\"a_to_b\":", c->transport_ornic ? "true" : "false");
  json_dir(o, &c->dir[ORNIC_AN_DIR_AB]);
  dec_out_lit(o, ",\"b_to_a\":");
  json_dir(o, &c->dir[ORNIC_AN_DIR_BA]);
  /* Capture quality and encapsulation (docs/PROTOCOL.md 8.1, 8.5). */
  dec_out_printf(o,
                 "},\"acked_before_seen\":{\"a_to_b\":%llu,\"b_to_a\":%llu},"
                 "\"rocev1\":%s,\"rocev2\":%s",
                 U(c->acked_before_seen[0]), U(c->acked_before_seen[1]),
                 (c->roce_versions & ORNIC_AN_ROCE_V1) ? "true" : "false",
                 (c->roce_versions & ORNIC_AN_ROCE_V2) ? "true" : "false");
  if (c->cm_frame)
    dec_out_printf(o,
                   ",\"cm\":{\"frame\":%llu,\"start_psn\":{\"a_to_b\":%u,\"b_to_a\":%u},"
                   "\"pmtu\":%u,\"read_depth\":{\"a_to_b\":%u,\"b_to_a\":%u}}",
                   U(c->cm_frame), c->cm_start_psn[0], c->cm_start_psn[1], c->cm_pmtu,
                   c->cm_read_depth[0], c->cm_read_depth[1]);
  else
    dec_out_lit(o, ",\"cm\":null");
  dec_health_print_json_conv(o, st, c);
  dec_out_char(o, '}');
}

static void json_convs(dec_out *o, const dec_stats *st) {
  if (!st->an) {
    dec_out_str(o, ",\"analysis\":null,\"conversations\":null");
    return;
  }
  const ornic_analysis_cfg *cfg = &st->an_cfg;
  uint32_t merged, n = conv_count_listed(st, &merged);
  ornic_an_limits l;
  ornic_analysis_limits(st->an, &l);
  dec_out_printf(o,
                 ",\"analysis\":{\"otd\":%u,\"pmtu\":%u,\"window\":%u,\"max_convs\":%u,"
                 "\"conversations\":%u,\"merged\":%u,\"untracked_packets\":%llu,",
                 cfg->otd, cfg->pmtu, cfg->window, cfg->max_convs, n, merged, U(st->an_untracked));
  /* 0: no limit (UINT64_MAX does not survive a double-based JSON reader) */
  dec_out_printf(o,
                 "\"max_memory\":%llu,\"memory_peak\":%llu,\"untracked_memory\":%llu,"
                 "\"untracked_table\":%llu,\"windows_held\":%llu,\"work_limited\":%llu},"
                 "\"conversations\":[",
                 U(l.memory_budget == UINT64_MAX ? 0 : l.memory_budget), U(l.memory_peak),
                 U(l.untracked_memory), U(l.untracked_table), U(l.windows_held), U(l.work_limited));
  uint32_t total = ornic_analysis_conv_count(st->an);
  bool first = true;
  for (uint32_t id = 1; id <= total; id++) {
    const ornic_an_conv *c = ornic_analysis_conv(st->an, id);
    if (!dec_stats_conv_listed(st, c)) continue;
    if (!first) dec_out_char(o, ',');
    json_conv(o, st, c);
    first = false;
  }
  dec_out_char(o, ']');
  dec_health_print_json_nic(o, st);
}

void dec_stats_print_json(dec_out *o, const dec_stats *st, const char *name) {
  dec_out_str(o, "{\"capture\":");
  dec_out_json_str(o, name);
  dec_out_printf(o, ",\"damaged\":%s,", st->damaged ? "true" : "false");
  if (st->interrupted) dec_out_printf(o, "\"interrupted\":\"%s\",", st->interrupted);
  if (st->live)
    dec_out_printf(o,
                   "\"live\":{\"received\":%llu,\"kernel_drops\":%llu,\"interface_drops\":%llu},",
                   (unsigned long long)st->live_recv, (unsigned long long)st->live_drop,
                   (unsigned long long)st->live_ifdrop);
  json_counts(o, st);
  json_time(o, st);
  json_opcodes(o, st);
  json_convs(o, st);
  dec_fabric_print_json(o, &st->fabric);
  dec_out_char(o, '}');
  dec_out_eol(o);
}
