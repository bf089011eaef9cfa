/* SPDX-License-Identifier: MIT */
/* pcapgen's small modules: event queue order and determinism, PRNG streams,
 * memory pattern and its checker, completion-time histogram, FIFO growth,
 * workload geometry, the paper's sizing equations (OTD, window), and
 * command-line validation and defaults. */
#include "../check_fast.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "event_queue.h"
#include "fifo.h"
#include "options.h"
#include "path_events.h"
#include "pattern.h"
#include "profile.h"
#include "rng.h"
#include "sim_config.h"
#include "sizing.h"
#include "stats.h"
#include "workload.h"

START_TEST(evq_orders_by_time_then_push) {
  evq q;
  ck_assert_int_eq(evq_init(&q, 2), 0); /* tiny: forces growth */
  rng g;
  rng_seed(&g, 7, 0);
  enum { N = 5000 };
  for (uint32_t i = 0; i < N; i++) ck_assert_int_eq(evq_push(&q, rng_below(&g, 50), 0, i, NULL), 0);
  ev prev = {0}, e;
  for (uint32_t k = 0; k < N; k++) {
    ck_assert(evq_pop(&q, &e));
    if (k) {
      ck_assert(e.t > prev.t || (e.t == prev.t && e.arg > prev.arg)); /* ties: push order */
    }
    prev = e;
  }
  ck_assert(!evq_pop(&q, &e));
  evq_free(&q);
}
END_TEST

START_TEST(rng_streams) {
  rng a, b, c;
  rng_seed(&a, 42, 1);
  rng_seed(&b, 42, 1);
  rng_seed(&c, 42, 2);
  int same_c = 0;
  for (int i = 0; i < 1000; i++) {
    uint64_t x = rng_next(&a);
    ck_assert_uint_eq(x, rng_next(&b));
    same_c += x == rng_next(&c);
  }
  ck_assert_int_lt(same_c, 2);
  unsigned counts[7] = {0};
  for (int i = 0; i < 70000; i++) {
    uint32_t v = rng_below(&a, 7);
    ck_assert_uint_lt(v, 7);
    counts[v]++;
  }
  for (int i = 0; i < 7; i++) ck_assert(counts[i] > 9000 && counts[i] < 11000);
  double d = rng_double(&a);
  ck_assert(d >= 0 && d < 1);
}
END_TEST

START_TEST(pattern_round_trip) {
  uint8_t buf[5000], other[5000];
  pattern_fill(buf, 99, 0x7f0000001000ull, sizeof buf);
  ck_assert_uint_eq(pattern_check(buf, 99, 0x7f0000001000ull, sizeof buf), (size_t)-1);
  /* Any sub-range starting on a chunk is the same memory. */
  pattern_fill(other, 99, 0x7f0000001000ull + 1024, 3000);
  ck_assert_int_eq(memcmp(other, buf + 1024, 3000), 0);
  /* Other key or other address: different bytes. */
  pattern_fill(other, 98, 0x7f0000001000ull, 256);
  ck_assert_int_ne(memcmp(other, buf, 256), 0);
  pattern_fill(other, 99, 0x7f0000001100ull, 256);
  ck_assert_int_ne(memcmp(other, buf, 256), 0);
  buf[4321] ^= 1;
  ck_assert_uint_eq(pattern_check(buf, 99, 0x7f0000001000ull, sizeof buf), 4321);
  buf[4321] ^= 1;
  buf[4999] ^= 0x80; /* in the partial last chunk */
  ck_assert_uint_eq(pattern_check(buf, 99, 0x7f0000001000ull, sizeof buf), 4999);
  ck_assert_uint_eq(pattern_check(buf, 99, 0, 0), (size_t)-1);
}
END_TEST

/* The baseline, AVX2 and AVX-512 code (those this CPU runs) write the same
 * bytes and find the same first wrong byte, wherever it is. */
