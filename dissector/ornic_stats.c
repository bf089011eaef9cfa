/* Statistics from the "ornic" tap: `tshark -z ornic,stat[,FILTER]` prints a
 * per-QP-pair table, and a stats_tree ("ORNIC QP pairs", also
 * `-z ornic,tree`) puts the same counts in Wireshark's Statistics menu. */
#include "ornic_diss.h"

#include <stdio.h>

#include <epan/stat_tap_ui.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>

#define NBUCKETS 8
static const char *const bucket_names[NBUCKETS] = {"1",     "2-3",   "4-7",    "8-15",
                                                   "16-31", "32-63", "64-127", "128+"};

static unsigned bucket(guint32 d) {
  unsigned b = 0;
  while (d > 1 && b < NBUCKETS - 1) {
    d >>= 1;
    b++;
  }
  return b;
}

typedef struct {
  guint32 id;
  char *label;
  guint64 packets, wqes, ooo, retrans, dup, naks, loss, icrc_bad, malformed, cnp;
  guint64 hist[NBUCKETS];
} qp_stats;

typedef struct {
  GHashTable *by_conv; /* conv id -> qp_stats */
  char *filter;
} stat_ctx;

static qp_stats *stats_for(stat_ctx *ctx, const ornic_conv *conv) {
  guint32 id = conv ? conv->id : 0;
  qp_stats *s = g_hash_table_lookup(ctx->by_conv, GUINT_TO_POINTER(id));
  if (!s) {
    s = g_new0(qp_stats, 1);
    s->id = id;
    s->label = g_strdup(conv ? conv->label : "(not analysed)");
    g_hash_table_insert(ctx->by_conv, GUINT_TO_POINTER(id), s);
  }
  return s;
}

static void free_stats(gpointer p) {
  qp_stats *s = p;
  g_free(s->label);
  g_free(s);
}

static void stat_reset(void *tapdata) {
  stat_ctx *ctx = tapdata;
  g_hash_table_remove_all(ctx->by_conv);
}

static tap_packet_status stat_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                     const void *data, tap_flags_t flags _U_) {
  const ornic_tap_info *ti = data;
  const ornic_pkt *an = ti->an;
  qp_stats *s = stats_for(tapdata, an ? an->conv : NULL);
  guint32 fl = an ? an->flags : 0;
  s->packets++;
  s->wqes += !!(fl & ORNIC_AN_NEW_WQE);
  s->retrans += !!(fl & ORNIC_AN_RETRANS);
  s->dup += !!(fl & ORNIC_AN_DUP);
  s->naks += !!(fl & ORNIC_AN_NAK);
  s->loss += !!(fl & ORNIC_AN_LOSS);
  s->cnp += !!(fl & ORNIC_AN_CNP);
  s->icrc_bad += ti->icrc_status == PROTO_CHECKSUM_E_BAD;
  s->malformed += ti->malformed;
  if (fl & ORNIC_AN_OOO) {
    s->ooo++;
    s->hist[bucket(an->ooo_distance)]++;
  }
  return TAP_PACKET_REDRAW;
}

