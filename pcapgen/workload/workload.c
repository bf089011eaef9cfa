/* SPDX-License-Identifier: MIT */
#include "workload.h"

#include "ornic/psn.h"
#include "profile.h"
#include "rng.h"

int wl_qp_index(const sim_config *cfg, uint32_t destqp, bool at_responder) {
  uint32_t base = wl_qpn(cfg, at_responder, 0);
  if (destqp < base || destqp - base >= cfg->workload.qps) return -1;
  return (int)(destqp - base);
}

uint32_t wl_npkts(uint64_t len, uint32_t pmtu) {
  return len == 0 ? 1 : (uint32_t)((len + pmtu - 1) / pmtu);
}

uint32_t wl_last_len(uint64_t len, uint32_t pmtu) {
  return (uint32_t)(len - (uint64_t)(wl_npkts(len, pmtu) - 1) * pmtu);
}

static bool group_has(const wqe_group *g, uint32_t q) { return q >= g->qp_lo && q <= g->qp_hi; }

uint64_t wl_wqe_count(const sim_config *cfg, uint32_t q) {
  const sim_workload *work = &cfg->workload;
  if (!work->nplan) return work->wqes;
  uint64_t n = 0;
  for (size_t i = 0; i < work->nplan; i++)
    n += group_has(&work->plan[i], q) ? work->plan[i].count : 0;
  return n;
}

/* Scenarios have a handful of lines: a walk per posted WQE costs nothing. */
uint64_t wl_wqe_len(const sim_config *cfg, uint32_t q, uint64_t w) {
  const sim_workload *work = &cfg->workload;
  for (size_t i = 0; i < work->nplan; i++) {
    if (!group_has(&work->plan[i], q)) continue;
    if (w < work->plan[i].count) return work->plan[i].size;
    w -= work->plan[i].count;
  }
  return work->wqe_size;
}

uint64_t wl_max_wqe_len(const sim_config *cfg) {
  const sim_workload *work = &cfg->workload;
  uint64_t m = work->nplan ? 0 : work->wqe_size;
  for (size_t i = 0; i < work->nplan; i++) m = work->plan[i].size > m ? work->plan[i].size : m;
  return m;
}

uint64_t wl_total_wqes(const sim_config *cfg) {
  const sim_workload *work = &cfg->workload;
  if (!work->nplan) return (uint64_t)work->qps * work->wqes;
  uint64_t n = 0;
  for (size_t i = 0; i < work->nplan; i++)
    n += work->plan[i].count * (work->plan[i].qp_hi - work->plan[i].qp_lo + 1);
  return n;
}

uint64_t wl_total_packets(const sim_config *cfg) {
  const sim_workload *work = &cfg->workload;
  if (!work->nplan) return (uint64_t)work->qps * work->wqes * wl_npkts(work->wqe_size, work->pmtu);
  uint64_t n = 0;
  for (size_t i = 0; i < work->nplan; i++)
    n += work->plan[i].count * (work->plan[i].qp_hi - work->plan[i].qp_lo + 1) *
         wl_npkts(work->plan[i].size, work->pmtu);
  return n;
}

/* In double: the options allow products past 2^64 bytes (--wqes up to 2^40
 * of up to 1 GiB), which only need to compare with a gigabyte. */
static double total_payload(const sim_config *cfg) {
  const sim_workload *work = &cfg->workload;
  if (!work->nplan) return (double)work->qps * (double)work->wqes * (double)work->wqe_size;
  double n = 0;
  for (size_t i = 0; i < work->nplan; i++)
    n += (double)work->plan[i].count * (double)(work->plan[i].qp_hi - work->plan[i].qp_lo + 1) *
         (double)work->plan[i].size;
  return n;
}

double wl_capture_floor(const sim_config *cfg) {
  /* 16-byte pcap record header; Ethernet 14, IPv4 20, UDP 8, BTH 12, iCRC 4;
   * an ACK adds its 4-byte AETH. */
  const double rec = 16, hdrs = 14 + 20 + 8 + 12 + 4, ack = rec + hdrs + 4;
  double one = total_payload(cfg) + (double)wl_total_packets(cfg) * (rec + hdrs) +
               (double)wl_total_wqes(cfg) * ack;
  return cfg->profile->caps & PROFILE_TWO_HOSTS ? 2 * one : one;
}

double wl_capture_payload(const sim_config *cfg) {
  return cfg->profile->caps & PROFILE_TWO_HOSTS ? 2 * total_payload(cfg) : total_payload(cfg);
}

/* Room for the largest WQE: consecutive WQEs never overlap. */
static uint64_t stride(const sim_config *cfg) { return (wl_max_wqe_len(cfg) + 4095) & ~4095ull; }

uint64_t wl_va(const sim_config *cfg, uint32_t q, uint64_t w) {
  uint64_t span = 1ull << WL_VA_SPAN_BITS;
  uint64_t st = stride(cfg) ? stride(cfg) : 4096;
  uint64_t slots = span / st;
  return WL_VA_BASE + ((uint64_t)q << WL_VA_SPAN_BITS) + (w % slots) * st;
}

bool wl_va_ok(uint32_t q, uint64_t va, uint64_t len) {
  uint64_t lo = WL_VA_BASE + ((uint64_t)q << WL_VA_SPAN_BITS);
  uint64_t hi = lo + (1ull << WL_VA_SPAN_BITS);
  return va >= lo && va <= hi && len <= hi - va;
}

uint64_t wl_key(const sim_config *cfg, uint32_t q) {
  return mix64(cfg->seed * 0x100000001b3ull + q + 1);
}

uint32_t wl_start_psn(const sim_config *cfg, uint32_t q) {
  if (cfg->workload.start_psn >= 0) return (uint32_t)cfg->workload.start_psn;
  return (uint32_t)(mix64(cfg->seed ^ (0xa0761d6478bd642full * (q + 1))) & ORNIC_PSN_MASK);
}
