/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's side of the conversation analysis: a thin adapter on
 * libornicproto's engine (ornic/analysis.h), which holds every rule.
 *
 * One engine per capture file: created by the init routine with the
 * preferences' PMTU and OTD, freed by the cleanup routine, re-created when
 * the preferences change. In the first pass each packet is fed once, in
 * capture order; its verdict is stored with p_add_proto_data (file scope), so
 * the second pass and random access show the same. The engine reports later
 * resolutions (an ACK covering an earlier packet) through cfg.on_acked; a
 * sorted index from frame number to stored record finds that packet. */
#include "ornic_diss.h"

#include <epan/proto_data.h>

static ornic_analysis *engine;

/* Frame number -> record of every analysed packet, in capture order (frame
 * numbers increase in the first pass): two parallel arrays, 12 bytes per
 * packet, searched by bisection. */
static GArray *idx_frames;  /* guint32 */
static GPtrArray *idx_recs; /* ornic_pkt * */

/* (conversation, direction) -> ORNIC_ONCE_* kinds already shown. */
static GHashTable *once_seen;

static ornic_pkt *find_record(guint64 frame) {
  if (!idx_frames || frame > G_MAXUINT32) return NULL;
  const guint32 *fr = (const guint32 *)(void *)idx_frames->data;
  guint lo = 0, hi = idx_frames->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (fr[mid] < frame)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < idx_frames->len && fr[lo] == frame ? g_ptr_array_index(idx_recs, lo) : NULL;
}

/* The packet being analysed, not in the index yet: an ACK of itself waits here. */
static guint64 cur_frame, cur_acked;

static void on_acked(void *user _U_, uint64_t data_frame, uint64_t ack_frame) {
  if (data_frame == cur_frame) {
    if (!cur_acked) cur_acked = ack_frame;
    return;
  }
  ornic_pkt *p = find_record(data_frame);
  if (p && !p->acked_in && ack_frame <= G_MAXUINT32) p->acked_in = (guint32)ack_frame;
}

static void state_free(void) {
  if (engine) ornic_analysis_free(engine);
  engine = NULL;
  if (idx_frames) g_array_free(idx_frames, TRUE);
  if (idx_recs) g_ptr_array_free(idx_recs, TRUE);
  if (once_seen) g_hash_table_destroy(once_seen);
  idx_frames = NULL;
  idx_recs = NULL;
  once_seen = NULL;
}

static void state_new(void) {
  if (!ornic_pref_analyze) return; /* ornic_analysis_packet then returns NULL */
  ornic_analysis_cfg cfg;
  ornic_analysis_cfg_init(&cfg);
  cfg.otd = ornic_pref_otd;
  cfg.pmtu = (uint32_t)ornic_pref_pmtu;
  cfg.on_acked = on_acked;
  engine = ornic_analysis_new(&cfg);
  idx_frames = g_array_new(FALSE, FALSE, sizeof(guint32));
  idx_recs = g_ptr_array_new();
  once_seen = g_hash_table_new(g_direct_hash, g_direct_equal);
}

static void analysis_init(void) {
  state_free();
  state_new();
}

void ornic_analysis_prefs_changed(void) {
  /* Wireshark dissects the file again after a preference change; an engine
   * in use keeps nothing from the old configuration, and turning the
   * analysis on or off takes effect at once. */
  analysis_init();
}

void ornic_analysis_register(void) {
  register_init_routine(analysis_init);
  register_cleanup_routine(state_free);
}

const ornic_analysis *ornic_analysis_engine(void) { return engine; }

/* The first packet of each capture-artefact kind in a conversation direction
 * carries its expert info; the others only the field. */
