/* SPDX-License-Identifier: MIT */
/* --rc-cm: the RDMA-CM exchange that sets up each QP pair of the rc profile,
 * as librdmacm over Linux's ib_cm makes it on RoCEv2 (docs/PROTOCOL.md 2.10,
 * "RDMA-CM over RoCEv2"): host A (the active side) sends a REQ from its QP 1
 * to host B's QP 1, B answers with a REP, A with an RTU; each is a UD SEND
 * Only (DETH Q_Key 0x80010000, Source QP 1) carrying a 256-byte MAD. The
 * messages carry what the simulation uses: the pair's QP numbers, each
 * requester's first PSN, the PMTU, the READ depth (--rc-outstanding); the
 * Communication IDs, CA GUIDs and TransactionIDs are drawn from the seed.
 *
 * They are simulated like every other frame: sent at the NIC ahead of its
 * data, carried by the fabric (and lost like the rest), received and decoded
 * by the peer (with ornic_cm_decode). A host's requester on pair q posts its
 * WQEs once the pair is up for it: host A when the REP arrives, host B when
 * the RTU does, or A's first request (an RTU that was lost). A REQ or REP
 * not answered within the CM Response Timeout it states (4.096 us x 2^N,
 * chosen above the run's round trip) is sent again, up to Max CM Retries. The
 * MAD bytes are written here from IBA 12.6's layout, apart from the library's
 * decoder, so that the tests compare two implementations and stock tshark. */
#include <stdlib.h>
#include <string.h>

#include "rc_internal.h"
#include "rng.h"
#include "workload.h"

/* RNG stream of --rc-cm; net.c uses 1-5, tapfilter.c 7, tap_shapes.c 8. */
#define STREAM_RC_CM 9
/* Max CM Retries, a 4-bit field: the REQs (REPs) sent after the first. */
#define CM_MAX_RETRIES 15u
/* The passive side's RDMA-CM port (perftest's default) in the RDMA IP CM
 * Service ID 0x00000000_01_06_pppp, port space 0x06 (TCP). */
#define CM_SERVICE_ID (0x0000000001060000ull | 18515u)
/* A CM message's kind for the run's counters: none of PK_* (packet_pool.h),
 * so it counts as a frame on the wire and as nothing else. */
#define RC_PK_CM 0x40u
#define CM_HOP_LIMIT 64 /* the frames' IPv4 TTL (ornic_frame_init) */

static void put16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static void put24(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 16);
  put16(p + 1, v);
}
static void put32(uint8_t *p, uint32_t v) {
  put16(p, v >> 16);
  put16(p + 2, v);
}
static void put64(uint8_t *p, uint64_t v) {
  put32(p, (uint32_t)(v >> 32));
  put32(p + 4, (uint32_t)v);
}

/* The IBA MTU enumeration of a PMTU in bytes (Linux enum ib_mtu). */
static uint8_t ib_mtu(uint32_t pmtu) {
  uint8_t v = 1;
  while (v < 5 && (256u << (v - 1)) < pmtu) v++;
  return v;
}

/* The IBA static rate of the links (Linux enum ib_rate); 0, "the port's
 * current rate", for a rate it has no value for. */
static uint8_t ib_rate(double gbps) {
  static const struct {
    double gbps;
    uint8_t v;
  } rates[] = {{2.5, 2},  {5, 5},    {10, 3},   {14, 11},  {20, 6},   {25, 15},
               {28, 19},  {30, 4},   {40, 7},   {50, 20},  {56, 12},  {60, 8},
               {80, 9},   {100, 16}, {112, 13}, {120, 10}, {168, 14}, {200, 17},
               {300, 18}, {400, 21}, {600, 22}, {800, 23}};
  for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
    if (rates[i].gbps == gbps) return rates[i].v;
  return 0;
}

static uint32_t comm_id(const rc_cm *c, int node, uint32_t q) {
  return (c->id_base[node] + q) ^ c->id_xor[node];
}

/* The QP pair whose Communication ID at `node` is id, or -1. */
static int64_t pair_of(const rcpair *r, int node, uint32_t id) {
  uint32_t q = (id ^ r->cm.id_xor[node]) - r->cm.id_base[node];
  return q < r->cfg->workload.qps ? (int64_t)q : -1;
}

static uint64_t tid_of(const rc_cm *c, uint32_t q) {
  return (uint64_t)c->tid_hi << 32 | (uint32_t)(c->id_base[0] + q);
}

