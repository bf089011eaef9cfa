/* SPDX-License-Identifier: MIT */
/* The honest requester that fuzz_responder plays against pcapgen's ORNIC
 * responder, and the oracle that checks what the responder sends back.
 *
 * Each QP posts WQEs 0, 1, 2, ... one at a time (PROTOCOL.md 4.1), with PSNs
 * back to back from the QP's first PSN; their lengths and kinds (WRITE or
 * READ) follow from the configuration. A WQE counts as done for the model
 * when the requester would complete it: an ACK with WQE_DONE at its Last
 * PSN (WRITE), or every READ response received. Honest packets carry the
 * bytes pattern.h says the memory holds, so the responder's own integrity
 * check stays meaningful. A QP that received anything else (a mutated or
 * arbitrary frame) is "tainted": only the sanitizers judge it from then on. */
#ifndef ORNIC_FUZZ_RESPONDER_MODEL_H
#define ORNIC_FUZZ_RESPONDER_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include <ornic/ornic.h>

#include "sim_config.h"

#define MODEL_QPS 3
#define MODEL_WQES 24      /* WQEs per QP the model can post */
#define MODEL_MAX_PKTS 300 /* packets of the largest WQE */

typedef struct {
  uint64_t len;
  uint32_t npkts, start_psn; /* start_psn: 24 bits */
  bool read;
  uint64_t va;
  uint8_t got[(MODEL_MAX_PKTS + 7) / 8]; /* WRITE: delivered; READ: responses received */
  bool requested;                        /* READ: the request itself was delivered */
  uint32_t received;                     /* READ: distinct responses */
} model_wqe;

typedef struct {
  model_wqe w[MODEL_WQES];
  uint32_t first_psn;
  uint32_t done; /* WQEs the requester completed: w[done] is the current one */
  bool cached;   /* ADDR_CACHED seen for the current WQE */
  bool tainted, fatal;
  uint64_t verified; /* PSNs from first_psn that ACKs covered and were checked */
} model_qp;

typedef struct {
  const sim_config *cfg;
  uint64_t key[MODEL_QPS];
  model_qp qp[MODEL_QPS];
} model;

/* Lays out every QP's WQEs. len_seed varies lengths; reads enables READ WQEs. */
void model_init(model *m, const sim_config *cfg, unsigned len_seed, bool reads);

/* Builds the honest frame for packet idx of WQE k of QP q (a READ WQE: the
 * request for packets idx .. idx+count-1; count 0 = to the end), with the
 * opcode the requester would choose now. `f` must hold the requester's
 * template (sim_frame); payload bytes go to `payload`. */
void model_frame(model *m, uint32_t q, uint32_t k, uint32_t idx, uint32_t count, bool prefer_spot,
                 bool imm, bool ackreq, ornic_frame *f, uint8_t *payload);

/* Records that an honest frame for (q, k, idx[, count]) was delivered. */
void model_delivered(model *m, uint32_t q, uint32_t k, uint32_t idx, bool read_request);

/* A frame the responder sent arrived at the requester, past the checks of
 * responder_sim.h (a QP that exists, a responder's opcode, well-formed ACKs
 * and NAKs): checks it against what the requester sent, updates the model.
 * Aborts (fuzz_check) on a broken promise of the responder. */
void model_rx(model *m, const ornic_frame *f);

#endif
