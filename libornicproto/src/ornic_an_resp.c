/* SPDX-License-Identifier: MIT */
/* Responses of one direction (PROTOCOL.md 8.4-8.6): READ responses in the
 * PSNs their request reserved, cumulative ACKs (which packets they cover,
 * and which of those the capture never saw), NAKs (what they ask to have
 * sent again, what they declare lost), MSN progress. */
#include "ornic_an_internal.h"

/* One PSN of the window newly covered by a cumulative acknowledgement.
 * Returns 1 when the capture should have seen it and did not. */
static uint32_t cover(ornic_analysis *a, an_dir *d, uint32_t q, const ornic_an_input *in,
                      uint32_t margin, const an_slot **newest) {
  an_slot *s = an_slot_at(d, q);
  if (s->bits & S_REQ) {
    if (!(s->bits & S_ACKED) && a->cfg.on_acked) a->cfg.on_acked(a->cfg.user, s->frame, in->frame);
    s->bits |= S_ACKED;
    *newest = s;
    return 0;
  }
  if (s->bits & (S_RESV | S_RESP)) return 0;
  /* a gap; past the highest request the judgement waits (cover_range) */
  return d->have_req && ornic_psn_diff(q, d->first) >= (int32_t)margin &&
         ornic_psn_diff(q, d->hpsn) <= 0;
}

static void flag_not_captured(an_dir *d, ornic_an_verdict *restrict v, uint32_t first, uint32_t n);
static void hold(an_dir *d, uint32_t first, uint32_t end, uint64_t frame);

/* Of the n PSNs from `from`, those past the window's top (requests never
 * captured) that the capture should have seen: counted, not walked, so
 * that an ACK far ahead costs no more than one near. *first: the first. */
static uint32_t unseen_past_top(const an_dir *d, uint32_t from, uint32_t n, uint32_t margin,
                                uint32_t *first) {
  if (!d->have_req || !d->have_top || !n) return 0;
  /* PSN from + j is counted when ornic_psn_diff(q, top) > 0 and
   * ornic_psn_diff(q, first) >= margin, as a walk would find: in distances
   * from `from`, below the half circle where those differences wrap. */
  const int64_t half = (int64_t)1 << 23;
  int64_t t0 = ornic_psn_diff(from, d->top), f0 = ornic_psn_diff(from, d->first);
  int64_t lo = 0, hi = (int64_t)n - 1;
  if (lo < 1 - t0) lo = 1 - t0;
  if (hi > half - 1 - t0) hi = half - 1 - t0;
  if (lo < (int64_t)margin - f0) lo = (int64_t)margin - f0;
  if (hi > half - 1 - f0) hi = half - 1 - f0;
  if (lo > hi) return 0;
  *first = ornic_psn_add(from, (int32_t)lo);
  return (uint32_t)(hi - lo + 1);
}

/* The n PSNs from `from` that a cumulative acknowledgement newly covers:
 * out of line, as most acknowledgements cover none (aggregated or repeated
 * ACKs, 4.3). Below the window nothing is known; in it, each slot; past its
 * top, a count. */
