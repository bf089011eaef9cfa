/* SPDX-License-Identifier: MIT */
/* Passive conversation analysis: what an observer of a capture can infer
 * about RC, UC, XRC and ORNIC queue-pair traffic. Feed decoded frames in
 * capture order; get one verdict per packet and per-conversation state.
 * The rules are docs/PROTOCOL.md section 8 ("What a passive observer can
 * infer"); this header is their one implementation, shared by ornic-decode
 * and the Wireshark plugin.
 *
 * Conversations. A conversation is an RC QP pair: host A's QP and host B's
 * QP. It carries two PSN spaces, one per requester direction: requests
 * A->B with their responses B->A (direction ORNIC_AN_DIR_AB), and requests
 * B->A with their responses A->B (ORNIC_AN_DIR_BA). A packet's opcode says
 * whether it is a request or a response (ornic_opcode_info flags), and its
 * addresses and BTH DestQP which QP it goes to. The QP a packet comes from
 * is not on the wire; the engine pairs the two QPs of a conversation when a
 * response fits the PSNs of requests it has seen (section 8.1).
 *
 * Memory. The engine allocates when a conversation is created or its PSN
 * window grows, never otherwise per packet. A direction's window starts at
 * 256 PSNs and grows with what the direction shows it needs (about two
 * slots per packet seen, and the PSNs its READs reserve), up to cfg.window;
 * in memory it takes a slot only for the PSNs its packets reached (a
 * direction that does not reorder: one per PSN it carried, up to the window).
 * Everything the engine allocates counts against cfg.max_memory (a window
 * at its size in PSNs, as if every slot were in memory): once it is
 * reached, windows stop growing and new conversations are not tracked. At
 * most cfg.max_convs conversations are tracked. Packets of conversations
 * not tracked get ORNIC_AN_UNTRACKED (and ORNIC_AN_OVER_BUDGET when memory,
 * not the table, was the reason); ornic_analysis_limits counts them.
 *
 * Work. Each packet is analysed in a bounded number of steps: a direction
 * earns a fixed amount of work per packet and may borrow up to 4 windows'
 * worth; a direction whose packets keep costing more than they earn (a
 * hostile capture: huge READs, NAKs and ACKs far from the traffic) is
 * limited to the smallest window (ORNIC_AN_WORK_LIMIT) until it has earned
 * its allowance back. docs/RELIABILITY.md "Hostile captures".
 *
 * Thread safety: none; one engine per capture, packets in capture order.
 *
 * Names: functions that take the engine (ornic_analysis *) are
 * ornic_analysis_*; its types, constants and the functions that need no
 * engine are ornic_an_* / ORNIC_AN_* (docs/ABI.md "Names"). */
#ifndef ORNIC_ANALYSIS_H
#define ORNIC_ANALYSIS_H

#include <stdbool.h>

#include <stddef.h>
#include <stdint.h>

#include "ornic/export.h"
#include "ornic/frame.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ornic_analysis ornic_analysis;

/* Called when a later packet resolves an earlier one: the cumulative ACK
 * `ack_frame` covers the packet `data_frame`. For callers that keep
 * per-packet records (Wireshark's "acknowledged in frame"). May be NULL. */
typedef void (*ornic_an_acked_cb)(void *user, uint64_t data_frame, uint64_t ack_frame);

/* The defaults of ornic_analysis_cfg, taken by the fields left 0. The memory
 * budget is docs/RELIABILITY.md "Hostile captures"'s. */
#define ORNIC_AN_DEFAULT_OTD 64u
#define ORNIC_AN_DEFAULT_WINDOW 16384u
#define ORNIC_AN_DEFAULT_MAX_CONVS 65536u
#define ORNIC_AN_MAX_MEMORY (128ull << 20)

typedef struct {
  uint32_t otd;       /* the QPs' OOO Tolerance Distance (PROTOCOL.md 4.4), for the OTD rule
                         and the reordering allowed a sprayed RC sender (8.4); 0: ORNIC_AN_DEFAULT_OTD.
                         An ORNIC NAK's lost set comes from its Limit PSN, not from this */
  uint32_t pmtu;      /* path MTU in bytes; 0: learn it per conversation from full packets */
  uint32_t window;    /* PSNs remembered per direction, a power of two (256 .. 1<<22);
                         0: ORNIC_AN_DEFAULT_WINDOW */
  uint32_t max_convs; /* conversations tracked; 0: ORNIC_AN_DEFAULT_MAX_CONVS */
  ornic_an_acked_cb on_acked;
  void *user;
  uint64_t max_memory;  /* bytes the engine may allocate (since 1.2.0); 0: ORNIC_AN_MAX_MEMORY,
                           UINT64_MAX: no limit */
  uint64_t reserved[3]; /* docs/ABI.md; ornic_analysis_cfg_init zeroes it */
} ornic_analysis_cfg;

