/* SPDX-License-Identifier: MIT */
/* N:1 incast (issue 31): N ordinary two-NIC sims run in lockstep, one per
 * sender, sharing simulated time, the capture writer and a switch
 * (switch.h). Sim k's NODE_REQ is sender k; every sim's NODE_RESP is the one
 * receiver host. A world loop pops the globally earliest event (sim_next_time,
 * sim_step; the switch's own events first at equal times, then the sims in
 * order), so frames are written in time order. pcapgen/fabric/README.md says
 * what is modelled and where each rule comes from. */
#ifndef PCAPGEN_INCAST_H
#define PCAPGEN_INCAST_H

#include <signal.h>
#include <stdint.h>

#include "sim.h"
#include "stats.h"
#include "writer.h"

/* Queue bytes and what each sender did, sampled every interval_ps; the
 * interval doubles (every other sample kept) when the run outgrows the room. */
typedef struct {
  uint64_t interval_ps;
  size_t n, cap;
  uint32_t senders;
  uint64_t *queue;    /* [n]: bytes queued at the switch at sample i */
  uint64_t *accepted; /* [n x senders]: data packets accepted so far (stats.accepted) */
  double *rate;       /* [n x senders]: the sender's DCQCN rate Rc (Gb/s; its link without) */
} incast_timeline;

/* What an incast run measured beyond each sender's stats. */
typedef struct incast_result {
  uint32_t senders;
  stats *st; /* [senders] */
  uint64_t peak_queue, marks, drops, xoff_sent, xon_sent;
  uint64_t active_start_ps, active_end_ps; /* every sender had work: the first posts to the
                                              first sender done */
  double mean_queue_last_half;             /* bytes, the samples of the active span's last half */
  double *goodput_gbps;                    /* [senders]: over each sender's own run */
  double *goodput_last_half_gbps;          /* [senders]: over the active span's last half */
  double jain_last_half;                   /* Jain's fairness index of those */
  incast_timeline tl;
} incast_result;

/* Runs cfg (cfg->incast.senders > 0) into w: sender k's sim gets a copy of
 * cfg with its index, seed, QP numbers and addresses its own. *total gets
 * every sender's counters summed (its wqes_total too) and total->incast the
 * result (incast_result_free). 0 done, 1 stopped (*stop), -1 failed with the
 * message in msg. */
int incast_run(const sim_config *cfg, stats *total, writer *w, volatile sig_atomic_t *stop,
               char *msg, size_t msglen);
void incast_result_free(incast_result *r);

/* Sender k's seed: the run's for k = 0, then splitmix64-spread (ours). */
uint64_t incast_seed(uint64_t seed, uint32_t k);

#endif
