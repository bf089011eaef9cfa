#include "workload.h"

#include "rng.h"

int wl_qp_index(const options *o, uint32_t destqp, bool at_responder) {
  uint32_t base = at_responder ? WL_RESP_QPN_BASE : WL_REQ_QPN_BASE;
  if (destqp < base || destqp - base >= o->qps) return -1;
  return (int)(destqp - base);
}

uint32_t wl_npkts(uint64_t len, uint32_t pmtu) {
  return len == 0 ? 1 : (uint32_t)((len + pmtu - 1) / pmtu);
}

uint32_t wl_last_len(uint64_t len, uint32_t pmtu) {
  return (uint32_t)(len - (uint64_t)(wl_npkts(len, pmtu) - 1) * pmtu);
}

static uint64_t stride(const options *o) { return (o->wqe_size + 4095) & ~4095ull; }

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
  return (uint32_t)(mix64(o->seed ^ (0xa0761d6478bd642full * (q + 1))) & 0xffffffu);
}
