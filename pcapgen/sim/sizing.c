/* SPDX-License-Identifier: MIT */
#include "sizing.h"

#include <math.h>

#include "net.h"
#include "ornic/sizing.h"

/* ceil(x), forgiving the last bits of floating error (x within 1e-9 of an
 * integer is that integer), saturated; 0 for x <= 0. */
static uint32_t ceil0(double x) {
  double c = ceil(x - 1e-9);
  return c < 0 ? 0 : c > 4294967295.0 ? UINT32_MAX : (uint32_t)c;
}

static uint32_t ceil_count(double x) {
  uint32_t c = ceil0(x);
  return c ? c : 1;
}

/* us x Gb/s = 1e3 bits; / 8 per byte. */
static double packets(double us, double rate_gbps, uint32_t len_bytes) {
  return us * rate_gbps * 1e3 / 8.0 / (double)len_bytes;
}

/* Eq. 3 is the library's (ornic/sizing.h: one rule for pcapgen and
 * ornic-bitmap-sim); an OTD is at least 1 here. */
uint32_t sizing_otd_eq3(double mdd_us, double rate_gbps, uint32_t len_bytes) {
  uint32_t otd = ornic_sizing_otd(mdd_us, rate_gbps, len_bytes);
  return otd ? otd : 1;
}

uint32_t sizing_bdp(double rtt_us, double rate_gbps, uint32_t len_bytes) {
  return ceil_count(packets(rtt_us, rate_gbps, len_bytes));
}

uint32_t sizing_window(uint32_t otd, uint32_t bdp) {
  uint64_t w = (uint64_t)otd + bdp;
  return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

/* As net_nic_ser_ps: 8000 / G picoseconds per byte, rounded to the picosecond. */
static uint64_t ser_ps(const sim_config *cfg, uint32_t frame_len) {
  return (uint64_t)((frame_len + NET_WIRE_EXTRA) * (8000.0 / cfg->fabric.rate_gbps) + 0.5);
}

uint64_t sizing_frame_ps(const sim_config *cfg) {
  return ser_ps(cfg, 14 + 20 + 8 + 12 + 20 + cfg->workload.pmtu + 4);
}

/* An ACK frame: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + AETH 4 + OACKETH 4
 * + iCRC 4 (PROTOCOL.md 3.4), plus the wire's extras (net.h). */
static uint64_t ack_frame_ps(const sim_config *cfg) {
  return ser_ps(cfg, 14 + 20 + 8 + 12 + 8 + 4);
}

/* The shortest and longest one-way delays of a --path list. */
static void list_delays(const sim_fabric *f, double *lo, double *hi) {
  *lo = *hi = f->path_list[0].delay_us;
  for (uint32_t i = 1; i < f->paths; i++) {
    double d = f->path_list[i].delay_us;
    *lo = d < *lo ? d : *lo;
    *hi = d > *hi ? d : *hi;
  }
}

double sizing_mdd_us(const sim_config *cfg) {
  double lo, hi;
  if (!cfg->fabric.path_list) return cfg->fabric.paths > 1 ? cfg->fabric.delay_spread_us : 0;
  list_delays(&cfg->fabric, &lo, &hi);
  return hi - lo;
}

/* The slowest path's one-way delay. The uniform set's is written as it always
 * was, so that its rounding below does not move. */
static double slowest_us_of(const sim_fabric *f) {
  double lo, hi;
  if (!f->path_list) return f->base_delay_us + (f->paths > 1 ? f->delay_spread_us : 0);
  list_delays(f, &lo, &hi);
  return hi;
}

uint64_t sizing_rtt_ps(const sim_config *cfg) {
  /* The slowest path's one-way delay, rounded as net.c rounds it. */
  double slowest_us = slowest_us_of(&cfg->fabric);
  uint64_t one_way = (uint64_t)(slowest_us * 1e6 + 0.5);
  uint64_t frame = sizing_frame_ps(cfg), ack = ack_frame_ps(cfg);
  /* The emulator holds a frame up to reorder_max full frame times, each way. */
  uint64_t hold = (uint64_t)cfg->fabric.reorder_max * frame;
  return 2 * one_way + 2 * frame + 2 * ack + 2 * hold;
}

uint32_t sizing_otd(const sim_config *cfg) {
  uint64_t otd = ornic_sizing_otd(sizing_mdd_us(cfg), cfg->fabric.rate_gbps, cfg->workload.pmtu);
  if (cfg->fabric.reorder_max > 1) otd += cfg->fabric.reorder_max - 1;
  return otd < 1 ? 1 : otd > UINT32_MAX ? UINT32_MAX : (uint32_t)otd;
}

uint32_t sizing_bdp_of(const sim_config *cfg) {
  return sizing_bdp((double)sizing_rtt_ps(cfg) / 1e6, cfg->fabric.rate_gbps, cfg->workload.pmtu);
}

uint32_t sizing_ack_engine_ns(const sim_config *cfg) {
  return ceil_count((double)ack_frame_ps(cfg) / 1e3);
}

uint32_t sizing_ack_slack(const sim_config *cfg) {
  if (cfg->protocol.ack_engine_ns) /* packets that arrive while the engine is busy */
    return ceil_count((double)cfg->protocol.ack_engine_ns * 1e3 / (double)sizing_frame_ps(cfg));
  return cfg->protocol.ack_every > 1 ? cfg->protocol.ack_every - 1 : 0;
}