/* Fills cfg with the defaults above. */
ORNIC_API void ornic_analysis_cfg_init(ornic_analysis_cfg *cfg);

/* NULL when out of memory (or cfg invalid: window not a power of two from
 * 256 to 1<<22). cfg NULL: the defaults (since 1.2.0 documented; it always
 * was); fields left 0 take theirs. An ornic_analysis is not thread-safe: one thread at
 * a time (every function here takes it); separate objects are independent. */
ORNIC_API ornic_analysis *ornic_analysis_new(const ornic_analysis_cfg *cfg);
/* a may be NULL. */
ORNIC_API void ornic_analysis_free(ornic_analysis *a);
/* Forget every conversation (a new capture); keeps the configuration. */
ORNIC_API void ornic_analysis_reset(ornic_analysis *a);

/* One packet, as the caller decoded it. */
typedef struct {
  uint64_t frame; /* capture frame number, 1-based, increasing */
  int64_t sec;    /* capture time */
  uint32_t nsec;
  const ornic_frame *f; /* decoded; its BTH must have been read. Only the extension
                             * headers in f->ext.present are used (a frame
                             * cut by the snaplen is analysed as far as it goes) */
  /* Addresses of the IP header (or GRH). NULL: taken from f->ip when f->l3
   * is set, else the packet is keyed by DestQP alone. */
  const uint8_t *src, *dst; /* 4 (IPv4) or 16 bytes */
  uint8_t addr_len;         /* 4 or 16 when src/dst are given */
  uint64_t reserved[2];     /* docs/ABI.md; start from = {0} or designated initialisers */
} ornic_an_input;

/* Direction of a packet's PSN space in its conversation. */
enum { ORNIC_AN_DIR_AB = 0, ORNIC_AN_DIR_BA = 1 };

/* What a packet is to its conversation. */
typedef enum {
  ORNIC_AN_ROLE_NONE = 0, /* not analysed (UD, RD block, vendor, unknown opcode) */
  ORNIC_AN_ROLE_REQUEST,  /* a requester's packet: SEND, WRITE, READ request, atomic */
  ORNIC_AN_ROLE_RESPONSE, /* ACK, NAK, READ response, atomic ACK */
  ORNIC_AN_ROLE_CNP       /* congestion notification to the requester's QP */
} ornic_an_role;

