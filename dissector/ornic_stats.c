/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Statistics from the "ornic" tap, per ORNIC conversation (QP pair) as
 * libornicproto's analysis engine merged it:
 *  - `tshark -z ornic,stat[,csv][,FILTER]`: per conversation and direction,
 *    per path (UDP source port), the OOO distance histogram and each
 *    conversation's display filter; as text, or as one CSV table;
 *  - the stats_tree "ORNIC conversations" (Statistics menu, `-z ornic,tree`);
 *  - Statistics > Conversations and Endpoints (`-z conv,ornic`,
 *    `-z endpoints,ornic`), and the "ORNIC QP pair" conversation filter.
 * One-pass tshark taps each packet before the engine has seen the rest, so
 * a conversation's QPs get paired, and conversations merged, after some of
 * their packets were counted. -z ornic,stat maps packets to conversations
 * when it draws; the tables make their rows again when that happens; the
 * stats_tree cannot rename nodes, so its names are final in the GUI (which
 * taps after the first pass) and with `tshark -2` only. */
#include "ornic_diss.h"

#include <stdio.h>
#include <string.h>

#include <epan/address_types.h>
#include <epan/conversation_filter.h>
#include <epan/conversation_table.h>
#include <epan/proto_data.h>
#include <epan/stat_tap_ui.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>
#include <epan/to_str.h>

#define CONV_FIELD "ornic.analysis.conv"

/* ---- conversations as the engine knows them now ---------------------------------- */

/* Direction dir of conversation c, in the terms of final (the conversation c
 * was merged into): the same when their host A is the same. */
static unsigned final_dir(const ornic_an_conv *c, const ornic_an_conv *final, unsigned dir) {
  if (c == final || !c || !final) return dir;
  gboolean flip = FALSE;
  if (c->addr_len && c->addr_len == final->addr_len && memcmp(c->a, c->b, c->addr_len) != 0)
    flip = memcmp(c->a, final->a, c->addr_len) != 0;
  else if (c->qp_a_known)
    flip = (final->qp_b_known && c->qp_a == final->qp_b) &&
           !(final->qp_a_known && c->qp_a == final->qp_a);
  return flip ? dir ^ 1u : dir;
}

/* A verdict's conversation and direction after the engine's merges. */
typedef struct {
  const ornic_an_conv *f; /* NULL: no engine, or not analysed */
  guint32 conv;           /* f's id; the verdict's id without f; 0: not analysed */
  unsigned dir;           /* ORNIC_AN_DIR_* in f's terms */
} conv_now;

static conv_now now_of(guint32 conv, unsigned dir) {
  conv_now n = {NULL, conv, conv ? dir & 1u : 0};
  const ornic_analysis *a = ornic_analysis_engine();
  if (!a || !conv) return n;
  n.f = ornic_analysis_conv_final(a, conv);
  if (n.f) {
    n.dir = final_dir(ornic_analysis_conv(a, conv), n.f, n.dir);
    n.conv = n.f->id;
  }
  return n;
}

/* Final conversation id -> display filter (g_free'd values). A packet keeps
 * the id its conversation had when it was analysed, so the filter of a
 * conversation that absorbed others lists their ids too:
 * "ornic.analysis.conv in {1, 3}". Every path and both directions match. */
static GHashTable *conv_filters(void) {
  GHashTable *ids = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, NULL);
  const ornic_analysis *a = ornic_analysis_engine();
  guint32 count = a ? ornic_analysis_conv_count(a) : 0;
  for (guint32 id = 1; id <= count; id++) {
    const ornic_an_conv *f = ornic_analysis_conv_final(a, id);
    if (!f) continue;
    GString *s = g_hash_table_lookup(ids, GUINT_TO_POINTER(f->id));
    if (!s) g_hash_table_insert(ids, GUINT_TO_POINTER(f->id), s = g_string_new(NULL));
    g_string_append_printf(s, "%s%u", s->len ? ", " : "", id);
  }
  GHashTable *out = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, ids);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    GString *s = v;
    gboolean one = strchr(s->str, ',') == NULL;
    g_hash_table_insert(out, k,
                        one ? g_strdup_printf(CONV_FIELD " == %s", s->str)
                            : g_strdup_printf(CONV_FIELD " in {%s}", s->str));
    g_string_free(s, TRUE);
  }
  g_hash_table_destroy(ids);
  return out;
}

/* The display filter of one final conversation (g_free). */
static char *conv_filter(guint32 final) {
  GHashTable *all = conv_filters();
  const char *f = g_hash_table_lookup(all, GUINT_TO_POINTER(final));
  char *r = f ? g_strdup(f) : g_strdup_printf(CONV_FIELD " == %u", final);
  g_hash_table_destroy(all);
  return r;
}

static void conv_label(guint32 conv, char *out, size_t cap) {
  const ornic_analysis *a = ornic_analysis_engine();
  const ornic_an_conv *c = a && conv ? ornic_analysis_conv(a, conv) : NULL;
  if (!conv)
    g_strlcpy(out, "(not analysed: RD, UD, vendor or undecodable)", cap);
  else if (!c)
    g_snprintf(out, (gulong)cap, "conversation %u", conv);
  else
    ornic_an_conv_label(c, out, cap);
  /* A QP pair whose hosts speak different RoCE versions (PROTOCOL.md 8.1). */
  const ornic_an_conv *fc = c ? ornic_analysis_conv_final(a, conv) : NULL;
  if (fc && (fc->roce_versions & ORNIC_AN_ROCE_V1) && (fc->roce_versions & ORNIC_AN_ROCE_V2))
    g_strlcat(out, " (RoCEv1+v2)", cap);
}

static const char *dir_name(guint32 conv, unsigned dir) {
  return !conv ? "-" : dir ? "B->A" : "A->B";
}

/* ---- -z ornic,stat[,csv][,FILTER] ------------------------------------------------- */

