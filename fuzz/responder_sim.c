/* SPDX-License-Identifier: MIT */
/* The responder harnesses' shared simulation (responder_sim.h). */
#include "responder_sim.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz_driver.h"
#include "fuzz_responder_model.h"
#include "sizing.h"
#include "workload.h"
#include "writer.h"

/* The simulator allocates a WQE's memory to verify it later: a frame that is
 * not honest may ask for at most this much. */
#define MAX_FOREIGN_DMALEN (1u << 20)

static sim_config base_cfg;
static writer *devnull;
static int verbose;
static const char *record_path;

void rsim_setup(void) {
  const char *v = getenv("FUZZ_RESPONDER_VERBOSE");
  verbose = v ? atoi(v) : 0;
  record_path = getenv("FUZZ_RESPONDER_RECORD");
  /* ornic-pcapgen's defaults, with the ACK scheduler's service time it
   * computes for the ornic profile (--ack-engine-ns auto: 8 ns at 100 Gb/s). */
  sim_config_defaults(&base_cfg);
  base_cfg.protocol.ack_engine_ns = sizing_ack_engine_ns(&base_cfg);
}

int rsim_verbose(void) { return verbose; }

/* The writer runs a background thread. AFL++'s fork server forks after
 * LLVMFuzzerInitialize, and a fork keeps only the calling thread: a writer
 * opened there had no thread in the fuzzed child, whose buffers filled after
 * a few hundred inputs and then blocked it for ever (hangs, 135 execs/s).
 * Opened at the first input, it lives in the process that runs them. */
static writer *output(void) {
  char err[256];
  if (!devnull && !(devnull = writer_open("/dev/null", FMT_PCAP, 0, 1, err, sizeof err))) {
    fprintf(stderr, "responder harness: %s\n", err);
    exit(1);
  }
  return devnull;
}

/* WQEs as the requester model lays them out (fuzz_responder_model.h), so
 * that both harnesses give the responder the same QPs and memory. */
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

/* A frame record (fuzz_responder_frames.c): 2-byte big-endian length, the bytes. */
static void record(rsim *r, const uint8_t *p, size_t n) {
  if (!r->record) return;
  uint8_t len[2] = {(uint8_t)(n >> 8), (uint8_t)n};
  if (fwrite(len, 1, 2, r->record) != 2 || (n && fwrite(p, 1, n, r->record) != n)) {
    perror(record_path);
    exit(1);
  }
}

/* What holds for every ACK and NAK the responder sends, whatever arrived
 * (PROTOCOL.md 2.3, 3.5, 4.4): the requester model checks the rest. */
static void check_ack(const ornic_frame *f) {
  uint8_t flags = f->ext.oacketh.flags;
  fuzz_check(ornic_aeth_type(f->ext.aeth.syndrome) == ORNIC_AETH_ACK, "QPN %#x: ACK syndrome %#x",
             f->bth.destqp, f->ext.aeth.syndrome);
  fuzz_check((flags & (ORNIC_OACK_ADDR_CACHED | ORNIC_OACK_WQE_DONE)) !=
                 (ORNIC_OACK_ADDR_CACHED | ORNIC_OACK_WQE_DONE),
             "QPN %#x: both ACK flags", f->bth.destqp);
}

static void check_nak(const ornic_frame *f, uint32_t otd) {
  const ornic_naketh *nak = &f->ext.naketh;
  uint32_t qpn = f->bth.destqp;
  fuzz_check(f->ext.aeth.syndrome == ORNIC_AETH_NAK, "QPN %#x: NAK syndrome %#x", qpn,
             f->ext.aeth.syndrome);
  fuzz_check(nak->base_psn == f->bth.psn, "QPN %#x: NAK base %#x, BTH PSN %#x", qpn, nak->base_psn,
             f->bth.psn);
  fuzz_check(
      nak->reason >= ORNIC_NAKETH_OTD_EXCEEDED && nak->reason <= ORNIC_NAKETH_LAST_INCOMPLETE,
      "QPN %#x: NAK reason %u", qpn, nak->reason);
  /* The loss limit on the wire (3.5, 4.4): the trigger minus the OTD for reason 1, else the trigger. */
  uint32_t limit = nak->reason == ORNIC_NAKETH_OTD_EXCEEDED
                       ? ornic_psn_add(nak->trigger_psn, -(int32_t)otd)
                       : nak->trigger_psn;
  fuzz_check(nak->limit_psn == limit, "QPN %#x: NAK reason %u trigger %#x limit %#x, want %#x", qpn,
             nak->reason, nak->trigger_psn, nak->limit_psn, limit);
}

/* The responder's frames were decoded by the simulator on arrival (an
 * undecodable one fails the run there); they must also carry their iCRC,
 * as a real requester drops a frame without it ([rxe-icrc],
 * ../shared/IBA_NOTES.md), go to a QP that exists, and be a responder's. */
static void check_reply(const rsim *r, const pkt *p, const ornic_frame *f) {
  int rc = ornic_icrc_verify(f, p->data);
  fuzz_check(rc == ORNIC_OK, "the responder sent %s to QPN %#x with a bad iCRC: %s",
             ornic_opcode_name(f->bth.opcode), f->bth.destqp, ornic_strerror(rc));
  int q = wl_qp_index(&r->cfg, f->bth.destqp, false);
  fuzz_check(q >= 0 && q < MODEL_QPS, "responder sent to QPN %#x", f->bth.destqp);
  switch (f->bth.opcode) {
  case ORNIC_OP_ACK: check_ack(f); break;
  case ORNIC_OP_NAK: check_nak(f, r->cfg.protocol.otd); break;
  case ORNIC_OP_OOO_READ_RESP:
  case ORNIC_OP_OOO_READ_RESP_LAST:
  case ORNIC_OP_RC_ACK: break; /* whether they were deserved is the model's question */
  default: fuzz_check(false, "QP %d: the responder sent opcode %#x", q, f->bth.opcode);
  }
}

