/* SPDX-License-Identifier: MIT */
/* The requests of one direction (PROTOCOL.md 8.2-8.4): a window of PSN
 * slots below the highest PSN, first arrivals told from repeats, repeats
 * told apart as retransmissions (asked for, or timed out on) and
 * duplicates (nobody asked), READ reservations, and the OTD rule. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ornic_an_internal.h"

/* ---- the window: its memory and its work ----------------------------------- */

/* The slots a window starts with in memory (an_dir: its PSNs not yet
 * reached take none): a short conversation's requests. */
#define AN_SLOTS_MIN 16u

/* Moves the real slots into an allocation of pcap (a power of two, at least
 * real); -1 when out of memory. */
static int slots_move(an_dir *d, uint32_t pcap) {
  an_slot *s = malloc((size_t)pcap * sizeof *s);
  if (!s) return -1;
  for (uint32_t k = 0; k < d->real; k++) {
    uint32_t psn = ornic_psn_add(d->top, -(int32_t)k);
    s[psn & (pcap - 1)] = d->slots[psn & (d->pcap - 1)];
  }
  free(d->slots);
  d->slots = s;
  d->pcap = pcap;
  return 0;
}

/* Room in memory for the newest n PSNs of the window (n <= cap). */
static int slots_hold(an_dir *d, uint32_t n) {
  if (n <= d->pcap) return 0;
  uint32_t pcap = d->pcap ? d->pcap : AN_SLOTS_MIN;
  while (pcap < n) pcap *= 2;
  return slots_move(d, pcap < d->cap ? pcap : d->cap);
}

an_slot *an_slot_real(an_dir *d, uint32_t k) {
  /* Out of memory, a slot that forgets what is written to it: callers
   * inside the window count on one. */
  static _Thread_local an_slot spare;
  uint32_t psn = ornic_psn_add(d->top, -(int32_t)k);
  if (slots_hold(d, k + 1) < 0) {
    spare = (an_slot){.passed = d->base_ns};
    return &spare;
  }
  for (uint32_t j = d->real; j <= k; j++)
    d->slots[(d->top - j) & (d->pcap - 1)] = (an_slot){.passed = d->base_ns};
  d->real = k + 1;
  return &d->slots[psn & (d->pcap - 1)];
}

/* Makes the window cap PSNs (larger or smaller), keeping the newest
 * min(valid, cap). The budget counts a window at its size in PSNs, as if
 * all its slots were in memory. The first window is always allowed (the
 * conversation's creation reserved room for it, ornic_an_conv.c); a larger
 * one only within the memory budget. */
static int resize(ornic_analysis *a, an_dir *d, uint32_t cap) {
  uint64_t was = (uint64_t)d->cap * sizeof *d->slots, will = (uint64_t)cap * sizeof *d->slots;
  if (will > was && !an_mem_take(a, will - was, d->cap == 0)) {
    a->lim.windows_held++;
    return -1;
  }
  uint32_t keep = d->valid < cap ? d->valid : cap, real = d->real;
  int ok = 0;
  if (!d->cap) {
    ok = slots_move(d, AN_SLOTS_MIN);
  } else if (cap < d->pcap) { /* the newest cap of the real ones move */
    if (d->real > cap) d->real = cap;
    ok = slots_move(d, cap);
    if (ok < 0) d->real = real;
  }
  if (ok < 0) {
    if (will > was) an_mem_give(a, will - was);
    return -1;
  }
  if (d->real > keep) d->real = keep;
  an_work(d, keep);
  if (will < was) an_mem_give(a, was - will);
  d->cap = cap;
  d->valid = keep;
  return 0;
}

/* The largest window the direction has shown it needs: between two and four
 * slots per packet and PSN its READs reserve (a power of two), from
 * AN_WIN_MIN up to cfg.window. A capture that jumps PSNs without packets in
 * between (two packets, PSN 0 and 16,000) gets no more than a capture of two
 * packets needs. */
static uint32_t allowance(const ornic_analysis *a, const an_dir *d) {
  uint64_t want = AN_WIN_MIN + 4 * (uint64_t)d->evidence;
  uint32_t cap = AN_WIN_MIN;
  while (2 * (uint64_t)cap <= want && cap < a->cfg.window) cap *= 2;
  return cap;
}

static void add_evidence(const ornic_analysis *a, an_dir *d, uint32_t n) {
  d->evidence = n < a->cfg.window - d->evidence ? d->evidence + n : a->cfg.window;
}

void an_dir_init(const ornic_analysis *a, an_dir *d) { d->credit = a->work_burst; }

/* A direction that borrowed more than it may: the smallest window from now
 * on (every step of a packet is bounded by the window), and the reserved
 * PSNs of its READs no longer count towards a larger one, until its packets
 * have paid the debt and earned the burst back. */
void an_work_limit(ornic_analysis *a, an_dir *d, ornic_an_verdict *restrict v) {
  d->limited = true;
  d->evidence = 0;
  a->lim.work_limited++;
  v->flags |= ORNIC_AN_WORK_LIMIT;
  if (d->cap > AN_WIN_MIN) resize(a, d, AN_WIN_MIN);
}