/* Counted columns, in output order: the text table and the CSV share them. */
enum {
  C_PACKETS,
  C_BYTES,
  C_WQES,
  C_OOO,
  C_RETRANS,
  C_DUPS,
  C_NAKS,
  C_LOSS,
  C_NOT_CAPTURED,
  C_STALE,
  C_ICRC_BAD,
  C_MALFORMED,
  C_CNP,
  C_N
};
static const struct {
  const char *text, *csv;
  int width;
} cols[C_N] = {{"Packets", "packets", 8}, {"Bytes", "bytes", 11},    {"WQEs", "wqes", 6},
               {"OOO", "ooo", 7},         {"Retrans", "retrans", 7}, {"Dups", "dups", 5},
               {"NAKs", "naks", 5},       {"Loss", "loss", 5},       {"NotCapt", "not_captured", 7},
               {"Stale", "stale", 5},     {"iCRC!", "icrc_bad", 5},  {"Malf", "malformed", 5},
               {"CNP", "cnp", 4}};

/* What one key saw: a verdict's (conversation, direction, path) while
 * counting, a final (conversation, direction[, path]) when drawing. */
typedef struct {
  guint64 key; /* see key_of(); the hash table's key points here */
  guint64 n[C_N];
  guint64 hist[ORNIC_AN_OOO_BUCKETS];
  guint64 late;         /* requests stored after their ACK (capture quality, PROTOCOL.md 8.5): not a
                 * column, which would move the ones scripts read (text_dirs) */
  nstime_t first, last; /* frame.time_relative of the first and last packet */
} counters;

/* Conversation 0 (not analysed) sorts last. */
static guint64 key_of(guint32 conv, unsigned dir, guint16 path) {
  guint64 c = conv ? conv - 1u : G_MAXUINT32;
  return c << 17 | (guint64)(dir & 1u) << 16 | path;
}
static guint32 key_conv(guint64 key) {
  guint32 c = (guint32)(key >> 17);
  return c == G_MAXUINT32 ? 0 : c + 1u;
}
static unsigned key_dir(guint64 key) { return (unsigned)(key >> 16) & 1u; }
static guint16 key_path(guint64 key) { return (guint16)key; }

static void count(counters *s, const ornic_tap_info *ti, packet_info *pinfo) {
  const ornic_pkt *an = ti->an;
  guint32 fl = an ? an->v.flags : 0;
  if (!s->n[C_PACKETS]) s->first = s->last = pinfo->rel_ts;
  if (nstime_cmp(&pinfo->rel_ts, &s->first) < 0) s->first = pinfo->rel_ts;
  if (nstime_cmp(&pinfo->rel_ts, &s->last) > 0) s->last = pinfo->rel_ts;
  s->n[C_PACKETS]++;
  s->n[C_BYTES] += pinfo->fd->pkt_len;
  s->n[C_WQES] += !!(fl & ORNIC_AN_NEW_WQE);
  s->n[C_RETRANS] += !!(fl & ORNIC_AN_RETRANS);
  s->n[C_DUPS] += !!(fl & ORNIC_AN_DUP);
  s->n[C_NAKS] += !!(fl & ORNIC_AN_NAK);
  s->n[C_LOSS] += !!(fl & ORNIC_AN_LOSS);
  s->n[C_NOT_CAPTURED] += !!(fl & ORNIC_AN_NOT_CAPTURED);
  s->late += !!(fl & ORNIC_AN_ACKED_BEFORE_SEEN);
  s->n[C_STALE] += !!(fl & ORNIC_AN_ACK_STALE);
  s->n[C_CNP] += an && an->v.role == ORNIC_AN_ROLE_CNP;
  s->n[C_ICRC_BAD] += ti->icrc_status == PROTO_CHECKSUM_E_BAD;
  s->n[C_MALFORMED] += ti->malformed;
  if (fl & ORNIC_AN_OOO) {
    s->n[C_OOO]++;
    s->hist[ornic_an_ooo_bucket(an->v.ooo_distance)]++;
  }
}

static void merge(counters *to, const counters *from) {
  if (!to->n[C_PACKETS]) {
    to->first = from->first;
    to->last = from->last;
  }
  if (nstime_cmp(&from->first, &to->first) < 0) to->first = from->first;
  if (nstime_cmp(&from->last, &to->last) > 0) to->last = from->last;
  for (int i = 0; i < C_N; i++) to->n[i] += from->n[i];
  for (int b = 0; b < ORNIC_AN_OOO_BUCKETS; b++) to->hist[b] += from->hist[b];
  to->late += from->late;
}

typedef struct {
  GHashTable *by_key; /* &counters.key -> counters, keyed by the verdict's conversation */
  char *filter;
  gboolean csv;
} stat_ctx;

static void stat_reset(void *tapdata) {
  stat_ctx *ctx = tapdata;
  g_hash_table_remove_all(ctx->by_key);
}

static tap_packet_status stat_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                     const void *data, tap_flags_t flags _U_) {
  stat_ctx *ctx = tapdata;
  const ornic_tap_info *ti = data;
  guint32 conv = ti->an ? ti->an->v.conv : 0;
  guint64 key = key_of(conv, conv ? ti->an->v.dir : 0, ti->udp_srcport);
  counters *s = g_hash_table_lookup(ctx->by_key, &key);
  if (!s) {
    s = g_new0(counters, 1);
    s->key = key;
    g_hash_table_insert(ctx->by_key, &s->key, s);
  }
  count(s, ti, pinfo);
  return TAP_PACKET_REDRAW;
}

static gint by_key(gconstpointer a, gconstpointer b) {
  guint64 x = ((const counters *)a)->key, y = ((const counters *)b)->key;
  return (x > y) - (x < y);
}

/* The counters per final (conversation, direction, path), sorted. */
static GArray *final_paths(stat_ctx *ctx) {
  GArray *rows = g_array_new(FALSE, TRUE, sizeof(counters));
  GHashTable *idx = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, ctx->by_key);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    const counters *c = v;
    conv_now n = now_of(key_conv(c->key), key_dir(c->key));
    guint64 *fk = g_new(guint64, 1);
    *fk = key_of(n.conv, n.dir, key_path(c->key));
    gpointer at;
    if (g_hash_table_lookup_extended(idx, fk, NULL, &at)) {
      merge(&g_array_index(rows, counters, GPOINTER_TO_UINT(at)), c);
      g_free(fk);
      continue;
    }
    counters r = *c;
    r.key = *fk;
    g_array_append_val(rows, r);
    g_hash_table_insert(idx, fk, GUINT_TO_POINTER(rows->len - 1));
  }
  g_hash_table_destroy(idx);
  g_array_sort(rows, by_key);
  return rows;
}

