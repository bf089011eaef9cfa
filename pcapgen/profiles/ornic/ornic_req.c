/* SPDX-License-Identifier: MIT */
#include "ornic_req.h"

#include <stdlib.h>
#include <string.h>

#include "bitset.h"
#include "fifo.h"
#include "ornic_bitmap.h"
#include "ready.h"
#include "rtt.h"
#include "verify.h"
#include "work_queue.h"
#include "workload.h"

#define TMR_RTO 0u

typedef enum {
  RQ_IDLE,  /* no WQE in flight (all posted WQEs done) */
  RQ_FSPOT, /* WRITE: ADDR_CACHED not seen yet */
  RQ_SPOT,  /* WRITE: ADDR_CACHED seen */
  RQ_DRAIN, /* WRITE: every packet sent once, waiting for WQE_DONE */
  RQ_WAIT,  /* READ: waiting for responses */
  RQ_ERROR
} rq_state;

typedef struct {
  uint32_t q;
  rq_state state;
  bool cached, in_ready, probe;
  uint32_t msn; /* MSN of the last completed WQE */
  wqe_queue sq;
  wqe w;                    /* the WQE in flight */
  uint32_t next_new;        /* WRITE: packets [0, next_new) were sent at least once */
  uint32_t cum_idx;         /* WRITE: packets [0, cum_idx) cumulatively acknowledged */
  uint8_t *sacked, *queued; /* WRITE: per packet: known received; in retxq */
  u32fifo retxq;            /* WRITE: packet indices to send again */
  /* round trip (Karn: one timed packet at a time, never a retransmitted one) */
  bool timing;
  uint32_t timed_idx;
  uint64_t timed_ps;
  rtt_est rtt;
  unsigned retries;
  ltimer rto;
  /* READ */
  obm *rbm;
  wqe_verify rver; /* the READ's integrity check, response by response */
  uint32_t read_msn;
  u32fifo readq; /* pairs (first index, count) of 0xC6 to send */
  bool rpace;    /* re-read pacing, like the responder's NAK pacing */
  uint32_t rpace_psn;
  uint64_t rpace_ps;
  uint64_t reqs_sent;
} oreq_qp;

struct oreq {
  sim *s;
  const sim_config *cfg;
  oreq_qp *qp;
  u32fifo ready; /* QPs that may have something to send, round-robin */
  obm_pool *rpool;
};

static void req_rx(void *self, pkt *p, const ornic_frame *f);
static pkt *req_next_tx(void *self);
static void req_timer(void *self, uint32_t arg);

static void make_ready(oreq *r, oreq_qp *qp) {
  ready_add(&r->ready, &qp->in_ready, qp->q, r->s, NODE_REQ);
}

static void arm_rto(oreq *r, oreq_qp *qp) {
  uint64_t rto = rtt_rto(&qp->rtt, sim_times(r->s)->otd_ps);
  ltimer_arm(r->s, &qp->rto, NODE_REQ, qp->q << 4 | TMR_RTO, sim_now(r->s) + rto);
}

static void progress_made(oreq *r, oreq_qp *qp) {
  qp->retries = 0;
  qp->rtt.backoff = 0;
  arm_rto(r, qp);
}

/* ---- posting and completing WQEs ------------------------------------------ */

static void free_wqe(oreq_qp *qp) {
  free(qp->sacked);
  free(qp->queued);
  qp->sacked = qp->queued = NULL;
  fifo_clear(&qp->retxq);
  fifo_clear(&qp->readq);
  if (qp->rbm) obm_finish(qp->rbm);
}

static bool start_write(oreq *r, oreq_qp *qp) {
  qp->sacked = bs_new(qp->w.n);
  qp->queued = bs_new(qp->w.n);
  qp->state = RQ_FSPOT;
  (void)r;
  return qp->sacked && qp->queued;
}

static bool start_read(oreq *r, oreq_qp *qp) {
  bool ok =
      wv_start(&qp->rver, wl_key(r->cfg, qp->q), qp->w.va, qp->w.len, r->cfg->workload.pmtu) == 0;
  obm_start(qp->rbm, qp->w.start, qp->w.n);
  qp->state = RQ_WAIT;
  qp->rpace = false;
  qp->reqs_sent = 0;
  ok = ok && fifo_push(&qp->readq, 0) == 0 && fifo_push(&qp->readq, qp->w.n) == 0;
  if (ok) arm_rto(r, qp);
  return ok;
}