static AN_NOINLINE void cover_range(ornic_analysis *a, an_conv *c, an_dir *d, uint32_t from,
                                    uint32_t n, const ornic_an_input *in, bool is_ack,
                                    ornic_an_verdict *restrict v) {
  const an_slot *newest = NULL;
  uint32_t unseen = 0, first = 0, margin = an_not_captured_margin(a, c, d);
  uint32_t w0 = from, wn = an_window_clip(d, &w0, n);
  an_work(d, wn);
  for (uint32_t i = 0; i < wn; i++) {
    uint32_t q = ornic_psn_add(w0, (int32_t)i);
    if (cover(a, d, q, in, margin, &newest) && !unseen++) first = q;
  }
  /* PSNs past the highest request seen: held (8.5). A host capture may
   * write its own transmitted requests after the ACK that answers them
   * (the window's top may be past them too: a NAK's asks move it); an
   * in-order sender's requests are written in order, so a PSN below one
   * written already is not late but missing, and is judged now. */
  uint32_t end = ornic_psn_add(from, (int32_t)n - 1), hf = ornic_psn_add(d->hpsn, 1);
  uint32_t mf = ornic_psn_add(d->first, (int32_t)margin);
  if (ornic_psn_lt(hf, from)) hf = from;
  if (ornic_psn_lt(hf, mf)) hf = mf;
  if (d->have_req && ornic_psn_diff(end, hf) >= 0) hold(d, hf, end, in->frame);
  if (newest) {
    v->ack_frame_of = newest->frame;
    /* The round trip of the newest PSN it covers, from that request's first
     * copy (PROTOCOL.md 8.8); an ACK that covers nothing new has none. */
    if (is_ack && an_elapsed(d->now, newest->seen_ns, &v->ack_rtt_ns)) v->flags |= ORNIC_AN_ACK_RTT;
  }
  flag_not_captured(d, v, first, unseen);
}

/* An earlier judgement may have flagged this packet already (a held one
 * given on it, hold_judge): the counts add up, the first stays the lowest. */
static void flag_not_captured(an_dir *d, ornic_an_verdict *restrict v, uint32_t first, uint32_t n) {
  if (!n) return;
  if (!(v->flags & ORNIC_AN_NOT_CAPTURED) || ornic_psn_lt(first, v->not_captured_first))
    v->not_captured_first = first;
  v->flags |= ORNIC_AN_NOT_CAPTURED;
  v->not_captured += n;
  d->st->not_captured += n;
}

/* Gives the oldest held judgement: the PSNs from hold_first to its end
 * that no request, READ reservation or response has shown by now. */
static void hold_judge(ornic_analysis *a, an_dir *d, ornic_an_verdict *restrict v) {
  const an_hold *h = &d->hold[d->hold_head];
  uint32_t from = d->hold_first, end = h->end, unseen = 0, first = 0, past_first = 0;
  d->hold_head = (uint8_t)((d->hold_head + 1) % AN_HOLD_MAX);
  d->hold_n--;
  d->hold_first = ornic_psn_add(end, 1);
  int32_t span = ornic_psn_diff(end, from);
  if (span < 0) return;
  uint32_t n = (uint32_t)span + 1;
  if (n > a->cfg.window) { /* as cumulative(): the last window of it */
    from = ornic_psn_add(end, -(int32_t)a->cfg.window + 1);
    n = a->cfg.window;
  }
  uint32_t w0 = from, wn = an_window_clip(d, &w0, n);
  an_work(d, wn);
  for (uint32_t i = 0; i < wn; i++) {
    uint32_t q = ornic_psn_add(w0, (int32_t)i);
    if (!(an_slot_at(d, q)->bits & (S_REQ | S_RESV | S_RESP)) && !unseen++) first = q;
  }
  uint32_t past = unseen_past_top(d, from, n, 0, &past_first);
  if (past && !unseen) first = past_first;
  flag_not_captured(d, v, first, unseen + past);
}

/* PSNs first .. end past the highest request, covered by the ACK `frame`:
 * their judgement waits (8.5). With every entry taken, the newest grows and
 * waits from now: a judgement comes later, never sooner. */
static void hold(an_dir *d, uint32_t first, uint32_t end, uint64_t frame) {
  an_hold h = {end, an_dir_pkts(d), d->now, frame};
  if (!d->hold_n) d->hold_first = first;
  if (d->hold_n == AN_HOLD_MAX) {
    d->hold[(d->hold_head + AN_HOLD_MAX - 1) % AN_HOLD_MAX] = h;
    return;
  }
  d->hold[(d->hold_head + d->hold_n++) % AN_HOLD_MAX] = h;
}

