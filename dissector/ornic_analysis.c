/* Per-conversation (QP pair) analysis, run once per packet in the first pass.
 * Its results are stored per packet by the caller, so random access and
 * tshark -2 see the same answers.
 *
 * A QP pair has one PSN space, the requester's: WRITE data travels towards
 * the responder, READ responses back to the requester, with the PSNs the
 * READ request reserved. So one tracker per pair follows "data PSNs",
 * whichever direction carries them. Requests are keyed by (src, dst, DestQP);
 * a response (DestQP = the requester's QP, which no request carries) is
 * paired with the request conversation whose PSNs it fits. */
#include "ornic_diss.h"

#include <arpa/inet.h>
#include <string.h>

/* PSN window of the duplicate tracker: ORNIC's W is at most 4080 and RC
 * windows are smaller, so 16384 is ample and costs 64 KiB per QP pair. */
#define WIN 16384u
#define WIN_MASK (WIN - 1u)

typedef struct {
  guint8 src[16], dst[16];
  guint32 qp;
  guint32 alen;
} flow_key;

/* One WQE whose address is known. Late copies (duplicates, late originals)
 * of an older WQE's packets arrive after the next WQE started, so each pair
 * keeps its recent WQEs, newest last. */
typedef struct {
  guint32 idx, start_psn, len, frame, rkey;
  guint64 start_addr; /* WRITE: Start_Addr; READ: the request's VA */
} wqe_rec;

/* WQEs remembered per direction of a pair: a ring that grows on demand
 * (8, 16, ... WQE_HIST entries), searched newest first. */
#define WQE_HIST 1024u

typedef struct {
  wqe_rec *ring;
  guint32 cap, n, head; /* head: slot of the newest */
} wqe_hist;

typedef struct conv_state {
  ornic_conv pub;
  struct conv_state *next; /* list of all conversations, for pairing */
  flow_key req;            /* requester -> responder key (DestQP = responder's QP) */
  guint32 pmtu;            /* learnt, 0 unknown */
  /* data PSN tracker */
  gboolean have_data;
  gboolean floor_guess; /* no WQE start known yet: epsn's floor is the lowest PSN seen */
  guint32 hpsn, epsn, loss_epsn;
  gboolean loss_flagged;
  guint32 *frames; /* WIN slots: frame of the first copy of a PSN, 0 unseen */
  wmem_map_t *pending;  /* psn+1 -> ornic_pkt* waiting for a cumulative ACK */
  wmem_map_t *resend;   /* psn+1 -> frame of the NAK / READ retry asking for it */
  /* WRITE and READ WQEs whose address is known */
  guint32 wqe_count;
  wqe_hist wr_hist, rd_hist; /* newest last: the WQE in flight */
  /* acknowledgements */
  gboolean cum_valid, msn_valid;
  guint32 cum, msn;
} conv_state;

static wmem_map_t *flows;
static conv_state *conv_list;
static guint32 conv_next_id;

/* Once per packet: mixes the key 8 bytes at a time (it has no padding). */
static guint flow_hash(gconstpointer k) {
  G_STATIC_ASSERT(sizeof(flow_key) % 8 == 0);
  const guint8 *p = k;
  guint64 h = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < sizeof(flow_key); i += 8) {
    guint64 w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdu;
    h ^= h >> 32;
  }
  return (guint)h;
}

static gboolean flow_equal(gconstpointer a, gconstpointer b) {
  return memcmp(a, b, sizeof(flow_key)) == 0;
}

static void analysis_reset(void) {
  conv_list = NULL;
  conv_next_id = 0;
}

void ornic_analysis_init(void) {
  flows = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), flow_hash, flow_equal);
  register_init_routine(analysis_reset);
}

static void make_key(flow_key *k, const ornic_an_input *in, gboolean swap) {
  memset(k, 0, sizeof(*k));
  k->alen = in->addr_len;
  if (in->addr_len) {
    memcpy(k->src, swap ? in->dst : in->src, in->addr_len);
    memcpy(k->dst, swap ? in->src : in->dst, in->addr_len);
  }
  k->qp = in->f->bth.destqp;
}

