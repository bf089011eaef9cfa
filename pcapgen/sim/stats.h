/* SPDX-License-Identifier: MIT */
/* What a run measured: the counters the simulator, the engines and the tap
 * keep as frames go by (stats), and the WQE completion times in a
 * log-linear histogram (64 sub-buckets per power of two: p99 within 1.6%),
 * so memory stays constant however many WQEs a run completes. The
 * program reports them (cli/summary.h). */
#ifndef PCAPGEN_STATS_H
#define PCAPGEN_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_config.h"

#define HIST_SUB_BITS 6
#define HIST_BUCKETS (128 + 57 * 64)

typedef struct {
  uint64_t count[HIST_BUCKETS];
  uint64_t n, max;
  long double sum;
} hist;

/* What one path carried, both directions: frames put on it, delivered, lost
 * (any cause), and of those, lost while it was down (--path-event fail). */
typedef struct {
  uint64_t frames, delivered, lost, lost_down;
} path_count;

/* The run cut at the moments its --path-events start or end: WQEs and bytes
 * completed in each phase, phase k being [bound k-1, bound k) (the first from
 * the first post, the last to the last completion): goodput before, during
 * and after a failure. */
#define STATS_PHASE_BOUNDS (2 * PATH_EVENTS_MAX)
typedef struct {
  unsigned nbounds; /* 0: no phases kept */
  uint64_t bound_ps[STATS_PHASE_BOUNDS];
  uint64_t wqes[STATS_PHASE_BOUNDS + 1], bytes[STATS_PHASE_BOUNDS + 1];
} phases;

void hist_add(hist *h, uint64_t v);
/* Smallest bucket upper bound covering fraction q of the values (capped at max). */
uint64_t hist_quantile(const hist *h, double q);

typedef struct {
  /* on the wire (both directions, lost packets included) */
  uint64_t pkts_wire, bytes_wire, payload_wire;
  uint64_t data_pkts, read_reqs, acks, naks, fatal, retx;
  /* captured at the tap */
  uint64_t pkts_captured, bytes_captured;
  /* events */
  uint64_t timeouts, drops_random, drops_rule, dup_data, pool_drops;
  uint64_t drops_down;   /* frames lost on a path that was down (--path-event fail) */
  uint64_t rx_drops;     /* data dropped unplaced by mprdma / ioi receivers */
  uint64_t naks_ignored; /* roce --rnic-nak-in-retry ignore: NAKs not acted on */
  uint64_t accepted;     /* data packets (and READ requests) accepted for the first
                               time by their receiver: the progress the watchdog sees */
  /* an incast run's sender (fabric/): one stats per sender */
  uint64_t drops_switch;    /* tail drops at the switch's egress queue */
  uint64_t ce_marked;       /* data frames the switch marked CE */
  uint64_t cnps_sent;       /* CNPs the receiver sent to this sender (DCQCN NP) */
  uint64_t cnps_received;   /* CNPs this sender's NIC received (DCQCN RP) */
  uint64_t pauses_received; /* PFC frames this sender's NIC received (XOFF and XON) */
  /* work */
  uint64_t wqes_total, wqes_done, wqes_verified, bytes_done;
  uint64_t first_post_ps, last_done_ps, end_ps;
  bool any_post;
  hist wqe_ps;
  phases phase; /* with --path-event (stats_paths_new) */
  /* ornic receive bitmap */
  unsigned max_blocks_qp;
  uint64_t pool_peak, pool_capacity;
  /* run */
  uint64_t pkts_in_flight_peak;
  unsigned unused_drop_rules;
  bool interrupted, bench_stop;
  bool stalled; /* stopped by the no-progress watchdog (sim.h) */
  double wall_s;
  /* ground truth (--summary-json only; NULL otherwise) */
  struct truth *truth;
  struct records *records; /* --records (NULL otherwise) */
  uint64_t pkts_full;      /* frames of the full capture (before --capture-start / -drop*) */
  path_count *paths;       /* per path, when the fabric is custom (sim_fabric_custom); NULL
                              otherwise: the summary then reports no path */
  /* an incast run's switch and senders (fabric/incast.h); NULL otherwise */
  struct incast_result *incast;
} stats;

/* Records a WQE posted at post_ps and completed at done_ps. */
void stats_wqe_done(stats *st, uint64_t post_ps, uint64_t done_ps, uint64_t bytes);
void stats_wqe_posted(stats *st, uint64_t post_ps);

/* Per-path counts and the phases of f's events, for a custom fabric (the
 * caller checks sim_fabric_custom). 0, or -1 when out of memory. */
int stats_paths_new(stats *st, const sim_fabric *f);
void stats_paths_free(stats *st);
/* A frame put on `path`: delivered, or lost (down: on a path that was down). */
static inline void stats_path_frame(stats *st, unsigned path, bool delivered, bool down) {
  path_count *c = &st->paths[path];
  c->frames++;
  c->delivered += delivered;
  c->lost += !delivered;
  c->lost_down += down;
}

#endif
