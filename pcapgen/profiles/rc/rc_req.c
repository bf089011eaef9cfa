/* SPDX-License-Identifier: MIT */
/* The rc profile's requester QP: posts WQEs up to --rc-outstanding, sends
 * their packets in PSN order, completes them in order from ACKs and READ
 * responses, and goes back N on a NAK, on a gap in the READ responses, or on
 * a timeout (IBA 9.7.5). */
#include <stdlib.h>

#include "pattern.h"
#include "rc_internal.h"
#include "workload.h"

static int32_t diff(uint32_t a, uint32_t b) { return ornic_psn_diff(a, b); }

static rc_wqe *wqe_at(rc_req *rq, uint64_t id) { return &rq->ring[id % rq->cap]; }
static uint32_t wqe_end(const rc_wqe *w) { return ornic_psn_add(w->start, (int32_t)w->n); }

int rc_req_init(rcpair *r, rc_req *rq, int node, uint32_t q) {
  const sim_config *cfg = r->cfg;
  rq->node = node;
  rq->q = q;
  rq->cap = cfg->protocol.rc.outstanding;
  if (!(rq->ring = calloc(rq->cap, sizeof *rq->ring))) return -1;
  rq->total = wl_wqe_count(cfg, q);
  /* Each QP has its own PSN space: host B's draws come after every host A QP's. */
  rq->next_psn = wl_start_psn(cfg, q + 4096u * (uint32_t)node);
  rq->una = rq->hi = rq->next_psn;
  rtt_init(&rq->rtt, sim_times(r->s)->rtt_ps);
  ltimer_init(&rq->rto);
  return 0;
}

void rc_req_free(rc_req *rq) {
  free(rq->ring);
  rq->ring = NULL;
}

static void arm_rto(rcpair *r, rc_req *rq) {
  uint64_t rto = rtt_rto(&rq->rtt, sim_times(r->s)->otd_ps);
  ltimer_arm(r->s, &rq->rto, rq->node, rq->q, sim_now(r->s) + rto);
}

/* Posts WQEs while there is room, work left and (ping-pong) the peer's turn is over. */
void rc_req_post(rcpair *r, rc_req *rq) {
  if (!rc_cm_up(r, rq->node, rq->q)) return; /* --rc-cm: the pair is not set up yet */
  bool any = false;
  while (rq->post - rq->head < rq->cap && rq->post < rq->total &&
         rc_may_post(r, rq->node, rq->q, rq->post)) {
    rc_wqe *w = wqe_at(rq, rq->post);
    w->id = rq->post++;
    w->op = rc_wqe_op(r, rq->node, rq->q, w->id);
    w->va = wl_va(r->cfg, rq->q, w->id);
    w->len = wl_wqe_len(r->cfg, rq->q, w->id);
    w->n = wl_npkts(w->len, r->cfg->workload.pmtu);
    w->last_len = wl_last_len(w->len, r->cfg->workload.pmtu);
    w->start = rq->next_psn;
    rq->next_psn = wqe_end(w);
    w->post_ps = sim_now(r->s);
    stats_wqe_posted(sim_stats(r->s), w->post_ps);
    any = true;
  }
  if (any) rc_ready(r, rq->node, 2 * rq->q + 1);
}

/* ---- sending ------------------------------------------------------------------ */

static uint8_t send_opcode(const rc_wqe *w, uint32_t idx) {
  bool imm = w->op == RC_OP_SEND_IMM;
  if (w->n == 1) return imm ? 0x05 : ORNIC_OP_RC_SEND_ONLY;
  if (idx == 0) return 0x00;
  return idx < w->n - 1 ? 0x01 : imm ? 0x03 : 0x02;
}

static uint8_t write_opcode(const rc_wqe *w, uint32_t idx) {
  bool imm = w->op == RC_OP_WRITE_IMM;
  if (w->n == 1) return imm ? 0x0B : ORNIC_OP_RC_RDMA_WRITE_ONLY;
  if (idx == 0) return ORNIC_OP_RC_RDMA_WRITE_FIRST;
  if (idx < w->n - 1) return ORNIC_OP_RC_RDMA_WRITE_MIDDLE;
  return imm ? 0x09 : ORNIC_OP_RC_RDMA_WRITE_LAST;
}

static uint32_t meta_qp(const rc_req *rq) { return rq->q | (rq->node ? RC_META_HOST_B : 0); }

