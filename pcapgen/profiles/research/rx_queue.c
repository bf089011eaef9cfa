/* SPDX-License-Identifier: MIT */
#include "rx_queue.h"

#include <stdlib.h>
#include <string.h>

#include "bitset.h"
#include "research_wire.h"
#include "workload.h"

void rxq_init(rxq *r, const sim_config *cfg, uint32_t q) {
  memset(r, 0, sizeof *r);
  r->q = q;
  r->epsn = wl_start_psn(cfg, q);
}

static void close_wqe(rxq *r) {
  free(r->got);
  r->got = NULL;
  r->open = false;
}

void rxq_free(rxq *r) {
  close_wqe(r);
  wv_free(&r->ver);
}

static int fatal(rxq *r, sim *s, const sim_config *cfg, uint8_t syndrome, uint32_t psn) {
  rcx_send_ack(s, cfg, r->q, syndrome, psn, r->msn, PK_FATAL, SIM_PATH_SPRAY);
  r->error = true;
  return RXQ_BAD;
}

/* The WQE starts at ePSN (everything before it completed); the packet at
 * offset idx tells where its first byte goes. 0, or a fatal syndrome. */
static uint8_t open_wqe(rxq *r, sim *s, const sim_config *cfg, uint32_t idx, const ornic_reth *a) {
  uint64_t off = (uint64_t)idx * cfg->workload.pmtu;
  if (a->rkey != wl_rkey(r->q) || a->va < off || !wl_va_ok(r->q, a->va - off, a->dmalen))
    return ORNIC_AETH_NAK_REMOTE_ACCESS;
  r->start_psn = r->epsn;
  r->start_addr = a->va - off;
  r->len = a->dmalen;
  r->rkey = a->rkey;
  r->n = wl_npkts(r->len, cfg->workload.pmtu);
  r->got = bs_new(r->n);
  if (!r->got ||
      wv_start(&r->ver, wl_key(cfg, r->q), r->start_addr, r->len, cfg->workload.pmtu) < 0) {
    sim_fail(s, "out of memory: WQE of %llu bytes on QP %u", (unsigned long long)r->len, r->q);
    close_wqe(r);
    return 0;
  }
  r->open = true;
  return 0;
}

/* The packet against the WQE's geometry: position, opcode, length, address. */
static uint8_t check(const rxq *r, const sim_config *cfg, uint32_t idx, const rcx_data *d) {
  if (idx >= r->n || d->first != (idx == 0) || d->last != (idx == r->n - 1))
    return ORNIC_AETH_NAK_INVALID_REQ;
  uint64_t want =
      idx == r->n - 1 ? r->len - (uint64_t)idx * cfg->workload.pmtu : cfg->workload.pmtu;
  if (d->len != want) return ORNIC_AETH_NAK_INVALID_REQ;
  if (d->has_addr && (d->addr.rkey != r->rkey || d->addr.dmalen != r->len ||
                      d->addr.va != r->start_addr + (uint64_t)idx * cfg->workload.pmtu))
    return d->addr.rkey != r->rkey ? ORNIC_AETH_NAK_REMOTE_ACCESS : ORNIC_AETH_NAK_INVALID_REQ;
  return 0;
}

static int complete(rxq *r, sim *s) {
  if (!wv_complete_write(&r->ver, s, r->q)) return RXQ_BAD;
  sim_stats(s)->wqes_verified++;
  close_wqe(r);
  r->msn = ornic_psn_add(r->msn, 1);
  return RXQ_DONE;
}

int rxq_accept(rxq *r, sim *s, const sim_config *cfg, const ornic_frame *f, uint32_t window,
               bool prefixed) {
  uint32_t psn = f->bth.psn;
  rcx_data d;
  if (r->error) return RXQ_BAD;
  if (!rcx_parse_write(f, prefixed, &d)) return fatal(r, s, cfg, ORNIC_AETH_NAK_INVALID_REQ, psn);
  int32_t dist = ornic_psn_diff(psn, r->epsn);
  if (dist < 0) {
    sim_stats(s)->dup_data++;
    return RXQ_DUP;
  }
  if ((uint32_t)dist >= window) return RXQ_BEYOND;
  if (!r->open) {
    if (!d.has_addr) return RXQ_NOCTX;
    uint8_t syn = open_wqe(r, s, cfg, (uint32_t)dist, &d.addr);
    if (syn) return fatal(r, s, cfg, syn, psn);
    if (!r->open) return RXQ_BAD;
  }
  uint32_t idx = ornic_psn_off(psn, r->start_psn);
  uint8_t syn = check(r, cfg, idx, &d);
  if (syn) return fatal(r, s, cfg, syn, psn);
  if (bs_get(r->got, idx)) {
    sim_stats(s)->dup_data++;
    return RXQ_DUP;
  }
  /* The packet's bytes against the source at the address they are placed at. */
  if (!wv_place_write(&r->ver, s, r->q, idx, d.data, d.len)) return RXQ_BAD;
  sim_stats(s)->accepted++;
  bs_set(r->got, idx);
  uint32_t e = ornic_psn_off(r->epsn, r->start_psn);
  while (e < r->n && bs_get(r->got, e)) e++;
  r->epsn = ornic_psn_add(r->start_psn, (int32_t)e);
  return e == r->n ? complete(r, s) : RXQ_NEW;
}

void rxq_ack_each(rxq *r, sim *s, const sim_config *cfg, const ornic_frame *f, uint32_t window,
                  bool prefixed, unsigned path) {
  switch (rxq_accept(r, s, cfg, f, window, prefixed)) {
  case RXQ_NEW:
  case RXQ_DONE:
  case RXQ_DUP:
    rcx_send_ack(s, cfg, r->q, SIM_AETH_ACK, r->epsn - 1, f->bth.psn, PK_ACK, path);
    break;
  case RXQ_NOCTX:
  case RXQ_BEYOND: sim_stats(s)->rx_drops++; break;
  default: break;
  }
}
