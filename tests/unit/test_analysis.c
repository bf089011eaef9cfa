/* SPDX-License-Identifier: MIT */
/* Unit tests of the conversation analysis (ornic/analysis.h, rules in
 * docs/PROTOCOL.md section 8). Every packet is built with the encoder and
 * read back with the decoder, so the engine sees what a tool would give it.
 * Each test is one hand-built sequence for one rule; the expected verdicts
 * come from the rule's text, not from running the engine. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "an_feed.h"

/* 8.1: both ends of one QP pair send SENDs and ACK each other's (ib_send_lat,
 * NCCL). B's SEND PSNs and the ACKs of A's SENDs both travel towards A's QP
 * and must not be compared. */
START_TEST(ping_pong_two_psn_spaces) {
  T *t = t_new(0);
  opt send = {.len = 64, .ackreq = true};
  for (uint32_t i = 0; i < 50; i++) {
    opt ack_a = ack_msn(i + 1), ack_b = ack_msn(i + 1);
    ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 1000 + i, &send);
    NO_PROBLEM(v);
    ck_assert_uint_eq(v.role, ORNIC_AN_ROLE_REQUEST);
    v = feed(t, B, QA, ORNIC_OP_RC_ACK, 1000 + i, &ack_a);
    NO_PROBLEM(v);
    ck_assert_uint_eq(v.role, ORNIC_AN_ROLE_RESPONSE);
    v = feed(t, B, QA, ORNIC_OP_RC_SEND_ONLY, 900000 + i, &send);
    NO_PROBLEM(v);
    v = feed(t, A, QB, ORNIC_OP_RC_ACK, 900000 + i, &ack_b);
    NO_PROBLEM(v);
    ck_assert_uint_eq(v.dir, ORNIC_AN_DIR_BA);
  }
  const ornic_an_conv *c = ornic_analysis_conv_final(t->an, 1);
  ck_assert_ptr_nonnull(c);
  ck_assert(c->qp_a_known && c->qp_b_known);
  ck_assert_uint_eq(c->qp_a, QA);
  ck_assert_uint_eq(c->qp_b, QB);
  for (int d = 0; d < 2; d++) {
    ck_assert_uint_eq(c->dir[d].req_packets, 50);
    ck_assert_uint_eq(c->dir[d].acks, 50);
    ck_assert_uint_eq(c->dir[d].wqes, 50);
    /* the capture holds both directions from their first message: the
     * first ACK (MSN 1) completes the first SEND (8.6) */
    ck_assert_uint_eq(c->dir[d].wqes_done, 50);
    ck_assert_uint_eq(c->dir[d].retrans + c->dir[d].dups + c->dir[d].ooo, 0);
  }
  /* every SEND acknowledged by the ACK right after it */
  ck_assert_uint_eq(t->nacked, 64);
  ck_assert_uint_eq(t->acked_data[0], 1);
  ck_assert_uint_eq(t->acked_by[0], 2);
  t_free(t);
}
END_TEST

/* Pipelined READs (ib_read_bw): each reserves N PSNs; the responses to READ
 * k+1 are not repeats of READ k's. With and without a known PMTU. */
static void pipelined_reads(uint32_t pmtu_cfg) {
  T *t = t_new(pmtu_cfg);
  const uint32_t pmtu = 1024, n = 4, len = n * pmtu, reads = 8, p0 = 0xfffff0; /* wraps */
  uint64_t req_frame[8];
  for (uint32_t k = 0; k < reads; k++) {
    opt rd = {.va = 0x10000, .rkey = 7, .dmalen = len};
    ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, p0 + k * n, &rd);
    NO_PROBLEM(v);
    ck_assert(v.flags & ORNIC_AN_NEW_WQE);
    req_frame[k] = t->frame;
  }
  for (uint32_t k = 0; k < reads; k++) {
    for (uint32_t i = 0; i < n; i++) {
      uint8_t op = i == 0       ? ORNIC_OP_RC_RDMA_READ_RESP_FIRST
                   : i == n - 1 ? ORNIC_OP_RC_RDMA_READ_RESP_LAST
                                : ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE;
      opt r = {.len = pmtu, .syndrome = 0x1f, .msn = k + 1};
      ornic_an_verdict v = feed(t, B, QA, op, p0 + k * n + i, &r);
      NO_PROBLEM(v);
      ck_assert_msg(!(v.flags & ORNIC_AN_OOO), "READ %u response %u flagged OOO", k, i);
      ck_assert_uint_eq(v.read_frame, req_frame[k]);
      ck_assert_msg(v.flags & ORNIC_AN_ADDR, "READ %u response %u: no address (flags 0x%x)", k, i,
                    v.flags);
      ck_assert_uint_eq(v.addr, 0x10000 + (uint64_t)i * pmtu);
    }
  }
  const ornic_an_conv *c = ornic_analysis_conv_final(t->an, 1);
  ck_assert_uint_eq(c->dir[ORNIC_AN_DIR_AB].wqes, reads);
  ck_assert_uint_eq(c->dir[ORNIC_AN_DIR_AB].resp_packets, reads * n);
  t_free(t);
}

START_TEST(pipelined_reads_learnt_pmtu) { pipelined_reads(0); }
END_TEST
START_TEST(pipelined_reads_known_pmtu) { pipelined_reads(1024); }
END_TEST

/* A WRITE both ways at once: A writes to B while B writes to A. */
START_TEST(writes_both_ways) {
  T *t = t_new(0);
  for (int from = A; from <= B; from++) {
    uint32_t qp = from == A ? QB : QA, p = from == A ? 10 : 70000;
    opt first = {.len = 1024, .va = 0x5000, .rkey = 3, .dmalen = 3072}, mid = {.len = 1024},
        last = {.len = 1024, .ackreq = true};
    NO_PROBLEM(feed(t, from, qp, ORNIC_OP_RC_RDMA_WRITE_FIRST, p, &first));
    ornic_an_verdict v = feed(t, from, qp, ORNIC_OP_RC_RDMA_WRITE_MIDDLE, p + 1, &mid);
    NO_PROBLEM(v);
    ck_assert(v.flags & ORNIC_AN_ADDR);
    ck_assert_uint_eq(v.addr, 0x5400);
    v = feed(t, from, qp, ORNIC_OP_RC_RDMA_WRITE_LAST, p + 2, &last);
    ck_assert_uint_eq(v.addr, 0x5800);
    ck_assert_uint_eq(v.wqe_npkts, 3);
  }
  opt ack = ack_msn(1);
  NO_PROBLEM(feed(t, B, QA, ORNIC_OP_RC_ACK, 12, &ack));
  NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_ACK, 70002, &ack));
  ck_assert_uint_eq(ornic_analysis_conv_count(t->an), 2); /* B's WRITE came first on its half */
  const ornic_an_conv *c = ornic_analysis_conv_final(t->an, 2);
  ck_assert_uint_eq(c->id, 1);
  ck_assert_uint_eq(c->dir[0].req_packets, 3);
  ck_assert_uint_eq(c->dir[1].req_packets, 3);
  ck_assert_uint_eq(c->dir[0].acks + c->dir[1].acks, 2);
  t_free(t);
}
END_TEST

/* 8.5: a capture that starts mid-stream: ACKs of data before it, Middles
 * of a WRITE whose First was not captured. Nothing is a problem; the address
 * is unknown, said once. */
START_TEST(capture_starts_mid_stream) {
  T *t = t_new(0);
  opt mid = {.len = 1024}, ack = ack_msn(3);
  NO_PROBLEM(feed(t, B, QA, ORNIC_OP_RC_ACK, 4990, &ack));
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_MIDDLE, 5000, &mid);
  NO_PROBLEM(v);
  ck_assert(v.flags & ORNIC_AN_ADDR_UNKNOWN);
  v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_MIDDLE, 5001, &mid);
  ck_assert(v.flags & ORNIC_AN_ADDR_UNKNOWN);
  ack.msn = 4;
  v = feed(t, B, QA, ORNIC_OP_RC_ACK, 5001, &ack);
  NO_PROBLEM(v);
  ck_assert(v.flags & ORNIC_AN_ACK);
  t_free(t);
}
END_TEST

