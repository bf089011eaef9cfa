/* SPDX-License-Identifier: MIT */
/* A requester's work queue under the closed-loop workload (workload.h): the
 * WQE each QP posts next, its remote address, its PSN range and its packets.
 * Every profile's requester posts WQEs through here, so all profiles see the
 * same work and differ only in protocol behaviour. */
#ifndef PCAPGEN_WORK_QUEUE_H
#define PCAPGEN_WORK_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "ornic/psn.h"
#include "sim_config.h"
#include "sim.h"

/* The posting state of one QP. */
typedef struct {
  uint32_t q;      /* QP index */
  uint64_t posted; /* WQEs posted so far */
  uint32_t psn;    /* first PSN of the next WQE */
} wqe_queue;

/* The WQE in flight on a QP. */
typedef struct {
  uint64_t id;       /* WQE number on its QP, from 0 */
  uint32_t q;        /* its QP index */
  uint64_t va, len;  /* remote address and bytes */
  uint64_t post_ps;  /* simulated time it was posted */
  uint32_t start;    /* PSN of its first packet */
  uint32_t n;        /* packets: max(1, ceil(len / PMTU)) */
  uint32_t last_len; /* payload bytes of its last packet */
} wqe;

/* QP q before its first WQE: PSNs start at wl_start_psn. */
void wqe_queue_init(wqe_queue *sq, const sim_config *cfg, uint32_t q);

/* Posts the QP's next WQE into *w at the current simulated time and counts
 * it in the statistics. false when the QP has posted all of its WQEs. */
bool wqe_post(wqe_queue *sq, sim *s, const sim_config *cfg, wqe *w);

/* Records the completion of w now. */
void wqe_complete(sim *s, const wqe *w);

static inline uint32_t wqe_psn(const wqe *w, uint32_t idx) {
  return ornic_psn_add(w->start, (int32_t)idx);
}
/* PSN offset of psn within w (>= n when psn is outside it). */
static inline uint32_t wqe_idx(const wqe *w, uint32_t psn) { return ornic_psn_off(psn, w->start); }
static inline uint32_t wqe_plen(const wqe *w, uint32_t pmtu, uint32_t idx) {
  return idx == w->n - 1 ? w->last_len : pmtu;
}

#endif