/* The paths of each (conversation, direction) summed: one row per direction. */
static GArray *dir_totals(const GArray *paths) {
  GArray *out = g_array_new(FALSE, TRUE, sizeof(counters));
  for (guint i = 0; i < paths->len; i++) {
    const counters *p = &g_array_index(paths, counters, i);
    guint64 dk = p->key & ~(guint64)0xffff;
    counters *last = out->len ? &g_array_index(out, counters, out->len - 1) : NULL;
    if (!last || last->key != dk) {
      counters z = {.key = dk};
      g_array_append_val(out, z);
      last = &g_array_index(out, counters, out->len - 1);
    }
    merge(last, p);
  }
  return out;
}

static double secs(const nstime_t *t) { return nstime_to_sec(t); }

static double duration(const counters *c) {
  nstime_t d;
  nstime_delta(&d, &c->last, &c->first);
  return secs(&d);
}

static int label_width(const GArray *totals) {
  char label[256];
  int w = 12;
  for (guint i = 0; i < totals->len; i++) {
    conv_label(key_conv(g_array_index(totals, counters, i).key), label, sizeof(label));
    w = MAX(w, (int)strlen(label));
  }
  return w;
}

/* Bytes and times stand before Dir: the counts after it keep the columns
 * (and order) that scripts read since the table's first version. */
static void text_dirs(const GArray *totals, int lw) {
  char label[256];
  printf("%5s  %-*s %14s %12s %11s %4s", "Conv", lw, "Conversation", "Start", "Duration", "Bytes",
         "Dir");
  for (int i = 0; i < C_N; i++)
    if (i != C_BYTES) printf(" %*s", cols[i].width, cols[i].text);
  printf("\n");
  for (guint r = 0; r < totals->len; r++) {
    const counters *c = &g_array_index(totals, counters, r);
    guint32 conv = key_conv(c->key);
    conv_label(conv, label, sizeof(label));
    printf("%5u  %-*s %14.9f %12.9f %11" PRIu64 " %4s", conv, lw, label, secs(&c->first),
           duration(c), c->n[C_BYTES], dir_name(conv, key_dir(c->key)));
    for (int i = 0; i < C_N; i++)
      if (i != C_BYTES) printf(" %*" PRIu64, cols[i].width, c->n[i]);
    printf("\n");
  }
}

/* Capture quality (PROTOCOL.md 8.5), only when there is something to say. */
static void text_quality(const GArray *totals) {
  gboolean any = FALSE;
  for (guint r = 0; r < totals->len; r++) {
    const counters *c = &g_array_index(totals, counters, r);
    if (!c->late) continue;
    if (!any)
      printf(
          "\nRequests stored after the ACK that covers them (a host capture's late transmit "
          "timestamps; not gaps):\n%5s %4s %10s\n",
          "Conv", "Dir", "Requests");
    any = TRUE;
    guint32 conv = key_conv(c->key);
    printf("%5u %4s %10" PRIu64 "\n", conv, dir_name(conv, key_dir(c->key)), c->late);
  }
}

/* The engine's report of each direction (PROTOCOL.md 8.9): over every packet
 * the engine analysed, whatever the tap's filter. */
static void text_latency(guint32 conv, unsigned dir, const char *name, const ornic_an_latency *l) {
  if (!l->count) return;
  printf("%5u %4s %-12s %8" PRIu64 " %10.3f %10.3f", conv, dir_name(conv, dir), name, l->count,
         (double)l->min_ns / 1e3, (double)l->avg_ns / 1e3);
  if (l->percentiles)
    printf(" %10.3f %10.3f %10.3f", (double)l->p50_ns / 1e3, (double)l->p99_ns / 1e3,
           (double)l->p999_ns / 1e3);
  else
    printf(" %10s %10s %10s", "-", "-", "-");
  printf(" %10.3f\n", (double)l->max_ns / 1e3);
}

static gboolean report_of(guint32 conv, unsigned dir, ornic_an_dir_report *r) {
  const ornic_analysis *a = ornic_analysis_engine();
  return conv && a && ornic_analysis_dir_report(a, conv, dir, r, sizeof(*r)) == ORNIC_OK &&
         (r->base.req_packets || r->base.resp_packets);
}

static void text_report(const GArray *totals) {
  ornic_an_dir_report r;
  printf(
      "\nTraffic, capture quality and congestion per direction (libornicproto's report over every "
      "packet analysed, whatever the filter):\n%5s %4s %10s %12s %8s %9s %9s %7s %6s %6s %6s %6s\n",
      "Conv", "Dir", "Gb/s", "Msgs/s", "Flight", "PSNs", "Missing", "Gaps", "Late", "CE", "CNP",
      "Mixed");
  for (guint i = 0; i < totals->len; i++) {
    guint64 key = g_array_index(totals, counters, i).key;
    guint32 conv = key_conv(key);
    unsigned dir = key_dir(key);
    if (!report_of(conv, dir, &r)) continue;
    printf("%5u %4s %10.3f %12.1f %8u %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %6" PRIu64 " %6" PRIu64
           " %6" PRIu64 " %6s\n",
           conv, dir_name(conv, dir), r.req_gbps, r.msgs_per_s, r.flight_max, r.psn_span,
           r.psn_missing, r.gaps, r.acked_before_seen, r.ce, r.cnps,
           r.mixed_marking ? "yes" : "no");
  }
  printf(
      "\nLatency per direction (us; percentiles within 6.25%%):\n%5s %4s %-12s %8s %10s %10s "
      "%10s %10s %10s %10s\n",
      "Conv", "Dir", "Metric", "N", "Min", "Avg", "P50", "P99", "P99.9", "Max");
  for (guint i = 0; i < totals->len; i++) {
    guint64 key = g_array_index(totals, counters, i).key;
    guint32 conv = key_conv(key);
    unsigned dir = key_dir(key);
    if (!report_of(conv, dir, &r)) continue;
    text_latency(conv, dir, "ack_rtt", &r.ack_rtt);
    text_latency(conv, dir, "wqe_time", &r.msg_time);
    text_latency(conv, dir, "read_time", &r.read_time);
    text_latency(conv, dir, "cnp_reaction", &r.cnp_reaction);
  }
}

