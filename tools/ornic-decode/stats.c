/* Statistics collection. Per QP (destination QP plus the address pair, so
 * both directions and distinct peers stay apart) a 4096-PSN sliding window
 * tells duplicates from out-of-order arrivals; the QP table is open
 * addressing with linear probing. Memory: about 600 bytes per QP, at most
 * DEC_STATS_MAX_QPS QPs (~40 MB), however long the capture. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

#include <ornic/ornic.h>

#define SLOT_EMPTY UINT32_MAX
#define INITIAL_SLOTS 1024u

void dec_stats_init(dec_stats *st) { memset(st, 0, sizeof *st); }

void dec_stats_free(dec_stats *st) {
  free(st->qps);
  free(st->slots);
  st->qps = NULL;
  st->slots = NULL;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

static uint64_t key_hash(uint32_t qp, const ornic_frame *f) {
  uint64_t w[4];
  memcpy(w, f->ip.src, 16);
  memcpy(w + 2, f->ip.dst, 16);
  uint64_t h = mix(0, (uint64_t)qp << 8 | f->l3);
  for (int i = 0; i < 4; i++) h = mix(h, w[i]);
  return h;
}

static bool key_equal(const dec_qp_stats *q, uint32_t qp, const ornic_frame *f) {
  return q->destqp == qp && q->l3 == f->l3 && memcmp(q->src, f->ip.src, 16) == 0 &&
         memcmp(q->dst, f->ip.dst, 16) == 0;
}

/* Slot index where the key is, or the empty slot where it would go. */
static uint32_t probe(const dec_stats *st, uint32_t qp, const ornic_frame *f, uint64_t h) {
  uint32_t mask = st->nslots - 1, i = (uint32_t)h & mask;
  while (st->slots[i] != SLOT_EMPTY && !key_equal(&st->qps[st->slots[i]], qp, f))
    i = (i + 1) & mask;
  return i;
}

static int grow_slots(dec_stats *st) {
  uint32_t n = st->nslots ? st->nslots * 2 : INITIAL_SLOTS;
  uint32_t *slots = malloc(n * sizeof *slots);
  if (!slots) return -1;
  memset(slots, 0xff, n * sizeof *slots);
  free(st->slots);
  st->slots = slots;
  st->nslots = n;
  for (uint32_t k = 0; k < st->nqps; k++) {
    const dec_qp_stats *q = &st->qps[k];
    ornic_frame key;
    key.l3 = (ornic_l3)q->l3;
    memcpy(key.ip.src, q->src, 16);
    memcpy(key.ip.dst, q->dst, 16);
    slots[probe(st, q->destqp, &key, key_hash(q->destqp, &key))] = k;
  }
  return 0;
}

static dec_qp_stats *new_qp(dec_stats *st, uint32_t qp, const ornic_frame *f) {
  if (st->nqps == st->qps_cap) {
    uint32_t cap = st->qps_cap ? st->qps_cap * 2 : INITIAL_SLOTS / 2;
    dec_qp_stats *q = realloc(st->qps, cap * sizeof *q);
    if (!q) return NULL;
    st->qps = q;
    st->qps_cap = cap;
  }
  dec_qp_stats *q = &st->qps[st->nqps];
  memset(q, 0, sizeof *q);
  q->destqp = qp;
  q->l3 = (uint8_t)f->l3;
  memcpy(q->src, f->ip.src, 16);
  memcpy(q->dst, f->ip.dst, 16);
  return q;
}

/* The QP's entry, created on first sight; NULL past the table limit. */
static dec_qp_stats *qp_lookup(dec_stats *st, uint32_t qp, const ornic_frame *f) {
  if (!st->nslots && grow_slots(st) < 0) return NULL;
  uint64_t h = key_hash(qp, f);
  uint32_t i = probe(st, qp, f, h);
  if (st->slots[i] != SLOT_EMPTY) return &st->qps[st->slots[i]];
  if (st->nqps >= DEC_STATS_MAX_QPS) return NULL;
  if ((st->nqps + 1) * 2 > st->nslots) { /* keep the load factor at most 1/2 */
    if (grow_slots(st) < 0) return NULL;
    i = probe(st, qp, f, h);
  }
  dec_qp_stats *q = new_qp(st, qp, f);
  if (!q) return NULL;
  st->slots[i] = st->nqps++;
  return q;
}