static void post_next(oreq *r, oreq_qp *qp) {
  const sim_config *cfg = r->cfg;
  if (!wqe_post(&qp->sq, r->s, cfg, &qp->w)) {
    qp->state = RQ_IDLE;
    return;
  }
  qp->cached = qp->probe = qp->timing = false;
  qp->next_new = qp->cum_idx = 0;
  qp->retries = qp->rtt.backoff = 0;
  bool ok = cfg->workload.op == OP_WRITE ? start_write(r, qp) : start_read(r, qp);
  if (!ok) {
    sim_fail(r->s, "out of memory posting WQE %llu of QP %u", (unsigned long long)qp->w.id, qp->q);
    return;
  }
  make_ready(r, qp);
}

static void complete(oreq *r, oreq_qp *qp, uint32_t msn) {
  wqe_complete(r->s, &qp->w);
  ltimer_stop(&qp->rto);
  free_wqe(qp);
  qp->msn = msn;
  post_next(r, qp);
}

/* ---- WRITE: building data packets ----------------------------------------- */

/* PROTOCOL.md 4.2 opcode table, consulted at every (re)transmission. */
static uint8_t write_opcode(const oreq_qp *qp, uint32_t idx) {
  if (qp->w.n == 1) return ORNIC_OP_OOO_WRITE_LAST_ADDR;
  if (idx == qp->w.n - 1)
    return qp->cached ? ORNIC_OP_OOO_WRITE_LAST : ORNIC_OP_OOO_WRITE_LAST_ADDR;
  return qp->cached ? ORNIC_OP_OOO_WRITE_SPOT : ORNIC_OP_OOO_WRITE_FSPOT;
}

static pkt *build_write(oreq *r, oreq_qp *qp, uint32_t idx, bool retx, bool ackreq) {
  const sim_config *cfg = r->cfg;
  ornic_frame f;
  sim_frame(r->s, NODE_REQ, &f);
  uint64_t off = (uint64_t)idx * cfg->workload.pmtu;
  uint32_t plen = idx == qp->w.n - 1 ? qp->w.last_len : cfg->workload.pmtu;
  f.bth.opcode = write_opcode(qp, idx);
  f.bth.destqp = wl_qpn(cfg, true, qp->q);
  f.bth.psn = ornic_psn_add(qp->w.start, (int32_t)idx);
  f.bth.ackreq = ackreq;
  if (f.bth.opcode == ORNIC_OP_OOO_WRITE_FSPOT || f.bth.opcode == ORNIC_OP_OOO_WRITE_LAST_ADDR) {
    f.ext.reth = (ornic_reth){qp->w.va + off, wl_rkey(qp->q), (uint32_t)qp->w.len};
    f.ext.offeth.offset = (uint32_t)off;
  }
  f.payload_len = plen; /* generated in the frame: the source memory at va + off */
  framer_payload gen = {NULL, 0, wl_key(cfg, qp->q), qp->w.va + off};
  pkt_meta m = {PK_DATA, retx, qp->q, qp->w.id, idx, plen, ackreq};   /* only probes ask */
  if (retx && qp->timing && qp->timed_idx == idx) qp->timing = false; /* Karn */
  return sim_encode_gen(r->s, NODE_REQ, &f, &m, SIM_PATH_SPRAY, &gen);
}

static bool is_acked(const oreq_qp *qp, uint32_t idx) {
  return idx < qp->cum_idx || bs_get(qp->sacked, idx);
}

static pkt *write_next(oreq *r, oreq_qp *qp) {
  if (qp->state != RQ_FSPOT && qp->state != RQ_SPOT && qp->state != RQ_DRAIN) return NULL;
  if (qp->probe) {
    /* RTO probe: the lowest unacknowledged PSN with A = 1; the Last when all
     * are acknowledged but WQE_DONE was lost (its duplicate draws an ACK). */
    qp->probe = false;
    uint32_t idx = qp->cum_idx < qp->w.n ? qp->cum_idx : qp->w.n - 1;
    if (idx < qp->next_new) return build_write(r, qp, idx, true, true);
  }
  uint32_t idx;
  while (fifo_pop(&qp->retxq, &idx)) {
    bs_clr(qp->queued, idx);
    if (!is_acked(qp, idx)) return build_write(r, qp, idx, true, false);
  }
  if (qp->next_new < qp->w.n && qp->next_new - qp->cum_idx < r->cfg->protocol.window) {
    idx = qp->next_new++;
    if (qp->next_new == qp->w.n) qp->state = RQ_DRAIN;
    if (!qp->timing) {
      qp->timing = true;
      qp->timed_idx = idx;
      qp->timed_ps = sim_now(r->s);
    }
    /* Also restarted by new data: while packets keep leaving, the OTD rule at
     * the responder detects losses; the RTO is for when sending stops. */
    arm_rto(r, qp);
    return build_write(r, qp, idx, false, false);
  }
  return NULL;
}