/* 8.5: an ACK covering a PSN the capture never saw: not captured, not loss. */
START_TEST(acked_unseen_is_not_captured) {
  T *t = t_new(0);
  opt only = {.len = 100, .va = 0x1000, .rkey = 1, .dmalen = 100};
  for (uint32_t p = 0; p < 20; p++)
    if (p != 7 && p != 8) {
      NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only)); /* the gap is held */
    }
  opt ack = ack_msn(20);
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 19, &ack);
  ck_assert(v.flags & ORNIC_AN_NOT_CAPTURED);
  ck_assert(!(v.flags & (ORNIC_AN_LOSS | ORNIC_AN_RETRANS)));
  ck_assert_uint_eq(v.not_captured_first, 7);
  ck_assert_uint_eq(v.not_captured, 2);
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->dir[0].not_captured, 2);
  t_free(t);
}
END_TEST

/* ORNIC OOO WRITE at the responder's tap: PSN 10 lost, the responder's NAK
 * declares it (4.4), the retransmission fills it. */
START_TEST(ornic_nak_loss_retransmission) {
  T *t = t_new(1024);
  const uint32_t s = 100, npk = 100;
  opt fspot = {.len = 1024, .va = 0x100000, .rkey = 9, .dmalen = npk * 1024}, spot = {.len = 1024};
  for (uint32_t i = 0; i < 80; i++) {
    if (i == 10) continue;
    fspot.va = 0x100000 + i * 1024;
    fspot.offset = i * 1024;
    ornic_an_verdict v = feed(t, A, QB, i < 3 ? ORNIC_OP_OOO_WRITE_FSPOT : ORNIC_OP_OOO_WRITE_SPOT,
                              s + i, i < 3 ? &fspot : &spot);
    NO_PROBLEM(v);
    if (i >= 3) {
      ck_assert(v.flags & ORNIC_AN_ADDR);
      ck_assert_uint_eq(v.addr, 0x100000 + i * 1024);
    }
    if (i == 75) { /* 75 - 10 > OTD 64 */
      ck_assert(v.flags & ORNIC_AN_OTD_EXCEEDED);
      ck_assert_uint_eq(v.hole_first, s + 10);
      ck_assert_uint_eq(v.hole_count, 1);
    }
  }
  opt nak = {.syndrome = 0x60,
             .nak_reason = ORNIC_NAKETH_OTD_EXCEEDED,
             .nak_trigger = s + 75,
             .nak_limit = s + 75 - 64,
             .nak_nblocks = 5,
             .nak_blocks = {0xfffe, 0xffff, 0xffff, 0xffff, 0x03ff}};
  /* The tap is at the responder: PSN s+10 was not seen, so the NAK declares
   * it lost but does not prove it (it may be on a slow path)... */
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_NAK, s + 10, &nak);
  ck_assert(v.flags & ORNIC_AN_NAK);
  ck_assert(!(v.flags & ORNIC_AN_LOSS));
  ck_assert_uint_eq(v.nak_lost, 1);
  uint64_t nak_frame = t->frame;
  /* ...the copy it asked for, arriving as the first one, does (8.3, 8.6). */
  v = feed(t, A, QB, ORNIC_OP_OOO_WRITE_SPOT, s + 10, &spot);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  ck_assert(v.flags & ORNIC_AN_LOSS);
  ck_assert_uint_eq(v.loss_first_psn, s + 10);
  ck_assert_uint_eq(v.loss_count, 1);
  ck_assert(!(v.flags & (ORNIC_AN_DUP | ORNIC_AN_OOO)));
  ck_assert_uint_eq(v.asked_frame, nak_frame);
  ck_assert_uint_eq(v.addr, 0x100000 + 10 * 1024);
  /* a PSN seen before, nobody asked: a duplicate */
  v = feed(t, A, QB, ORNIC_OP_OOO_WRITE_SPOT, s + 20, &spot);
  ck_assert(v.flags & ORNIC_AN_DUP);
  ck_assert_uint_eq(v.first_frame, 20); /* frames 1-10 are PSNs s..s+9, 11 is s+11 */
  /* A = 1: a probe on the RTO is a retransmission */
  spot.ackreq = true;
  v = feed(t, A, QB, ORNIC_OP_OOO_WRITE_SPOT, s + 11, &spot);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  ck_assert(v.flags & ORNIC_AN_PROBE);
  const ornic_an_dir_stats *st = &ornic_analysis_conv_final(t->an, 1)->dir[0];
  ck_assert_uint_eq(st->loss, 1);
  ck_assert_uint_eq(st->retrans, 2);
  ck_assert_uint_eq(st->dups, 1);
  ck_assert_uint_eq(st->naks, 1);
  t_free(t);
}
END_TEST

/* A tap at the requester sees every original: a NAK declaring a PSN the
 * capture saw sent proves it lost in the network. */
START_TEST(ornic_nak_at_requester_tap) {
  T *t = t_new(1024);
  opt fspot = {.len = 1024, .va = 0x100000, .rkey = 9, .dmalen = 100 * 1024};
  for (uint32_t i = 0; i < 80; i++) {
    fspot.va = 0x100000 + i * 1024;
    fspot.offset = i * 1024;
    NO_PROBLEM(feed(t, A, QB, ORNIC_OP_OOO_WRITE_FSPOT, 100 + i, &fspot));
  }
  opt nak = {.syndrome = 0x60,
             .nak_reason = ORNIC_NAKETH_OTD_EXCEEDED,
             .nak_trigger = 175,
             .nak_limit = 175 - 64,
             .nak_nblocks = 5,
             .nak_blocks = {0xfffe, 0xffff, 0xffff, 0xffff, 0x03ff}};
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_NAK, 110, &nak);
  ck_assert(v.flags & ORNIC_AN_LOSS);
  ck_assert_uint_eq(v.loss_first_psn, 110);
  ck_assert_uint_eq(v.loss_count, 1);
  fspot.va = 0x100000 + 10 * 1024;
  fspot.offset = 10 * 1024;
  v = feed(t, A, QB, ORNIC_OP_OOO_WRITE_FSPOT, 110, &fspot);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  ck_assert(!(v.flags & ORNIC_AN_LOSS)); /* counted once, on the NAK */
  ck_assert_uint_eq(ornic_analysis_conv(t->an, 1)->dir[0].loss, 1);
  t_free(t);
}
END_TEST

/* A NAK's lost set is the one its Limit PSN names (PROTOCOL.md 4.4), whatever
 * OTD the engine was configured with: Base 110, 113 and 115 clear, Limit 120. */
START_TEST(ornic_nak_lost_set_ignores_cfg_otd) {
  static const uint32_t otds[] = {1, 64, 4000};
  for (unsigned k = 0; k < 3; k++) {
    T *t = t_new_otd(1024, otds[k]);
    opt fspot = {.len = 1024, .va = 0x100000, .rkey = 9, .dmalen = 100 * 1024};
    for (uint32_t i = 0; i < 80; i++) {
      fspot.va = 0x100000 + i * 1024;
      fspot.offset = i * 1024;
      NO_PROBLEM(feed(t, A, QB, ORNIC_OP_OOO_WRITE_FSPOT, 100 + i, &fspot));
    }
    opt nak = {.syndrome = 0x60,
               .nak_reason = ORNIC_NAKETH_OTD_EXCEEDED,
               .nak_trigger = 175,
               .nak_limit = 120,
               .nak_nblocks = 5,
               .nak_blocks = {0xffd6, 0xffff, 0xffff, 0xffff, 0x03ff}};
    ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_NAK, 110, &nak);
    ck_assert_msg(v.nak_lost == 3, "OTD %u: nak_lost %u", otds[k], v.nak_lost);
    ck_assert(v.flags & ORNIC_AN_LOSS);
    ck_assert_uint_eq(v.loss_first_psn, 110);
    ck_assert_uint_eq(v.loss_count, 3);
    t_free(t);
  }
}
END_TEST

/* ORNIC ACKs cross a sprayed fabric: an older one arriving late is stale,
 * which is information, not a problem. */