START_TEST(pattern_every_isa) {
  static uint8_t want[3000], got[3000];
  pattern_use_isa(0);
  pattern_fill(want, 7, 0x100000ull, sizeof want);
  for (int level = 0; level <= 2; level++) {
    if (pattern_use_isa(level) != level) continue; /* not on this CPU */
    for (size_t len = 0; len <= sizeof got; len += len < 600 ? 1 : 97) {
      memset(got, 0xa5, sizeof got);
      pattern_fill(got, 7, 0x100000ull, len);
      ck_assert_int_eq(memcmp(got, want, len), 0);
      ck_assert_uint_eq(got[len < sizeof got ? len : 0], len < sizeof got ? 0xa5 : want[0]);
      ck_assert_uint_eq(pattern_check(got, 7, 0x100000ull, len), (size_t)-1);
    }
    for (size_t off = 0; off < sizeof got; off += 13) {
      memcpy(got, want, sizeof got);
      got[off] ^= (uint8_t)(1u << (off % 8));
      ck_assert_uint_eq(pattern_check(got, 7, 0x100000ull, sizeof got), off);
      ck_assert_uint_eq(pattern_check(got, 8, 0x100000ull, sizeof got), 0); /* another key */
    }
  }
  pattern_use_isa(2);
}
END_TEST

START_TEST(hist_quantiles) {
  static hist h;
  memset(&h, 0, sizeof h);
  for (uint64_t v = 1; v <= 1000; v++) hist_add(&h, v * 1000000); /* 1..1000 us in ps */
  ck_assert_uint_eq(h.n, 1000);
  ck_assert_uint_eq(h.max, 1000000000ull);
  uint64_t p99 = hist_quantile(&h, 0.99);
  ck_assert(p99 >= 990000000ull && p99 <= 990000000ull * 1.02);
  ck_assert_uint_eq(hist_quantile(&h, 1.0), h.max);
  for (uint64_t v = 0; v < 128; v++) {
    static hist e;
    memset(&e, 0, sizeof e);
    hist_add(&e, v);
    ck_assert_uint_eq(hist_quantile(&e, 0.5), v); /* exact below 128 */
  }
}
END_TEST

START_TEST(fifo_grows_in_order) {
  u32fifo f = {0};
  uint32_t v;
  for (uint32_t i = 0; i < 10; i++) ck_assert_int_eq(fifo_push(&f, i), 0);
  for (uint32_t i = 0; i < 5; i++) ck_assert(fifo_pop(&f, &v) && v == i);
  for (uint32_t i = 10; i < 100; i++) ck_assert_int_eq(fifo_push(&f, i), 0); /* wraps, grows */
  for (uint32_t i = 5; i < 100; i++) ck_assert(fifo_pop(&f, &v) && v == i);
  ck_assert(!fifo_pop(&f, &v));
  fifo_free(&f);
}
END_TEST

