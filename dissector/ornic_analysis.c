/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's side of the conversation analysis: a thin adapter on
 * libornicproto's engine (ornic/analysis.h), which holds every rule.
 *
 * One engine per capture file: created by the init routine with the
 * preferences' PMTU and OTD, freed by the cleanup routine, re-created when
 * the preferences change. In the first pass each packet is fed once, in
 * capture order; its verdict is stored packed (file scope), so the second
 * pass and random access show the same. The engine reports later
 * resolutions (an ACK covering an earlier packet) through cfg.on_acked.
 *
 * Memory: a verdict is about 250 bytes, most of them zero for any one
 * packet. The record keeps the fields that are not zero, as varints behind a
 * mask of which they are (typically 30-60 bytes), and one index, sorted by
 * frame (frame numbers increase in the first pass), finds it by bisection:
 * no per-packet proto data list. Each dissection unpacks it into the packet
 * pool. */
#include "ornic_diss.h"

#include <stddef.h>

static ornic_analysis *engine;

/* One packet's stored verdict. */
typedef struct {
  guint32 frame, acked_in;
  guint32 layer; /* pinfo->curr_layer_num: a frame may hold more than one RoCE packet */
  guint8 once;
  guint8 data[]; /* the mask (varint), then each field it names (varint) */
} packed_rec;

/* Every analysed packet's record, in capture order. */
static GPtrArray *idx_recs; /* packed_rec * */

/* (conversation, direction) -> ORNIC_ONCE_* kinds already shown. */
static GHashTable *once_seen;

/* The first record of `frame`, by bisection (index of the next one if none). */
static guint first_at(guint64 frame) {
  guint lo = 0, hi = idx_recs->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (((packed_rec *)g_ptr_array_index(idx_recs, mid))->frame < frame)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The record of frame's packet at layer (any layer: G_MAXUINT32), or NULL. */
static packed_rec *find_record(guint64 frame, guint32 layer) {
  if (!idx_recs || frame > G_MAXUINT32) return NULL;
  for (guint i = first_at(frame); i < idx_recs->len; i++) {
    packed_rec *r = g_ptr_array_index(idx_recs, i);
    if (r->frame != frame) break;
    if (layer == G_MAXUINT32 || r->layer == layer) return r;
  }
  return NULL;
}

/* ---- packing ------------------------------------------------------------------- */

/* The verdict's fields, in packing order (ornic/analysis.h; the reserved
 * tail is not stored), then the QPs the plugin notes (ornic_pkt). */
#define VF(m) \
  { offsetof(ornic_pkt, m), sizeof(((ornic_pkt *)0)->m) }
static const struct {
  guint16 off;
  guint8 size;
} fields[] = {VF(v.flags),
              VF(v.conv),
              VF(v.dir),
              VF(v.role),
              VF(v.pmtu),
              VF(v.hpsn),
              VF(v.epsn),
              VF(v.ooo_distance),
              VF(v.first_frame),
              VF(v.asked_frame),
              VF(v.hole_first),
              VF(v.hole_count),
              VF(v.addr),
              VF(v.wqe),
              VF(v.wqe_start_psn),
              VF(v.wqe_last_psn),
              VF(v.wqe_npkts),
              VF(v.wqe_pkt),
              VF(v.wqe_start_addr),
              VF(v.wqe_len),
              VF(v.wqe_frame),
              VF(v.read_frame),
              VF(v.ack_prev),
              VF(v.ack_newly),
              VF(v.ack_frame_of),
              VF(v.not_captured_first),
              VF(v.not_captured),
              VF(v.loss_first_psn),
              VF(v.loss_count),
              VF(v.msn_delta),
              VF(v.wqe_completed),
              VF(v.nak_lost),
              VF(v.since_prev_ns),
              VF(v.ack_rtt_ns),
              VF(v.msg_time_ns),
              VF(req_qp),
              VF(resp_qp)};
#undef VF
G_STATIC_ASSERT(G_N_ELEMENTS(fields) <= 64);

static guint64 field_get(const ornic_pkt *p, guint i) {
  const guint8 *at = (const guint8 *)p + fields[i].off;
  guint8 b8;
  guint32 b32;
  guint64 b64 = 0;
  switch (fields[i].size) {
  case 1: memcpy(&b8, at, 1); return b8;
  case 4: memcpy(&b32, at, 4); return b32;
  default: memcpy(&b64, at, 8); return b64;
  }
}

static void field_set(ornic_pkt *p, guint i, guint64 x) {
  guint8 *at = (guint8 *)p + fields[i].off;
  guint8 b8 = (guint8)x;
  guint32 b32 = (guint32)x;
  switch (fields[i].size) {
  case 1: memcpy(at, &b8, 1); break;
  case 4: memcpy(at, &b32, 4); break;
  default: memcpy(at, &x, 8); break;
  }
}

static guint put_varint(guint8 *out, guint64 x) {
  guint n = 0;
  do {
    out[n++] = (guint8)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));
    x >>= 7;
  } while (x);
  return n;
}