static void text_paths(const GArray *paths) {
  printf(
      "\nPer path (UDP source port the sender chose) of each conversation direction; "
      "OOO%% = OOO packets / packets:\n");
  printf("%5s %4s %6s %8s %11s %7s %7s %5s %7s %5s\n", "Conv", "Dir", "Path", "Packets", "Bytes",
         "OOO", "OOO%", "Loss", "Retrans", "NAKs");
  for (guint r = 0; r < paths->len; r++) {
    const counters *c = &g_array_index(paths, counters, r);
    guint32 conv = key_conv(c->key);
    double pct = c->n[C_PACKETS] ? 100.0 * (double)c->n[C_OOO] / (double)c->n[C_PACKETS] : 0;
    printf("%5u %4s %6u %8" PRIu64 " %11" PRIu64 " %7" PRIu64 " %6.2f%% %5" PRIu64 " %7" PRIu64
           " %5" PRIu64 "\n",
           conv, dir_name(conv, key_dir(c->key)), key_path(c->key), c->n[C_PACKETS], c->n[C_BYTES],
           c->n[C_OOO], pct, c->n[C_LOSS], c->n[C_RETRANS], c->n[C_NAKS]);
  }
}

static void text_hist(const GArray *totals) {
  printf("\nOOO distance histogram (first arrivals d PSNs below the highest PSN seen):\n");
  printf("%5s %4s", "Conv", "Dir");
  for (unsigned b = 0; b < ORNIC_AN_OOO_BUCKETS; b++) printf(" %7s", ornic_an_ooo_bucket_name(b));
  printf("\n");
  for (guint r = 0; r < totals->len; r++) {
    const counters *c = &g_array_index(totals, counters, r);
    guint32 conv = key_conv(c->key);
    if (!conv) continue;
    printf("%5u %4s", conv, dir_name(conv, key_dir(c->key)));
    for (unsigned b = 0; b < ORNIC_AN_OOO_BUCKETS; b++) printf(" %7" PRIu64, c->hist[b]);
    printf("\n");
  }
}

static void text_filters(const GArray *totals, GHashTable *filters) {
  printf("\nDisplay filters (every packet of the QP pair: all paths, both directions):\n");
  guint32 prev = 0;
  for (guint r = 0; r < totals->len; r++) {
    guint32 conv = key_conv(g_array_index(totals, counters, r).key);
    if (!conv || conv == prev) continue;
    prev = conv;
    const char *f = g_hash_table_lookup(filters, GUINT_TO_POINTER(conv));
    printf("%5u  %s\n", conv, f ? f : "-");
  }
}

#define LINE                                                                                       \
  "==============================================================================================" \
  "============================================"

static void draw_text(stat_ctx *ctx, const GArray *totals, const GArray *paths,
                      GHashTable *filters) {
  printf("\n%s\n", LINE);
  printf(
      "ORNIC statistics per conversation (QP pair) and direction: A->B are host A's requests and "
      "their responses\n");
  printf("Filter: %s\n\n", ctx->filter ? ctx->filter : "<none>");
  text_dirs(totals, label_width(totals));
  text_hist(totals);
  text_quality(totals);
  text_paths(paths);
  text_filters(totals, filters);
  text_report(totals); /* last: the sections before keep the places scripts read them at */
  printf("%s\n", LINE);
}

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_str(const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, stdout);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    if (*s == '"') putchar('"');
    putchar(*s);
  }
  putchar('"');
}

static void csv_row(const char *record, const counters *c, const char *filter) {
  char label[256];
  guint32 conv = key_conv(c->key);
  conv_label(conv, label, sizeof(label));
  printf("%s,%u,", record, conv);
  csv_str(label);
  printf(",%s,", dir_name(conv, key_dir(c->key)));
  if (!strcmp(record, "path")) printf("%u", key_path(c->key));
  printf(",%.9f,%.9f", secs(&c->first), duration(c));
  for (int i = 0; i < C_N; i++) printf(",%" PRIu64, c->n[i]);
  for (unsigned b = 0; b < ORNIC_AN_OOO_BUCKETS; b++) printf(",%" PRIu64, c->hist[b]);
  putchar(',');
  csv_str(filter ? filter : "");
  putchar('\n');
}

/* One table: a "dir" record per conversation direction (its paths summed),
 * then a "path" record per UDP source port of it. */
static void draw_csv(const GArray *totals, const GArray *paths, GHashTable *filters) {
  printf("record,conv,conversation,dir,path,start,duration");
  for (int i = 0; i < C_N; i++) printf(",%s", cols[i].csv);
  for (unsigned b = 0; b < ORNIC_AN_OOO_BUCKETS; b++)
    printf(",ooo_%s", ornic_an_ooo_bucket_name(b));
  printf(",filter\n");
  guint p = 0;
  for (guint r = 0; r < totals->len; r++) {
    const counters *t = &g_array_index(totals, counters, r);
    const char *f = g_hash_table_lookup(filters, GUINT_TO_POINTER(key_conv(t->key)));
    csv_row("dir", t, f);
    for (; p < paths->len; p++) {
      const counters *c = &g_array_index(paths, counters, p);
      if ((c->key & ~(guint64)0xffff) != t->key) break;
      csv_row("path", c, f);
    }
  }
}

static void stat_draw(void *tapdata) {
  stat_ctx *ctx = tapdata;
  GArray *paths = final_paths(ctx);
  GArray *totals = dir_totals(paths);
  GHashTable *filters = conv_filters();
  if (ctx->csv)
    draw_csv(totals, paths, filters);
  else
    draw_text(ctx, totals, paths, filters);
  g_hash_table_destroy(filters);
  g_array_free(totals, TRUE);
  g_array_free(paths, TRUE);
}