/* Verdict flags. The first group are problems (ornic.analysis.flags): */
enum {
  ORNIC_AN_RETRANS =
      1u << 0,             /* a repeat the sender was asked for (NAK, READ retry) or timed out on */
  ORNIC_AN_DUP = 1u << 1,  /* a repeat nobody asked for */
  ORNIC_AN_LOSS = 1u << 2, /* this packet proves loss_count PSNs lost: a NAK, a READ retry, or
                                    * a retransmission whose original the capture never saw */
  ORNIC_AN_NAK = 1u << 3,  /* a NAK: sequence error, RNR or fatal */
  ORNIC_AN_NOT_CAPTURED = 1u << 4, /* this ACK covers not_captured PSNs the capture never saw:
                                    * delivered, but missing from the file (a capture artefact) */
  ORNIC_AN_PREV_NOT_CAPTURED =
      1u << 6, /* (since 1.2.0) a request past PSNs of its direction the capture never saw, in
                * a direction that is not reordered (RC/UC on one path, 8.5): hole_first and
                * hole_count. Loss before the capture point or a capture drop; a later first
                * arrival of one of them is OOO, as TCP's "previous segment not captured" */
  ORNIC_AN_PROBLEMS = 0x5fu,
  ORNIC_AN_CM = 1u << 7, /* (since 1.2.0) an RDMA-CM REQ or REP the engine read (8.10): a REP
                          * that set up conversation `conv`, its QPs and start PSNs */
  /* Information: */
  ORNIC_AN_ACK_STALE = 1u << 5,     /* an ACK whose PSN is before the cumulative PSN already acked
                                    * (ACKs cross a sprayed fabric too: reordered, ignored, 4.2) */
  ORNIC_AN_OOO = 1u << 8,           /* a first arrival below the highest PSN: ooo_distance */
  ORNIC_AN_PROBE = 1u << 9,         /* ORNIC request with A = 1 sent again on a timeout (4.2) */
  ORNIC_AN_OTD_EXCEEDED = 1u << 10, /* this arrival is more than OTD past ePSN: the responder should
                                    * now declare loss (4.4 reason 1); hole_first/hole_count */
  ORNIC_AN_ADDR = 1u << 11, /* addr is the packet's placement (WRITE) / source (READ) address */
  ORNIC_AN_ADDR_UNKNOWN = 1u << 12, /* the address exists but its WQE started before the capture */
  ORNIC_AN_PMTU_UNKNOWN = 1u << 13, /* the address needs the PMTU, not known yet */
  ORNIC_AN_WQE = 1u << 14,          /* wqe fields valid */
  ORNIC_AN_NEW_WQE = 1u << 15,      /* this packet revealed a new WQE / message */
  ORNIC_AN_ACK = 1u << 16,          /* a cumulative acknowledgement: ack_* fields valid */
  ORNIC_AN_MSN = 1u << 17,          /* msn_delta valid */
  ORNIC_AN_WQE_DONE = 1u << 18,     /* the responder completed WQE wqe_completed */
  ORNIC_AN_SEQ = 1u << 19,          /* hpsn / epsn valid */
  ORNIC_AN_ECN = 1u << 20,          /* IP ECN CE, or BTH FECN/BECN set */
  ORNIC_AN_READ_RETRY = 1u << 21,   /* a READ request inside an earlier READ's range (4.5) */
  ORNIC_AN_BEFORE_CAPTURE = 1u << 22, /* about PSNs sent before the capture started: not judged */
  ORNIC_AN_UNTRACKED = 1u << 23,      /* conversation not tracked (table full, or OVER_BUDGET) */
  ORNIC_AN_PAIRED = 1u << 24,         /* this packet paired the conversation's two QPs */
  /* Timing (since 1.1.0; docs/PROTOCOL.md 8.8), from the capture's timestamps: */
  ORNIC_AN_SINCE_PREV = 1u << 25, /* since_prev_ns: time since the conversation's previous packet */
  ORNIC_AN_ACK_RTT = 1u << 26,    /* ack_rtt_ns: ACK, from the packet ack_frame_of to this ACK */
  ORNIC_AN_MSG_TIME = 1u << 27,   /* msg_time_ns: WQE_DONE, from the completed WQE's first packet
                                   * to this ACK; READ response Last/Only, from its READ request */
  /* Limits (since 1.2.0; docs/RELIABILITY.md "Hostile captures"): */
  ORNIC_AN_OVER_BUDGET = 1u << 28, /* with UNTRACKED: the memory budget (cfg.max_memory) is
                                    * reached, so this new conversation is not tracked */
  ORNIC_AN_WORK_LIMIT = 1u << 29,  /* this packet's direction has cost more work than its packets
                                    * earn: its window shrank to the smallest; PSNs further back
                                    * are no longer judged until it has earned its allowance back */
  /* Capture quality (since 1.2.0; docs/PROTOCOL.md 8.5): */
  ORNIC_AN_ACKED_BEFORE_SEEN = 1u << 30 /* a request the capture stored after the ACK that covers
                                         * it (a host's late transmit timestamps): information,
                                         * counted in ornic_an_conv.acked_before_seen */
};