static guint64 get_varint(const guint8 **in) {
  guint64 x = 0;
  for (guint shift = 0;; shift += 7) {
    guint8 b = *(*in)++;
    x |= (guint64)(b & 0x7f) << shift;
    if (!(b & 0x80)) return x;
  }
}

/* The QPs are stored + 1, so that 0 (omitted) means unknown (G_MAXUINT32). */
static packed_rec *pack(const ornic_pkt *p, guint32 frame, guint32 layer) {
  guint8 buf[10 * (1 + G_N_ELEMENTS(fields))];
  ornic_pkt q = *p;
  q.req_qp += 1;
  q.resp_qp += 1;
  guint64 mask = 0;
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS(fields); i++)
    if (field_get(&q, i)) mask |= G_GUINT64_CONSTANT(1) << i;
  n += put_varint(buf + n, mask);
  for (guint i = 0; i < G_N_ELEMENTS(fields); i++)
    if (mask >> i & 1) n += put_varint(buf + n, field_get(&q, i));
  packed_rec *r = wmem_alloc(wmem_file_scope(), sizeof(packed_rec) + n);
  r->frame = frame;
  r->layer = layer;
  r->acked_in = p->acked_in;
  r->once = p->once;
  memcpy(r->data, buf, n);
  return r;
}

static ornic_pkt *unpack(const packed_rec *r, wmem_allocator_t *pool) {
  ornic_pkt *p = wmem_new0(pool, ornic_pkt);
  const guint8 *in = r->data;
  guint64 mask = get_varint(&in);
  for (guint i = 0; i < G_N_ELEMENTS(fields); i++)
    if (mask >> i & 1) field_set(p, i, get_varint(&in));
  p->req_qp -= 1;
  p->resp_qp -= 1;
  p->acked_in = r->acked_in;
  p->once = r->once;
  return p;
}

/* The packet being analysed, not in the index yet: an ACK of itself waits here. */
static guint64 cur_frame, cur_acked;

static void on_acked(void *user _U_, uint64_t data_frame, uint64_t ack_frame) {
  if (data_frame == cur_frame) {
    if (!cur_acked) cur_acked = ack_frame;
    return;
  }
  packed_rec *p = find_record(data_frame, G_MAXUINT32);
  if (p && !p->acked_in && ack_frame <= G_MAXUINT32) p->acked_in = (guint32)ack_frame;
}

static void state_free(void) {
  if (engine) ornic_analysis_free(engine);
  engine = NULL;
  if (idx_recs) g_ptr_array_free(idx_recs, TRUE);
  if (once_seen) g_hash_table_destroy(once_seen);
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

const ornic_pkt *ornic_analysis_stored(packet_info *pinfo) {
  packed_rec *r = find_record(pinfo->num, G_MAXUINT32);
  return r ? unpack(r, pinfo->pool) : NULL;
}

const ornic_pkt *ornic_analysis_packet(packet_info *pinfo, const ornic_an_input *in,
                                       guint32 layer) {
  guint32 key = layer;
  packed_rec *r = find_record(pinfo->num, key);
  if (r) return unpack(r, pinfo->pool);
  if (PINFO_FD_VISITED(pinfo) || !engine || !ornic_pref_analyze) return NULL;
  ornic_pkt *p;
  ornic_an_verdict v;
  cur_frame = pinfo->num;
  cur_acked = 0;
  int rc = ornic_analysis_add(engine, in, &v);
  cur_frame = 0;
  if (rc != ORNIC_OK || (v.role == ORNIC_AN_ROLE_NONE && !(v.flags & ORNIC_AN_UNTRACKED)))
    return NULL;
  p = wmem_new0(pinfo->pool, ornic_pkt);
  p->v = v;
  p->acked_in = cur_acked <= G_MAXUINT32 ? (guint32)cur_acked : 0;
  p->once = first_of_kind(&v);
  note_qps(p);
  g_ptr_array_add(idx_recs, pack(p, pinfo->num, key));
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
