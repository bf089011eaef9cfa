/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's side of the conversation analysis: a thin adapter on
 * libornicproto's engine (ornic/analysis.h), which holds every rule.
 *
 * One engine per capture file: created by the init routine with the
 * preferences' PMTU, OTD and memory budget, freed by the cleanup routine,
 * re-created when the preferences change. In the first pass each packet is
 * fed once, in capture order; its verdict is stored packed (file scope), so
 * the second pass and random access show the same. The engine reports later
 * resolutions (an ACK covering an earlier packet) through cfg.on_acked.
 *
 * Memory (dissector/README.md "Cost"): a verdict is about 250 bytes, most of
 * them zero or shared with other packets, and one is kept for every analysed
 * packet, so how it is stored is the plugin's memory per frame:
 *  - what a packet shares with many others is stored once, in two
 *    dictionaries: its "shape" (flags, role, PMTU, layer, which fields follow)
 *    and its "context" (conversation, direction, QPs and its WQE's fields);
 *  - every other field is stored as its residual from what the packet itself
 *    predicts (hpsn = PSN - 1, wqe_pkt = PSN - Start_PSN, addr = Start_Addr +
 *    wqe_pkt * PMTU, frame numbers relative to the packet's own), as a varint
 *    when not zero. A prediction reads only the packet's PSN and frame, the
 *    shape, the context and fields earlier in the list, so unpacking redoes
 *    it exactly: the residual of a wrong guess is just longer;
 *  - records are appended to large chunks (no allocation, header or pointer
 *    per packet) in capture order, and every block of BLOCK_RECS records has
 *    one index entry (its first frame), found by bisection and then scanned;
 *    sequential reads (tshark -2) continue from the last one found.
 * A record then takes 6.3 bytes on average on the README's capture.
 * acked_in, which the engine sets later (on_acked), has a fixed 2-byte slot
 * in requests' records (the ACK's distance in frames); any other case goes
 * to a small side table. Each dissection unpacks the record into the packet
 * pool. */
#include "ornic_diss.h"

#include <stddef.h>

static ornic_analysis *engine;
static ornic_analysis_cfg engine_cfg; /* what engine was created with */

/* ---- dictionaries -------------------------------------------------------------- */

/* A record's shape: what most packets of a kind share. Keys are compared as
 * bytes, so they are zeroed before being filled (no stray padding). */
typedef struct {
  guint32 flags, pmtu, layer;
  guint32 mask; /* the residuals the record carries (bit i: rfields[i]) */
  guint8 role;
  guint8 slot; /* the record has an acked_in slot */
  guint8 pad_[2];
} shape_key;

/* A record's context: its conversation direction and WQE, shared by every
 * packet of that WQE while the QPs known stay the same. */
typedef struct {
  guint64 wqe_start_addr, wqe_frame;
  guint32 conv, wqe, wqe_start_psn, wqe_last_psn, wqe_npkts, wqe_len;
  guint32 req_qp, resp_qp; /* G_MAXUINT32: unknown */
  guint32 dir;
  guint32 pad_;
} ctx_key;

G_STATIC_ASSERT(sizeof(shape_key) % 4 == 0 && sizeof(ctx_key) % 4 == 0);

/* Distinct keys, each stored once and named by its index. */
typedef struct {
  GHashTable *ids; /* key (owned by keys) -> index + 1 */
  GPtrArray *keys; /* index -> key */
  gsize size;
} dict;

static guint words_hash(gconstpointer k, gsize size) {
  const guint32 *w = k;
  guint32 h = 0x811c9dc5u;
  for (gsize i = 0; i < size / 4; i++) h = (h ^ w[i]) * 0x01000193u;
  return h ^ (h >> 16);
}
static guint shape_hash(gconstpointer k) { return words_hash(k, sizeof(shape_key)); }
static gboolean shape_equal(gconstpointer a, gconstpointer b) {
  return !memcmp(a, b, sizeof(shape_key));
}
static guint ctx_hash(gconstpointer k) { return words_hash(k, sizeof(ctx_key)); }
static gboolean ctx_equal(gconstpointer a, gconstpointer b) {
  return !memcmp(a, b, sizeof(ctx_key));
}

static void dict_init(dict *d, gsize size, GHashFunc hash, GEqualFunc eq) {
  d->ids = g_hash_table_new(hash, eq);
  d->keys = g_ptr_array_new_with_free_func(g_free);
  d->size = size;
}

static void dict_free(dict *d) {
  if (d->ids) g_hash_table_destroy(d->ids);
  if (d->keys) g_ptr_array_free(d->keys, TRUE);
  d->ids = NULL;
  d->keys = NULL;
}

static guint dict_id(dict *d, const void *key) {
  gpointer id = g_hash_table_lookup(d->ids, key);
  if (id) return GPOINTER_TO_UINT(id) - 1;
  void *copy = g_malloc(d->size);
  memcpy(copy, key, d->size);
  g_ptr_array_add(d->keys, copy);
  g_hash_table_insert(d->ids, copy, GUINT_TO_POINTER(d->keys->len));
  return d->keys->len - 1;
}

static dict shapes, ctxs;

/* ---- varints and residuals ------------------------------------------------------- */

static guint put_varint(guint8 *out, guint64 x) {
  guint n = 0;
  while (x > 0x7f) {
    out[n++] = (guint8)(x | 0x80);
    x >>= 7;
  }
  out[n++] = (guint8)x;
  return n;
}

static guint64 get_varint(const guint8 **in) {
  const guint8 *p = *in;
  guint64 x = *p & 0x7f;
  for (guint shift = 7; *p++ & 0x80; shift += 7) x |= (guint64)(*p & 0x7f) << shift;
  *in = p;
  return x;
}

/* Signed differences as small unsigned numbers: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ... */
static guint64 zigzag(guint64 d) { return (d << 1) ^ (0 - (d >> 63)); }
static guint64 unzigzag(guint64 z) { return (z >> 1) ^ (0 - (z & 1)); }

#define PSN_MASK 0xffffffu

/* How a field is stored: kind, and (for SAME and NEAR) the value predicted. */
enum {
  RAW,  /* as is: most often 0, then not stored */
  SAME, /* XOR the prediction: 0 when it is exact */
  NEAR, /* the difference from the prediction, zigzagged: small when close */
  FRAME /* a frame number: 0 (none) stays 0, else the zigzagged distance from the packet's
         * own frame, + 1. Frames are < 2^32 (pinfo->num), so + 1 does not wrap */
};
typedef guint64 (*predict_fn)(const ornic_pkt *p, guint32 psn);

static guint64 predict_wqe_pkt(const ornic_pkt *p, guint32 psn) {
  return p->v.flags & ORNIC_AN_WQE ? (psn - p->v.wqe_start_psn) & PSN_MASK : 0;
}
static guint64 predict_addr(const ornic_pkt *p, guint32 psn _U_) {
  return p->v.flags & ORNIC_AN_ADDR ? p->v.wqe_start_addr + (guint64)p->v.wqe_pkt * p->v.pmtu : 0;
}
static guint64 predict_hpsn(const ornic_pkt *p, guint32 psn) {
  return p->v.flags & ORNIC_AN_SEQ ? (psn - 1) & PSN_MASK : 0;
}
static guint64 predict_epsn(const ornic_pkt *p, guint32 psn) {
  return p->v.flags & ORNIC_AN_SEQ ? (psn + 1) & PSN_MASK : 0;
}
static guint64 predict_ooo(const ornic_pkt *p, guint32 psn) {
  return p->v.flags & ORNIC_AN_OOO ? (p->v.hpsn - psn) & PSN_MASK : 0;
}
static guint64 predict_ack_prev(const ornic_pkt *p, guint32 psn) {
  return p->v.flags & ORNIC_AN_ACK ? (psn - p->v.ack_newly) & PSN_MASK : 0;
}

/* The verdict's fields that are neither in the shape nor in the context, in
 * packing order: a prediction reads only fields before its own. */
#define RF(m, kind, predict) \
  { offsetof(ornic_pkt, m), sizeof(((ornic_pkt *)0)->m), kind, predict }
static const struct {
  guint16 off;
  guint8 size, kind;
  predict_fn predict;
} rfields[] = {RF(v.wqe_pkt, SAME, predict_wqe_pkt),
               RF(v.addr, NEAR, predict_addr),
               RF(v.hpsn, NEAR, predict_hpsn),
               RF(v.epsn, NEAR, predict_epsn),
               RF(v.ooo_distance, SAME, predict_ooo),
               RF(v.first_frame, FRAME, NULL),
               RF(v.asked_frame, FRAME, NULL),
               RF(v.hole_first, RAW, NULL),
               RF(v.hole_count, RAW, NULL),
               RF(v.read_frame, FRAME, NULL),
               RF(v.ack_newly, RAW, NULL),
               RF(v.ack_prev, NEAR, predict_ack_prev),
               RF(v.ack_frame_of, FRAME, NULL),
               RF(v.not_captured_first, RAW, NULL),
               RF(v.not_captured, RAW, NULL),
               RF(v.loss_first_psn, RAW, NULL),
               RF(v.loss_count, RAW, NULL),
               RF(v.msn_delta, RAW, NULL),
               RF(v.wqe_completed, RAW, NULL),
               RF(v.nak_lost, RAW, NULL),
               RF(v.since_prev_ns, RAW, NULL),
               RF(v.ack_rtt_ns, RAW, NULL),
               RF(v.msg_time_ns, RAW, NULL),
               RF(in_flight, RAW, NULL)};
#undef RF
G_STATIC_ASSERT(G_N_ELEMENTS(rfields) <= 32);
/* Every verdict field is in rfields, the shape or the context: a field added
 * to ornic_an_verdict (from its reserved tail) must be added here too. */
G_STATIC_ASSERT(offsetof(ornic_an_verdict, reserved) ==
                offsetof(ornic_an_verdict, msg_time_ns) + sizeof(guint64));

static guint64 field_get(const ornic_pkt *p, guint i) {
  const guint8 *at = (const guint8 *)p + rfields[i].off;
  guint32 b32;
  guint64 b64;
  if (rfields[i].size == 4) {
    memcpy(&b32, at, 4);
    return b32;
  }
  memcpy(&b64, at, 8);
  return b64;
}

static void field_set(ornic_pkt *p, guint i, guint64 x) {
  guint8 *at = (guint8 *)p + rfields[i].off;
  guint32 b32 = (guint32)x;
  if (rfields[i].size == 4)
    memcpy(at, &b32, 4);
  else
    memcpy(at, &x, 8);
}

/* 32-bit fields differ modulo 2^32: sign-extended, a small negative stays small. */
static guint64 diff(guint i, guint64 a, guint64 b) {
  return rfields[i].size == 4 ? (guint64)(gint64)(gint32)(guint32)(a - b) : a - b;
}

static guint64 residual(const ornic_pkt *p, guint i, guint32 psn, guint32 frame) {
  guint64 x = field_get(p, i);
  switch (rfields[i].kind) {
  case SAME: return x ^ rfields[i].predict(p, psn);
  case NEAR: return zigzag(diff(i, x, rfields[i].predict(p, psn)));
  case FRAME: return x ? zigzag((guint64)frame - x) + 1 : 0;
  default: return x;
  }
}

/* The inverse of residual(), into p, whose earlier fields are set. */
static void restore(ornic_pkt *p, guint i, guint64 r, guint32 psn, guint32 frame) {
  guint64 x = r;
  switch (rfields[i].kind) {
  case SAME: x = r ^ rfields[i].predict(p, psn); break;
  case NEAR: x = rfields[i].predict(p, psn) + unzigzag(r); break;
  case FRAME: x = r ? (guint64)frame - unzigzag(r - 1) : 0; break;
  default: break;
  }
  field_set(p, i, x);
}

/* ---- records ---------------------------------------------------------------------- */

/* A record: varints frame - previous record's frame (0 for a block's first),
 * shape id, context id; the acked_in slot (2 bytes, little endian) if the
 * shape has one; then a varint per residual in the shape's mask. */
#define BLOCK_RECS 32
#define CHUNK_SIZE (256 * 1024)
#define REC_MAX (3 * 10 + 2 + G_N_ELEMENTS(rfields) * 10)
#define SLOT_OVERFLOW 0xffffu /* acked_in is in `overflow` */

typedef struct {
  guint32 first_frame, n;
  guint8 *at; /* its first record */
} block;

static GPtrArray *chunks; /* guint8[CHUNK_SIZE] */
static guint8 *chunk_at, *chunk_end;
static GArray *blocks;       /* block, in capture order */
static guint32 last_frame;   /* of the last record */
static GHashTable *overflow; /* record -> acked_in, when its slot cannot hold it */
/* (conversation, direction) -> 1 + the first PSN seen in that PSN space:
 * the base of relative PSNs, as TCP's relative sequence numbers. */
static GHashTable *psn_bases;

/* One record, read. */
typedef struct {
  guint32 frame;
  const shape_key *shape;
  const ctx_key *ctx;
  guint8 *rec, *slot; /* slot NULL: none */
  const guint8 *res;  /* its residuals */
} rec_view;

/* Reads the record at `at`, whose predecessor in its block has frame prev;
 * returns the next record's start. */
static guint8 *rec_read(guint8 *at, guint32 prev, rec_view *r) {
  const guint8 *in = at;
  r->rec = at;
  r->frame = prev + (guint32)get_varint(&in);
  r->shape = g_ptr_array_index(shapes.keys, get_varint(&in));
  r->ctx = g_ptr_array_index(ctxs.keys, get_varint(&in));
  r->slot = r->shape->slot ? (guint8 *)in : NULL;
  if (r->slot) in += 2;
  r->res = in;
  /* Past the residuals: a varint per bit of the mask. */
  for (guint32 m = r->shape->mask; m; m &= m - 1)
    while (*in++ & 0x80) continue;
  return (guint8 *)in;
}

/* Where the last search stopped: the first record of its frame, so a search
 * for that frame or a later one (tshark -2, the GUI scrolling) goes on from there. */
static struct {
  guint blk, i;
  guint8 *at;
  guint32 prev, frame;
} cursor;

static void cursor_set(guint blk, guint i, guint8 *at, guint32 prev, guint32 frame) {
  cursor.blk = blk;
  cursor.i = i;
  cursor.at = at;
  cursor.prev = prev;
  cursor.frame = frame;
}

static const block *block_at(guint b) { return &g_array_index(blocks, block, b); }

/* The record of frame's packet at layer (any layer: G_MAXUINT32). */
static gboolean find_record(guint64 frame, guint32 layer, rec_view *out) {
  if (!blocks || !blocks->len || frame > last_frame) return FALSE;
  guint b, i;
  guint8 *at;
  guint32 prev;
  if (cursor.at && cursor.frame <= frame &&
      (cursor.blk + 1 >= blocks->len || block_at(cursor.blk + 1)->first_frame >= frame)) {
    b = cursor.blk;
    i = cursor.i;
    at = cursor.at;
    prev = cursor.prev;
  } else {
    /* The last block that starts before frame holds its first record, or the
     * next one does. */
    guint lo = 0, hi = blocks->len;
    while (lo < hi) {
      guint mid = lo + (hi - lo) / 2;
      if (block_at(mid)->first_frame < frame)
        lo = mid + 1;
      else
        hi = mid;
    }
    b = lo ? lo - 1 : 0;
    i = 0;
    at = block_at(b)->at;
    prev = block_at(b)->first_frame;
  }
  gboolean first = TRUE;
  for (;;) {
    if (i == block_at(b)->n) {
      if (++b == blocks->len) return FALSE;
      i = 0;
      at = block_at(b)->at;
      prev = block_at(b)->first_frame;
    }
    rec_view r;
    guint8 *next = rec_read(at, prev, &r);
    if (r.frame > frame) {
      cursor_set(b, i, at, prev, r.frame);
      return FALSE;
    }
    if (r.frame == frame) {
      if (first) cursor_set(b, i, at, prev, r.frame);
      first = FALSE;
      if (layer == G_MAXUINT32 || r.shape->layer == layer) {
        *out = r;
        return TRUE;
      }
    }
    prev = r.frame;
    at = next;
    i++;
  }
}

static guint32 slot_get(const guint8 *s) { return (guint32)s[0] | (guint32)s[1] << 8; }
static void slot_put(guint8 *s, guint32 v) {
  s[0] = (guint8)v;
  s[1] = (guint8)(v >> 8);
}

/* Records the first ACK covering the record's packet. */
static void set_acked(const rec_view *r, guint32 ack) {
  if (r->slot) {
    if (slot_get(r->slot)) return;
    if (ack > r->frame && ack - r->frame < SLOT_OVERFLOW) {
      slot_put(r->slot, ack - r->frame);
      return;
    }
    slot_put(r->slot, SLOT_OVERFLOW);
  } else if (g_hash_table_contains(overflow, r->rec)) {
    return;
  }
  g_hash_table_insert(overflow, r->rec, GUINT_TO_POINTER(ack));
}

static guint32 get_acked(const rec_view *r) {
  guint32 s = r->slot ? slot_get(r->slot) : SLOT_OVERFLOW;
  if (s != SLOT_OVERFLOW) return s ? r->frame + s : 0;
  return GPOINTER_TO_UINT(g_hash_table_lookup(overflow, r->rec));
}

/* Appends p's record (frame numbers only increase in the first pass). */
static void pack(const ornic_pkt *p, guint32 frame, guint32 layer, guint32 psn) {
  guint64 res[G_N_ELEMENTS(rfields)];
  shape_key sk;
  ctx_key ck;
  memset(&sk, 0, sizeof(sk));
  memset(&ck, 0, sizeof(ck));
  for (guint i = 0; i < G_N_ELEMENTS(rfields); i++)
    if ((res[i] = residual(p, i, psn, frame)) != 0) sk.mask |= 1u << i;
  sk.flags = p->v.flags;
  sk.pmtu = p->v.pmtu;
  sk.layer = layer;
  sk.role = p->v.role;
  /* Requests are what ACKs cover. */
  sk.slot = p->v.role == ORNIC_AN_ROLE_REQUEST;
  ck.wqe_start_addr = p->v.wqe_start_addr;
  ck.wqe_frame = p->v.wqe_frame;
  ck.conv = p->v.conv;
  ck.wqe = p->v.wqe;
  ck.wqe_start_psn = p->v.wqe_start_psn;
  ck.wqe_last_psn = p->v.wqe_last_psn;
  ck.wqe_npkts = p->v.wqe_npkts;
  ck.wqe_len = p->v.wqe_len;
  ck.req_qp = p->req_qp;
  ck.resp_qp = p->resp_qp;
  ck.dir = p->v.dir;

  gboolean fresh = FALSE; /* a block never spans two chunks: a new chunk starts one */
  if (!chunk_at || chunk_end - chunk_at < (ptrdiff_t)REC_MAX) {
    chunk_at = g_malloc(CHUNK_SIZE);
    chunk_end = chunk_at + CHUNK_SIZE;
    g_ptr_array_add(chunks, chunk_at);
    fresh = TRUE;
  }
  block *bl = blocks->len ? &g_array_index(blocks, block, blocks->len - 1) : NULL;
  if (fresh || !bl || bl->n == BLOCK_RECS) {
    block nb = {frame, 0, chunk_at};
    g_array_append_val(blocks, nb);
    bl = &g_array_index(blocks, block, blocks->len - 1);
  }
  guint8 *at = chunk_at;
  at += put_varint(at, frame - (bl->n ? last_frame : bl->first_frame));
  at += put_varint(at, dict_id(&shapes, &sk));
  at += put_varint(at, dict_id(&ctxs, &ck));
  guint8 *slot = NULL;
  if (sk.slot) {
    slot = at;
    slot_put(at, 0);
    at += 2;
  }
  for (guint i = 0; i < G_N_ELEMENTS(rfields); i++)
    if (res[i]) at += put_varint(at, res[i]);
  bl->n++;
  last_frame = frame;
  if (p->acked_in) {
    rec_view r = {.frame = frame, .rec = chunk_at, .slot = slot};
    set_acked(&r, p->acked_in);
  }
  chunk_at = at;
}

/* The first packet (frame, layer) the engine did not track for the memory
 * budget, and for the conversation table: the one each that carries its
 * reason's expert note (ornic_pkt.first_untracked). Frame 0: none yet. */
typedef struct {
  guint32 frame, layer;
} pkt_at;
static pkt_at first_over_budget, first_table_full;

static pkt_at *untracked_first(guint32 flags) {
  if (!(flags & ORNIC_AN_UNTRACKED)) return NULL;
  return flags & ORNIC_AN_OVER_BUDGET ? &first_over_budget : &first_table_full;
}

static void note_untracked(guint32 frame, guint32 layer, guint32 flags) {
  pkt_at *f = untracked_first(flags);
  if (f && !f->frame) {
    f->frame = frame;
    f->layer = layer;
  }
}

static gboolean is_first_untracked(guint32 frame, guint32 layer, guint32 flags) {
  const pkt_at *f = untracked_first(flags);
  return f && f->frame == frame && f->layer == layer;
}

static ornic_pkt *unpack(const rec_view *r, guint32 psn, wmem_allocator_t *pool) {
  ornic_pkt *p = wmem_new0(pool, ornic_pkt);
  const shape_key *s = r->shape;
  const ctx_key *c = r->ctx;
  p->v.flags = s->flags;
  p->v.pmtu = s->pmtu;
  p->v.role = s->role;
  p->v.wqe_start_addr = c->wqe_start_addr;
  p->v.wqe_frame = c->wqe_frame;
  p->v.conv = c->conv;
  p->v.wqe = c->wqe;
  p->v.wqe_start_psn = c->wqe_start_psn;
  p->v.wqe_last_psn = c->wqe_last_psn;
  p->v.wqe_npkts = c->wqe_npkts;
  p->v.wqe_len = c->wqe_len;
  p->req_qp = c->req_qp;
  p->resp_qp = c->resp_qp;
  p->v.dir = (guint8)c->dir;
  const guint8 *in = r->res;
  for (guint i = 0; i < G_N_ELEMENTS(rfields); i++)
    restore(p, i, s->mask >> i & 1 ? get_varint(&in) : 0, psn, r->frame);
  p->acked_in = get_acked(r);
  p->first_untracked = is_first_untracked(r->frame, s->layer, s->flags);
  return p;
}

/* The packet being analysed, not stored yet: an ACK of itself waits here. */
static guint64 cur_frame, cur_acked;

static void on_acked(void *user _U_, uint64_t data_frame, uint64_t ack_frame) {
  if (data_frame == cur_frame) {
    if (!cur_acked) cur_acked = ack_frame;
    return;
  }
  rec_view r;
  if (ack_frame <= G_MAXUINT32 && find_record(data_frame, G_MAXUINT32, &r))
    set_acked(&r, (guint32)ack_frame);
}

static void state_free(void) {
  if (engine) ornic_analysis_free(engine);
  engine = NULL;
  if (chunks) g_ptr_array_free(chunks, TRUE);
  if (blocks) g_array_free(blocks, TRUE);
  if (overflow) g_hash_table_destroy(overflow);
  if (psn_bases) g_hash_table_destroy(psn_bases);
  psn_bases = NULL;
  dict_free(&shapes);
  dict_free(&ctxs);
  chunks = NULL;
  blocks = NULL;
  overflow = NULL;
  chunk_at = chunk_end = NULL;
  last_frame = 0;
  memset(&cursor, 0, sizeof(cursor));
  memset(&first_over_budget, 0, sizeof(first_over_budget));
  memset(&first_table_full, 0, sizeof(first_table_full));
}

static void state_new(void) {
  if (!ornic_pref_analyze) return; /* ornic_analysis_packet then returns NULL */
  ornic_analysis_cfg cfg;
  ornic_analysis_cfg_init(&cfg);
  cfg.otd = ornic_pref_otd;
  cfg.pmtu = (uint32_t)ornic_pref_pmtu;
  cfg.on_acked = on_acked;
  /* ornic.max_memory 0 means no limit; the library reads 0 as its default. */
  cfg.max_memory = ornic_pref_max_memory ? (uint64_t)ornic_pref_max_memory << 20 : UINT64_MAX;
  cfg.max_convs = ornic_pref_max_convs; /* 0: the library's default */
  engine = ornic_analysis_new(&cfg);
  engine_cfg = cfg;
  chunks = g_ptr_array_new_with_free_func(g_free);
  blocks = g_array_new(FALSE, FALSE, sizeof(block));
  overflow = g_hash_table_new(g_direct_hash, g_direct_equal);
  psn_bases = g_hash_table_new(g_direct_hash, g_direct_equal);
  dict_init(&shapes, sizeof(shape_key), shape_hash, shape_equal);
  dict_init(&ctxs, sizeof(ctx_key), ctx_hash, ctx_equal);
  /* Context 0 is that of untracked packets (conversation 0, QPs unknown), so
   * that their records name it in one byte: past the budget most packets of a
   * hostile capture are untracked, and each then costs about 3 bytes (frame,
   * shape, context), no more than a tracked packet's record. */
  ctx_key untracked;
  memset(&untracked, 0, sizeof(untracked));
  untracked.req_qp = untracked.resp_qp = G_MAXUINT32;
  dict_id(&ctxs, &untracked);
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

const ornic_analysis_cfg *ornic_analysis_config(void) { return &engine_cfg; }

static gpointer psn_base_key(guint32 conv, guint8 dir) {
  return GUINT_TO_POINTER((conv << 1) | (dir & 1u));
}

/* First pass: the first PSN of each PSN space is its base. A CNP's PSN is
 * not of the space. */
static void note_psn_base(const ornic_an_verdict *v, guint32 psn) {
  if (v->role != ORNIC_AN_ROLE_REQUEST && v->role != ORNIC_AN_ROLE_RESPONSE) return;
  gpointer key = psn_base_key(v->conv, v->dir);
  if (!g_hash_table_contains(psn_bases, key))
    g_hash_table_insert(psn_bases, key, GUINT_TO_POINTER(psn + 1u));
}

gboolean ornic_analysis_psn_base(guint32 conv, guint8 dir, guint32 *base) {
  guint b =
      psn_bases ? GPOINTER_TO_UINT(g_hash_table_lookup(psn_bases, psn_base_key(conv, dir))) : 0;
  if (!b) return FALSE;
  *base = b - 1u;
  return TRUE;
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

gboolean ornic_analysis_stored_conv(packet_info *pinfo, guint32 *conv, guint8 *dir) {
  rec_view r;
  if (!find_record(pinfo->num, G_MAXUINT32, &r)) return FALSE;
  *conv = r.ctx->conv;
  *dir = (guint8)r.ctx->dir;
  return TRUE;
}

const ornic_pkt *ornic_analysis_packet(packet_info *pinfo, const ornic_an_input *in,
                                       guint32 layer) {
  /* The PSN is the frame's own, the same in every pass: the residuals are from it. */
  guint32 psn = in->f->bth.psn;
  rec_view r;
  if (find_record(pinfo->num, layer, &r)) return unpack(&r, psn, pinfo->pool);
  if (PINFO_FD_VISITED(pinfo) || !engine || !ornic_pref_analyze) return NULL;
  ornic_pkt *p;
  ornic_an_verdict v;
  cur_frame = pinfo->num;
  cur_acked = 0;
  int rc = ornic_analysis_add(engine, in, &v);
  cur_frame = 0;
  if (rc != ORNIC_OK ||
      (v.role == ORNIC_AN_ROLE_NONE && !(v.flags & (ORNIC_AN_UNTRACKED | ORNIC_AN_CM))))
    return NULL;
  p = wmem_new0(pinfo->pool, ornic_pkt);
  p->v = v;
  p->acked_in = cur_acked <= G_MAXUINT32 ? (guint32)cur_acked : 0;
  p->in_flight = ornic_analysis_in_flight(engine, v.conv, v.dir);
  note_untracked(pinfo->num, layer, v.flags);
  p->first_untracked = is_first_untracked(pinfo->num, layer, v.flags);
  note_psn_base(&v, psn);
  note_qps(p);
  /* Records stay sorted by frame; a frame before the last one stored (not
   * expected in a first pass) is shown, not stored. */
  if (pinfo->num >= last_frame) pack(p, pinfo->num, layer, psn);
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