void an_hold_expire(ornic_analysis *a, an_dir *d, ornic_an_verdict *restrict v) {
  uint32_t pk = an_dir_pkts(d) + 1; /* this packet counted */
  while (d->hold_n) {
    const an_hold *h = &d->hold[d->hold_head];
    uint64_t waited; /* a capture's clock may step back, or jump by 2^63 */
    if (!an_elapsed(d->now, h->ns, &waited) || waited <= AN_HOLD_NS || pk - h->pkts <= AN_HOLD_PKTS)
      return;
    hold_judge(a, d, v);
  }
}

void an_hold_arrival(ornic_analysis *a, an_conv *c, an_dir *d, uint32_t p, const ornic_an_input *in,
                     ornic_an_verdict *restrict v) {
  if (!d->hold_n || ornic_psn_lt(p, d->hold_first)) return;
  for (uint32_t i = 0; i < d->hold_n; i++) {
    const an_hold *h = &d->hold[(d->hold_head + i) % AN_HOLD_MAX];
    if (ornic_psn_lt(h->end, p)) continue;
    an_slot *s = an_slot_at(d, p);
    if (s && !(s->bits & S_ACKED)) {
      if (a->cfg.on_acked) a->cfg.on_acked(a->cfg.user, in->frame, h->frame);
      s->bits |= S_ACKED;
    }
    c->pub.acked_before_seen[d - c->dir]++;
    v->flags |= ORNIC_AN_ACKED_BEFORE_SEEN;
    /* The oldest entry's PSNs all seen: nothing left to wait for. */
    if (i == 0 && p == h->end) hold_judge(a, d, v);
    return;
  }
}

/* Everything up to and including psn was received. `is_ack`: an
 * acknowledgement packet (a READ response acknowledges implicitly and is
 * never stale). */
static inline void cumulative(ornic_analysis *a, an_conv *c, an_dir *d, uint32_t psn,
                              const ornic_an_input *in, bool is_ack, ornic_an_verdict *restrict v) {
  uint32_t from, n;
  if (is_ack) v->flags |= ORNIC_AN_ACK;
  if (d->have_cum) {
    int32_t dd = ornic_psn_diff(psn, d->cum);
    v->ack_prev = d->cum;
    if (dd < 0) {
      if (is_ack) {
        v->flags |= ORNIC_AN_ACK_STALE;
        d->st->acks_stale++;
      }
      return;
    }
    from = ornic_psn_add(d->cum, 1);
    n = (uint32_t)dd;
  } else {
    /* The first acknowledgement seen: it covers what was captured before it,
     * from the lowest request PSN (sprayed, the first captured may not be). */
    int32_t dd = d->have_req ? ornic_psn_diff(psn, d->floor) : -1;
    from = d->floor;
    n = dd >= 0 ? (uint32_t)dd + 1 : 0;
    v->ack_prev = ornic_psn_add(psn, -(int32_t)n);
  }
  d->have_cum = true;
  d->cum = psn;
  v->ack_newly = n;
  if (n > a->cfg.window) { /* judge only the last window of it */
    from = ornic_psn_add(psn, -(int32_t)a->cfg.window + 1);
    n = a->cfg.window;
  }
  if (n) cover_range(a, c, d, from, n, in, is_ack, v);
  if (d->rc.on) an_rc_acked(d);
}

/* A PSN a NAK asks for again; returns 1 when it is newly declared lost:
 * `declare` and, with `only_seen`, the capture saw it. */
static uint32_t ask(an_dir *d, uint32_t q, uint64_t frame, bool declare, bool only_seen) {
  an_slot *s = an_slot_at(d, q);
  an_ask(s, S_ASKED);
  s->asked = (uint32_t)frame;
  if (!declare || (s->bits & S_DECLARED) || (only_seen && !(s->bits & S_REQ))) return 0;
  s->bits |= S_DECLARED;
  return 1;
}

