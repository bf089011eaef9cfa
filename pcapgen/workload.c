/* SPDX-License-Identifier: MIT */
#include "workload.h"

#include "ornic/psn.h"
#include "profile.h"
#include "rng.h"

int wl_qp_index(const options *o, uint32_t destqp, bool at_responder) {
  uint32_t base = wl_qpn(o, at_responder, 0);
  if (destqp < base || destqp - base >= o->qps) return -1;
  return (int)(destqp - base);
}

uint32_t wl_npkts(uint64_t len, uint32_t pmtu) {
  return len == 0 ? 1 : (uint32_t)((len + pmtu - 1) / pmtu);
}

uint32_t wl_last_len(uint64_t len, uint32_t pmtu) {
  return (uint32_t)(len - (uint64_t)(wl_npkts(len, pmtu) - 1) * pmtu);
}

static bool group_has(const wqe_group *g, uint32_t q) { return q >= g->qp_lo && q <= g->qp_hi; }

uint64_t wl_wqe_count(const options *o, uint32_t q) {
  if (!o->nplan) return o->wqes;
  uint64_t n = 0;
  for (size_t i = 0; i < o->nplan; i++) n += group_has(&o->plan[i], q) ? o->plan[i].count : 0;
  return n;
}

/* Scenarios have a handful of lines: a walk per posted WQE costs nothing. */
uint64_t wl_wqe_len(const options *o, uint32_t q, uint64_t w) {
  for (size_t i = 0; i < o->nplan; i++) {
    if (!group_has(&o->plan[i], q)) continue;
    if (w < o->plan[i].count) return o->plan[i].size;
    w -= o->plan[i].count;
  }
  return o->wqe_size;
}

uint64_t wl_max_wqe_len(const options *o) {
  uint64_t m = o->nplan ? 0 : o->wqe_size;
  for (size_t i = 0; i < o->nplan; i++) m = o->plan[i].size > m ? o->plan[i].size : m;
  return m;
}

uint64_t wl_total_wqes(const options *o) {
  if (!o->nplan) return (uint64_t)o->qps * o->wqes;
  uint64_t n = 0;
  for (size_t i = 0; i < o->nplan; i++)
    n += o->plan[i].count * (o->plan[i].qp_hi - o->plan[i].qp_lo + 1);
  return n;
}

uint64_t wl_total_packets(const options *o) {
  if (!o->nplan) return (uint64_t)o->qps * o->wqes * wl_npkts(o->wqe_size, o->pmtu);
  uint64_t n = 0;
  for (size_t i = 0; i < o->nplan; i++)
    n += o->plan[i].count * (o->plan[i].qp_hi - o->plan[i].qp_lo + 1) *
         wl_npkts(o->plan[i].size, o->pmtu);
  return n;
}

/* In double: the options allow products past 2^64 bytes (--wqes up to 2^40
 * of up to 1 GiB), which only need to compare with a gigabyte. */
static double total_payload(const options *o) {
  if (!o->nplan) return (double)o->qps * (double)o->wqes * (double)o->wqe_size;
  double n = 0;
  for (size_t i = 0; i < o->nplan; i++)
    n += (double)o->plan[i].count * (double)(o->plan[i].qp_hi - o->plan[i].qp_lo + 1) *
         (double)o->plan[i].size;
  return n;
}

double wl_capture_floor(const options *o) {
  /* 16-byte pcap record header; Ethernet 14, IPv4 20, UDP 8, BTH 12, iCRC 4;
   * an ACK adds its 4-byte AETH. */
  const double rec = 16, hdrs = 14 + 20 + 8 + 12 + 4, ack = rec + hdrs + 4;
  double one = total_payload(o) + (double)wl_total_packets(o) * (rec + hdrs) +
               (double)wl_total_wqes(o) * ack;
  return o->profile->caps & PROFILE_TWO_HOSTS ? 2 * one : one;
}

double wl_capture_payload(const options *o) {
  return o->profile->caps & PROFILE_TWO_HOSTS ? 2 * total_payload(o) : total_payload(o);
}

bool wl_capture_whole(const options *o) {
  return !o->snaplen && o->capture_drop == 0 && o->capture_start_us == 0 &&
         !o->ncapture_drop_frames;
}

/* Room for the largest WQE: consecutive WQEs never overlap. */
static uint64_t stride(const options *o) { return (wl_max_wqe_len(o) + 4095) & ~4095ull; }

uint64_t wl_va(const options *o, uint32_t q, uint64_t w) {
  uint64_t span = 1ull << WL_VA_SPAN_BITS;
  uint64_t st = stride(o) ? stride(o) : 4096;
  uint64_t slots = span / st;
  return WL_VA_BASE + ((uint64_t)q << WL_VA_SPAN_BITS) + (w % slots) * st;
}

bool wl_va_ok(uint32_t q, uint64_t va, uint64_t len) {
  uint64_t lo = WL_VA_BASE + ((uint64_t)q << WL_VA_SPAN_BITS);
  uint64_t hi = lo + (1ull << WL_VA_SPAN_BITS);
  return va >= lo && va <= hi && len <= hi - va;
}

uint64_t wl_key(const options *o, uint32_t q) { return mix64(o->seed * 0x100000001b3ull + q + 1); }

uint32_t wl_start_psn(const options *o, uint32_t q) {
  if (o->start_psn >= 0) return (uint32_t)o->start_psn;
  return (uint32_t)(mix64(o->seed ^ (0xa0761d6478bd642full * (q + 1))) & ORNIC_PSN_MASK);
}
