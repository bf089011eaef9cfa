/* SPDX-License-Identifier: MIT */
/* Internals of the rc profile (rc_profile.c), shared by its three files:
 * rc_profile.c (hosts, workload, NIC scheduling), rc_req.c (requester QP),
 * rc_resp.c (responder QP). */
#ifndef PCAPGEN_RC_INTERNAL_H
#define PCAPGEN_RC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "fifo.h"
#include "rtt.h"
#include "sim.h"
#include "sim_config.h"

/* pkt_meta.qp of host B's messages: never matches a --drop rule (QP < 2^24). */
#define RC_META_HOST_B 0x80000000u

/* One WQE (message) of a requester. READ occupies n PSNs with one request. */
typedef struct {
  uint8_t op; /* an rc_op (sim_config.h) */
  uint64_t id, va, len, post_ps;
  uint32_t start, n, last_len;
} rc_wqe;

/* A requester QP: WQEs id head..post-1 are posted and incomplete, in
 * ring[id % cap]; the next packet to send is offset snd_idx of WQE snd. */
typedef struct {
  int node;
  uint32_t q;
  rc_wqe *ring;
  uint32_t cap;
  uint64_t head, post, snd, total;
  uint32_t snd_idx;
  uint32_t next_psn; /* first PSN of the next WQE to post */
  uint32_t una;      /* oldest unacknowledged PSN */
  uint32_t hi;       /* first PSN never sent: below it, a send is a retransmission */
  bool gap_retry;    /* went back to una for missing READ responses; until una moves */
  bool timing;
  uint32_t timed_psn;
  uint64_t timed_ps;
  rtt_est rtt;
  ltimer rto;
  unsigned retries;
  bool in_ready;
} rc_req;

/* What a responder sends, in PSN order: READ responses and the ACKs/NAKs
 * queued behind them (an ACK must not overtake an earlier READ response). */
enum { RI_READ = 0, RI_ACK = 1, RI_NAK = 2 };
typedef struct {
  uint8_t kind;
  bool retx; /* responses to a duplicate READ request */
  uint32_t psn, n, next, msn, last_len;
  uint64_t va, wqe;
} rc_item;

typedef struct {
  int node;
  uint32_t q;
  uint32_t epsn, since_ack;
  uint64_t msgs; /* messages completed = WQE id of the next one */
  bool nak_sent, in_msg, in_ready;
  uint8_t op; /* of the message in progress */
  uint64_t va, len;
  uint32_t start, n;
  rc_item *items;
  uint32_t ihead, ilen, icap;
} rc_resp;

typedef struct rcpair rcpair;

typedef struct {
  rcpair *r;
  int node;
  u32fifo ready; /* sources with something to send: 2q = responder, 2q+1 = requester */
} rc_host;

struct rcpair {
  sim *s;
  const sim_config *cfg;
  rc_req *req[2];
  rc_resp *resp[2];
  rc_host host[2];
  uint8_t ops[8]; /* the --rc-ops list, in order */
  unsigned nops;
  bool pingpong;
};

/* rc_profile.c */
uint32_t rc_qpn(const sim_config *cfg, int node, uint32_t q);
uint64_t rc_key(const sim_config *cfg, int node, uint32_t q);
uint32_t rc_rkey(int node, uint32_t q);
uint8_t rc_wqe_op(const rcpair *r, int node, uint32_t q, uint64_t id);
uint32_t rc_imm(int node, uint32_t q, uint64_t id);
void rc_frame(rcpair *r, int node, uint32_t q, ornic_frame *f, uint8_t opcode, uint32_t psn);
pkt *rc_encode(rcpair *r, int node, uint32_t q, ornic_frame *f, const pkt_meta *m);
/* Same, with the payload generated in the frame (sim_encode_gen). */
pkt *rc_encode_gen(rcpair *r, int node, uint32_t q, ornic_frame *f, const pkt_meta *m,
                   const framer_payload *gen);
void rc_ready(rcpair *r, int node, uint32_t src);
bool rc_may_post(const rcpair *r, int node, uint32_t q, uint64_t id);

/* rc_req.c */
int rc_req_init(rcpair *r, rc_req *rq, int node, uint32_t q);
void rc_req_free(rc_req *rq);
void rc_req_post(rcpair *r, rc_req *rq);
pkt *rc_req_next(rcpair *r, rc_req *rq);
void rc_req_rx(rcpair *r, rc_req *rq, const pkt *p, const ornic_frame *f);
void rc_req_timer(rcpair *r, rc_req *rq);

/* rc_resp.c */
void rc_resp_init(rcpair *r, rc_resp *rs, int node, uint32_t q);
void rc_resp_free(rc_resp *rs);
pkt *rc_resp_next(rcpair *r, rc_resp *rs);
void rc_resp_rx(rcpair *r, rc_resp *rs, const ornic_frame *f);

#endif