/* The n PSNs from q0 a NAK asks for again, as far as the window holds them
 * once it has moved to the last (never more than a window past its top: a
 * hostile NAK names any PSN). declare: the first is declared lost (RC);
 * all are (ORNIC, only_seen). Returns how many it declares; *first. */
uint32_t an_ask_range(ornic_analysis *a, an_dir *d, uint32_t q0, uint32_t n, uint64_t frame,
                      bool declare_all, bool declare_first, uint32_t *first) {
  if (!n) return 0;
  if (!d->have_top && an_window_touch(a, d, ornic_psn_add(q0, (int32_t)(n - 1))) < 0) return 0;
  int64_t k0 = ornic_psn_diff(q0, d->top), k1 = k0 + (int64_t)n - 1; /* from the top */
  if (k1 > (int64_t)d->cap) k1 = d->cap;
  if (k1 < k0) return 0;
  if (k1 > 0 && an_window_touch(a, d, ornic_psn_add(q0, (int32_t)(k1 - k0))) < 0) return 0;
  uint32_t q1 = q0, lost = 0;
  n = an_window_clip(d, &q1, (uint32_t)(k1 - k0 + 1));
  an_work(d, n);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t q = ornic_psn_add(q1, (int32_t)i);
    bool declare = declare_all || (declare_first && q == q0);
    if (ask(d, q, frame, declare, declare_all) && !lost++) *first = q;
  }
  return lost;
}

static void declare_loss(an_dir *d, ornic_an_verdict *restrict v, uint32_t first, uint32_t n) {
  if (!n) return;
  v->flags |= ORNIC_AN_LOSS;
  v->loss_first_psn = first;
  v->loss_count = n;
  d->st->loss += n;
}

/* The runs of a NAK's lost set that lie before the window or more than a
 * window past its top are skipped without a walk: only the bits the window
 * can hold are read (a NAK of 255 blocks is 4080 bits). */
static void skip_unheld_runs(const an_dir *d, ornic_naketh_lost_iter *it) {
  if (!d->have_top) return;
  /* bit j is the PSN b + j from the top; held: 1 - valid .. cap */
  int64_t b = ornic_psn_diff(it->nak->base_psn, d->top);
  int64_t from = 1 - (int64_t)d->valid - b, to = (int64_t)d->cap - b;
  if (to < 0) {
    it->d = it->span;
    return;
  }
  if (from > (int64_t)it->d) it->d = from < (int64_t)it->span ? (uint32_t)from : it->span;
  if (to + 1 < (int64_t)it->span) it->span = (uint32_t)(to + 1);
}

/* ORNIC NAK (4.4): its lost set, read from the NAK alone (its Limit PSN,
 * not cfg.otd), is asked for again. The NAK proves lost only the PSNs the
 * capture saw sent (a tap on the requester's side); one not seen yet may
 * still be on a slower path (a responder whose limit is too close to the
 * trigger declares those too): its loss is proven when the first copy that
 * shows up is the one the NAK asked for (8.3). */
static void ornic_nak(ornic_analysis *a, an_dir *d, const ornic_an_input *in,
                      ornic_an_verdict *restrict v) {
  const ornic_naketh *nak = &in->f->ext.naketh;
  uint32_t lost = 0, first = 0, f1 = 0, run, n;
  ornic_naketh_lost_iter it;
  ornic_naketh_lost_begin(&it, nak);
  skip_unheld_runs(d, &it);
  while (ornic_naketh_lost_next_run(&it, &run, &n)) {
    uint32_t k = an_ask_range(a, d, run, n, in->frame, true, true, &f1);
    if (k && !lost) first = f1;
    lost += k;
    skip_unheld_runs(d, &it);
  }
  v->nak_lost = ornic_naketh_lost_count(nak);
  declare_loss(d, v, first, lost);
}