/* ---- WRITE: ACK and NAK ----------------------------------------------------- */

static bool write_busy(const oreq_qp *qp) {
  return qp->state == RQ_FSPOT || qp->state == RQ_SPOT || qp->state == RQ_DRAIN;
}

static void advance_cum(oreq *r, oreq_qp *qp, uint32_t new_cum) {
  if (new_cum <= qp->cum_idx) return;
  qp->cum_idx = new_cum;
  if (qp->timing && qp->timed_idx < new_cum) {
    rtt_sample(&qp->rtt, sim_now(r->s) - qp->timed_ps);
    qp->timing = false;
  }
  progress_made(r, qp);
  make_ready(r, qp); /* the window moved */
}

static bool msn_ok(const oreq_qp *qp, uint32_t msn) {
  return msn == qp->msn || msn == ornic_psn_add(qp->msn, 1);
}

static void on_ack(oreq *r, oreq_qp *qp, const ornic_frame *f) {
  uint32_t msn = f->ext.aeth.msn;
  uint8_t flags = f->ext.oacketh.flags;
  /* packets now acknowledged */
  uint32_t cum = ornic_psn_off(ornic_psn_add(f->bth.psn, 1), qp->w.start);
  if (!write_busy(qp) || ornic_aeth_type(f->ext.aeth.syndrome) != ORNIC_AETH_ACK) return;
  if (cum > qp->w.n || !msn_ok(qp, msn)) return; /* foreign */
  /* ADDR_CACHED is state, not an event: a stale ACK still delivers it
   * (PROTOCOL.md 4.2), e.g. one a NAK overtook after moving cum. */
  if (msn == qp->msn && (flags & ORNIC_OACK_ADDR_CACHED) && !qp->cached) {
    qp->cached = true;
    if (qp->state == RQ_FSPOT) qp->state = RQ_SPOT;
  }
  if (cum < qp->cum_idx) return; /* stale: moves and frees nothing */
  advance_cum(r, qp, cum);
  if (msn != qp->msn && (flags & ORNIC_OACK_WQE_DONE) && qp->cum_idx == qp->w.n)
    complete(r, qp, msn);
}

static void queue_retx(oreq *r, oreq_qp *qp, uint32_t idx) {
  if (idx >= qp->next_new || is_acked(qp, idx) || bs_get(qp->queued, idx)) return;
  bs_set(qp->queued, idx);
  if (fifo_push(&qp->retxq, idx) < 0) sim_fail(r->s, "out of memory (retransmission queue)");
}

/* A NAK's set bits free their packets anywhere in the bitmap; its lost set
 * (PROTOCOL.md 4.4, walked by the library) is sent again. */
static void apply_nak_bitmap(oreq *r, oreq_qp *qp, const ornic_naketh *nak) {
  for (uint32_t d = 1; d < 16u * nak->nblocks; d++) {
    uint32_t idx = ornic_psn_off(ornic_psn_add(nak->base_psn, (int32_t)d), qp->w.start);
    if (idx >= qp->w.n) break;
    if (ornic_naketh_block(nak, d / 16) >> (d % 16) & 1) bs_set(qp->sacked, idx);
  }
  ornic_naketh_lost_iter it;
  uint32_t first, n;
  ornic_naketh_lost_begin(&it, nak); /* its Limit PSN, not our OTD */
  while (ornic_naketh_lost_next_run(&it, &first, &n)) {
    for (uint32_t i = 0; i < n; i++) {
      uint32_t idx = ornic_psn_off(ornic_psn_add(first, (int32_t)i), qp->w.start);
      if (idx >= qp->w.n) return;
      queue_retx(r, qp, idx);
    }
  }
}

static void on_nak(oreq *r, oreq_qp *qp, const ornic_frame *f) {
  const ornic_naketh *nak = &f->ext.naketh;
  uint32_t base = ornic_psn_off(nak->base_psn, qp->w.start);
  if (!write_busy(qp) || f->ext.aeth.syndrome != ORNIC_AETH_NAK || f->bth.psn != nak->base_psn)
    return;
  if (base >= qp->w.n || base + 1 < qp->cum_idx || !msn_ok(qp, f->ext.aeth.msn)) return;
  if (nak->reason < ORNIC_NAKETH_OTD_EXCEEDED || nak->reason > ORNIC_NAKETH_LAST_INCOMPLETE) return;
  advance_cum(r, qp, base); /* everything before Base was received */
  apply_nak_bitmap(r, qp, nak);
  arm_rto(r, qp);
  make_ready(r, qp);
}