static void addr_str(char *out, size_t cap, const guint8 *a, guint32 alen) {
  if (!alen || !inet_ntop(alen == 4 ? AF_INET : AF_INET6, a, out, (socklen_t)cap))
    g_strlcpy(out, "?", cap);
}

static conv_state *conv_new(const flow_key *req, gboolean from_response) {
  conv_state *c = wmem_new0(wmem_file_scope(), conv_state);
  char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
  c->pub.id = ++conv_next_id;
  c->pub.from_response = from_response;
  c->req = *req;
  addr_str(s, sizeof(s), req->src, req->alen);
  addr_str(d, sizeof(d), req->dst, req->alen);
  if (from_response) {
    /* Only responses seen: req holds the response's key, unswapped. */
    c->pub.req_qp = req->qp;
    c->pub.resp_qp = G_MAXUINT32;
    snprintf(c->pub.label, sizeof(c->pub.label), "%s <- %s QP 0x%06x (responses)", d, s, req->qp);
  } else {
    c->pub.resp_qp = req->qp;
    c->pub.req_qp = G_MAXUINT32;
    snprintf(c->pub.label, sizeof(c->pub.label), "%s -> %s QP 0x%06x", s, d, req->qp);
  }
  c->frames = wmem_alloc0(wmem_file_scope(), WIN * sizeof(guint32));
  c->pending = wmem_map_new(wmem_file_scope(), g_direct_hash, g_direct_equal);
  c->resend = wmem_map_new(wmem_file_scope(), g_direct_hash, g_direct_equal);
  c->next = conv_list;
  conv_list = c;
  flow_key *stored = wmem_new(wmem_file_scope(), flow_key);
  *stored = *req;
  wmem_map_insert(flows, stored, c);
  return c;
}

static conv_state *conv_for_request(const ornic_an_input *in) {
  flow_key k;
  make_key(&k, in, FALSE);
  conv_state *c = wmem_map_lookup(flows, &k);
  return c ? c : conv_new(&k, FALSE);
}

/* How far a response's PSN is from what conversation c has sent; smaller is
 * a better fit, -1 means it does not fit. */
static gint64 response_fit(const conv_state *c, guint32 psn, gboolean read_data) {
  const wqe_rec *rd = c->rd_hist.n ? &c->rd_hist.ring[c->rd_hist.head] : NULL;
  if (read_data) {
    if (!rd) return -1;
    gint32 d = ornic_psn_diff(psn, rd->start_psn);
    return d >= 0 && (guint32)d < WIN ? d : -1;
  }
  if (!c->have_data) return rd ? -1 : (gint64)WIN; /* nothing to compare: weak fit */
  gint32 d = ornic_psn_diff(c->hpsn, psn);
  return d >= -1 && d < (gint32)WIN ? d + 1 : -1;
}

static conv_state *conv_for_response(const ornic_an_input *in, gboolean read_data) {
  flow_key k;
  make_key(&k, in, FALSE);
  conv_state *c = wmem_map_lookup(flows, &k);
  if (c) return c;
  conv_state *best = NULL;
  gint64 best_fit = -1;
  for (conv_state *it = conv_list; it; it = it->next) {
    if (it->pub.from_response || it->pub.req_qp != G_MAXUINT32 || it->req.alen != k.alen ||
        memcmp(it->req.src, k.dst, sizeof(k.dst)) || memcmp(it->req.dst, k.src, sizeof(k.src)))
      continue;
    gint64 fit = response_fit(it, in->f->bth.psn, read_data);
    if (fit >= 0 && (!best || fit < best_fit)) {
      best = it;
      best_fit = fit;
    }
  }
  if (!best) return conv_new(&k, TRUE);
  best->pub.req_qp = k.qp;
  flow_key *stored = wmem_new(wmem_file_scope(), flow_key);
  *stored = k;
  wmem_map_insert(flows, stored, best);
  return best;
}

static gboolean valid_pmtu(size_t n) {
  return n == 256 || n == 512 || n == 1024 || n == 2048 || n == 4096;
}

