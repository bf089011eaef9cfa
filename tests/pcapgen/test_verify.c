/* SPDX-License-Identifier: MIT */
/* The end-to-end integrity check that verifies each packet as it is placed
 * (pcapgen/workload/verify.h, issue 18): the verifier alone (wrong byte, wrong
 * length, a packet twice, a packet missing, reuse from WQE to WQE), then
 * every receiver that uses it, inside the simulator through its test hook
 * (sim_inject): a WRITE packet of QP 0's first WQE, honest or with one
 * payload byte changed, handed to the responder of each profile, and a READ
 * response handed to the ORNIC requester. An honest WQE is counted in
 * "WQEs verified"; one wrong byte stops the run with an integrity failure
 * that names the byte. */
#include "../check_fast.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pattern.h"
#include "profile.h"
#include "sim.h"
#include "sim_config.h"
#include "stats.h"
#include "verify.h"
#include "workload.h"
#include "writer.h"

#define PMTU 1024u
#define KEY 0x1234567890abcdefull
#define ADDR 0x7f0000010000ull

/* The source bytes of packet idx of a WQE of len bytes at ADDR. */
static size_t source(uint8_t *buf, uint64_t len, uint32_t idx) {
  uint64_t off = (uint64_t)idx * PMTU;
  size_t n = len - off < PMTU ? (size_t)(len - off) : PMTU;
  pattern_fill(buf, KEY, ADDR + off, n);
  return n;
}

START_TEST(verifier_alone) {
  wqe_verify v;
  uint8_t buf[PMTU];
  uint64_t bad = 0;
  wv_init(&v);
  /* 3000 bytes: packets of 1024, 1024 and 952, placed out of order. */
  ck_assert_int_eq(wv_start(&v, KEY, ADDR, 3000, PMTU), 0);
  ck_assert_uint_eq(v.n, 3);
  size_t n = source(buf, 3000, 2);
  ck_assert_int_eq(wv_place(&v, 2, buf, n, &bad), WV_OK);
  ck_assert(!wv_complete(&v));
  n = source(buf, 3000, 0);
  ck_assert_int_eq(wv_place(&v, 0, buf, n, &bad), WV_OK);
  ck_assert_int_eq(wv_place(&v, 0, buf, n, &bad), WV_TWICE);
  /* A changed byte, then a packet one byte short. */
  n = source(buf, 3000, 1);
  buf[700] ^= 0x40;
  ck_assert_int_eq(wv_place(&v, 1, buf, n, &bad), WV_BAD);
  ck_assert_uint_eq(bad, 1024 + 700);
  buf[700] ^= 0x40;
  ck_assert_int_eq(wv_place(&v, 1, buf, n - 1, &bad), WV_BAD); /* one byte short */
  ck_assert_uint_eq(bad, 1024 + 1023);
  ck_assert_int_eq(wv_place(&v, 3, buf, n, &bad), WV_BAD); /* past the end */
  ck_assert(!wv_complete(&v));
  ck_assert_int_eq(wv_place(&v, 1, buf, n, &bad), WV_OK);
  ck_assert(wv_complete(&v));
  /* The next WQE starts clean, in the same bits. */
  ck_assert_int_eq(wv_start(&v, KEY, ADDR, 3000, PMTU), 0);
  ck_assert(!wv_complete(&v));
  n = source(buf, 3000, 0);
  ck_assert_int_eq(wv_place(&v, 0, buf, n, &bad), WV_OK);
  /* Another QP's memory (key) is not this one's. */
  ck_assert_int_eq(wv_start(&v, KEY + 1, ADDR, 3000, PMTU), 0);
  ck_assert_int_eq(wv_place(&v, 0, buf, n, &bad), WV_BAD);
  ck_assert_uint_eq(bad, 0);
  wv_free(&v);
}
END_TEST

/* ---- inside the simulator ------------------------------------------------------ */

typedef struct {
  sim_config cfg;
  stats st;
  writer *w;
  sim *s;
  const profile_engines *pe;
  void *e;
} run;

/* A run of one WQE of `wqe_size` bytes on QP 0, PMTU 1024, no loss, under
 * profile `name` (NULL: the default), built without the command line; its
 * engines created and started (QP 0 posted its WQE), nothing simulated. */
