/* SPDX-License-Identifier: MIT */
#include "records.h"

#include <stdbool.h>
#include <stdlib.h>

#include "ornic/ornic.h"

typedef struct {
  uint32_t q, start, npkts;
  uint64_t wqe, bytes, post_ps, first_tx_ps, done_ps;
  uint64_t sent, retx, fspots;
} wqe_rec;

typedef struct {
  uint64_t t_ps;
  uint32_t q, destqp, psn;
  uint8_t syndrome, src;
  bool naketh;
  uint8_t reason, nblocks;
  uint32_t trigger, base, limit, lost;
} nak_rec;

/* What has been sent so far for the WQE a QP of a node is on. */
typedef struct {
  bool on;
  uint64_t wqe, first_tx_ps, sent, retx, fspots;
} inflight;

struct records {
  bool want_wqe, want_nak;
  uint32_t qps;
  inflight *cur; /* [node * qps + q] */
  wqe_rec *w;
  nak_rec *n;
  size_t nw, cw, nn, cn;
  bool w_truncated, n_truncated;
};

records *records_new(unsigned kinds, uint32_t qps) {
  records *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->want_wqe = (kinds & RECORDS_WQE) != 0;
  r->want_nak = (kinds & RECORDS_NAK) != 0;
  r->qps = qps;
  if (!(r->cur = calloc(2 * (size_t)qps, sizeof *r->cur))) {
    free(r);
    return NULL;
  }
  return r;
}

void records_free(records *r) {
  if (!r) return;
  free(r->cur);
  free(r->w);
  free(r->n);
  free(r);
}

/* Room for one more element in *a (n used, *cap allocated); false when the
 * cap or memory is reached. */
static bool grow(void **a, size_t n, size_t *cap, size_t size) {
  if (n >= RECORDS_MAX) return false;
  if (n < *cap) return true;
  size_t c = *cap ? 2 * *cap : 256;
  void *b = realloc(*a, c * size);
  if (!b) return false;
  *a = b;
  *cap = c;
  return true;
}

static void count_data(records *r, uint64_t now_ps, const pkt *p) {
  if (p->src > 1 || p->m.qp >= r->qps) return;
  inflight *c = &r->cur[(size_t)p->src * r->qps + p->m.qp];
  if (!c->on || c->wqe != p->m.wqe) *c = (inflight){true, p->m.wqe, now_ps, 0, 0, 0};
  c->sent++;
  c->retx += p->m.retx != 0;
  /* BTH opcode right after Ethernet (14), IPv4 (20) and UDP (8): what every
   * pcapgen frame carries (writer.h) */
  if (p->len > 42 && p->data[42] == ORNIC_OP_OOO_WRITE_FSPOT) c->fspots++;
}

static void log_nak(records *r, uint64_t now_ps, const pkt *p) {
  ornic_frame f;
  if (ornic_frame_decode(&f, p->data, p->len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT) < 0)
    return;
  if (!grow((void **)&r->n, r->nn, &r->cn, sizeof *r->n)) {
    r->n_truncated = true;
    return;
  }
  nak_rec *k = &r->n[r->nn++];
  *k = (nak_rec){
      .t_ps = now_ps, .q = p->m.qp, .src = p->src, .destqp = f.bth.destqp, .psn = f.bth.psn};
  if (f.ext.present & ORNIC_HDR_AETH) k->syndrome = f.ext.aeth.syndrome;
  if (!(f.ext.present & ORNIC_HDR_NAKETH)) return;
  const ornic_naketh *h = &f.ext.naketh;
  k->naketh = true;
  k->reason = h->reason;
  k->nblocks = h->nblocks;
  k->trigger = h->trigger_psn;
  k->base = h->base_psn;
  k->limit = h->limit_psn;
  k->lost = ornic_naketh_lost_count(h);
}

void records_tx(records *r, uint64_t now_ps, const pkt *p) {
  if (!r) return;
  if (p->m.kind == PK_DATA && r->want_wqe) count_data(r, now_ps, p);
  if (p->m.kind == PK_NAK && r->want_nak) log_nak(r, now_ps, p);
}

void records_wqe_done(records *r, uint32_t q, uint64_t wqe, uint32_t start_psn, uint32_t npkts,
                      uint64_t bytes, uint64_t post_ps, uint64_t now_ps) {
  if (!r || !r->want_wqe || q >= r->qps) return;
  if (!grow((void **)&r->w, r->nw, &r->cw, sizeof *r->w)) {
    r->w_truncated = true;
    return;
  }
  /* WRITE data leaves the requester (NODE_REQ), READ responses the responder. */
  const inflight *c = &r->cur[q];
  if (!(c->on && c->wqe == wqe)) c = &r->cur[r->qps + q];
  bool mine = c->on && c->wqe == wqe;
  r->w[r->nw++] = (wqe_rec){q,
                            start_psn,
                            npkts,
                            wqe,
                            bytes,
                            post_ps,
                            mine ? c->first_tx_ps : 0,
                            now_ps,
                            mine ? c->sent : 0,
                            mine ? c->retx : 0,
                            mine ? c->fspots : 0};
}

static double us(uint64_t ps) { return (double)ps / 1e6; }

static void write_wqes(FILE *f, const records *r) {
  fputs("  \"wqe_records\": [", f);
  for (size_t i = 0; i < r->nw; i++) {
    const wqe_rec *w = &r->w[i];
    fprintf(
        f,
        "%s\n    {\"qp\": %u, \"wqe\": %llu, \"first_psn\": %u, \"packets\": %u, \"bytes\": %llu, "
        "\"post_us\": %.6f, \"first_send_us\": %.6f, \"done_us\": %.6f, \"completion_us\": %.6f, "
        "\"data_sent\": %llu, \"retransmissions\": %llu, \"fspots\": %llu}",
        i ? "," : "", w->q, (unsigned long long)w->wqe, w->start, w->npkts,
        (unsigned long long)w->bytes, us(w->post_ps), us(w->first_tx_ps), us(w->done_ps),
        us(w->done_ps - w->post_ps), (unsigned long long)w->sent, (unsigned long long)w->retx,
        (unsigned long long)w->fspots);
  }
  fprintf(f, "%s],\n  \"wqe_records_truncated\": %s,\n", r->nw ? "\n  " : "",
          r->w_truncated ? "true" : "false");
}

static void write_naks(FILE *f, const records *r) {
  fputs("  \"nak_records\": [", f);
  for (size_t i = 0; i < r->nn; i++) {
    const nak_rec *k = &r->n[i];
    fprintf(f,
            "%s\n    {\"t_us\": %.6f, \"qp\": %u, \"node\": %u, \"destqp\": %u, \"psn\": %u, "
            "\"syndrome\": %u",
            i ? "," : "", us(k->t_ps), k->q, k->src, k->destqp, k->psn, k->syndrome);
    if (k->naketh)
      fprintf(f,
              ", \"reason\": %u, \"trigger_psn\": %u, \"base_psn\": %u, \"limit_psn\": %u, "
              "\"blocks\": %u, \"lost\": %u",
              k->reason, k->trigger, k->base, k->limit, k->nblocks, k->lost);
    fputc('}', f);
  }
  fprintf(f, "%s],\n  \"nak_records_truncated\": %s,\n", r->nn ? "\n  " : "",
          r->n_truncated ? "true" : "false");
}

void records_write_json(FILE *f, const records *r) {
  if (!r) return;
  if (r->want_wqe) write_wqes(f, r);
  if (r->want_nak) write_naks(f, r);
}