static guint32 conv_pmtu(conv_state *c, const ornic_frame *f, guint16 opflags) {
  if (ornic_pref_pmtu) return ornic_pref_pmtu;
  /* A payload-carrying packet that is not the last of its message is full size. */
  if (!c->pmtu && (opflags & ORNIC_OPF_PAYLOAD) && !(opflags & ORNIC_OPF_LAST) &&
      valid_pmtu(f->payload_len))
    c->pmtu = (guint32)f->payload_len;
  return c->pmtu;
}

static inline gpointer psn_key(guint32 psn) { return GUINT_TO_POINTER(psn + 1u); }

/* ---- the data PSN tracker -------------------------------------------------- */

static gboolean seen(const conv_state *c, guint32 psn) {
  gint32 d = ornic_psn_diff(c->hpsn, psn);
  return d >= 0 && (guint32)d < WIN && c->frames[psn & WIN_MASK] != 0;
}

static void advance_epsn(conv_state *c) {
  if (ornic_psn_diff(c->hpsn, c->epsn) >= (gint32)WIN)
    c->epsn = ornic_psn_add(c->hpsn, -(gint32)WIN + 1);
  for (guint32 n = 0; n < WIN && ornic_psn_diff(c->hpsn, c->epsn) >= 0 && seen(c, c->epsn); n++)
    c->epsn = ornic_psn_add(c->epsn, 1);
}

static guint32 count_unseen(const conv_state *c, guint32 from, guint32 to) {
  guint32 n = 0;
  for (guint32 p = from, i = 0; p != to && i < WIN; p = ornic_psn_add(p, 1), i++)
    if (!seen(c, p)) n++;
  return n;
}

/* Classifies one arrival below (or at) the highest PSN. FALSE: too old to judge. */
static gboolean classify_late(conv_state *c, ornic_pkt *pkt, guint32 psn, guint32 dist,
                              gboolean probe) {
  guint32 first = dist < WIN ? c->frames[psn & WIN_MASK] : 0;
  pkt->ooo_distance = dist;
  if (first) {
    pkt->flags |= ORNIC_AN_DUP | ORNIC_AN_RETRANS;
    pkt->first_frame = first;
    return TRUE;
  }
  if (dist < WIN && c->floor_guess && ornic_psn_lt(psn, c->epsn)) {
    /* Below every PSN seen so far, with no WQE start known (a capture that
     * begins with a Middle or a Spot): a first arrival, the new floor. */
    c->epsn = psn;
  } else if (dist >= WIN || ornic_psn_lt(psn, c->epsn)) {
    pkt->flags |= ORNIC_AN_BEYOND; /* from before the tracked window */
    return FALSE;
  }
  guint32 nak = GPOINTER_TO_UINT(wmem_map_remove(c->resend, psn_key(psn)));
  if (nak) {
    pkt->flags |= ORNIC_AN_RETRANS;
    pkt->nak_frame = nak;
  } else if (probe) {
    pkt->flags |= ORNIC_AN_RETRANS | ORNIC_AN_PROBE;
  } else {
    pkt->flags |= ORNIC_AN_OOO;
  }
  return TRUE;
}

