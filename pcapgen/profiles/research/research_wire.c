/* SPDX-License-Identifier: MIT */
#include "research_wire.h"

#include <string.h>

#include "workload.h"

static uint8_t write_opcode(const wqe *w, uint32_t idx) {
  if (w->n == 1) return ORNIC_OP_RC_RDMA_WRITE_ONLY;
  if (idx == 0) return ORNIC_OP_RC_RDMA_WRITE_FIRST;
  return idx == w->n - 1 ? ORNIC_OP_RC_RDMA_WRITE_LAST : ORNIC_OP_RC_RDMA_WRITE_MIDDLE;
}

pkt *rcx_build_write(sim *s, const sim_config *cfg, const rcx_write *x) {
  const wqe *w = x->w;
  uint64_t off = (uint64_t)x->idx * cfg->workload.pmtu;
  uint32_t plen = wqe_plen(w, cfg->workload.pmtu, x->idx);
  ornic_reth addr = {w->va + off, wl_rkey(x->q), (uint32_t)w->len};
  ornic_frame f;
  sim_frame(s, NODE_REQ, &f);
  f.bth.opcode = write_opcode(w, x->idx);
  f.bth.destqp = wl_qpn(cfg, true, x->q);
  f.bth.psn = wqe_psn(w, x->idx);
  f.bth.ackreq = x->ackreq;
  if (x->inorder) f.ip.tos = (uint8_t)(RCX_DSCP_INORDER << 2 | (f.ip.tos & 3));
  uint8_t head[RCX_ADDR_LEN];
  uint32_t hdr = 0;
  if (x->idx == 0) {
    f.ext.reth = addr;
  } else if (x->addr) {
    ornic_ext e;
    memset(&e, 0, sizeof e);
    e.reth = addr;
    if (ornic_ext_encode_one(head, RCX_ADDR_LEN, &e, ORNIC_HDR_RETH) != RCX_ADDR_LEN) {
      sim_fail(s, "internal error: cannot encode a per-packet address");
      return NULL;
    }
    hdr = RCX_ADDR_LEN;
  }
  f.payload_len = hdr + plen; /* the address, then the source memory, generated in the frame */
  framer_payload gen = {head, hdr, wl_key(cfg, x->q), w->va + off};
  pkt_meta m = {PK_DATA, x->retx, x->q, w->id, x->idx, plen, 0};
  return sim_encode_gen(s, NODE_REQ, &f, &m, x->path, &gen);
}

bool rcx_parse_write(const ornic_frame *f, bool prefixed, rcx_data *d) {
  uint8_t op = f->bth.opcode;
  if (op < ORNIC_OP_RC_RDMA_WRITE_FIRST || op > ORNIC_OP_RC_RDMA_WRITE_ONLY ||
      op == ORNIC_OP_RC_RDMA_WRITE_LAST + 1)
    return false;
  d->first = op == ORNIC_OP_RC_RDMA_WRITE_FIRST || op == ORNIC_OP_RC_RDMA_WRITE_ONLY;
  d->last = op == ORNIC_OP_RC_RDMA_WRITE_LAST || op == ORNIC_OP_RC_RDMA_WRITE_ONLY;
  d->data = f->payload;
  d->len = f->payload_len;
  d->has_addr = d->first;
  if (d->first) {
    d->addr = f->ext.reth;
  } else if (prefixed) {
    ornic_ext e;
    if (ornic_ext_decode_one(&e, ORNIC_HDR_RETH, f->payload, f->payload_len) != RCX_ADDR_LEN)
      return false;
    d->addr = e.reth;
    d->has_addr = true;
    d->data += RCX_ADDR_LEN;
    d->len -= RCX_ADDR_LEN;
  }
  return true;
}

void rcx_send_ack(sim *s, const sim_config *cfg, uint32_t q, uint8_t syndrome, uint32_t psn,
                  uint32_t second, uint8_t kind, unsigned path) {
  ornic_frame f;
  sim_frame(s, NODE_RESP, &f);
  f.bth.opcode = ORNIC_OP_RC_ACK;
  f.bth.destqp = wl_qpn(cfg, false, q);
  f.bth.psn = psn & ORNIC_PSN_MASK;
  f.ext.aeth = (ornic_aeth){syndrome, second & ORNIC_PSN_MASK};
  pkt_meta m = {kind, 0, q, 0, 0, 0, 0};
  pkt *p = sim_encode_on(s, NODE_RESP, &f, &m, path);
  if (p) sim_send(s, NODE_RESP, p);
}
