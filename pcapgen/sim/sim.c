/* SPDX-License-Identifier: MIT */
#include "sim.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcqcn.h"
#include "event_queue.h"
#include "memory_budget.h"
#include "net.h"
#include "profile.h"
#include "records.h"
#include "sizing.h"
#include "tap_shapes.h"
#include "tapfilter.h"
#include "truth.h"
#include "workload.h"

/* EV_SWITCH: an incast run's data frame reaches the switch (fabric/). Timer
 * events are EV_TIMER + 16 x node (sim_timer_at). */
enum { EV_NIC_TX = 1, EV_ARRIVE = 2, EV_TIMER = 3, EV_SWITCH = 4 };

/* The lossless class of an incast run's PFC: priority 3, where the usual RoCE
 * configuration maps DSCP 26 (pcapgen/fabric/README.md cites it). */
#define SIM_PFC_PRIORITY 3
/* A CNP's IPv4 TOS: DSCP 48, ECT(0), as the ConnectX-4 Lx CNP of
 * docs/PROTOCOL.md 6.12 carries it. */
#define SIM_CNP_TOS 0xC2

/* Captures start at 2024-01-01T00:00:00Z: a fixed epoch keeps runs byte-identical. */
#define EPOCH_NS 1704067200000000000ull
/* Events handled after the last WQE completed before the run is declared over
 * anyway: stale duplicates and their ACKs die out long before this. */
#define DRAIN_EVENT_LIMIT 10000000ull
/* No-progress watchdog: this many events in a row, while WQEs are still
 * open, without a data packet accepted for the first time or a WQE
 * completed, and the run stops (st->stalled). Retry limits count timeouts
 * only; this catches every other endless loop, whatever keeps it going
 * (NAKs answered by retransmissions that are dropped again, probes...). A
 * run that progresses accepts a packet every few events; the longest
 * legitimate gap is go-back-N losing its first retransmission round after
 * round, about 3 events per packet of the window each: the limit allows 85
 * such rounds. Small, because a stuck run writes about 2 GB/s of capture
 * that is then thrown away. */
#define STALL_EVENT_BASE (1ull << 18)
#define STALL_EVENTS_PER_WINDOW_PACKET 256u

typedef struct {
  endpoint_ops ops;
  void *self;
  uint64_t free_ps;       /* link busy until */
  bool tx_pending;        /* an EV_NIC_TX is queued */
  uint64_t tx_at;         /* its time: an earlier one queued since (a PFC XON) supersedes it */
  uint64_t paused_until;  /* incast, PFC: the NIC sends nothing before */
  uint64_t pace_ps;       /* incast, DCQCN: no data frame before (the RP's rate) */
  pkt *cq_head, *cq_tail; /* control frames waiting */
  ornic_frame tmpl;
  framer fr; /* encodes frames of tmpl's shape in place */
  uint16_t ip_id;
} nic;

/* What the counters were when progress was last seen. */
typedef struct {
  uint64_t events, progress, wire, retx, pool_drops, rx_drops;
} progress_mark;

struct sim {
  const sim_config *cfg;
  stats *st;
  writer *w;
  evq q;
  net *net;
  pktpool pool;
  uint64_t now;
  nic nic[NODE_COUNT];
  int tap;
  tapfilter tapf;
  tap_late late; /* --capture-tx-late: the tapped host's transmitted frames held */
  int observed_node;
  sim_observer_fn observer;
  void *observer_ctx;
  sim_timing times;
  size_t frame_size;    /* bytes of a template that sim_frame copies, opaque to the optimiser */
  uint64_t stall_limit; /* events without progress before the watchdog stops the run */
  /* incast (cfg->incast.senders > 0): the switch the data frames go through */
  sim_switch_fn sw_fn;
  void *sw_ctx;
  uint64_t hop_ps; /* the switch-receiver hop, added to the receiver's frames */
  bool dcqcn;      /* the receiver is a DCQCN NP, the sender an RP */
  dcqcn_params dcp;
  dcqcn_rp rp;  /* the sender's one rate limiter, shared by its QPs (fabric/README.md) */
  dcqcn_np *np; /* the receiver's CNP generator, per QP */
  bool failed;
  char err[512];
};

/* Sender k of an incast run (k from 0): MAC 02:00:00:01:HH:LL and IPv4
 * 10.0.(1 + HH).LL with HHLL = k + 1, so sender 1 is 10.0.1.1; the receiver
 * keeps 10.0.0.2. */
