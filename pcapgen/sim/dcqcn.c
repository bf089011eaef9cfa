/* SPDX-License-Identifier: MIT */
/* DCQCN's reaction and notification points (dcqcn.h). The algorithm is the
 * paper's (Zhu et al., SIGCOMM 2015, section 3.1 and its reaction-point
 * pseudocode), on QCN's (IEEE 802.1Qau) increase phases:
 *   CNP:        Rt = Rc; Rc = Rc (1 - alpha/2); alpha = (1 - g) alpha + g;
 *               the alpha timer, the rate timer and the byte counter restart.
 *   each K without a CNP:   alpha = (1 - g) alpha.
 *   each T without a CNP, each B bytes sent: an increase event, counted
 *   apart (t_count, bc_count, both reset by a CNP), then
 *     fast recovery   while max(t_count, bc_count) <= F:  Rc = (Rt + Rc) / 2
 *     hyper increase  when min(t_count, bc_count) > F:    Rt += i R_HAI,
 *                     i = min(t_count, bc_count) - F;      Rc = (Rt + Rc) / 2
 *     additive        otherwise (one of them > F):        Rt += R_AI;
 *                                                         Rc = (Rt + Rc) / 2
 * so F events of either kind alone are fast recovery, the (F+1)th additive.
 * Ours, where the paper is silent: Rt and Rc are clamped to the line rate
 * (a NIC cannot send faster); Rc after a cut is floored at min_gbps (NVIDIA's
 * rpg_min_rate); the timers run only after the first CNP (a NIC allocates a
 * flow's rate limiter on its first CNP); a timer expiry at the same instant
 * as a CNP or a send is taken as earlier.
 * NVIDIA's values, named where they differ from the paper's, are the
 * ConnectX firmware's NV_ROCE_CC_ECN defaults as `mlxconfig -d DEV query`
 * lists them (docs.nvidia.com, "Supported Non-Volatile Configurations"). */
#include "dcqcn.h"

#include <math.h>
#include <string.h>

#define PS_PER_US 1000000ull

void dcqcn_params_default(dcqcn_params *p, double line_gbps) {
  memset(p, 0, sizeof *p);
  p->line_gbps = line_gbps;
  /* g = 1/256: the paper (section 3.1 and its parameter table, section 5);
   * NVIDIA's gain is dce_tcp_g, 1019 in the firmware's fixed point. */
  p->g = 1.0 / 256.0;
  /* K = 55 us: the paper's alpha timer (section 3.1: K larger than the NP's
   * N, so that alpha decays only when no CNP is on its way); NVIDIA's alpha
   * update period, dce_tcp_rtt, is 1 (us). */
  p->alpha_timer_ps = 55 * PS_PER_US;
  /* T = 55 us: the paper's rate-increase timer (its parameter table,
   * section 5); NVIDIA's rpg_time_reset defaults to 300 us. */
  p->rate_timer_ps = 55 * PS_PER_US;
  /* B = 10 MB: the paper's byte counter (its parameter table, section 5);
   * NVIDIA's rpg_byte_reset defaults to 32767 bytes. */
  p->byte_counter = 10000000;
  /* F = 5: the paper's fast-recovery steps, QCN's value (802.1Qau); NVIDIA's
   * rpg_threshold defaults to 1. */
  p->f = 5;
  /* R_AI = 40 Mb/s: the paper's additive step at 40 Gb/s; R_HAI = 200 Mb/s:
   * the authors' released ns-3 simulator configuration (RATE_AI 40Mb/s,
   * RATE_HAI 200Mb/s). NVIDIA's rpg_ai_rate and rpg_hai_rate default to 5
   * and 50 Mb/s. Fixed whatever the line rate, as they are given in Mb/s. */
  p->rai_gbps = 0.040;
  p->rhai_gbps = 0.200;
  /* The floor: the paper names none; NVIDIA's rpg_min_rate, 1 Mb/s. */
  p->min_gbps = 0.001;
  /* N = 50 us: the paper's NP interval (section 3.1); NVIDIA's
   * min_time_between_cnps is a few microseconds (2 to 4 in published
   * mlxconfig listings). */
  p->cnp_interval_ps = 50 * PS_PER_US;
}

void dcqcn_rp_init(dcqcn_rp *rp, const dcqcn_params *p, uint64_t now_ps) {
  memset(rp, 0, sizeof *rp);
  rp->p = *p;
  rp->rc = rp->rt = p->line_gbps;
  rp->alpha = 1.0; /* the paper's initial alpha; NVIDIA's initial_alpha_value 1023/1024 */
  rp->now_ps = now_ps;
}