START_TEST(workload_geometry) {
  ck_assert_uint_eq(wl_npkts(0, 256), 1);
  ck_assert_uint_eq(wl_last_len(0, 256), 0);
  ck_assert_uint_eq(wl_npkts(1001, 256), 4);
  ck_assert_uint_eq(wl_last_len(1001, 256), 233);
  ck_assert_uint_eq(wl_npkts(1u << 20, 4096), 256);
  ck_assert_uint_eq(wl_last_len(1u << 20, 4096), 4096);
  /* A configuration without the command line: the defaults, then the workload. */
  sim_config c;
  sim_config_defaults(&c);
  c.workload.wqe_size = 1001;
  c.workload.qps = 2;
  ck_assert(c.workload.start_psn == -1 && c.workload.qpn_base[0] == WL_REQ_QPN_BASE &&
            c.workload.qpn_base[1] == WL_RESP_QPN_BASE);
  ck_assert_uint_eq(wl_va(&c, 1, 3) - wl_va(&c, 1, 2), 4096);
  ck_assert(wl_va_ok(1, wl_va(&c, 1, 3), 1001));
  ck_assert(!wl_va_ok(0, wl_va(&c, 1, 3), 1001));
  ck_assert_uint_eq(wl_qpn(&c, true, 1), wl_resp_qpn(1));
  ck_assert_int_eq(wl_qp_index(&c, wl_resp_qpn(1), true), 1);
  ck_assert_int_eq(wl_qp_index(&c, wl_resp_qpn(2), true), -1);
  /* --qpn-base 0x45,0x35: the requester's QPs below the responder's, adjacent */
  c.workload.qpn_base[0] = 0x45;
  c.workload.qpn_base[1] = 0x35;
  ck_assert_uint_eq(wl_qpn(&c, false, 1), 0x46);
  ck_assert_uint_eq(wl_qpn(&c, true, 1), 0x36);
  ck_assert_int_eq(wl_qp_index(&c, 0x36, true), 1);
  ck_assert_int_eq(wl_qp_index(&c, 0x46, false), 1);
  ck_assert_int_eq(wl_qp_index(&c, 0x45, true), -1);
  ck_assert_int_eq(wl_qp_index(&c, 0x34, true), -1);
  ck_assert_uint_eq(wl_sender_qpn(&c, false, 0x36), 0x46); /* requester QP 1 to the responder's */
  ck_assert_uint_eq(wl_sender_qpn(&c, true, 0x46), 0x36);
  ck_assert_uint_le(wl_start_psn(&c, 0), 0xffffff);
  c.workload.start_psn = 0xfffff0;
  ck_assert_uint_eq(wl_start_psn(&c, 1), 0xfffff0);
}
END_TEST

/* Parses a command line; returns options_parse's result. */
/* Eq. 3 (OTD = MDD x B / L) and Eqs. 5-6 (W = OTD + BDP) with the paper's
 * numbers: 100 Gb/s, 4 KB packets, an MDD of about 20 us give 64; with a
 * BDP of 256 packets the bitmap is 320 = 64 + 256. */
START_TEST(sizing_paper_numbers) {
  double mdd64 = 64.0 * 4096 * 8 / 100e3;   /* 20.97152 us: 64 packets' time at 100 Gb/s */
  double rtt256 = 256.0 * 4096 * 8 / 100e3; /* 83.88608 us: 256 packets' time */
  ck_assert_uint_eq(sizing_otd_eq3(mdd64, 100, 4096), 64);
  ck_assert_uint_eq(sizing_bdp(rtt256, 100, 4096), 256);
  ck_assert_uint_eq(sizing_window(sizing_otd_eq3(mdd64, 100, 4096), sizing_bdp(rtt256, 100, 4096)),
                    320);
  /* Rounded up: 20 us is 61.04 packets; 21 us 64.09. */
  ck_assert_uint_eq(sizing_otd_eq3(20, 100, 4096), 62);
  ck_assert_uint_eq(sizing_otd_eq3(21, 100, 4096), 65);
  /* PMTU 1024 at 20 us: 244.1 packets (the ~244 of issue 15). */
  ck_assert_uint_eq(sizing_otd_eq3(20, 100, 1024), 245);
  /* Linear in MDD and B, inverse in L. */
  ck_assert_uint_eq(sizing_otd_eq3(mdd64, 25, 4096), 16);
  ck_assert_uint_eq(sizing_otd_eq3(mdd64, 100, 1024), 256);
  ck_assert_uint_eq(sizing_otd_eq3(2 * mdd64, 100, 4096), 128);
  /* No delay difference: at least 1 (OTD 0 would NAK every reordering). */
  ck_assert_uint_eq(sizing_otd_eq3(0, 100, 4096), 1);
}
END_TEST

static int parse(options *o, const char *line);

/* The same equations on the command line's fabric: --otd auto (the ornic
 * default), --window auto, the emulator's share, and the warning. */
