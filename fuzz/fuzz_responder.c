/* SPDX-License-Identifier: MIT */
/* fuzz_responder: pcapgen's ORNIC responder (pcapgen/profiles/ornic/ornic_resp.c)
 * inside its simulator (pcapgen/sim/sim.c), fed an arbitrary sequence of
 * packets and pauses. The harness plays the requester
 * (fuzz_responder_model.h): it sends honest packets of its WQEs in any
 * order, with duplicates, stale retransmissions, probes and pauses that fire
 * the responder's timers, plus mutated and arbitrary frames. Everything the
 * responder sends back is checked as it arrives (ACKs cover only data that
 * was sent, NAK bitmaps tell the truth, READ responses carry the memory's
 * bytes, no fatal NAK for an honest requester), the responder's own
 * integrity check of every completed WQE must pass for honest QPs, and the
 * sanitizers watch memory. The simulation, its configuration and the checks
 * that need no model are responder_sim.h's, shared with
 * fuzz_responder_frames.
 *
 * Input: 4 bytes of configuration (PMTU, QPs, ACK policy, window, OTD,
 * bitmap pool, first PSN near the wrap, WQE lengths, READs), then actions of
 * 3 bytes (op, a, b), or 5 for a mutation (+ position, xor), or 2 + n for an
 * arbitrary frame (+ length, BTH through iCRC). See act() for the op codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ornic/ornic.h>

#include "fuzz_driver.h"
#include "fuzz_responder_model.h"
#include "responder_sim.h"
#include "workload.h"

typedef struct {
  rsim sim;
  model m;
  uint8_t last[RSIM_FRAME_CAP], frame[RSIM_FRAME_CAP], payload[4096];
  size_t last_len;
} run;

/* The responder's frame, past responder_sim's checks, reaches the model. */
static void req_rx(void *self, const ornic_frame *f) { model_rx(&((run *)self)->m, f); }

int LLVMFuzzerInitialize(int *argc, char **argv[]) {
  (void)argc;
  (void)argv;
  rsim_setup();
  return 0;
}

/* Every frame goes to the responder through here: the last one is kept for action 5. */
static void inject(run *r, const uint8_t *frame, size_t len) {
  memcpy(r->last, frame, len);
  r->last_len = len;
  rsim_inject(&r->sim, frame, len);
}

/* Encodes f into r->frame; 0 if it cannot be encoded. */
static size_t encode(run *r, ornic_frame *f) {
  ornic_ssize n = ornic_frame_encode(r->frame, sizeof r->frame, f);
  return n > 0 ? (size_t)n : 0;
}

/* An honest packet (or READ request) of one of the QP's WQEs posted so far;
 * `sent`: it will be delivered as it is (the model records it). */
static size_t honest(run *r, uint32_t q, uint8_t a, uint8_t b, uint8_t op, ornic_frame *f,
                     bool sent) {
  model_qp *qp = &r->m.qp[q];
  uint32_t back = a >> 6;
  uint32_t k = qp->done >= MODEL_WQES ? MODEL_WQES - 1 : qp->done;
  k = back > k ? 0 : k - back;
  model_wqe *w = &qp->w[k];
  uint32_t idx = ((uint32_t)(a & 0x3f) << 8 | b) % w->npkts;
  uint32_t count = 0;
  if (w->read) {
    if (!w->requested)
      idx = 0; /* the first request; retries come after it */
    else
      count = 1 + (a & 0x3f) % (w->npkts - idx);
  }
  sim_frame(r->sim.s, NODE_REQ, f);
  model_frame(&r->m, q, k, idx, count, op & 0x20, op & 0x40, op & 0x80, f, r->payload);
  size_t n = encode(r, f);
  fuzz_check(n > 0, "an honest frame does not encode");
  if (sent) model_delivered(&r->m, q, k, idx, w->read);
  return n;
}

/* A frame that is not honest: its QP is judged by the sanitizers only. */
static void foreign(run *r, const uint8_t *frame, size_t len) {
  ornic_frame f;
  if (ornic_frame_decode(&f, frame, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT) != ORNIC_OK)
    return;
  if (!rsim_admissible(&f)) return;
  int q = wl_qp_index(r->m.cfg, f.bth.destqp, true);
  if (q >= 0) r->m.qp[q].tainted = true;
  inject(r, frame, len);
}

/* The BTH and what follows from the input, behind the requester's headers. */
static size_t arbitrary(run *r, uint32_t q, bool to_qp, const uint8_t *p, size_t len) {
  ornic_frame rf, f;
  if (ornic_roce_decode(&rf, p, len) != ORNIC_OK) return 0;
  sim_frame(r->sim.s, NODE_REQ, &f);
  f.bth = rf.bth;
  if (to_qp) { /* aimed at the QP, near its expected PSN: past the window checks */
    const model_qp *qp = &r->m.qp[q];
    uint32_t k = qp->done < MODEL_WQES ? qp->done : MODEL_WQES - 1;
    f.bth.destqp = wl_resp_qpn(q);
    f.bth.psn = ornic_psn_add(qp->w[k].start_psn, (int32_t)(rf.bth.psn % 64));
  }
  f.ext = rf.ext;
  f.payload = rf.payload;
  f.payload_len = rf.payload_len;
  return encode(r, &f);
}

/* One action; returns the bytes it used, 0 at the end of the input. */
static size_t act(run *r, const uint8_t *p, size_t len) {
  if (len < 3) return 0;
  uint8_t op = p[0], a = p[1], b = p[2];
  uint32_t q = (op >> 3 & 3) % r->m.cfg->workload.qps;
  ornic_frame f;
  switch (op & 7) {
  case 0:
  case 1:
  case 2:
  case 3: /* an honest packet: the common case */
    inject(r, r->frame, honest(r, q, a, b, op, &f, true));
    return 3;
  case 4: /* a pause: up to four T_resp, so every timer can fire */
    rsim_pause(&r->sim, p + 1, 2);
    return 3;
  case 5: /* the last frame again: a duplicate on another path */
    if (r->last_len) inject(r, r->last, r->last_len);
    return 1;
  case 6: { /* an honest packet with one byte changed */
    if (len < 5) return 0;
    size_t n = honest(r, q, a, b, op, &f, false);
    r->frame[p[3] % n] ^= p[4] ? p[4] : 1;
    foreign(r, r->frame, n);
    return 5;
  }
  default: { /* arbitrary transport bytes, optionally aimed at a QP */
    size_t n = a < len - 2 ? a : len - 2;
    size_t flen = arbitrary(r, q, op & 0x20, p + 2, n);
    if (flen) foreign(r, r->frame, flen);
    return 2 + n;
  }
  }
}

static bool tainted(void *self, unsigned q) { return ((run *)self)->m.qp[q].tainted; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < RSIM_CONFIG_LEN) return 0;
  static run r;
  rsim_start(&r.sim, data, req_rx, &r);
  model_init(&r.m, &r.sim.cfg, data[3] >> 3, data[1] & 0x80);
  r.last_len = 0;
  size_t off = RSIM_CONFIG_LEN, used;
  while (!sim_failed(r.sim.s) && (used = act(&r, data + off, size - off)) > 0) off += used;
  rsim_end(&r.sim, tainted);
  if (rsim_verbose()) {
    rsim_report(&r.sim);
    for (uint32_t q = 0; q < r.sim.cfg.workload.qps; q++)
      fprintf(stderr, " qp%u done %u%s", q, r.m.qp[q].done, r.m.qp[q].tainted ? " tainted" : "");
    fputc('\n', stderr);
  }
  rsim_free(&r.sim);
  return 0;
}