static void sender_address(uint32_t k, uint8_t mac[6], uint8_t ip[4]) {
  uint32_t h = k + 1;
  const uint8_t m[6] = {2, 0, 0, 1, (uint8_t)(h >> 8), (uint8_t)h};
  const uint8_t a[4] = {10, 0, (uint8_t)(1 + (h >> 8)), (uint8_t)h};
  memcpy(mac, m, 6);
  memcpy(ip, a, 4);
}

static void nic_template(nic *n, int node, const sim_config *cfg) {
  uint8_t mac[2][6] = {{2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 2}};
  uint8_t ip[2][4] = {{10, 0, 0, 1}, {10, 0, 0, 2}};
  if (cfg->incast.senders) sender_address(cfg->incast.index, mac[NODE_REQ], ip[NODE_REQ]);
  ornic_frame_init(&n->tmpl, ORNIC_LINK_ETHERNET, 4);
  memcpy(n->tmpl.eth.src, mac[node], 6);
  memcpy(n->tmpl.eth.dst, mac[!node], 6);
  memcpy(n->tmpl.ip.src, ip[node], 4);
  memcpy(n->tmpl.ip.dst, ip[!node], 4);
  n->tmpl.ip.tos = 0x6A; /* DSCP 26 (the usual RoCE class) + ECT(0) */
}

/* The frame time and nominal round trip are sizing.h's, which --window auto
 * and --otd auto also use (with the emulator's hold, when there is one). */
static void compute_times(sim *s) {
  const sim_config *cfg = s->cfg;
  s->times.frame_ps = sizing_frame_ps(cfg);
  s->times.rtt_ps = sizing_rtt_ps(cfg);
  s->times.otd_ps = (uint64_t)cfg->protocol.otd * s->times.frame_ps * cfg->workload.qps;
}

/* The NICs' templates and their in-place encoders, which check themselves
 * against libornicproto's encoder. 0, or -1 with a message in err. */
static int setup_nics(sim *s, char *err, size_t errlen) {
  for (int i = 0; i < NODE_COUNT; i++) {
    nic_template(&s->nic[i], i, s->cfg);
    int rc = framer_init(&s->nic[i].fr, &s->nic[i].tmpl);
    if (rc < 0) {
      snprintf(err, errlen, "internal error: cannot encode the NIC's frames in place: %s",
               ornic_strerror(rc));
      return -1;
    }
  }
  return 0;
}

/* An incast run's sender (fabric/): the hop behind the switch and DCQCN's
 * state. 0, or -1 with a message in err. */
static int setup_incast(sim *s, char *err, size_t errlen) {
  const sim_config *cfg = s->cfg;
  if (!cfg->incast.senders) return 0;
  s->hop_ps = (uint64_t)(cfg->incast.switch_delay_us * 1e6 + 0.5);
  if (!cfg->incast.dcqcn) return 0;
  s->dcqcn = true;
  dcqcn_params_default(&s->dcp, cfg->fabric.rate_gbps);
  dcqcn_rp_init(&s->rp, &s->dcp, 0);
  if (!(s->np = calloc(cfg->workload.qps, sizeof *s->np))) {
    snprintf(err, errlen, "out of memory setting up DCQCN");
    return -1;
  }
  return 0;
}