uint32_t an_window_clip(const an_dir *d, uint32_t *first, uint32_t n) {
  if (!d->have_top || !n) return 0;
  /* In distances from the top, without a 24-bit wrap inside the range: the
   * window is [1 - valid, 0]. */
  int64_t lo = ornic_psn_diff(*first, d->top), hi = lo + (int64_t)n - 1;
  if (lo < 1 - (int64_t)d->valid) lo = 1 - (int64_t)d->valid;
  if (hi > 0) hi = 0;
  if (lo > hi) return 0;
  *first = ornic_psn_add(d->top, (int32_t)lo);
  return (uint32_t)(hi - lo + 1);
}

/* PSNs kept below the oldest one still needed, so that late repeats of
 * acknowledged packets are still recognised (8.3). */
#define AN_HISTORY 2048u

/* The oldest PSN the direction still needs: unacknowledged data, the OTD
 * hole, and AN_HISTORY below them. */
static uint32_t oldest_needed(const an_dir *d, uint32_t psn) {
  uint32_t low = d->have_req ? d->epsn : psn;
  if (d->have_cum && ornic_psn_lt(ornic_psn_add(d->cum, 1), low)) low = ornic_psn_add(d->cum, 1);
  if (ornic_psn_lt(psn, low)) low = psn;
  return ornic_psn_add(low, -(int32_t)AN_HISTORY);
}

int an_window_advance(ornic_analysis *a, an_dir *d, uint32_t psn) {
  if (!d->have_top) {
    if (resize(a, d, AN_WIN_MIN) < 0) return -1;
    d->base_ns = d->now; /* every slot's time: none is real yet */
    d->real = 0;
    d->top = psn;
    d->valid = d->cap; /* nothing before the first PSN was captured */
    d->have_top = true;
    return 0;
  }
  int32_t dd = ornic_psn_diff(psn, d->top);
  if (dd <= 0) return 0;
  uint32_t span = (uint32_t)ornic_psn_diff(psn, oldest_needed(d, psn)) + 1;
  if (span > d->cap) {
    uint32_t cap = d->cap, max = d->limited ? AN_WIN_MIN : allowance(a, d);
    while (cap < span && cap < max) cap *= 2;
    if (cap > d->cap) resize(a, d, cap); /* held by the budget: the window keeps its size */
  }
  /* The slots of the PSNs now entering, psn - clear + 1 .. psn (cap divides
   * 2^24: a slot index needs no 24-bit wrap first). */
  uint32_t clear = (uint32_t)dd < d->cap ? (uint32_t)dd : d->cap;
  if (clear == d->cap) { /* every slot enters: all alike again */
    d->base_ns = d->now;
    d->real = 0;
  } else {
    uint32_t real = d->real + clear < d->cap ? d->real + clear : d->cap;
    if (slots_hold(d, real) < 0) return -1;
    for (uint32_t i = 0, q = psn - clear + 1, mask = d->pcap - 1; i < clear; i++, q++)
      d->slots[q & mask] = (an_slot){.passed = d->now};
    d->real = real;
  }
  an_work(d, clear);
  d->top = psn;
  d->valid = d->valid + clear < d->cap ? d->valid + clear : d->cap;
  return 0;
}

/* The n PSNs from `from` a READ request reserves (n <= cfg.window): the
 * window moves to the last of them at once, and the reserved PSNs count
 * towards a window that holds them (they are the responses to come). */
static void mark_reserved(ornic_analysis *a, an_dir *d, uint32_t from, uint32_t n) {
  if (n > a->cfg.window) n = a->cfg.window;
  if (!d->limited) add_evidence(a, d, n);
  if (an_window_touch(a, d, ornic_psn_add(from, (int32_t)n - 1)) < 0) return;
  n = an_window_clip(d, &from, n);
  if (n) an_slot_at(d, from); /* real from the lowest up */
  for (uint32_t i = 0, mask = d->pcap - 1; i < n; i++) {
    an_slot *s = &d->slots[(from + i) & mask];
    d->covered += !(s->bits & (S_REQ | S_RESV));
    s->bits |= S_RESV;
  }
  an_work(d, n);
}

/* ---- first arrivals and repeats ------------------------------------------- */

static void count_ooo(an_dir *d, uint32_t dist) {
  d->st->ooo++;
  d->st->ooo_hist[an_ooo_bucket(dist)]++;
  if (dist > d->st->ooo_max) d->st->ooo_max = dist;
}

static void set_seen(an_dir *d, an_slot *s, uint64_t frame) {
  d->covered += !(s->bits & (S_REQ | S_RESV));
  s->bits = (s->bits | S_REQ) & ~(uint32_t)S_DECLARED;
  s->frame = (uint32_t)frame;
  s->seen_ns = d->now;
}