START_TEST(ornic_stale_ack_is_information) {
  T *t = t_new(1024);
  opt fspot = {.len = 1024, .va = 0x1000, .rkey = 9, .dmalen = 64 * 1024};
  for (uint32_t i = 0; i < 20; i++) {
    fspot.va = 0x1000 + i * 1024;
    fspot.offset = i * 1024;
    feed(t, A, QB, ORNIC_OP_OOO_WRITE_FSPOT, 500 + i, &fspot);
  }
  opt ack = {.syndrome = 0x1f, .msn = 0, .oack = ORNIC_OACK_ADDR_CACHED};
  NO_PROBLEM(feed(t, B, QA, ORNIC_OP_ACK, 515, &ack));
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_ACK, 510, &ack);
  NO_PROBLEM(v);
  ck_assert(v.flags & ORNIC_AN_ACK_STALE);
  t_free(t);
}
END_TEST

/* RC go-back-N at the responder's tap: PSN 5 lost; the NAK (sequence
 * error) names it; the requester resends 5 .. 9. */
START_TEST(rc_go_back_n) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  for (uint32_t p = 0; p < 10; p++)
    if (p != 5) NO_PROBLEM_BUT_GAP(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only));
  opt nak = {.syndrome = 0x60, .msn = 5};
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 5, &nak);
  ck_assert(v.flags & ORNIC_AN_NAK);
  ck_assert(v.flags & ORNIC_AN_LOSS);
  ck_assert_uint_eq(v.loss_count, 1);
  for (uint32_t p = 5; p < 10; p++) {
    v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
    ck_assert_msg(v.flags & ORNIC_AN_RETRANS, "PSN %u flags 0x%x", p, v.flags);
    ck_assert(!(v.flags & (ORNIC_AN_DUP | ORNIC_AN_LOSS)));
  }
  opt ack = ack_msn(10);
  v = feed(t, B, QA, ORNIC_OP_RC_ACK, 9, &ack);
  NO_PROBLEM(v);
  t_free(t);
}
END_TEST

/* 4.5 / IBA: READ responses 2 and 3 of 4 missing; the requester re-reads
 * from PSN P+2 (VA advanced by 2 PMTUs). Nothing past P+1 was seen: the
 * responder may not have sent P+2 yet (a timeout), so the retry asks for
 * P+2 and P+3 again but proves neither lost (8.6). */
START_TEST(read_retry_fills_holes) {
  T *t = t_new(1024);
  const uint32_t p = 40;
  opt rd = {.va = 0x8000, .rkey = 5, .dmalen = 4096};
  NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, p, &rd));
  uint64_t read_frame = t->frame;
  opt first = {.len = 1024, .syndrome = 0x1f, .msn = 1}, mid = {.len = 1024};
  NO_PROBLEM(feed(t, B, QA, ORNIC_OP_RC_RDMA_READ_RESP_FIRST, p, &first));
  NO_PROBLEM(feed(t, B, QA, ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE, p + 1, &mid));
  opt retry = {.va = 0x8000 + 2048, .rkey = 5, .dmalen = 2048};
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, p + 2, &retry);
  ck_assert(v.flags & ORNIC_AN_READ_RETRY);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  ck_assert(!(v.flags & ORNIC_AN_LOSS));
  ck_assert_uint_eq(v.read_frame, read_frame);
  uint64_t retry_frame = t->frame;
  opt rfirst = {.len = 1024, .syndrome = 0x1f, .msn = 1},
      last = {.len = 1024, .syndrome = 0x1f, .msn = 1};
  v = feed(t, B, QA, ORNIC_OP_RC_RDMA_READ_RESP_FIRST, p + 2, &rfirst);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  ck_assert_uint_eq(v.asked_frame, retry_frame);
  ck_assert_uint_eq(v.addr, 0x8000 + 2048);
  v = feed(t, B, QA, ORNIC_OP_RC_RDMA_READ_RESP_LAST, p + 3, &last);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  ck_assert(!(v.flags & ORNIC_AN_DUP));
  t_free(t);
}
END_TEST

/* READ response k of a READ at P, with the opcode its place calls for. */
static ornic_an_verdict read_resp(T *t, uint32_t p, uint32_t k, uint32_t n, const opt *o) {
  uint8_t op = k == 0       ? ORNIC_OP_RC_RDMA_READ_RESP_FIRST
               : k == n - 1 ? ORNIC_OP_RC_RDMA_READ_RESP_LAST
                            : ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE;
  opt r = o ? *o : (opt){.len = 1024};
  if (op != ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE) r.syndrome = 0x1f;
  return feed(t, B, QA, op, p + k, &r);
}

/* Issue 26 item 7, at the requester's tap: WRITE 10 lost, the responder
 * NAKs it and drops the READ at 11 behind it; the requester goes back N and
 * sends the WRITE and the whole READ again. The READ's responses were never
 * sent: the resent READ proves nothing lost (8.6), only the NAK does. */
START_TEST(read_resent_by_go_back_n_proves_nothing) {
  T *t = t_new(1024);
  const uint32_t n = 4;
  opt wr = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64, .ackreq = true};
  opt rd = {.va = 0x8000, .rkey = 5, .dmalen = n * 1024, .ackreq = true};
  NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 10, &wr));
  NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, 11, &rd));
  opt nak = {.syndrome = 0x60};
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 10, &nak);
  ck_assert(v.flags & ORNIC_AN_LOSS);
  ck_assert_uint_eq(v.loss_count, 1);
  v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 10, &wr);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  v = feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, 11, &rd);
  ck_assert(v.flags & ORNIC_AN_READ_RETRY);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  ck_assert_msg(!(v.flags & ORNIC_AN_LOSS), "resent READ claims %u lost", v.loss_count);
  opt ack = ack_msn(1);
  NO_PROBLEM(feed(t, B, QA, ORNIC_OP_RC_ACK, 10, &ack));
  for (uint32_t k = 0; k < n; k++) {
    v = read_resp(t, 11, k, n, NULL);
    ck_assert_msg(!(v.flags & (ORNIC_AN_LOSS | ORNIC_AN_DUP)), "response %u flags 0x%x", k,
                  v.flags);
  }
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->dir[ORNIC_AN_DIR_AB].loss, 1);
  t_free(t);
}
END_TEST

/* Issue 26 item 7, at the responder's tap: response 3 of a READ of 8 is
 * lost after the tap; the requester, seeing 4, re-reads from 3 while the
 * responder is still sending the READ's tail (6, 7 go out after the retry
 * arrived: they are not lost). Only 3 is proven lost (8.6). */
START_TEST(read_retry_proves_only_its_first_psn) {
  T *t = t_new(1024);
  const uint32_t p = 100, n = 8;
  opt rd = {.va = 0x20000, .rkey = 6, .dmalen = n * 1024, .ackreq = true};
  NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, p, &rd));
  for (uint32_t k = 0; k < 6; k++) NO_PROBLEM(read_resp(t, p, k, n, NULL));
  opt retry = {.va = 0x20000 + 3 * 1024, .rkey = 6, .dmalen = 5 * 1024, .ackreq = true};
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, p + 3, &retry);
  ck_assert(v.flags & ORNIC_AN_READ_RETRY);
  ck_assert(v.flags & ORNIC_AN_LOSS);
  ck_assert_uint_eq(v.loss_first_psn, p + 3);
  ck_assert_uint_eq(v.loss_count, 1);
  for (uint32_t k = 6; k < n; k++) ck_assert(!(read_resp(t, p, k, n, NULL).flags & ORNIC_AN_LOSS));
  for (uint32_t k = 0; k < n - 3; k++) { /* the retry's answer: First at 3 .. Last at 7 */
    v = read_resp(t, p + 3, k, n - 3, NULL);
    ck_assert_msg(v.flags & ORNIC_AN_RETRANS, "copy of %u flags 0x%x", 3 + k, v.flags);
    ck_assert(!(v.flags & ORNIC_AN_LOSS));
  }
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->dir[ORNIC_AN_DIR_AB].loss, 1);
  t_free(t);
}
END_TEST

/* At the requester's tap: response 2 of 6 never arrives, 3 and 4 do; the
 * retry from 2 proves 2 lost (the responder had answered past it), not the
 * unseen 5. A second retry from 2 after the copy of 2 arrived (a timeout
 * that crossed it) proves nothing more. Sprayed responses (two source
 * ports) prove nothing: 2 may only have been overtaken. */
