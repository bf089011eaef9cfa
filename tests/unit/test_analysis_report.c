/* SPDX-License-Identifier: MIT */
/* Unit tests of the direction report (ornic_analysis_dir_report,
 * docs/PROTOCOL.md 8.9) and of "previous PSN not captured" (8.5). The
 * expected figures come from the hand-built sequences themselves: latency
 * percentiles from the sorted samples (an oracle that keeps them all),
 * sizes and marks from the packets' fields. */
#include "an_feed.h"

static ornic_an_dir_report report(T *t, uint32_t conv, unsigned dir) {
  ornic_an_dir_report r;
  memset(&r, 0xa5, sizeof r);
  ck_assert_int_eq(ornic_analysis_dir_report(t->an, conv, dir, &r, sizeof r), ORNIC_OK);
  return r;
}

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* Within one bucket (1/16 of the value) of the oracle's nearest rank. */
static void near_rank(uint64_t got, const uint64_t *sorted, size_t n, double q) {
  size_t r = (size_t)(q * (double)n);
  if (r >= n) r = n - 1;
  uint64_t want = sorted[r];
  uint64_t tol = want / 16 + 1;
  ck_assert_msg(got + tol >= want && got <= want + tol, "q %.3f: %llu, oracle %llu", q,
                (unsigned long long)got, (unsigned long long)want);
}

/* 8.9: ACK round trips of 1000 requests, each ACKed alone after a delay
 * drawn from a spread of four decades. */
START_TEST(latency_percentiles_against_sorted_samples) {
  enum { N = 1000 };
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  static uint64_t rtt[N];
  uint64_t x = 12345, sum = 0;
  t->at_ns = 1000000;
  for (uint32_t p = 0; p < N; p++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    rtt[p] = 500 + (x >> 33) % 5000000; /* 0.5 us .. 5 ms */
    sum += rtt[p];
    feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
    t->at_ns += (int64_t)rtt[p];
    opt ack = ack_msn(p + 1);
    ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, p, &ack);
    ck_assert(v.flags & ORNIC_AN_ACK_RTT);
    ck_assert_uint_eq(v.ack_rtt_ns, rtt[p]);
    t->at_ns += 10;
  }
  ornic_an_dir_report r = report(t, 1, ORNIC_AN_DIR_AB);
  ck_assert(r.available);
  qsort(rtt, N, sizeof rtt[0], cmp_u64);
  ck_assert_uint_eq(r.ack_rtt.count, N);
  ck_assert_uint_eq(r.ack_rtt.min_ns, rtt[0]);
  ck_assert_uint_eq(r.ack_rtt.max_ns, rtt[N - 1]);
  ck_assert_uint_eq(r.ack_rtt.avg_ns, sum / N);
  ck_assert(r.ack_rtt.percentiles);
  near_rank(r.ack_rtt.p50_ns, rtt, N, 0.50);
  near_rank(r.ack_rtt.p90_ns, rtt, N, 0.90);
  near_rank(r.ack_rtt.p99_ns, rtt, N, 0.99);
  near_rank(r.ack_rtt.p999_ns, rtt, N, 0.999);
  /* every WQE completed by its ACK: wqe_time has a sample each, equal */
  ck_assert_uint_eq(r.msg_time.count, N);
  ck_assert_uint_eq(r.msg_time.max_ns, rtt[N - 1]);
  ck_assert_uint_eq(r.read_time.count, 0);
  ck_assert_uint_eq(r.msgs[ORNIC_AN_MSG_WRITE], N);
  ck_assert_uint_eq(r.size_hist[ornic_an_size_bucket(64)], N);
  ck_assert_str_eq(ornic_an_size_bucket_name(ornic_an_size_bucket(64)), "64-127");
  t_free(t);
}
END_TEST

/* 8.9: message sizes from a RETH, or from a SEND's packets (First and
 * Middle carry the PMTU); kinds counted per message, not per packet. */