static double clamp_line(const dcqcn_rp *rp, double r) {
  return r > rp->p.line_gbps ? rp->p.line_gbps : r;
}

/* One increase event (either kind; its counter already incremented). */
static void increase(dcqcn_rp *rp) {
  uint64_t hi = rp->t_count > rp->bc_count ? rp->t_count : rp->bc_count;
  uint64_t lo = rp->t_count < rp->bc_count ? rp->t_count : rp->bc_count;
  if (lo > rp->p.f)
    rp->rt = clamp_line(rp, rp->rt + (double)(lo - rp->p.f) * rp->p.rhai_gbps);
  else if (hi > rp->p.f)
    rp->rt = clamp_line(rp, rp->rt + rp->p.rai_gbps);
  rp->rc = clamp_line(rp, (rp->rt + rp->rc) / 2.0);
}

/* Whether every further increase event leaves Rc and Rt as they are: both at
 * the line rate. Then a long idle time costs no loop. */
static bool saturated(const dcqcn_rp *rp) {
  return rp->rt >= rp->p.line_gbps && rp->rc >= rp->p.line_gbps;
}

/* The expiries of a timer of period `period` due at *next, up to now: how
 * many, and *next moved past now. */
static uint64_t expiries(uint64_t *next, uint64_t period, uint64_t now) {
  if (!period || *next > now) return 0;
  uint64_t n = (now - *next) / period + 1;
  *next += n * period;
  return n;
}

/* Applies every timer expiry up to now. The alpha timer and the rate timer
 * touch disjoint state (alpha; Rc, Rt and t_count), so each is applied in
 * its own time order without interleaving them. */
static void advance(dcqcn_rp *rp, uint64_t now) {
  if (now < rp->now_ps) now = rp->now_ps;
  rp->now_ps = now;
  if (!rp->active) return;
  uint64_t na = expiries(&rp->alpha_next_ps, rp->p.alpha_timer_ps, now);
  if (na) rp->alpha *= pow(1.0 - rp->p.g, (double)na);
  uint64_t nt = expiries(&rp->rate_next_ps, rp->p.rate_timer_ps, now);
  for (; nt && !saturated(rp); nt--) {
    rp->t_count++;
    increase(rp);
  }
  rp->t_count += nt; /* the rest change nothing but the count */
}

void dcqcn_rp_cnp(dcqcn_rp *rp, uint64_t now_ps) {
  advance(rp, now_ps);
  now_ps = rp->now_ps;
  rp->rt = rp->rc;
  rp->rc *= 1.0 - rp->alpha / 2.0;
  if (rp->rc < rp->p.min_gbps) rp->rc = rp->p.min_gbps;
  rp->alpha = (1.0 - rp->p.g) * rp->alpha + rp->p.g;
  rp->active = true;
  rp->alpha_next_ps = now_ps + rp->p.alpha_timer_ps;
  rp->rate_next_ps = now_ps + rp->p.rate_timer_ps;
  rp->bytes = rp->t_count = rp->bc_count = 0;
  rp->cnps++;
}

void dcqcn_rp_sent(dcqcn_rp *rp, uint32_t bytes, uint64_t now_ps) {
  advance(rp, now_ps);
  if (!rp->active || !rp->p.byte_counter) return;
  rp->bytes += bytes;
  while (rp->bytes >= rp->p.byte_counter) {
    rp->bytes -= rp->p.byte_counter;
    rp->bc_count++;
    increase(rp);
  }
}

double dcqcn_rp_rate_gbps(dcqcn_rp *rp, uint64_t now_ps) {
  advance(rp, now_ps);
  return rp->rc;
}

double dcqcn_rp_target_gbps(dcqcn_rp *rp, uint64_t now_ps) {
  advance(rp, now_ps);
  return rp->rt;
}

double dcqcn_rp_alpha(dcqcn_rp *rp, uint64_t now_ps) {
  advance(rp, now_ps);
  return rp->alpha;
}

/* G Gb/s is G bits per ns: 8000 / G picoseconds per byte (as net.c's
 * serialization), rounded to the picosecond. */
uint64_t dcqcn_rp_gap_ps(dcqcn_rp *rp, uint32_t wire_bytes, uint64_t now_ps) {
  double rc = dcqcn_rp_rate_gbps(rp, now_ps);
  return (uint64_t)((double)wire_bytes * 8000.0 / rc + 0.5);
}

bool dcqcn_np_ce(dcqcn_np *np, const dcqcn_params *p, uint64_t now_ps) {
  if (np->sent_any && now_ps - np->last_cnp_ps < p->cnp_interval_ps) return false;
  np->sent_any = true;
  np->last_cnp_ps = now_ps;
  return true;
}
