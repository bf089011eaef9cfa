/* SPDX-License-Identifier: MIT */
/* Profile `ornic`: ORNIC out-of-order WRITE and READ (docs/PROTOCOL.md 4), the
 * requester of ornic_req.c and the responder of ornic_resp.c (which
 * fuzz/fuzz_responder drives alone). The ORNIC receive bitmap
 * (libs/ornic-bitmap) tracks the data at the responder for WRITE and at the
 * requester for READ; its peaks go into the summary. */
#include <stdlib.h>

#include "ornic_req.h"
#include "ornic_resp.h"
#include "profile.h"

typedef struct {
  const sim_config *cfg;
  oresp *resp;
  oreq *req;
} ornic_pair;

static void ornic_free(void *self) {
  ornic_pair *e = self;
  if (!e) return;
  oreq_free(e->req);
  oresp_free(e->resp);
  free(e);
}

static void *ornic_new(sim *s, const sim_config *cfg) {
  ornic_pair *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->cfg = cfg;
  e->resp = oresp_new(s, cfg);
  e->req = e->resp ? oreq_new(s, cfg) : NULL;
  if (!e->req) {
    ornic_free(e);
    return NULL;
  }
  return e;
}

static void ornic_start(void *self) { oreq_start(((ornic_pair *)self)->req); }

/* The bitmap that tracks the data: the responder's for WRITE, the requester's for READ. */
static void ornic_stats(void *self, stats *st) {
  ornic_pair *e = self;
  if (e->cfg->workload.op == OP_WRITE)
    oresp_bitmap_stats(e->resp, &st->max_blocks_qp, &st->pool_peak, &st->pool_capacity);
  else
    oreq_bitmap_stats(e->req, &st->max_blocks_qp, &st->pool_peak, &st->pool_capacity);
}

const profile_engines ornic_engines = {ornic_new, ornic_start, ornic_stats, ornic_free};