static void requester_tap_retry(bool sprayed) {
  T *t = t_new(1024);
  const uint32_t p = 200, n = 6;
  opt rd = {.va = 0x40000, .rkey = 8, .dmalen = n * 1024, .ackreq = true};
  NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, p, &rd));
  for (uint32_t k = 0; k < 5; k++) {
    opt r = {.len = 1024, .sport = (uint16_t)(sprayed && k % 2 ? 49153 : 0)};
    if (k != 2) read_resp(t, p, k, n, &r);
  }
  opt retry = {.va = 0x40000 + 2 * 1024, .rkey = 8, .dmalen = 4 * 1024, .ackreq = true};
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, p + 2, &retry);
  ck_assert(v.flags & ORNIC_AN_READ_RETRY);
  if (sprayed) {
    ck_assert(!(v.flags & ORNIC_AN_LOSS));
  } else {
    ck_assert(v.flags & ORNIC_AN_LOSS);
    ck_assert_uint_eq(v.loss_first_psn, p + 2);
    ck_assert_uint_eq(v.loss_count, 1);
  }
  opt first = {.len = 1024, .syndrome = 0x1f};
  v = feed(t, B, QA, ORNIC_OP_RC_RDMA_READ_RESP_FIRST, p + 2, &first);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  v = feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, p + 2, &retry);
  ck_assert(v.flags & ORNIC_AN_READ_RETRY);
  ck_assert(!(v.flags & ORNIC_AN_LOSS));
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->dir[ORNIC_AN_DIR_AB].loss, !sprayed);
  t_free(t);
}

START_TEST(read_retry_at_requester_tap) { requester_tap_retry(false); }
END_TEST
START_TEST(read_retry_sprayed_proves_nothing) { requester_tap_retry(true); }
END_TEST

/* 8.1 / 8.6: B's requests into A's QP, seen before anything pairs the QPs,
 * form a conversation of their own until B's ACK of A's WRITE merges it.
 * The merged direction keeps the source port its requests came from: one
 * path, so A's NAK of B's PSN 5005 proves it lost (a port forgotten in the
 * merge made B's next request look sprayed). */
START_TEST(merged_direction_keeps_its_port) {
  T *t = t_new(0);
  opt wr = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64, .ackreq = true};
  NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 100, &wr));
  for (uint32_t p = 5000; p < 5005; p++)
    NO_PROBLEM(feed(t, B, QA, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &wr));
  opt ack = ack_msn(1);
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 100, &ack);
  ck_assert(v.flags & ORNIC_AN_PAIRED);
  NO_PROBLEM_BUT_GAP(feed(t, B, QA, ORNIC_OP_RC_RDMA_WRITE_ONLY, 5006, &wr));
  opt nak = {.syndrome = 0x60};
  v = feed(t, A, QB, ORNIC_OP_RC_ACK, 5005, &nak);
  ck_assert(v.flags & ORNIC_AN_NAK);
  ck_assert_msg(v.flags & ORNIC_AN_LOSS, "flags 0x%x", v.flags);
  ck_assert_uint_eq(v.loss_first_psn, 5005);
  ck_assert_uint_eq(v.loss_count, 1);
  t_free(t);
}
END_TEST

/* 8.6, at the responder's tap: WRITEs 3 and 5 lost. The NAK of 3 proves 3
 * and asks for 3 .. 6; the copy of 5, its original never seen, proves 5. A
 * NAK of 5 that left the responder after that copy arrived (it waited
 * behind READ responses) names the same loss: counted once. */
START_TEST(nak_after_counted_copy_counts_nothing) {
  T *t = t_new(0);
  opt wr = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  for (uint32_t p = 0; p < 7; p++)
    if (p != 3 && p != 5) NO_PROBLEM_BUT_GAP(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &wr));
  opt nak = {.syndrome = 0x60};
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 3, &nak);
  ck_assert_uint_eq(v.loss_count, 1);
  for (uint32_t p = 3; p < 7; p++) {
    v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &wr);
    ck_assert(v.flags & ORNIC_AN_RETRANS);
    ck_assert_msg(!(v.flags & ORNIC_AN_LOSS) == (p != 5), "PSN %u flags 0x%x", p, v.flags);
  }
  v = feed(t, B, QA, ORNIC_OP_RC_ACK, 5, &nak);
  ck_assert(v.flags & ORNIC_AN_NAK);
  ck_assert_msg(!(v.flags & ORNIC_AN_LOSS), "5 counted again: flags 0x%x", v.flags);
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->dir[ORNIC_AN_DIR_AB].loss, 2);
  t_free(t);
}
END_TEST

/* ConnectX DC reuses the RD opcodes (0x40-0x5F): not analysed at all. */
START_TEST(vendor_opcodes_not_analysed) {
  T *t = t_new(0);
  ornic_frame f;
  memset(&f, 0, sizeof f);
  f.layers = ORNIC_LAYER_BTH;
  f.bth.opcode = 0x51;
  f.bth.psn = 7;
  ornic_an_input in = {.frame = 1, .f = &f};
  ornic_an_verdict v;
  ck_assert_int_eq(ornic_analysis_add(t->an, &in, &v), ORNIC_OK);
  ck_assert_uint_eq(v.conv, 0);
  ck_assert_uint_eq(v.role, ORNIC_AN_ROLE_NONE);
  f.bth.opcode = ORNIC_OP_UD_SEND_ONLY;
  ck_assert_int_eq(ornic_analysis_add(t->an, &in, &v), ORNIC_OK);
  ck_assert_uint_eq(v.conv, 0);
  ck_assert_uint_eq(ornic_analysis_conv_count(t->an), 0);
  ck_assert_int_eq(ornic_analysis_add(t->an, NULL, &v), ORNIC_ERR_INVALID_ARG);
  t_free(t);
}
END_TEST

/* analysis.h: a frame without a BTH is refused, even when f->bth still holds
 * a previous decode's (a frame cut before its BTH), and nothing is analysed. */
START_TEST(no_bth_is_refused) {
  T *t = t_new(0);
  opt send = {.len = 8};
  feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 5, &send);
  ornic_frame f = t->g; /* a whole frame's BTH, then a decode that stops before it */
  f.layers &= (uint8_t)~ORNIC_LAYER_BTH;
  f.bth.destqp = 0x777;
  ornic_an_input in = {.frame = 9, .f = &f};
  ornic_an_verdict v;
  memset(&v, 0xa5, sizeof v);
  ck_assert_int_eq(ornic_analysis_add(t->an, &in, &v), ORNIC_ERR_INVALID_ARG);
  ck_assert_uint_eq(v.flags, 0);
  ck_assert_uint_eq(v.conv, 0);
  ck_assert_uint_eq(ornic_analysis_conv_count(t->an), 1);
  ck_assert_uint_eq(ornic_analysis_conv(t->an, 1)->dir[0].req_packets, 1);
  t_free(t);
}
END_TEST

/* Two QP pairs between the same hosts (NCCL): each ACK finds its own pair. */
START_TEST(two_qp_pairs_same_hosts) {
  T *t = t_new(0);
  opt send = {.len = 64};
  for (uint32_t i = 0; i < 10; i++) {
    NO_PROBLEM(feed(t, A, 0x100, ORNIC_OP_RC_SEND_ONLY, 100 + i, &send));
    NO_PROBLEM(feed(t, A, 0x200, ORNIC_OP_RC_SEND_ONLY, 3000000 + i, &send));
  }
  opt ack = ack_msn(10);
  ornic_an_verdict v1 = feed(t, B, 0x101, ORNIC_OP_RC_ACK, 3000009, &ack);
  ornic_an_verdict v2 = feed(t, B, 0x102, ORNIC_OP_RC_ACK, 109, &ack);
  NO_PROBLEM(v1);
  NO_PROBLEM(v2);
  ck_assert_uint_eq(v1.conv, 2);
  ck_assert_uint_eq(v2.conv, 1);
  ck_assert_uint_eq(ornic_analysis_conv(t->an, 1)->qp_a, 0x102);
  ck_assert_uint_eq(ornic_analysis_conv(t->an, 2)->qp_a, 0x101);
  t_free(t);
}
END_TEST