static pkt *build_data(rcpair *r, rc_req *rq, const rc_wqe *w, uint32_t idx, bool retx) {
  uint32_t pmtu = r->cfg->workload.pmtu, plen = idx == w->n - 1 ? w->last_len : pmtu;
  bool is_send = w->op == RC_OP_SEND || w->op == RC_OP_SEND_IMM;
  uint8_t op = is_send ? send_opcode(w, idx) : write_opcode(w, idx);
  ornic_frame f;
  rc_frame(r, rq->node, rq->q, &f, op, ornic_psn_add(w->start, (int32_t)idx));
  f.bth.ackreq = idx == w->n - 1; /* as ConnectX and rxe: on the last packet of a message */
  if (!is_send && idx == 0)
    f.ext.reth = (ornic_reth){w->va, rc_rkey(!rq->node, rq->q), (uint32_t)w->len};
  if (idx == w->n - 1) f.ext.immdt.data = rc_imm(rq->node, rq->q, w->id);
  f.payload_len = plen; /* generated in the frame: the source memory */
  framer_payload gen = {NULL, 0, rc_key(r->cfg, rq->node, rq->q), w->va + (uint64_t)idx * pmtu};
  pkt_meta m = {PK_DATA, retx, meta_qp(rq), w->id, idx, plen, 0};
  return rc_encode_gen(r, rq->node, rq->q, &f, &m, &gen);
}

/* A READ request for the WQE's PSNs from idx on (idx > 0: a retry of the missing tail). */
static pkt *build_read(rcpair *r, rc_req *rq, const rc_wqe *w, uint32_t idx, bool retx) {
  uint64_t off = (uint64_t)idx * r->cfg->workload.pmtu;
  ornic_frame f;
  rc_frame(r, rq->node, rq->q, &f, ORNIC_OP_RC_RDMA_READ_REQ,
           ornic_psn_add(w->start, (int32_t)idx));
  f.bth.ackreq = true;
  f.ext.reth = (ornic_reth){w->va + off, rc_rkey(!rq->node, rq->q), (uint32_t)(w->len - off)};
  pkt_meta m = {PK_READ_REQ, retx, meta_qp(rq), w->id, idx, 0, 0};
  return rc_encode(r, rq->node, rq->q, &f, &m);
}

pkt *rc_req_next(rcpair *r, rc_req *rq) {
  if (rq->snd >= rq->post) return NULL;
  rc_wqe *w = wqe_at(rq, rq->snd);
  uint32_t idx = rq->snd_idx, psn = ornic_psn_add(w->start, (int32_t)idx);
  bool retx = diff(psn, rq->hi) < 0, read = w->op == RC_OP_READ;
  uint32_t reach = read ? wqe_end(w) : ornic_psn_add(psn, 1);
  if (read || ++rq->snd_idx == w->n) {
    rq->snd++;
    rq->snd_idx = 0;
  }
  if (!retx) {
    rq->hi = reach;
    if (!rq->timing) {
      rq->timing = true;
      rq->timed_psn = psn;
      rq->timed_ps = sim_now(r->s);
    }
  }
  if (!rq->rto.armed) arm_rto(r, rq);
  return read ? build_read(r, rq, w, idx, retx) : build_data(r, rq, w, idx, retx);
}

/* Go back N: the next packet sent is the one of PSN x (a READ: its tail from x). */
static void rewind_to(rcpair *r, rc_req *rq, uint32_t x) {
  for (uint64_t id = rq->head; id < rq->post; id++) {
    rc_wqe *w = wqe_at(rq, id);
    if (diff(wqe_end(w), x) > 0) {
      rq->snd = id;
      rq->snd_idx = diff(x, w->start) > 0 ? (uint32_t)diff(x, w->start) : 0;
      rq->timing = false; /* Karn: no sample from what is sent again */
      rc_ready(r, rq->node, 2 * rq->q + 1);
      return;
    }
  }
}

/* ---- completion ---------------------------------------------------------------- */

static void complete_head(rcpair *r, rc_req *rq) {
  rc_wqe *w = wqe_at(rq, rq->head++);
  stats_wqe_done(sim_stats(r->s), w->post_ps, sim_now(r->s), w->len);
  rq->una = wqe_end(w);
  if (rq->snd < rq->head) {
    rq->snd = rq->head;
    rq->snd_idx = 0;
  }
}

static void moved(rcpair *r, rc_req *rq, uint32_t old_una) {
  if (rq->una == old_una) return;
  rq->gap_retry = false;
  rq->retries = rq->rtt.backoff = 0;
  if (rq->timing && diff(rq->una, rq->timed_psn) > 0) {
    rtt_sample(&rq->rtt, sim_now(r->s) - rq->timed_ps);
    rq->timing = false;
  }
  if (rq->una == rq->hi)
    ltimer_stop(&rq->rto);
  else
    arm_rto(r, rq);
  rc_req_post(r, rq);
}