sim *sim_new(const sim_config *cfg, stats *st, writer *w, char *err, size_t errlen) {
  sim *s = calloc(1, sizeof *s);
  /* One lane per path and direction: a path delivers in the order it was
   * given frames. One slot per NIC: its EV_NIC_TX (one at most, tx_pending). */
  if (!s || evq_init(&s->q, 1024) < 0 || evq_lanes(&s->q, 2 * cfg->fabric.paths) < 0 ||
      evq_slots(&s->q, NODE_COUNT) < 0 || !(s->net = net_new(cfg))) {
    snprintf(err, errlen, "out of memory setting up the simulation");
    sim_free(s);
    return NULL;
  }
  s->cfg = cfg;
  s->st = st;
  s->w = w;
  /* The fields the encoders read (link through payload_len); the bytes after
   * them are decode's output alone, which no encoder reads (ornic/frame.h). */
  s->frame_size = offsetof(ornic_frame, payload_caplen);
  /* Largest frame: a NAK with 255 blocks (588 B) or a data frame. */
  pktpool_init(&s->pool, cfg->workload.pmtu + 128 > 640 ? cfg->workload.pmtu + 128 : 640);
  /* Frames in flight follow the bandwidth-delay product, unless paths are
   * slower than the NICs and queues grow: then --max-memory stops the run. */
  if (cfg->max_memory) {
    uint64_t n = budget_frames(cfg, s->pool.bufsize);
    s->pool.limit = n < 64 ? 64 : (size_t)n;
  }
  if (setup_nics(s, err, errlen) < 0 || setup_incast(s, err, errlen) < 0) {
    sim_free(s);
    return NULL;
  }
  /* --capture auto: the data receiver; with two hosts, host A (it sends and receives requests). */
  s->tap = cfg->capture.tap == TAP_REQUESTER        ? NODE_REQ
           : cfg->capture.tap == TAP_RESPONDER      ? NODE_RESP
           : cfg->capture.tap == TAP_NONE           ? -1
           : cfg->profile->caps & PROFILE_TWO_HOSTS ? NODE_REQ
           : cfg->workload.op == OP_READ            ? NODE_REQ
                                                    : NODE_RESP;
  tapfilter_init(&s->tapf, cfg);
  tap_late_init(&s->late, cfg->capture.tx_late_us, cfg->seed);
  compute_times(s);
  uint64_t win = wl_npkts(wl_max_wqe_len(cfg), cfg->workload.pmtu);
  win = win < cfg->protocol.window ? win : cfg->protocol.window;
  s->stall_limit = STALL_EVENT_BASE + STALL_EVENTS_PER_WINDOW_PACKET * win;
  return s;
}

static void free_queue(sim *s, pkt *p) {
  while (p) {
    pkt *next = p->next;
    pktpool_put(&s->pool, p);
    p = next;
  }
}

void sim_free(sim *s) {
  if (!s) return;
  tap_late_free(&s->late); /* held frames are dropped, not written */
  ev e;
  while (evq_pop(&s->q, &e))
    if (e.kind == EV_ARRIVE || e.kind == EV_SWITCH) pktpool_put(&s->pool, e.ptr);
  for (int i = 0; i < NODE_COUNT; i++) free_queue(s, s->nic[i].cq_head);
  pktpool_destroy(&s->pool);
  free(s->np);
  evq_free(&s->q);
  net_free(s->net);
  free(s);
}

void sim_observe_data(sim *s, int node, sim_observer_fn fn, void *ctx) {
  s->observed_node = node;
  s->observer = fn;
  s->observer_ctx = ctx;
}

void sim_set_endpoint(sim *s, int node, const endpoint_ops *ops, void *self) {
  s->nic[node].ops = *ops;
  s->nic[node].self = self;
}

uint64_t sim_now(const sim *s) { return s->now; }
const sim_timing *sim_times(const sim *s) { return &s->times; }
stats *sim_stats(sim *s) { return s->st; }
bool sim_failed(const sim *s) { return s->failed; }
const char *sim_error(const sim *s) { return s->err; }

void sim_fail(sim *s, const char *fmt, ...) {
  if (s->failed) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
  s->failed = true;
}

static void push(sim *s, uint64_t t, uint32_t kind, uint32_t arg, void *ptr) {
  if (evq_push(&s->q, t, kind, arg, ptr) < 0) sim_fail(s, "out of memory (event queue)");
}

/* The node's NIC sends its next frame at t: the event of its slot. */
static void push_tx(sim *s, int node, uint64_t t) {
  s->nic[node].tx_at = t;
  if (evq_push_slot(&s->q, (unsigned)node, t, EV_NIC_TX, (uint32_t)node, NULL) < 0)
    sim_fail(s, "out of memory (event queue)");
}

/* p, sent by `node`, reaches the other NIC at t: an event of its path's lane. */
static void push_arrival(sim *s, int node, uint64_t t, pkt *p) {
  unsigned lane = 2u * p->path + (unsigned)node;
  if (evq_push_lane(&s->q, lane, t, EV_ARRIVE, (uint32_t)!node, p) < 0)
    sim_fail(s, "out of memory (event queue)");
}

/* Through libc's memcpy with a size the compiler does not see: for a
 * constant size it inlines `rep movsq`, whose start-up cost is larger than
 * this copy (pcapgen/README.md, "Speed"). */
void sim_frame(const sim *s, int node, ornic_frame *f) {
  memcpy(f, &s->nic[node].tmpl, s->frame_size);
}