START_TEST(sizes_and_kinds) {
  T *t = t_new(1024);
  opt full = {.len = 1024}, last = {.len = 100}, only = {.len = 7};
  feed(t, A, QB, 0x00 /* RC SEND First */, 0, &full);
  feed(t, A, QB, 0x01 /* RC SEND Middle */, 1, &full);
  feed(t, A, QB, 0x02 /* RC SEND Last */, 2, &last); /* 2148 bytes */
  feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 3, &only);
  opt rd = {.va = 0x10000, .rkey = 2, .dmalen = 1u << 20};
  feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, 4, &rd); /* 1024 PSNs */
  opt wr = {.len = 1024, .va = 0x2000, .rkey = 3, .dmalen = 3000};
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_FIRST, 1028, &wr);
  ornic_an_dir_report r = report(t, 1, ORNIC_AN_DIR_AB);
  ck_assert_uint_eq(r.msgs[ORNIC_AN_MSG_SEND], 2);
  ck_assert_uint_eq(r.msgs[ORNIC_AN_MSG_READ], 1);
  ck_assert_uint_eq(r.msgs[ORNIC_AN_MSG_WRITE], 1);
  ck_assert_uint_eq(r.size_hist[ornic_an_size_bucket(2148)], 2); /* the SEND and the WRITE */
  ck_assert_str_eq(ornic_an_size_bucket_name(ornic_an_size_bucket(2148)), "2K-4K");
  ck_assert_uint_eq(r.size_hist[ornic_an_size_bucket(7)], 1);
  ck_assert_uint_eq(r.size_hist[ornic_an_size_bucket(1u << 20)], 1);
  ck_assert_str_eq(ornic_an_size_bucket_name(ornic_an_size_bucket(1u << 20)), "1M-2M");
  ck_assert_uint_eq(r.size_unknown, 0);
  /* the READ's PSNs are reserved, not missing */
  ck_assert_uint_eq(r.psn_span, 1029);
  ck_assert_uint_eq(r.psn_missing, 0);
  ck_assert_uint_eq(r.gaps, 0);
  t_free(t);
}
END_TEST

/* 8.9: CE marks on requests, the CNP that answers them, markings mixed. */
START_TEST(congestion_marks_and_cnp_reaction) {
  T *t = t_new(0);
  const uint8_t dscp26_ect0 = 26 << 2 | 2, dscp26_ce = 26 << 2 | 3;
  opt ect = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64, .tos = dscp26_ect0};
  opt ce = ect;
  ce.tos = dscp26_ce;
  t->at_ns = 1000000;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &ect);
  opt ack = ack_msn(1);
  feed(t, B, QA, ORNIC_OP_RC_ACK, 0, &ack); /* pairs the QPs: the CNP finds A's direction */
  t->at_ns += 1000;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 1, &ce); /* the first CE */
  t->at_ns += 500;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 2, &ce);
  t->at_ns += 4500; /* 5 us after the first CE */
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_CNP, 0, NULL);
  ck_assert_int_eq(v.role, ORNIC_AN_ROLE_CNP);
  ck_assert_uint_eq(v.dir, ORNIC_AN_DIR_AB);
  t->at_ns += 1000;
  feed(t, B, QA, ORNIC_OP_CNP, 0, NULL); /* no CE since the last CNP: no sample */
  ornic_an_dir_report r = report(t, 1, ORNIC_AN_DIR_AB);
  ck_assert_uint_eq(r.ce, 2);
  ck_assert_uint_eq(r.cnps, 2);
  ck_assert_uint_eq(r.cnp_reaction.count, 1);
  ck_assert_uint_eq(r.cnp_reaction.min_ns, 5000);
  ck_assert_uint_eq(r.ecn_seen, (1u << 2) | (1u << 3));
  ck_assert_uint_eq(r.dscp_seen, (uint64_t)1 << 26);
  ck_assert(!r.mixed_marking);
  opt plain = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64, .tos = 0};
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 3, &plain); /* Not-ECT, DSCP 0 */
  r = report(t, 1, ORNIC_AN_DIR_AB);
  ck_assert(r.mixed_marking);
  t_free(t);
}
END_TEST

/* 8.9: ACKs that add nothing, credit 0, NAK kinds. */
START_TEST(ack_and_nak_kinds) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  for (uint32_t p = 0; p < 4; p++) feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
  opt ack = {.syndrome = 0x00, .msn = 2}; /* credit count 0 */
  feed(t, B, QA, ORNIC_OP_RC_ACK, 1, &ack);
  feed(t, B, QA, ORNIC_OP_RC_ACK, 1, &ack); /* the same again: a duplicate ACK */
  opt rnr = {.syndrome = 0x20 | 0x0e, .msn = 2};
  feed(t, B, QA, ORNIC_OP_RC_ACK, 2, &rnr);
  opt seq = {.syndrome = 0x60, .msn = 2};
  feed(t, B, QA, ORNIC_OP_RC_ACK, 2, &seq);
  opt fatal = {.syndrome = 0x62, .msn = 2};
  feed(t, B, QA, ORNIC_OP_RC_ACK, 2, &fatal);
  ornic_an_dir_report r = report(t, 1, ORNIC_AN_DIR_AB);
  ck_assert_uint_eq(r.credit0_acks, 2);
  ck_assert_uint_eq(r.dup_acks, 1);
  ck_assert_uint_eq(r.rnr_naks, 1);
  ck_assert_uint_eq(r.seq_naks, 1);
  ck_assert_uint_eq(r.fatal_naks, 1);
  ck_assert_uint_eq(r.flight_max, 0); /* the ACKs came after the last request */
  ck_assert_uint_eq(ornic_analysis_in_flight(t->an, 1, ORNIC_AN_DIR_AB), 2);
  t_free(t);
}
END_TEST

