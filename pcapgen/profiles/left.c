/* SPDX-License-Identifier: MIT */
/* Profile `left`: LEFT (Huang et al., "LEFT: LightwEight and FasT packet
 * Reordering for RDMA", APNet 2024, doi 10.1145/3663408.3663418; its slides:
 * ../shared/seeds/left-slides-2024.txt) as a transport for RDMA WRITE. The slides describe the reorder machinery of
 * the receiving RNIC; what they say about the wire, and what we chose where
 * they are silent ("ours"), rule by rule:
 *
 * Wire: standard RoCEv2 RC, nothing added. LEFT is a reorder buffer in the
 * receiving RNIC ("Overview of LEFT", Data Path: "Reorder buffer is allocated
 * to each connection for OoO data; Submit to the application after OoO
 * recovery"), so packets need no address of their own: RC WRITE First / Middle
 * / Last / Only, the RETH in the First only, offset = (PSN - First's PSN) x
 * PMTU as in IBA. ACKs are RC Acknowledges with the IBA meanings: BTH.PSN the
 * last PSN received in order, AETH MSN the MSN (ours: the slides show no ACK
 * format; standard RC keeps every frame readable by stock decoders).
 *
 * Paths: every packet sprayed by --spray ("Related work": LEFT is for
 * "fine-grained per-packet multi-path load balancing"; "Evaluation-Benefit
 * Throughput": "evenly distribute all packets on two path", i.e. --spray rr).
 * ACKs are sprayed too (ours).
 *
 * Responder, what it tracks ("Overview of LEFT", "Dual-state bitmap pool"):
 * per connection the cumulative PSN (ePSN) and a bitmap of the packets
 * received past it (rxq), plus the reorder buffer: packets that arrive before
 * their WQE's First are held and placed once the First says where the WQE goes
 * (ours: the slides buffer all out-of-order data; here every packet after the
 * First is placed at once, which the wire cannot tell apart). The bitmap spans
 * one bandwidth-delay product from ePSN, what the sender's window allows (ours;
 * the slides' bitmap pool, its blocks and caches are a cost model:
 * tools/ornic-bitmap-sim, docs/BITMAP_MODELS.md, not a wire behaviour).
 * - "Overview of LEFT", Control Path: "Reorder: OoO packets no longer trigger
 *   retransmission and CC". An arrival past ePSN is placed and answered by
 *   nothing (ours: no ACK either, since it moves no cumulative PSN; a standard
 *   RC responder would NAK it).
 * - An arrival that moves ePSN is answered by a cumulative ACK (ours: one per
 *   packet, as irn; the slides' gather queues batch bitmap updates inside the
 *   NIC, "Bitmap Acceleration", not ACKs). A duplicate is ACKed again, as an RC
 *   responder does (rxe_resp.c, C9-105: pcapgen/README.md, "Profile roce").
 * - Loss: the slides leave the "judgment of packet loss" to future work
 *   ("Conclusion & future work": "More efficient judgment of packet loss"), but
 *   "Challenges" asks that the transport "differentiate normal OoO from packet
 *   loss". Ours: the hole at ePSN is judged lost when a packet T or more PSNs
 *   past it has arrived, T being the run's reordering tolerance: --otd (Eq. 3
 *   of the ORNIC paper by default, the delay spread in packets) when the fabric
 *   reorders (--paths > 1 or --reorder-max), else 1; the same T as irn's
 *   --irn-nack-threshold auto. The responder then sends one standard RC NAK,
 *   PSN sequence error, BTH.PSN = ePSN, once per hole (IBA: one NAK per
 *   sequence error); when ePSN moves onto a hole already judged lost, the NAK
 *   of that hole replaces the ACK (a NAK acknowledges every PSN below it).
 *
 * Requester:
 * - Selective repeat: a NAK names one lost packet; the requester sends that
 *   packet again and nothing else ("RDMA needs to deal with OoO packets": LEFT
 *   replaces go-back-N, which "mis-treats OoO as loss", and the receiver keeps
 *   every packet past the hole; ours: the resend is exactly the NAKed PSN,
 *   where an IBA requester would go back to it).
 * - The time rule (ours, after RACK, RFC 8985): when a cumulative ACK covers
 *   the last resend and the new hole's packet left more than the OTD's time
 *   before that resend, the hole is lost and goes again at once. Originals
 *   leave in PSN order, so only a resend can trigger it: after one hole is
 *   repaired the next is known one round trip later, with or without a NAK.
 *   Each detection resends a packet once; a lost resend is the timeout's.
 * - Window: one bandwidth-delay product of packets outstanding (nominal round
 *   trip over the slowest path / frame time, as irn, mprdma, ioi; ours: the
 *   slides' NS3 runs use HPCC's window, "NS3 Evaluation", and no congestion is
 *   modelled here).
 * - Timeout (ours): SRTT + 4 RTTVAR + OTD/B, doubled per timeout in a row
 *   (rtt.h, the family's default). It sends again the earliest unacknowledged
 *   packet only, as TCP does on a timeout (RFC 6298, section 5.4): the
 *   receiver keeps everything past its ePSN, so that packet is the one known
 *   missing, and the time rule finds the holes behind it. It repairs what no
 *   NAK can: a loss among the last T packets of a WQE, a lost NAK, a lost
 *   resend. RTT samples follow Karn, and also skip a cumulative ACK that waited
 *   for a resend of an earlier packet (it times the recovery).
 *
 * Cumulative ACKs carry one hole per round trip: k losses in one window cost k
 * round trips (irn's selective ACKs resend them all in one). That is the price
 * of a standard wire, ours, not a finding of the slides.
 *
 * Not modelled: the NIC's bitmap timings (cache misses, gather queues, fast
 * and slow reorder paths: "Bitmap Acceleration"; ornic-bitmap-sim models their
 * cost), congestion control (HPCC in the slides' NS3 runs). */
