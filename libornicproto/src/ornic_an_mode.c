/* SPDX-License-Identifier: MIT */
/* How an RC requester answers a PSN sequence error NAK (PROTOCOL.md 8.6,
 * "go-back-N or selective", ours). IBA RC's requester goes back: it sends
 * every PSN from the NAK's on again. A selective one resends the NAK's PSN
 * alone and goes on with new data: IRN (Mittal et al., SIGCOMM 2018,
 * "selective retransmission", ../shared/seeds/irn-excerpt.txt) and LEFT as
 * ornic-pcapgen's profile puts it on the wire (docs/PROFILES.md, left; the
 * LEFT slides argue against go-back-N, ../shared/seeds/left-slides-2024.txt).
 * The observer learns which from what the direction sends after a NAK at n,
 * when the highest request seen was h:
 *   go-back-N: copies of n + 1 .. h follow the copy of n; their originals
 *     were seen, so they are repeats (two distinct ones decide, or the one
 *     a tail of one PSN holds);
 *   selective: no such repeat while the direction sends more requests after
 *     the copy of n than the tail and its reordering could hold back, or
 *     before an acknowledgement covers h.
 * Until it knows, a NAK on a sprayed direction asks for n alone: a late
 * original of the tail is out of order, not a retransmission (nothing
 * proves it was sent twice); on one path, where nothing arrives late, for
 * the whole tail. Learning go-back-N asks for the rest of the tail. */
#include "ornic_an_internal.h"

_Static_assert(sizeof(an_rc_trial) == 32, "PROTOCOL.md 8.6 states the size");

/* Distinct tail repeats that prove go-back-N: two, or the whole tail. */
static uint32_t reps_needed(const an_rc_trial *t) {
  uint32_t tail = (uint32_t)ornic_psn_diff(t->h, t->n);
  return tail < 2 ? tail : 2;
}

/* How far behind its neighbours a packet of the direction may arrive: its
 * reordering so far, at least OTD where it is sprayed (as 8.3's reach). */
static uint32_t reach(const ornic_analysis *a, const an_dir *d) {
  uint32_t r = d->st->ooo_max;
  return d->sprayed && r < a->cfg.otd ? a->cfg.otd : r;
}

uint32_t an_rc_nak_span(an_dir *d, uint32_t psn, uint32_t span, uint64_t frame) {
  an_rc_trial *t = &d->rc;
  t->have_top = true; /* whatever it asks, the PSNs up to here are no longer unasked (8.3) */
  t->top = ornic_psn_add(psn, (int32_t)span - 1);
  /* On one path nothing arrives late: a first arrival of the tail is a copy
   * whoever resent it, and asking for it costs no false flag. */
  uint32_t ask = d->sprayed ? 1 : span;
  if (t->mode == AN_RC_GOBACK) return span;
  /* selective; or no tail (both modes send psn alone): nothing to learn */
  if (t->mode == AN_RC_SELECTIVE || span < 2) return ask;
  *t = (an_rc_trial){.on = true,
                     .have_top = true,
                     .tail_asked = !d->sprayed,
                     .top = t->top,
                     .n = psn,
                     .h = t->top,
                     .frame = (uint32_t)frame};
  return ask;
}

static void learn_goback(ornic_analysis *a, an_dir *d, uint32_t psn) {
  an_rc_trial *t = &d->rc;
  uint32_t first;
  t->mode = AN_RC_GOBACK;
  t->on = false;
  int32_t rest = ornic_psn_diff(t->h, psn);
  if (rest > 0 && !t->tail_asked)
    an_ask_range(a, d, ornic_psn_add(psn, 1), (uint32_t)rest, t->frame, false, false, &first);
}

static void learn_selective(an_dir *d) {
  d->rc.mode = AN_RC_SELECTIVE;
  d->rc.on = false;
}

void an_rc_request(ornic_analysis *a, an_dir *d, uint32_t psn, bool seen,
                   const ornic_an_verdict *v) {
  an_rc_trial *t = &d->rc;
  int32_t k = ornic_psn_diff(psn, t->n);
  if (!k) {
    t->copy |= (v->flags & ORNIC_AN_RETRANS) != 0;
    return;
  }
  if (seen && k > 0 && ornic_psn_diff(psn, t->h) <= 0 && psn != t->last_rep) {
    t->last_rep = psn;
    if (++t->reps >= reps_needed(t)) { /* at most 2: reps_needed's bound */
      learn_goback(a, d, psn);
      return;
    }
  }
  if (t->copy && ++t->after > (uint32_t)ornic_psn_diff(t->h, t->n) + reach(a, d))
    learn_selective(d);
}

void an_rc_acked(an_dir *d) {
  const an_rc_trial *t = &d->rc;
  if (t->reps < reps_needed(t) && ornic_psn_diff(d->cum, t->h) >= 0) learn_selective(d);
}