/* A request at a PSN seen before (8.3). */
static void repeat(an_dir *d, an_slot *s, const ornic_an_input *in, bool ornic,
                   ornic_an_verdict *restrict v) {
  v->first_frame = s->frame;
  if (an_asks(s, S_ASKED)) {
    v->flags |= ORNIC_AN_RETRANS;
    v->asked_frame = s->asked;
    an_answer(s, S_ASKED);
  } else if (!ornic) {
    v->flags |= ORNIC_AN_RETRANS; /* an in-order sender went back: a timeout */
  } else if (in->f->bth.ackreq) {
    v->flags |= ORNIC_AN_RETRANS | ORNIC_AN_PROBE;
  } else {
    v->flags |= ORNIC_AN_DUP;
  }
  s->bits &= ~(uint32_t)S_DECLARED;
  if (v->flags & ORNIC_AN_RETRANS)
    d->st->retrans++;
  else
    d->st->dups++;
}

/* How far behind the highest PSN an original may still arrive: the
 * direction's reordering so far, and for sprayed in-order transports (RC
 * opcodes over several UDP source ports: IRN, MP-RDMA) at least OTD before
 * any has been seen. ORNIC NAKs ask only for PSNs more than OTD behind. */
static uint32_t reorder_reach(const ornic_analysis *a, const an_dir *d, bool ornic) {
  uint32_t r = d->st->ooo_max;
  return !ornic && d->sprayed && r < a->cfg.otd ? a->cfg.otd : r;
}

/* How long the packet being analysed lagged behind the window's top
 * reaching its PSN: 0 when the capture's clock stepped back, at most
 * INT64_MAX (a damaged capture's times may be 2^63 ns apart). */
static int64_t lag(const an_dir *d, const an_slot *s) {
  uint64_t ns;
  if (!an_elapsed(d->now, s->passed, &ns)) return 0;
  return ns > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ns;
}

/* The same in time: before any reordering was seen in a sprayed in-order
 * direction, any lag (the distance alone decides). */
static int64_t lag_reach(const an_dir *d, bool ornic) {
  return !ornic && d->sprayed && !d->lag_max ? INT64_MAX : d->lag_max;
}

/* ORNIC: an FSpot or Last with Address that a NAK asked for, when the
 * responder had already told the requester ADDR_CACHED for its WQE before
 * that NAK: the requester sends copies as Spot / Last then (4.2), so this is
 * an original that arrived late. */
static bool sent_before_cached(an_dir *d, const an_slot *s, const ornic_an_input *in,
                               uint32_t pmtu) {
  if (!(in->f->ext.present & ORNIC_HDR_RETH)) return false;
  const an_wqe *w = an_wqe_find(&d->wqes, in->f->bth.psn, W_WRITE, pmtu);
  return w && w->cached_frame && (uint32_t)w->cached_frame < s->asked;
}

/* A PSN a NAK asked for, seen now for the first time: the copy the NAK
 * asked for, or the original still arriving late (a NAK may declare lost
 * what is only reordered)? An original lags no further behind the highest
 * PSN, in PSNs and in time, than the direction's reordering has gone; a
 * copy, sent only after the NAK reached the requester, lags further in one
 * or the other. Where the round trip is as short as the reordering is wide
 * the two cannot be told apart (8.7). */
static bool late_original(const ornic_analysis *a, an_dir *d, const an_slot *s,
                          const ornic_an_input *in, bool ornic, uint32_t pmtu, uint32_t back) {
  if (ornic && sent_before_cached(d, s, in, pmtu)) return true;
  return back <= reorder_reach(a, d, ornic) && lag(d, s) <= lag_reach(d, ornic);
}

/* The lag of a late original that no NAK came after (8.3): a PSN an RC NAK
 * passed, asked for or not (a selective requester's), may be late for
 * another reason than reordering. */
static void count_late(an_dir *d, an_slot *s, uint32_t psn, uint32_t back, bool asked) {
  int32_t below = ornic_psn_diff(d->rc.top, psn); /* within the window: no 24-bit wrap */
  count_ooo(d, back);
  if (d->rc.have_top && below >= 0 && (uint32_t)below < d->valid) asked = true;
  if (!asked && lag(d, s) > d->lag_max) d->lag_max = lag(d, s);
}

/* A first arrival below the highest PSN (8.2): out of order, or the first
 * copy the capture sees of a packet sent again (8.3). A late original
 * leaves the ask for the copy still to come. */