/* start: Start_PSN of the packet's WQE, NULL when not known. */
static void track_psn(conv_state *c, ornic_pkt *pkt, guint32 psn, guint32 frame,
                      const guint32 *start, gboolean probe) {
  pkt->flags |= ORNIC_AN_HPSN;
  if (!c->have_data) {
    gint32 back = start ? ornic_psn_diff(psn, *start) : 0;
    c->have_data = TRUE;
    c->floor_guess = start == NULL;
    c->hpsn = psn;
    c->epsn = back > 0 && (guint32)back < WIN ? *start : psn;
    pkt->hpsn = psn;
  } else {
    if (c->floor_guess && start) {
      /* The first WQE start: the PSNs from it on belong to the flow. */
      gint32 back = ornic_psn_diff(c->epsn, *start);
      if (back > 0 && ornic_psn_diff(c->hpsn, *start) < (gint32)WIN) c->epsn = *start;
      c->floor_guess = FALSE;
    }
    gint32 d = ornic_psn_diff(psn, c->hpsn);
    pkt->hpsn = c->hpsn;
    if (d > 0) {
      guint32 clear = (guint32)d >= WIN ? WIN : (guint32)d;
      for (guint32 i = 1; i <= clear; i++) c->frames[(c->hpsn + i) & WIN_MASK] = 0;
      c->hpsn = psn;
      /* A probe is the lowest unacknowledged PSN sent again (4.2): seen here
       * for the first time when the tap missed the original too. */
      if (probe) pkt->flags |= ORNIC_AN_RETRANS | ORNIC_AN_PROBE;
    } else if (!classify_late(c, pkt, psn, (guint32)-d, probe)) {
      pkt->epsn = c->epsn;
      return;
    }
  }
  if (!(pkt->flags & ORNIC_AN_DUP)) c->frames[psn & WIN_MASK] = frame;
  pkt->flags |= ORNIC_AN_HPSN;
  advance_epsn(c);
  pkt->epsn = c->epsn;
  /* Loss (PROTOCOL.md 4.4 reason 1): once per hole, when an arrival passes ePSN + OTD. */
  gint32 ahead = ornic_psn_diff(psn, c->epsn);
  if (!(pkt->flags & ORNIC_AN_DUP) && ahead > (gint32)ornic_pref_otd &&
      !(c->loss_flagged && c->loss_epsn == c->epsn)) {
    pkt->flags |= ORNIC_AN_LOSS;
    pkt->loss_first_psn = c->epsn;
    pkt->loss_count = count_unseen(c, c->epsn, psn);
    c->loss_flagged = TRUE;
    c->loss_epsn = c->epsn;
  }
}

/* ---- WQEs and implied addresses --------------------------------------------- */

static guint32 wqe_npkts(guint32 len, guint32 pmtu) {
  return pmtu ? (len ? (len + pmtu - 1) / pmtu : 1) : 0;
}

/* True when psn is packet 0..n-1 of a WQE starting at start (n unknown: any k >= 0). */
static gboolean in_wqe(guint32 psn, guint32 start, guint32 len, guint32 pmtu) {
  gint32 k = ornic_psn_diff(psn, start);
  guint32 n = wqe_npkts(len, pmtu);
  return k >= 0 && (n == 0 ? (guint32)k < WIN : (guint32)k < n);
}

static const wqe_rec *hist_newest(const wqe_hist *h) { return h->n ? &h->ring[h->head] : NULL; }

/* The i-th newest WQE (0 = newest), i < h->n. */
static const wqe_rec *hist_at(const wqe_hist *h, guint32 i) {
  return &h->ring[(h->head + h->cap - i) % h->cap];
}

static const wqe_rec *hist_push(wqe_hist *h, const wqe_rec *r) {
  if (h->n == h->cap && h->cap < WQE_HIST) {
    /* Grow, oldest first in the new ring. */
    guint32 cap = h->cap ? 2 * h->cap : 8;
    wqe_rec *ring = wmem_alloc_array(wmem_file_scope(), wqe_rec, cap);
    for (guint32 i = 0; i < h->n; i++) ring[i] = *hist_at(h, h->n - 1 - i);
    h->ring = ring;
    h->cap = cap;
    h->head = h->n ? h->n - 1 : cap - 1;
  }
  h->head = (h->head + 1) % h->cap;
  h->ring[h->head] = *r;
  if (h->n < h->cap) h->n++;
  return &h->ring[h->head];
}

/* The newest known WQE holding psn, or NULL. Almost always the newest one:
 * older ones serve late copies of their packets. */
static const wqe_rec *hist_find_psn(const wqe_hist *h, guint32 psn, guint32 pmtu) {
  for (guint32 i = 0; i < h->n; i++) {
    const wqe_rec *r = hist_at(h, i);
    if (in_wqe(psn, r->start_psn, r->len, pmtu)) return r;
    /* WQEs follow each other in PSN order: past the newest one's start, a PSN
     * belongs to a WQE not seen yet. */
    if (i == 0 && ornic_psn_diff(psn, r->start_psn) >= 0) return NULL;
  }
  return NULL;
}