START_TEST(sizing_on_options) {
  options o;
  /* Defaults: 4 paths, 20 us spread, 100 Gb/s, PMTU 4096. RTT = 2 x 22 us + a
   * 4198-byte frame + a 90-byte ACK = 44.686 us: BDP 136.4 -> 137. */
  ck_assert_int_eq(parse(&o, "-o x"), 0);
  ck_assert_uint_eq(o.sim.protocol.otd, 62);
  ck_assert_int_eq(o.otd_source, SIZE_AUTO);
  ck_assert_uint_eq(o.otd_eq3, 62);
  ck_assert_uint_eq(o.bdp, 137);
  /* ornic's default window: Eqs. 5-6 (PROTOCOL.md 4.1) plus the one packet
   * that may arrive while the ACK scheduler is busy (8 ns: a 90-byte ACK
   * frame at 100 Gb/s is 7.2 ns; sizing.h) */
  ck_assert_uint_eq(o.sim.protocol.ack_engine_ns, 8);
  ck_assert_int_eq(o.ack_engine_source, SIZE_AUTO);
  ck_assert_uint_eq(o.sim.protocol.window, 62 + 137 + 1);
  ck_assert_uint_eq(sizing_ack_slack(&o.sim), 1);
  ck_assert_int_eq(o.window_source, SIZE_AUTO);
  ck_assert_uint_eq(sizing_rtt_ps(&o.sim), 44686080);
  options_free(&o);
  /* EVERY_N 16 leaves 15 packets unacknowledged */
  ck_assert_int_eq(parse(&o, "-o x --ack-every 16"), 0);
  ck_assert_uint_eq(o.sim.protocol.ack_engine_ns, 0);
  ck_assert_uint_eq(o.sim.protocol.window, 62 + 137 + 15);
  options_free(&o);
  /* a slow engine: 1 us at 334.4 ns per 4 KiB frame leaves 3 */
  ck_assert_int_eq(parse(&o, "-o x --ack-engine-ns 1000"), 0);
  ck_assert_uint_eq(sizing_ack_slack(&o.sim), 3);
  options_free(&o);
  /* 25 Gb/s: 28.8 ns rounded up */
  ck_assert_int_eq(parse(&o, "-o x --rate-gbps 25"), 0);
  ck_assert_uint_eq(o.sim.protocol.ack_engine_ns, 29);
  options_free(&o);
  /* two policies at once are refused; roce keeps EVERY_N */
  ck_assert_int_eq(parse(&o, "-o x --ack-engine-ns 100 --ack-every 4"), -1);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --profile roce"), 0);
  ck_assert_uint_eq(o.sim.protocol.ack_engine_ns, 0);
  ck_assert_uint_eq(o.sim.protocol.ack_every, 16);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --ack-engine-ns off"), 0);
  ck_assert_uint_eq(o.sim.protocol.ack_engine_ns, 0);
  ck_assert_uint_eq(o.sim.protocol.ack_every, 16);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --window 4080"), 0);
  ck_assert_uint_eq(o.sim.protocol.window, 4080);
  ck_assert_int_eq(o.window_source, SIZE_GIVEN);
  options_free(&o);
  /* --ack-per-wqe: at least the WQE (1 MiB / 4096 = 256 packets), or the
   * requester would wait for an ACK that comes only at the WQE's end */
  ck_assert_int_eq(parse(&o, "-o x --ack-per-wqe"), 0);
  ck_assert_uint_eq(o.sim.protocol.window, 256);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --ack-every 1"), 0);
  ck_assert_uint_eq(o.sim.protocol.window, 62 + 137);
  options_free(&o);
  /* roce keeps 4080 */
  ck_assert_int_eq(parse(&o, "-o x --profile roce"), 0);
  ck_assert_uint_eq(o.sim.protocol.window, 4080);
  ck_assert_int_eq(o.window_source, SIZE_DEFAULT);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --pmtu 1024"), 0);
  ck_assert_uint_eq(o.sim.protocol.otd, 245);
  options_free(&o);
  /* Only ornic takes auto by default; the others keep 64 (a term of their RTO). */
  ck_assert_int_eq(parse(&o, "-o x --profile roce"), 0);
  ck_assert_uint_eq(o.sim.protocol.otd, 64);
  ck_assert_int_eq(o.otd_source, SIZE_DEFAULT);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --profile roce --otd auto"), 0);
  ck_assert_uint_eq(o.sim.protocol.otd, 62);
  options_free(&o);
  /* One path: no delay difference; the emulator adds D - 1 and its hold to the RTT. */
  ck_assert_int_eq(parse(&o, "-o x --paths 1"), 0);
  ck_assert_uint_eq(o.sim.protocol.otd, 1);
  uint64_t rtt1 = sizing_rtt_ps(&o.sim);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --paths 1 --reorder-max 64"), 0);
  ck_assert_uint_eq(o.sim.protocol.otd, 63);
  ck_assert_uint_eq(sizing_rtt_ps(&o.sim), rtt1 + 2 * 64 * sizing_frame_ps(&o.sim));
  options_free(&o);
  /* A given OTD wins, with a warning when below Eq. 3 (ornic only). */
  FILE *err = tmpfile();
  char *argv[] = {"ornic-pcapgen", "-o", "x", "--otd", "10", NULL};
  ck_assert_int_eq(options_parse(&o, 5, argv, err), 0);
  ck_assert_uint_eq(o.sim.protocol.otd, 10);
  ck_assert_int_eq(o.otd_source, SIZE_GIVEN);
  options_free(&o);
  char msg[512] = "";
  rewind(err);
  size_t n = fread(msg, 1, sizeof msg - 1, err);
  msg[n] = 0;
  ck_assert_msg(strstr(msg, "warning: --otd 10 is below Eq. 3's 62") != NULL, "stderr: %s", msg);
  fclose(err);
}
END_TEST

