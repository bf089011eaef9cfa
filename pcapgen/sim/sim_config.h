/* SPDX-License-Identifier: MIT */
/* What one simulation runs: the profile, the workload, the fabric, the
 * protocol parameters and the tap. The simulator, the profiles' engines and
 * the capture's filters read this and nothing else. The command line (cli/:
 * its `options` embed one) is one way to fill it, and it validates every
 * range, so a sim_config from it can be trusted; a test or a fuzz harness
 * fills one itself: sim_config_defaults, then the fields it cares about.
 *
 * Values are resolved: the "auto" choices of the command line (--otd auto,
 * --window auto, --ack-engine-ns auto, --irn-nack-threshold auto, the --rnic
 * presets) are numbers here, which the command line computes with sizing.h.
 * The groups follow ornic-pcapgen --help (Workload, Network, Protocol,
 * Output). */
#ifndef PCAPGEN_SIM_CONFIG_H
#define PCAPGEN_SIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The two NICs: the requester (rc profile: host A) and the responder (host B). */
enum { NODE_REQ = 0, NODE_RESP = 1, NODE_COUNT = 2 };

/* A row of the profile table (profiles/profile.h). */
typedef struct profile profile;

typedef enum { OP_WRITE = 0, OP_READ = 1 } op_kind;

/* A `wqe` line of a scenario file: `count` WQEs of `size` bytes, posted in
 * file order on each QP from qp_lo to qp_hi. */
typedef struct {
  uint64_t size, count;
  uint32_t qp_lo, qp_hi;
  unsigned line; /* in the scenario file, for messages */
} wqe_group;

/* The work both NICs do; workload.h maps it onto QPs, PSNs and addresses. */
typedef struct {
  op_kind op;
  uint32_t qps;
  uint32_t qpn_base[2]; /* QP q's number is qpn_base[node] + q (NODE_REQ: the requester,
                           rc: host A; NODE_RESP: the responder, host B) */
  uint32_t pmtu;        /* 256, 512, 1024, 2048 or 4096 */
  int64_t start_psn;    /* the first PSN of every QP; -1: drawn from the seed */
  uint64_t wqes;        /* WQEs per QP, when there is no plan */
  uint64_t wqe_size;    /* bytes, when there is no plan */
  wqe_group *plan;      /* a scenario's `wqe` lines; NULL: wqes x wqe_size on every QP */
  size_t nplan;
} sim_workload;

typedef enum { SPRAY_RANDOM = 0, SPRAY_RR = 1, SPRAY_LEAST_LOADED = 2 } spray_policy;
/* What the UDP source port of a frame says (sim.c). The path a frame takes is
 * pcapgen's own either way; only the port on the wire changes. */
typedef enum {
  SPORT_PATH = 0, /* 0xC000 + path, as ECMP entropy (the default) */
  SPORT_QPN = 1,  /* the low 16 bits of the sending QP's number, as some NICs do */
  SPORT_FIXED = 2 /* one port for every frame */
} sport_mode;

/* Drop the first transmission of packet `off` (PSN offset) of WQE `wqe` on QP `qp`. */
typedef struct {
  uint32_t qp;
  uint64_t wqe;
  uint32_t off;
  bool used;
} drop_rule;

/* One path of the fabric: its one-way delay, the rate of its link and its loss
 * probability (both directions). */
typedef struct {
  double delay_us, rate_gbps, loss;
} path_spec;

/* What a --path-event does to its path from start_us until end_us. */
typedef enum {
  PATH_EV_FAIL = 0, /* a black hole: every frame on the path meanwhile is lost */
  PATH_EV_LOSS = 1, /* the loss probability is `value` */
  PATH_EV_RATE = 2  /* the link's rate is `value` Gb/s */
} path_event_kind;

/* A change of one path in time (path_events.h): [start_us, end_us) of
 * simulated time, both directions. */
typedef struct {
  uint32_t path;
  path_event_kind kind;
  double value;            /* PATH_EV_LOSS: probability; PATH_EV_RATE: Gb/s */
  double start_us, end_us; /* end_us < 0: the path never recovers */
} path_event;

#define PATH_EVENTS_MAX 32 /* a handful tell a story; the summary's phases are bounded by it */