static void fill_wqe(ornic_pkt *pkt, const wqe_rec *r, guint32 pmtu, guint32 psn) {
  guint32 k = (guint32)ornic_psn_diff(psn, r->start_psn);
  pkt->flags |= ORNIC_AN_WQE;
  pkt->wqe = r->idx;
  pkt->wqe_start_psn = r->start_psn;
  pkt->wqe_start_addr = r->start_addr;
  pkt->wqe_len = r->len;
  pkt->wqe_frame = r->frame;
  pkt->wqe_pkt = k;
  pkt->wqe_npkts = wqe_npkts(r->len, pmtu);
  if (pkt->wqe_npkts) pkt->wqe_last_psn = ornic_psn_add(r->start_psn, (gint32)pkt->wqe_npkts - 1);
  if (pmtu || k == 0) {
    pkt->addr = r->start_addr + (guint64)k * pmtu;
    pkt->flags |= ORNIC_AN_ADDR;
  } else {
    pkt->flags |= ORNIC_AN_ADDR_UNKNOWN | ORNIC_AN_PMTU_UNKNOWN;
  }
}

static void learn_write_wqe(conv_state *c, ornic_pkt *pkt, const ornic_an_input *in,
                            guint32 pmtu) {
  const ornic_frame *f = in->f;
  guint32 psn = f->bth.psn, start_psn = psn;
  guint64 va = f->ext.reth.va, start_addr = va;
  if (f->ext.present & ORNIC_HDR_OFFETH) {
    guint32 off = f->ext.offeth.offset;
    if (off) {
      if (!pmtu) {
        pkt->flags |= ORNIC_AN_PMTU_UNKNOWN;
        return;
      }
      if (off % pmtu) return; /* not placeable: the end points reject it (4.3 rule 5) */
      start_psn = ornic_psn_add(psn, -(gint32)(off / pmtu));
    }
    start_addr = va - off;
  }
  /* Every FSpot (and a retransmitted RC First) repeats its WQE: a WQE is new
   * only when no known one has the same Start_PSN, Start_Addr and length. */
  const wqe_rec *cur = hist_newest(&c->wr_hist);
  if (cur && ornic_psn_diff(start_psn, cur->start_psn) <= 0) {
    for (guint32 i = 0; i < c->wr_hist.n; i++) {
      const wqe_rec *r = hist_at(&c->wr_hist, i);
      if (r->start_psn == start_psn && r->start_addr == start_addr &&
          r->len == f->ext.reth.dmalen)
        return;
    }
  }
  wqe_rec r = {.idx = ++c->wqe_count, .start_psn = start_psn, .len = f->ext.reth.dmalen,
               .frame = in->frame_num, .rkey = f->ext.reth.rkey, .start_addr = start_addr};
  hist_push(&c->wr_hist, &r);
  pkt->flags |= ORNIC_AN_NEW_WQE;
}

static void write_data(conv_state *c, ornic_pkt *pkt, const ornic_an_input *in, guint32 pmtu,
                       guint16 opflags) {
  const ornic_frame *f = in->f;
  guint32 psn = f->bth.psn;
  const wqe_rec *r = NULL;
  if (opflags & ORNIC_OPF_WRITE) {
    if (f->ext.present & ORNIC_HDR_RETH) learn_write_wqe(c, pkt, in, pmtu);
    r = hist_find_psn(&c->wr_hist, psn, pmtu);
    if (r)
      fill_wqe(pkt, r, pmtu, psn);
    else
      pkt->flags |= ORNIC_AN_ADDR_UNKNOWN;
  }
  gboolean probe = (opflags & ORNIC_OPF_OOO) && f->bth.ackreq;
  track_psn(c, pkt, psn, in->frame_num, r ? &r->start_psn : NULL, probe);
  pkt->flags |= ORNIC_AN_DATA;
  /* Wait for the ACK that covers it; older copies of the PSN chain behind. */
  pkt->next_same_psn = wmem_map_lookup(c->pending, psn_key(psn));
  wmem_map_insert(c->pending, psn_key(psn), pkt);
}

/* A READ request inside a known READ (4.5): same R_Key, its remote range
 * inside the original's, its VA consistent with its PSN. */