static void run_open(run *r, const char *name, op_kind op, uint64_t wqe_size) {
  memset(r, 0, sizeof *r);
  sim_config_defaults(&r->cfg);
  if (name) r->cfg.profile = profile_find(name);
  ck_assert(r->cfg.profile != NULL);
  r->cfg.workload.op = op;
  r->cfg.workload.wqes = 1;
  r->cfg.workload.wqe_size = wqe_size;
  r->cfg.workload.pmtu = 1024;
  r->cfg.fabric.loss = 0;
  char err[256];
  r->w = writer_open("/dev/null", FMT_PCAP, 0, 1, err, sizeof err);
  ck_assert_msg(r->w != NULL, "%s", err);
  r->s = sim_new(&r->cfg, &r->st, r->w, err, sizeof err);
  ck_assert_msg(r->s != NULL, "%s", err);
  r->pe = r->cfg.profile->engines;
  r->e = r->pe->create(r->s, &r->cfg);
  ck_assert(r->e != NULL);
  r->pe->start(r->e);
  ck_assert(!sim_failed(r->s));
}

static void run_close(run *r) {
  r->pe->destroy(r->e);
  sim_free(r->s);
  writer_abort(r->w);
}

/* Encodes f with packet idx of QP 0's first WQE as its payload, `flip`
 * XORed into payload byte `at`, and hands it to `node`. */
static void inject(run *r, int node, ornic_frame *f, uint32_t idx, size_t at, uint8_t flip) {
  uint64_t len = wl_wqe_len(&r->cfg, 0, 0), off = (uint64_t)idx * r->cfg.workload.pmtu;
  uint8_t payload[4096], frame[4096 + 256];
  size_t n = len - off < r->cfg.workload.pmtu ? (size_t)(len - off) : r->cfg.workload.pmtu;
  pattern_fill(payload, wl_key(&r->cfg, 0), wl_va(&r->cfg, 0, 0) + off, n);
  payload[at] ^= flip;
  f->payload = payload;
  f->payload_len = n;
  ornic_ssize flen = ornic_frame_encode(frame, sizeof frame, f);
  ck_assert_int_gt(flen, 0);
  ck_assert_int_eq(sim_inject(r->s, node, frame, (size_t)flen), ORNIC_OK);
}

/* Packet idx of QP 0's first WQE (PMTU 1024, 2 packets) as `profile` sends it. */
static void write_packet(run *r, ornic_frame *f, uint32_t idx, bool ornic) {
  uint64_t off = (uint64_t)idx * r->cfg.workload.pmtu, len = wl_wqe_len(&r->cfg, 0, 0);
  uint64_t va = wl_va(&r->cfg, 0, 0);
  sim_frame(r->s, NODE_REQ, f);
  f->bth.destqp = wl_qpn(&r->cfg, true, 0);
  f->bth.psn = ornic_psn_add(wl_start_psn(&r->cfg, 0), (int32_t)idx);
  f->ext.reth = (ornic_reth){va + off, wl_rkey(0), (uint32_t)len};
  if (ornic) { /* FSPOT, then Last with address: both carry RETH + OFFETH */
    f->bth.opcode = idx == 0 ? ORNIC_OP_OOO_WRITE_FSPOT : ORNIC_OP_OOO_WRITE_LAST_ADDR;
    f->ext.offeth.offset = (uint32_t)off;
  } else { /* RC WRITE First (RETH: the WQE's start) */
    ck_assert_uint_eq(idx, 0);
    f->bth.opcode = ORNIC_OP_RC_RDMA_WRITE_FIRST;
    f->ext.reth.va = va;
  }
}

static const char *const write_profiles[] = {"ornic", "roce", "irn", "mprdma", "ioi", "left"};