/* The paths between the two NICs and what they do to frames (net.h). */
typedef struct {
  uint32_t paths;
  double base_delay_us, delay_spread_us; /* path i: base + spread * i / (paths - 1) */
  double rate_gbps;                      /* the NICs' links */
  double path_rate_gbps;                 /* each path's link; 0: rate_gbps */
  spray_policy spray;
  double loss;        /* probability, both directions */
  uint32_t burst_len; /* losses in bursts of this many packets on one path */
  drop_rule *drops;   /* exact losses (--drop); net_new copies them */
  size_t ndrops;
  uint32_t reorder_max; /* the reordering emulator's bound D (net.h), 0: off */
  double reorder_share; /* the share of frames it displaces (net.h); 1: every frame */
  sport_mode sport;
  uint16_t sport_fixed; /* SPORT_FIXED: the port, 1-65535 */
  path_spec *path_list; /* --path: `paths` entries, every value resolved; NULL: the
                           uniform set above (sim_fabric_path gives either) */
  path_event *events;   /* --path-event, at most PATH_EVENTS_MAX; net_new copies them */
  size_t nevents;
} sim_fabric;

/* How a commodity go-back-N RNIC differs from the ideal endpoint of the roce
 * profile, one behaviour each (pcapgen/README.md, "Profile roce: --rnic",
 * cites the values of the commodity, ernic and cx5 presets). All zero: the
 * ideal endpoint. */
typedef struct {
  double nak_delay_us;      /* responder: an out-of-sequence packet to its NAK leaving */
  double retx_delay_us;     /* requester: a NAK arriving to the first packet resent */
  uint32_t ack_req;         /* 0: the responder ACKs per ack_every; N: the requester sets
                               the A bit on every N-th packet and on each message's last,
                               and the responder ACKs only those (and duplicates) */
  bool ignore_nak_in_retry; /* a NAK while a NAK-started resend is under way and no ACK has
                               advanced since is not acted on (beyond its implicit ACK) */
  double rto_us;            /* 0: the adaptive RTO (rtt.h); else the first timeout,
                               doubled per timeout in a row */
  uint32_t timeout_exp;     /* with rto_us: the doubled timeout stops at 4.096 us x 2^N
                               (IBA local ACK timeout); 0: no cap */
} rnic_model;

/* Operations of the rc profile's workload. */
typedef enum {
  RC_OP_SEND = 0,
  RC_OP_WRITE = 1,
  RC_OP_READ = 2,
  RC_OP_WRITE_IMM = 3,
  RC_OP_SEND_IMM = 4
} rc_op;
#define RC_MAX_OPS 8

/* The rc profile: two hosts, both requesters on each QP pair. */
typedef struct {
  uint8_t ops[RC_MAX_OPS]; /* rc_op values, taken in turn by the WQEs */
  unsigned nops;
  bool a2b;             /* only host A posts WQEs */
  uint32_t outstanding; /* WQEs a requester QP keeps posted */
  uint32_t ack_every;   /* responder: one ACK per N request packets */
  bool spray;           /* spray over the paths instead of one path per QP pair */
  bool dc; /* --rc-dc: on the wire as ConnectX DC, the RD opcode block (PROTOCOL.md 2.8) */
  bool cm; /* --rc-cm: each QP pair's RDMA-CM setup (REQ, REP, RTU on QP 1) before its data */
} rc_config;

/* Protocol parameters; each profile reads those its capabilities name
 * (profiles/profile.h). */
typedef struct {
  uint32_t otd;                /* OOO Tolerance Distance, packets (PROTOCOL.md 4.1) */
  uint32_t window;             /* packets in flight past the cumulative PSN */
  uint32_t ack_every;          /* responder ACKs every N packets; 0: once per WQE */
  uint32_t ack_engine_ns;      /* ornic: the ACK register scheduler's service time
                                  (PROTOCOL.md 4.3); 0: ack_every instead */
  bool resp_timeout_nak;       /* ornic: the responder's reason-2 timer (PROTOCOL.md 4.4) */
  bool last_timeout_nak;       /* ornic, ours (false: the paper's rule, as the next four;
                                  PROTOCOL.md 1.1): the reason-3 timer after the Last */
  bool nak_pacing;             /* no reason 1 or 3 NAK while the last NAK's resends travel */
  bool nak_loss_limit;         /* reason 1's lost set ends OTD before its trigger (false: at it) */
  bool nak_all_blocks;         /* a NAK's bitmap from ePSN to its trigger (false: one block) */
  bool rto_probe;              /* WRITE RTO: one probe (false: resend every unacked packet) */
  uint64_t bitmap_pool;        /* ornic: bitmap blocks shared by the QPs; 0: enough for all */
  uint32_t retry_limit;        /* requester timeouts in a row before the QP fails */
  uint32_t irn_nack_threshold; /* irn: NACKs that start loss recovery, and how far below
                                  the highest selectively acknowledged PSN a packet must
                                  be to count as lost (1: IRN as published) */
  rnic_model rnic;             /* roce */
  rc_config rc;                /* rc */
} sim_protocol;

