/* SPDX-License-Identifier: MIT */
/* Conversations (PROTOCOL.md 8.1). A packet names the QP it goes to (BTH
 * DestQP), never the QP it comes from. Traffic into one QP from one address
 * is a "half"; the first half seen makes a conversation with A = its source
 * and B = its destination QP. The reverse half (into A's QP) is found by
 * evidence: a response or request on it whose PSN fits the PSN space the
 * conversation already follows. Until then it may have made a conversation
 * of its own; the two are merged once a packet proves them one QP pair. */
#include <stdlib.h>
#include <string.h>

#include "ornic_an_internal.h"

static void pair_key(an_key *k, uint8_t alen, const uint8_t *a, const uint8_t *b) {
  memset(k, 0, sizeof *k);
  k->alen = alen;
  k->qp = AN_PAIR_KEY;
  memcpy(k->src, a, 16);
  memcpy(k->dst, b, 16);
}

/* Follows merges: a half of a merged conversation now belongs to the one it
 * was merged into, with A and B swapped (the merged one's A is the keeper's B). */
static an_half *resolve(ornic_analysis *a, an_half *h) {
  while (a->convs[h->conv].pub.merged_into) {
    h->conv = a->convs[h->conv].pub.merged_into - 1;
    h->side ^= 1;
  }
  return h;
}

/* What a new conversation will take before it shows it needs more: its
 * entry, the first window and WQE ring of each direction, its two halves
 * and their map entries (at the map's load of at most 1/2). */
static uint64_t conv_cost(void) {
  return sizeof(an_conv) + 2 * (AN_WIN_MIN * sizeof(an_slot) + 4 * sizeof(an_wqe)) +
         2 * (sizeof(an_half) + 2 * (sizeof(an_key) + sizeof(uint32_t)));
}

static uint64_t mem_room(const ornic_analysis *a) {
  uint64_t used = a->lim.memory_used, budget = a->lim.memory_budget;
  return used < budget ? budget - used : 0;
}

/* Room in the table for one more conversation: doubled, or less when the
 * budget has no room for the double. */
static int convs_grow(ornic_analysis *a) {
  uint32_t cap = a->convs_cap ? a->convs_cap * 2 : 16;
  uint64_t room = mem_room(a) / sizeof(an_conv);
  if (cap - a->convs_cap > room) cap = a->convs_cap + (uint32_t)(room < 16 ? room : room / 2);
  if (cap == a->convs_cap) return -1;
  an_conv *c = realloc(a->convs, (size_t)cap * sizeof *c);
  if (!c) return -1;
  an_mem_take(a, (uint64_t)(cap - a->convs_cap) * sizeof *c, true);
  a->convs = c;
  a->convs_cap = cap;
  return 0;
}

static int conv_new(ornic_analysis *a, const an_key *k) {
  a->over_budget = false;
  if (a->nconvs >= a->cfg.max_convs) return -1;
  a->over_budget = mem_room(a) < conv_cost();
  if (a->over_budget) return -1;
  if (a->nconvs == a->convs_cap) {
    if (convs_grow(a) < 0) {
      a->over_budget = true;
      return -1;
    }
    /* dir.st points into the struct it is in: re-aim after moving */
    for (uint32_t i = 0; i < a->nconvs; i++)
      for (int d = 0; d < 2; d++) a->convs[i].dir[d].st = &a->convs[i].pub.dir[d];
  }
  an_key pk;
  pair_key(&pk, k->alen, k->src, k->dst);
  uint32_t head = an_map_get(&a->map, &pk);
  if (an_map_put(a, &pk, a->nconvs) < 0) return -1;
  an_conv *c = &a->convs[a->nconvs];
  memset(c, 0, sizeof *c);
  c->pub.id = a->nconvs + 1;
  c->pub.addr_len = k->alen;
  memcpy(c->pub.a, k->src, 16);
  memcpy(c->pub.b, k->dst, 16);
  c->pub.qp_b = k->qp;
  c->pub.qp_b_known = true;
  c->next_pair = head;
  for (int d = 0; d < 2; d++) {
    c->dir[d].st = &c->pub.dir[d];
    an_dir_init(a, &c->dir[d]);
  }
  return (int)a->nconvs++;
}