/* The UDP source port of a frame `node` sends on `path` (--udp-sport). */
static uint16_t udp_sport(const sim *s, int node, unsigned path, uint32_t destqp) {
  const sim_config *cfg = s->cfg;
  if (cfg->fabric.sport == SPORT_PATH) return (uint16_t)(SIM_UDP_SPORT_BASE + path);
  if (cfg->fabric.sport == SPORT_FIXED) return cfg->fabric.sport_fixed;
  return (uint16_t)wl_sender_qpn(cfg, node == NODE_RESP, destqp);
}

pkt *sim_encode(sim *s, int node, ornic_frame *f, const pkt_meta *m) {
  return sim_encode_on(s, node, f, m, SIM_PATH_SPRAY);
}

pkt *sim_encode_on(sim *s, int node, ornic_frame *f, const pkt_meta *m, unsigned path) {
  return sim_encode_gen(s, node, f, m, path, NULL);
}

pkt *sim_encode_gen(sim *s, int node, ornic_frame *f, const pkt_meta *m, unsigned path,
                    const framer_payload *gen) {
  nic *n = &s->nic[node];
  pkt *p = pktpool_get(&s->pool);
  if (!p) {
    char limit[32];
    budget_format(s->cfg->max_memory, limit, sizeof limit);
    if (s->pool.limit && s->pool.in_use >= s->pool.limit)
      sim_fail(s,
               "%zu frames in flight would exceed the memory limit (%s, --max-memory): the "
               "paths queue more than they carry; raise --path-rate-gbps or lower --qps or "
               "--window",
               s->pool.in_use, limit);
    else
      sim_fail(s, "out of memory (packet buffers)");
    return NULL;
  }
  if (path == SIM_PATH_SPRAY) {
    path = net_pick(s->net, node, s->now);
  } else if (path >= s->cfg->fabric.paths) {
    sim_fail(s, "internal error: path %u of %u", path, s->cfg->fabric.paths);
    pktpool_put(&s->pool, p);
    return NULL;
  }
  f->udp.sport = udp_sport(s, node, path, f->bth.destqp);
  f->ip.id = n->ip_id++;
  ornic_ssize len = framer_encode(&n->fr, p->data, s->pool.bufsize, f, gen);
  if (len < 0) {
    sim_fail(s, "internal error: cannot encode opcode 0x%02x: %s", f->bth.opcode,
             ornic_strerror((int)len));
    pktpool_put(&s->pool, p);
    return NULL;
  }
  p->len = (uint32_t)len;
  p->path = (uint16_t)path;
  p->src = (uint8_t)node;
  p->m = *m;
  return p;
}

void sim_kick(sim *s, int node) {
  nic *n = &s->nic[node];
  if (n->tx_pending) return;
  n->tx_pending = true;
  push_tx(s, node, n->free_ps > s->now ? n->free_ps : s->now);
}

void sim_send(sim *s, int node, pkt *p) {
  nic *n = &s->nic[node];
  p->next = NULL;
  if (n->cq_tail)
    n->cq_tail->next = p;
  else
    n->cq_head = p;
  n->cq_tail = p;
  sim_kick(s, node);
}

void sim_timer_at(sim *s, int node, uint64_t t, uint32_t arg) {
  push(s, t, EV_TIMER + (uint32_t)node * 16, arg, NULL);
}

/* Writes p, captured at t_ps, through the tap's filters. */
static void write_frame(sim *s, const pkt *p, uint64_t t_ps) {
  int fate = tapfilter_next(&s->tapf, t_ps);
  s->st->pkts_full = s->tapf.seen;
  if (fate == TAP_MISSED && s->st->truth) truth_missed(s->st->truth, s->tapf.seen, p);
  if (fate != TAP_WRITE) return;
  const uint8_t *data = p->data;
  size_t len = p->len;
  uint8_t v1[16384];
  if (s->cfg->capture.rocev1 &&
      p->src == (s->cfg->capture.rocev1 == TAP_RESPONDER ? NODE_RESP : NODE_REQ)) {
    size_t n = tap_as_rocev1(p->data, p->len, v1, sizeof v1);
    if (n) {
      data = v1;
      len = n;
    }
  }
  if (writer_put(s->w, EPOCH_NS + t_ps / 1000, data, len) < 0) {
    sim_fail(s, "%s", writer_error(s->w));
    return;
  }
  s->st->pkts_captured++;
  s->st->bytes_captured += len;
  if (s->st->truth) truth_written(s->st->truth, s->st->pkts_captured, p);
}