/* Labels and names are stable text. */
START_TEST(labels_and_names) {
  T *t = t_new(0);
  opt send = {.len = 8};
  feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 1, &send);
  char buf[160];
  ornic_an_conv_label(ornic_analysis_conv(t->an, 1), buf, sizeof buf);
  ck_assert_str_eq(buf, "10.0.0.1 QP ? <-> 10.0.0.2 QP 0x000022");
  ornic_an_dir_label(ornic_analysis_conv(t->an, 1), ORNIC_AN_DIR_BA, buf, sizeof buf);
  ck_assert_str_eq(buf, "10.0.0.2 -> 10.0.0.1");
  ck_assert_str_eq(ornic_an_flag_name(ORNIC_AN_NOT_CAPTURED), "not_captured");
  ck_assert_str_eq(ornic_an_flag_name(ORNIC_AN_ACKED_BEFORE_SEEN), "acked_before_seen");
  ck_assert_ptr_null(ornic_an_flag_name(1u << 31));
  ck_assert_uint_eq(ornic_an_ooo_bucket(1), 0);
  ck_assert_uint_eq(ornic_an_ooo_bucket(3), 1);
  ck_assert_uint_eq(ornic_an_ooo_bucket(100000), 7);
  ck_assert_str_eq(ornic_an_ooo_bucket_name(7), "128+");
  t_free(t);
}
END_TEST

/* Labels print addresses as inet_ntop(3) does (the library writes them
 * itself, needing C11 alone): IPv4, and IPv6 with its zero-run compression
 * and embedded IPv4 forms, over edge cases and 3,000 random addresses whose
 * groups are mostly zero. */
START_TEST(labels_match_inet_ntop) {
  static const char *const edge[] = {"::",
                                     "::1",
                                     "1::",
                                     "::ffff:1.2.3.4",
                                     "::1.2.3.4",
                                     "::2:3",
                                     "1:0:0:2:0:0:0:3",
                                     "1:0:0:2::3",
                                     "fe80::1",
                                     "2001:db8::1",
                                     "1:2:3:4:5:6:7:8",
                                     "0:0:1::"};
  T *t = t_new(0);
  opt send = {.len = 8};
  feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 1, &send);
  uint64_t rng = 0x9e3779b97f4a7c15u;
  for (unsigned k = 0; k < 3000 + sizeof edge / sizeof *edge; k++) {
    uint8_t src[16], dst[16] = {0x20, 0x01, 0x0d, 0xb8};
    if (k < sizeof edge / sizeof *edge) {
      ck_assert_int_eq(inet_pton(AF_INET6, edge[k], src), 1);
    } else {
      for (int i = 0; i < 8; i++) {
        rng = rng * 6364136223846793005u + 1442695040888963407u;
        uint16_t g = (rng >> 60) < 10 ? 0 : (uint16_t)(rng >> 33);
        src[2 * i] = (uint8_t)(g >> 8);
        src[2 * i + 1] = (uint8_t)g;
      }
    }
    ornic_an_input in = {.frame = ++t->frame, .f = &t->g, .src = src, .dst = dst, .addr_len = 16};
    ornic_an_verdict v;
    ck_assert_int_eq(ornic_analysis_add(t->an, &in, &v), ORNIC_OK);
    char want[INET6_ADDRSTRLEN], label[160], expect[200];
    ck_assert_ptr_nonnull(inet_ntop(AF_INET6, src, want, sizeof want));
    ornic_an_dir_label(ornic_analysis_conv(t->an, v.conv), ORNIC_AN_DIR_AB, label, sizeof label);
    snprintf(expect, sizeof expect, "%s -> 2001:db8::", want);
    ck_assert_str_eq(label, expect);
  }
  t_free(t);
}
END_TEST

/* ECN CE in the IP header is counted per direction. */
START_TEST(ecn_marks) {
  T *t = t_new(0);
  opt send = {.len = 8, .tos = 3};
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 1, &send);
  ck_assert(v.flags & ORNIC_AN_ECN);
  ck_assert_uint_eq(ornic_analysis_conv(t->an, 1)->dir[0].ecn, 1);
  t_free(t);
}
END_TEST

/* A gap wider than the initial window: the window grows, and the ACK still
 * reports exactly the PSNs not captured. */
START_TEST(window_grows) {
  T *t = t_new(0);
  opt send = {.len = 8};
  for (uint32_t p = 0; p < 3000; p++)
    if (p < 1000 || p > 1999) feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, p, &send);
  opt ack = ack_msn(3000);
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 2999, &ack);
  ck_assert(v.flags & ORNIC_AN_NOT_CAPTURED);
  ck_assert_uint_eq(v.not_captured, 1000);
  ck_assert_uint_eq(v.not_captured_first, 1000);
  t_free(t);
}
END_TEST

/* 8.8: the engine's timing. An RC WRITE of 3 packets at 0, 1 and 2 us, its
 * first two acknowledged at 1.5 us and all at 6 us: an ACK's round trip is
 * from the newest PSN it covers (0.5 and 4 us), the WQE's time from its first
 * packet to the ACK that completes it (6 us); a READ's latency runs
 * from its request to the response Last; a repeated ACK covers nothing new
 * and has no round trip; a clock that steps back gives no time. */
START_TEST(timing_rc_write_and_read) {
  T *t = t_new(1024);
  opt first = {.len = 1024, .va = 0x5000, .rkey = 3, .dmalen = 3072}, mid = {.len = 1024},
      last = {.len = 1024, .ackreq = true}, ack = ack_msn(1);
  t->at_ns = 1000000001000;
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_FIRST, 10, &first);
  ck_assert(!(v.flags & (ORNIC_AN_SINCE_PREV | ORNIC_AN_ACK_RTT | ORNIC_AN_MSG_TIME)));
  t->at_ns += 1000;
  v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_MIDDLE, 11, &mid);
  ck_assert(v.flags & ORNIC_AN_SINCE_PREV);
  ck_assert_uint_eq(v.since_prev_ns, 1000);
  t->at_ns += 500; /* an ACK of PSN 11 (MSN 0: no message yet), 0.5 us after it */
  opt ack0 = ack_msn(0);
  v = feed(t, B, QA, ORNIC_OP_RC_ACK, 11, &ack0);
  ck_assert(v.flags & ORNIC_AN_ACK_RTT);
  ck_assert_uint_eq(v.ack_rtt_ns, 500);
  ck_assert(!(v.flags & ORNIC_AN_MSG_TIME));
  t->at_ns += 500;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_LAST, 12, &last);
  t->at_ns += 4000;
  v = feed(t, B, QA, ORNIC_OP_RC_ACK, 12, &ack);
  ck_assert(v.flags & ORNIC_AN_ACK_RTT);
  ck_assert_uint_eq(v.ack_rtt_ns, 4000);
  ck_assert(v.flags & ORNIC_AN_WQE_DONE);
  ck_assert(v.flags & ORNIC_AN_MSG_TIME);
  ck_assert_uint_eq(v.msg_time_ns, 6000);
  ck_assert_uint_eq(v.since_prev_ns, 4000);
  t->at_ns += 500;
  v = feed(t, B, QA, ORNIC_OP_RC_ACK, 12, &ack); /* the same ACK again */
  ck_assert(!(v.flags & (ORNIC_AN_ACK_RTT | ORNIC_AN_MSG_TIME)));
  /* a READ of 3 packets: request at +10 us, responses 2, 3 and 5 us later */
  opt rd = {.va = 0x9000, .rkey = 4, .dmalen = 3072};
  t->at_ns += 10000;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_READ_REQ, 13, &rd);
  static const uint8_t ops[3] = {ORNIC_OP_RC_RDMA_READ_RESP_FIRST,
                                 ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE,
                                 ORNIC_OP_RC_RDMA_READ_RESP_LAST};
  static const int64_t after[3] = {2000, 1000, 2000};
  for (int i = 0; i < 3; i++) {
    opt r = {.len = 1024, .syndrome = 0x1f, .msn = 2};
    t->at_ns += after[i];
    v = feed(t, B, QA, ops[i], 13 + (uint32_t)i, &r);
    ck_assert_msg(!(v.flags & ORNIC_AN_MSG_TIME) == (i < 2), "response %d: flags 0x%x", i, v.flags);
  }
  ck_assert_uint_eq(v.msg_time_ns, 5000);
  t->at_ns -= 3000; /* the capture's clock steps back */
  v = feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 16, &mid);
  ck_assert(!(v.flags & ORNIC_AN_SINCE_PREV));
  t_free(t);
}
END_TEST

