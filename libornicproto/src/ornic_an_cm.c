/* SPDX-License-Identifier: MIT */
/* RDMA-CM in the conversation analysis (docs/PROTOCOL.md 8.10). A REQ names
 * the active side's QP, the PSN its requests start at, the path MTU and
 * its READ depth; the REP that answers it (its Remote Communication ID is
 * the REQ's Local one, its addresses the REQ's reversed) names the passive
 * side's QP and first PSN. With both, the conversation is made at once,
 * paired, with each direction's first PSN, the MSN's zero and the PMTU
 * known: nothing is guessed from the packets that follow. A pair whose data
 * the capture showed before its REP keeps what the packets made of it. */
#include "ornic/errors.h"
#include "ornic_an_internal.h"

static void note_req(ornic_analysis *a, const ornic_cm_msg *m, uint8_t alen, const uint8_t *src,
                     const uint8_t *dst) {
  const uint8_t need = ORNIC_CM_HAS_QPN | ORNIC_CM_HAS_PSN;
  if ((m->has & need) != need || (m->transport != 0 && m->transport != 1)) return; /* RC, UC */
  an_cm_req *r = &a->cm[a->cm_next++ % AN_CM_PENDING]; /* the oldest gives way */
  memset(r, 0, sizeof *r);
  r->used = true;
  r->alen = alen;
  r->comm_id = m->local_comm_id;
  r->qpn = m->local_qpn;
  r->psn = m->start_psn;
  r->pmtu = m->pmtu;
  r->init_depth = m->init_depth;
  r->resp_resources = m->resp_resources;
  memcpy(r->src, src, alen);
  memcpy(r->dst, dst, alen);
}

/* The REQ a REP from src to dst answers, or NULL. */
static an_cm_req *req_of(ornic_analysis *a, const ornic_cm_msg *m, uint8_t alen, const uint8_t *src,
                         const uint8_t *dst) {
  for (uint32_t i = 0; i < AN_CM_PENDING; i++) {
    an_cm_req *r = &a->cm[i];
    if (r->used && r->comm_id == m->remote_comm_id && r->alen == alen &&
        !memcmp(r->src, dst, alen) && !memcmp(r->dst, src, alen))
      return r;
  }
  return NULL;
}

static uint8_t least(uint8_t x, uint8_t y) { return x < y ? x : y; }

/* The directions of a conversation CM set up: their first PSN, and an MSN
 * that counts from 0 (the responder's count starts at QP setup, 8.6). */
static void setup(ornic_analysis *a, an_conv *c, const an_cm_req *r, const ornic_cm_msg *rep,
                  uint64_t frame) {
  const uint32_t psn[2] = {r->psn, rep->start_psn};
  for (int d = 0; d < 2; d++) {
    c->dir[d].cm_on = true;
    c->dir[d].cm_psn = psn[d];
    c->dir[d].have_msn = true;
    c->dir[d].msn = 0;
    c->pub.cm_start_psn[d] = psn[d];
  }
  if (!a->cfg.pmtu && an_valid_pmtu(r->pmtu)) c->pmtu = r->pmtu;
  c->pub.cm_pmtu = r->pmtu;
  c->pub.cm_frame = frame;
  if (rep->has & ORNIC_CM_HAS_DEPTH) { /* A's READs are served by B, B's by A */
    c->pub.cm_read_depth[ORNIC_AN_DIR_AB] = least(r->init_depth, rep->resp_resources);
    c->pub.cm_read_depth[ORNIC_AN_DIR_BA] = least(rep->init_depth, r->resp_resources);
  }
}

void an_cm(ornic_analysis *a, const ornic_an_input *in, ornic_an_verdict *restrict v) {
  ornic_cm_msg m;
  if (ornic_cm_decode(in->f, &m) != ORNIC_OK) return;
  const uint8_t *src, *dst;
  uint8_t alen = an_key_addrs(in, &src, &dst);
  if (m.attr_id == ORNIC_CM_REQ) {
    note_req(a, &m, alen, src, dst);
    v->flags |= ORNIC_AN_CM;
    return;
  }
  if (m.attr_id != ORNIC_CM_REP || !(m.has & ORNIC_CM_HAS_QPN) || !(m.has & ORNIC_CM_HAS_PSN))
    return;
  an_cm_req *r = req_of(a, &m, alen, src, dst);
  if (!r) return;
  r->used = false;
  v->flags |= ORNIC_AN_CM;
  int c = an_conv_from_cm(a, alen, dst, src, r->qpn, m.local_qpn);
  if (c < 0) return;
  setup(a, &a->convs[c], r, &m, in->frame);
  v->conv = a->convs[c].pub.id;
  v->flags |= ORNIC_AN_PAIRED;
}