/* The common MAD header (IBA 13.4): BaseVersion 1, class CM, ClassVersion 2,
 * Method Send, Status 0, the TransactionID, the AttributeID. */
static void mad_header(uint8_t *m, uint64_t tid, uint16_t attr) {
  memset(m, 0, ORNIC_CM_MAD_LEN);
  m[0] = 1;
  m[1] = ORNIC_CM_MGMT_CLASS;
  m[2] = ORNIC_CM_CLASS_VERSION;
  m[3] = ORNIC_CM_METHOD_SEND;
  put64(m + 8, tid);
  put16(m + 16, attr);
}

/* A GID of a RoCEv2 IPv4 address: ::ffff:a.b.c.d. */
static void put_gid(uint8_t *p, const uint8_t ip[4]) {
  memset(p, 0, 10);
  p[10] = p[11] = 0xff;
  memcpy(p + 12, ip, 4);
}

/* REQ (IBA 12.6; byte offsets of the CM message, after the 24-byte MAD
 * header). f: a frame of host A, for its addresses and TOS. */
static void build_req(const rcpair *r, uint32_t q, const ornic_frame *f, uint8_t *m) {
  const rc_cm *c = &r->cm;
  const sim_config *cfg = r->cfg;
  mad_header(m, tid_of(c, q), ORNIC_CM_REQ);
  uint8_t *p = m + ORNIC_CM_MAD_HDR_LEN, t = c->resp_timeout;
  put32(p + 0, comm_id(c, NODE_REQ, q)); /* 4-7 reserved */
  put64(p + 8, CM_SERVICE_ID);
  put64(p + 16, c->guid[NODE_REQ]); /* 24-27 reserved; 28-31 Local Q_Key: 0 for RC */
  put24(p + 32, rc_qpn(cfg, NODE_REQ, q));
  p[35] = c->depth;              /* Responder Resources */
  p[39] = c->depth;              /* after the Local EECN (0): Initiator Depth */
  p[43] = (uint8_t)(t << 3 | 1); /* after the Remote EECN: Remote CM Response Timeout,
                                    Transport Service Type 0 (RC), E2E flow control 1 */
  put24(p + 44, r->cm.pair[q].start[NODE_REQ]);
  p[47] = (uint8_t)(t << 3 | 7); /* Local CM Response Timeout, Retry Count */
  put16(p + 48, f->bth.pkey);
  /* Path Packet Payload MTU, RDC Exists 0, RNR Retry Count 7; Max CM Retries, SRQ 0,
   * Extended Transport 0 */
  p[50] = (uint8_t)(ib_mtu(cfg->workload.pmtu) << 4 | 7);
  p[51] = (uint8_t)(CM_MAX_RETRIES << 4);
  /* The primary path, 52-95: no LIDs on a routed RoCEv2 path (Linux writes the
   * permissive LID when the hop limit is above 1), the hosts' GIDs, flow label
   * 0 and the links' rate, the frames' traffic class and hop limit, SL 0,
   * not subnet-local, the local ACK timeout. No alternate path (96-139). */
  put16(p + 52, 0xffff);
  put16(p + 54, 0xffff);
  put_gid(p + 56, f->ip.src);
  put_gid(p + 72, f->ip.dst);
  put32(p + 88, ib_rate(cfg->fabric.rate_gbps));
  p[92] = f->ip.tos;
  p[93] = CM_HOP_LIMIT;
  p[95] = (uint8_t)(t << 3);
  /* The private data, 140-231: RDMA-CM's IP CM header (IBA Annex A11):
   * version 0.0, IP version 4, the active side's port, both addresses. */
  uint8_t *pd = p + 140;
  pd[1] = 4 << 4;
  put16(pd + 2, c->sport);
  memcpy(pd + 4 + 12, f->ip.src, 4);
  memcpy(pd + 20 + 12, f->ip.dst, 4);
}