static void late_first(const ornic_analysis *a, an_dir *d, an_slot *s, const ornic_an_input *in,
                       bool ornic, uint32_t pmtu, uint32_t back, ornic_an_verdict *restrict v) {
  bool asked = an_asks(s, S_ASKED) != 0;
  if (asked) v->asked_frame = s->asked;
  if (asked && !late_original(a, d, s, in, ornic, pmtu, back)) {
    v->flags |= ORNIC_AN_RETRANS;
    an_answer(s, S_ASKED);
  } else if (!asked && ornic && in->f->bth.ackreq) {
    v->flags |= ORNIC_AN_RETRANS | ORNIC_AN_PROBE;
  }
  if (!(v->flags & ORNIC_AN_RETRANS)) {
    v->flags |= ORNIC_AN_OOO;
    count_late(d, s, in->f->bth.psn, back, asked);
  } else {
    d->st->retrans++;
    if (!(s->bits & S_DECLARED)) { /* its original never showed up: lost */
      v->flags |= ORNIC_AN_LOSS;
      v->loss_first_psn = in->f->bth.psn;
      v->loss_count = 1;
      d->st->loss++;
    }
  }
  set_seen(d, s, in->frame);
  /* The original's loss is counted, here or by a NAK: a NAK of it that left
   * the responder after this copy arrived (queued behind READ responses,
   * 8.6) must not count it again. */
  if (v->flags & ORNIC_AN_RETRANS) s->bits |= S_DECLARED;
}

/* ---- the OTD rule (PROTOCOL.md 4.4 reason 1, as an observer sees it) ----- */

static void advance_epsn(an_dir *d) {
  uint32_t n = 0;
  for (; n < d->cap && ornic_psn_diff(d->hpsn, d->epsn) >= 0; n++) {
    an_slot *s = an_slot_at(d, d->epsn);
    if (!s) {
      d->epsn = ornic_psn_add(d->top, -(int32_t)d->valid + 1);
      continue;
    }
    if (!(s->bits & (S_REQ | S_RESV))) break;
    d->epsn = ornic_psn_add(d->epsn, 1);
  }
  an_work(d, n);
}

#define AN_HOLE_SCAN 256u

static void otd_check(ornic_analysis *a, an_dir *d, uint32_t psn, ornic_an_verdict *restrict v) {
  int32_t ahead = ornic_psn_diff(psn, d->epsn);
  /* Once per hole: not again while ePSN is inside the last one flagged, as
   * the responder's NAK pacing does not declare it again (4.4). */
  if (ahead <= (int32_t)a->cfg.otd || (d->hole_flagged && ornic_psn_lt(d->epsn, d->hole_limit)))
    return;
  /* The hole is counted over its first AN_HOLE_SCAN PSNs: a figure for a
   * reader, not a verdict, and a long scan per hole would cost more than the
   * rest of the analysis on a lossy trace. */
  uint32_t span = (uint32_t)ahead - a->cfg.otd, n = 0;
  if (span > d->valid) span = d->valid;
  if (span > AN_HOLE_SCAN) span = AN_HOLE_SCAN;
  for (uint32_t i = 0, q = d->epsn; i < span; i++, q++)
    n += !(an_slot_bits(d, q) & (S_REQ | S_RESV));
  v->flags |= ORNIC_AN_OTD_EXCEEDED;
  v->hole_first = d->epsn;
  v->hole_count = n;
  d->hole_flagged = true;
  d->hole_limit = ornic_psn_add(psn, -(int32_t)a->cfg.otd);
}

/* ---- messages and WQEs ------------------------------------------------------ */

static uint8_t kind_of(uint32_t fl) {
  return (fl & ORNIC_OPF_READ)     ? W_READ
         : (fl & ORNIC_OPF_WRITE)  ? W_WRITE
         : (fl & ORNIC_OPF_ATOMIC) ? W_ATOMIC
                                   : W_SEND;
}

/* ORNIC FSpot / Last with Address: the WQE it describes (3.2), new or known. */
static void ornic_wqe(ornic_analysis *a, an_dir *d, const ornic_an_input *in, uint32_t pmtu,
                      ornic_an_verdict *restrict v) {
  const ornic_ext *e = &in->f->ext;
  uint32_t start = in->f->bth.psn;
  uint32_t off = (e->present & ORNIC_HDR_OFFETH) ? e->offeth.offset : 0;
  if (off) {
    if (!pmtu) {
      v->flags |= ORNIC_AN_PMTU_UNKNOWN;
      return;
    }
    if (off % pmtu) return; /* not placeable: the end points reject it (4.3 rule 5) */
    start = ornic_psn_add(start, -(int32_t)(off / pmtu));
  }
  an_wqe w = {.kind = W_WRITE,
              .has_reth = true,
              .ornic = true,
              .start_psn = start,
              .len = e->reth.dmalen,
              .rkey = e->reth.rkey,
              .va = e->reth.va - off,
              .frame = in->frame,
              .first_ns = d->now};
  for (uint32_t i = 0; i < d->wqes.n; i++) {
    const an_wqe *o = &d->wqes.ring[i];
    if (o->start_psn == w.start_psn && o->va == w.va && o->len == w.len) return;
  }
  if (!an_wqe_push(a, &d->wqes, &w)) return;
  v->flags |= ORNIC_AN_NEW_WQE;
  d->st->wqes++;
}

/* An RC/UC/XRC First or Only: a new message (only its first copy). Returns
 * it, NULL when out of memory. */
