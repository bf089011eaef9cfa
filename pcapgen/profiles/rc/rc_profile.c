/* SPDX-License-Identifier: MIT */
/* Profile `rc`: standard RoCEv2 Reliable Connection traffic between two
 * hosts, as a ConnectX or rxe pair makes it. Both hosts are requesters and
 * responders at once on every QP pair: host A (node 0, QPs 0x100 + q by
 * default) and host B (node 1, QPs 0x200 + q; --qpn-base) each post SEND, RDMA WRITE (with or without
 * immediate) and RDMA READ WQEs to the other, up to --rc-outstanding at a
 * time, each QP in its own PSN space. Responders answer in PSN order:
 * coalesced ACKs (AETH 0x1F, A bit on the last packet of a message), READ
 * responses that carry the PSNs their request reserved, one PSN sequence
 * error NAK (AETH 0x60) per gap; requesters go back N to the NAKed PSN, to
 * the first missing READ response PSN (a READ request for the missing tail)
 * or, on a timeout, to the oldest unacknowledged PSN. Every message is
 * checked byte for byte against the source memory as it is placed. */
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "rc_internal.h"
#include "ready.h"
#include "workload.h"

/* ---- the two hosts' QPs, keys and workload ----------------------------------- */

/* Host A's QPs are the other profiles' requester QPs, host B's their responder QPs. */
uint32_t rc_qpn(const sim_config *cfg, int node, uint32_t q) {
  return wl_qpn(cfg, node == NODE_RESP, q);
}

/* Each direction has its own memory content; 4096 is past every QP index. */
uint64_t rc_key(const sim_config *cfg, int node, uint32_t q) {
  return wl_key(cfg, q + 4096u * (uint32_t)node);
}

uint32_t rc_rkey(int node, uint32_t q) { return wl_rkey(q) ^ (node == NODE_REQ ? 0 : 0x00ff0000u); }

/* The ops of --rc-ops in turn, rotated per QP and host, so every QP of a
 * short run still mixes them and the two directions differ. */
uint8_t rc_wqe_op(const rcpair *r, int node, uint32_t q, uint64_t id) {
  return r->ops[(id + q + (uint64_t)node) % r->nops];
}

uint32_t rc_imm(int node, uint32_t q, uint64_t id) {
  return (uint32_t)(id * 0x9e3779b1u) ^ (q << 8) ^ (uint32_t)node;
}

/* A frame from `node` to the peer's QP of pair q (requests and responses alike). */
void rc_frame(rcpair *r, int node, uint32_t q, ornic_frame *f, uint8_t opcode, uint32_t psn) {
  sim_frame(r->s, node, f);
  f->bth.opcode = opcode;
  f->bth.destqp = rc_qpn(r->cfg, !node, q);
  f->bth.psn = psn & ORNIC_PSN_MASK;
}

/* ConnectX hashes a QP to one UDP source port: one path per QP pair, so
 * nothing is reordered unless --rc-spray asks for it. */
pkt *rc_encode(rcpair *r, int node, uint32_t q, ornic_frame *f, const pkt_meta *m) {
  return rc_encode_gen(r, node, q, f, m, NULL);
}

pkt *rc_encode_gen(rcpair *r, int node, uint32_t q, ornic_frame *f, const pkt_meta *m,
                   const framer_payload *gen) {
  unsigned path = r->cfg->protocol.rc.spray ? SIM_PATH_SPRAY : q % r->cfg->fabric.paths;
  if (!r->cfg->protocol.rc.dc) return sim_encode_gen(r->s, node, f, m, path, gen);
  /* --rc-dc: the same exchange with DC's opcodes, 0x40 | the RC operation, and
   * the headers the library's table gives them (PROTOCOL.md 2.8); the DETH
   * names the sending QP. The engines keep seeing RC opcodes (host_rx). */
  uint8_t op = f->bth.opcode;
  f->bth.opcode = (uint8_t)(0x40 | (op & 0x1f));
  f->ext.deth.srcqp = rc_qpn(r->cfg, node, q);
  pkt *p = sim_encode_gen(r->s, node, f, m, path, gen);
  f->bth.opcode = op;
  return p;
}

/* Ping-pong (--rc-outstanding 1, both directions), as ib_send_lat: host B
 * posts message w once it received A's message w, and A posts w + 1 once it
 * received B's message w. */
bool rc_may_post(const rcpair *r, int node, uint32_t q, uint64_t id) {
  if (!r->pingpong) return true;
  uint64_t got = r->resp[node][q].msgs;
  return node == NODE_REQ ? id == 0 || got >= id : got >= id + 1;
}

/* ---- the NIC: round-robin over every QP's responder and requester ----------- */

static bool *ready_flag(rcpair *r, int node, uint32_t src) {
  return src & 1 ? &r->req[node][src >> 1].in_ready : &r->resp[node][src >> 1].in_ready;
}

void rc_ready(rcpair *r, int node, uint32_t src) {
  ready_add(&r->host[node].ready, ready_flag(r, node, src), src, r->s, node);
}