typedef struct {
  uint32_t flags;
  uint32_t conv; /* conversation id, 1-based; 0 when not analysed */
  uint8_t dir;   /* ORNIC_AN_DIR_*: the PSN space the packet belongs to */
  uint8_t role;  /* ornic_an_role */
  uint32_t pmtu; /* known PMTU of the conversation, 0 unknown */
  /* sequence (requests and READ responses) */
  uint32_t hpsn, epsn;   /* highest PSN seen before this packet; first PSN not yet seen */
  uint32_t ooo_distance; /* OOO / DUP / RETRANS: PSNs below the highest */
  uint64_t first_frame;  /* DUP / RETRANS: the frame of the first copy (0 unknown) */
  uint64_t asked_frame;  /* RETRANS: the NAK or READ retry that asked for it (0: timeout) */
  uint32_t hole_first, hole_count; /* OTD_EXCEEDED: the missing PSNs from ePSN (of the first 256);
                                    * PREV_NOT_CAPTURED: those skipped before this request */
  /* WQE / message */
  uint64_t addr; /* ADDR */
  uint32_t wqe;  /* WQE number in the direction, 1-based */
  uint32_t wqe_start_psn, wqe_last_psn, wqe_npkts, wqe_pkt; /* npkts 0: unknown */
  uint64_t wqe_start_addr;
  uint32_t wqe_len;
  uint64_t wqe_frame;  /* frame that revealed the WQE (RETH) */
  uint64_t read_frame; /* READ response / retry: the READ request's frame */
  /* acknowledgement */
  uint32_t ack_prev;     /* ACK: the cumulative PSN before this one */
  uint32_t ack_newly;    /* ACK: PSNs newly acknowledged */
  uint64_t ack_frame_of; /* ACK: frame of the newest packet it newly covers (0 none seen) */
  uint32_t not_captured_first, not_captured; /* NOT_CAPTURED */
  uint32_t loss_first_psn, loss_count;       /* LOSS */
  uint32_t msn_delta;                        /* MSN */
  uint32_t wqe_completed;                    /* WQE_DONE */
  uint32_t nak_lost;                         /* ORNIC NAK: size of the lost set (4.4) */
  /* Timing, in ns, each valid with its flag (1.1.0: taken from the reserved tail). */
  uint64_t since_prev_ns; /* SINCE_PREV */
  uint64_t ack_rtt_ns;    /* ACK_RTT */
  uint64_t msg_time_ns;   /* MSG_TIME */
  uint64_t reserved[1];   /* docs/ABI.md; ornic_analysis_add zeroes it */
} ornic_an_verdict;

/* OOO distance histogram buckets: 1, 2-3, 4-7, ..., 64-127, 128+. */
#define ORNIC_AN_OOO_BUCKETS 8
ORNIC_API unsigned ornic_an_ooo_bucket(uint32_t distance);
/* "1", "2-3", ..., "128+". */
ORNIC_API const char *ornic_an_ooo_bucket_name(unsigned bucket);

/* Counters of one requester direction of a conversation. */
typedef struct {
  uint64_t req_packets, req_bytes;   /* requests of this direction (bytes: payload) */
  uint64_t resp_packets, resp_bytes; /* responses to them */
  uint64_t wqes, wqes_done;          /* messages seen / completions (MSN, WQE_DONE) */
  uint64_t ooo, ooo_hist[ORNIC_AN_OOO_BUCKETS];
  uint32_t ooo_max;
  uint64_t retrans, dups, loss, not_captured, naks, acks, acks_stale, ecn, cnp;
  bool have_time;
  int64_t first_sec, last_sec;
  uint32_t first_nsec, last_nsec;
  bool have_psn;
  uint32_t psn_first, psn_high; /* first request PSN seen, highest request PSN */
} ornic_an_dir_stats;

typedef struct {
  uint32_t id;
  uint32_t merged_into; /* 0, or the id of the conversation this one became part of */
  uint8_t addr_len;     /* 4, 16, or 0 when keyed by QP only */
  uint8_t a[16], b[16]; /* host A (the first packet's source) and host B */
  bool qp_a_known, qp_b_known;
  uint32_t qp_a, qp_b;
  bool transport_ornic; /* any ORNIC opcode seen */
  ornic_an_dir_stats dir[2];
  /* Since 1.2.0 (ornic_an_conv grows at its end, docs/ABI.md): capture
   * quality and how the pair was carried (docs/PROTOCOL.md 8.1, 8.5). */
  uint64_t acked_before_seen[2]; /* per direction: requests written to the capture after the ACK
                                  * that covers them (a host's late transmit timestamps, 8.5) */
  uint8_t roce_versions;         /* ORNIC_AN_ROCE_V1 | ORNIC_AN_ROCE_V2: the encapsulations seen;
                                  * both: one QP pair that mixes RoCEv1 and RoCEv2 (8.1) */
  /* RDMA-CM (8.10): the REP that set this pair up, 0 when none was captured; then A is the
   * active side (the REQ's sender), the QPs and each direction's first PSN are the CM's,
   * and cm_pmtu its path MTU (0: not given). */
  uint64_t cm_frame;
  uint32_t cm_start_psn[2];
  uint32_t cm_pmtu;
  uint8_t cm_read_depth[2]; /* RDMA READs direction d's requester may keep outstanding: the
                             * lesser of its initiator depth and the peer's responder
                             * resources (0: not given) */
} ornic_an_conv;