/* ---- READ ------------------------------------------------------------------- */

static pkt *build_read_req(oreq *r, oreq_qp *qp, uint32_t idx, uint32_t count) {
  const sim_config *cfg = r->cfg;
  ornic_frame f;
  sim_frame(r->s, NODE_REQ, &f);
  uint64_t off = (uint64_t)idx * cfg->workload.pmtu;
  uint64_t bytes = idx + count == qp->w.n ? qp->w.len - off : (uint64_t)count * cfg->workload.pmtu;
  f.bth.opcode = ORNIC_OP_OOO_READ_REQ;
  f.bth.destqp = wl_qpn(cfg, true, qp->q);
  f.bth.psn = ornic_psn_add(qp->w.start, (int32_t)idx);
  f.ext.reth = (ornic_reth){qp->w.va + off, wl_rkey(qp->q), (uint32_t)bytes};
  if (qp->reqs_sent == 0) { /* the round trip to the first response is timed */
    qp->timing = true;
    qp->timed_ps = sim_now(r->s);
  }
  pkt_meta m = {PK_READ_REQ, qp->reqs_sent++ > 0, qp->q, qp->w.id, idx, 0, 0};
  return sim_encode(r->s, NODE_REQ, &f, &m);
}

static pkt *read_next(oreq *r, oreq_qp *qp) {
  uint32_t idx, count;
  if (qp->state != RQ_WAIT || !fifo_pop(&qp->readq, &idx) || !fifo_pop(&qp->readq, &count))
    return NULL;
  return build_read_req(r, qp, idx, count);
}

typedef struct {
  oreq *r;
  oreq_qp *qp;
} run_ctx;

static void queue_reread(void *ctx, uint32_t first_psn, uint32_t count) {
  run_ctx *c = ctx;
  uint32_t idx = ornic_psn_off(first_psn, c->qp->w.start);
  if (fifo_push(&c->qp->readq, idx) < 0 || fifo_push(&c->qp->readq, count) < 0)
    sim_fail(c->r->s, "out of memory (READ retry queue)");
}

/* Re-reads every missing run in [first missing, until); PROTOCOL.md 4.5. */
static void reread(oreq *r, oreq_qp *qp, uint32_t until) {
  uint32_t fm = obm_first_missing(qp->rbm);
  run_ctx c = {r, qp};
  int32_t span = ornic_psn_diff(until, fm);
  if (span > 0) obm_missing_runs(qp->rbm, fm, (uint32_t)span, queue_reread, &c);
  qp->rpace = true;
  qp->rpace_psn = until;
  qp->rpace_ps = sim_now(r->s);
  make_ready(r, qp);
}

static bool reread_paced(oreq *r, const oreq_qp *qp, uint32_t fm) {
  uint64_t rto = rtt_rto(&qp->rtt, sim_times(r->s)->otd_ps);
  uint32_t d = ornic_psn_off(qp->rpace_psn, fm);
  return qp->rpace && d > 0 && d < 0x800000u && sim_now(r->s) - qp->rpace_ps < rto;
}

static void read_done(oreq *r, oreq_qp *qp) {
  /* Every byte was compared as it was placed: complete means verified. */
  if (!wv_complete(&qp->rver)) {
    sim_fail(r->s,
             "integrity check failed: READ WQE %llu of QP %u: completed with %u of %u "
             "responses verified",
             (unsigned long long)qp->w.id, qp->q, qp->rver.done, qp->rver.n);
    return;
  }
  sim_stats(r->s)->wqes_verified++;
  complete(r, qp, qp->read_msn);
}

static bool resp_len_ok(const oreq *r, const oreq_qp *qp, uint32_t idx, const ornic_frame *f) {
  bool last = idx == qp->w.n - 1;
  bool last_op = f->bth.opcode == ORNIC_OP_OOO_READ_RESP_LAST;
  return last == last_op && f->payload_len == (last ? qp->w.last_len : r->cfg->workload.pmtu);
}