static void stat_finish(void *tapdata) {
  stat_ctx *ctx = tapdata;
  g_hash_table_destroy(ctx->by_key);
  g_free(ctx->filter);
  g_free(ctx);
}

/* opt_arg: "ornic,stat", "ornic,stat,FILTER", "ornic,stat,csv" or
 * "ornic,stat,csv,FILTER" (no ORNIC filter starts with the word csv). */
static ornic_tap_init_ret stat_init(const char *opt_arg, void *userdata _U_) {
  stat_ctx *ctx = g_new0(stat_ctx, 1);
  const char *rest = opt_arg && g_str_has_prefix(opt_arg, "ornic,stat,") ? opt_arg + 11 : "";
  if (!strcmp(rest, "csv") || g_str_has_prefix(rest, "csv,")) {
    ctx->csv = TRUE;
    rest += rest[3] ? 4 : 3;
  }
  if (*rest) ctx->filter = g_strdup(rest);
  ctx->by_key = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
  GString *err = register_tap_listener("ornic", ctx, ctx->filter, TL_REQUIRES_NOTHING, stat_reset,
                                       stat_packet, stat_draw, stat_finish);
  if (err) {
    fprintf(stderr, "tshark: couldn't register ornic,stat tap: %s\n", err->str);
    g_string_free(err, TRUE);
    stat_finish(ctx);
    ORNIC_TAP_INIT_RETURN(FALSE);
  }
  ORNIC_TAP_INIT_RETURN(TRUE);
}

static tap_param stat_params[] = {{PARAM_FILTER, "filter", "Filter", NULL, TRUE}};

static stat_tap_ui stat_ui = {REGISTER_STAT_GROUP_GENERIC,
                              "ORNIC conversation statistics",
                              "ornic,stat",
                              stat_init,
                              G_N_ELEMENTS(stat_params),
                              stat_params};

/* ---- stats_tree "ORNIC conversations" for the GUI (and -z ornic,tree) ---------------- */

#define OOO_NODE "OOO packets (by distance)"
#define PATHS_NODE "Paths (UDP source port)"

/* The histogram is a range node: stats_tree sorts range children by their
 * range (preference st_sort_rng_nameonly, on by default; and so does the
 * sort by name this tree asks for), where plain children, ticked in any
 * order, would follow their counts. Ranges are the library's buckets, the
 * open last one "128+" written "128-" as stats_tree parses it; ticks carry
 * the distance, so Average, Min and Max are distances. */
static gchar *ooo_ranges[ORNIC_AN_OOO_BUCKETS];

static void ooo_ranges_init(void) {
  for (unsigned b = 0; b < ORNIC_AN_OOO_BUCKETS; b++) {
    ooo_ranges[b] = g_strdup(ornic_an_ooo_bucket_name(b));
    g_strdelimit(ooo_ranges[b], "+", '-');
  }
}

/* Per stats_tree instance (the GUI may open several): the direction nodes
 * that hold their histogram node already. */
static GHashTable *tree_ranged; /* stats_tree * -> GHashTable (set of node ids) */

static void tree_init(stats_tree *st) {
  if (!tree_ranged)
    tree_ranged = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                        (GDestroyNotify)g_hash_table_destroy);
  g_hash_table_replace(tree_ranged, st, g_hash_table_new(g_direct_hash, g_direct_equal));
}

static void tree_cleanup(stats_tree *st) {
  if (tree_ranged) g_hash_table_remove(tree_ranged, st);
}

static void tree_ooo(stats_tree *st, int dir_node, guint32 distance) {
  GHashTable *ranged = tree_ranged ? g_hash_table_lookup(tree_ranged, st) : NULL;
  gpointer key = GINT_TO_POINTER(dir_node);
  if (ranged && !g_hash_table_contains(ranged, key)) {
    stats_tree_create_range_node_string(st, OOO_NODE, dir_node, ORNIC_AN_OOO_BUCKETS, ooo_ranges);
    g_hash_table_add(ranged, key);
  }
  tick_stat_node(st, OOO_NODE, dir_node, FALSE);
  stats_tree_tick_range(st, OOO_NODE, dir_node, (int)MIN(distance, (guint32)G_MAXINT));
}

/* Per path: packets (Average, Min, Max: frame bytes), OOO, losses, retransmissions. */
static void tree_path(stats_tree *st, int dir_node, const ornic_tap_info *ti, packet_info *pinfo,
                      guint32 fl) {
  char name[8];
  g_snprintf(name, sizeof(name), "%u", ti->udp_srcport);
  int paths = tick_stat_node(st, PATHS_NODE, dir_node, TRUE);
  int path = avg_stat_node_add_value_int(st, name, paths, TRUE, (gint)pinfo->fd->pkt_len);
  if (fl & ORNIC_AN_OOO) tick_stat_node(st, "OOO packets", path, FALSE);
  if (fl & ORNIC_AN_LOSS) tick_stat_node(st, "Losses", path, FALSE);
  if (fl & ORNIC_AN_RETRANS) tick_stat_node(st, "Retransmissions", path, FALSE);
}

/* The direction node of the packet's conversation as the engine knows it now. */
static int tree_dir_node(stats_tree *st, const ornic_pkt *an, gint bytes) {
  char label[256];
  if (!an) return avg_stat_node_add_value_int(st, "(not analysed)", 0, TRUE, bytes);
  conv_now n = now_of(an->v.conv, an->v.dir);
  conv_label(n.conv, label, sizeof(label));
  int conv = avg_stat_node_add_value_int(st, label, 0, TRUE, bytes);
  return avg_stat_node_add_value_int(st, n.dir ? "B->A" : "A->B", conv, TRUE, bytes);
}