static const wqe_rec *read_retry_of(const conv_state *c, const ornic_reth *reth, guint32 p,
                                    guint32 pmtu) {
  for (guint32 i = 0; i < c->rd_hist.n; i++) {
    const wqe_rec *r = hist_at(&c->rd_hist, i);
    if (!in_wqe(p, r->start_psn, r->len, pmtu)) {
      if (i == 0 && ornic_psn_diff(p, r->start_psn) >= 0) return NULL; /* a new READ */
      continue;
    }
    guint32 k = (guint32)ornic_psn_diff(p, r->start_psn);
    if (reth->rkey == r->rkey && reth->va >= r->start_addr &&
        reth->va - r->start_addr <= r->len && reth->dmalen <= r->len - (reth->va - r->start_addr) &&
        (!pmtu || reth->va == r->start_addr + (guint64)k * pmtu))
      return r;
    return NULL; /* p belongs to r, but this request does not fit it */
  }
  return NULL;
}

static void read_request(conv_state *c, ornic_pkt *pkt, const ornic_an_input *in, guint32 pmtu) {
  const ornic_frame *f = in->f;
  if (!(f->ext.present & ORNIC_HDR_RETH)) return;
  guint32 p = f->bth.psn;
  const wqe_rec *r = read_retry_of(c, &f->ext.reth, p, pmtu);
  if (r) {
    /* A re-read: its responses carry the original PSNs and fill holes. */
    guint32 n = wqe_npkts(f->ext.reth.dmalen, pmtu);
    for (guint32 i = 0; i < n && i < WIN; i++)
      wmem_map_insert(c->resend, psn_key(ornic_psn_add(p, (gint32)i)),
                      GUINT_TO_POINTER(in->frame_num));
    pkt->flags |= ORNIC_AN_RETRANS;
    pkt->read_frame = r->frame;
  } else {
    wqe_rec nr = {.idx = ++c->wqe_count, .start_psn = p, .len = f->ext.reth.dmalen,
                  .frame = in->frame_num, .rkey = f->ext.reth.rkey, .start_addr = f->ext.reth.va};
    r = hist_push(&c->rd_hist, &nr);
    pkt->flags |= ORNIC_AN_NEW_WQE;
  }
  fill_wqe(pkt, r, pmtu, p);
  pkt->flags &= ~(guint32)(ORNIC_AN_ADDR | ORNIC_AN_ADDR_UNKNOWN | ORNIC_AN_PMTU_UNKNOWN);
}

static void read_response(conv_state *c, ornic_pkt *pkt, const ornic_an_input *in,
                          guint32 pmtu) {
  guint32 q = in->f->bth.psn;
  const wqe_rec *r = hist_find_psn(&c->rd_hist, q, pmtu);
  if (r) {
    fill_wqe(pkt, r, pmtu, q);
    pkt->read_frame = r->frame;
  } else {
    pkt->flags |= ORNIC_AN_ADDR_UNKNOWN;
  }
  track_psn(c, pkt, q, in->frame_num, r ? &r->start_psn : NULL, FALSE);
  pkt->flags |= ORNIC_AN_DATA;
}

/* ---- acknowledgements -------------------------------------------------------- */

static void msn_update(conv_state *c, ornic_pkt *pkt, guint32 msn) {
  if (c->msn_valid) {
    gint32 d = ornic_psn_diff(msn, c->msn);
    if (d < 0) return; /* a reordered, older ACK */
    pkt->msn_delta = (guint32)d;
    pkt->flags |= ORNIC_AN_MSN;
  }
  c->msn_valid = TRUE;
  c->msn = msn;
}

static void ack_pending(conv_state *c, guint32 psn, guint32 frame) {
  ornic_pkt *p = wmem_map_remove(c->pending, psn_key(psn));
  for (; p; p = p->next_same_psn)
    if (!p->acked_in) p->acked_in = frame;
}

static void cumulative(conv_state *c, ornic_pkt *pkt, guint32 cum, guint32 frame) {
  pkt->flags |= ORNIC_AN_ACK;
  if (!c->cum_valid) {
    /* First ACK of the conversation: look back one window. */
    for (guint32 i = 0; i < WIN; i++) ack_pending(c, ornic_psn_add(cum, -(gint32)i), frame);
    c->cum_valid = TRUE;
    c->cum = cum;
    return;
  }
  gint32 d = ornic_psn_diff(cum, c->cum);
  pkt->ack_prev = c->cum;
  if (d < 0) {
    pkt->flags |= ORNIC_AN_ACK_STALE;
    return;
  }
  pkt->ack_newly = (guint32)d;
  for (gint32 i = 1; i <= d && (guint32)i <= WIN; i++)
    ack_pending(c, ornic_psn_add(c->cum, i), frame);
  c->cum = cum;
}