static an_half *half_new(ornic_analysis *a, const an_key *k, uint32_t conv, uint8_t side) {
  if (a->nhalves == a->halves_cap) {
    uint32_t cap = a->halves_cap ? a->halves_cap * 2 : 32;
    an_half *h = realloc(a->halves, (size_t)cap * sizeof *h);
    if (!h) return NULL;
    an_mem_take(a, (uint64_t)(cap - a->halves_cap) * sizeof *h, true);
    a->halves = h;
    a->halves_cap = cap;
  }
  if (an_map_put(a, k, a->nhalves) < 0) return NULL;
  an_half *h = &a->halves[a->nhalves++];
  h->conv = conv;
  h->side = side;
  return h;
}

/* ---- fitting a packet to a PSN space -------------------------------------- */

/* How well a response with PSN r fits the requests of d: smaller is better,
 * -1 does not fit. */
static int64_t fit_response(ornic_analysis *a, an_conv *c, an_dir *d, const ornic_frame *f) {
  if (!d->have_req) return -1;
  uint32_t r = f->bth.psn;
  uint16_t fl = an_op_flags(f->bth.opcode);
  if ((fl & ORNIC_OPF_READ) && (fl & ORNIC_OPF_PAYLOAD))
    return an_wqe_find(&d->wqes, r, W_READ, c->pmtu ? c->pmtu : a->cfg.pmtu) ? 0 : -1;
  int32_t dd = ornic_psn_diff(r, d->hpsn);
  if (dd < -(int32_t)a->cfg.window || dd > 1024)
    return -1; /* 1024: ACKs of requests not captured */
  return dd < 0 ? -(int64_t)dd : dd;
}

/* How well a request with PSN p fits the responses d has seen. */
static int64_t fit_request(ornic_analysis *a, const an_dir *d, uint32_t p) {
  if (!d->have_cum) return -1;
  int32_t dd = ornic_psn_diff(p, ornic_psn_add(d->cum, 1));
  if (dd < -(int32_t)a->cfg.window || dd > (int32_t)a->cfg.window) return -1;
  return dd < 0 ? -(int64_t)dd : dd;
}

/* Conversations a pairing looks at, newest first: without a bound, a
 * capture of many unpaired QPs between two hosts (a hostile one: N requests,
 * then N responses to N other QPs) costs N steps a packet, N^2 in all
 * (docs/RELIABILITY.md "Hostile captures"). */
#define AN_PAIR_SCAN 256u

/* A packet from X into QP q of Y, in a half not yet paired: which
 * conversation with A = Y, B = X and A's QP unknown does it fit best?
 * (Its packets are responses to A's requests, or requests answered by
 * responses travelling X -> Y.) The AN_PAIR_SCAN newest of the two hosts'
 * conversations are looked at; paired and merged ones, never candidates
 * again, are unlinked from the list on the way (but its head). */
static int best_candidate(ornic_analysis *a, const an_key *k, uint32_t except,
                          const ornic_frame *f) {
  an_key pk;
  pair_key(&pk, k->alen, k->dst, k->src);
  uint16_t fl = an_op_flags(f->bth.opcode);
  bool response = (fl & ORNIC_OPF_RESPONSE) != 0;
  int best = -1;
  int64_t best_fit = -1;
  uint32_t prev = AN_NONE, seen = 0;
  for (uint32_t i = an_map_get(&a->map, &pk); i != AN_NONE && seen < AN_PAIR_SCAN;
       i = a->convs[i].next_pair, seen++) {
    an_conv *c = &a->convs[i];
    if (c->pub.merged_into || c->pub.qp_a_known) {
      if (prev != AN_NONE) {
        a->convs[prev].next_pair = c->next_pair;
        continue; /* prev stays */
      }
    } else if (i != except) {
      int64_t fit = response ? fit_response(a, c, &c->dir[ORNIC_AN_DIR_AB], f)
                             : fit_request(a, &c->dir[ORNIC_AN_DIR_BA], f->bth.psn);
      if (fit >= 0 && (best < 0 || fit < best_fit)) {
        best = (int)i;
        best_fit = fit;
      }
    }
    prev = i;
  }
  return best;
}

/* The per-QP cache entry of a DestQP (a multiplicative hash: QP numbers are
 * often consecutive or share low bits). */
static inline uint32_t qp_slot(uint32_t qp) { return (qp * 0x9e3779b1u) >> 26; }
_Static_assert(AN_QP_CACHE == 1u << (32 - 26), "qp_slot: one entry per hash value");