/* --rnic: the preset fills what was not given, in any order. */
START_TEST(rnic_presets) {
  options o;
  const rnic_model *m = &o.sim.protocol.rnic;
  ck_assert_int_eq(parse(&o, "-o x --profile roce"), 0);
  ck_assert_int_eq(o.rnic.preset, RNIC_IDEAL);
  ck_assert(m->nak_delay_us == 0 && m->retx_delay_us == 0 && m->rto_us == 0);
  ck_assert(m->ack_req == 0 && !m->ignore_nak_in_retry && m->timeout_exp == 0);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --rnic-ack-req 5 --profile roce --rnic commodity"), 0);
  ck_assert_int_eq(o.rnic.preset, RNIC_COMMODITY);
  ck_assert(m->nak_delay_us == 20 && m->retx_delay_us == 0 && m->rto_us == 2000);
  ck_assert(m->ack_req == 5 && m->ignore_nak_in_retry && m->timeout_exp == 14);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --profile roce --rnic-nak-in-retry ignore --rnic-rto-us 7"), 0);
  ck_assert_int_eq(o.rnic.preset, RNIC_IDEAL);
  ck_assert(m->ignore_nak_in_retry && m->rto_us == 7 && m->nak_delay_us == 0);
  options_free(&o);
}
END_TEST

static int parse(options *o, const char *line) {
  char buf[512], *argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "ornic-pcapgen %s", line);
  for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  FILE *devnull = fopen("/dev/null", "w");
  int rc = options_parse(o, argc, argv, devnull);
  fclose(devnull);
  return rc;
}

/* sim_config_defaults is what the command line starts from: a run built
 * without it (tests, fuzz_responder) is the run of ornic-pcapgen with no
 * option, but for the values the command line computes ("auto"). */
