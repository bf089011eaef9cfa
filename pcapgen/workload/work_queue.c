/* SPDX-License-Identifier: MIT */
#include "work_queue.h"

#include "records.h"
#include "workload.h"

void wqe_queue_init(wqe_queue *sq, const sim_config *cfg, uint32_t q) {
  sq->q = q;
  sq->posted = 0;
  sq->psn = wl_start_psn(cfg, q);
}

bool wqe_post(wqe_queue *sq, sim *s, const sim_config *cfg, wqe *w) {
  if (sq->posted >= wl_wqe_count(cfg, sq->q)) return false;
  w->id = sq->posted++;
  w->va = wl_va(cfg, sq->q, w->id);
  w->len = wl_wqe_len(cfg, sq->q, w->id);
  w->n = wl_npkts(w->len, cfg->workload.pmtu);
  w->last_len = wl_last_len(w->len, cfg->workload.pmtu);
  w->start = sq->psn;
  sq->psn = ornic_psn_add(sq->psn, (int32_t)w->n);
  w->post_ps = sim_now(s);
  w->q = sq->q;
  stats_wqe_posted(sim_stats(s), w->post_ps);
  return true;
}

void wqe_complete(sim *s, const wqe *w) {
  stats_wqe_done(sim_stats(s), w->post_ps, sim_now(s), w->len);
  records_wqe_done(sim_stats(s)->records, w->q, w->id, w->start, w->n, w->len, w->post_ps,
                   sim_now(s));
}
