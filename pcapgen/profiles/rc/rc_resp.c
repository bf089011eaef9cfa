/* SPDX-License-Identifier: MIT */
/* The rc profile's responder QP: accepts requests only at the expected PSN,
 * checks every SEND / WRITE payload against the source as it is placed,
 * answers in PSN order (READ responses, then the ACKs and NAKs behind them),
 * NAKs the first out-of-sequence request of a gap and drops the rest, and
 * executes duplicate READ requests again (IBA 9.7.5.1). */
#include <stdlib.h>

#include "pattern.h"
#include "rc_internal.h"
#include "workload.h"

static int32_t diff(uint32_t a, uint32_t b) { return ornic_psn_diff(a, b); }

void rc_resp_init(rcpair *r, rc_resp *rs, int node, uint32_t q) {
  rs->node = node;
  rs->q = q;
  /* Expects the PSNs of the peer's requester on this QP pair. */
  rs->epsn = wl_start_psn(r->cfg, q + 4096u * (uint32_t)!node);
}

void rc_resp_free(rc_resp *rs) {
  free(rs->items);
  rs->items = NULL;
}

static uint32_t src_id(const rc_resp *rs) { return 2 * rs->q; }

static void push_item(rcpair *r, rc_resp *rs, const rc_item *it) {
  if (rs->ilen == rs->icap) {
    uint32_t cap = rs->icap ? 2 * rs->icap : 8;
    rc_item *a = malloc(cap * sizeof *a);
    if (!a) {
      sim_fail(r->s, "out of memory (response queue)");
      return;
    }
    for (uint32_t i = 0; i < rs->ilen; i++) a[i] = rs->items[(rs->ihead + i) % rs->icap];
    free(rs->items);
    rs->items = a;
    rs->icap = cap;
    rs->ihead = 0;
  }
  rs->items[(rs->ihead + rs->ilen++) % rs->icap] = *it;
  rc_ready(r, rs->node, src_id(rs));
}

static pkt *build_ack(rcpair *r, rc_resp *rs, uint8_t syn, uint32_t psn, uint32_t msn) {
  ornic_frame f;
  rc_frame(r, rs->node, rs->q, &f, ORNIC_OP_RC_ACK, psn);
  f.ext.aeth = (ornic_aeth){syn, msn & ORNIC_PSN_MASK};
  pkt_meta m = {syn == SIM_AETH_ACK ? PK_ACK : PK_NAK, 0, rs->q, 0, 0, 0, 0};
  return rc_encode(r, rs->node, rs->q, &f, &m);
}

/* An ACK or NAK goes out at once unless READ responses wait: then behind them. */
static void answer(rcpair *r, rc_resp *rs, uint8_t kind, uint32_t psn) {
  uint32_t msn = (uint32_t)rs->msgs & ORNIC_PSN_MASK;
  if (kind == RI_ACK) rs->since_ack = 0;
  if (rs->ilen) {
    rc_item it = {.kind = kind, .psn = psn, .msn = msn};
    push_item(r, rs, &it);
    return;
  }
  pkt *p = build_ack(r, rs, kind == RI_ACK ? SIM_AETH_ACK : ORNIC_AETH_NAK_PSN_SEQ, psn, msn);
  if (p) sim_send(r->s, rs->node, p);
}

static void ack(rcpair *r, rc_resp *rs) { answer(r, rs, RI_ACK, ornic_psn_add(rs->epsn, -1)); }

/* ---- READ responses ------------------------------------------------------------ */

static uint8_t response_opcode(uint32_t k, uint32_t n) {
  if (n == 1) return ORNIC_OP_RC_RDMA_READ_RESP_ONLY;
  if (k == 0) return ORNIC_OP_RC_RDMA_READ_RESP_FIRST;
  return k == n - 1 ? ORNIC_OP_RC_RDMA_READ_RESP_LAST : ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE;
}