static an_wqe *rc_message(ornic_analysis *a, an_dir *d, const ornic_an_input *in, uint32_t fl,
                          ornic_an_verdict *restrict v) {
  const ornic_ext *e = &in->f->ext;
  an_wqe w = {.kind = kind_of(fl),
              .start_psn = in->f->bth.psn,
              .frame = in->frame,
              .first_ns = d->now,
              .single = (fl & ORNIC_OPF_FIRST) && (fl & ORNIC_OPF_LAST) && !(fl & ORNIC_OPF_READ)};
  if ((e->present & ORNIC_HDR_RETH)) {
    w.has_reth = true;
    w.len = e->reth.dmalen;
    w.rkey = e->reth.rkey;
    w.va = e->reth.va;
  }
  an_wqe *pushed = an_wqe_push(a, &d->wqes, &w);
  if (!pushed) return NULL;
  v->flags |= ORNIC_AN_NEW_WQE;
  d->st->wqes++;
  return pushed;
}

/* An atomic (or any request without payload that is not a READ). */
static void atomic_message(ornic_analysis *a, an_dir *d, const ornic_an_input *in, uint32_t fl,
                           uint32_t pmtu, ornic_an_verdict *restrict v) {
  an_wqe_close(&d->wqes, in->f->bth.psn);
  an_wqe *w = rc_message(a, d, in, fl, v);
  if (!w) return;
  an_wqe_fill(v, w, in->f->bth.psn, pmtu);
  v->flags &= ~(uint32_t)ORNIC_AN_ADDR;
}

static bool wqe_starting_at(an_wqe_hist *h, uint32_t psn) {
  for (uint32_t i = 0; i < h->n; i++)
    if (h->ring[i].start_psn == psn) return true;
  return false;
}

static void place(ornic_analysis *a, an_dir *d, const ornic_an_input *in, uint32_t fl, bool ornic,
                  uint32_t pmtu, ornic_an_verdict *restrict v) {
  const ornic_frame *f = in->f;
  uint32_t psn = f->bth.psn;
  if (ornic && (fl & ORNIC_OPF_WRITE)) {
    if (f->ext.present & ORNIC_HDR_RETH) ornic_wqe(a, d, in, pmtu, v);
  } else if ((fl & ORNIC_OPF_FIRST) && !wqe_starting_at(&d->wqes, psn)) {
    /* A First seen for the first time, also when it arrives after later
     * packets of its message (sprayed) or as a retransmission whose
     * original the capture missed. */
    an_wqe *newest = an_wqe_newest(&d->wqes);
    bool behind = newest && ornic_psn_lt(psn, newest->start_psn);
    an_wqe_close(&d->wqes, psn);
    an_wqe *nw = rc_message(a, d, in, fl, v);
    if (nw && behind) nw->ornic = true; /* out of PSN order in the history */
  }
  an_wqe *w = an_wqe_find(&d->wqes, psn, ornic ? W_WRITE : 0, pmtu);
  if (w) {
    if (d->now < w->first_ns) w->first_ns = d->now; /* sprayed: a packet before its First */
    an_wqe_fill(v, w, psn, pmtu);
    if (w->kind == W_READ) v->flags &= ~(uint32_t)ORNIC_AN_ADDR; /* its RETH says it */
  } else if (fl & ORNIC_OPF_WRITE) {
    v->flags |= ORNIC_AN_ADDR_UNKNOWN;
  }
}

/* ---- READ requests (4.5: a retry re-reads a range; IBA RC READs likewise) ---- */

/* The READ that a READ request for psn retries, or NULL: the same PSN again,
 * or a PSN inside the READ asking for the tail of its remote range (VA
 * advanced by a whole number of PMTUs, the same R_Key). A READ at a later
 * PSN that reads the same buffer again (ib_read_bw does) is a new READ. */
static an_wqe *read_retry_of(an_dir *d, const ornic_reth *reth, uint32_t psn, uint32_t pmtu) {
  an_wqe *w = an_wqe_find(&d->wqes, psn, W_READ, pmtu);
  if (!w || !w->has_reth || w->rkey != reth->rkey) return NULL;
  uint32_t k = (uint32_t)ornic_psn_diff(psn, w->start_psn);
  if (k == 0) return w;
  if (reth->va <= w->va || reth->va - w->va >= w->len) return NULL;
  uint64_t off = reth->va - w->va;
  bool placed = pmtu ? off == (uint64_t)k * pmtu : off % k == 0 && an_valid_pmtu(off / k);
  return placed && reth->dmalen <= w->len - off ? w : NULL;
}

/* Whether an RC READ retry from q proves response q lost (PROTOCOL.md 8.6,
 * ours). An in-order requester asks again from the first response it has
 * not accepted and goes back N: the PSNs after q are asked for whether they
 * arrived or not, and a READ that a go-back-N resend passes is asked for
 * whole, lost or not. So a retry proves at most q, and only when it starts
 * a resend; the responder is known to have answered q (a response at q or
 * past it, or an acknowledgement covering q: responses go in PSN order); no
 * copy answering the last retry of q was seen (it arrived, or this retry
 * may have crossed it); and each way took one path (sprayed, q may only
 * have been overtaken). The PMTU places the end of the previous retry. */
