/* SPDX-License-Identifier: MIT */
/* DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015, section 3): the reaction point (RP, the sending NIC's rate
 * limiter of one flow) and the notification point (NP, the receiving NIC's
 * CNP generator of one QP), as pure state machines on simulated time in
 * picoseconds. No events: the RP's timers are evaluated lazily, each call
 * applying, in time order, every timer expiry up to its `now`, with exactly
 * the result the event-driven algorithm gives (tests/pcapgen/test_dcqcn.c
 * checks it against an event-driven reference). The paper's names are kept:
 * Rc, Rt, alpha, g, K, T, B, F, R_AI, R_HAI, N. Each default's source:
 * dcqcn.c, dcqcn_params_default. */
#ifndef PCAPGEN_DCQCN_H
#define PCAPGEN_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  double line_gbps;           /* the NIC's link; Rc starts here, Rc and Rt never exceed it */
  double min_gbps;            /* rate floor of a cut */
  double g;                   /* alpha gain */
  double rai_gbps, rhai_gbps; /* R_AI, R_HAI: additive and hyper increase steps of Rt */
  uint64_t alpha_timer_ps;    /* K: alpha decays by (1 - g) each K without a CNP (0: never) */
  uint64_t rate_timer_ps;     /* T: an increase event each T without a CNP (0: no timer) */
  uint64_t byte_counter;      /* B: an increase event each B bytes sent without a CNP (0: none) */
  unsigned f;                 /* F: fast-recovery steps before additive increase */
  uint64_t cnp_interval_ps;   /* N: the NP sends at most one CNP per QP per this */
} dcqcn_params;

/* The defaults: the paper's values (section 3.1, its parameter table), line_gbps given;
 * dcqcn.c cites each and names NVIDIA's where it differs. */
void dcqcn_params_default(dcqcn_params *p, double line_gbps);

/* Reaction point: one per sending flow. Idle (Rc = line rate, no timers)
 * until its first CNP, as a NIC allocates a flow's rate limiter on its first
 * CNP; from then on its timers run. Fields are the module's; read them
 * through the functions below. */
typedef struct {
  dcqcn_params p;         /* a copy: the RP needs nothing else */
  double rc, rt, alpha;   /* Rc, Rt (Gb/s), alpha */
  bool active;            /* a CNP has arrived: the timers run */
  uint64_t now_ps;        /* the time up to which timers were applied */
  uint64_t alpha_next_ps; /* the alpha timer's next expiry (K after the last CNP or expiry) */
  uint64_t rate_next_ps;  /* the rate timer's next expiry (T after the last CNP or expiry) */
  uint64_t bytes;         /* bytes sent since the last CNP or byte-counter event */
  uint64_t t_count;       /* rate-timer events since the last CNP */
  uint64_t bc_count;      /* byte-counter events since the last CNP */
  uint64_t cnps;          /* CNPs received in all */
} dcqcn_rp;

void dcqcn_rp_init(dcqcn_rp *rp, const dcqcn_params *p, uint64_t now_ps);
/* A CNP arrived for this flow: timers up to now first (an expiry at exactly
 * now counts as earlier), then Rt = Rc, Rc = max(Rc (1 - alpha/2), min),
 * alpha = (1 - g) alpha + g, and the timers and byte counter restart. */
void dcqcn_rp_cnp(dcqcn_rp *rp, uint64_t now_ps);
/* The NIC sent a frame of this flow, `bytes` long, at now (timers up to now
 * first): counts towards B; each B bytes is a byte-counter increase event. */
void dcqcn_rp_sent(dcqcn_rp *rp, uint32_t bytes, uint64_t now_ps);
/* Rc at now (timers up to now applied). A `now` earlier than a previous
 * call's is taken as that call's time. */
double dcqcn_rp_rate_gbps(dcqcn_rp *rp, uint64_t now_ps);
/* Rt and alpha at now, the same way (for summaries and tests). */
double dcqcn_rp_target_gbps(dcqcn_rp *rp, uint64_t now_ps);
double dcqcn_rp_alpha(dcqcn_rp *rp, uint64_t now_ps);
/* The pacing gap after a frame of wire_bytes at the current Rc, in
 * picoseconds: the start-to-start spacing wire_bytes * 8 / Rc (at Rc = line
 * rate, the frame's own serialization time), rounded to the picosecond.
 * Whether wire_bytes includes preamble and inter-frame gap is the caller's
 * choice (as its serialization time counts them). */
uint64_t dcqcn_rp_gap_ps(dcqcn_rp *rp, uint32_t wire_bytes, uint64_t now_ps);

/* Notification point: one per QP. Zero it to initialise. */
typedef struct {
  uint64_t last_cnp_ps;
  bool sent_any;
} dcqcn_np;

/* A CE-marked packet of this QP arrived at now: true when a CNP is to be sent
 * now, that is when none was sent for this QP in the last N (the paper's NP,
 * section 3.1: a CNP at once for a marked packet, at most one per N). A CE
 * mark at exactly N after the last CNP sends one. */
bool dcqcn_np_ce(dcqcn_np *np, const dcqcn_params *p, uint64_t now_ps);

#endif
