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
 * sanitizers watch memory. The simulation is configured with a sim_config
 * (pcapgen/sim/sim_config.h), without pcapgen's command line.
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
#include "ornic_resp.h"
#include "sim.h"
#include "sizing.h"
#include "stats.h"
#include "workload.h"
#include "writer.h"

#define FRAME_CAP 8192
/* The simulator allocates a WQE's memory to verify it later: arbitrary
 * frames may ask for at most this much (a real NIC writes in place). */
#define MAX_FOREIGN_DMALEN (1u << 20)

static sim_config base_cfg;
static writer *devnull;
/* FUZZ_RESPONDER_VERBOSE=1: what each input achieved, for seed writing;
 * 2: also every frame injected and every frame the responder sent. */
static int verbose;

typedef struct {
  sim *s;
  model m;
  const sim_timing *t;
  uint8_t last[FRAME_CAP], frame[FRAME_CAP], payload[4096];
  size_t last_len;
} run;

static void trace(const char *dir, uint64_t now, const ornic_frame *f) {
  fprintf(stderr, "  %8.3f us %s %-26s qp %#x psn %#08x", (double)now / 1e6, dir,
          ornic_opcode_name(f->bth.opcode), f->bth.destqp, f->bth.psn);
  if (f->ext.present & ORNIC_HDR_RETH)
    fprintf(stderr, " va %#llx len %u", (unsigned long long)f->ext.reth.va, f->ext.reth.dmalen);
  if (f->ext.present & ORNIC_HDR_AETH)
    fprintf(stderr, " syn %#x msn %u", f->ext.aeth.syndrome, f->ext.aeth.msn);
  if (f->ext.present & ORNIC_HDR_OACKETH) fprintf(stderr, " flags %#x", f->ext.oacketh.flags);
  fprintf(stderr, " payload %zu\n", f->payload_len);
}

static void req_rx(void *self, pkt *p, const ornic_frame *f) {
  (void)p;
  if (verbose > 1) trace("<-", sim_now(((run *)self)->s), f);
  model_rx(&((run *)self)->m, f);
}

int LLVMFuzzerInitialize(int *argc, char **argv[]) {
  (void)argc;
  (void)argv;
  const char *v = getenv("FUZZ_RESPONDER_VERBOSE");
  verbose = v ? atoi(v) : 0;
  /* ornic-pcapgen's defaults, with the ACK scheduler's service time it
   * computes for the ornic profile (--ack-engine-ns auto: 8 ns at 100 Gb/s). */
  sim_config_defaults(&base_cfg);
  base_cfg.protocol.ack_engine_ns = sizing_ack_engine_ns(&base_cfg);
  return 0;
}

/* The writer runs a background thread. AFL++'s fork server forks after
 * LLVMFuzzerInitialize, and a fork keeps only the calling thread: a writer
 * opened there had no thread in the fuzzed child, whose buffers filled after
 * a few hundred inputs and then blocked it for ever (hangs, 135 execs/s).
 * Opened at the first input, it lives in the process that runs them. */
static writer *output(void) {
  char err[256];
  if (!devnull && !(devnull = writer_open("/dev/null", FMT_PCAP, 0, 1, err, sizeof err))) {
    fprintf(stderr, "fuzz_responder: %s\n", err);
    exit(1);
  }
  return devnull;
}

static void configure(sim_config *cfg, const uint8_t *c) {
  static const uint32_t ack_every[4] = {0, 1, 2, 16};
  static const uint32_t window[4] = {16, 64, 1024, 4080};
  *cfg = base_cfg;
  sim_workload *wl = &cfg->workload;
  sim_protocol *p = &cfg->protocol;
  wl->pmtu = 256u << (c[0] % 5);
  wl->qps = 1 + (c[0] / 5) % MODEL_QPS;
  p->ack_every = ack_every[c[1] & 3];
  p->window = window[(c[1] >> 2) & 3];
  p->otd = 1 + c[2] % (p->window - 1);
  p->bitmap_pool = c[3] & 7; /* 0: enough for every QP; else a tiny pool that runs dry */
  if (c[1] & 0x10) wl->start_psn = 0xfffff0 - (c[1] >> 5); /* WQEs across the PSN wrap */
  wl->wqe_size = (uint64_t)MODEL_MAX_PKTS * wl->pmtu;
  wl->wqes = MODEL_WQES;
}

