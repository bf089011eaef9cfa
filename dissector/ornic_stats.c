/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Statistics from the "ornic" tap: `tshark -z ornic,stat[,FILTER]` prints a
 * table per conversation (QP pair) and direction, from the verdicts of
 * libornicproto's analysis engine with its merged conversations as one row;
 * a stats_tree ("ORNIC conversations", also `-z ornic,tree`) puts the same
 * counts in Wireshark's Statistics menu. */
#include "ornic_diss.h"

#include <stdio.h>
#include <string.h>

#include <epan/stat_tap_ui.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>

/* Counters of one conversation direction, from the verdicts of the packets
 * the tap saw (so `-z ornic,stat,FILTER` counts the filtered ones). */
typedef struct {
  guint64 packets, wqes, ooo, retrans, dup, naks, loss, not_captured, stale, icrc_bad, malformed,
      cnp;
  guint64 hist[ORNIC_AN_OOO_BUCKETS];
} dir_stats;

typedef struct {
  GHashTable *by_key; /* (verdict conv << 1 | dir) + 1, 0 for packets not analysed -> dir_stats */
  char *filter;
} stat_ctx;

static guint stat_key(const ornic_pkt *an) {
  return an ? ((an->v.conv << 1) | (an->v.dir & 1u)) + 1u : 0;
}

static void count(dir_stats *s, const ornic_tap_info *ti) {
  const ornic_pkt *an = ti->an;
  guint32 fl = an ? an->v.flags : 0;
  s->packets++;
  s->wqes += !!(fl & ORNIC_AN_NEW_WQE);
  s->retrans += !!(fl & ORNIC_AN_RETRANS);
  s->dup += !!(fl & ORNIC_AN_DUP);
  s->naks += !!(fl & ORNIC_AN_NAK);
  s->loss += !!(fl & ORNIC_AN_LOSS);
  s->not_captured += !!(fl & ORNIC_AN_NOT_CAPTURED);
  s->stale += !!(fl & ORNIC_AN_ACK_STALE);
  s->cnp += an && an->v.role == ORNIC_AN_ROLE_CNP;
  s->icrc_bad += ti->icrc_status == PROTO_CHECKSUM_E_BAD;
  s->malformed += ti->malformed;
  if (fl & ORNIC_AN_OOO) {
    s->ooo++;
    s->hist[ornic_an_ooo_bucket(an->v.ooo_distance)]++;
  }
}

static void add_stats(dir_stats *to, const dir_stats *from) {
  guint64 *t = &to->packets;
  const guint64 *f = &from->packets;
  G_STATIC_ASSERT(sizeof(dir_stats) % sizeof(guint64) == 0);
  for (size_t i = 0; i < sizeof(dir_stats) / sizeof(guint64); i++) t[i] += f[i];
}

static void stat_reset(void *tapdata) {
  stat_ctx *ctx = tapdata;
  g_hash_table_remove_all(ctx->by_key);
}

static tap_packet_status stat_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                     const void *data, tap_flags_t flags _U_) {
  stat_ctx *ctx = tapdata;
  const ornic_tap_info *ti = data;
  gpointer key = GUINT_TO_POINTER(stat_key(ti->an));
  dir_stats *s = g_hash_table_lookup(ctx->by_key, key);
  if (!s) {
    s = g_new0(dir_stats, 1);
    g_hash_table_insert(ctx->by_key, key, s);
  }
  count(s, ti);
  return TAP_PACKET_REDRAW;
}

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

/* One row: a conversation direction after the engine's merges. */
typedef struct {
  guint32 conv; /* final id; 0: not analysed */
  unsigned dir;
  dir_stats s;
} row;

static gint by_conv_dir(gconstpointer a, gconstpointer b) {
  const row *x = *(const row *const *)a, *y = *(const row *const *)b;
  if (x->conv != y->conv) return (x->conv > y->conv) - (x->conv < y->conv);
  return (x->dir > y->dir) - (x->dir < y->dir);
}