/* 8.5: a gap before a request on an in-order RC stream, held 50 us and 64
 * packets (sprayed traffic starts with jumps), then said once, with the
 * PSNs still missing; the headline counts them. */
START_TEST(prev_not_captured_on_in_order_stream) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  t->at_ns = 1000000;
  for (uint32_t p = 0; p < 5; p++) feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
  uint32_t flagged = 0, at = 0;
  for (uint32_t p = 9; p < 9 + 100; p++) { /* 5-8 never come; 1 us apart */
    t->at_ns += 1000;
    ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
    ck_assert_uint_eq(v.flags & ORNIC_AN_PROBLEMS & ~(uint32_t)ORNIC_AN_PREV_NOT_CAPTURED, 0);
    if (!(v.flags & ORNIC_AN_PREV_NOT_CAPTURED)) continue;
    flagged++;
    at = p;
    ck_assert_uint_eq(v.hole_first, 5);
    ck_assert_uint_eq(v.hole_count, 4);
  }
  ck_assert_uint_eq(flagged, 1);
  ck_assert_uint_eq(at, 9 + 64); /* 64 packets after the jump (and 64 us) */
  ck_assert_str_eq(ornic_an_flag_name(ORNIC_AN_PREV_NOT_CAPTURED), "prev_not_captured");
  ornic_an_dir_report r = report(t, 1, ORNIC_AN_DIR_AB);
  ck_assert_uint_eq(r.gaps, 1);
  ck_assert_uint_eq(r.gap_psns, 4);
  ck_assert_uint_eq(r.psn_span, 109);
  ck_assert_uint_eq(r.psn_missing, 4);
  t_free(t);
}
END_TEST

/* 8.5: a UC stream has no ACK to say what it lacks: its gaps are said the same way. */
START_TEST(uc_stream_gap) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  const uint8_t uc_write_only = 0x2A;
  t->at_ns = 1000000;
  for (uint32_t p = 100; p < 110; p++) feed(t, A, QB, uc_write_only, p, &only);
  uint32_t flagged = 0;
  for (uint32_t p = 112; p < 200; p++) { /* 110-111 never come */
    t->at_ns += 1000;
    ornic_an_verdict v = feed(t, A, QB, uc_write_only, p, &only);
    ck_assert_int_eq(v.role, ORNIC_AN_ROLE_REQUEST);
    if (!(v.flags & ORNIC_AN_PREV_NOT_CAPTURED)) continue;
    flagged++;
    ck_assert_uint_eq(v.hole_first, 110);
    ck_assert_uint_eq(v.hole_count, 2);
  }
  ck_assert_uint_eq(flagged, 1);
  ornic_an_dir_report r = report(t, 1, ORNIC_AN_DIR_AB);
  ck_assert_uint_eq(r.psn_missing, 2);
  ck_assert_uint_eq(r.msgs[ORNIC_AN_MSG_WRITE], 98);
  t_free(t);
}
END_TEST

/* 8.5: a jump whose PSNs then arrive late was reordering: no gap said, ever. */
START_TEST(jump_then_late_arrival_is_no_gap) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  t->at_ns = 1000000;
  for (uint32_t p = 0; p < 5; p++) feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 9, &only);
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 6, &only); /* late */
  ck_assert(v.flags & ORNIC_AN_OOO);
  for (uint32_t p = 10; p < 200; p++) {
    t->at_ns += 1000;
    v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
    ck_assert(!(v.flags & ORNIC_AN_PROBLEMS));
  }
  ornic_an_dir_report r = report(t, 1, ORNIC_AN_DIR_AB);
  ck_assert_uint_eq(r.gaps, 0);
  ck_assert_uint_eq(r.psn_missing, 3); /* 5, 7 and 8 never came */
  t_free(t);
}
END_TEST