START_TEST(config_defaults_are_the_cli_defaults) {
  options o;
  sim_config c;
  sim_config_defaults(&c);
  /* roce: OTD 64, window 4080, an ACK every 16 packets, no "auto" in force */
  ck_assert_int_eq(parse(&o, "-o x --profile roce"), 0);
  ck_assert_str_eq(c.profile->name, profile_default()->name);
  ck_assert(o.sim.seed == c.seed && o.sim.max_memory == c.max_memory && !c.bench_packets);
  const sim_workload *a = &o.sim.workload, *b = &c.workload;
  ck_assert(a->op == b->op && a->qps == b->qps && a->pmtu == b->pmtu &&
            a->start_psn == b->start_psn && a->wqes == b->wqes && a->wqe_size == b->wqe_size &&
            !b->nplan && a->qpn_base[0] == b->qpn_base[0] && a->qpn_base[1] == b->qpn_base[1]);
  const sim_fabric *f = &o.sim.fabric, *g = &c.fabric;
  ck_assert(f->paths == g->paths && f->base_delay_us == g->base_delay_us &&
            f->delay_spread_us == g->delay_spread_us && f->rate_gbps == g->rate_gbps &&
            f->path_rate_gbps == g->rate_gbps && !g->path_rate_gbps && f->spray == g->spray &&
            f->loss == g->loss && f->burst_len == g->burst_len && !g->ndrops &&
            f->reorder_max == g->reorder_max && f->reorder_share == 1 && g->reorder_share == 1 &&
            f->sport == g->sport && !f->path_list && !g->path_list && !f->nevents && !g->nevents);
  const sim_protocol *p = &o.sim.protocol, *q = &c.protocol;
  ck_assert(p->otd == q->otd && p->window == q->window && p->ack_every == q->ack_every &&
            p->ack_engine_ns == q->ack_engine_ns && p->resp_timeout_nak == q->resp_timeout_nak &&
            p->bitmap_pool == q->bitmap_pool && p->retry_limit == q->retry_limit);
  ck_assert(p->last_timeout_nak && q->last_timeout_nak && p->nak_pacing && q->nak_pacing &&
            p->nak_loss_limit && q->nak_loss_limit && p->nak_all_blocks && q->nak_all_blocks &&
            p->rto_probe && q->rto_probe);
  ck_assert(memcmp(&p->rnic, &q->rnic, sizeof p->rnic) == 0); /* the ideal RNIC: all 0 */
  ck_assert(memcmp(&p->rc, &q->rc, sizeof p->rc) == 0);
  ck_assert(o.sim.capture.tap == c.capture.tap && o.sim.capture.start_us == c.capture.start_us &&
            o.sim.capture.drop == c.capture.drop && !c.capture.ndrop_frames);
  options_free(&o);
}
END_TEST