/* RC NAK (PROTOCOL.md 8.6): a go-back-N requester sends every PSN from psn
 * to the highest sent again, a selective one psn alone; a PSN sequence
 * error's answer tells which (ornic_an_mode.c). On one path the NAK proves
 * psn lost (the responder dropped the rest as out of sequence), unless psn
 * is before the first request captured: the direction's first packets may
 * have taken other paths before one path showed. Sprayed over several, it
 * may only have been overtaken. */
static void rc_nak(ornic_analysis *a, an_dir *d, uint32_t psn, bool seq_error,
                   const ornic_an_input *in, ornic_an_verdict *restrict v) {
  if (!d->have_req) return;
  int32_t n = ornic_psn_diff(d->hpsn, psn);
  if (n < 0 || (uint32_t)n >= a->cfg.window) n = 0;
  uint32_t first = psn, span = (uint32_t)n + 1;
  bool proof = seq_error && !d->sprayed && !ornic_psn_lt(psn, d->first);
  if (seq_error) span = an_rc_nak_span(d, psn, span, in->frame);
  declare_loss(d, v, psn, an_ask_range(a, d, psn, span, in->frame, false, proof, &first));
}

/* Messages the capture saw start at or before psn: the bound of an MSN
 * counted from 0. Exact while the WQE history holds every message of the
 * direction; past that, every message seen. */
static uint32_t msgs_started_by(const an_dir *d, uint32_t psn) {
  const an_wqe_hist *h = &d->wqes;
  if (h->count > h->n) return h->count;
  uint32_t k = 0;
  for (uint32_t i = 0; i < h->n; i++)
    k += ornic_psn_diff(psn, h->ring[(h->head - i) & (h->cap - 1)].start_psn) >= 0;
  return k;
}

/* The MSN before the first response seen (8.6): 0 when the capture holds
 * the direction from its first message on: its first request began a
 * message, nothing was captured before it, the response acknowledges
 * captured requests, and its MSN counts no more messages than the capture
 * saw start up to the PSN it acknowledges (a capture that began at a later
 * message boundary has an ACK whose MSN counts the messages before it too).
 * Otherwise unknown: the first MSN is only the base. */
static bool msn_from_zero(const an_dir *d, uint32_t psn, uint32_t msn) {
  return d->have_req && d->starts_msg && d->floor == d->first &&
         ornic_psn_diff(psn, d->first) >= 0 && msn <= msgs_started_by(d, psn);
}

static void msn_update(an_dir *d, uint32_t msn, uint32_t psn, ornic_an_verdict *restrict v) {
  if (!d->have_msn && msn && msn_from_zero(d, psn, msn)) {
    d->have_msn = true;
    d->msn = 0;
  }
  if (d->have_msn) {
    int32_t dd = ornic_psn_diff(msn, d->msn);
    if (dd < 0) return; /* a reordered, older acknowledgement */
    v->msn_delta = (uint32_t)dd;
    v->flags |= ORNIC_AN_MSN;
    d->st->wqes_done += (uint32_t)dd;
  }
  d->have_msn = true;
  d->msn = msn;
}

static void completion(an_dir *d, const ornic_frame *f, uint32_t pmtu,
                       ornic_an_verdict *restrict v) {
  if (!v->msn_delta) return; /* most ACKs complete nothing (msn_update sets it with ORNIC_AN_MSN) */
  bool ornic_done =
      (f->ext.present & ORNIC_HDR_OACKETH) && (f->ext.oacketh.flags & ORNIC_OACK_WQE_DONE);
  bool rc = !an_op_ornic(f->bth.opcode);
  if (!(v->flags & ORNIC_AN_MSN) || !v->msn_delta || !(ornic_done || rc)) return;
  /* BTH.PSN is the Last_PSN of the completed WQE (3.4) / the last PSN acknowledged. */
  an_wqe *w = an_wqe_find(&d->wqes, f->bth.psn, 0, pmtu);
  if (!w && ornic_done) w = an_wqe_find(&d->wqes, f->bth.psn, W_WRITE, pmtu);
  if (!w) return;
  v->flags |= ORNIC_AN_WQE_DONE;
  v->wqe_completed = w->idx;
  if (an_elapsed(d->now, w->first_ns, &v->msg_time_ns)) v->flags |= ORNIC_AN_MSG_TIME;
}