/* An ORNIC WQE whose packets arrive out of order: its time runs from the
 * earliest packet seen (a Spot before the FSpot that reveals the WQE) to the
 * ACK with WQE_DONE; each scheduler ACK's round trip is from the newest PSN
 * it newly covers. */
START_TEST(timing_ornic_sprayed) {
  T *t = t_new(1024);
  opt fspot = {.len = 1024, .va = 0x100000, .rkey = 9, .dmalen = 4 * 1024}, spot = {.len = 1024};
  t->at_ns = 5000000000;
  feed(t, A, QB, ORNIC_OP_OOO_WRITE_FSPOT, 100, &fspot);
  t->at_ns += 100;
  feed(t, A, QB, ORNIC_OP_OOO_WRITE_SPOT, 102, &spot);
  t->at_ns += 100;
  feed(t, A, QB, ORNIC_OP_OOO_WRITE_SPOT, 101, &spot);
  t->at_ns += 1000;
  opt ack = {.syndrome = 0x1f, .msn = 0, .oack = ORNIC_OACK_ADDR_CACHED};
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_ACK, 102, &ack);
  ck_assert(v.flags & ORNIC_AN_ACK_RTT);
  ck_assert_uint_eq(v.ack_rtt_ns, 1100); /* PSN 102, sent 1.1 us before */
  t->at_ns += 100;
  feed(t, A, QB, ORNIC_OP_OOO_WRITE_LAST, 103, &spot);
  t->at_ns += 900;
  opt done = {.syndrome = 0x1f, .msn = 1, .oack = ORNIC_OACK_WQE_DONE};
  v = feed(t, B, QA, ORNIC_OP_ACK, 103, &done);
  ck_assert(v.flags & ORNIC_AN_WQE_DONE);
  ck_assert_uint_eq(v.ack_rtt_ns, 900);
  ck_assert(v.flags & ORNIC_AN_MSG_TIME);
  ck_assert_uint_eq(v.msg_time_ns, 2200);
  t_free(t);
}
END_TEST

/* ---- limits (analysis.h "Memory" and "Work"; docs/RELIABILITY.md "Hostile
 * captures") ---------------------------------------------------------------- */

static ornic_an_limits limits(const T *t) {
  ornic_an_limits l;
  ornic_analysis_limits(t->an, &l);
  return l;
}

/* Two packets, PSN 0 and 16,000: the window does not grow to span the jump
 * (it took 16,384 slots, 512 KiB, before), and the second is still judged. */
START_TEST(window_needs_packets_to_grow) {
  T *t = t_new(0);
  opt send = {.len = 8};
  feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 0, &send);
  uint64_t one = limits(t).memory_used;
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 16000, &send);
  ck_assert(v.flags & ORNIC_AN_SEQ);
  ck_assert_uint_eq(limits(t).memory_used, one);
  ck_assert_uint_lt(one, 64 * 1024); /* the engine with one conversation; 16,001 slots: 512 KiB */
  t_free(t);
}
END_TEST

/* 3,000 packets in order, then a late copy of PSN 100: a window grown by the
 * packets still holds it (a repeat, not a packet from before the capture). */
START_TEST(window_grows_with_packets) {
  T *t = t_new(0);
  opt send = {.len = 8};
  for (uint32_t p = 0; p < 3000; p++) feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, p, &send);
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 100, &send);
  ck_assert(v.flags & (ORNIC_AN_RETRANS | ORNIC_AN_DUP));
  ck_assert_uint_eq(v.first_frame, 101);
  ck_assert_uint_gt(limits(t).memory_used, 3000 * 32);
  t_free(t);
}
END_TEST

/* A budget of 256 KiB: conversations are tracked until it is reached, then
 * refused for memory (not the table), counted; tracked ones go on. */
START_TEST(budget_refuses_new_conversations) {
  ornic_analysis_cfg cfg;
  ornic_analysis_cfg_init(&cfg);
  cfg.max_memory = 256 * 1024;
  T *t = t_new_cfg(cfg);
  opt send = {.len = 8};
  uint32_t tracked = 0, refused = 0;
  for (uint32_t q = 0; q < 200; q++) {
    ornic_an_verdict v = feed(t, A, 0x1000 + q, ORNIC_OP_RC_SEND_ONLY, 5, &send);
    if (v.flags & ORNIC_AN_UNTRACKED) {
      ck_assert(v.flags & ORNIC_AN_OVER_BUDGET);
      ck_assert_uint_eq(v.conv, 0);
      refused++;
    } else {
      ck_assert_uint_eq(v.conv, ++tracked);
    }
  }
  ornic_an_limits l = limits(t);
  ck_assert_uint_gt(tracked, 10);
  ck_assert_uint_eq(refused, 200 - tracked);
  ck_assert_uint_eq(l.untracked_memory, refused);
  ck_assert_uint_eq(l.untracked_table, 0);
  ck_assert_uint_le(l.memory_peak, cfg.max_memory);
  ck_assert_uint_eq(l.memory_budget, cfg.max_memory);
  ornic_an_verdict v = feed(t, A, 0x1000, ORNIC_OP_RC_SEND_ONLY, 6, &send);
  ck_assert_uint_eq(v.conv, 1);
  ck_assert(v.flags & ORNIC_AN_SEQ);
  t_free(t);
}
END_TEST

/* The table's limit is told from the budget's. */
START_TEST(table_full_is_not_budget) {
  ornic_analysis_cfg cfg;
  ornic_analysis_cfg_init(&cfg);
  cfg.max_convs = 2;
  T *t = t_new_cfg(cfg);
  opt send = {.len = 8};
  for (uint32_t q = 0; q < 3; q++) feed(t, A, 0x1000 + q, ORNIC_OP_RC_SEND_ONLY, 5, &send);
  ornic_an_verdict v = feed(t, A, 0x1002, ORNIC_OP_RC_SEND_ONLY, 6, &send);
  ck_assert(v.flags & ORNIC_AN_UNTRACKED);
  ck_assert(!(v.flags & ORNIC_AN_OVER_BUDGET));
  ck_assert_uint_eq(limits(t).untracked_table, 2);
  ck_assert_uint_eq(limits(t).untracked_memory, 0);
  t_free(t);
}
END_TEST

/* READs of 2^32-1 bytes 20,000 PSNs apart: each reserves a whole window. The
 * direction is cut to the smallest window once (WORK_LIMIT), its memory
 * falls back, and every READ is still a READ of its own. */
START_TEST(work_limit_cuts_hostile_reads) {
  T *t = t_new(1024);
  opt rd = {.va = 0x10000, .rkey = 7, .dmalen = 0xffffffffu};
  uint32_t cut = 0;
  for (uint32_t i = 0; i < 64; i++) {
    ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_OOO_READ_REQ, i * 20000, &rd);
    ck_assert(v.flags & ORNIC_AN_NEW_WQE);
    cut += (v.flags & ORNIC_AN_WORK_LIMIT) != 0;
  }
  ck_assert_uint_eq(cut, 1);
  ck_assert_uint_eq(limits(t).work_limited, 1);
  ck_assert_uint_lt(limits(t).memory_used, 64 * 1024); /* a window of 16,384 slots: 512 KiB */
  t_free(t);
}
END_TEST

/* An RC NAK for a PSN far past anything sent (a NAK of another PSN space)
 * does not move the window there: the requests after it are still judged. */
START_TEST(nak_far_ahead_keeps_window) {
  T *t = t_new(0);
  opt send = {.len = 8};
  for (uint32_t p = 100; p < 110; p++) feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, p, &send);
  opt nak = {.syndrome = ORNIC_AETH_NAK_PSN_SEQ};
  feed(t, B, QA, ORNIC_OP_RC_ACK, 100 + 8000000, &nak);
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_SEND_ONLY, 110, &send);
  ck_assert(v.flags & ORNIC_AN_SEQ);
  ck_assert(!(v.flags & ORNIC_AN_BEFORE_CAPTURE));
  t_free(t);
}
END_TEST

/* Capture times 2^63 ns apart (a damaged pcapng): the lag of an
 * out-of-order arrival is a difference of them; no overflow (the UBSan build
 * fails on one), and the arrival is still out of order. */