static pkt *source_next(void *self, uint32_t src, bool **in_ready) {
  rc_host *h = self;
  rcpair *r = h->r;
  uint32_t q = src >> 1;
  *in_ready = ready_flag(r, h->node, src);
  return src & 1 ? rc_req_next(r, &r->req[h->node][q]) : rc_resp_next(r, &r->resp[h->node][q]);
}

static pkt *host_next_tx(void *self) {
  rc_host *h = self;
  return ready_serve(&h->ready, h->r->s, source_next, h);
}

static bool is_response(uint8_t op) {
  return op == ORNIC_OP_RC_ACK ||
         (op >= ORNIC_OP_RC_RDMA_READ_RESP_FIRST && op <= ORNIC_OP_RC_RDMA_READ_RESP_ONLY);
}

static void host_rx(void *self, pkt *p, const ornic_frame *f) {
  rc_host *h = self;
  rcpair *r = h->r;
  if (r->cm.pair && rc_cm_rx(r, h->node, f)) return; /* --rc-cm: a CM MAD to QP 1 */
  int q = wl_qp_index(r->cfg, f->bth.destqp, h->node == NODE_RESP);
  if (q < 0) return;
  ornic_frame rc; /* --rc-dc: the RC opcode of a DC frame, as rc_encode_gen sent it */
  if (r->cfg->protocol.rc.dc && ornic_opcode_transport(f->bth.opcode) == ORNIC_TRANSPORT_RD) {
    rc = *f;
    rc.bth.opcode &= 0x1f;
    f = &rc;
  }
  if (is_response(f->bth.opcode)) {
    rc_req_rx(r, &r->req[h->node][q], p, f);
  } else {
    rc_cm_request_rx(r, h->node, (uint32_t)q);
    rc_resp_rx(r, &r->resp[h->node][q], f);
  }
}

static void host_timer(void *self, uint32_t arg) {
  rc_host *h = self;
  if (arg & RC_CM_TIMER)
    rc_cm_timer(h->r, h->node, arg & ~RC_CM_TIMER);
  else
    rc_req_timer(h->r, &h->r->req[h->node][arg]);
}

/* ---- life cycle ------------------------------------------------------------- */

static bool alloc_hosts(rcpair *r, const sim_config *cfg) {
  for (int n = 0; n < NODE_COUNT; n++) {
    r->req[n] = calloc(cfg->workload.qps, sizeof *r->req[n]);
    r->resp[n] = calloc(cfg->workload.qps, sizeof *r->resp[n]);
    if (!r->req[n] || !r->resp[n]) return false;
    r->host[n].r = r;
    r->host[n].node = n;
    for (uint32_t q = 0; q < cfg->workload.qps; q++) {
      if (rc_req_init(r, &r->req[n][q], n, q) < 0) return false;
      rc_resp_init(r, &r->resp[n][q], n, q);
    }
  }
  return true;
}

static void rcpair_free(void *self);

static void *rcpair_new(sim *s, const sim_config *cfg) {
  rcpair *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->s = s;
  r->cfg = cfg;
  memcpy(r->ops, cfg->protocol.rc.ops, sizeof r->ops);
  r->nops = cfg->protocol.rc.nops;
  r->pingpong = cfg->protocol.rc.outstanding == 1 && !cfg->protocol.rc.a2b;
  if (!alloc_hosts(r, cfg) || rc_cm_init(r) < 0) {
    rcpair_free(r);
    return NULL;
  }
  if (cfg->protocol.rc.a2b)
    for (uint32_t q = 0; q < cfg->workload.qps; q++) r->req[NODE_RESP][q].total = 0;
  sim_stats(s)->wqes_total = wl_total_wqes(cfg) * (cfg->protocol.rc.a2b ? 1 : 2);
  static const endpoint_ops ops = {host_next_tx, host_rx, host_timer};
  for (int n = 0; n < NODE_COUNT; n++) sim_set_endpoint(s, n, &ops, &r->host[n]);
  return r;
}

static void rcpair_free(void *self) {
  rcpair *r = self;
  if (!r) return;
  for (int n = 0; n < NODE_COUNT; n++) {
    for (uint32_t q = 0; q < r->cfg->workload.qps; q++) {
      if (r->req[n]) rc_req_free(&r->req[n][q]);
      if (r->resp[n]) rc_resp_free(&r->resp[n][q]);
    }
    free(r->req[n]);
    free(r->resp[n]);
    fifo_free(&r->host[n].ready);
  }
  rc_cm_free(r);
  free(r);
}

static void rcpair_start(void *self) {
  rcpair *r = self;
  if (r->cm.pair) { /* --rc-cm: each pair's requesters post once CM set it up */
    rc_cm_start(r);
    return;
  }
  for (uint32_t q = 0; q < r->cfg->workload.qps && !sim_failed(r->s); q++)
    for (int n = 0; n < NODE_COUNT; n++) rc_req_post(r, &r->req[n][q]);
}

const profile_engines rc_engines = {rcpair_new, rcpair_start, NULL, rcpair_free};