/* One changed byte in the first packet of a WRITE: caught as it is placed. */
START_TEST(write_corrupt_byte_caught) {
  run r;
  run_open(&r, write_profiles[_i], OP_WRITE, 2048);
  ornic_frame f;
  write_packet(&r, &f, 0, _i == 0);
  inject(&r, NODE_RESP, &f, 0, 777, 0x01);
  ck_assert_msg(sim_failed(r.s), "%s: a changed byte went unnoticed", write_profiles[_i]);
  const char *err = sim_error(r.s);
  ck_assert_msg(strncmp(err, "integrity check failed: WRITE", 29) == 0 && strstr(err, "on QP 0") &&
                    strstr(err, "byte 777 of 2048 differs"),
                "%s: %s", write_profiles[_i], err);
  ck_assert_uint_eq(r.st.wqes_verified, 0);
  ck_assert_uint_eq(r.st.accepted, 0);
  run_close(&r);
}
END_TEST

/* ORNIC: the honest WQE, its packets in reverse order, is verified; a
 * changed byte in its last packet is reported at its offset in the WQE. */
START_TEST(ornic_write_whole_wqe) {
  run r;
  ornic_frame f;
  run_open(&r, NULL, OP_WRITE, 2048);
  write_packet(&r, &f, 1, true);
  inject(&r, NODE_RESP, &f, 1, 0, 0);
  write_packet(&r, &f, 0, true);
  inject(&r, NODE_RESP, &f, 0, 0, 0);
  ck_assert_msg(!sim_failed(r.s), "%s", sim_error(r.s));
  ck_assert_uint_eq(r.st.accepted, 2);
  ck_assert_uint_eq(r.st.wqes_verified, 1);
  run_close(&r);

  run_open(&r, NULL, OP_WRITE, 2048);
  write_packet(&r, &f, 0, true);
  inject(&r, NODE_RESP, &f, 0, 0, 0);
  write_packet(&r, &f, 1, true);
  inject(&r, NODE_RESP, &f, 1, 1023, 0x80);
  ck_assert(sim_failed(r.s));
  ck_assert_msg(strstr(sim_error(r.s), "byte 2047 of 2048 differs"), "%s", sim_error(r.s));
  ck_assert_uint_eq(r.st.wqes_verified, 0);
  run_close(&r);
}
END_TEST

/* A READ response at the ORNIC requester, checked against the responder's memory. */
static void read_response(run *r, ornic_frame *f, uint32_t idx) {
  sim_frame(r->s, NODE_RESP, f);
  f->bth.destqp = wl_qpn(&r->cfg, false, 0);
  f->bth.psn = ornic_psn_add(wl_start_psn(&r->cfg, 0), (int32_t)idx);
  f->bth.opcode = idx == 1 ? ORNIC_OP_OOO_READ_RESP_LAST : ORNIC_OP_OOO_READ_RESP;
  if (idx == 1) f->ext.aeth = (ornic_aeth){SIM_AETH_ACK, 1};
}

START_TEST(ornic_read_checked_as_it_arrives) {
  run r;
  ornic_frame f;
  run_open(&r, NULL, OP_READ, 2048);
  read_response(&r, &f, 1);
  inject(&r, NODE_REQ, &f, 1, 0, 0);
  read_response(&r, &f, 0);
  inject(&r, NODE_REQ, &f, 0, 0, 0);
  ck_assert_msg(!sim_failed(r.s), "%s", sim_error(r.s));
  ck_assert_uint_eq(r.st.wqes_verified, 1);
  run_close(&r);

  run_open(&r, NULL, OP_READ, 2048);
  read_response(&r, &f, 1);
  inject(&r, NODE_REQ, &f, 1, 5, 0xff);
  ck_assert(sim_failed(r.s));
  ck_assert_msg(strstr(sim_error(r.s),
                       "integrity check failed: READ WQE 0 of QP 0: byte 1029 of "
                       "2048 differs"),
                "%s", sim_error(r.s));
  ck_assert_uint_eq(r.st.wqes_verified, 0);
  run_close(&r);
}
END_TEST

int main(void) {
  TCase *tc = tcase_create("verify");
  tcase_add_test(tc, verifier_alone);
  tcase_add_loop_test(tc, write_corrupt_byte_caught, 0,
                      (int)(sizeof write_profiles / sizeof *write_profiles));
  tcase_add_test(tc, ornic_write_whole_wqe);
  tcase_add_test(tc, ornic_read_checked_as_it_arrives);
  return run_tcase("pcapgen_verify", tc);
}