static bool rc_retry_proves(const an_dir *d, const an_slot *s, uint32_t q, uint32_t pmtu) {
  if (!pmtu || d->sprayed || d->resp_sprayed || (s->bits & (S_DECLARED | S_RANSWERED)))
    return false;
  /* A go-back-N resend goes on in PSN order (past resend_next when one of
   * its packets was lost before the tap); a new one goes back to the first
   * PSN the requester lacks, at or before resend_next. */
  if (d->resend_on && ornic_psn_diff(q, d->resend_next) >= 0) return false;
  return (s->bits & S_RESP) || (d->have_resp && ornic_psn_diff(d->resp_hpsn, q) >= 0) ||
         (d->have_cum && ornic_psn_diff(d->cum, q) >= 0);
}

/* A repeated request: a go-back-N resend, if one is going on, continues at
 * the PSN after it (8.6). Anything else ends it. */
static void note_resend(an_dir *d, bool repeat, uint32_t psn, uint32_t n) {
  d->resend_on = repeat;
  d->resend_next = ornic_psn_add(psn, (int32_t)n);
}

/* Asks again for the n responses from psn (8.3). An ORNIC retry (4.5) asks
 * only for runs the requester's bitmap misses beyond its loss limit: those
 * the capture has not seen arrive are lost. Returns how many it declares
 * lost; *first is the first of them. */
static uint32_t ask_responses(ornic_analysis *a, an_dir *d, const ornic_an_input *in, uint32_t n,
                              bool ornic, uint32_t *first) {
  uint32_t q0 = in->f->bth.psn, lost = 0;
  n = an_window_clip(d, &q0, n < a->cfg.window ? n : a->cfg.window);
  an_work(d, n);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t q = ornic_psn_add(q0, (int32_t)i);
    an_slot *s = an_slot_at(d, q);
    an_ask(s, S_RASKED);
    s->asked = (uint32_t)in->frame;
    s->bits &= ~(uint32_t)S_RANSWERED; /* the copy now due is this retry's */
    if (!ornic || (s->bits & (S_RESP | S_DECLARED))) continue;
    s->bits |= S_DECLARED;
    if (!lost++) *first = q;
  }
  return lost;
}

static void read_retry(ornic_analysis *a, an_dir *d, an_wqe *w, const ornic_an_input *in,
                       uint32_t pmtu, ornic_an_verdict *restrict v) {
  uint32_t psn = in->f->bth.psn, n = an_npkts(in->f->ext.reth.dmalen, pmtu), lost = 0, first = 0;
  bool ornic = an_op_ornic(in->f->bth.opcode);
  an_slot *s0 = an_slot_at(d, psn);
  if (!ornic && s0 && rc_retry_proves(d, s0, psn, pmtu)) { /* before its asks mark the slots */
    s0->bits |= S_DECLARED;
    lost = 1;
    first = psn;
  }
  if (!n) n = 1;
  v->flags |= ORNIC_AN_RETRANS | ORNIC_AN_READ_RETRY;
  v->read_frame = w->frame;
  d->st->retrans++;
  lost += ask_responses(a, d, in, n, ornic, &first);
  note_resend(d, true, psn, n);
  if (lost) {
    v->flags |= ORNIC_AN_LOSS;
    v->loss_first_psn = first;
    v->loss_count = lost;
    d->st->loss += lost;
  }
  an_wqe_fill(v, w, psn, pmtu);
  v->flags &= ~(uint32_t)(ORNIC_AN_ADDR | ORNIC_AN_PMTU_UNKNOWN);
}

static void new_read(ornic_analysis *a, an_dir *d, const ornic_an_input *in, uint32_t pmtu,
                     ornic_an_verdict *restrict v) {
  const ornic_frame *f = in->f;
  an_wqe_close(&d->wqes, f->bth.psn);
  an_wqe *w = rc_message(a, d, in, ORNIC_OPF_READ, v);
  if (!w) return;
  w->ornic = an_op_ornic(f->bth.opcode);
  uint32_t n = an_npkts(w->len, pmtu);
  if (n > 1) mark_reserved(a, d, ornic_psn_add(f->bth.psn, 1), n - 1);
  w->reserved = n != 0;
  an_wqe_fill(v, w, f->bth.psn, pmtu);
  v->flags &= ~(uint32_t)(ORNIC_AN_ADDR | ORNIC_AN_PMTU_UNKNOWN);
}