static void acknowledge(conv_state *c, ornic_pkt *pkt, const ornic_an_input *in) {
  const ornic_frame *f = in->f;
  if (!(f->ext.present & ORNIC_HDR_AETH)) return;
  guint8 type = ornic_aeth_type(f->ext.aeth.syndrome);
  guint32 psn = f->bth.psn;
  msn_update(c, pkt, f->ext.aeth.msn);
  if ((f->ext.present & ORNIC_HDR_OACKETH) && (f->ext.oacketh.flags & ORNIC_OACK_WQE_DONE) &&
      (pkt->flags & ORNIC_AN_MSN) && pkt->msn_delta > 0 && c->wr_hist.n) {
    /* BTH.PSN is the Last_PSN of the completed WQE (4.3). */
    const wqe_rec *r = hist_find_psn(&c->wr_hist, psn, pkt->pmtu);
    pkt->flags |= ORNIC_AN_WQE_DONE;
    pkt->wqe_completed = (r ? r : hist_newest(&c->wr_hist))->idx;
  }
  if (type == ORNIC_AETH_ACK) {
    cumulative(c, pkt, psn, in->frame_num);
  } else if (f->ext.aeth.syndrome == 0x60) {
    /* PSN sequence error: everything before the expected PSN was received. */
    pkt->flags |= ORNIC_AN_NAK;
    cumulative(c, pkt, ornic_psn_add(psn, -1), in->frame_num);
    if (f->ext.present & ORNIC_HDR_NAKETH) {
      for (guint32 i = 0; i < in->nak_missing_n; i++)
        wmem_map_insert(c->resend, psn_key(in->nak_missing[i]), GUINT_TO_POINTER(in->frame_num));
    } else {
      /* RC: go back to the expected PSN. */
      wmem_map_insert(c->resend, psn_key(psn), GUINT_TO_POINTER(in->frame_num));
    }
  } else if (type == 0x60 || type == ORNIC_AETH_RNR_NAK) {
    pkt->flags |= ORNIC_AN_NAK;
  }
}

ornic_pkt *ornic_analyse(const ornic_an_input *in) {
  const ornic_frame *f = in->f;
  const ornic_opcode_info *info = ornic_opcode_info_get(f->bth.opcode);
  ornic_pkt *pkt = wmem_new0(wmem_file_scope(), ornic_pkt);
  guint16 fl = info->flags;
  gboolean read_data = (fl & ORNIC_OPF_READ) && (fl & ORNIC_OPF_RESPONSE);
  conv_state *c;
  if (f->bth.opcode == ORNIC_OP_CNP) {
    c = conv_for_request(in);
    pkt->flags |= ORNIC_AN_CNP;
    pkt->conv = &c->pub;
    pkt->req_qp = c->pub.req_qp;
    return pkt;
  }
  c = (fl & ORNIC_OPF_RESPONSE) ? conv_for_response(in, read_data) : conv_for_request(in);
  pkt->conv = &c->pub;
  pkt->req_qp = c->pub.req_qp;
  if (!info->name) return pkt;
  guint32 pmtu = conv_pmtu(c, f, fl);
  pkt->pmtu = pmtu;
  if ((fl & ORNIC_OPF_REQUEST) && (fl & ORNIC_OPF_PAYLOAD))
    write_data(c, pkt, in, pmtu, fl);
  else if ((fl & ORNIC_OPF_REQUEST) && (fl & ORNIC_OPF_READ))
    read_request(c, pkt, in, pmtu);
  else if (read_data)
    read_response(c, pkt, in, pmtu);
  if (fl & ORNIC_OPF_ACK)
    acknowledge(c, pkt, in);
  else if (read_data && (f->ext.present & ORNIC_HDR_AETH))
    msn_update(c, pkt, f->ext.aeth.msn);
  return pkt;
}