START_TEST(options_accept_and_reject) {
  options o;
  ck_assert_int_eq(parse(&o, "-o x.pcap"), 0);
  ck_assert_uint_eq(o.sim.workload.pmtu, 4096);
  ck_assert_uint_eq(o.sim.workload.wqe_size, 1u << 20);
  ck_assert_uint_eq(o.sim.fabric.paths, 4);
  ck_assert_uint_eq(o.sim.protocol.otd, 62); /* --otd auto: Eq. 3 on the default fabric */
  ck_assert_uint_eq(o.sim.protocol.ack_every, 16);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --wqe-size 64K --drop 3:17 --drop 1:2:5 --qps 2 --ack-per-wqe"),
                   0);
  ck_assert_uint_eq(o.sim.workload.wqe_size, 65536);
  ck_assert_uint_eq(o.sim.fabric.ndrops, 2);
  ck_assert_uint_eq(o.sim.fabric.drops[0].qp, 0);
  ck_assert_uint_eq(o.sim.fabric.drops[0].wqe, 3);
  ck_assert_uint_eq(o.sim.fabric.drops[0].off, 17);
  ck_assert_uint_eq(o.sim.fabric.drops[1].qp, 1);
  ck_assert_uint_eq(o.sim.protocol.ack_every, 0);
  ck_assert_int_eq(o.sim.fabric.sport, SPORT_PATH);
  ck_assert(o.sim.workload.qpn_base[0] == WL_REQ_QPN_BASE &&
            o.sim.workload.qpn_base[1] == WL_RESP_QPN_BASE);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --udp-sport qpn --qpn-base 0x45,53 --qps 2"), 0);
  ck_assert(o.sim.fabric.sport == SPORT_QPN && o.sim.workload.qpn_base[0] == 0x45 &&
            o.sim.workload.qpn_base[1] == 53);
  options_free(&o);
  ck_assert_int_eq(parse(&o, "-o x --udp-sport 0x12b7 --qpn-base 2,0xfffffe"), 0);
  ck_assert(o.sim.fabric.sport == SPORT_FIXED && o.sim.fabric.sport_fixed == 4791);
  options_free(&o);
  static const char *const bad[] = {
      "", /* no output */
      "-o x --pmtu 1000",
      "-o x --loss 2",
      "-o x --loss nan",
      "-o x --paths 0",
      "-o x --drop 1",
      "-o x --drop 1:2:3:4",
      "-o x --drop 1::2",
      "-o x --drop 5:1:1",
      "-o x --spray fast",
      "-o x --wqe-size 2G",
      "-o x --otd 5000",
      "-o x --profile roce --op read",
      "-o x --bogus",
      "-o x extra",
      "-o x --wqes -1",
      "-o x --rate-gbps 0",
      "-o x --qps 4097",
      "-o x --otd autox",
      "-o x --window 10",
      "-o x --reorder-max 5000",
      "-o x --rnic commodity", /* ornic: no PROFILE_RNIC */
      "-o x --profile roce --rnic fast",
      "-o x --profile roce --rnic-timeout 32",
      "-o x --profile irn --rnic-rto-us 5",
      "-o x --delay-spread-us 100000", /* --otd auto: Eq. 3 above 4079 */
      "-o x --udp-sport 0",
      "-o x --udp-sport 65536",
      "-o x --udp-sport qpns",
      "-o x --qpn-base 0x100",
      "-o x --qpn-base 1,0x200",        /* QP1: the GSI QP */
      "-o x --qpn-base 0x100,0xffffff", /* multicast */
      "-o x --qpn-base 0x100,0x200,3",
      "-o x --qpn-base 0x100,",
      "-o x --qpn-base 0xfffffe,2 --qps 2",                   /* past 0xFFFFFE */
      "-o x --udp-sport qpn --qpn-base 0x100,0xffff --qps 2", /* QP 0x10000: port 0 */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_msg(parse(&o, bad[i]) == -1, "accepted: %s", bad[i]);
    options_free(&o);
  }
}
END_TEST

/* --path: values left out take the fabric-wide options wherever they stand;
 * the uniform set's path i is what net.c always computed; Eq. 3's MDD is the
 * list's longest delay minus its shortest. */
START_TEST(path_list) {
  options o;
  ck_assert_int_eq(parse(&o,
                         "-o x --path delay=2 --path delay=20,rate=25 --loss 0.01 "
                         "--path-rate-gbps 50"),
                   0);
  const sim_fabric *f = &o.sim.fabric;
  ck_assert_uint_eq(f->paths, 2);
  path_spec a = sim_fabric_path(f, 0), b = sim_fabric_path(f, 1);
  ck_assert(a.delay_us == 2 && a.rate_gbps == 50 && a.loss == 0.01);
  ck_assert(b.delay_us == 20 && b.rate_gbps == 25 && b.loss == 0.01);
  ck_assert(sizing_mdd_us(&o.sim) == 18 && sim_fabric_custom(f));
  options_free(&o);
  sim_config c;
  sim_config_defaults(&c);
  path_spec u = sim_fabric_path(&c.fabric, 1);
  ck_assert(u.delay_us == 2 + 20 * (1.0 / 3) && u.rate_gbps == 100 && u.loss == 0.0005);
  ck_assert(!sim_fabric_custom(&c.fabric));
  const char *bad[] = {"-o x --path delay=2 --paths 2",
                       "-o x --path rate=0",
                       "-o x --path loss=0.6",
                       "-o x --path delay=1,",
                       "-o x --path ,delay=1",
                       "-o x --path-event 4:fail@1",
                       "-o x --path-event 1:fail@1:recover@1",
                       "-o x --path-event 1:fail@1:",
                       "-o x --path-event :1:fail@1",
                       "-o x --path-event 1::fail@1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(parse(&o, bad[i]) == -1, "accepted: %s", bad[i]);
    options_free(&o);
  }
}
END_TEST

