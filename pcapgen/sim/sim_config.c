/* SPDX-License-Identifier: MIT */
#include "sim_config.h"

#include <string.h>

#include "memory_budget.h"
#include "profile.h"
#include "workload.h"

void sim_config_defaults(sim_config *c) {
  memset(c, 0, sizeof *c);
  c->seed = 1;
  c->profile = profile_default();
  c->max_memory = budget_default();

  sim_workload *w = &c->workload;
  w->op = OP_WRITE;
  w->qps = 1;
  w->qpn_base[NODE_REQ] = WL_REQ_QPN_BASE;
  w->qpn_base[NODE_RESP] = WL_RESP_QPN_BASE;
  w->pmtu = 4096;
  w->start_psn = -1;
  w->wqes = 16;
  w->wqe_size = 1u << 20;

  sim_fabric *f = &c->fabric;
  f->paths = 4;
  f->base_delay_us = 2;
  f->delay_spread_us = 20;
  f->rate_gbps = 100;
  f->spray = SPRAY_RANDOM;
  f->loss = 0.0005;
  f->burst_len = 1;
  f->sport = SPORT_PATH;
  f->reorder_share = 1;

  sim_protocol *p = &c->protocol;
  p->otd = 64;
  p->window = 4080;
  p->ack_every = 16;
  p->resp_timeout_nak = true;
  p->last_timeout_nak = true;
  p->nak_pacing = true;
  p->nak_loss_limit = true;
  p->nak_all_blocks = true;
  p->rto_probe = true;
  p->retry_limit = 7;
  p->irn_nack_threshold = 1;
  p->rc.ops[0] = RC_OP_SEND;
  p->rc.ops[1] = RC_OP_WRITE;
  p->rc.ops[2] = RC_OP_READ;
  p->rc.nops = 3;
  p->rc.outstanding = 16;
  p->rc.ack_every = 4;

  c->capture.tap = TAP_AUTO;
}

path_spec sim_fabric_path(const sim_fabric *f, unsigned i) {
  if (f->path_list) return f->path_list[i];
  /* As net.c always computed it: the same expression gives the same bits. */
  double frac = f->paths > 1 ? (double)i / (f->paths - 1) : 0;
  return (path_spec){f->base_delay_us + f->delay_spread_us * frac,
                     f->path_rate_gbps ? f->path_rate_gbps : f->rate_gbps, f->loss};
}

bool sim_fabric_custom(const sim_fabric *f) { return f->path_list || f->nevents; }