static gint by_id(gconstpointer a, gconstpointer b) {
  const qp_stats *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

static void stat_draw(void *tapdata) {
  stat_ctx *ctx = tapdata;
  GList *rows = g_list_sort(g_hash_table_get_values(ctx->by_conv), by_id);
  printf("\n===================================================================================\n");
  printf("ORNIC statistics per QP pair (requester -> responder, responder's QP)\n");
  printf("Filter: %s\n\n", ctx->filter ? ctx->filter : "<none>");
  printf("%-44s %8s %6s %7s %7s %6s %5s %5s %5s %5s %4s\n", "QP pair", "Packets", "WQEs", "OOO",
         "Retrans", "Dups", "NAKs", "Loss", "iCRC!", "Malf", "CNP");
  for (GList *l = rows; l; l = l->next) {
    const qp_stats *s = l->data;
    printf("%-44s %8" PRIu64 " %6" PRIu64 " %7" PRIu64 " %7" PRIu64 " %6" PRIu64 " %5" PRIu64
           " %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %4" PRIu64 "\n",
           s->label, s->packets, s->wqes, s->ooo, s->retrans, s->dup, s->naks, s->loss,
           s->icrc_bad, s->malformed, s->cnp);
  }
  printf("\nOOO distance histogram (first arrivals d PSNs below the highest PSN seen):\n");
  printf("%-44s", "QP pair");
  for (unsigned b = 0; b < NBUCKETS; b++) printf(" %7s", bucket_names[b]);
  printf("\n");
  for (GList *l = rows; l; l = l->next) {
    const qp_stats *s = l->data;
    printf("%-44s", s->label);
    for (unsigned b = 0; b < NBUCKETS; b++) printf(" %7" PRIu64, s->hist[b]);
    printf("\n");
  }
  printf("===================================================================================\n");
  g_list_free(rows);
}

static void stat_finish(void *tapdata) {
  stat_ctx *ctx = tapdata;
  g_hash_table_destroy(ctx->by_conv);
  g_free(ctx->filter);
  g_free(ctx);
}

static void stat_init(const char *opt_arg, void *userdata _U_) {
  stat_ctx *ctx = g_new0(stat_ctx, 1);
  const char *prefix = "ornic,stat,";
  if (opt_arg && g_str_has_prefix(opt_arg, prefix) && opt_arg[strlen(prefix)])
    ctx->filter = g_strdup(opt_arg + strlen(prefix));
  ctx->by_conv = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_stats);
  GString *err = register_tap_listener("ornic", ctx, ctx->filter, TL_REQUIRES_NOTHING, stat_reset,
                                       stat_packet, stat_draw, stat_finish);
  if (err) {
    fprintf(stderr, "tshark: couldn't register ornic,stat tap: %s\n", err->str);
    g_string_free(err, TRUE);
    stat_finish(ctx);
  }
}

static tap_param stat_params[] = {{PARAM_FILTER, "filter", "Filter", NULL, TRUE}};

static stat_tap_ui stat_ui = {REGISTER_STAT_GROUP_GENERIC, "ORNIC QP statistics", "ornic,stat",
                              stat_init, G_N_ELEMENTS(stat_params), stat_params};

/* ---- stats_tree for the GUI ----------------------------------------------------- */

static void tree_init(stats_tree *st _U_) {}

static tap_packet_status tree_packet(stats_tree *st, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                     const void *data, tap_flags_t flags _U_) {
  const ornic_tap_info *ti = data;
  const ornic_pkt *an = ti->an;
  guint32 fl = an ? an->flags : 0;
  int qp = tick_stat_node(st, an ? an->conv->label : "(not analysed)", 0, TRUE);
  if (fl & ORNIC_AN_NEW_WQE) tick_stat_node(st, "WQEs", qp, FALSE);
  if (fl & ORNIC_AN_OOO) {
    int o = tick_stat_node(st, "OOO packets (by distance)", qp, TRUE);
    tick_stat_node(st, bucket_names[bucket(an->ooo_distance)], o, FALSE);
  }
  if (fl & ORNIC_AN_RETRANS) tick_stat_node(st, "Retransmissions", qp, FALSE);
  if (fl & ORNIC_AN_DUP) tick_stat_node(st, "Duplicates", qp, FALSE);
  if (fl & ORNIC_AN_NAK) tick_stat_node(st, "NAKs", qp, FALSE);
  if (fl & ORNIC_AN_LOSS) tick_stat_node(st, "Losses inferred", qp, FALSE);
  if (fl & ORNIC_AN_CNP) tick_stat_node(st, "CNPs", qp, FALSE);
  if (ti->icrc_status == PROTO_CHECKSUM_E_BAD) tick_stat_node(st, "iCRC failures", qp, FALSE);
  if (ti->malformed) tick_stat_node(st, "Malformed", qp, FALSE);
  return TAP_PACKET_REDRAW;
}

static void register_listeners(void) {
  register_stat_tap_ui(&stat_ui, NULL);
  stats_tree_register_plugin("ornic", "ornic", "ORNIC QP pairs", 0, tree_packet, tree_init, NULL);
}

void ornic_register_stats(void) {
  static tap_plugin plug = {register_listeners};
  tap_register_plugin(&plug);
}