static guint8 first_of_kind(const ornic_an_verdict *v) {
  guint8 kinds = 0;
  if (v->flags & ORNIC_AN_NOT_CAPTURED) kinds |= ORNIC_ONCE_NOT_CAPTURED;
  if (v->flags & ORNIC_AN_ADDR_UNKNOWN) kinds |= ORNIC_ONCE_ADDR_UNKNOWN;
  if (v->flags & ORNIC_AN_PMTU_UNKNOWN) kinds |= ORNIC_ONCE_PMTU_UNKNOWN;
  if (v->flags & ORNIC_AN_BEFORE_CAPTURE) kinds |= ORNIC_ONCE_BEFORE_CAPTURE;
  if (!kinds) return 0;
  gpointer key = GUINT_TO_POINTER((v->conv << 1) | (v->dir & 1u));
  guint8 seen = (guint8)GPOINTER_TO_UINT(g_hash_table_lookup(once_seen, key));
  guint8 fresh = kinds & (guint8)~seen;
  if (fresh) g_hash_table_insert(once_seen, key, GUINT_TO_POINTER((guint)(seen | fresh)));
  return fresh;
}

static void note_qps(ornic_pkt *p) {
  p->req_qp = p->resp_qp = G_MAXUINT32;
  const ornic_an_conv *c = ornic_analysis_conv(engine, p->v.conv);
  if (!c) return;
  /* Requests of direction A->B go from host A's QP to host B's. */
  gboolean ab = p->v.dir == ORNIC_AN_DIR_AB;
  if (ab ? c->qp_a_known : c->qp_b_known) p->req_qp = ab ? c->qp_a : c->qp_b;
  if (ab ? c->qp_b_known : c->qp_a_known) p->resp_qp = ab ? c->qp_b : c->qp_a;
}

const ornic_pkt *ornic_analysis_packet(packet_info *pinfo, const ornic_an_input *in) {
  guint32 key = pinfo->curr_layer_num;
  ornic_pkt *p = p_get_proto_data(wmem_file_scope(), pinfo, proto_ornic, key);
  if (p || PINFO_FD_VISITED(pinfo) || !engine || !ornic_pref_analyze) return p;
  ornic_an_verdict v;
  cur_frame = pinfo->num;
  cur_acked = 0;
  int rc = ornic_analysis_add(engine, in, &v);
  cur_frame = 0;
  if (rc != ORNIC_OK || (v.role == ORNIC_AN_ROLE_NONE && !(v.flags & ORNIC_AN_UNTRACKED)))
    return NULL;
  p = wmem_new(wmem_file_scope(), ornic_pkt);
  p->v = v;
  p->acked_in = cur_acked <= G_MAXUINT32 ? (guint32)cur_acked : 0;
  p->once = first_of_kind(&v);
  note_qps(p);
  p_add_proto_data(wmem_file_scope(), pinfo, proto_ornic, key, p);
  /* A frame holds one RoCE packet: the index keeps the first analysed. */
  if (!idx_frames->len || g_array_index(idx_frames, guint32, idx_frames->len - 1) < pinfo->num) {
    g_array_append_val(idx_frames, pinfo->num);
    g_ptr_array_add(idx_recs, p);
  }
  return p;
}

void ornic_analysis_label(const ornic_pkt *an, char *out, size_t cap) {
  const ornic_an_conv *c = engine ? ornic_analysis_conv(engine, an->v.conv) : NULL;
  if (!c) {
    g_snprintf(out, (gulong)cap, "conversation %u", an->v.conv);
    return;
  }
  /* The QPs as known when the packet was analysed: one pass and two agree. */
  ornic_an_conv k = *c;
  gboolean ab = an->v.dir == ORNIC_AN_DIR_AB;
  guint32 qa = ab ? an->req_qp : an->resp_qp, qb = ab ? an->resp_qp : an->req_qp;
  k.qp_a_known = qa != G_MAXUINT32;
  k.qp_b_known = qb != G_MAXUINT32;
  k.qp_a = k.qp_a_known ? qa : 0;
  k.qp_b = k.qp_b_known ? qb : 0;
  ornic_an_conv_label(&k, out, cap);
}