static pkt *build_response(rcpair *r, rc_resp *rs, rc_item *it) {
  uint32_t k = it->next++, pmtu = r->cfg->workload.pmtu;
  uint32_t plen = k == it->n - 1 ? it->last_len : pmtu;
  uint8_t op = response_opcode(k, it->n);
  ornic_frame f;
  rc_frame(r, rs->node, rs->q, &f, op, ornic_psn_add(it->psn, (int32_t)k));
  if (op != ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE) f.ext.aeth = (ornic_aeth){SIM_AETH_ACK, it->msn};
  /* The requester's data: its host's key for this QP pair. */
  f.payload_len = plen; /* generated in the frame */
  framer_payload gen = {NULL, 0, rc_key(r->cfg, !rs->node, rs->q), it->va + (uint64_t)k * pmtu};
  uint32_t mq = rs->q | (rs->node == NODE_REQ ? RC_META_HOST_B : 0);
  pkt_meta m = {PK_DATA, it->retx, mq, it->wqe, k, plen, 0};
  return rc_encode_gen(r, rs->node, rs->q, &f, &m, &gen);
}

pkt *rc_resp_next(rcpair *r, rc_resp *rs) {
  if (!rs->ilen) return NULL;
  rc_item *it = &rs->items[rs->ihead];
  pkt *p;
  if (it->kind == RI_READ) {
    p = build_response(r, rs, it);
    if (it->next < it->n) return p;
  } else {
    uint8_t syn = it->kind == RI_ACK ? SIM_AETH_ACK : ORNIC_AETH_NAK_PSN_SEQ;
    p = build_ack(r, rs, syn, it->psn, it->msn);
  }
  rs->ihead = (rs->ihead + 1) % rs->icap;
  rs->ilen--;
  return p;
}

static bool read_ok(const rc_resp *rs, const ornic_frame *f) {
  const ornic_reth *h = &f->ext.reth;
  return h->rkey == rc_rkey(rs->node, rs->q) && wl_va_ok(rs->q, h->va, h->dmalen);
}

/* Responses for PSNs from psn on; the WQE index is for --drop rules. */
static void queue_read(rcpair *r, rc_resp *rs, const ornic_frame *f, uint64_t wqe, bool retx) {
  uint32_t pmtu = r->cfg->workload.pmtu, len = f->ext.reth.dmalen;
  rc_item it = {.kind = RI_READ,
                .retx = retx,
                .psn = f->bth.psn,
                .n = wl_npkts(len, pmtu),
                .last_len = wl_last_len(len, pmtu),
                .va = f->ext.reth.va,
                .wqe = wqe,
                .msn = (uint32_t)(rs->msgs + !retx) & ORNIC_PSN_MASK}; /* MSN once it is done */
  push_item(r, rs, &it);
}

/* ---- requests -------------------------------------------------------------------- */

static bool is_read(uint8_t op) { return op == ORNIC_OP_RC_RDMA_READ_REQ; }
static bool is_first(uint8_t op) {
  return op == 0x00 || op == 0x04 || op == 0x05 || op == 0x06 || op == 0x0A || op == 0x0B;
}
static bool is_last(uint8_t op) {
  return op == 0x02 || op == 0x03 || op == 0x04 || op == 0x05 || op == 0x08 || op == 0x09 ||
         op == 0x0A || op == 0x0B;
}
static bool is_send(uint8_t op) { return op <= 0x05; }
static bool has_imm(uint8_t op) { return op == 0x03 || op == 0x05 || op == 0x09 || op == 0x0B; }

static bool op_matches(uint8_t wop, uint8_t op) {
  if (is_read(op)) return wop == RC_OP_READ;
  if (is_send(op)) return wop == RC_OP_SEND || wop == RC_OP_SEND_IMM;
  return wop == RC_OP_WRITE || wop == RC_OP_WRITE_IMM;
}

static void violation(rcpair *r, rc_resp *rs, const ornic_frame *f, const char *what) {
  sim_fail(r->s, "internal error: QP 0x%06x received opcode 0x%02x PSN 0x%06x (message %llu): %s",
           rc_qpn(r->cfg, rs->node, rs->q), f->bth.opcode, f->bth.psn, (unsigned long long)rs->msgs,
           what);
}