static GPtrArray *merged_rows(stat_ctx *ctx) {
  const ornic_analysis *a = ornic_analysis_engine();
  GHashTable *rows = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, ctx->by_key);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    guint key = GPOINTER_TO_UINT(k);
    guint32 conv = key ? (key - 1) >> 1 : 0;
    unsigned dir = key ? (key - 1) & 1u : 0;
    const ornic_an_conv *c = a && conv ? ornic_analysis_conv(a, conv) : NULL;
    const ornic_an_conv *f = a && conv ? ornic_analysis_conv_final(a, conv) : NULL;
    if (f) {
      dir = final_dir(c, f, dir);
      conv = f->id;
    }
    gpointer rk = GUINT_TO_POINTER(conv ? ((conv << 1) | dir) + 1u : 0);
    row *r = g_hash_table_lookup(rows, rk);
    if (!r) {
      r = g_new0(row, 1);
      r->conv = conv;
      r->dir = dir;
      g_hash_table_insert(rows, rk, r);
    }
    add_stats(&r->s, v);
  }
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  g_hash_table_iter_init(&it, rows);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    g_hash_table_iter_steal(&it);
    g_ptr_array_add(out, v);
  }
  g_hash_table_destroy(rows);
  g_ptr_array_sort(out, by_conv_dir);
  return out;
}

static void row_label(const row *r, char *out, size_t cap) {
  const ornic_analysis *a = ornic_analysis_engine();
  const ornic_an_conv *c = a && r->conv ? ornic_analysis_conv(a, r->conv) : NULL;
  if (!r->conv)
    g_strlcpy(out, "(not analysed: RD, UD, vendor or undecodable)", cap);
  else if (!c)
    g_snprintf(out, (gulong)cap, "conversation %u", r->conv);
  else
    ornic_an_conv_label(c, out, cap);
}

#define LINE                                                                                       \
  "==============================================================================================" \
  "============================================"

static void stat_draw(void *tapdata) {
  stat_ctx *ctx = tapdata;
  GPtrArray *rows = merged_rows(ctx);
  char label[256];
  printf("\n%s\n", LINE);
  printf(
      "ORNIC statistics per conversation (QP pair) and direction: A->B are host A's requests and "
      "their responses\n");
  printf("Filter: %s\n\n", ctx->filter ? ctx->filter : "<none>");
  printf("%-52s %4s %8s %6s %7s %7s %6s %5s %5s %7s %5s %5s %5s %4s\n", "Conversation", "Dir",
         "Packets", "WQEs", "OOO", "Retrans", "Dups", "NAKs", "Loss", "NotCapt", "Stale", "iCRC!",
         "Malf", "CNP");
  for (guint i = 0; i < rows->len; i++) {
    const row *r = g_ptr_array_index(rows, i);
    const dir_stats *s = &r->s;
    row_label(r, label, sizeof(label));
    printf("%-52s %4s %8" PRIu64 " %6" PRIu64 " %7" PRIu64 " %7" PRIu64 " %6" PRIu64 " %5" PRIu64
           " %5" PRIu64 " %7" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %4" PRIu64 "\n",
           label, r->conv ? (r->dir ? "B->A" : "A->B") : "-", s->packets, s->wqes, s->ooo,
           s->retrans, s->dup, s->naks, s->loss, s->not_captured, s->stale, s->icrc_bad,
           s->malformed, s->cnp);
  }
  printf("\nOOO distance histogram (first arrivals d PSNs below the highest PSN seen):\n");
  printf("%-52s %4s", "Conversation", "Dir");
  for (unsigned b = 0; b < ORNIC_AN_OOO_BUCKETS; b++) printf(" %7s", ornic_an_ooo_bucket_name(b));
  printf("\n");
  for (guint i = 0; i < rows->len; i++) {
    const row *r = g_ptr_array_index(rows, i);
    if (!r->conv) continue;
    row_label(r, label, sizeof(label));
    printf("%-52s %4s", label, r->dir ? "B->A" : "A->B");
    for (unsigned b = 0; b < ORNIC_AN_OOO_BUCKETS; b++) printf(" %7" PRIu64, r->s.hist[b]);
    printf("\n");
  }
  printf("%s\n", LINE);
  g_ptr_array_free(rows, TRUE);
}

static void stat_finish(void *tapdata) {
  stat_ctx *ctx = tapdata;
  g_hash_table_destroy(ctx->by_key);
  g_free(ctx->filter);
  g_free(ctx);
}