START_TEST(lag_of_times_far_apart) {
  T *t = t_new(1024);
  opt w = {.len = 1024, .va = 0x10000, .rkey = 7, .dmalen = 1u << 20};
  t->at_ns = INT64_MAX - 1000;
  w.offset = 10 * 1024;
  feed(t, A, QB, ORNIC_OP_OOO_WRITE_FSPOT, 10, &w);
  t->at_ns = INT64_MIN + 1000; /* what 2^63 ns later wraps to */
  w.offset = 5 * 1024;
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_OOO_WRITE_FSPOT, 5, &w);
  ck_assert(v.flags & ORNIC_AN_OOO);
  t_free(t);
}
END_TEST

/* 8.6: a capture that begins at a message boundary, not the QP's first
 * message (WQE 2 onward: the MSN before it is 1). The first ACK covers four
 * captured messages with MSN 5: more than the messages captured up to its
 * PSN, so the MSN is a base, not a count from 0 (four completions would be
 * claimed as five). */
START_TEST(first_msn_after_mid_stream_start) {
  T *t = t_new(1024);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  for (uint32_t p = 10; p < 15; p++) feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
  opt ack = ack_msn(5);
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 13, &ack);
  NO_PROBLEM(v);
  ck_assert(!(v.flags & ORNIC_AN_WQE_DONE));
  ack = ack_msn(6);
  v = feed(t, B, QA, ORNIC_OP_RC_ACK, 14, &ack);
  ck_assert_uint_eq(v.msn_delta, 1);
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->dir[0].wqes_done, 1);
  t_free(t);
}
END_TEST

/* A held judgement (8.5) whose ACK is 2^63 ns from the packets after it:
 * the wait is measured without overflow (UBSan aborts on the signed
 * difference), and a clock that stepped back does not end it. */
START_TEST(hold_of_times_far_apart) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64}, ack = ack_msn(10);
  t->at_ns = INT64_MIN + 1000;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &only);
  feed(t, B, QA, ORNIC_OP_RC_ACK, 9, &ack); /* PSNs 1-9 held */
  t->at_ns = INT64_MAX - 1000;              /* 2^63 ns later, as a signed difference */
  for (uint32_t p = 1; p < 100; p++) feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 20 + p, &only);
  t->at_ns = INT64_MIN + 2000;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 200, &only);
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->dir[0].not_captured, 9);
  t_free(t);
}
END_TEST

/* 8.6: a direction captured from its first message (perftest write_bw: the
 * first WQE at the QP's first PSN, 0): the MSN before the first ACK is 0, so
 * the first ACK completes the first WQE and times it. */
START_TEST(first_completion_counted) {
  T *t = t_new(1024);
  opt first = {.len = 1024, .va = 0x1000, .rkey = 1, .dmalen = 2048}, last = {.len = 1024};
  for (uint32_t k = 0; k < 5; k++) {
    ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_FIRST, 2 * k, &first);
    ck_assert(v.flags & ORNIC_AN_NEW_WQE);
    feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_LAST, 2 * k + 1, &last);
    opt ack = ack_msn(k + 1);
    v = feed(t, B, QA, ORNIC_OP_RC_ACK, 2 * k + 1, &ack);
    NO_PROBLEM(v);
    ck_assert_msg(v.flags & ORNIC_AN_WQE_DONE, "ACK of WQE %u: flags 0x%x", k + 1, v.flags);
    ck_assert_uint_eq(v.wqe_completed, k + 1);
    ck_assert_uint_eq(v.msn_delta, 1);
    ck_assert(v.flags & ORNIC_AN_MSG_TIME);
  }
  const ornic_an_conv *c = ornic_analysis_conv_final(t->an, 1);
  ck_assert_uint_eq(c->dir[0].wqes, 5);
  ck_assert_uint_eq(c->dir[0].wqes_done, 5);
  t_free(t);
}
END_TEST

/* 8.6: a capture that starts mid-stream at a message boundary: the first
 * ACK's MSN (1000) counts more messages than the capture saw start, so it is
 * only the base, and the completions counted are those after it. */
START_TEST(first_msn_base_mid_stream) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  for (uint32_t k = 0; k < 5; k++) {
    feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 500 + k, &only);
    opt ack = ack_msn(1000 + k);
    ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 500 + k, &ack);
    NO_PROBLEM(v);
    ck_assert(!(v.flags & ORNIC_AN_WQE_DONE) == (k == 0));
  }
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->dir[0].wqes_done, 4);
  t_free(t);
}
END_TEST

/* 8.6: the first request captured is a Middle: the capture started inside
 * a message, the MSN before it is unknown, the first ACK only the base. */
START_TEST(first_msn_base_inside_message) {
  T *t = t_new(1024);
  opt mid = {.len = 1024}, last = {.len = 1024}, ack = ack_msn(1);
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_MIDDLE, 7, &mid);
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_LAST, 8, &last);
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 8, &ack);
  NO_PROBLEM(v);
  ck_assert(!(v.flags & (ORNIC_AN_MSN | ORNIC_AN_WQE_DONE)));
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->dir[0].wqes_done, 0);
  t_free(t);
}
END_TEST

/* 8.5: a host capture writes the host's transmitted requests up to tens of
 * us after the ACK that answers them. The ACK covers PSNs 5-9 not yet in
 * the file; they arrive 2-10 us later: no gap, five reorderings counted, and
 * each is acknowledged in the ACK's frame. */
START_TEST(late_tx_requests_not_a_gap) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  t->at_ns = 1000000;
  for (uint32_t p = 0; p < 5; p++) {
    t->at_ns += 1000;
    NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only));
  }
  t->at_ns += 1000;
  opt ack = ack_msn(10);
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 9, &ack);
  uint64_t ack_frame = t->frame;
  NO_PROBLEM(v);
  for (uint32_t p = 5; p < 10; p++) {
    t->at_ns += 2000;
    v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
    NO_PROBLEM(v);
    ck_assert(v.flags & ORNIC_AN_ACKED_BEFORE_SEEN);
    ck_assert_uint_eq(t->acked_by[t->nacked - 1], ack_frame);
    ck_assert_uint_eq(t->acked_data[t->nacked - 1], t->frame);
  }
  for (uint32_t k = 0; k < 100; k++) { /* long after the hold: nothing left to judge */
    t->at_ns += 10000;
    NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 10 + k, &only));
  }
  const ornic_an_conv *c = ornic_analysis_conv_final(t->an, 1);
  ck_assert_uint_eq(c->dir[0].not_captured, 0);
  ck_assert_uint_eq(c->acked_before_seen[0], 5);
  ck_assert_uint_eq(c->acked_before_seen[1], 0);
  t_free(t);
}
END_TEST

/* 8.5: the hold ends once 50 us and 64 packets of the direction have
 * passed since the ACK: requests still missing then were not captured, said
 * on the packet that ends it. Here the packets pass first, then the time. */
START_TEST(late_tx_hold_expires_in_time) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64}, ack = ack_msn(10);
  t->at_ns = 1000000;
  for (uint32_t p = 0; p < 5; p++) feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
  t->at_ns += 1000;
  NO_PROBLEM(feed(t, B, QA, ORNIC_OP_RC_ACK, 9, &ack));
  for (uint32_t p = 5; p < 8; p++)
    NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only));
  for (uint32_t k = 0; k < 70; k++) /* 73 packets, the same time */
    NO_PROBLEM_BUT_GAP(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 10 + k, &only));
  t->at_ns += 50000; /* 50 us after the ACK: still within (the gap 8-9 before PSN 10 is said) */
  NO_PROBLEM_BUT_GAP(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 80, &only));
  t->at_ns += 1;
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 81, &only);
  ck_assert(v.flags & ORNIC_AN_NOT_CAPTURED);
  ck_assert_uint_eq(v.not_captured_first, 8);
  ck_assert_uint_eq(v.not_captured, 2);
  const ornic_an_conv *c = ornic_analysis_conv_final(t->an, 1);
  ck_assert_uint_eq(c->dir[0].not_captured, 2);
  ck_assert_uint_eq(c->acked_before_seen[0], 3);
  t_free(t);
}
END_TEST

/* 8.5: ... here the time passes first (a slow conversation), then the
 * packets: the 65th packet after the ACK ends the hold. */