/* Writes the held frames due by t_ps (output/tap_shapes.h). */
static void flush_late(sim *s, uint64_t t_ps) {
  uint64_t at;
  pkt *p;
  while ((p = tap_late_due(&s->late, t_ps, &at))) {
    if (!s->failed) write_frame(s, p, at);
    free(p);
  }
}

/* The tap: a frame the tapped host transmits may be written late
 * (--capture-tx-late); the others at once, after what is due. */
static void capture(sim *s, const pkt *p) {
  if (s->late.late_us > 0 && p->src == s->tap) {
    if (tap_late_hold(&s->late, p, s->now) < 0) sim_fail(s, "out of memory (--capture-tx-late)");
    return;
  }
  flush_late(s, s->now);
  write_frame(s, p, s->now);
}

static void count_tx(stats *st, const pkt *p) {
  st->pkts_wire++;
  st->bytes_wire += p->len;
  st->payload_wire += p->m.payload_len;
  switch (p->m.kind) {
  case PK_DATA:
    st->data_pkts++;
    st->retx += p->m.retx;
    break;
  case PK_READ_REQ: st->read_reqs++; break;
  case PK_ACK: st->acks++; break;
  case PK_NAK: st->naks++; break;
  case PK_FATAL: st->fatal++; break;
  }
}

static pkt *cq_pop(nic *n) {
  pkt *p = n->cq_head;
  if (p && !(n->cq_head = p->next)) n->cq_tail = NULL;
  return p;
}

/* The NIC sends nothing before t (a PFC pause, DCQCN's pacing): its next
 * look at its queues is then. */
static void nic_wait(sim *s, int node, uint64_t t) {
  s->nic[node].tx_pending = true;
  push_tx(s, node, t);
}

/* The NIC may send now (a PFC XON): an EV_NIC_TX queued for later is
 * superseded by one as soon as its link is free (nic_tx ignores the old). */
static void nic_wake(sim *s, int node) {
  nic *n = &s->nic[node];
  uint64_t t = n->free_ps > s->now ? n->free_ps : s->now;
  if (n->tx_pending && n->tx_at <= t) return;
  nic_wait(s, node, t);
}

/* Whether an incast run's NIC holds back now: paused by PFC (everything), or
 * paced by DCQCN (data; control frames go first anyway). */
static bool nic_held(sim *s, int node) {
  nic *n = &s->nic[node];
  if (s->now < n->paused_until) {
    nic_wait(s, node, n->paused_until);
    return true;
  }
  if (!n->cq_head && s->now < n->pace_ps) {
    nic_wait(s, node, n->pace_ps);
    return true;
  }
  return false;
}

/* DCQCN's RP: the next data frame waits the gap of this one at Rc. */
static void pace(sim *s, nic *n, const pkt *p) {
  uint32_t wire = p->len + NET_WIRE_EXTRA;
  dcqcn_rp_sent(&s->rp, wire, s->now);
  n->pace_ps = s->now + dcqcn_rp_gap_ps(&s->rp, wire, s->now);
}

/* p, sent by `node`, left the fabric's path at arrive: in an incast run a
 * data-direction frame reaches the switch (EV_SWITCH), the receiver's frames
 * cross the switch-sender hop too; otherwise the other NIC. */
static void to_fabric(sim *s, int node, pkt *p, uint64_t arrive) {
  if (!s->sw_fn) {
    push_arrival(s, node, arrive, p);
    return;
  }
  if (node == NODE_RESP) {
    push_arrival(s, node, arrive + s->hop_ps, p);
    return;
  }
  if (evq_push_lane(&s->q, 2u * p->path, arrive, EV_SWITCH, 0, p) < 0)
    sim_fail(s, "out of memory (event queue)");
}