/* The response's bytes against the responder's memory, as they are placed. */
static bool verify_response(oreq *r, oreq_qp *qp, uint32_t idx, const ornic_frame *f) {
  uint64_t bad = 0;
  int rc = wv_place(&qp->rver, idx, f->payload, f->payload_len, &bad);
  if (rc == WV_BAD)
    sim_fail(r->s,
             "integrity check failed: READ WQE %llu of QP %u: byte %llu of %llu differs "
             "from the responder's memory",
             (unsigned long long)qp->w.id, qp->q, (unsigned long long)bad,
             (unsigned long long)qp->w.len);
  else if (rc == WV_TWICE)
    sim_fail(r->s, "integrity check failed: READ WQE %llu of QP %u: response %u placed twice",
             (unsigned long long)qp->w.id, qp->q, idx);
  return rc == WV_OK;
}

static void on_read_resp(oreq *r, oreq_qp *qp, const ornic_frame *f) {
  uint32_t idx = ornic_psn_off(f->bth.psn, qp->w.start);
  if (qp->state != RQ_WAIT || idx >= qp->w.n) return;
  if (!resp_len_ok(r, qp, idx, f)) {
    sim_fail(r->s,
             "protocol error: READ response PSN 0x%06x of QP %u has opcode 0x%02x and %zu "
             "bytes",
             f->bth.psn, qp->q, f->bth.opcode, f->payload_len);
    return;
  }
  int rc = obm_record(qp->rbm, f->bth.psn);
  if (rc != OBM_NEW) {
    sim_stats(r->s)->dup_data += rc == OBM_DUP;
    return;
  }
  if (!verify_response(r, qp, idx, f)) return;
  sim_stats(r->s)->accepted++;
  if (qp->timing && qp->reqs_sent == 1) rtt_sample(&qp->rtt, sim_now(r->s) - qp->timed_ps);
  qp->timing = false;
  /* Responses still arriving: the OTD rule sees losses; the RTO is for silence. */
  progress_made(r, qp);
  if (f->bth.opcode == ORNIC_OP_OOO_READ_RESP_LAST) qp->read_msn = f->ext.aeth.msn;
  if (obm_complete(qp->rbm)) {
    read_done(r, qp);
    return;
  }
  uint32_t fm = obm_first_missing(qp->rbm);
  if (ornic_psn_diff(f->bth.psn, fm) > (int32_t)r->cfg->protocol.otd && !reread_paced(r, qp, fm))
    /* later PSNs may still be in flight */
    reread(r, qp, ornic_psn_add(f->bth.psn, -(int32_t)r->cfg->protocol.otd));
}

/* ---- timers, fatal NAKs, dispatch ---------------------------------------------- */

/* --rto-probe off, the paper's timeout (section 3.3): resend every packet
 * sent and not known received, from the unacknowledged PSN on. false when
 * there is none. */
static bool resend_unacked(oreq *r, oreq_qp *qp) {
  bool any = false;
  for (uint32_t idx = qp->cum_idx; idx < qp->next_new; idx++) {
    if (is_acked(qp, idx)) continue;
    queue_retx(r, qp, idx);
    any = true;
  }
  return any;
}

static void on_rto(oreq *r, oreq_qp *qp) {
  if (!write_busy(qp) && qp->state != RQ_WAIT) return;
  sim_stats(r->s)->timeouts++;
  if (++qp->retries > r->cfg->protocol.retry_limit) {
    qp->state = RQ_ERROR;
    sim_fail(r->s, "QP %u: %u retransmission timeouts in a row on WQE %llu (retry limit %u)", qp->q,
             qp->retries, (unsigned long long)qp->w.id, r->cfg->protocol.retry_limit);
    return;
  }
  qp->rtt.backoff++;
  if (qp->state == RQ_WAIT)
    reread(r, qp, ornic_psn_add(qp->w.start, (int32_t)qp->w.n));
  else if (r->cfg->protocol.rto_probe || !resend_unacked(r, qp))
    qp->probe = true; /* off: only when all are acknowledged and WQE_DONE was lost */
  arm_rto(r, qp);
  make_ready(r, qp);
}

static void req_timer(void *self, uint32_t arg) {
  oreq *r = self;
  oreq_qp *qp = &r->qp[arg >> 4];
  if (ltimer_expired(r->s, &qp->rto, NODE_REQ, arg)) on_rto(r, qp);
}