/* Windows are half-open; a fail window overlaps a frame's whole time on the
 * path; loss and rate read at one moment; the phases' bounds sorted, once each. */
START_TEST(path_windows) {
  path_event evs[] = {{1, PATH_EV_FAIL, 0, 10, 20},
                      {1, PATH_EV_LOSS, 0.1, 5, -1},
                      {0, PATH_EV_RATE, 25, 20, 30},
                      {1, PATH_EV_FAIL, 0, 15, 40}};
  sim_fabric f = {.paths = 2, .events = evs, .nevents = 4};
  path_timeline t;
  ck_assert_int_eq(path_timeline_init(&t, &f, 1), 0);
  ck_assert_uint_eq(t.n, 3);
  const uint64_t us = 1000000;
  ck_assert(!path_timeline_down(&t, 0, 10 * us));          /* ends as the window starts */
  ck_assert(path_timeline_down(&t, 9 * us, 10 * us + 1));  /* in flight at 10 us */
  ck_assert(path_timeline_down(&t, 39 * us, 39 * us + 1)); /* the second window */
  ck_assert(!path_timeline_down(&t, 40 * us, 50 * us));    /* recovered at 40 us */
  ck_assert(path_timeline_value(&t, PATH_EV_LOSS, 5 * us - 1, -1) == -1);
  ck_assert(path_timeline_value(&t, PATH_EV_LOSS, 5 * us, -1) == 0.1);
  ck_assert(path_timeline_value(&t, PATH_EV_LOSS, 1000 * us, -1) == 0.1); /* never recovers */
  ck_assert(path_timeline_value(&t, PATH_EV_RATE, 25 * us, 100) == 100);  /* path 0's */
  path_timeline_free(&t);
  ck_assert_int_eq(path_timeline_init(&t, &f, 0), 0);
  ck_assert(path_timeline_value(&t, PATH_EV_RATE, 25 * us, 100) == 25);
  ck_assert(path_timeline_value(&t, PATH_EV_RATE, 30 * us, 100) == 100);
  path_timeline_free(&t);
  uint64_t b[2 * PATH_EVENTS_MAX];
  ck_assert_uint_eq(path_events_bounds(&f, b), 6); /* 5 10 15 20 30 40; 20 once */
  ck_assert(b[0] == 5 * us && b[1] == 10 * us && b[2] == 15 * us && b[3] == 20 * us &&
            b[4] == 30 * us && b[5] == 40 * us);
  char why[200];
  ck_assert_int_eq(path_events_check(&f, why, sizeof why), 0);
  path_event two[] = {{1, PATH_EV_LOSS, 0.1, 5, -1}, {1, PATH_EV_LOSS, 0.2, 100, 200}};
  sim_fabric g = {.paths = 2, .events = two, .nevents = 2};
  ck_assert_int_eq(path_events_check(&g, why, sizeof why), -1);
  ck_assert_str_eq(why,
                   "'1:loss=0.2@100:recover@200' overlaps '1:loss=0.1@5': two loss values for "
                   "path 1 at once");
}
END_TEST

int main(void) {
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, evq_orders_by_time_then_push);
  tcase_add_test(tc, rng_streams);
  tcase_add_test(tc, pattern_round_trip);
  tcase_add_test(tc, pattern_every_isa);
  tcase_add_test(tc, hist_quantiles);
  tcase_add_test(tc, fifo_grows_in_order);
  tcase_add_test(tc, workload_geometry);
  tcase_add_test(tc, config_defaults_are_the_cli_defaults);
  tcase_add_test(tc, options_accept_and_reject);
  tcase_add_test(tc, sizing_paper_numbers);
  tcase_add_test(tc, sizing_on_options);
  tcase_add_test(tc, rnic_presets);
  tcase_add_test(tc, path_list);
  tcase_add_test(tc, path_windows);
  return run_tcase("pcapgen_core", tc);
}