/* 8.5: sprayed traffic (ORNIC opcodes, or several source ports) jumps
 * ahead all the time: never a gap there, however long the hole stays. */
START_TEST(no_gap_on_sprayed_traffic) {
  T *t = t_new(0);
  opt p1 = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64, .sport = 0xc000};
  opt p2 = p1;
  p2.sport = 0xc001;
  t->at_ns = 1000000;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &p1);
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 1, &p2);
  for (uint32_t p = 5; p < 200; p++) { /* 2-4 never come; the wait runs out at 64 packets */
    t->at_ns += 1000;
    ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, p & 1 ? &p2 : &p1);
    ck_assert(!(v.flags & ORNIC_AN_PREV_NOT_CAPTURED));
  }
  /* the same on one port is a gap: what made the difference is the spraying */
  T *u = t_new(0);
  u->at_ns = 1000000;
  feed(u, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &p1);
  feed(u, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 1, &p1);
  uint32_t said = 0;
  for (uint32_t p = 5; p < 200; p++) {
    u->at_ns += 1000;
    said +=
        !!(feed(u, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &p1).flags & ORNIC_AN_PREV_NOT_CAPTURED);
  }
  ck_assert_uint_eq(said, 1);
  t_free(u);
  t_free(t);
}
END_TEST

/* A caller built against a shorter report gets its part and nothing past it. */
START_TEST(report_size_is_the_callers) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &only);
  unsigned char buf[sizeof(ornic_an_dir_report) + 8];
  memset(buf, 0x5a, sizeof buf);
  size_t part = offsetof(ornic_an_dir_report, available);
  ck_assert_int_eq(ornic_analysis_dir_report(t->an, 1, 0, (ornic_an_dir_report *)(void *)buf, part),
                   ORNIC_OK);
  ck_assert_uint_eq(buf[part], 0x5a);
  ck_assert_uint_eq(((ornic_an_dir_report *)(void *)buf)->base.req_packets, 1);
  ck_assert_int_eq(ornic_analysis_dir_report(t->an, 2, 0, (ornic_an_dir_report *)(void *)buf,
                                             sizeof(ornic_an_dir_report)),
                   ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_analysis_dir_report(t->an, 1, 2, (ornic_an_dir_report *)(void *)buf,
                                             sizeof(ornic_an_dir_report)),
                   ORNIC_ERR_INVALID_ARG);
  t_free(t);
}
END_TEST

/* The budget refuses a histogram: count, min, avg, max stay exact and the
 * percentiles are said to be missing. */
START_TEST(histogram_refused_by_budget) {
  ornic_analysis_cfg cfg;
  ornic_analysis_cfg_init(&cfg);
  T *probe = t_new_cfg(cfg);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  feed(probe, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &only);
  ornic_an_limits l;
  ornic_analysis_limits(probe->an, &l);
  t_free(probe);
  /* room for the conversation and its report, not for a histogram */
  cfg.max_memory = l.memory_used + 32; /* a histogram takes 64 bytes at least */
  T *t = t_new_cfg(cfg);
  t->at_ns = 1000;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &only);
  t->at_ns += 3000;
  opt ack = ack_msn(1);
  feed(t, B, QA, ORNIC_OP_RC_ACK, 0, &ack);
  ornic_an_dir_report r = report(t, 1, ORNIC_AN_DIR_AB);
  ck_assert_uint_eq(r.ack_rtt.count, 1);
  ck_assert_uint_eq(r.ack_rtt.avg_ns, 3000);
  ck_assert(!r.ack_rtt.percentiles);
  t_free(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("analysis_report");
  TCase *tc = tcase_create("report");
  tcase_add_test(tc, latency_percentiles_against_sorted_samples);
  tcase_add_test(tc, sizes_and_kinds);
  tcase_add_test(tc, congestion_marks_and_cnp_reaction);
  tcase_add_test(tc, ack_and_nak_kinds);
  tcase_add_test(tc, prev_not_captured_on_in_order_stream);
  tcase_add_test(tc, jump_then_late_arrival_is_no_gap);
  tcase_add_test(tc, uc_stream_gap);
  tcase_add_test(tc, no_gap_on_sprayed_traffic);
  tcase_add_test(tc, report_size_is_the_callers);
  tcase_add_test(tc, histogram_refused_by_budget);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