#include <stdlib.h>
#include <string.h>

#include "research_engine.h"
#include "research_wire.h"
#include "work_queue.h"

/* ============================== requester ============================== */

/* Packets per send-time checkpoint: the time rule needs when a packet left,
 * known to within LEFT_BLOCK packets from the time the next block's first
 * packet first left (originals leave in PSN order). 2 bytes per packet of the
 * WQE in flight; every 16 packets would keep to sim/memory_budget.c's few bits
 * per packet but find fewer holes (at 2% loss, seed 1: 19 timeouts, not 15). */
#define LEFT_BLOCK 4

typedef struct {
  rcxq x;
  uint64_t *block_ps; /* per block: when its first packet first left */
  bool resent;        /* `hole` was detected lost and queued again */
  uint32_t hole;
  uint64_t resend_ps; /* when `hole` last left again (0: not yet) */
  bool karn;          /* a resend of a packet before the timed one left since it was timed */
} left_qp;

static bool left_begin(rcxeng *e, rcxq *x) {
  left_qp *qp = (left_qp *)x;
  free(qp->block_ps);
  if (!(qp->block_ps = calloc(x->t.w.n / LEFT_BLOCK + 1, sizeof *qp->block_ps))) {
    sim_fail(e->s, "out of memory posting WQE %llu of QP %u", (unsigned long long)x->t.w.id,
             x->t.q);
    return false;
  }
  qp->resent = qp->karn = false;
  qp->resend_ps = 0;
  return true;
}

static void left_qp_free(rcxq *x) { free(((left_qp *)x)->block_ps); }

static pkt *left_send(rcxeng *e, rcxq *x, uint32_t idx, bool retx) {
  left_qp *qp = (left_qp *)x;
  txq *t = &x->t;
  bool timed = t->timing;
  if (!retx && idx % LEFT_BLOCK == 0) qp->block_ps[idx / LEFT_BLOCK] = sim_now(e->s);
  if (retx && idx == qp->hole) qp->resend_ps = sim_now(e->s);
  if (retx && t->timing && idx < t->timed_idx) qp->karn = true;
  pkt *pk = rcxeng_send(e, x, idx, retx, SIM_PATH_SPRAY, false);
  if (!timed && t->timing) qp->karn = false; /* a new packet is timed */
  return pk;
}

/* Packet idx is lost: it goes again, once per detection (a later one is the
 * timeout's). */
static void lost(rcxeng *e, left_qp *qp, uint32_t idx) {
  if (qp->resent && qp->hole == idx) return;
  qp->resent = true;
  qp->hole = idx;
  qp->resend_ps = 0;
  txq_queue_retx(&qp->x.t, e->s, idx);
}