/* REP (IBA 12.6) of host B. */
static void build_rep(const rcpair *r, uint32_t q, uint8_t *m) {
  const rc_cm *c = &r->cm;
  mad_header(m, tid_of(c, q), ORNIC_CM_REP);
  uint8_t *p = m + ORNIC_CM_MAD_HDR_LEN;
  put32(p + 0, comm_id(c, NODE_RESP, q));
  put32(p + 4, comm_id(c, NODE_REQ, q));       /* 8-11 Local Q_Key: 0 */
  put24(p + 12, rc_qpn(r->cfg, NODE_RESP, q)); /* 16-18 Local EE Context: 0 */
  put24(p + 20, r->cm.pair[q].start[NODE_RESP]);
  p[24] = c->depth; /* Responder Resources */
  p[25] = c->depth; /* Initiator Depth */
  /* Target ACK Delay 0 (the responder ACKs at once), Failover Accepted 0, E2E flow
   * control 1; RNR Retry Count 7, SRQ 0 */
  p[26] = 1;
  p[27] = 7 << 5;
  put64(p + 28, c->guid[NODE_RESP]);
}

/* Sends one CM message of pair q from `node`: attr REQ, REP or RTU. */
static void send_cm(rcpair *r, int node, uint32_t q, uint16_t attr) {
  rc_cm *c = &r->cm;
  uint8_t mad[ORNIC_CM_MAD_LEN];
  ornic_frame f;
  rc_frame(r, node, q, &f, ORNIC_OP_UD_SEND_ONLY, c->psn[node]);
  c->psn[node] = (c->psn[node] + 1) & ORNIC_PSN_MASK;
  f.bth.destqp = ORNIC_CM_QP;
  f.ext.deth = (ornic_deth){ORNIC_CM_QKEY, 0, ORNIC_CM_QP};
  if (attr == ORNIC_CM_REQ) {
    build_req(r, q, &f, mad);
  } else if (attr == ORNIC_CM_REP) {
    build_rep(r, q, mad);
  } else { /* RTU */
    mad_header(mad, tid_of(c, q), ORNIC_CM_RTU);
    put32(mad + ORNIC_CM_MAD_HDR_LEN, comm_id(c, NODE_REQ, q));
    put32(mad + ORNIC_CM_MAD_HDR_LEN + 4, comm_id(c, NODE_RESP, q));
  }
  f.payload = mad;
  f.payload_len = ORNIC_CM_MAD_LEN;
  pkt_meta meta = {RC_PK_CM, 0, q, 0, 0, 0, 0};
  pkt *p = rc_encode(r, node, q, &f, &meta);
  if (!p) return;
  /* The bytes are the library encoder's (the NIC's in-place encoder is
   * checked against it for data frames only). */
  uint8_t want[512];
  ornic_ssize n = ornic_frame_encode(want, sizeof want, &f);
  if (n != (ornic_ssize)p->len || memcmp(want, p->data, p->len) != 0)
    sim_fail(r->s, "internal error: a CM %s frame differs from ornic_frame_encode's",
             ornic_cm_name(attr));
  sim_send(r->s, node, p); /* the simulation owns the buffer, failed or not */
}

static void arm(rcpair *r, int node, uint32_t q) {
  uint64_t t = 4096000ull << r->cm.resp_timeout; /* 4.096 us x 2^N, in ps */
  ltimer_arm(r->s, &r->cm.pair[q].timer[node], node, q | RC_CM_TIMER, sim_now(r->s) + t);
}

/* Sends the REQ (host A) or REP (host B) of pair q and waits for its answer. */
static void send_and_wait(rcpair *r, int node, uint32_t q) {
  rc_cm_pair *cp = &r->cm.pair[q];
  if (cp->tries[node]++ > CM_MAX_RETRIES) {
    sim_fail(r->s, "--rc-cm: QP 0x%06x sent its %s %u times without an answer (Max CM Retries %u)",
             rc_qpn(r->cfg, node, q), node == NODE_REQ ? "REQ" : "REP", cp->tries[node] - 1,
             CM_MAX_RETRIES);
    return;
  }
  cp->state[node] = RC_CM_WAIT;
  send_cm(r, node, q, node == NODE_REQ ? ORNIC_CM_REQ : ORNIC_CM_REP);
  arm(r, node, q);
}

/* Pair q is up for `node`: its requester may post. */
static void up(rcpair *r, int node, uint32_t q) {
  rc_cm_pair *cp = &r->cm.pair[q];
  cp->state[node] = RC_CM_UP;
  ltimer_stop(&cp->timer[node]);
  rc_req_post(r, &r->req[node][q]);
}