/* A READ of unknown length (PMTU unknown) ends where the next request starts. */
static void close_open_read(ornic_analysis *a, an_dir *d, uint32_t psn, uint32_t pmtu) {
  an_wqe *w = an_wqe_newest(&d->wqes);
  if (!w || w->kind != W_READ || w->ends_known || ornic_psn_diff(psn, w->start_psn) <= 0) return;
  uint32_t np = an_npkts(w->len, pmtu);
  if (np) { /* its length says where it ends; the PMTU learnt since then reserves them */
    if (!w->reserved && np > 1) mark_reserved(a, d, ornic_psn_add(w->start_psn, 1), np - 1);
    w->reserved = true;
    return;
  }
  an_wqe_close(&d->wqes, psn);
  uint32_t n = (uint32_t)ornic_psn_diff(psn, w->start_psn);
  if (n > 1) mark_reserved(a, d, ornic_psn_add(w->start_psn, 1), n - 1);
}

/* PSNs a request takes: a READ's reservation (1 while the PMTU is unknown),
 * else 1. */
static uint32_t request_npkts(const ornic_frame *f, uint32_t fl, uint32_t pmtu) {
  if (!(fl & ORNIC_OPF_READ) || !(f->ext.present & ORNIC_HDR_RETH)) return 1;
  uint32_t n = an_npkts(f->ext.reth.dmalen, pmtu);
  return n ? n : 1;
}

/* ---- a request ---------------------------------------------------------------- */

/* A gap before a request (8.5). In a direction that is not reordered (not
 * ORNIC, one source port, no out-of-order arrival) the PSNs a request
 * skipped that no READ reserved will not come: the capture lacks them. But
 * sprayed traffic starts with jumps before its first overtaken packet
 * shows, so the judgement is held as the not-captured one is (AN_HOLD_NS
 * and AN_HOLD_PKTS): given on the request that ends the wait, for the PSNs
 * of the gap still missing then, unless the direction has shown reordering
 * meanwhile. One gap is held at a time; PSNs before the window count
 * missing (nothing reserved them). */
static uint32_t gap_missing(an_dir *d, uint32_t first, uint32_t n, uint32_t *first_missing) {
  uint32_t w0 = first, wn = an_window_clip(d, &w0, n), missing = n - wn;
  *first_missing = first;
  an_work(d, wn);
  for (uint32_t i = 0; i < wn; i++) {
    uint32_t q = ornic_psn_add(w0, (int32_t)i);
    if (an_slot_bits(d, q) & (S_REQ | S_RESV)) continue;
    if (!missing++) *first_missing = q;
  }
  return missing;
}

static bool gap_judged(const an_dir *d, bool ornic) { return !ornic && !d->sprayed && !d->st->ooo; }

static void gap_note(an_dir *d, uint32_t prev, int32_t dd, bool ornic) {
  if (dd < 2 || d->gap_on || !gap_judged(d, ornic)) return;
  uint32_t first;
  uint32_t n = gap_missing(d, ornic_psn_add(prev, 1), (uint32_t)dd - 1, &first);
  if (!n) return;
  d->gap_on = true;
  d->gap_first = first;
  d->gap_n = (uint32_t)ornic_psn_diff(prev, first) + (uint32_t)dd;
  d->gap_pkts = an_dir_pkts(d);
  d->gap_ns = d->now;
}

/* Before a request's own judgement: a held gap whose wait is over. */
static void gap_tick(an_dir *d, bool ornic, ornic_an_verdict *restrict v) {
  if (!d->gap_on) return;
  if (!gap_judged(d, ornic)) { /* reordered after all: the jump was not a gap */
    d->gap_on = false;
    return;
  }
  uint64_t waited;
  if (an_dir_pkts(d) - d->gap_pkts < AN_HOLD_PKTS || !an_elapsed(d->now, d->gap_ns, &waited) ||
      waited < AN_HOLD_NS)
    return;
  d->gap_on = false;
  uint32_t first, n = gap_missing(d, d->gap_first, d->gap_n, &first);
  if (!n) return;
  v->flags |= ORNIC_AN_PREV_NOT_CAPTURED;
  v->hole_first = first;
  v->hole_count = n;
}

