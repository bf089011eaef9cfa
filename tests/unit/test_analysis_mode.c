/* SPDX-License-Identifier: MIT */
/* The conversation analysis learns how an RC requester answers a PSN
 * sequence error NAK (docs/PROTOCOL.md 8.6, "go-back-N or selective"), and
 * two small artefacts of the first responses: the first ACK counted from the
 * lowest request PSN, and a NAK before the first request captured. */
#include "an_feed.h"

/* WRITE Middles from host A over two UDP source ports (sprayed), OTD 4. */
static opt mid(uint32_t psn) {
  return (opt){.len = 1024, .sport = (uint16_t)(psn & 1 ? 49153 : 49152)};
}
static ornic_an_verdict req(T *t, uint32_t psn) {
  opt o = mid(psn);
  return feed(t, A, QB, ORNIC_OP_RC_RDMA_WRITE_MIDDLE, psn, &o);
}
static ornic_an_verdict nak(T *t, uint32_t psn) {
  opt o = {.syndrome = ORNIC_AETH_NAK_PSN_SEQ};
  return feed(t, B, QA, ORNIC_OP_RC_ACK, psn, &o);
}
static ornic_an_verdict ack(T *t, uint32_t psn) {
  opt o = ack_msn(0);
  return feed(t, B, QA, ORNIC_OP_RC_ACK, psn, &o);
}
/* Requests from..to, leaving out `skip` (and `skip2`). */
static void reqs(T *t, uint32_t from, uint32_t to, uint32_t skip, uint32_t skip2) {
  for (uint32_t p = from; p <= to; p++)
    if (p != skip && p != skip2) NO_PROBLEM(req(t, p));
}

/* LEFT / IRN: the NAK at 110 is answered by 110 alone, then new data. A PSN
 * of the NAK's tail that arrives late is out of order, before the mode is
 * known (nothing proves it was sent twice) and after (selective). A go-back-N
 * reading would take each for a retransmission (it lags 14 and 60 PSNs behind,
 * past the reordering seen) and flag a loss. */
START_TEST(selective_requester_learnt) {
  T *t = t_new_otd(1024, 4);
  reqs(t, 100, 139, 110, 125);
  ornic_an_verdict v = nak(t, 110);
  ck_assert(v.flags & ORNIC_AN_NAK);
  v = req(t, 125); /* late original of the tail, the mode still unknown */
  NO_PROBLEM(v);
  ck_assert(v.flags & ORNIC_AN_OOO);
  v = req(t, 110); /* the copy the NAK asked for */
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  reqs(t, 140, 179, 0, 0);   /* new data, no repeat of 111..139 */
  NO_PROBLEM(ack(t, 170));   /* covers the tail: selective */
  reqs(t, 180, 240, 190, 0); /* 190 held back */
  nak(t, 185);               /* a second NAK: asks for 185 alone */
  v = req(t, 190);           /* 50 behind the highest: still only late */
  NO_PROBLEM(v);
  ck_assert(v.flags & ORNIC_AN_OOO);
  ck_assert_uint_eq(ornic_analysis_conv(t->an, 1)->dir[0].retrans, 1);
  /* Once known, the mode stays: two timeouts resending 246 and 247 after
   * the NAK at 245 do not make the requester go-back-N. */
  reqs(t, 241, 320, 250, 0);
  nak(t, 245);
  ck_assert(req(t, 246).flags & ORNIC_AN_RETRANS);
  ck_assert(req(t, 247).flags & ORNIC_AN_RETRANS);
  v = req(t, 250); /* 70 behind the highest */
  NO_PROBLEM(v);
  ck_assert(v.flags & ORNIC_AN_OOO);
  t_free(t);
}
END_TEST

/* IBA RC: after the NAK at 110 the requester sends 110, 111, 112, ... again.
 * Two repeats of the tail prove go-back-N; from then on a NAK asks for its
 * whole tail, and a tail PSN first seen after it, 40 behind the highest, is
 * the copy the NAK asked for (its original lost): a retransmission and a
 * loss. Before the mode was known it would have been out of order. */
START_TEST(goback_requester_learnt) {
  T *t = t_new_otd(1024, 4);
  reqs(t, 100, 139, 0, 0);
  nak(t, 110);
  for (uint32_t p = 110; p <= 139; p++) ck_assert(req(t, p).flags & ORNIC_AN_RETRANS);
  reqs(t, 140, 240, 200, 0); /* 200 lost */
  nak(t, 190);               /* 190 lost too (its NAK came first, say) */
  for (uint32_t p = 190; p <= 240; p++) {
    ornic_an_verdict v = req(t, p);
    ck_assert_msg(v.flags & ORNIC_AN_RETRANS, "PSN %u", p);
    ck_assert_msg(!(v.flags & ORNIC_AN_LOSS) == (p != 200), "PSN %u", p); /* 200: first seen now */
  }
  ck_assert_uint_eq(ornic_analysis_conv(t->an, 1)->dir[0].retrans, 30 + 51);
  t_free(t);
}
END_TEST

/* The same go-back-N resend, where the tail's copy 125 is the first the
 * capture sees of it: once the mode is learnt, the rest of the tail is asked
 * for, and 125 is the retransmission it is, not a late original. */
START_TEST(goback_learnt_asks_rest_of_tail) {
  T *t = t_new_otd(1024, 4);
  reqs(t, 100, 139, 125, 0);
  nak(t, 110);
  for (uint32_t p = 110; p <= 124; p++) ck_assert(req(t, p).flags & ORNIC_AN_RETRANS);
  ornic_an_verdict v = req(t, 125);
  ck_assert(v.flags & ORNIC_AN_RETRANS);
  ck_assert(v.flags & ORNIC_AN_LOSS);
  t_free(t);
}
END_TEST

/* Sprayed, the first request captured (101) is not the lowest (100): the
 * first ACK, at 100, acknowledges 100, it is no duplicate ACK. */
START_TEST(first_ack_from_lowest_psn) {
  T *t = t_new(1024);
  req(t, 101);
  req(t, 100);
  ornic_an_verdict v = ack(t, 100);
  ck_assert(v.flags & ORNIC_AN_ACK);
  ck_assert_uint_eq(v.ack_newly, 1);
  t_free(t);
}
END_TEST

/* IRN's first NACK, at 414, after the first request captured, 417 (the
 * packets before it took other paths): one source port so far, but 414 is
 * before the capture's first request: no loss is proven. */
START_TEST(nak_before_first_request_proves_nothing) {
  T *t = t_new_otd(1024, 4);
  req(t, 417);
  ornic_an_verdict v = nak(t, 414);
  ck_assert(v.flags & ORNIC_AN_NAK);
  ck_assert(!(v.flags & ORNIC_AN_LOSS));
  t_free(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("analysis_mode");
  TCase *tc = tcase_create("mode");
  tcase_add_test(tc, selective_requester_learnt);
  tcase_add_test(tc, goback_requester_learnt);
  tcase_add_test(tc, goback_learnt_asks_rest_of_tail);
  tcase_add_test(tc, first_ack_from_lowest_psn);
  tcase_add_test(tc, nak_before_first_request_proves_nothing);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
