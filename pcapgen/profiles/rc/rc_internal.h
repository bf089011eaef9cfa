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

/* --rc-cm (rc_cm.c): the RDMA-CM setup of one QP pair, per host (host A is
 * the active side: it sends the REQ). */
typedef struct {
  uint8_t state[2];  /* RC_CM_* */
  unsigned tries[2]; /* REQs (host A) or REPs (host B) sent */
  ltimer timer[2];   /* a REQ / REP not answered in time is sent again */
  uint32_t start[2]; /* each host's first request PSN: the REQ's / REP's Starting PSN */
} rc_cm_pair;

/* What every CM message of the run draws from the seed (rc_cm.c). */
typedef struct {
  rc_cm_pair *pair;   /* per QP pair; NULL without --rc-cm */
  uint32_t id_xor[2]; /* Communication ID of pair q: (id_base[node] + q) ^ id_xor[node] */
  uint32_t id_base[2];
  uint64_t guid[2];     /* each host's CA GUID */
  uint32_t tid_hi;      /* TransactionID: tid_hi << 32 | (id_base[0] + q), one per setup */
  uint32_t psn[2];      /* each host's QP 1 send PSN */
  uint16_t sport;       /* the active side's RDMA-CM port (IP CM private data) */
  uint8_t resp_timeout; /* CM Response Timeout and local ACK timeout: 4.096 us x 2^N */
  uint8_t depth;        /* Responder Resources and Initiator Depth */
} rc_cm;

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
  rc_cm cm; /* --rc-cm */
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

/* rc_cm.c: --rc-cm, the RDMA-CM exchange (REQ, REP, RTU) that sets up each QP
 * pair before its data, on the wire as UD SEND Only MADs to QP 1. Host A's
 * requester posts once the REP arrived, host B's once the RTU (or A's first
 * request) did; a REQ or REP not answered in time is sent again. Without
 * --rc-cm every QP pair is up from the start and nothing is sent. */
#define RC_CM_TIMER 0x80000000u /* host_timer's argument: q | RC_CM_TIMER */
enum { RC_CM_IDLE = 0, RC_CM_WAIT = 1, RC_CM_UP = 2 };
int rc_cm_init(rcpair *r);
void rc_cm_free(rcpair *r);
void rc_cm_start(rcpair *r);
bool rc_cm_up(const rcpair *r, int node, uint32_t q);
/* A frame arrived at `node`: true when it was a CM MAD (handled here). */
bool rc_cm_rx(rcpair *r, int node, const ornic_frame *f);
/* A request of pair q arrived at `node`: a passive side still waiting for the
 * RTU takes it as one (IBA: the first packet on the connection establishes it). */
void rc_cm_request_rx(rcpair *r, int node, uint32_t q);
void rc_cm_timer(rcpair *r, int node, uint32_t q);

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