START_TEST(late_tx_hold_expires_in_packets) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64}, ack = ack_msn(3);
  t->at_ns = 1000000;
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &only);
  NO_PROBLEM(feed(t, B, QA, ORNIC_OP_RC_ACK, 2, &ack)); /* PSNs 1-2 not yet seen */
  for (uint32_t k = 0; k < 64; k++) { /* 1 ms apart: only the packets still count */
    t->at_ns += 1000000;
    NO_PROBLEM_BUT_GAP(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 100 + k, &only));
  }
  ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 164, &only);
  ck_assert(v.flags & ORNIC_AN_NOT_CAPTURED);
  ck_assert_uint_eq(v.not_captured_first, 1);
  ck_assert_uint_eq(v.not_captured, 2);
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, 1)->acked_before_seen[0], 0);
  t_free(t);
}
END_TEST

/* 8.5: many ACKs held at once (more than the engine keeps apart): each
 * ACK's late requests still arrive unflagged, and a request the capture
 * really missed is still reported, once the hold of its ACK is over. */
START_TEST(late_tx_many_acks_held) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64};
  t->at_ns = 1000000;
  NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &only));
  /* 40 ACKs, each 100 ns apart, for PSNs 1 .. 40 not yet written */
  for (uint32_t k = 1; k <= 40; k++) {
    t->at_ns += 100;
    opt ack = ack_msn(k + 1);
    NO_PROBLEM(feed(t, B, QA, ORNIC_OP_RC_ACK, k, &ack));
  }
  /* the requests, 4 us late; PSN 33 never written. Requests are written in
   * order: once PSN 40 is in, 33 is missing, not late, and said there. */
  for (uint32_t p = 1; p <= 40; p++) {
    t->at_ns += 100;
    if (p == 33) continue;
    ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only);
    if (p < 40) {
      NO_PROBLEM_BUT_GAP(v);
      continue;
    }
    ck_assert_uint_eq(v.flags & ORNIC_AN_PROBLEMS, ORNIC_AN_NOT_CAPTURED);
    ck_assert_uint_eq(v.not_captured_first, 33);
    ck_assert_uint_eq(v.not_captured, 1);
  }
  for (uint32_t k = 0; k < 200; k++) { /* nothing held is left but the gap before 34 (8.5) */
    t->at_ns += 1000;
    ornic_an_verdict v = feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 41 + k, &only);
    NO_PROBLEM_BUT_GAP(v);
    if (v.flags & ORNIC_AN_PREV_NOT_CAPTURED) {
      ck_assert_uint_eq(v.hole_first, 33);
      ck_assert_uint_eq(v.hole_count, 1);
    }
  }
  const ornic_an_conv *c = ornic_analysis_conv_final(t->an, 1);
  ck_assert_uint_eq(c->dir[0].not_captured, 1);
  ck_assert_uint_eq(c->acked_before_seen[0], 39);
  t_free(t);
}
END_TEST

/* 8.1: host A speaks RoCEv1 with IPv4-mapped GIDs, its peer answers in
 * RoCEv2 from the IPv4 address: one QP pair, paired, noted as mixed. */
START_TEST(rocev1_and_v2_halves_pair) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64, .rocev1 = true};
  ornic_an_verdict v;
  for (uint32_t p = 0; p < 4; p++)
    NO_PROBLEM(feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, p, &only));
  ck_assert_uint_eq(t->g.l3, ORNIC_L3_GRH); /* the helper built RoCEv1 */
  opt ack = ack_msn(4);
  v = feed(t, B, QA, ORNIC_OP_RC_ACK, 3, &ack);
  ck_assert_uint_eq(t->g.l3, ORNIC_L3_IPV4);
  NO_PROBLEM(v);
  ck_assert_uint_eq(v.conv, 1); /* the ACK joins A's conversation (8.1 pairing) */
  ck_assert_uint_eq(v.ack_newly, 4);
  const ornic_an_conv *c = ornic_analysis_conv_final(t->an, v.conv);
  ck_assert_uint_eq(c->id, 1);
  ck_assert(c->qp_a_known);
  ck_assert_uint_eq(c->qp_a, QA);
  ck_assert_uint_eq(c->addr_len, 4);
  ck_assert_uint_eq(c->a[3], 1);
  ck_assert_uint_eq(c->roce_versions, ORNIC_AN_ROCE_V1 | ORNIC_AN_ROCE_V2);
  ck_assert_uint_eq(c->dir[0].wqes_done, 4);
  char label[128];
  ornic_an_conv_label(c, label, sizeof label);
  ck_assert_str_eq(label, "10.0.0.1 QP 0x000011 <-> 10.0.0.2 QP 0x000022");
  t_free(t);
}
END_TEST

/* Only v2 seen: no mixing noted. */
START_TEST(rocev2_only_not_mixed) {
  T *t = t_new(0);
  opt only = {.len = 64, .va = 0x1000, .rkey = 1, .dmalen = 64}, ack = ack_msn(1);
  feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_ONLY, 0, &only);
  ornic_an_verdict v = feed(t, B, QA, ORNIC_OP_RC_ACK, 0, &ack);
  ck_assert_uint_eq(ornic_analysis_conv_final(t->an, v.conv)->roce_versions, ORNIC_AN_ROCE_V2);
  t_free(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("analysis");
  TCase *tc = tcase_create("rules");
  tcase_add_test(tc, ping_pong_two_psn_spaces);
  tcase_add_test(tc, pipelined_reads_learnt_pmtu);
  tcase_add_test(tc, pipelined_reads_known_pmtu);
  tcase_add_test(tc, writes_both_ways);
  tcase_add_test(tc, capture_starts_mid_stream);
  tcase_add_test(tc, acked_unseen_is_not_captured);
  tcase_add_test(tc, ornic_nak_loss_retransmission);
  tcase_add_test(tc, ornic_nak_at_requester_tap);
  tcase_add_test(tc, ornic_nak_lost_set_ignores_cfg_otd);
  tcase_add_test(tc, ornic_stale_ack_is_information);
  tcase_add_test(tc, rc_go_back_n);
  tcase_add_test(tc, read_retry_fills_holes);
  tcase_add_test(tc, read_resent_by_go_back_n_proves_nothing);
  tcase_add_test(tc, read_retry_proves_only_its_first_psn);
  tcase_add_test(tc, read_retry_at_requester_tap);
  tcase_add_test(tc, read_retry_sprayed_proves_nothing);
  tcase_add_test(tc, merged_direction_keeps_its_port);
  tcase_add_test(tc, nak_after_counted_copy_counts_nothing);
  tcase_add_test(tc, vendor_opcodes_not_analysed);
  tcase_add_test(tc, two_qp_pairs_same_hosts);
  tcase_add_test(tc, no_bth_is_refused);
  tcase_add_test(tc, labels_and_names);
  tcase_add_test(tc, labels_match_inet_ntop);
  tcase_add_test(tc, ecn_marks);
  tcase_add_test(tc, window_grows);
  tcase_add_test(tc, timing_rc_write_and_read);
  tcase_add_test(tc, timing_ornic_sprayed);
  tcase_add_test(tc, first_completion_counted);
  tcase_add_test(tc, first_msn_base_mid_stream);
  tcase_add_test(tc, first_msn_base_inside_message);
  tcase_add_test(tc, late_tx_requests_not_a_gap);
  tcase_add_test(tc, late_tx_hold_expires_in_time);
  tcase_add_test(tc, late_tx_hold_expires_in_packets);
  tcase_add_test(tc, late_tx_many_acks_held);
  tcase_add_test(tc, rocev1_and_v2_halves_pair);
  tcase_add_test(tc, rocev2_only_not_mixed);
  suite_add_tcase(s, tc);
  TCase *lim = tcase_create("limits");
  tcase_add_test(lim, window_needs_packets_to_grow);
  tcase_add_test(lim, window_grows_with_packets);
  tcase_add_test(lim, budget_refuses_new_conversations);
  tcase_add_test(lim, table_full_is_not_budget);
  tcase_add_test(lim, work_limit_cuts_hostile_reads);
  tcase_add_test(lim, nak_far_ahead_keeps_window);
  tcase_add_test(lim, lag_of_times_far_apart);
  tcase_add_test(lim, hold_of_times_far_apart);
  tcase_add_test(lim, first_msn_after_mid_stream_start);
  suite_add_tcase(s, lim);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