/* The link is free: send the next frame, if the node has one. */
static void nic_tx(sim *s, int node) {
  nic *n = &s->nic[node];
  if (!n->tx_pending || s->now != n->tx_at) return; /* superseded (nic_wake) */
  n->tx_pending = false;
  if (s->sw_fn && nic_held(s, node)) return;
  pkt *p = cq_pop(n);
  if (!p && n->ops.next_tx) p = n->ops.next_tx(n->self);
  if (!p) return;
  count_tx(s->st, p);
  records_tx(s->st->records, s->now, p);
  if (s->tap == node) capture(s, p);
  if (s->dcqcn && node == NODE_REQ && p->m.kind == PK_DATA) pace(s, n, p);
  n->free_ps = s->now + net_nic_ser_ps(s->net, p->len);
  uint64_t arrive;
  int r = net_send(s->net, p, n->free_ps, &arrive);
  if (s->st->paths) stats_path_frame(s->st, p->path, r == NET_DELIVER, r == NET_DROP_DOWN);
  if (r == NET_DELIVER) {
    to_fabric(s, node, p, arrive);
  } else {
    s->st->drops_random += r == NET_DROP_RANDOM;
    s->st->drops_rule += r == NET_DROP_RULE;
    s->st->drops_down += r == NET_DROP_DOWN;
    if (s->st->truth) truth_lost(s->st->truth, p);
    pktpool_put(&s->pool, p);
  }
  n->tx_pending = true;
  push_tx(s, node, n->free_ps);
}

/* DCQCN's NP: a CNP to the sender QP of a CE-marked data frame, through the
 * receiver's control queue (so it is on the wire and in the capture): BTH
 * opcode 0x81, BECN set, PSN 0, 16 reserved zero bytes (docs/PROTOCOL.md 6.12). */
static void send_cnp(sim *s, uint32_t qp) {
  ornic_frame f;
  sim_frame(s, NODE_RESP, &f);
  f.ip.tos = SIM_CNP_TOS;
  f.bth.opcode = ORNIC_OP_CNP;
  f.bth.becn = 1;
  f.bth.destqp = wl_qpn(s->cfg, false, qp);
  f.bth.psn = 0;
  pkt_meta m = {.kind = PK_CNP, .qp = qp};
  pkt *c = sim_encode(s, NODE_RESP, &f, &m);
  if (!c) return;
  s->st->cnps_sent++;
  sim_send(s, NODE_RESP, c);
}

/* What an incast run's NICs do with a frame before its engine sees it: the
 * sender takes a CNP for its RP (engines know no CNPs), the receiver answers
 * a CE mark as the NP. True when the frame is consumed here. */
static bool incast_rx(sim *s, int node, const pkt *p, const ornic_frame *f) {
  if (node == NODE_REQ && f->bth.opcode == ORNIC_OP_CNP) {
    s->st->cnps_received++;
    if (s->dcqcn) dcqcn_rp_cnp(&s->rp, s->now);
    return true;
  }
  if (node == NODE_RESP && s->dcqcn && p->m.kind == PK_DATA && (f->ip.tos & 3) == 3 &&
      p->m.qp < s->cfg->workload.qps && dcqcn_np_ce(&s->np[p->m.qp], &s->dcp, s->now))
    send_cnp(s, p->m.qp);
  return false;
}

/* A PFC frame from the switch reached `node`: the tap sees it, the NIC sends
 * nothing until the pause of the lossless priority expires (quanta x 512 bit
 * times at its link rate, 802.1Qbb) or resumes at once on quanta 0 (XON).
 * It is not an RDMA frame: the engine never sees it. */
static void pause_arrive(sim *s, int node, pkt *p) {
  nic *n = &s->nic[node];
  ornic_pause pf;
  if (s->tap == node) capture(s, p);
  if (ornic_pause_decode(p->data, p->len, ORNIC_LINK_ETHERNET, &pf) != ORNIC_OK)
    sim_fail(s, "internal error: a generated PFC frame does not decode");
  else if (pf.enable & (1u << SIM_PFC_PRIORITY)) {
    uint16_t q = pf.quanta[SIM_PFC_PRIORITY];
    s->st->pauses_received++;
    double ps = q * (double)ORNIC_PAUSE_QUANTUM_BITS * 1000.0 / s->cfg->fabric.rate_gbps;
    n->paused_until = s->now + (uint64_t)(ps + 0.5);
    if (!q) nic_wake(s, node);
  }
  pktpool_put(&s->pool, p);
}