static void inject(run *r, const uint8_t *frame, size_t len) {
  if (verbose > 1) {
    ornic_frame f;
    if (ornic_frame_decode(&f, frame, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT) == ORNIC_OK)
      trace("->", sim_now(r->s), &f);
  }
  memcpy(r->last, frame, len);
  r->last_len = len;
  sim_inject(r->s, NODE_RESP, frame, len);
  /* Let the responder's NIC send what the packet triggered. */
  sim_run_until(r->s, sim_now(r->s) + r->t->frame_ps);
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
  sim_frame(r->s, NODE_REQ, f);
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
  if ((f.ext.present & ORNIC_HDR_RETH) && f.ext.reth.dmalen > MAX_FOREIGN_DMALEN) return;
  int q = wl_qp_index(r->m.cfg, f.bth.destqp, true);
  if (q >= 0) r->m.qp[q].tainted = true;
  inject(r, frame, len);
}

/* The BTH and what follows from the input, behind the requester's headers. */
static size_t arbitrary(run *r, uint32_t q, bool to_qp, const uint8_t *p, size_t len) {
  ornic_frame rf, f;
  if (ornic_roce_decode(&rf, p, len) != ORNIC_OK) return 0;
  sim_frame(r->s, NODE_REQ, &f);
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
    sim_run_until(r->s, sim_now(r->s) + (uint64_t)(a + 1) * (b + 1) *
                                            ((r->t->rtt_ps + r->t->otd_ps) / 16384 + 1));
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

static void check_outcome(run *r) {
  if (!sim_failed(r->s)) return;
  const char *err = sim_error(r->s);
  const char *on = strstr(err, " on QP ");
  unsigned q = on ? (unsigned)strtoul(on + 7, NULL, 10) : MODEL_QPS;
  bool tolerated =
      strncmp(err, "integrity check failed", 22) == 0 && q < MODEL_QPS && r->m.qp[q].tainted;
  fuzz_check(tolerated, "the simulation failed: %s", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  static run r;
  static stats st;
  sim_config cfg;
  configure(&cfg, data);
  memset(&st, 0, sizeof st);
  char err[256];
  r.s = sim_new(&cfg, &st, output(), err, sizeof err);
  fuzz_check(r.s != NULL, "sim_new: %s", err);
  oresp *resp = oresp_new(r.s, &cfg);
  fuzz_check(resp != NULL, "oresp_new");
  static const endpoint_ops req_ops = {NULL, req_rx, NULL}; /* frames come from act() */
  sim_set_endpoint(r.s, NODE_REQ, &req_ops, &r);
  model_init(&r.m, &cfg, data[3] >> 3, data[1] & 0x80);
  r.t = sim_times(r.s);
  r.last_len = 0;
  size_t off = 4, used;
  while (!sim_failed(r.s) && (used = act(&r, data + off, size - off)) > 0) off += used;
  /* Every timer the actions left running fires once more. */
  sim_run_until(r.s, sim_now(r.s) + 4 * (r.t->rtt_ps + r.t->otd_ps));
  check_outcome(&r);
  if (verbose) {
    fprintf(stderr,
            "  pmtu %u qps %u: %llu acks, %llu naks, %llu fatal, %llu WQEs verified, "
            "%llu pool drops, %llu duplicates;",
            cfg.workload.pmtu, cfg.workload.qps, (unsigned long long)st.acks,
            (unsigned long long)st.naks, (unsigned long long)st.fatal,
            (unsigned long long)st.wqes_verified, (unsigned long long)st.pool_drops,
            (unsigned long long)st.dup_data);
    for (uint32_t q = 0; q < cfg.workload.qps; q++)
      fprintf(stderr, " qp%u done %u%s", q, r.m.qp[q].done, r.m.qp[q].tainted ? " tainted" : "");
    fputc('\n', stderr);
  }
  oresp_free(resp);
  sim_free(r.s);
  return 0;
}
