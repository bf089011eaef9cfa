/* The --stats summary, as text for people or one JSON object. QPs are
 * listed sorted by QPN, then addresses, so two runs diff cleanly. */
#include <stdlib.h>
#include <string.h>

#include <ornic/ornic.h>

#include "stats.h"

static const dec_qp_stats *sort_base;

static int qp_cmp(const void *a, const void *b) {
  const dec_qp_stats *x = &sort_base[*(const uint32_t *)a], *y = &sort_base[*(const uint32_t *)b];
  if (x->destqp != y->destqp) return x->destqp < y->destqp ? -1 : 1;
  if (x->l3 != y->l3) return x->l3 < y->l3 ? -1 : 1;
  int c = memcmp(x->src, y->src, 16);
  return c ? c : memcmp(x->dst, y->dst, 16);
}

/* Indices of the QPs in report order; NULL when there are none (or no memory). */
static uint32_t *sorted_qps(const dec_stats *st) {
  if (!st->nqps) return NULL;
  uint32_t *idx = malloc(st->nqps * sizeof *idx);
  if (!idx) return NULL;
  for (uint32_t i = 0; i < st->nqps; i++) idx[i] = i;
  sort_base = st->qps;
  qsort(idx, st->nqps, sizeof *idx, qp_cmp);
  return idx;
}

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
  dec_out_printf(o, "capture   %s%s\n", name, st->damaged ? " (damaged: statistics cover the packets before the damage)" : "");
  dec_out_printf(o, "packets   %llu total: %llu RoCE, %llu skipped, %llu broken",
                 (unsigned long long)st->total, (unsigned long long)st->roce,
                 (unsigned long long)skipped_total(st), (unsigned long long)st->broken);
  if (st->filtered) dec_out_printf(o, ", %llu other QPs (-q)", (unsigned long long)st->filtered);
  dec_out_printf(o, "\nskipped  ");
  for (int i = 1; i < DEC_SKIP_COUNT; i++)
    dec_out_printf(o, " %s=%llu", dec_skip_key((dec_skip)i), (unsigned long long)st->skipped[i]);
  dec_out_printf(o, "\nerrors    %llu (packets with a decode error), warnings %llu (packets)\n",
                 (unsigned long long)st->errors, (unsigned long long)st->warned);
  dec_out_printf(o, "icrc      ok=%llu bad=%llu n/a=%llu unchecked=%llu\n",
                 (unsigned long long)st->icrc[DEC_ICRC_OK], (unsigned long long)st->icrc[DEC_ICRC_BAD],
                 (unsigned long long)st->icrc[DEC_ICRC_NA],
                 (unsigned long long)st->icrc[DEC_ICRC_UNCHECKED]);
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

static void text_qp(dec_out *o, const dec_qp_stats *q) {
  dec_out_printf(o, "  0x%06x %10llu %14llu ", q->destqp, (unsigned long long)q->packets,
                 (unsigned long long)q->payload_bytes);
  if (q->psn_seen) dec_out_printf(o, "%9u %9u %9u", q->psn_first, q->psn_min, q->psn_max);
  else dec_out_printf(o, "%9s %9s %9s", "-", "-", "-");
  dec_out_printf(o, " %9llu %8u %9llu %8llu %8llu  ", (unsigned long long)q->ooo, q->ooo_max,
                 (unsigned long long)q->dups, (unsigned long long)q->beyond_window,
                 (unsigned long long)q->icrc_bad);
  bool v4 = q->l3 == ORNIC_L3_IPV4;
  dec_out_addr(o, q->src, v4);
  dec_out_lit(o, " > ");
  dec_out_addr(o, q->dst, v4);
  dec_out_char(o, '\n');
}

static void text_qps(dec_out *o, const dec_stats *st) {
  dec_out_printf(o, "qps       %u", st->nqps);
  if (st->untracked)
    dec_out_printf(o, " (table full at %u: %llu packets of further QPs not tracked)",
                   DEC_STATS_MAX_QPS, (unsigned long long)st->untracked);
  dec_out_char(o, '\n');
  if (!st->nqps) return;
  dec_out_printf(o, "  %-8s %10s %14s %9s %9s %9s %9s %8s %9s %8s %8s  %s\n", "destqp", "packets",
                 "payload_bytes", "psn_first", "psn_min", "psn_max", "ooo", "ooo_max", "dups",
                 "beyond_win", "icrc_bad", "src > dst");
  uint32_t *idx = sorted_qps(st);
  for (uint32_t i = 0; i < st->nqps; i++) text_qp(o, &st->qps[idx ? idx[i] : i]);
  free(idx);
}

