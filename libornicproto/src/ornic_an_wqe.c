/* SPDX-License-Identifier: MIT */
/* WQEs and messages of one direction, newest last, and the addresses they
 * imply (PROTOCOL.md 3.2: Write_Addr = Start_Addr + (PSN - Start_PSN) *
 * PMTU; an RC WRITE's Middle and Last packets follow the same rule from
 * the First's RETH, and a READ response's source from the request's VA).
 * Late copies of an older WQE's packets arrive after the next WQE started,
 * and many READs may be outstanding, so the last AN_WQE_HIST are kept. */
#include <stdlib.h>
#include <string.h>

#include "ornic_an_internal.h"

/* The ring grows from 4 entries as WQEs come (most conversations hold a few
 * messages in flight, and 64 entries are 5 KB a direction); full at its
 * size, or when the memory budget says no, it wraps. Growing a full ring
 * whose head is its last entry keeps its order. */
static void ring_grow(ornic_analysis *a, an_wqe_hist *h) {
  uint32_t cap = h->cap ? h->cap * 2 : 4;
  if ((h->cap && h->head != h->n - 1) ||
      !an_mem_take(a, (uint64_t)(cap - h->cap) * sizeof *h->ring, h->cap == 0))
    return;
  an_wqe *r = realloc(h->ring, (size_t)cap * sizeof *r);
  if (!r) {
    an_mem_give(a, (uint64_t)(cap - h->cap) * sizeof *h->ring);
    return;
  }
  h->ring = r;
  h->cap = cap;
}

an_wqe *an_wqe_push(ornic_analysis *a, an_wqe_hist *h, const an_wqe *w) {
  if (h->n == h->cap && h->cap < AN_WQE_HIST) ring_grow(a, h);
  if (!h->cap) return NULL;
  h->head = h->n ? (h->head + 1) & (h->cap - 1) : 0; /* cap: a power of two */
  if (h->n < h->cap) h->n++;
  h->ring[h->head] = *w;
  h->ring[h->head].idx = ++h->count;
  h->ring[h->head].np_pmtu = AN_NP_NONE; /* single, has_reth and len are final now */
  return &h->ring[h->head];
}

void an_wqe_free(ornic_analysis *a, an_wqe_hist *h) {
  an_mem_give(a, (uint64_t)h->cap * sizeof *h->ring);
  free(h->ring);
  memset(h, 0, sizeof *h);
}

void an_wqe_close(an_wqe_hist *h, uint32_t psn) {
  an_wqe *w = an_wqe_newest(h);
  if (w && !w->ends_known && ornic_psn_diff(psn, w->start_psn) > 0) {
    w->end_psn = psn;
    w->ends_known = true;
  }
}

an_wqe *an_wqe_search(an_wqe_hist *h, uint32_t psn, uint8_t kind, uint32_t pmtu) {
  uint32_t j = h->head; /* newest first */
  for (uint32_t i = 0; i < h->n; i++, j = (j + h->cap - 1) & (h->cap - 1)) {
    an_wqe *w = &h->ring[j];
    int32_t k = ornic_psn_diff(psn, w->start_psn);
    if (k < 0) continue;
    if ((!kind || w->kind == kind) && an_wqe_holds(w, psn, k, pmtu)) return w;
    /* Messages follow each other in PSN order: past the start of a newer
     * message, a PSN cannot be in an older one. */
    if (!w->ornic && kind == 0) return NULL;
  }
  return NULL;
}
