/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Service Response Time of ORNIC conversations through epan's SRT framework
 * (register_srt_table): Statistics > Service Response Time > ORNIC in the GUI
 * and `tshark -z ornic,srt[,FILTER]`, both drawn by Wireshark itself.
 *
 * The times are the analysis engine's (PROTOCOL.md 8.8), not measured again
 * here: a READ response Last/Only carries the READ's latency (request to the
 * response that ends it), an ACK that completes a WQE the WQE's completion
 * time (its first packet to that ACK). Rows are the kind of message; tables
 * are "All QP pairs" and one per conversation (QP pair). */
#include "ornic_diss.h"

#include <string.h>

#include <epan/srt_table.h>
#include <epan/tap.h>

/* Rows, in the order both tables list them. A READ response says whether its
 * READ was RC's or ORNIC's; an ACK names only the WQE it completes, whose
 * first packet's opcode this tap remembers (wqe_kinds) when it saw it. */
enum {
  P_READ,
  P_ORNIC_READ,
  P_SEND,
  P_WRITE,
  P_READ_WQE,
  P_ATOMIC,
  P_ORNIC_WRITE,
  P_ORNIC_READ_WQE,
  P_RC_UNSEEN,
  P_ORNIC_UNSEEN,
  P_N
};
static const char *const proc_names[P_N] = {"RDMA READ -> last response",
                                            "ORNIC READ -> last response",
                                            "SEND -> ACK",
                                            "RDMA WRITE -> ACK",
                                            "RDMA READ -> ACK",
                                            "Atomic -> ACK",
                                            "ORNIC WRITE -> ACK",
                                            "ORNIC READ -> ACK",
                                            "RC WQE, request not seen -> ACK",
                                            "ORNIC WQE, request not seen -> ACK"};

/* (verdict conversation, direction, WQE number) -> P_* + 1 of its first
 * request packet. Per capture, shared by the listeners: every listener that
 * sees a request records the same thing. Emptied when a listener starts. */
static GHashTable *wqe_kinds;

static guint64 wqe_key(guint32 conv, guint8 dir, guint32 wqe) {
  return (guint64)conv << 33 | (guint64)(dir & 1u) << 32 | wqe;
}

static gboolean is_ornic(guint8 opcode) {
  return ornic_opcode_transport(opcode) == ORNIC_TRANSPORT_ORNIC;
}

/* The row of a WQE completion, by the opcode of the WQE's request; -1 for
 * a request that starts no timed message. */
static int wqe_proc(guint8 opcode) {
  guint16 fl = ornic_opcode_info_get(opcode)->flags;
  if (fl & ORNIC_OPF_SEND) return P_SEND;
  if (fl & ORNIC_OPF_WRITE) return is_ornic(opcode) ? P_ORNIC_WRITE : P_WRITE;
  if (fl & ORNIC_OPF_READ) return is_ornic(opcode) ? P_ORNIC_READ_WQE : P_READ_WQE;
  if (fl & ORNIC_OPF_ATOMIC) return P_ATOMIC;
  return -1;
}

static void remember_request(const ornic_an_verdict *v, guint8 opcode) {
  int proc = wqe_proc(opcode);
  if (proc < 0 || !(v->flags & ORNIC_AN_WQE) || !v->wqe) return;
  guint64 *k = g_new(guint64, 1);
  *k = wqe_key(v->conv, v->dir, v->wqe);
  g_hash_table_replace(wqe_kinds, k, GINT_TO_POINTER(proc + 1));
}

/* The row of a timed packet (ORNIC_AN_MSG_TIME). */
static int sample_proc(const ornic_an_verdict *v, guint8 opcode) {
  if (!(v->flags & ORNIC_AN_WQE_DONE)) return is_ornic(opcode) ? P_ORNIC_READ : P_READ;
  guint64 k = wqe_key(v->conv, v->dir, v->wqe_completed);
  gpointer kind = g_hash_table_lookup(wqe_kinds, &k);
  if (kind) return GPOINTER_TO_INT(kind) - 1;
  return is_ornic(opcode) ? P_ORNIC_UNSEEN : P_RC_UNSEEN;
}

/* ---- tables ------------------------------------------------------------------------ */

/* Names the framework keeps pointers to without owning them: interned. The
 * procedure column's title names the table's conversation, as tshark prints
 * no table name, only that title above each table's rows. */
static srt_stat_table *new_table(GArray *srt_array, const char *name, guint32 conv) {
  name = g_intern_string(name);
  srt_stat_table *t =
      init_srt_table(name, NULL, srt_array, P_N, name, NULL, GUINT_TO_POINTER(conv));
  for (int i = 0; i < P_N; i++) init_srt_table_row(t, i, proc_names[i]);
  return t;
}