void dec_stats_print_text(dec_out *o, const dec_stats *st, const char *name) {
  text_summary(o, st, name);
  text_opcodes(o, st);
  text_qps(o, st);
}

/* ---- JSON ---- */

static void json_counts(dec_out *o, const dec_stats *st) {
  dec_out_printf(o, "\"packets\":{\"total\":%llu,\"roce\":%llu,\"skipped\":%llu,\"broken\":%llu,"
                    "\"filtered_out\":%llu},\"skipped\":{",
                 (unsigned long long)st->total, (unsigned long long)st->roce,
                 (unsigned long long)skipped_total(st), (unsigned long long)st->broken,
                 (unsigned long long)st->filtered);
  for (int i = 1; i < DEC_SKIP_COUNT; i++)
    dec_out_printf(o, "%s\"%s\":%llu", i > 1 ? "," : "", dec_skip_key((dec_skip)i),
                   (unsigned long long)st->skipped[i]);
  dec_out_printf(o, "},\"errors\":%llu,\"warnings\":%llu,\"icrc\":{\"ok\":%llu,\"bad\":%llu,"
                    "\"unverifiable\":%llu,\"unchecked\":%llu}",
                 (unsigned long long)st->errors, (unsigned long long)st->warned, (unsigned long long)st->icrc[DEC_ICRC_OK],
                 (unsigned long long)st->icrc[DEC_ICRC_BAD], (unsigned long long)st->icrc[DEC_ICRC_NA],
                 (unsigned long long)st->icrc[DEC_ICRC_UNCHECKED]);
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
}

static void json_qp(dec_out *o, const dec_qp_stats *q) {
  bool v4 = q->l3 == ORNIC_L3_IPV4;
  dec_out_printf(o, "{\"destqp\":%u,\"l3\":\"%s\",\"src\":\"", q->destqp,
                 v4 ? "ipv4" : q->l3 == ORNIC_L3_IPV6 ? "ipv6" : "grh");
  dec_out_addr(o, q->src, v4);
  dec_out_str(o, "\",\"dst\":\"");
  dec_out_addr(o, q->dst, v4);
  dec_out_printf(o, "\",\"packets\":%llu,\"payload_bytes\":%llu,", (unsigned long long)q->packets,
                 (unsigned long long)q->payload_bytes);
  if (q->psn_seen)
    dec_out_printf(o, "\"psn_first\":%u,\"psn_min\":%u,\"psn_max\":%u,", q->psn_first, q->psn_min,
                   q->psn_max);
  else
    dec_out_str(o, "\"psn_first\":null,\"psn_min\":null,\"psn_max\":null,");
  dec_out_printf(o, "\"ooo\":%llu,\"ooo_max_distance\":%u,\"duplicates\":%llu,"
                    "\"ooo_beyond_window\":%llu,\"icrc_bad\":%llu}",
                 (unsigned long long)q->ooo, q->ooo_max, (unsigned long long)q->dups,
                 (unsigned long long)q->beyond_window, (unsigned long long)q->icrc_bad);
}

static void json_qps(dec_out *o, const dec_stats *st) {
  dec_out_str(o, ",\"qps\":[");
  uint32_t *idx = sorted_qps(st);
  for (uint32_t i = 0; i < st->nqps; i++) {
    if (i) dec_out_char(o, ',');
    json_qp(o, &st->qps[idx ? idx[i] : i]);
  }
  free(idx);
  dec_out_printf(o, "],\"qps_untracked_packets\":%llu", (unsigned long long)st->untracked);
}

void dec_stats_print_json(dec_out *o, const dec_stats *st, const char *name) {
  dec_out_str(o, "{\"capture\":");
  dec_out_json_str(o, name);
  dec_out_printf(o, ",\"damaged\":%s,", st->damaged ? "true" : "false");
  json_counts(o, st);
  json_time(o, st);
  json_opcodes(o, st);
  json_qps(o, st);
  dec_out_printf(o, ",\"dup_window\":%u}", DEC_DUP_WINDOW);
  dec_out_eol(o);
}
