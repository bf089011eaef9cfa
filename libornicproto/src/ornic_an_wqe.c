/* SPDX-License-Identifier: MIT */
/* WQEs and messages of one direction, newest last, and the addresses they
 * imply (PROTOCOL.md 3.2: Write_Addr = Start_Addr + (PSN - Start_PSN) *
 * PMTU; an RC WRITE's Middle and Last packets follow the same rule from
 * the First's RETH, and a READ response's source from the request's VA).
 * Late copies of an older WQE's packets arrive after the next WQE started,
 * and many READs may be outstanding, so the last AN_WQE_HIST are kept. */
#include "ornic_an_internal.h"

uint32_t an_npkts(uint32_t len, uint32_t pmtu) {
  if (!pmtu) return 0;
  return len ? (uint32_t)(((uint64_t)len + pmtu - 1) / pmtu) : 1;
}

an_wqe *an_wqe_newest(an_wqe_hist *h) { return h->n ? &h->ring[h->head] : NULL; }

static an_wqe *at(an_wqe_hist *h, uint32_t i) { /* 0: newest */
  return &h->ring[(h->head + AN_WQE_HIST - i) % AN_WQE_HIST];
}

an_wqe *an_wqe_push(an_wqe_hist *h, const an_wqe *w) {
  h->head = h->n ? (h->head + 1) % AN_WQE_HIST : 0;
  if (h->n < AN_WQE_HIST) h->n++;
  h->ring[h->head] = *w;
  h->ring[h->head].idx = ++h->count;
  return &h->ring[h->head];
}

void an_wqe_close(an_wqe_hist *h, uint32_t psn) {
  an_wqe *w = an_wqe_newest(h);
  if (w && !w->ends_known && ornic_psn_diff(psn, w->start_psn) > 0) {
    w->end_psn = psn;
    w->ends_known = true;
  }
}

/* Packets of w: its length at the PMTU, else up to the next message. */
static bool holds(const an_wqe *w, uint32_t psn, uint32_t pmtu) {
  int32_t k = ornic_psn_diff(psn, w->start_psn);
  if (k < 0) return false;
  uint32_t n = w->single ? 1 : w->has_reth ? an_npkts(w->len, pmtu) : 0;
  if (n) return (uint32_t)k < n;
  if (w->ends_known) return ornic_psn_diff(w->end_psn, psn) > 0;
  return true; /* the newest message, length unknown: any PSN after its start */
}

an_wqe *an_wqe_find(an_wqe_hist *h, uint32_t psn, uint8_t kind, uint32_t pmtu) {
  for (uint32_t i = 0; i < h->n; i++) {
    an_wqe *w = at(h, i);
    if ((!kind || w->kind == kind) && holds(w, psn, pmtu)) return w;
    /* Messages follow each other in PSN order: past the start of a newer
     * message, a PSN cannot be in an older one. */
    if (ornic_psn_diff(psn, w->start_psn) >= 0 && !w->ornic && kind == 0) return NULL;
  }
  return NULL;
}

void an_wqe_fill(ornic_an_verdict *v, const an_wqe *w, uint32_t psn, uint32_t pmtu) {
  uint32_t k = (uint32_t)ornic_psn_diff(psn, w->start_psn);
  v->flags |= ORNIC_AN_WQE;
  v->wqe = w->idx;
  v->wqe_start_psn = w->start_psn;
  v->wqe_pkt = k;
  v->wqe_frame = w->frame;
  v->wqe_npkts = w->single ? 1 : w->has_reth ? an_npkts(w->len, pmtu) : 0;
  if (!v->wqe_npkts && w->ends_known)
    v->wqe_npkts = (uint32_t)ornic_psn_diff(w->end_psn, w->start_psn);
  if (v->wqe_npkts) v->wqe_last_psn = ornic_psn_add(w->start_psn, (int32_t)v->wqe_npkts - 1);
  if (!w->has_reth) return;
  v->wqe_start_addr = w->va;
  v->wqe_len = w->len;
  if (pmtu || k == 0) {
    v->addr = w->va + (uint64_t)k * pmtu;
    v->flags |= ORNIC_AN_ADDR;
  } else {
    v->flags |= ORNIC_AN_PMTU_UNKNOWN;
  }
}