/* ornic_an_conv.roce_versions (since 1.2.0). */
enum { ORNIC_AN_ROCE_V1 = 1u << 0, ORNIC_AN_ROCE_V2 = 1u << 1 };

/* Analyses one packet. out is always fully written. Returns ORNIC_OK, or
 * ORNIC_ERR_INVALID_ARG (NULL pointers, or no BTH: ORNIC_LAYER_BTH not in
 * in->f->layers) with out zeroed and nothing analysed. */
ORNIC_API int ornic_analysis_add(ornic_analysis *a, const ornic_an_input *in,
                                 ornic_an_verdict *out);

/* What the limits did to a capture (since 1.2.0). */
typedef struct {
  uint64_t memory_used, memory_peak; /* bytes the engine holds now / at most so far */
  uint64_t memory_budget;            /* cfg.max_memory as applied */
  uint64_t untracked_table;          /* packets not tracked: cfg.max_convs reached */
  uint64_t untracked_memory;         /* packets not tracked: the memory budget reached */
  uint64_t windows_held;             /* times a window could not grow: the budget reached */
  uint64_t work_limited;             /* times a direction was limited for its work */
  uint64_t work_steps; /* window slots the range walks visited: at most 12 * cfg.window per
                        * direction plus 2112 per packet (analysis.h "Work"; fuzz_capture checks) */
  uint64_t reserved[3];
} ornic_an_limits;

/* Fills out (a must be non-NULL). */
ORNIC_API void ornic_analysis_limits(const ornic_analysis *a, ornic_an_limits *out);

/* Conversations: ids 1 .. count. A conversation that was merged into
 * another (its two QPs were found to be one pair) has merged_into set;
 * ornic_analysis_conv_final follows that to the conversation that holds
 * the counters. NULL for an id out of range. The pointer is valid until the
 * next ornic_analysis_add, _reset or _free (the table may move). */
ORNIC_API uint32_t ornic_analysis_conv_count(const ornic_analysis *a);
ORNIC_API const ornic_an_conv *ornic_analysis_conv(const ornic_analysis *a, uint32_t id);
ORNIC_API const ornic_an_conv *ornic_analysis_conv_final(const ornic_analysis *a, uint32_t id);

/* ---- The report of one direction (since 1.2.0; docs/PROTOCOL.md 8.9) ------
 * What an RDMA engineer reads off a capture beside the verdicts: throughput,
 * message mix and sizes, latency distributions, congestion signals and the
 * capture's own quality, per requester direction. */

/* A latency distribution. Percentiles come from a log-linear histogram of 16
 * buckets per power of two: each is within 1/16 (6.25%) of the true value,
 * clamped to [min, max]; min, avg and max are exact. */
typedef struct {
  uint64_t count;
  uint64_t min_ns, avg_ns, max_ns;
  uint64_t p50_ns, p90_ns, p99_ns, p999_ns;
  bool percentiles; /* false: the memory budget held no histogram for it (count, min, avg
                     * and max are still exact); or count is 0 */
} ornic_an_latency;

/* Message kinds (ornic_an_dir_report.msgs). */
enum {
  ORNIC_AN_MSG_SEND = 0,
  ORNIC_AN_MSG_WRITE,
  ORNIC_AN_MSG_READ,
  ORNIC_AN_MSG_ATOMIC,
  ORNIC_AN_MSG_KINDS
};

/* Message-size buckets: 0, 1, 2-3, 4-7, ..., [2^31, 2^32). */
#define ORNIC_AN_SIZE_BUCKETS 33
ORNIC_API unsigned ornic_an_size_bucket(uint64_t len);
/* "0", "1", "2-3", ..., "512-1023", "1K-2K", ..., "2G-4G" (K = 1024; the upper bound excluded). */
ORNIC_API const char *ornic_an_size_bucket_name(unsigned bucket);