an_half *an_half_lookup(ornic_analysis *a, const ornic_an_input *in) {
  const uint8_t *src, *dst;
  uint8_t alen = an_key_addrs(in, &src, &dst);
  uint32_t slot = qp_slot(in->f->bth.destqp);
  if (an_key_is(&a->qp_key[slot], alen, in->f->bth.destqp, src, dst))
    return &a->halves[a->qp_half[slot]];
  an_key k;
  an_make_key(&k, in);
  uint32_t i = an_map_get(&a->map, &k);
  if (i != AN_NONE) {
    a->last_key[1] = a->last_key[0];
    a->last_half[1] = a->last_half[0];
    a->last_key[0] = a->qp_key[slot] = k;
    a->last_half[0] = a->qp_half[slot] = i;
    return resolve(a, &a->halves[i]);
  }
  /* A new half: the reverse of a conversation it fits, or a conversation of its own. */
  int c = best_candidate(a, &k, AN_NONE, in->f);
  if (c >= 0) {
    a->convs[c].pub.qp_a = k.qp;
    a->convs[c].pub.qp_a_known = true;
    return half_new(a, &k, (uint32_t)c, 1);
  }
  c = conv_new(a, &k);
  a->new_unpaired = c >= 0; /* this packet's search for its pair is done */
  return c < 0 ? NULL : half_new(a, &k, (uint32_t)c, 0);
}

static void key_of(an_key *k, uint8_t alen, const uint8_t *src, const uint8_t *dst, uint32_t qp) {
  memset(k, 0, sizeof *k);
  k->alen = alen;
  k->qp = qp;
  memcpy(k->src, src, alen);
  memcpy(k->dst, dst, alen);
}

int an_conv_from_cm(ornic_analysis *a, uint8_t alen, const uint8_t *src, const uint8_t *dst,
                    uint32_t qa, uint32_t qb) {
  an_key ab, ba;
  key_of(&ab, alen, src, dst, qb);
  key_of(&ba, alen, dst, src, qa);
  if (an_map_get(&a->map, &ab) != AN_NONE || an_map_get(&a->map, &ba) != AN_NONE) return -1;
  int c = conv_new(a, &ab);
  if (c < 0) return -1;
  a->convs[c].pub.qp_a = qa;
  a->convs[c].pub.qp_a_known = true;
  if (!half_new(a, &ab, (uint32_t)c, 0) || !half_new(a, &ba, (uint32_t)c, 1)) return -1;
  return c;
}

/* ---- merging two conversations into one --------------------------------- */

static void add_stats(ornic_an_dir_stats *d, const ornic_an_dir_stats *s) {
  d->req_packets += s->req_packets;
  d->req_bytes += s->req_bytes;
  d->resp_packets += s->resp_packets;
  d->resp_bytes += s->resp_bytes;
  d->wqes += s->wqes;
  d->wqes_done += s->wqes_done;
  d->ooo += s->ooo;
  for (int b = 0; b < ORNIC_AN_OOO_BUCKETS; b++) d->ooo_hist[b] += s->ooo_hist[b];
  if (s->ooo_max > d->ooo_max) d->ooo_max = s->ooo_max;
  d->retrans += s->retrans;
  d->dups += s->dups;
  d->loss += s->loss;
  d->not_captured += s->not_captured;
  d->naks += s->naks;
  d->acks += s->acks;
  d->acks_stale += s->acks_stale;
  d->ecn += s->ecn;
  d->cnp += s->cnp;
  if (s->have_time) {
    if (!d->have_time || s->first_sec < d->first_sec ||
        (s->first_sec == d->first_sec && s->first_nsec < d->first_nsec)) {
      d->first_sec = s->first_sec;
      d->first_nsec = s->first_nsec;
    }
    if (!d->have_time || s->last_sec > d->last_sec ||
        (s->last_sec == d->last_sec && s->last_nsec > d->last_nsec)) {
      d->last_sec = s->last_sec;
      d->last_nsec = s->last_nsec;
    }
    d->have_time = true;
  }
  if (s->have_psn && !d->have_psn) {
    d->have_psn = true;
    d->psn_first = s->psn_first;
    d->psn_high = s->psn_high;
  }
}