static guint32 table_conv(const srt_stat_table *t) {
  return GPOINTER_TO_UINT(t->table_specific_data);
}

static void conv_name(const ornic_an_conv *c, char *out, size_t cap) {
  char label[200];
  ornic_an_conv_label(c, label, sizeof(label));
  g_snprintf(out, (gulong)cap, "Conv %u: %s", c->id, label);
}

/* The table of final conversation c, made on its first sample; renamed when
 * the engine has learnt its QPs since. */
static srt_stat_table *conv_table(GArray *srt_array, const ornic_an_conv *c) {
  char name[256];
  conv_name(c, name, sizeof(name));
  for (guint i = 1; i < srt_array->len; i++) {
    srt_stat_table *t = g_array_index(srt_array, srt_stat_table *, i);
    if (table_conv(t) != c->id) continue;
    if (strcmp(t->name, name) != 0) t->name = t->proc_column_name = g_intern_string(name);
    return t;
  }
  return new_table(srt_array, name, c->id);
}

static void timestat_merge(timestat_t *to, const timestat_t *from) {
  if (!from->num) return;
  if (!to->num || nstime_cmp(&from->min, &to->min) < 0) {
    to->min = from->min;
    to->min_num = from->min_num;
  }
  if (!to->num || nstime_cmp(&from->max, &to->max) > 0) {
    to->max = from->max;
    to->max_num = from->max_num;
  }
  nstime_add(&to->tot, &from->tot);
  to->num += from->num;
}

/* One-pass tshark taps packets before the engine pairs a conversation's QPs:
 * a conversation merged into another since its table was made gives its
 * samples to that one's table and goes. (The GUI taps after the first pass,
 * when every merge is known: no table is made for a merged one.) Safe while
 * tapping: tshark and the GUI read the array only to draw. */
static void fold_merged(GArray *srt_array, const ornic_analysis *a) {
  for (guint i = srt_array->len; i-- > 1;) {
    srt_stat_table *t = g_array_index(srt_array, srt_stat_table *, i);
    const ornic_an_conv *f = ornic_analysis_conv_final(a, table_conv(t));
    if (!f || f->id == table_conv(t)) continue;
    srt_stat_table *to = conv_table(srt_array, f);
    for (int p = 0; p < P_N; p++) timestat_merge(&to->procedures[p].stats, &t->procedures[p].stats);
    g_array_remove_index(srt_array, i);
    free_srt_table_data(t);
    g_free(t);
  }
}

/* ---- the tap ----------------------------------------------------------------------- */

static void add_sample(srt_stat_table *t, int proc, guint64 ns, packet_info *pinfo) {
  nstime_t took = {(time_t)(ns / 1000000000u), (int)(ns % 1000000000u)}, start;
  /* The framework times from a request's timestamp to this packet's. */
  nstime_delta(&start, &pinfo->abs_ts, &took);
  add_srt_table_data(t, proc, &start, pinfo);
}

static tap_packet_status srt_packet(void *pss, packet_info *pinfo, epan_dissect_t *edt _U_,
                                    const void *data, tap_flags_t flags _U_) {
  srt_data_t *d = pss;
  const ornic_tap_info *ti = data;
  const ornic_analysis *a = ornic_analysis_engine();
  if (!ti->an || !ti->an->v.conv || !a) return TAP_PACKET_DONT_REDRAW;
  const ornic_an_verdict *v = &ti->an->v;
  if (v->role == ORNIC_AN_ROLE_REQUEST) remember_request(v, ti->opcode);
  if (!(v->flags & ORNIC_AN_MSG_TIME)) return TAP_PACKET_DONT_REDRAW;
  const ornic_an_conv *f = ornic_analysis_conv_final(a, v->conv);
  if (!f) return TAP_PACKET_DONT_REDRAW;
  if (f->id != v->conv) fold_merged(d->srt_array, a);
  int proc = sample_proc(v, ti->opcode);
  add_sample(g_array_index(d->srt_array, srt_stat_table *, 0), proc, v->msg_time_ns, pinfo);
  add_sample(conv_table(d->srt_array, f), proc, v->msg_time_ns, pinfo);
  return TAP_PACKET_REDRAW;
}

/* A new listener (a dialog, a -z): the first table, which tshark's draw
 * reads even when no packet was timed. */
static void srt_init(struct register_srt *srt _U_, GArray *srt_array) {
  if (wqe_kinds) g_hash_table_destroy(wqe_kinds);
  wqe_kinds = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  new_table(srt_array, "All QP pairs", 0);
}

void ornic_register_srt(void) {
  /* Tables are made as conversations appear: no fixed maximum. */
  register_srt_table(proto_ornic, "ornic", 1, srt_packet, srt_init, NULL);
}