static tap_packet_status tree_packet(stats_tree *st, packet_info *pinfo, epan_dissect_t *edt _U_,
                                     const void *data, tap_flags_t flags _U_) {
  const ornic_tap_info *ti = data;
  const ornic_pkt *an = ti->an;
  guint32 fl = an ? an->v.flags : 0;
  int node = tree_dir_node(st, an, (gint)pinfo->fd->pkt_len);
  if (fl & ORNIC_AN_NEW_WQE) tick_stat_node(st, "WQEs", node, FALSE);
  if (fl & ORNIC_AN_OOO) tree_ooo(st, node, an->v.ooo_distance);
  if (fl & ORNIC_AN_RETRANS) tick_stat_node(st, "Retransmissions", node, FALSE);
  if (fl & ORNIC_AN_DUP) tick_stat_node(st, "Duplicates", node, FALSE);
  if (fl & ORNIC_AN_NAK) tick_stat_node(st, "NAKs", node, FALSE);
  if (fl & ORNIC_AN_LOSS) tick_stat_node(st, "Losses", node, FALSE);
  if (fl & ORNIC_AN_NOT_CAPTURED) tick_stat_node(st, "ACKs of PSNs not captured", node, FALSE);
  if (fl & ORNIC_AN_ACK_STALE) tick_stat_node(st, "Stale ACKs", node, FALSE);
  if (an && an->v.role == ORNIC_AN_ROLE_CNP) tick_stat_node(st, "CNPs", node, FALSE);
  if (ti->icrc_status == PROTO_CHECKSUM_E_BAD) tick_stat_node(st, "iCRC failures", node, FALSE);
  if (ti->malformed) tick_stat_node(st, "Malformed", node, FALSE);
  if (an) tree_path(st, node, ti, pinfo, fl);
  return TAP_PACKET_REDRAW;
}

/* ---- Conversations and Endpoints -------------------------------------------------- */

/* Wireshark's tables key on (address, port) pairs. An ORNIC conversation is
 * a QP pair whose packets use many UDP source ports (one per path), so UDP's
 * table splits it; the QP is the port that stays. Each end is an address of
 * our own type, "AT_ORNIC_QP": the IP address, the QP, the conversation id
 * and which host of it. Its plain text is the IP address (a filter value;
 * the GUI shows the QP in the Port column: CONVERSATION_IBQP, InfiniBand's
 * QP type, which RoCE's QPs are); its resolved text, which tshark prints, is
 * "10.0.0.1 QP 0x000100", so two QP pairs of one host pair stay apart. The
 * conversation id makes the tables' filters select every packet of the pair,
 * whatever path: see qp_filter_name(). */
typedef struct {
  guint32 conv;  /* final conversation id when the row was made */
  guint32 qp;    /* G_MAXUINT32: not known */
  guint8 side;   /* 0: host A, 1: host B */
  guint8 ip_len; /* 4, 16, or 0: the conversation is keyed by QP alone */
  guint8 ip[16];
} qp_end;

static int at_ornic_qp = -1;

static qp_end end_of(const address *addr) {
  qp_end e;
  memset(&e, 0, sizeof e);
  if (addr->len == (int)sizeof e) memcpy(&e, addr->data, sizeof e);
  return e;
}

static int qp_end_to_str(const address *addr, gchar *buf, int buf_len) {
  qp_end e = end_of(addr);
  address ip;
  set_address(&ip, e.ip_len == 16 ? AT_IPv6 : AT_IPv4, e.ip_len, e.ip);
  if (e.ip_len)
    address_to_str_buf(&ip, buf, buf_len);
  else
    g_strlcpy(buf, "-", buf_len);
  return (int)strlen(buf) + 1;
}

static int qp_end_str_len(const address *addr _U_) { return 64; }

/* Resolved names must outlive the call: interned, one per QP end seen. */
static const gchar *qp_end_name(const address *addr) {
  char ip[64], name[96];
  qp_end e = end_of(addr);
  qp_end_to_str(addr, ip, sizeof(ip));
  if (e.qp == G_MAXUINT32)
    g_snprintf(name, sizeof(name), "%s QP ?", ip);
  else
    g_snprintf(name, sizeof(name), "%s QP 0x%06x", ip, e.qp);
  return g_intern_string(name);
}

static int qp_end_name_len(void) { return 96; }

/* "<conversation filter> && ip.addr": Wireshark appends "==<address>" (the
 * IP address) and, for CONVERSATION_IBQP, no port term; the conversation
 * part selects the pair's packets on every path. Interned: the caller keeps
 * the pointer. */
static const char *qp_filter_name(const address *addr, conv_filter_type_e type) {
  qp_end e = end_of(addr);
  const char *v6 = e.ip_len == 16 ? "v6" : "";
  const char *which = type == CONV_FT_SRC_ADDRESS   ? "src"
                      : type == CONV_FT_DST_ADDRESS ? "dst"
                      : type == CONV_FT_ANY_ADDRESS ? "addr"
                                                    : NULL;
  if (!which || !e.ip_len || !e.conv) return CONV_FILTER_INVALID;
  char *conv = conv_filter(now_of(e.conv, 0).conv);
  char *s = g_strdup_printf("%s && ip%s.%s", conv, v6, which);
  const char *r = g_intern_string(s);
  g_free(s);
  g_free(conv);
  return r;
}

static const char *conv_filter_name(conv_item_t *item, conv_filter_type_e type) {
  return qp_filter_name(&item->src_address, type);
}

static const char *endpoint_filter_name(endpoint_item_t *item, conv_filter_type_e type) {
  return qp_filter_name(&item->myaddress, type);
}

static ct_dissector_info_t ct_info = {conv_filter_name};
static et_dissector_info_t et_info = {endpoint_filter_name};

static qp_end host_end(const ornic_an_conv *f, unsigned side) {
  qp_end e;
  memset(&e, 0, sizeof e);
  e.conv = f->id;
  e.side = (guint8)side;
  e.qp = (side ? f->qp_b_known : f->qp_a_known) ? (side ? f->qp_b : f->qp_a) : G_MAXUINT32;
  e.ip_len = f->addr_len <= 16 ? f->addr_len : 0;
  memcpy(e.ip, side ? f->b : f->a, e.ip_len);
  return e;
}

