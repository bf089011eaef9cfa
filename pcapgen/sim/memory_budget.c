/* SPDX-License-Identifier: MIT */
#include "memory_budget.h"

#include <string.h>
#include <unistd.h>

#include "bg_writer.h"
#include "profile.h"
#include "workload.h"

#define FALLBACK_MEMORY (4ull << 30)
#define PER_QP_BYTES 4096u /* engine structures of one QP, both ends, generously */
#define NODE_BYTES 12u     /* a bitmap block: 64-bit bits + 32-bit free-list entry */
#define SLOT_BYTES 4u      /* a QP's bitmap slot */
#define RC_WQE_BYTES 64u   /* an outstanding WQE of the rc profile */

uint64_t budget_default(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || size <= 0) return FALLBACK_MEMORY;
  return (uint64_t)pages * (uint64_t)size / 2;
}

void budget_format(uint64_t bytes, char *buf, size_t cap) {
  static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    u++;
  }
  if (u == 0)
    snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
  else
    snprintf(buf, cap, "%.1f %s", v, unit[u]);
}

/* One part of the estimate, and how to make it smaller. */
typedef struct {
  uint64_t bytes;
  char what[160];
  const char *lower;
} part;

static uint64_t mul_sat(uint64_t a, uint64_t b) {
  uint64_t m;
  return __builtin_mul_overflow(a, b, &m) ? UINT64_MAX : m;
}

static uint64_t add_sat(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

/* Requester and responder keep a few bits per packet of the WQE in flight
 * (the integrity check's among them: it keeps no copy of the data, verify.h). */
static void per_packet(const sim_config *cfg, part *p) {
  uint64_t n = wl_npkts(wl_max_wqe_len(cfg), cfg->workload.pmtu);
  p->bytes = mul_sat(cfg->workload.qps, n / 2 + 8);
  snprintf(p->what, sizeof p->what, "per-packet state of %u QPs x %llu-packet WQEs",
           cfg->workload.qps, (unsigned long long)n);
  p->lower = "lower --qps or --wqe-size, or raise --pmtu";
}

/* ornic only: the responder's shared pool (--bitmap-pool, default W/16 + 2
 * blocks per QP) and the READ requester's, which covers whole WQEs. */
static void bitmap(const sim_config *cfg, part *p) {
  uint64_t slots = cfg->protocol.window / 16 + 2;
  uint64_t nodes =
      cfg->protocol.bitmap_pool ? cfg->protocol.bitmap_pool : mul_sat(slots, cfg->workload.qps);
  p->bytes = 0;
  p->lower = "lower --bitmap-pool";
  if (!(cfg->profile->caps & PROFILE_BITMAP)) return;
  p->bytes =
      add_sat(mul_sat(nodes, NODE_BYTES), mul_sat(mul_sat(slots, cfg->workload.qps), SLOT_BYTES));
  snprintf(p->what, sizeof p->what, "the bitmap pool of %llu blocks", (unsigned long long)nodes);
  if (cfg->workload.op != OP_READ) return;
  uint64_t rslots = wl_npkts(wl_max_wqe_len(cfg), cfg->workload.pmtu) / 16 + 2;
  uint64_t r = mul_sat(mul_sat(rslots, cfg->workload.qps), NODE_BYTES + SLOT_BYTES);
  if (r > p->bytes) {
    snprintf(p->what, sizeof p->what, "the READ bitmaps of %u QPs x %llu blocks", cfg->workload.qps,
             (unsigned long long)rslots);
    p->lower = "lower --qps or --wqe-size";
  }
  p->bytes = add_sat(p->bytes, r);
}

/* The capture's buffers (the background writer's ring; gzip output uses
 * less), whatever the workload: small beside anything that grows, but what
 * the smallest --max-memory meets first. */
static void output(const sim_config *cfg, part *p) {
  (void)cfg;
  p->bytes = BGW_RING_BYTES;
  snprintf(p->what, sizeof p->what, "the capture's write buffers");
  p->lower = "they do not shrink: raise --max-memory";
}

static void fixed(const sim_config *cfg, part *p) {
  p->bytes =
      mul_sat(cfg->workload.qps, PER_QP_BYTES + 2ull * cfg->protocol.rc.outstanding * RC_WQE_BYTES);
  snprintf(p->what, sizeof p->what, "the state of %u QPs", cfg->workload.qps);
  p->lower = "lower --qps or --rc-outstanding";
}

static uint64_t estimate(const sim_config *cfg, part *largest) {
  part parts[4];
  per_packet(cfg, &parts[0]);
  bitmap(cfg, &parts[1]);
  fixed(cfg, &parts[2]);
  output(cfg, &parts[3]);
  uint64_t total = 0;
  *largest = parts[0];
  for (int i = 0; i < 4; i++) {
    total = add_sat(total, parts[i].bytes);
    if (parts[i].bytes > largest->bytes) *largest = parts[i];
  }
  return total;
}

uint64_t budget_needed(const sim_config *cfg) {
  part p;
  return estimate(cfg, &p);
}

int budget_check(const sim_config *cfg, FILE *err) {
  part p;
  uint64_t need = estimate(cfg, &p);
  if (need <= cfg->max_memory) return 0;
  char total[32], big[32], limit[32];
  budget_format(need, total, sizeof total);
  budget_format(p.bytes, big, sizeof big);
  budget_format(cfg->max_memory, limit, sizeof limit);
  fprintf(err,
          "ornic-pcapgen: needs %s of memory (%s of it for %s); %s (limit: %s, "
          "--max-memory)\n",
          total, big, p.what, p.lower, limit);
  return -1;
}

uint64_t budget_frames(const sim_config *cfg, size_t bufsize) {
  uint64_t need = budget_needed(cfg);
  uint64_t left = cfg->max_memory > need ? cfg->max_memory - need : 0;
  return left / (bufsize + 64); /* + the pkt header and malloc's own */
}