/* A READ whose responses from una on never came although the responder has
 * answered past them: ask again for the tail, once until una moves. */
static void read_gap(rcpair *r, rc_req *rq) {
  if (rq->gap_retry) return;
  rq->gap_retry = true;
  rewind_to(r, rq, rq->una);
}

/* The responder received every request before PSN cum, and in PSN order
 * answered them: SEND / WRITE before cum are done; a READ before cum whose
 * responses are missing is asked again. */
static void advance(rcpair *r, rc_req *rq, uint32_t cum) {
  uint32_t old = rq->una;
  while (rq->head < rq->post && diff(cum, rq->una) > 0) {
    rc_wqe *w = wqe_at(rq, rq->head);
    if (w->op == RC_OP_READ) {
      read_gap(r, rq);
      break;
    }
    if (diff(cum, wqe_end(w)) >= 0)
      complete_head(r, rq);
    else
      rq->una = cum;
  }
  moved(r, rq, old);
}

static void on_read_response(rcpair *r, rc_req *rq, const ornic_frame *f) {
  uint32_t p = f->bth.psn;
  advance(r, rq, p); /* responses come in order: everything before p was answered */
  if (p != rq->una || rq->head >= rq->post) return; /* a duplicate, or after a gap */
  rc_wqe *w = wqe_at(rq, rq->head);
  uint32_t idx = (uint32_t)diff(p, w->start), pmtu = r->cfg->workload.pmtu;
  if (w->op != RC_OP_READ || idx >= w->n) return;
  uint32_t plen = idx == w->n - 1 ? w->last_len : pmtu;
  uint64_t addr = w->va + (uint64_t)idx * pmtu;
  if (f->payload_len != plen ||
      pattern_check(f->payload, rc_key(r->cfg, rq->node, rq->q), addr, plen) != (size_t)-1) {
    sim_fail(r->s, "integrity check failed: READ response PSN 0x%06x of WQE %llu on QP 0x%06x", p,
             (unsigned long long)w->id, rc_qpn(r->cfg, rq->node, rq->q));
    return;
  }
  uint32_t old = rq->una;
  rq->una = ornic_psn_add(p, 1);
  sim_stats(r->s)->accepted++;
  if (idx == w->n - 1) {
    sim_stats(r->s)->wqes_verified++;
    complete_head(r, rq);
  }
  moved(r, rq, old);
}

void rc_req_rx(rcpair *r, rc_req *rq, const pkt *p, const ornic_frame *f) {
  (void)p;
  uint32_t psn = f->bth.psn;
  /* Anything about a PSN never sent is not ours. */
  if (diff(psn, rq->hi) >= 0 || rq->head >= rq->post) return;
  if (rq->rto.armed) arm_rto(r, rq); /* the responder is alive: the timer waits */
  if (f->bth.opcode != ORNIC_OP_RC_ACK) {
    on_read_response(r, rq, f);
    return;
  }
  uint8_t syn = f->ext.aeth.syndrome;
  if (syn == ORNIC_AETH_NAK_PSN_SEQ) {
    /* Everything before the expected PSN arrived; resend from there (or from
     * a READ before it whose responses are missing). */
    advance(r, rq, psn);
    rq->gap_retry = true;
    rewind_to(r, rq, rq->una);
  } else if (ornic_aeth_type(syn) == ORNIC_AETH_ACK) {
    advance(r, rq, ornic_psn_add(psn, 1));
  } else {
    sim_fail(r->s, "QP 0x%06x: the responder sent a fatal NAK (%s) for PSN 0x%06x",
             rc_qpn(r->cfg, rq->node, rq->q), ornic_aeth_syndrome_name(syn), psn);
  }
}

void rc_req_timer(rcpair *r, rc_req *rq) {
  if (!ltimer_expired(r->s, &rq->rto, rq->node, rq->q)) return;
  if (rq->head >= rq->post || rq->una == rq->hi) return;
  sim_stats(r->s)->timeouts++;
  if (++rq->retries > r->cfg->protocol.retry_limit) {
    sim_fail(r->s, "QP 0x%06x: %u retransmission timeouts in a row at PSN 0x%06x (retry limit %u)",
             rc_qpn(r->cfg, rq->node, rq->q), rq->retries, rq->una, r->cfg->protocol.retry_limit);
    return;
  }
  rq->rtt.backoff++;
  rq->gap_retry = true;
  rewind_to(r, rq, rq->una);
  arm_rto(r, rq);
}