/* An end as the engine knows its conversation now (merged, QPs paired). */
static qp_end end_now(const qp_end *e) {
  const ornic_analysis *a = ornic_analysis_engine();
  const ornic_an_conv *f = a ? ornic_analysis_conv_final(a, e->conv) : NULL;
  if (!f) return *e;
  return host_end(f, e->side ^ final_dir(ornic_analysis_conv(a, e->conv), f, 0));
}

/* The packet's sender and receiver. A request of direction A->B travels
 * from host A to host B; a response or a CNP of that direction (both to
 * the requester's QP) from B to A. */
static const ornic_an_conv *wire_ends(const ornic_tap_info *ti, qp_end *src, qp_end *dst) {
  const ornic_pkt *an = ti->an;
  if (!an || !an->v.conv) return NULL;
  conv_now n = now_of(an->v.conv, an->v.dir);
  if (!n.f) return NULL;
  unsigned from_b = (n.dir == ORNIC_AN_DIR_BA) != (an->v.role != ORNIC_AN_ROLE_REQUEST);
  *src = host_end(n.f, from_b);
  *dst = host_end(n.f, !from_b);
  return n.f;
}

static guint32 port_of(const qp_end *e) { return e->qp == G_MAXUINT32 ? 0 : e->qp; }

/* One-pass tshark taps a packet before the engine has seen the rest: a
 * conversation's QPs are paired, and conversations merged, after rows were
 * made with what was known then. Each table remembers the QPs each
 * conversation's rows were made with; when they change, its rows are made
 * again from their own counts (relabel()). In the GUI, which taps after the
 * first pass, they never change. */
static GHashTable *table_qps; /* conv_hash_t * -> (conversation id -> guint64 QPs) */

static guint64 qps_of(const ornic_an_conv *f) {
  guint64 a = f->qp_a_known ? f->qp_a : G_MAXUINT32, b = f->qp_b_known ? f->qp_b : G_MAXUINT32;
  return a << 32 | b;
}

/* TRUE when rows of f were made with other QPs than f has now. */
static gboolean stale(conv_hash_t *hash, const ornic_an_conv *f) {
  if (!table_qps)
    table_qps = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                      (GDestroyNotify)g_hash_table_destroy);
  GHashTable *qps = g_hash_table_lookup(table_qps, hash);
  if (!qps || !hash->conv_array || !hash->conv_array->len) { /* a new or reset table */
    qps = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    g_hash_table_replace(table_qps, hash, qps);
  }
  guint64 now = qps_of(f), *was = g_hash_table_lookup(qps, GUINT_TO_POINTER(f->id));
  if (!was) {
    was = g_new(guint64, 1);
    *was = now;
    g_hash_table_insert(qps, GUINT_TO_POINTER(f->id), was);
    return FALSE;
  }
  if (*was == now) return FALSE;
  *was = now;
  return TRUE;
}

/* Adds frames and bytes in int-sized steps; at least one call (it makes the row). */
static void conv_add(conv_hash_t *hash, const qp_end *s, const qp_end *d, guint64 frames,
                     guint64 bytes, nstime_t *ts, nstime_t *abs_ts) {
  do {
    int f = (int)MIN(frames, (guint64)G_MAXINT), b = (int)MIN(bytes, (guint64)G_MAXINT);
    address src, dst;
    set_address(&src, at_ornic_qp, (int)sizeof *s, s);
    set_address(&dst, at_ornic_qp, (int)sizeof *d, d);
    add_conversation_table_data_with_conv_id(hash, &src, &dst, port_of(s), port_of(d), s->conv, f,
                                             b, ts, abs_ts, &ct_info, CONVERSATION_IBQP);
    frames -= (guint64)f;
    bytes -= (guint64)b;
  } while (frames || bytes);
}

/* An old row's counts again, under its ends as known now: the frames the
 * display filter hid (only in the totals) first, then the shown ones. */
static void conv_readd(conv_hash_t *hash, const void *row) {
  const conv_item_t *it = row;
  qp_end s0 = end_of(&it->src_address), d0 = end_of(&it->dst_address);
  qp_end s = end_now(&s0), d = end_now(&d0);
  nstime_t start = it->start_time, stop = it->stop_time, abs_start = it->start_abs_time;
  hash->flags = TL_DISPLAY_FILTER_IGNORED;
  conv_add(hash, &s, &d, it->tx_frames_total - it->tx_frames, it->tx_bytes_total - it->tx_bytes,
           &start, &abs_start);
  conv_add(hash, &s, &d, 0, 0, &stop, &abs_start);
  if (it->rx_frames_total > it->rx_frames)
    conv_add(hash, &d, &s, it->rx_frames_total - it->rx_frames, it->rx_bytes_total - it->rx_bytes,
             NULL, NULL);
  hash->flags = 0;
  if (it->tx_frames) conv_add(hash, &s, &d, it->tx_frames, it->tx_bytes, NULL, NULL);
  if (it->rx_frames) conv_add(hash, &d, &s, it->rx_frames, it->rx_bytes, NULL, NULL);
}

static void endpoint_add(conv_hash_t *hash, const qp_end *e, gboolean sender, guint64 frames,
                         guint64 bytes) {
  do {
    int f = (int)MIN(frames, (guint64)G_MAXINT), b = (int)MIN(bytes, (guint64)G_MAXINT);
    address a;
    set_address(&a, at_ornic_qp, (int)sizeof *e, e);
    add_endpoint_table_data(hash, &a, port_of(e), sender, f, b, &et_info, ENDPOINT_IBQP);
    frames -= (guint64)f;
    bytes -= (guint64)b;
  } while (frames || bytes);
}

static void endpoint_readd(conv_hash_t *hash, const void *row) {
  const endpoint_item_t *it = row;
  qp_end e0 = end_of(&it->myaddress), e = end_now(&e0);
  hash->flags = TL_DISPLAY_FILTER_IGNORED;
  endpoint_add(hash, &e, TRUE, it->tx_frames_total - it->tx_frames,
               it->tx_bytes_total - it->tx_bytes);
  if (it->rx_frames_total > it->rx_frames)
    endpoint_add(hash, &e, FALSE, it->rx_frames_total - it->rx_frames,
                 it->rx_bytes_total - it->rx_bytes);
  hash->flags = 0;
  if (it->tx_frames) endpoint_add(hash, &e, TRUE, it->tx_frames, it->tx_bytes);
  if (it->rx_frames) endpoint_add(hash, &e, FALSE, it->rx_frames, it->rx_bytes);
}