int rc_cm_init(rcpair *r) {
  const sim_config *cfg = r->cfg;
  rc_cm *c = &r->cm;
  memset(c, 0, sizeof *c);
  if (!cfg->protocol.rc.cm) return 0;
  if (!(c->pair = calloc(cfg->workload.qps, sizeof *c->pair))) return -1;
  rng g;
  rng_seed(&g, cfg->seed, STREAM_RC_CM);
  for (int n = 0; n < NODE_COUNT; n++) {
    /* Linux's ib_cm: a small idr index XORed with a random operand. */
    c->id_base[n] = 1 + rng_below(&g, 4096);
    c->id_xor[n] = (uint32_t)rng_next(&g);
    c->guid[n] = rng_next(&g);
    c->psn[n] = (uint32_t)rng_next(&g) & ORNIC_PSN_MASK;
  }
  c->tid_hi = (uint32_t)rng_next(&g);
  c->sport = (uint16_t)(32768 + rng_below(&g, 28232)); /* Linux's ephemeral ports */
  /* The timeouts: 4.096 us x 2^N above four nominal round trips. */
  uint64_t rtt = sim_times(r->s)->rtt_ps;
  uint8_t t = 1;
  while (t < 31 && (4096000ull << t) < 4 * rtt) t++;
  c->resp_timeout = t;
  /* The READ depth: the simulation keeps at most --rc-outstanding WQEs, READs
   * included, outstanding per requester QP (its responders take any number):
   * that, as far as the 8-bit fields reach. */
  uint32_t out = cfg->protocol.rc.outstanding;
  c->depth = (uint8_t)(out > 255 ? 255 : out);
  for (uint32_t q = 0; q < cfg->workload.qps; q++)
    for (int n = 0; n < NODE_COUNT; n++) {
      c->pair[q].start[n] = r->req[n][q].next_psn; /* nothing is posted yet */
      ltimer_init(&c->pair[q].timer[n]);
    }
  return 0;
}

void rc_cm_free(rcpair *r) {
  free(r->cm.pair);
  r->cm.pair = NULL;
}

void rc_cm_start(rcpair *r) {
  for (uint32_t q = 0; q < r->cfg->workload.qps && !sim_failed(r->s); q++)
    send_and_wait(r, NODE_REQ, q);
}

bool rc_cm_up(const rcpair *r, int node, uint32_t q) {
  return !r->cm.pair || r->cm.pair[q].state[node] == RC_CM_UP;
}

bool rc_cm_rx(rcpair *r, int node, const ornic_frame *f) {
  ornic_cm_msg m;
  if (!r->cm.pair || ornic_cm_decode(f, &m) != ORNIC_OK) return false;
  int64_t q = -1;
  if (node == NODE_RESP && m.attr_id == ORNIC_CM_REQ)
    q = wl_qp_index(r->cfg, m.local_qpn, false);
  else if (m.attr_id == ORNIC_CM_REP || m.attr_id == ORNIC_CM_RTU)
    q = pair_of(r, node, m.remote_comm_id);
  if (q < 0) return true; /* not one of ours: dropped, as a CM drops a stale message */
  rc_cm_pair *cp = &r->cm.pair[q];
  uint32_t u = (uint32_t)q;
  if (node == NODE_RESP && m.attr_id == ORNIC_CM_REQ) {
    /* A first REQ, or a repeat whose REP was lost: (again) a REP. Once the
     * RTU came, a late repeat is stale. */
    if (cp->state[node] != RC_CM_UP) {
      cp->tries[node] = 0;
      send_and_wait(r, node, u);
    }
  } else if (node == NODE_REQ && m.attr_id == ORNIC_CM_REP) {
    send_cm(r, node, u, ORNIC_CM_RTU); /* again for a repeated REP: the RTU was lost */
    if (cp->state[node] != RC_CM_UP) up(r, node, u);
  } else if (node == NODE_RESP && m.attr_id == ORNIC_CM_RTU) {
    if (cp->state[node] == RC_CM_WAIT) up(r, node, u);
  }
  return true;
}

void rc_cm_request_rx(rcpair *r, int node, uint32_t q) {
  if (r->cm.pair && node == NODE_RESP && r->cm.pair[q].state[node] == RC_CM_WAIT) up(r, node, q);
}

void rc_cm_timer(rcpair *r, int node, uint32_t q) {
  rc_cm_pair *cp = &r->cm.pair[q];
  if (!ltimer_expired(r->s, &cp->timer[node], node, q | RC_CM_TIMER)) return;
  if (cp->state[node] == RC_CM_WAIT) send_and_wait(r, node, q);
}