static void on_fatal(oreq *r, oreq_qp *qp, const ornic_frame *f) {
  uint8_t syn = f->ext.aeth.syndrome;
  if (syn < ORNIC_AETH_NAK_INVALID_REQ || syn > ORNIC_AETH_NAK_REMOTE_OP) return;
  qp->state = RQ_ERROR;
  sim_fail(r->s, "QP %u: the responder sent a fatal NAK (%s) for PSN 0x%06x", qp->q,
           ornic_aeth_syndrome_name(syn), f->bth.psn);
}

static void req_rx(void *self, pkt *p, const ornic_frame *f) {
  oreq *r = self;
  (void)p;
  int q = wl_qp_index(r->cfg, f->bth.destqp, false);
  if (q < 0) return;
  oreq_qp *qp = &r->qp[q];
  switch (f->bth.opcode) {
  case ORNIC_OP_ACK: on_ack(r, qp, f); break;
  case ORNIC_OP_NAK: on_nak(r, qp, f); break;
  case ORNIC_OP_OOO_READ_RESP:
  case ORNIC_OP_OOO_READ_RESP_LAST: on_read_resp(r, qp, f); break;
  case ORNIC_OP_RC_ACK: on_fatal(r, qp, f); break;
  default: break;
  }
}

static pkt *qp_next(void *self, uint32_t q, bool **in_ready) {
  oreq *r = self;
  oreq_qp *qp = &r->qp[q];
  *in_ready = &qp->in_ready;
  return r->cfg->workload.op == OP_WRITE ? write_next(r, qp) : read_next(r, qp);
}

static pkt *req_next_tx(void *self) {
  oreq *r = self;
  return ready_serve(&r->ready, r->s, qp_next, r);
}

/* ---- life cycle ------------------------------------------------------------------ */

static bool init_qp(oreq *r, oreq_qp *qp, uint32_t q) {
  memset(qp, 0, sizeof *qp);
  qp->q = q;
  wqe_queue_init(&qp->sq, r->cfg, q);
  rtt_init(&qp->rtt, sim_times(r->s)->rtt_ps);
  ltimer_init(&qp->rto);
  if (r->cfg->workload.op != OP_READ) return true;
  /* A READ's bitmap covers the whole WQE: responses come at line rate. */
  uint32_t n = wl_npkts(wl_max_wqe_len(r->cfg), r->cfg->workload.pmtu);
  qp->rbm = obm_new(r->rpool, n / 16 + 2);
  return qp->rbm != NULL;
}

oreq *oreq_new(sim *s, const sim_config *cfg) {
  oreq *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->s = s;
  r->cfg = cfg;
  r->qp = calloc(cfg->workload.qps, sizeof *r->qp);
  uint32_t slots = wl_npkts(wl_max_wqe_len(cfg), cfg->workload.pmtu) / 16 + 2;
  if (cfg->workload.op == OP_READ) r->rpool = obm_pool_new(16, (size_t)slots * cfg->workload.qps);
  bool ok = r->qp && (cfg->workload.op != OP_READ || r->rpool);
  for (uint32_t q = 0; ok && q < cfg->workload.qps; q++) ok = init_qp(r, &r->qp[q], q);
  if (!ok) {
    oreq_free(r);
    return NULL;
  }
  static const endpoint_ops ops = {req_next_tx, req_rx, req_timer};
  sim_set_endpoint(s, NODE_REQ, &ops, r);
  return r;
}

void oreq_free(oreq *r) {
  if (!r) return;
  for (uint32_t q = 0; r->qp && q < r->cfg->workload.qps; q++) {
    free_wqe(&r->qp[q]);
    wv_free(&r->qp[q].rver);
    fifo_free(&r->qp[q].retxq);
    fifo_free(&r->qp[q].readq);
    obm_free(r->qp[q].rbm);
  }
  obm_pool_free(r->rpool);
  fifo_free(&r->ready);
  free(r->qp);
  free(r);
}

void oreq_bitmap_stats(const oreq *r, unsigned *max_qp, uint64_t *peak, uint64_t *capacity) {
  *max_qp = 0;
  *peak = *capacity = 0;
  if (!r->rpool) return;
  for (uint32_t q = 0; q < r->cfg->workload.qps; q++)
    if (obm_max_blocks_held(r->qp[q].rbm) > *max_qp) *max_qp = obm_max_blocks_held(r->qp[q].rbm);
  *peak = obm_pool_peak(r->rpool);
  *capacity = obm_pool_capacity(r->rpool);
}

void oreq_start(oreq *r) {
  for (uint32_t q = 0; q < r->cfg->workload.qps && !sim_failed(r->s); q++) post_next(r, &r->qp[q]);
}