/* Classifies the PSN of a request. Returns false when it is not judged. */
static bool sequence(ornic_analysis *a, an_dir *d, const ornic_an_input *in, bool ornic,
                     uint32_t pmtu, bool *fresh, ornic_an_verdict *restrict v) {
  uint32_t p = in->f->bth.psn;
  *fresh = false;
  if (!d->have_req) {
    /* RDMA-CM said where the direction starts (8.10): PSNs from there that
     * the capture lacks are missing, not from before the capture. */
    uint32_t start = p;
    int32_t ahead = d->cm_on ? ornic_psn_diff(p, d->cm_psn) : 0;
    if (ahead > 0 && (uint32_t)ahead < a->cfg.window) start = d->cm_psn;
    if (an_window_advance(a, d, start) < 0 || an_window_advance(a, d, p) < 0) return false;
    an_slot *s = an_slot_at(d, p);
    if (!s) { /* a NAK already moved the window far past it: too far to judge */
      v->flags |= ORNIC_AN_BEFORE_CAPTURE;
      return false;
    }
    d->have_req = true;
    d->floor = d->first = d->epsn = start;
    d->hpsn = d->last_psn = p;
    d->span = (uint32_t)ornic_psn_diff(p, start) + 1;
    if (start != p) gap_note(d, ornic_psn_add(start, -1), ornic_psn_diff(p, start) + 1, ornic);
    d->st->have_psn = true;
    d->st->psn_first = p;
    set_seen(d, s, in->frame);
    *fresh = true;
    v->hpsn = p;
    return true;
  }
  v->hpsn = d->hpsn;
  int32_t dd = ornic_psn_diff(p, d->hpsn);
  if (dd > 0) {
    close_open_read(a, d, p, pmtu);
    if (an_window_advance(a, d, p) < 0) return false; /* p is past hpsn */
    an_slot *s = an_slot_at(d, p);
    uint32_t prev = d->hpsn;
    d->hpsn = p;
    d->span += (uint32_t)dd;
    if (!s) { /* a NAK or READ moved the window past it: too far to judge */
      v->flags |= ORNIC_AN_BEFORE_CAPTURE;
      return false;
    }
    if (s->bits & S_REQ) { /* reserved-range request seen before via a retry */
      repeat(d, s, in, ornic, v);
    } else {
      gap_note(d, prev, dd, ornic);
      set_seen(d, s, in->frame);
      *fresh = true;
    }
    return true;
  }
  an_slot *s = an_slot_at(d, p);
  if (!s) {
    v->flags |= ORNIC_AN_BEFORE_CAPTURE;
    return false;
  }
  /* Below the lowest PSN captured but within the window: a first arrival
   * that a faster path overtook (sprayed traffic starts out of order).
   * Whether it is a copy of a packet from before the capture cannot be
   * told; it is judged as out of order, never as a problem. */
  if (ornic_psn_lt(p, d->floor)) {
    d->span += (uint32_t)ornic_psn_diff(d->floor, p);
    d->floor = p;
  }
  v->ooo_distance = (uint32_t)-dd;
  if (s->bits & S_REQ) {
    repeat(d, s, in, ornic, v);
  } else {
    late_first(a, d, s, in, ornic, pmtu, (uint32_t)-dd, v);
    *fresh = !(v->flags & ORNIC_AN_RETRANS);
  }
  return true;
}

void an_request(ornic_analysis *a, an_conv *c, an_dir *d, const ornic_an_input *in, uint32_t fl,
                ornic_an_verdict *restrict v) {
  const ornic_frame *f = in->f;
  bool ornic = (fl & AN_OP_ORNIC) != 0;
  uint32_t pmtu = an_conv_pmtu(a, c, f, fl);
  v->role = ORNIC_AN_ROLE_REQUEST;
  v->pmtu = pmtu;
  if (!d->have_req) {
    d->sport = f->udp.sport;
    d->starts_msg = (fl & ORNIC_OPF_FIRST) != 0;
  } else if (f->udp.sport != d->sport) {
    d->sprayed = true;
  }
  d->st->req_packets++;
  if (fl & ORNIC_OPF_PAYLOAD) d->st->req_bytes += f->payload_len;
  if ((fl & ORNIC_OPF_READ) && d->have_req && (f->ext.present & ORNIC_HDR_RETH)) {
    an_wqe *w = read_retry_of(d, &f->ext.reth, f->bth.psn, pmtu);
    if (w) {
      read_retry(a, d, w, in, pmtu, v);
      return;
    }
  }
  gap_tick(d, ornic, v);
  bool fresh;
  /* a NAK's tail on trial (8.6): whether this PSN was seen before */
  const an_slot *was = d->rc.on ? an_slot_at(d, f->bth.psn) : NULL;
  bool seen = was && (was->bits & S_REQ);
  bool judged = sequence(a, d, in, ornic, pmtu, &fresh, v);
  if (d->rc.on && judged && !ornic) an_rc_request(a, d, f->bth.psn, seen, v);
  note_resend(d, (v->flags & (ORNIC_AN_RETRANS | ORNIC_AN_DUP)) != 0, f->bth.psn,
              request_npkts(f, fl, pmtu));
  if (!judged) return;
  v->flags |= ORNIC_AN_SEQ;
  if (fresh) an_hold_arrival(a, c, d, f->bth.psn, in, v);
  d->last_psn = f->bth.psn;
  d->st->psn_high = d->hpsn;
  if ((fl & ORNIC_OPF_READ) && fresh && (f->ext.present & ORNIC_HDR_RETH))
    new_read(a, d, in, pmtu, v);
  else if (fl & ORNIC_OPF_PAYLOAD)
    place(a, d, in, fl, ornic, pmtu, v);
  else if ((fl & ORNIC_OPF_FIRST) && fresh)
    atomic_message(a, d, in, fl, pmtu, v);
  advance_epsn(d);
  if (ornic && (fl & ORNIC_OPF_WRITE) && !(v->flags & (ORNIC_AN_DUP | ORNIC_AN_RETRANS)))
    otd_check(a, d, f->bth.psn, v);
  v->epsn = d->epsn;
}
