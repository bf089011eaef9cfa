/* SPDX-License-Identifier: MIT */
/* The unit tests' way to feed the conversation analysis: a packet from host
 * A or B to a QP, built with the encoder and read back with the decoder, so
 * the engine sees what a tool would give it (test_analysis.c,
 * test_analysis_report.c). Static functions: each test program has its own. */
#ifndef AN_FEED_H
#define AN_FEED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define A 0
#define B 1
#define QA 0x000011u /* host A's QP */
#define QB 0x000022u /* host B's QP */

typedef struct {
  uint32_t len; /* payload bytes */
  bool ackreq;
  uint64_t va; /* RETH */
  uint32_t dmalen, rkey;
  uint32_t offset;  /* OFFETH */
  uint8_t syndrome; /* AETH */
  uint32_t msn;
  uint8_t oack;       /* OACKETH flags */
  uint8_t nak_reason; /* NAKETH: reason, trigger, limit, blocks (host order) */
  uint32_t nak_trigger, nak_limit;
  uint8_t nak_nblocks;
  uint16_t nak_blocks[8];
  uint8_t tos;
  uint16_t sport; /* UDP source port; 0: the encoder's default */
  bool rocev1;    /* RoCEv1 (EtherType 0x8915, GRH) with IPv4-mapped GIDs of the hosts */
} opt;

typedef struct {
  ornic_analysis *an;
  uint64_t frame;
  uint8_t buf[9100], payload[4096], bitmap[16];
  ornic_frame g;
  uint64_t acked_data[64], acked_by[64];
  unsigned nacked;
  int64_t at_ns; /* the next packet's capture time in ns; 0: its frame number in seconds */
} T;

static void on_acked(void *user, uint64_t data_frame, uint64_t ack_frame) {
  T *t = user;
  if (t->nacked < 64) {
    t->acked_data[t->nacked] = data_frame;
    t->acked_by[t->nacked++] = ack_frame;
  }
}

static T *t_new_cfg(ornic_analysis_cfg cfg) {
  T *t = calloc(1, sizeof *t);
  cfg.on_acked = on_acked;
  cfg.user = t;
  t->an = ornic_analysis_new(&cfg);
  ck_assert_ptr_nonnull(t->an);
  return t;
}

static T *t_new_otd(uint32_t pmtu, uint32_t otd) {
  ornic_analysis_cfg cfg;
  ornic_analysis_cfg_init(&cfg);
  cfg.pmtu = pmtu;
  if (otd) cfg.otd = otd;
  return t_new_cfg(cfg);
}

static T *t_new(uint32_t pmtu) { return t_new_otd(pmtu, 0); }

static void t_free(T *t) {
  ornic_analysis_free(t->an);
  free(t);
}

/* Host `from` sends opcode op with psn to QP qp of the other host. */
static ornic_an_verdict feed(T *t, int from, uint32_t qp, uint8_t op, uint32_t psn, const opt *o) {
  static const opt none;
  if (!o) o = &none;
  ornic_frame f;
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, o->rocev1 ? 6 : 4);
  if (o->rocev1) { /* ::ffff:10.0.0.x, as a RoCEv1 host of 10.0.0.x names itself */
    static const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 0};
    f.l3 = ORNIC_L3_GRH;
    memcpy(f.ip.src, mapped, 16);
    memcpy(f.ip.dst, mapped, 16);
    f.ip.src[15] = from == A ? 1 : 2;
    f.ip.dst[15] = from == A ? 2 : 1;
  } else {
    f.ip.src[3] = from == A ? 1 : 2;
    f.ip.dst[3] = from == A ? 2 : 1;
  }
  f.ip.tos = o->tos;
  if (o->sport) f.udp.sport = o->sport;
  f.bth.opcode = op;
  f.bth.destqp = qp;
  f.bth.psn = psn & ORNIC_PSN_MASK;
  f.bth.ackreq = o->ackreq;
  f.ext.reth = (ornic_reth){o->va, o->rkey, o->dmalen};
  f.ext.offeth.offset = o->offset;
  f.ext.aeth = (ornic_aeth){o->syndrome, o->msn};
  f.ext.oacketh.flags = o->oack;
  if (o->nak_nblocks) {
    ornic_naketh_bitmap_pack(t->bitmap, o->nak_blocks, o->nak_nblocks);
    f.ext.naketh = (ornic_naketh){o->nak_reason, o->nak_trigger, o->nak_nblocks, psn, 0,
                                  o->nak_limit,  t->bitmap};
  }
  f.payload = t->payload;
  f.payload_len = o->len;
  ornic_ssize n = ornic_frame_encode(t->buf, sizeof t->buf, &f);
  ck_assert_int_gt(n, 0);
  ck_assert_int_eq(
      ornic_frame_decode(&t->g, t->buf, (size_t)n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT),
      ORNIC_OK);
  ornic_an_input in = {.frame = ++t->frame, .sec = (int64_t)t->frame, .f = &t->g};
  if (t->at_ns) {
    in.sec = t->at_ns / 1000000000;
    in.nsec = (uint32_t)(t->at_ns % 1000000000);
  }
  ornic_an_verdict v;
  ck_assert_int_eq(ornic_analysis_add(t->an, &in, &v), ORNIC_OK);
  return v;
}

static opt ack_msn(uint32_t msn) { return (opt){.syndrome = 0x1f, .msn = msn}; }

/* The verdict once (a macro would feed its argument twice). */
static inline void no_problem_but(ornic_an_verdict v, uint32_t allowed, int line) {
  ck_assert_msg((v.flags & ORNIC_AN_PROBLEMS & ~allowed) == 0, "line %d: frame flags 0x%x", line,
                v.flags);
}
#define NO_PROBLEM(v) no_problem_but((v), 0, __LINE__)
/* A request after PSNs the capture lacks says so (8.5), and nothing else. */
#define NO_PROBLEM_BUT_GAP(v) no_problem_but((v), ORNIC_AN_PREV_NOT_CAPTURED, __LINE__)

#endif
