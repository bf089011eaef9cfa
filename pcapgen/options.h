/* SPDX-License-Identifier: MIT */
/* Everything the command line can set: workload, network, protocol, output.
 * Parsing validates ranges, so the simulator can trust these values. */
#ifndef PCAPGEN_OPTIONS_H
#define PCAPGEN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A row of the profile table (profile.h). */
typedef struct profile profile;
typedef enum { OP_WRITE = 0, OP_READ = 1 } op_kind;
/* Operations of the rc profile's workload (--rc-ops). */
typedef enum {
  RC_OP_SEND = 0,
  RC_OP_WRITE = 1,
  RC_OP_READ = 2,
  RC_OP_WRITE_IMM = 3,
  RC_OP_SEND_IMM = 4
} rc_op;
#define RC_MAX_OPS 8
typedef enum { SPRAY_RANDOM = 0, SPRAY_RR = 1, SPRAY_LEAST_LOADED = 2 } spray_policy;
typedef enum { FMT_AUTO = 0, FMT_PCAP = 1, FMT_PCAPNG = 2 } out_format;
/* --udp-sport: what the UDP source port of a frame says (sim.c). The path a
 * frame takes is pcapgen's own either way; only the port on the wire changes. */
typedef enum {
  SPORT_PATH = 0, /* 0xC000 + path, as ECMP entropy (the default) */
  SPORT_QPN = 1,  /* the low 16 bits of the sending QP's number, as some NICs do */
  SPORT_FIXED = 2 /* one port for every frame */
} sport_mode;
/* Where the capture is taken: the NIC port of one end. */
typedef enum { TAP_AUTO = 0, TAP_REQUESTER = 1, TAP_RESPONDER = 2 } tap_point;

/* How --otd and --window got their values (the summary says which). */
typedef enum {
  SIZE_DEFAULT = 0, /* the fixed default: --otd 64 (profiles without PROFILE_OTD), --window 4080 */
  SIZE_AUTO = 1,    /* --otd auto (Eq. 3) or --window auto (OTD + BDP); sizing.h */
  SIZE_GIVEN = 2    /* a number on the command line or in a scenario */
} size_source;

/* --records LIST: what the summary JSON lists one by one (records.h). */
enum { RECORDS_WQE = 1u << 0, RECORDS_NAK = 1u << 1 };

/* --rnic: how a commodity go-back-N RNIC differs from the ideal endpoint of the
 * roce profile (pcapgen/README.md, "Profile roce: --rnic", cites each default).
 * The rnic_* options set one behaviour each; --rnic picks the defaults of the
 * others. */
typedef enum { RNIC_IDEAL = 0, RNIC_COMMODITY = 1 } rnic_preset;
enum {
  RNIC_SET_NAK_DELAY = 1u << 0,
  RNIC_SET_RETX_DELAY = 1u << 1,
  RNIC_SET_ACK_REQ = 1u << 2,
  RNIC_SET_NAK_IN_RETRY = 1u << 3,
  RNIC_SET_RTO = 1u << 4,
  RNIC_SET_TIMEOUT = 1u << 5
};
typedef struct {
  rnic_preset preset;
  unsigned set;             /* RNIC_SET_*: given explicitly, the preset does not override */
  bool given;               /* any --rnic* option (refused by profiles without PROFILE_RNIC) */
  double nak_delay_us;      /* responder: an out-of-sequence packet to its NAK leaving */
  double retx_delay_us;     /* requester: a NAK arriving to the first packet resent */
  uint32_t ack_req;         /* 0: the responder ACKs per --ack-every; N: the requester sets
                              the A bit on every N-th packet and on each message's last,
                              and the responder ACKs only those (and duplicates) */
  bool ignore_nak_in_retry; /* a NAK while a NAK-started resend is under way and no ACK has
                              advanced since is not acted on (beyond its implicit ACK) */
  double rto_us;            /* 0: the adaptive RTO (rtt.h); else the first timeout,
                              doubled per timeout in a row */
  uint32_t timeout_exp;     /* with rto_us: the doubled timeout stops at 4.096 us x 2^N
                              (IBA local ACK timeout); 0: no cap */
} rnic_model;

/* Drop the first transmission of packet `off` (PSN offset) of WQE `wqe` on QP `qp`. */
typedef struct {
  uint32_t qp;
  uint64_t wqe;
  uint32_t off;
  bool used;
} drop_rule;

/* A `wqe` line of a scenario file: `count` WQEs of `size` bytes, posted in
 * file order on each QP from qp_lo to qp_hi. */
typedef struct {
  uint64_t size, count;
  uint32_t qp_lo, qp_hi;
  unsigned line; /* in the scenario file, for messages */
} wqe_group;