/* The time rule (ours, after RACK, RFC 8985 section 6.2: a packet is lost
 * when one sent more than the reordering window after it was delivered): the
 * last resend is acknowledged and the new hole at cum left more than the
 * OTD's time (sim_timing.otd_ps, the fabric's delay spread in time) before it,
 * so the hole is lost. Only a resend can trigger it (originals leave in PSN
 * order): once a resend fills a hole the next hole behind it is known at
 * once, even where no NAK can name it (the last T packets of a WQE). */
static bool late_hole(rcxeng *e, const left_qp *qp, uint32_t cum) {
  const txq *t = &qp->x.t;
  uint32_t next = cum / LEFT_BLOCK + 1; /* a block that left after cum did */
  if (!qp->resent || !qp->resend_ps || qp->hole >= cum || cum >= t->next_new) return false;
  if ((uint64_t)next * LEFT_BLOCK >= t->next_new) return false;
  return qp->block_ps[next] + sim_times(e->s)->otd_ps < qp->resend_ps;
}

/* The cumulative PSN moves to cum. Karn's rule, extended (ours): an ACK that
 * covers the timed packet after a resend of an earlier one waited for that
 * resend and times the recovery, not the path: no sample. */
static void advance(rcxeng *e, left_qp *qp, uint32_t cum) {
  txq *t = &qp->x.t;
  if (qp->karn && t->timing && t->timed_idx < cum) t->timing = false;
  if (txq_ack_cum(t, e->s, cum)) rcxeng_arm_rto(e, &qp->x);
  if (late_hole(e, qp, cum)) lost(e, qp, cum);
}

/* A cumulative ACK: BTH.PSN is the last PSN received in order. */
static void left_ack(rcxeng *e, rcxq *x, const ornic_frame *f, unsigned path) {
  (void)path;
  uint32_t cum = wqe_idx(&x->t.w, f->bth.psn + 1);
  if (cum <= x->t.w.n && cum >= x->t.cum) advance(e, (left_qp *)x, cum);
  rcxeng_acked(e, x);
}

/* A NAK: BTH.PSN, the responder's ePSN, is lost; everything below it arrived.
 * Only that packet goes again (selective repeat). */
static void left_nack(rcxeng *e, rcxq *x, const ornic_frame *f) {
  txq *t = &x->t;
  uint32_t hole = wqe_idx(&t->w, f->bth.psn);
  if (hole >= t->w.n || hole < t->cum) return; /* an earlier WQE's, or stale */
  advance(e, (left_qp *)x, hole);
  lost(e, (left_qp *)x, hole);
  rcxeng_acked(e, x);
}

/* A timeout: the earliest unacknowledged packet goes again (RFC 6298, 5.4). */
static void left_timeout(rcxeng *e, rcxq *x) {
  left_qp *qp = (left_qp *)x;
  qp->resent = true;
  qp->hole = x->t.cum;
  qp->resend_ps = 0;
  txq_queue_retx(&x->t, e->s, x->t.cum);
}

/* ============================== responder ============================== */

/* A packet held in the reorder buffer until its WQE's First arrives. */
typedef struct {
  ornic_frame f; /* its BTH and payload (a copy) are all rxq_accept reads */
  uint8_t *payload;
} held_pkt;

typedef struct {
  rxq r;
  bool any;    /* a packet has arrived: hi is valid */
  uint32_t hi; /* the highest PSN received */
  bool naked;  /* the hole at nak_psn was NAKed */
  uint32_t nak_psn;
  held_pkt *held; /* the reorder buffer of packets before the First */
  uint32_t nheld, cap;
} left_resp;

static void left_resp_free(rxq *r) {
  left_resp *l = (left_resp *)r;
  for (uint32_t i = 0; i < l->nheld; i++) free(l->held[i].payload);
  free(l->held);
  l->held = NULL;
  l->nheld = l->cap = 0;
}

/* The reordering tolerance T (ours, as irn's --irn-nack-threshold auto). */
static uint32_t tolerance(const sim_config *cfg) {
  return cfg->fabric.paths > 1 || cfg->fabric.reorder_max ? cfg->protocol.otd : 1;
}