static void arrive(sim *s, int node, pkt *p) {
  if (p->m.kind == PK_PAUSE) {
    pause_arrive(s, node, p);
    return;
  }
  net_arrived(s->net, p);
  if (s->tap == node) capture(s, p);
  /* The NICs act on what is on the wire, so every frame is decoded. Its iCRC
   * was computed by the encoder a moment ago and is not checked again: the
   * tests verify every generated frame's iCRC, and a second CRC per frame
   * would be a large share of the run (pcapgen/README.md, "Speed"). */
  ornic_frame f;
  int rc = ornic_frame_decode(&f, p->data, p->len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  if (rc != ORNIC_OK)
    sim_fail(s, "internal error: a generated frame does not decode: %s", ornic_strerror(rc));
  else {
    if (s->observer && node == s->observed_node && p->m.kind == PK_DATA)
      s->observer(s->observer_ctx, s->now, p, &f);
    if (!s->sw_fn || !incast_rx(s, node, p, &f)) s->nic[node].ops.rx(s->nic[node].self, p, &f);
  }
  pktpool_put(&s->pool, p);
}

static void dispatch(sim *s, const ev *e) {
  switch (e->kind) {
  case EV_NIC_TX: nic_tx(s, (int)e->arg); break;
  case EV_ARRIVE: arrive(s, (int)e->arg, e->ptr); break;
  case EV_SWITCH: s->sw_fn(s->sw_ctx, s, e->ptr); break;
  default: {
    int node = (int)((e->kind - EV_TIMER) / 16);
    if (s->nic[node].ops.timer) s->nic[node].ops.timer(s->nic[node].self, e->arg);
  }
  }
}

static bool all_done(const stats *st) { return st->wqes_done >= st->wqes_total; }

static void stall_fail(sim *s, const progress_mark *m) {
  const stats *st = s->st;
  uint64_t pool = st->pool_drops - m->pool_drops, rx = st->rx_drops - m->rx_drops;
  char why[200];
  if (pool)
    snprintf(why, sizeof why,
             "%llu packets were dropped for lack of bitmap blocks: --bitmap-pool "
             "%llu is too small for this reordering (raise it, or leave it out)",
             (unsigned long long)pool, (unsigned long long)s->cfg->protocol.bitmap_pool);
  else if (rx)
    snprintf(why, sizeof why, "the receiver dropped %llu packets it had no room for",
             (unsigned long long)rx);
  else
    snprintf(why, sizeof why, "the protocol does not recover under these options");
  s->st->stalled = true;
  sim_fail(s,
           "no progress: %llu frames sent (%llu retransmissions) since a data packet was "
           "last accepted, %llu of %llu WQEs completed; %s",
           (unsigned long long)(st->pkts_wire - m->wire), (unsigned long long)(st->retx - m->retx),
           (unsigned long long)st->wqes_done, (unsigned long long)st->wqes_total, why);
}

/* The watchdog (STALL_EVENT_LIMIT); true when it stopped the run. */
static bool stalled(sim *s, progress_mark *m, uint64_t events) {
  const stats *st = s->st;
  uint64_t now = st->accepted + st->wqes_done;
  if (now != m->progress || all_done(st)) {
    *m = (progress_mark){events, now, st->pkts_wire, st->retx, st->pool_drops, st->rx_drops};
    return false;
  }
  if (events - m->events <= s->stall_limit) return false;
  stall_fail(s, m);
  return true;
}

/* Whether the loop stops early: --bench count reached, or SIGINT (polled
 * every 4096 events, with the progress bar). */
static bool stop_early(sim *s, volatile sig_atomic_t *stop, sim_progress_fn progress, void *ctx,
                       uint64_t events) {
  stats *st = s->st;
  if (s->cfg->bench_packets && st->pkts_captured >= s->cfg->bench_packets)
    return st->bench_stop = true;
  if (events & 4095) return false;
  if (*stop) return st->interrupted = true;
  if (progress) progress(ctx, st, writer_bytes(s->w));
  return false;
}

void sim_finish(sim *s) {
  flush_late(s, UINT64_MAX);
  s->st->end_ps = s->now;
  s->st->pkts_in_flight_peak = s->pool.peak;
  s->st->unused_drop_rules = net_unused_drop_rules(s->net);
}

int sim_run(sim *s, volatile sig_atomic_t *stop, sim_progress_fn progress, void *ctx) {
  ev e;
  uint64_t events = 0, drained = 0;
  stats *st = s->st;
  progress_mark mark = {0, UINT64_MAX, 0, 0, 0, 0};
  while (!s->failed && evq_pop(&s->q, &e)) {
    s->now = e.t;
    dispatch(s, &e);
    if (all_done(st) && ++drained > DRAIN_EVENT_LIMIT) break;
    if (stalled(s, &mark, events)) break;
    if (stop_early(s, stop, progress, ctx, ++events)) break;
  }
  sim_finish(s);
  if (s->failed) return -1;
  if (st->interrupted || st->bench_stop) return 1;
  if (!all_done(st)) {
    sim_fail(s, "internal error: the simulation stalled with %llu of %llu WQEs incomplete",
             (unsigned long long)(st->wqes_total - st->wqes_done),
             (unsigned long long)st->wqes_total);
    return -1;
  }
  return 0;
}

void ltimer_init(ltimer *t) {
  t->deadline = 0;
  t->pending = UINT64_MAX;
  t->armed = false;
}

void ltimer_arm(sim *s, ltimer *t, int node, uint32_t arg, uint64_t deadline) {
  t->armed = true;
  t->deadline = deadline;
  if (t->pending == UINT64_MAX || t->pending > deadline) {
    t->pending = deadline;
    sim_timer_at(s, node, deadline, arg);
  }
}

bool ltimer_expired(sim *s, ltimer *t, int node, uint32_t arg) {
  /* An event that is not the timer's latest was superseded by an earlier one. */
  if (s->now != t->pending) return false;
  t->pending = UINT64_MAX;
  if (!t->armed) return false;
  if (s->now < t->deadline) {
    t->pending = t->deadline;
    sim_timer_at(s, node, t->deadline, arg);
    return false;
  }
  t->armed = false;
  return true;
}

/* ---- test hooks (fuzz/fuzz_responder.c) -------------------------------------- */

/* The frame gets a buffer of exactly its size (not a pool buffer), so that a
 * sanitizer sees any read past its end. */
int sim_inject(sim *s, int node, const uint8_t *frame, size_t len) {
  pkt *p = calloc(1, sizeof *p + (len ? len : 1));
  if (!p) {
    sim_fail(s, "out of memory (injected frame)");
    return ORNIC_ERR_NOBUF;
  }
  memcpy(p->data, frame, len);
  p->len = (uint32_t)len;
  p->src = (uint8_t)!node;
  ornic_frame f;
  int rc = ornic_frame_decode(&f, p->data, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  if (rc == ORNIC_OK) s->nic[node].ops.rx(s->nic[node].self, p, &f);
  free(p);
  return rc;
}

int sim_run_until(sim *s, uint64_t t) {
  ev e;
  while (!s->failed && evq_len(&s->q) && evq_next_time(&s->q) <= t && evq_pop(&s->q, &e)) {
    s->now = e.t;
    dispatch(s, &e);
  }
  if (s->now < t) s->now = t;
  return s->failed ? -1 : 0;
}

/* ---- lockstep and the switch (pcapgen/fabric/: incast) ---------------------- */

bool sim_next_time(sim *s, uint64_t *t) {
  if (s->failed || !evq_len(&s->q)) return false;
  *t = evq_next_time(&s->q);
  return true;
}

int sim_step(sim *s) {
  ev e;
  if (!s->failed && evq_pop(&s->q, &e)) {
    s->now = e.t;
    dispatch(s, &e);
  }
  return s->failed ? -1 : 0;
}

void sim_set_switch(sim *s, sim_switch_fn fn, void *ctx) {
  s->sw_fn = fn;
  s->sw_ctx = ctx;
}

void sim_switch_forward(sim *s, pkt *p, uint64_t t) { push(s, t, EV_ARRIVE, NODE_RESP, p); }

void sim_switch_drop(sim *s, pkt *p) {
  net_arrived(s->net, p);
  s->st->drops_switch++;
  if (s->st->truth) truth_lost(s->st->truth, p);
  pktpool_put(&s->pool, p);
}

void sim_switch_pause(sim *s, const uint8_t *frame, size_t len, uint64_t t) {
  pkt *p = pktpool_get(&s->pool);
  if (!p || len > s->pool.bufsize) {
    if (p) pktpool_put(&s->pool, p);
    sim_fail(s, "out of memory (packet buffers)");
    return;
  }
  memcpy(p->data, frame, len);
  p->len = (uint32_t)len;
  p->path = 0;
  p->src = NODE_RESP;
  p->m = (pkt_meta){.kind = PK_PAUSE};
  push(s, t, EV_ARRIVE, NODE_REQ, p);
}

double sim_rp_rate_gbps(sim *s) {
  return s->dcqcn ? dcqcn_rp_rate_gbps(&s->rp, s->now) : s->cfg->fabric.rate_gbps;
}