typedef struct {
  /* output */
  const char *output;       /* NULL only with --bench (then /dev/null) */
  const char *summary_json; /* NULL: none */
  const char *plot;         /* --plot SVG file, NULL: none */
  unsigned records;
  bool resp_timeout_nak;
  uint32_t ack_engine_ns; /* ornic: the ACK register scheduler's service time; 0: --ack-every */
  size_source ack_engine_source; /* default (EVERY_N, or auto for ornic), auto or given */
  bool ack_every_given;          /* --ack-every, --ack-per-packet or --ack-per-wqe */
  bool ack_engine_off;           /* --ack-engine-ns off */
  /* ornic: the responder's reason-2 timer (PROTOCOL.md 4.4) */ /* --records: RECORDS_* kinds in --summary-json (records.h) */
  out_format format;
  uint32_t snaplen; /* 0: whole frames */
  int gz_level;
  tap_point tap;
  bool quiet;
  uint64_t bench_packets; /* 0: not a benchmark */
  uint64_t max_memory;    /* bytes the run may use (--max-memory; budget.h) */
  uint64_t max_output;    /* bytes the capture may hold (--max-output); 0: no limit */
  bool space_check_off;   /* --space-check off: no free-space check before the run (space.h) */
  /* run */
  uint64_t seed;
  const profile *profile; /* never NULL after options_parse */
  /* workload */
  uint64_t wqes;     /* per QP, when there is no plan */
  uint64_t wqe_size; /* bytes, when there is no plan */
  wqe_group *plan;   /* the scenario's `wqe` lines (workload.h reads them) */
  size_t nplan;
  char *scenario_text;  /* the scenario file; option values point into it */
  size_t scenario_len;  /* its bytes (lines are cut with NULs as they are read) */
  const char *scenario; /* its path */
  unsigned wqes_line;   /* the scenario line that set wqes / wqe-size, 0: none */
  op_kind op;
  uint32_t qps;
  uint32_t qpn_base[2]; /* --qpn-base: QP q's number is qpn_base[node] + q, node 0 the
                           requester (rc: host A), 1 the responder (host B) */
  uint32_t pmtu;
  int64_t start_psn; /* -1: derived from the seed */
  /* network */
  uint32_t paths;
  double base_delay_us, delay_spread_us;
  double rate_gbps, path_rate_gbps;
  spray_policy spray;
  double loss;
  uint32_t burst_len;
  drop_rule *drops;
  size_t ndrops;
  uint32_t reorder_max; /* --reorder-max D: the emulator's bound (net.h), 0: off */
  sport_mode sport;     /* --udp-sport */
  uint16_t sport_fixed; /* SPORT_FIXED: the port, 1-65535 */
  /* protocol */
  uint32_t ack_every; /* 0: once per WQE */
  uint32_t otd;       /* after options_parse: the value in force */
  size_source otd_source;
  uint32_t otd_eq3; /* Eq. 3 on this configuration (sizing.h), whatever otd is */
  uint32_t window;  /* after options_parse: the value in force */
  size_source window_source;
  uint32_t bdp;         /* BDP in packets (sizing.h), whatever window is */
  rnic_model rnic;      /* roce profile (PROFILE_RNIC) */
  uint64_t bitmap_pool; /* 0: enough for every QP */
  uint32_t retry_limit;
  /* irn (PROFILE_NACK_THRESHOLD): NACKs that start loss recovery, and how far
   * below the highest selectively acknowledged PSN a packet must be to count as
   * lost. 0 until options_parse: auto, the OTD when the fabric reorders (more
   * than one path, or --reorder-max), else 1 (IRN as published). */
  uint32_t irn_nack_threshold;
  bool irn_nack_threshold_given;
  /* rc profile */
  uint8_t rc_ops[RC_MAX_OPS]; /* rc_op values, in --rc-ops order */
  unsigned rc_nops;
  bool rc_a2b;             /* only host A posts WQEs */
  uint32_t rc_outstanding; /* WQEs a requester QP keeps posted */
  uint32_t rc_ack_every;   /* responder: one ACK per N request packets */
  bool rc_spray;           /* spray over --paths instead of one path per QP pair */
  /* capture artefacts (the tap, not the network: the simulation is unchanged) */
  double capture_start_us;       /* frames before this time are not written */
  double capture_drop;           /* probability that the tap misses a frame */
  uint64_t *capture_drop_frames; /* frames the tap misses, numbered in the full capture, sorted */
  size_t ncapture_drop_frames;
} options;

/* Fills *o from argv. Returns 0 to run, 1 when --help, --version or
 * --list-profiles was printed (exit 0), 2 when that output could not be
 * written (exit 1), -1 on a bad option (its one line already on `err`, in
 * the words of libs/ornic-cli's cli.h; exit 2). */
int options_parse(options *o, int argc, char **argv, FILE *err);
/* An unsigned integer (decimal or 0x.., never octal: libs/ornic-cli, cli_num.h);
 * with `sizes`, an optional binary suffix K, M, G or T (KiB, MiB, ...).
 * 0, or -1 when s is not one or does not fit in 64 bits. */
int options_parse_number(const char *s, uint64_t *v, bool sizes);

/* Applies one option by its long name ("paths", "drop", ...) with its value
 * (NULL for flags), as a scenario line does. 0, or -1 with a message on err. */
int options_apply_named(options *o, const char *name, const char *value, FILE *err);
void options_free(options *o);

const char *spray_name(spray_policy s);
const char *size_source_name(size_source s);
const char *rnic_preset_name(rnic_preset p);

#endif