static bool window_test_set(dec_qp_stats *q, uint32_t psn) {
  uint32_t b = psn & (DEC_DUP_WINDOW - 1);
  uint64_t bit = 1ull << (b % 64);
  bool was = q->window[b / 64] & bit;
  q->window[b / 64] |= bit;
  return was;
}

/* psn_max moves up by d: the PSNs now entering the window are unseen. */
static void window_advance(dec_qp_stats *q, uint32_t d) {
  if (d >= DEC_DUP_WINDOW) {
    memset(q->window, 0, sizeof q->window);
    return;
  }
  for (uint32_t i = 1; i <= d; i++) {
    uint32_t b = (q->psn_max + i) & (DEC_DUP_WINDOW - 1);
    q->window[b / 64] &= ~(1ull << (b % 64));
  }
}

/* Out of order = a first arrival below the highest PSN seen; a PSN seen
 * before (within the window) is a duplicate instead. */
static void track_psn(dec_qp_stats *q, uint32_t psn) {
  if (!q->psn_seen) {
    q->psn_seen = true;
    q->psn_first = q->psn_min = q->psn_max = psn;
    window_test_set(q, psn);
    return;
  }
  int32_t d = ornic_psn_diff(psn, q->psn_max);
  if (d > 0) {
    window_advance(q, (uint32_t)d);
    q->psn_max = psn;
    window_test_set(q, psn);
    return;
  }
  uint32_t back = (uint32_t)-d;
  if (ornic_psn_diff(psn, q->psn_min) < 0) q->psn_min = psn;
  if (back < DEC_DUP_WINDOW && window_test_set(q, psn)) {
    q->dups++;
    return;
  }
  if (back >= DEC_DUP_WINDOW) q->beyond_window++;
  if (back) q->ooo++;
  if (back > q->ooo_max) q->ooo_max = back;
}

static void add_qp(dec_stats *st, const dec_packet *pk) {
  const ornic_frame *f = &pk->f;
  dec_qp_stats *q = qp_lookup(st, f->bth.destqp, f);
  if (!q) {
    st->untracked++;
    return;
  }
  q->packets++;
  if (pk->has_payload) q->payload_bytes += f->payload_len;
  if (pk->icrc == DEC_ICRC_BAD) q->icrc_bad++;
  if (ornic_opcode_transport(f->bth.opcode) != ORNIC_TRANSPORT_CNP) track_psn(q, f->bth.psn);
}

static void add_time(dec_stats *st, const dec_packet *pk) {
  if (!st->have_time) {
    st->have_time = true;
    st->first_sec = pk->sec;
    st->first_nsec = pk->nsec;
  }
  st->last_sec = pk->sec;
  st->last_nsec = pk->nsec;
}

void dec_stats_add_filtered(dec_stats *st, const dec_packet *pk) {
  st->total++;
  st->filtered++;
  add_time(st, pk);
}

void dec_stats_add(dec_stats *st, const dec_packet *pk) {
  st->total++;
  add_time(st, pk);
  if (pk->error) st->errors++;
  if (pk->warnings) st->warned++;
  switch (pk->cls) {
  case DEC_CLASS_SKIPPED: st->skipped[pk->skip]++; return;
  case DEC_CLASS_BROKEN: st->broken++; return;
  case DEC_CLASS_ROCE: break;
  }
  st->roce++;
  st->icrc[pk->icrc]++;
  st->opcodes[pk->f.bth.opcode]++;
  add_qp(st, pk);
}