static void req_rx(void *self, pkt *p, const ornic_frame *f) {
  rsim *r = self;
  if (verbose > 1) rsim_trace("<-", sim_now(r->s), f);
  check_reply(r, p, f);
  if (r->rx) r->rx(r->ctx, f);
}

void rsim_start(rsim *r, const uint8_t *c, rsim_rx_fn rx, void *ctx) {
  configure(&r->cfg, c);
  memset(&r->st, 0, sizeof r->st);
  char err[256];
  r->s = sim_new(&r->cfg, &r->st, output(), err, sizeof err);
  fuzz_check(r->s != NULL, "sim_new: %s", err);
  r->resp = oresp_new(r->s, &r->cfg);
  fuzz_check(r->resp != NULL, "oresp_new");
  static const endpoint_ops req_ops = {NULL, req_rx, NULL}; /* frames come from the harness */
  sim_set_endpoint(r->s, NODE_REQ, &req_ops, r);
  r->t = sim_times(r->s);
  r->rx = rx;
  r->ctx = ctx;
  r->record = NULL;
  if (record_path) {
    if (!(r->record = fopen(record_path, "wb"))) {
      perror(record_path);
      exit(1);
    }
    if (fwrite(c, 1, RSIM_CONFIG_LEN, r->record) != RSIM_CONFIG_LEN) {
      perror(record_path);
      exit(1);
    }
  }
}

void rsim_inject(rsim *r, const uint8_t *frame, size_t len) {
  if (verbose > 1) {
    ornic_frame f;
    if (ornic_frame_decode(&f, frame, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT) == ORNIC_OK)
      rsim_trace("->", sim_now(r->s), &f);
  }
  record(r, frame, len);
  sim_inject(r->s, NODE_RESP, frame, len);
  sim_run_until(r->s, sim_now(r->s) + r->t->frame_ps);
}

void rsim_pause(rsim *r, const uint8_t *p, size_t n) {
  record(r, p, n);
  if (!n) {
    sim_run_until(r->s, sim_now(r->s) + r->t->frame_ps);
    return;
  }
  uint64_t a = p[0], b = n > 1 ? p[1] : 0;
  sim_run_until(r->s,
                sim_now(r->s) + (a + 1) * (b + 1) * ((r->t->rtt_ps + r->t->otd_ps) / 16384 + 1));
}

bool rsim_admissible(const ornic_frame *f) {
  return !(f->ext.present & ORNIC_HDR_RETH) || f->ext.reth.dmalen <= MAX_FOREIGN_DMALEN;
}

void rsim_end(rsim *r, bool (*foreign)(void *ctx, unsigned q)) {
  sim_run_until(r->s, sim_now(r->s) + 4 * (r->t->rtt_ps + r->t->otd_ps));
  if (r->record && fclose(r->record) != 0) {
    perror(record_path);
    exit(1);
  }
  r->record = NULL;
  if (!sim_failed(r->s)) return;
  const char *err = sim_error(r->s);
  const char *on = strstr(err, " on QP ");
  unsigned q = on ? (unsigned)strtoul(on + 7, NULL, 10) : MODEL_QPS;
  bool tolerated = strncmp(err, "integrity check failed", 22) == 0 && q < MODEL_QPS &&
                   (!foreign || foreign(r->ctx, q));
  fuzz_check(tolerated, "the simulation failed: %s", err);
}

void rsim_report(const rsim *r) {
  const stats *st = &r->st;
  fprintf(stderr,
          "  pmtu %u qps %u: %llu acks, %llu naks, %llu fatal, %llu WQEs verified, "
          "%llu pool drops, %llu duplicates;",
          r->cfg.workload.pmtu, r->cfg.workload.qps, (unsigned long long)st->acks,
          (unsigned long long)st->naks, (unsigned long long)st->fatal,
          (unsigned long long)st->wqes_verified, (unsigned long long)st->pool_drops,
          (unsigned long long)st->dup_data);
}

void rsim_free(rsim *r) {
  oresp_free(r->resp);
  sim_free(r->s);
  r->resp = NULL;
  r->s = NULL;
}

void rsim_trace(const char *dir, uint64_t now, const ornic_frame *f) {
  fprintf(stderr, "  %8.3f us %s %-26s qp %#x psn %#08x", (double)now / 1e6, dir,
          ornic_opcode_name(f->bth.opcode), f->bth.destqp, f->bth.psn);
  if (f->ext.present & ORNIC_HDR_RETH)
    fprintf(stderr, " va %#llx len %u", (unsigned long long)f->ext.reth.va, f->ext.reth.dmalen);
  if (f->ext.present & ORNIC_HDR_AETH)
    fprintf(stderr, " syn %#x msn %u", f->ext.aeth.syndrome, f->ext.aeth.msn);
  if (f->ext.present & ORNIC_HDR_OACKETH) fprintf(stderr, " flags %#x", f->ext.oacketh.flags);
  fprintf(stderr, " payload %zu\n", f->payload_len);
}