/* Where the capture is taken: the NIC port of one end. */
typedef enum { TAP_AUTO = 0, TAP_REQUESTER = 1, TAP_RESPONDER = 2, TAP_NONE = 3 } tap_point;

/* The tap and its artefacts (tapfilter.h): the simulation is the same
 * whatever they say, only the frames written change. */
typedef struct {
  tap_point tap;         /* TAP_AUTO: the end that receives the data; with two
                            hosts, host A. TAP_NONE (incast: the sims whose
                            ports are not tapped): nothing is written */
  double start_us;       /* frames before this time are not written */
  double drop;           /* probability that the tap misses a frame */
  uint64_t *drop_frames; /* frames the tap misses, numbered in the full capture, sorted */
  size_t ndrop_frames;
  double tx_late_us; /* --capture-tx-late: the tapped host's transmitted frames are written
                        up to this late, in their order (a host capture's late TX timestamps) */
  int rocev1;        /* --capture-rocev1: 0 none, else TAP_REQUESTER / TAP_RESPONDER: that host's
                        frames are written as RoCEv1 with IPv4-mapped GIDs (its peer stays RoCEv2) */
} sim_capture;

/* N:1 incast behind a switch (pcapgen/fabric/README.md): N ordinary two-NIC
 * sims in lockstep, sender k = NODE_REQ of sim k, one receiver host
 * (NODE_RESP of every sim) behind the switch's egress queue. senders 0: the
 * two-NIC run as before, and nothing below is read. */
typedef struct {
  uint32_t senders;       /* N, 0: no switch */
  uint32_t index;         /* k: which sender this sim is (fabric/ sets it per sim) */
  uint64_t buffer_bytes;  /* the egress queue's shared buffer: tail drop above it */
  bool ecn;               /* RED-style marking (Kmin, Kmax, Pmax) of ECT frames */
  uint64_t kmin, kmax;    /* bytes queued */
  double pmax;            /* marking probability at Kmax */
  bool dcqcn;             /* NP at the receiver (CNPs), RP at the senders (pacing) */
  bool pfc;               /* 802.1Qbb pause of priority 3 per ingress port */
  uint64_t xoff, xon;     /* bytes queued from one ingress port */
  double switch_delay_us; /* the last hop: switch to receiver (and back) */
  bool tap_sender;        /* the tap at sender 1's port (else the receiver's) */
} sim_incast;

typedef struct {
  uint64_t seed;          /* every random choice of the run derives from it */
  const profile *profile; /* whose engines run (never NULL) */
  sim_workload workload;
  sim_fabric fabric;
  sim_protocol protocol;
  sim_capture capture;
  uint64_t bench_packets; /* stop once the tap wrote this many frames; 0: run to the end */
  uint64_t max_memory;    /* bytes the run may use (memory_budget.h); 0: no limit */
  sim_incast incast;      /* senders 0 (the default): the two-NIC run */
} sim_config;

/* The defaults of ornic-pcapgen with no option: profile ornic, 16 WQEs of 1
 * MiB on one QP, 4 paths of 2-22 us at 100 Gb/s, 0.05% loss, OTD 64, window
 * 4080, an ACK every 16 packets, IRN's NACK threshold 1, the ideal RNIC, the
 * tap at the data receiver, --max-memory's default. The command line's "auto"
 * values are not applied (it computes them: cli/options.c); the rest is
 * ready to run. */
void sim_config_defaults(sim_config *c);

/* Path i (< paths) as the simulator runs it: the --path list's entry, or the
 * uniform set's (delay base + spread * i / (paths - 1), rate path_rate_gbps or
 * else rate_gbps, loss). */
path_spec sim_fabric_path(const sim_fabric *f, unsigned i);
/* Whether the paths differ from the uniform set or change in time (a --path
 * list or a --path-event): the summary then reports each path. */
bool sim_fabric_custom(const sim_fabric *f);

#endif