/* ADDR_CACHED refers to the WQE in flight (3.4), the newest: from now on the
 * requester sends its packets, first copies or not, as Spot and Last. */
static void note_cached(an_dir *d, const ornic_an_input *in) {
  an_wqe *w = an_wqe_newest(&d->wqes);
  if (w && w->ornic && w->kind == W_WRITE && !w->cached_frame) w->cached_frame = in->frame;
}

static void aeth(ornic_analysis *a, an_conv *c, an_dir *d, const ornic_an_input *in, uint32_t fl,
                 uint32_t pmtu, ornic_an_verdict *restrict v) {
  const ornic_frame *f = in->f;
  uint8_t syn = f->ext.aeth.syndrome, type = ornic_aeth_type(syn);
  bool ornic = (fl & AN_OP_ORNIC) != 0;
  uint32_t psn = f->bth.psn;
  /* A NAK's MSN field is not an MSN in every implementation (IRN puts the
   * trigger PSN there): only ACKs and READ responses move it. */
  if (type != ORNIC_AETH_NAK && type != ORNIC_AETH_RNR_NAK) msn_update(d, f->ext.aeth.msn, psn, v);
  if (!(fl & ORNIC_OPF_ACK)) { /* a READ response: in-order ones acknowledge implicitly */
    if (!ornic)
      cumulative(a, c, d, (fl & ORNIC_OPF_LAST) ? psn : ornic_psn_add(psn, -1), in, false, v);
    return;
  }
  if (type == ORNIC_AETH_ACK) {
    d->st->acks++;
    if ((f->ext.present & ORNIC_HDR_OACKETH) && (f->ext.oacketh.flags & ORNIC_OACK_ADDR_CACHED))
      note_cached(d, in);
    cumulative(a, c, d, psn, in, true, v);
    completion(d, f, pmtu, v);
    return;
  }
  if (type != ORNIC_AETH_NAK && type != ORNIC_AETH_RNR_NAK) return; /* reserved types */
  v->flags |= ORNIC_AN_NAK;
  d->st->naks++;
  if (syn != ORNIC_AETH_NAK_PSN_SEQ && type != ORNIC_AETH_RNR_NAK)
    return; /* fatal NAKs ask for nothing */
  cumulative(a, c, d, ornic_psn_add(psn, -1), in, false, v);
  if (f->ext.present & ORNIC_HDR_NAKETH)
    ornic_nak(a, d, in, v);
  else
    rc_nak(a, d, psn, syn == ORNIC_AETH_NAK_PSN_SEQ, in, v);
}

/* Is this READ response an answer to a retry? ORNIC: any copy may be
 * (responses are sprayed). In order (RC): a retry's answer starts with a
 * First (or Only) at a PSN other than its READ's first, or repeats a PSN,
 * and continues from there; responses past the highest one, in the
 * original stream, are the originals still arriving after the retry was
 * sent (the responder answers it after them). */
static bool is_retry_copy(const an_dir *d, const ornic_an_input *in, const an_wqe *w, bool repeat,
                          bool ahead, bool ornic) {
  uint32_t q = in->f->bth.psn;
  if (ornic || repeat || !ahead) return true;
  if ((an_op_flags(in->f->bth.opcode) & ORNIC_OPF_FIRST) && q != w->start_psn) return true;
  return d->resp_retry && q == ornic_psn_add(d->resp_last, 1);
}

/* READ responses from more than one UDP source port are sprayed: one may
 * overtake another, so a READ retry proves nothing (8.6). */
static void note_resp_port(an_dir *d, uint16_t sport) {
  if (!d->have_resp_sport) {
    d->have_resp_sport = true;
    d->resp_sport = sport;
  } else if (sport != d->resp_sport) {
    d->resp_sprayed = true;
  }
}