/* Copies what src's slots know into dst's window. */
static void merge_slots(ornic_analysis *a, an_dir *dst, an_dir *src) {
  if (!src->slots) return;
  if (!dst->slots) {
    dst->slots = src->slots;
    dst->cap = src->cap;
    dst->pcap = src->pcap;
    dst->real = src->real;
    dst->base_ns = src->base_ns;
    dst->valid = src->valid;
    dst->top = src->top;
    dst->have_top = src->have_top;
    src->slots = NULL;
    return;
  }
  /* src's slots not real have no bits: only its real ones can add any */
  for (uint32_t i = 0; i < src->real; i++) {
    uint32_t psn = ornic_psn_add(src->top, -(int32_t)i);
    an_slot *s = &src->slots[psn & (src->pcap - 1)], *t;
    if (!s->bits || !(t = an_slot_at(dst, psn))) continue;
    t->bits |= s->bits;
    if (!t->frame) t->frame = s->frame;
    if (!t->resp_frame) t->resp_frame = s->resp_frame;
    if (!t->asked) t->asked = s->asked;
  }
  an_work(dst, src->valid);
  an_mem_give(a, (uint64_t)src->cap * sizeof *src->slots);
  free(src->slots);
  src->slots = NULL;
  src->cap = src->pcap = src->real = 0;
}

/* The UDP source ports seen, which the proofs of loss on one path need
 * (8.6): the two merged directions are one PSN space, their ports one set.
 * A port left behind made the next request look sprayed. */
static void absorb_ports(an_dir *dst, const an_dir *src) {
  if (src->have_req) {
    if (!dst->have_req) dst->sport = src->sport;
    dst->sprayed |= src->sprayed || (dst->have_req && dst->sport != src->sport);
  }
  if (src->have_resp_sport) {
    if (!dst->have_resp_sport) dst->resp_sport = src->resp_sport;
    dst->resp_sprayed |=
        src->resp_sprayed || (dst->have_resp_sport && dst->resp_sport != src->resp_sport);
    dst->have_resp_sport = true;
  }
}

/* dst (the keeper's direction) takes the parts of src it lacks. */
static void dir_absorb(ornic_analysis *a, an_dir *dst, an_dir *src) {
  absorb_ports(dst, src);
  if (!dst->have_req && src->have_req) {
    dst->have_req = true;
    dst->floor = src->floor;
    dst->first = src->first;
    dst->hpsn = src->hpsn;
    dst->epsn = src->epsn;
    dst->last_psn = src->last_psn;
    dst->starts_msg = src->starts_msg;
    dst->hole_flagged = src->hole_flagged;
    dst->hole_limit = src->hole_limit;
    an_wqe_free(a, &dst->wqes);
    dst->wqes = src->wqes;
    memset(&src->wqes, 0, sizeof src->wqes);
  }
  if (dst->rc.mode == AN_RC_UNKNOWN) dst->rc.mode = src->rc.mode; /* 8.6: one requester */
  if (!dst->have_cum && src->have_cum) {
    dst->have_cum = true;
    dst->cum = src->cum;
  }
  if (!dst->have_msn && src->have_msn) {
    dst->have_msn = true;
    dst->msn = src->msn;
  }
  if (!dst->have_resp && src->have_resp) {
    dst->have_resp = true;
    dst->resp_hpsn = src->resp_hpsn;
  }
  if (!src->have_req || dst->have_req) merge_slots(a, dst, src);
  add_stats(dst->st, src->st);
  an_report_merge(a, dst, src);
}

/* keep's A is gone's B, so keep.dir[AB] meets gone.dir[BA] and vice versa. */
static void merge(ornic_analysis *a, uint32_t keep, uint32_t gone) {
  an_conv *k = &a->convs[keep], *g = &a->convs[gone];
  for (int d = 0; d < 2; d++) dir_absorb(a, &k->dir[d], &g->dir[1 - d]);
  k->pub.qp_a = g->pub.qp_b;
  k->pub.qp_a_known = true;
  k->pub.transport_ornic |= g->pub.transport_ornic;
  k->pub.roce_versions |= g->pub.roce_versions;
  for (int d = 0; d < 2; d++) k->pub.acked_before_seen[d] += g->pub.acked_before_seen[1 - d];
  if (!k->pmtu) k->pmtu = g->pmtu;
  g->pub.merged_into = k->pub.id;
  /* The cached halves are resolved ones (an_half_for): halves of `gone` no longer are. */
  an_half_cache_clear(a);
}

bool an_try_pair(ornic_analysis *a, an_half *h, const ornic_an_input *in) {
  an_conv *c = &a->convs[h->conv];
  if (c->pub.qp_a_known || h->side != 0) return false;
  an_key k;
  an_make_key(&k, in);
  int other = best_candidate(a, &k, h->conv, in->f);
  if (other < 0) return false;
  uint32_t lo = h->conv < (uint32_t)other ? h->conv : (uint32_t)other;
  uint32_t hi = lo == h->conv ? (uint32_t)other : h->conv;
  merge(a, lo, hi);
  resolve(a, h);
  return true;
}