static void stat_init(const char *opt_arg, void *userdata _U_) {
  stat_ctx *ctx = g_new0(stat_ctx, 1);
  const char *prefix = "ornic,stat,";
  if (opt_arg && g_str_has_prefix(opt_arg, prefix) && opt_arg[strlen(prefix)])
    ctx->filter = g_strdup(opt_arg + strlen(prefix));
  ctx->by_key = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  GString *err = register_tap_listener("ornic", ctx, ctx->filter, TL_REQUIRES_NOTHING, stat_reset,
                                       stat_packet, stat_draw, stat_finish);
  if (err) {
    fprintf(stderr, "tshark: couldn't register ornic,stat tap: %s\n", err->str);
    g_string_free(err, TRUE);
    stat_finish(ctx);
  }
}

static tap_param stat_params[] = {{PARAM_FILTER, "filter", "Filter", NULL, TRUE}};

static stat_tap_ui stat_ui = {REGISTER_STAT_GROUP_GENERIC,
                              "ORNIC conversation statistics",
                              "ornic,stat",
                              stat_init,
                              G_N_ELEMENTS(stat_params),
                              stat_params};

/* ---- stats_tree for the GUI ----------------------------------------------------- */

static void tree_init(stats_tree *st _U_) {}

static tap_packet_status tree_packet(stats_tree *st, packet_info *pinfo _U_,
                                     epan_dissect_t *edt _U_, const void *data,
                                     tap_flags_t flags _U_) {
  const ornic_tap_info *ti = data;
  const ornic_pkt *an = ti->an;
  guint32 fl = an ? an->v.flags : 0;
  char label[256];
  int node;
  if (an) {
    /* The conversation as the engine knows it now (merged, QPs paired). */
    const ornic_analysis *a = ornic_analysis_engine();
    const ornic_an_conv *c = a ? ornic_analysis_conv(a, an->v.conv) : NULL;
    const ornic_an_conv *f = a ? ornic_analysis_conv_final(a, an->v.conv) : NULL;
    if (f)
      ornic_an_conv_label(f, label, sizeof(label));
    else
      g_snprintf(label, sizeof(label), "conversation %u", an->v.conv);
    int conv = tick_stat_node(st, label, 0, TRUE);
    unsigned dir = final_dir(c, f, an->v.dir);
    node = tick_stat_node(st, dir ? "B->A" : "A->B", conv, TRUE);
  } else {
    node = tick_stat_node(st, "(not analysed)", 0, TRUE);
  }
  if (fl & ORNIC_AN_NEW_WQE) tick_stat_node(st, "WQEs", node, FALSE);
  if (fl & ORNIC_AN_OOO) {
    int o = tick_stat_node(st, "OOO packets (by distance)", node, TRUE);
    tick_stat_node(st, ornic_an_ooo_bucket_name(ornic_an_ooo_bucket(an->v.ooo_distance)), o, FALSE);
  }
  if (fl & ORNIC_AN_RETRANS) tick_stat_node(st, "Retransmissions", node, FALSE);
  if (fl & ORNIC_AN_DUP) tick_stat_node(st, "Duplicates", node, FALSE);
  if (fl & ORNIC_AN_NAK) tick_stat_node(st, "NAKs", node, FALSE);
  if (fl & ORNIC_AN_LOSS) tick_stat_node(st, "Losses", node, FALSE);
  if (fl & ORNIC_AN_NOT_CAPTURED) tick_stat_node(st, "ACKs of PSNs not captured", node, FALSE);
  if (fl & ORNIC_AN_ACK_STALE) tick_stat_node(st, "Stale ACKs", node, FALSE);
  if (an && an->v.role == ORNIC_AN_ROLE_CNP) tick_stat_node(st, "CNPs", node, FALSE);
  if (ti->icrc_status == PROTO_CHECKSUM_E_BAD) tick_stat_node(st, "iCRC failures", node, FALSE);
  if (ti->malformed) tick_stat_node(st, "Malformed", node, FALSE);
  return TAP_PACKET_REDRAW;
}

static void register_listeners(void) {
  register_stat_tap_ui(&stat_ui, NULL);
  stats_tree_register_plugin("ornic", "ornic", "ORNIC conversations", 0, tree_packet, tree_init,
                             NULL);
}

void ornic_register_stats(void) {
  static tap_plugin plug = {register_listeners};
  tap_register_plugin(&plug);
}