/* First packet of a message: it must be the peer's WQE number msgs, as posted. */
static bool begin(rcpair *r, rc_resp *rs, const ornic_frame *f) {
  int peer = !rs->node;
  rs->op = rc_wqe_op(r, peer, rs->q, rs->msgs);
  rs->va = wl_va(r->cfg, rs->q, rs->msgs);
  rs->len = wl_wqe_len(r->cfg, rs->q, rs->msgs);
  rs->n = wl_npkts(rs->len, r->cfg->workload.pmtu);
  rs->start = f->bth.psn;
  uint8_t op = f->bth.opcode;
  if (!op_matches(rs->op, op)) return violation(r, rs, f, "not the posted operation"), false;
  if ((op >= 0x06 || is_read(op)) &&
      (!read_ok(rs, f) || f->ext.reth.va != rs->va || f->ext.reth.dmalen != rs->len))
    return violation(r, rs, f, "RETH differs from the posted WQE"), false;
  rs->in_msg = !is_read(op);
  return true;
}

/* A READ is verified by its requester; SEND and WRITE here, packet by packet. */
static void finish_message(rcpair *r, rc_resp *rs, bool verified) {
  rs->in_msg = false;
  rs->msgs++;
  sim_stats(r->s)->wqes_verified += verified;
  rc_req_post(r, &r->req[rs->node][rs->q]); /* ping-pong: our turn may have come */
}

/* SEND / WRITE packet at the expected PSN: place it (check it), then ACK as due. */
static void place(rcpair *r, rc_resp *rs, const ornic_frame *f) {
  uint8_t op = f->bth.opcode;
  uint32_t idx = (uint32_t)diff(f->bth.psn, rs->start), pmtu = r->cfg->workload.pmtu;
  uint64_t want = idx == rs->n - 1 ? rs->len - (uint64_t)idx * pmtu : pmtu;
  uint64_t addr = rs->va + (uint64_t)idx * pmtu;
  if (idx >= rs->n || (idx == rs->n - 1) != is_last(op) || (idx == 0) != is_first(op) ||
      f->payload_len != want)
    return violation(r, rs, f, "packet does not fit the message");
  if (pattern_check(f->payload, rc_key(r->cfg, !rs->node, rs->q), addr, want) != (size_t)-1)
    return violation(r, rs, f, "payload differs from the source (integrity check failed)");
  if (has_imm(op) && f->ext.immdt.data != rc_imm(!rs->node, rs->q, rs->msgs))
    return violation(r, rs, f, "wrong immediate data");
  rs->epsn = ornic_psn_add(rs->epsn, 1);
  sim_stats(r->s)->accepted++;
  rs->since_ack++;
  if (is_last(op)) finish_message(r, rs, true);
  if (f->bth.ackreq || rs->since_ack >= r->cfg->protocol.rc.ack_every) ack(r, rs);
}

static void in_sequence(rcpair *r, rc_resp *rs, const ornic_frame *f) {
  uint8_t op = f->bth.opcode;
  rs->nak_sent = false;
  if (!rs->in_msg && !begin(r, rs, f)) return;
  if (rs->in_msg && is_first(op) && diff(f->bth.psn, rs->start) != 0)
    return violation(r, rs, f, "a new message before the last one ended");
  if (!is_read(op)) {
    place(r, rs, f);
    return;
  }
  queue_read(r, rs, f, rs->msgs, false);
  sim_stats(r->s)->accepted++;
  rs->epsn = ornic_psn_add(rs->epsn, (int32_t)rs->n);
  finish_message(r, rs, false);
}

void rc_resp_rx(rcpair *r, rc_resp *rs, const ornic_frame *f) {
  uint8_t op = f->bth.opcode;
  if (op > ORNIC_OP_RC_RDMA_READ_REQ) return; /* not a request of this profile */
  int32_t d = diff(f->bth.psn, rs->epsn);
  if (d == 0) {
    in_sequence(r, rs, f);
  } else if (d < 0) {
    /* A duplicate: READs are executed again (from the PSN asked), SEND and
     * WRITE acknowledged again when they ask for it. */
    sim_stats(r->s)->dup_data++;
    if (is_read(op) && read_ok(rs, f))
      queue_read(r, rs, f, UINT64_MAX, true);
    else if (f->bth.ackreq && !is_read(op))
      ack(r, rs);
  } else if (!rs->nak_sent) {
    rs->nak_sent = true; /* one NAK per sequence error; later packets are dropped silently */
    answer(r, rs, RI_NAK, rs->epsn);
  }
}