typedef struct {
  ornic_an_dir_stats base; /* the direction's counters, as ornic_an_conv.dir */
  bool available;          /* false: the memory budget kept no report for this direction: only
                            * base is filled */
  /* Throughput, over the direction's first to last packet (0 under two packets' time). */
  double duration_s;
  double req_gbps;                           /* request payload bits per second */
  double msgs_per_s;                         /* messages (WQEs) revealed per second */
  double done_per_s;                         /* completions (MSN) per second */
  uint64_t msgs[ORNIC_AN_MSG_KINDS];         /* messages revealed, by kind */
  uint64_t size_hist[ORNIC_AN_SIZE_BUCKETS]; /* messages of known size, by size */
  uint64_t size_unknown;                     /* messages whose size the capture does not give */
  /* Latencies (8.8): ack_rtt (request to its ACK), msg_time (a WQE's first packet to the ACK
   * that completes it), read_time (READ request to its last response), cnp_reaction (the
   * first CE-marked request since the last CNP, to the next CNP back to this requester). */
  ornic_an_latency ack_rtt, msg_time, read_time, cnp_reaction;
  /* Congestion: on this direction's requests (CE, ECT, DSCP) and its responses (BECN). */
  uint64_t ce;         /* IP ECN CE on requests */
  uint64_t fecn, becn; /* BTH FECN on requests, BECN on responses */
  uint64_t cnps;       /* CNPs to this direction's requester (base.cnp) */
  uint64_t dscp_seen;  /* bit i: DSCP i on a request (RoCEv2 only) */
  uint8_t ecn_seen;    /* bit i: ECN codepoint i on a request: 0 Not-ECT, 1 ECT(1), 2 ECT(0),
                          * 3 CE */
  bool mixed_marking;  /* more than one DSCP, or both ECN-capable and Not-ECT requests */
  /* Responses */
  uint64_t dup_acks; /* ACKs that acknowledge nothing new and complete nothing (not stale) */
  uint64_t seq_naks, rnr_naks, fatal_naks;
  uint64_t credit0_acks; /* ACKs with AETH credit count 0 (the responder has no receive WQE) */
  /* Capture quality (8.5) */
  uint64_t psn_span;          /* PSNs from the first request seen to the highest (and the highest
                          * acknowledged), the PSNs a READ reserved included */
  uint64_t psn_missing;       /* of those, never seen as a request nor reserved by a READ */
  uint64_t gaps, gap_psns;    /* PREV_NOT_CAPTURED verdicts and the PSNs they skipped */
  uint64_t acked_before_seen; /* ornic_an_conv.acked_before_seen of this direction */
  uint64_t cut;               /* packets of the direction cut by the snaplen */
  uint32_t flight_max;        /* the most request PSNs seen and not yet acknowledged */
  /* RDMA READs (RC): the most outstanding when one more was sent, the negotiated depth
   * (ornic_an_conv.cm_read_depth, 0 unknown) and the READ requests that went past it (8.10) */
  uint32_t reads_max;
  uint32_t read_depth;
  uint64_t reads_over_depth;
  uint64_t reserved[8];
} ornic_an_dir_report;

/* Fills the first out_size bytes of *out (pass sizeof *out: a caller built
 * against an older, shorter struct gets its part) with the report of
 * direction dir (ORNIC_AN_DIR_*) of conversation conv (followed through merges as
 * ornic_analysis_conv_final). ORNIC_OK, or ORNIC_ERR_INVALID_ARG (no such
 * conversation, dir > 1, NULL pointers). */
ORNIC_API int ornic_analysis_dir_report(const ornic_analysis *a, uint32_t conv, unsigned dir,
                                        ornic_an_dir_report *out, size_t out_size);

/* The request PSNs of direction dir of conversation conv sent and not yet
 * acknowledged, as the capture shows them now: the highest request PSN minus
 * the cumulative ACK (0 before both are seen). Called right after
 * ornic_analysis_add, the packet's "in flight" (since 1.2.0). */
ORNIC_API uint32_t ornic_analysis_in_flight(const ornic_analysis *a, uint32_t conv, unsigned dir);

/* "10.0.0.1 QP 0x000011 <-> 10.0.0.2 QP 0x000022" (QP "?" while unknown). */
ORNIC_API void ornic_an_conv_label(const ornic_an_conv *c, char *out, size_t cap);
/* "A->B" / "B->A" with the addresses: "10.0.0.1 -> 10.0.0.2". */
ORNIC_API void ornic_an_dir_label(const ornic_an_conv *c, unsigned dir, char *out, size_t cap);

/* Stable names of the verdict flags, for JSON keys and text tags:
 * "retransmission", "duplicate", "loss", "nak", "ack_stale", "not_captured",
 * "ooo", "probe", "otd_exceeded", ... NULL for a bit with no name. */
ORNIC_API const char *ornic_an_flag_name(uint32_t flag_bit);

#ifdef __cplusplus
}
#endif
#endif