static void saw(left_resp *l, uint32_t psn) {
  if (!l->any || ornic_psn_diff(psn, l->hi) > 0) l->hi = psn;
  l->any = true;
}

/* Holds f, which arrived before its First; false when already held. */
static bool hold(left_resp *l, sim *s, const ornic_frame *f) {
  for (uint32_t i = 0; i < l->nheld; i++)
    if (l->held[i].f.bth.psn == f->bth.psn) return false;
  if (l->nheld == l->cap) {
    uint32_t cap = l->cap ? 2 * l->cap : 16;
    held_pkt *h = realloc(l->held, cap * sizeof *h);
    if (!h) {
      sim_fail(s, "out of memory (reorder buffer)");
      return false;
    }
    l->held = h;
    l->cap = cap;
  }
  held_pkt *h = &l->held[l->nheld];
  memset(&h->f, 0, sizeof h->f);
  h->f.bth = f->bth;
  h->f.ext = f->ext;
  h->payload = malloc(f->payload_len ? f->payload_len : 1);
  if (!h->payload) {
    sim_fail(s, "out of memory (reorder buffer)");
    return false;
  }
  memcpy(h->payload, f->payload, f->payload_len);
  h->f.payload = h->payload;
  h->f.payload_len = f->payload_len;
  l->nheld++;
  return true;
}

/* The First arrived: the held packets are placed at their offsets. */
static void release(left_resp *l, rcxeng *e) {
  for (uint32_t i = 0; i < l->nheld && !sim_failed(e->s); i++)
    rxq_accept(&l->r, e->s, e->cfg, &l->held[i].f, e->bdp, false);
  left_resp_free(&l->r);
}

/* After an arrival: a NAK if the hole at ePSN is now judged lost (once per
 * hole), else an ACK if ePSN moved, else nothing. */
static void respond(rcxeng *e, left_resp *l, uint32_t before) {
  rxq *r = &l->r;
  bool hole = l->any && ornic_psn_diff(l->hi, r->epsn) >= (int32_t)tolerance(e->cfg);
  if (hole && !(l->naked && l->nak_psn == r->epsn)) {
    l->naked = true;
    l->nak_psn = r->epsn;
    rcx_send_ack(e->s, e->cfg, r->q, ORNIC_AETH_NAK_PSN_SEQ, r->epsn, r->msn, PK_NAK,
                 SIM_PATH_SPRAY);
  } else if (r->epsn != before) {
    rcx_send_ack(e->s, e->cfg, r->q, SIM_AETH_ACK, r->epsn - 1, r->msn, PK_ACK, SIM_PATH_SPRAY);
  }
}

static void left_answer(rcxeng *e, rxq *r, const ornic_frame *f) {
  left_resp *l = (left_resp *)r;
  uint32_t before = r->epsn;
  switch (rxq_accept(r, e->s, e->cfg, f, e->bdp, false)) {
  case RXQ_NOCTX:
    if (!hold(l, e->s, f)) {
      if (!sim_failed(e->s)) sim_stats(e->s)->dup_data++;
      return;
    }
    break;
  case RXQ_NEW:
  case RXQ_DONE:
    if (l->nheld && r->open) release(l, e);
    break;
  case RXQ_DUP:
    rcx_send_ack(e->s, e->cfg, r->q, SIM_AETH_ACK, r->epsn - 1, r->msn, PK_ACK, SIM_PATH_SPRAY);
    return;
  case RXQ_BEYOND: sim_stats(e->s)->rx_drops++; return; /* the window prevents it */
  default: return;                                      /* a fatal NAK went out */
  }
  if (sim_failed(e->s)) return;
  saw(l, f->bth.psn);
  respond(e, l, before);
}

/* ============================== life cycle ============================== */

static const rcxeng_ops left_ops = {.qp_size = sizeof(left_qp),
                                    .resp_size = sizeof(left_resp),
                                    .resp_free = left_resp_free,
                                    .begin = left_begin,
                                    .qp_free = left_qp_free,
                                    .send = left_send,
                                    .ack = left_ack,
                                    .nack = left_nack,
                                    .timeout = left_timeout,
                                    .answer = left_answer};

RCXENG_PROFILE(left, left_ops);