/* A READ response q: its READ, its address, first copy or repeat. */
static void read_response(ornic_analysis *a, an_dir *d, const ornic_an_input *in, uint32_t pmtu,
                          ornic_an_verdict *restrict v) {
  uint32_t q = in->f->bth.psn;
  bool ornic = an_op_ornic(in->f->bth.opcode);
  an_wqe *w = an_wqe_find(&d->wqes, q, W_READ, pmtu);
  note_resp_port(d, in->f->udp.sport);
  if (!w) {
    v->flags |= ORNIC_AN_BEFORE_CAPTURE | ORNIC_AN_ADDR_UNKNOWN;
    return;
  }
  an_wqe_fill(v, w, q, pmtu);
  v->read_frame = w->frame;
  /* READ latency: request to the response that ends it (8.8). */
  if ((an_op_flags(in->f->bth.opcode) & ORNIC_OPF_LAST) &&
      an_elapsed(d->now, w->first_ns, &v->msg_time_ns))
    v->flags |= ORNIC_AN_MSG_TIME;
  if (an_window_touch(a, d, q) < 0) return;
  an_slot *s = an_slot_at(d, q);
  if (!s) return;
  v->flags |= ORNIC_AN_SEQ;
  v->hpsn = d->have_resp ? d->resp_hpsn : q;
  bool repeat = (s->bits & S_RESP) != 0, ahead = !d->have_resp || ornic_psn_lt(d->resp_hpsn, q);
  if (repeat) v->first_frame = s->resp_frame;
  if (!ahead) v->ooo_distance = (uint32_t)ornic_psn_diff(d->resp_hpsn, q);
  if (is_retry_copy(d, in, w, repeat, ahead, ornic) && an_asks(s, S_RASKED)) {
    v->flags |= ORNIC_AN_RETRANS;
    v->asked_frame = s->asked;
    /* An ORNIC late original cannot be told from the copy a retry asked
     * for: the ask stays for the copy still to come (8.3). */
    if (repeat || !ornic) an_answer(s, S_RASKED);
    s->bits |= S_RANSWERED;
    d->st->retrans++;
  } else if (repeat) {
    v->flags |= ORNIC_AN_DUP;
    d->st->dups++;
  } else if (!ahead && !an_asks(s, S_RASKED)) {
    v->flags |= ORNIC_AN_OOO;
    d->st->ooo++;
    d->st->ooo_hist[an_ooo_bucket(v->ooo_distance)]++;
    if (v->ooo_distance > d->st->ooo_max) d->st->ooo_max = v->ooo_distance;
  }
  d->resp_last = q;
  d->resp_retry = (v->flags & ORNIC_AN_RETRANS) || (repeat && !ornic);
  if (repeat) return;
  s->bits = (s->bits | S_RESP) & ~(uint32_t)S_DECLARED;
  s->resp_frame = (uint32_t)in->frame;
  if (!d->have_resp || ornic_psn_lt(d->resp_hpsn, q)) d->resp_hpsn = q;
  d->have_resp = true;
  v->epsn = d->epsn;
}

void an_response(ornic_analysis *a, an_conv *c, an_dir *d, const ornic_an_input *in, uint32_t fl,
                 ornic_an_verdict *restrict v) {
  const ornic_frame *f = in->f;
  uint32_t pmtu = an_conv_pmtu(a, c, f, fl);
  v->role = ORNIC_AN_ROLE_RESPONSE;
  v->pmtu = pmtu;
  d->st->resp_packets++;
  if (fl & ORNIC_OPF_PAYLOAD) d->st->resp_bytes += f->payload_len;
  if ((fl & ORNIC_OPF_READ) && (fl & ORNIC_OPF_PAYLOAD)) read_response(a, d, in, pmtu, v);
  if (f->ext.present & ORNIC_HDR_AETH) aeth(a, c, d, in, fl, pmtu, v);
}