static void conv_release(void *row) {
  conv_item_t *it = row;
  free_address(&it->src_address);
  free_address(&it->dst_address);
}

static void endpoint_release(void *row) { free_address(&((endpoint_item_t *)row)->myaddress); }

/* A packet's row counts: its conversation's, or each end's (an endpoint is
 * a QP, address and QP: an RC QP talks to one QP only, so its traffic is its
 * conversation's). */
static void conv_add_packet(conv_hash_t *hash, const qp_end *s, const qp_end *d,
                            packet_info *pinfo) {
  conv_add(hash, s, d, 1, pinfo->fd->pkt_len, &pinfo->rel_ts, &pinfo->abs_ts);
}

static void endpoint_add_packet(conv_hash_t *hash, const qp_end *s, const qp_end *d,
                                packet_info *pinfo) {
  endpoint_add(hash, s, TRUE, 1, pinfo->fd->pkt_len);
  endpoint_add(hash, d, FALSE, 1, pinfo->fd->pkt_len);
}

/* What the conversation and the endpoint tables differ in: the row type, how
 * an old row is added again under its ends as known now, how its addresses
 * are freed, and what a packet adds. */
typedef struct {
  guint row_size;
  void (*readd)(conv_hash_t *hash, const void *row);
  void (*release)(void *row);
  void (*add_packet)(conv_hash_t *hash, const qp_end *s, const qp_end *d, packet_info *pinfo);
} table_kind;
static const table_kind conv_table = {sizeof(conv_item_t), conv_readd, conv_release,
                                      conv_add_packet};
static const table_kind endpoint_table = {sizeof(endpoint_item_t), endpoint_readd, endpoint_release,
                                          endpoint_add_packet};

/* A table's rows made again from their own counts (stale()). In place: the
 * GUI's model holds the array between draws. */
static void relabel(conv_hash_t *hash, const table_kind *k) {
  GArray *rows = hash->conv_array;
  GArray *old = g_array_sized_new(FALSE, FALSE, k->row_size, rows->len);
  g_array_append_vals(old, rows->data, rows->len);
  g_array_set_size(rows, 0);
  g_hash_table_remove_all(hash->hashtable);
  guint flags = hash->flags;
  for (guint i = 0; i < old->len; i++) k->readd(hash, old->data + (gsize)i * k->row_size);
  hash->flags = flags;
  for (guint i = 0; i < old->len; i++) k->release(old->data + (gsize)i * k->row_size);
  g_array_free(old, TRUE);
}

/* Either table's tap callback: the rows made again first when the packet's
 * conversation has other QPs than they were made with, then the packet's. */
static tap_packet_status table_packet(conv_hash_t *hash, const table_kind *k, packet_info *pinfo,
                                      const void *data, tap_flags_t flags) {
  qp_end s, d;
  const ornic_an_conv *f = wire_ends(data, &s, &d);
  if (!f) return TAP_PACKET_DONT_REDRAW;
  if (stale(hash, f)) relabel(hash, k);
  hash->flags = flags;
  k->add_packet(hash, &s, &d, pinfo);
  return TAP_PACKET_REDRAW;
}

static tap_packet_status conv_packet(void *pct, packet_info *pinfo, epan_dissect_t *edt _U_,
                                     const void *data, tap_flags_t flags) {
  return table_packet(pct, &conv_table, pinfo, data, flags);
}

static tap_packet_status endpoint_packet(void *pit, packet_info *pinfo, epan_dissect_t *edt _U_,
                                         const void *data, tap_flags_t flags) {
  return table_packet(pit, &endpoint_table, pinfo, data, flags);
}

/* ---- Conversation Filter > ORNIC QP pair (packet list, Analyze menu) --------------- */

static ornic_ws_bool qp_pair_filter_valid(ORNIC_CONV_FILTER_ARGS) {
  guint32 conv;
  guint8 dir;
  /* A standard opcode's layers read as stock's (ornic_dissect.c drop_own_layer). */
  return (proto_is_frame_protocol(pinfo->layers, "ornic") ||
          proto_is_frame_protocol(pinfo->layers, "infiniband")) &&
         ornic_analysis_stored_conv(pinfo, &conv, &dir) && conv && ornic_analysis_engine();
}

static gchar *qp_pair_filter(ORNIC_CONV_FILTER_ARGS) {
  guint32 conv;
  guint8 dir;
  if (!ornic_analysis_stored_conv(pinfo, &conv, &dir) || !conv) return NULL;
  return conv_filter(now_of(conv, dir).conv);
}

/* ---- registration ---------------------------------------------------------------- */

/* Runs after every protocol registered (a tap plugin's registration), and
 * before tshark and the GUI list conversation tables and read -z. */
static void register_listeners(void) {
  register_stat_tap_ui(&stat_ui, NULL);
  ooo_ranges_init();
  stats_tree_register_plugin("ornic", "ornic", "ORNIC conversations",
                             ST_SORT_COL_NAME << ST_FLG_SRTCOL_SHIFT, tree_packet, tree_init,
                             tree_cleanup);
  at_ornic_qp =
      address_type_dissector_register("AT_ORNIC_QP", "ORNIC QP end", qp_end_to_str, qp_end_str_len,
                                      NULL, NULL, NULL, qp_end_name, qp_end_name_len);
  register_conversation_table(proto_ornic, FALSE, conv_packet, endpoint_packet);
  ornic_register_conversation_filter("ornic", "ORNIC QP pair", qp_pair_filter_valid,
                                     qp_pair_filter);
  ornic_register_srt();
  ornic_register_follow();
}

void ornic_register_stats(void) {
  static tap_plugin plug = {register_listeners};
  tap_register_plugin(&plug);
}
