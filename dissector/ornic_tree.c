/* Protocol tree items from a frame decoded by libornicproto. Values come from
 * the library's structs; the tvb only anchors each item on its bytes. */
#include "ornic_diss.h"

/* Offset in the UDP-payload tvb (which starts at the BTH) of a library offset. */
static int toff(const ornic_frame *f, size_t lib_off) { return (int)(lib_off - f->bth_off); }

static void add_bits(proto_tree *t, int id, tvbuff_t *tvb, int off, guint32 v, int shift) {
  proto_tree_add_uint(t, id, tvb, off, 1, v << shift);
}

static void add_flag(proto_tree *t, int id, tvbuff_t *tvb, int off, guint32 v, int shift) {
  proto_tree_add_boolean(t, id, tvb, off, 1, v << shift);
}

static void tree_bth(proto_tree *tree, tvbuff_t *tvb, const ornic_bth *b) {
  proto_item *ti = proto_tree_add_item(tree, hf.bth, tvb, 0, ORNIC_BTH_LEN, ENC_NA);
  proto_tree *t = proto_item_add_subtree(ti, ett.bth);
  proto_tree_add_uint(t, hf.opcode, tvb, 0, 1, b->opcode);
  add_flag(t, hf.se, tvb, 1, b->se, 7);
  add_flag(t, hf.m, tvb, 1, b->m, 6);
  add_bits(t, hf.padcnt, tvb, 1, b->padcnt, 4);
  add_bits(t, hf.tver, tvb, 1, b->tver, 0);
  proto_tree_add_uint(t, hf.pkey, tvb, 2, 2, b->pkey);
  add_flag(t, hf.fecn, tvb, 4, b->fecn, 7);
  add_flag(t, hf.becn, tvb, 4, b->becn, 6);
  add_bits(t, hf.resv6, tvb, 4, b->resv6, 0);
  proto_tree_add_uint(t, hf.destqp, tvb, 5, 3, b->destqp);
  add_flag(t, hf.ackreq, tvb, 8, b->ackreq, 7);
  add_bits(t, hf.resv7, tvb, 8, b->resv7, 0);
  proto_tree_add_uint(t, hf.psn, tvb, 9, 3, b->psn);
  proto_item_append_text(ti, ", %s, QP 0x%06x, PSN %u", ornic_opcode_name(b->opcode), b->destqp,
                         b->psn);
}

static proto_tree *hdr_tree(proto_tree *tree, tvbuff_t *tvb, int id, int off, int len) {
  proto_item *ti = proto_tree_add_item(tree, id, tvb, off, len, ENC_NA);
  return proto_item_add_subtree(ti, ett.hdr);
}

guint32 ornic_nak_lost_set(const ornic_naketh *nak, guint32 otd, guint32 *out, guint32 cap) {
  guint32 n = 0, span = ornic_nak_lost_span(nak, otd);
  for (guint32 i = 0; i < span && n < cap; i++) {
    guint32 q = ornic_psn_add(nak->base_psn, (gint32)i);
    if (ornic_nak_psn_lost(nak, otd, q)) out[n++] = q;
  }
  return n;
}

static void tree_nak_bitmap(proto_tree *t, tvbuff_t *tvb, int off, const ornic_naketh *nak,
                            const guint32 *lost, guint32 nlost) {
  proto_tree *bt =
      proto_tree_add_subtree_format(t, tvb, off + ORNIC_NAK_FIXED_LEN, 2 * nak->nblocks,
                                    ett.nak_blocks, NULL, "Bitmap: %u block%s, PSNs %u-%u",
                                    nak->nblocks, nak->nblocks == 1 ? "" : "s", nak->base_psn,
                                    ornic_psn_add(nak->base_psn, 16 * nak->nblocks - 1));
  guint32 nrecv = 0;
  for (unsigned k = 0; k < nak->nblocks; k++) {
    guint16 v = ornic_naketh_block(nak, k);
    int boff = off + ORNIC_NAK_FIXED_LEN + 2 * (int)k;
    guint32 first = ornic_psn_add(nak->base_psn, 16 * (gint32)k);
    proto_item *bi = proto_tree_add_uint(bt, hf.nak_block, tvb, boff, 2, v);
    proto_item_append_text(bi, " (block %u: PSNs %u-%u, %d received)", k, first,
                           ornic_psn_add(first, 15), __builtin_popcount(v));
    proto_tree *rt = NULL;
    for (unsigned i = (k == 0); i < 16; i++) {
      if (!(v & (1u << i))) continue;
      if (!rt) rt = proto_item_add_subtree(bi, ett.nak_block);
      proto_item *pi =
          proto_tree_add_uint(rt, hf.nak_received_psn, tvb, boff, 2, ornic_psn_add(first, (gint32)i));
      proto_item_set_generated(pi);
      nrecv++;
    }
  }
  proto_item *ci = proto_tree_add_uint(t, hf.nak_received_count, tvb, off + 8, 2 * nak->nblocks,
                                       nrecv);
  proto_item_set_generated(ci);
  ci = proto_tree_add_uint(t, hf.nak_missing_count, tvb, off, ORNIC_NAK_FIXED_LEN, nlost);
  proto_item_set_generated(ci);
  proto_tree *mt = proto_item_add_subtree(ci, ett.nak_missing);
  for (guint32 i = 0; i < nlost; i++) {
    gint32 rel = ornic_psn_diff(lost[i], nak->base_psn);
    int boff = rel > 0 ? off + ORNIC_NAK_FIXED_LEN + 2 * (rel / 16) : off + 5;
    proto_item *pi = proto_tree_add_uint(mt, hf.nak_missing_psn, tvb, boff, rel > 0 ? 2 : 3,
                                         lost[i]);
    proto_item_set_generated(pi);
  }
}

static void tree_naketh(proto_tree *tree, tvbuff_t *tvb, int off,
                        const ornic_naketh *nak, const guint32 *lost, guint32 nlost) {
  int len = ORNIC_NAK_FIXED_LEN + 2 * nak->nblocks;
  proto_tree *t = hdr_tree(tree, tvb, hf.naketh, off, len);
  proto_tree_add_uint(t, hf.nak_reason, tvb, off, 1, nak->reason);
  proto_tree_add_uint(t, hf.nak_trigger, tvb, off + 1, 3, nak->trigger_psn);
  proto_tree_add_uint(t, hf.nak_nblocks, tvb, off + 4, 1, nak->nblocks);
  proto_tree_add_uint(t, hf.nak_base, tvb, off + 5, 3, nak->base_psn);
  tree_nak_bitmap(t, tvb, off, nak, lost, nlost);
}

static void tree_oacketh(proto_tree *tree, tvbuff_t *tvb, int off, const ornic_oacketh *o) {
  proto_tree *t = hdr_tree(tree, tvb, hf.oacketh, off, 4);
  proto_item *fi = proto_tree_add_uint(t, hf.oack_flags, tvb, off, 1, o->flags);
  proto_tree *ft = proto_item_add_subtree(fi, ett.oack_flags);
  proto_tree_add_boolean(ft, hf.oack_addr_cached, tvb, off, 1, o->flags);
  proto_tree_add_boolean(ft, hf.oack_wqe_done, tvb, off, 1, o->flags);
  proto_tree_add_uint(ft, hf.oack_flags_resv, tvb, off, 1, o->flags);
  proto_tree_add_uint(t, hf.oack_resv, tvb, off + 1, 1, o->resv);
  proto_tree_add_uint(t, hf.oack_count, tvb, off + 2, 2, o->count);
}

static void tree_one(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo _U_, const ornic_ext *e,
                     guint16 bit, int off, const guint32 *lost, guint32 nlost) {
  proto_tree *t;
  proto_item *ti;
  switch (bit) {
  case ORNIC_HDR_RDETH:
    t = hdr_tree(tree, tvb, hf.rdeth, off, 4);
    proto_tree_add_uint(t, hf.rdeth_een, tvb, off + 1, 3, e->rdeth.een);
    break;
  case ORNIC_HDR_DETH:
    t = hdr_tree(tree, tvb, hf.deth, off, 8);
    proto_tree_add_uint(t, hf.deth_qkey, tvb, off, 4, e->deth.qkey);
    proto_tree_add_uint(t, hf.deth_srcqp, tvb, off + 5, 3, e->deth.srcqp);
    break;
  case ORNIC_HDR_XRCETH:
    t = hdr_tree(tree, tvb, hf.xrceth, off, 4);
    proto_tree_add_uint(t, hf.xrceth_resv, tvb, off, 1, e->xrceth.resv);
    proto_tree_add_uint(t, hf.xrceth_xrcsrq, tvb, off + 1, 3, e->xrceth.xrcsrq);
    break;
  case ORNIC_HDR_FETH:
    t = hdr_tree(tree, tvb, hf.feth, off, 4);
    proto_tree_add_uint(t, hf.feth_value, tvb, off, 4, e->feth.value);
    break;
  case ORNIC_HDR_RETH:
    t = hdr_tree(tree, tvb, hf.reth, off, 16);
    proto_tree_add_uint64(t, hf.reth_va, tvb, off, 8, e->reth.va);
    proto_tree_add_uint(t, hf.reth_rkey, tvb, off + 8, 4, e->reth.rkey);
    proto_tree_add_uint(t, hf.reth_dmalen, tvb, off + 12, 4, e->reth.dmalen);
    break;
  case ORNIC_HDR_OFFETH:
    t = hdr_tree(tree, tvb, hf.offeth, off, 4);
    proto_tree_add_uint(t, hf.offeth_offset, tvb, off, 4, e->offeth.offset);
    break;
  case ORNIC_HDR_ATOMICETH:
    t = hdr_tree(tree, tvb, hf.atomiceth, off, 28);
    proto_tree_add_uint64(t, hf.atomiceth_va, tvb, off, 8, e->atomiceth.va);
    proto_tree_add_uint(t, hf.atomiceth_rkey, tvb, off + 8, 4, e->atomiceth.rkey);
    proto_tree_add_uint64(t, hf.atomiceth_swap, tvb, off + 12, 8, e->atomiceth.swap_add);
    proto_tree_add_uint64(t, hf.atomiceth_cmp, tvb, off + 20, 8, e->atomiceth.compare);
    break;
  case ORNIC_HDR_AETH:
    t = hdr_tree(tree, tvb, hf.aeth, off, 4);
    ti = proto_tree_add_uint(t, hf.aeth_syndrome, tvb, off, 1, e->aeth.syndrome);
    proto_item_append_text(ti, " (%s)", ornic_aeth_syndrome_name(e->aeth.syndrome));
    proto_tree_add_uint(t, hf.aeth_msn, tvb, off + 1, 3, e->aeth.msn);
    break;
  case ORNIC_HDR_ATOMICACKETH:
    t = hdr_tree(tree, tvb, hf.atomicacketh, off, 8);
    proto_tree_add_uint64(t, hf.atomicacketh_orig, tvb, off, 8, e->atomicacketh.orig);
    break;
  case ORNIC_HDR_OACKETH:
    tree_oacketh(tree, tvb, off, &e->oacketh);
    break;
  case ORNIC_HDR_NAKETH:
    tree_naketh(tree, tvb, off, &e->naketh, lost, nlost);
    break;
  case ORNIC_HDR_IMMDT:
    proto_tree_add_uint(tree, hf.immdt, tvb, off, 4, e->immdt.data);
    break;
  case ORNIC_HDR_IETH:
    proto_tree_add_uint(tree, hf.ieth_rkey, tvb, off, 4, e->ieth.rkey);
    break;
  case ORNIC_HDR_CNP:
    t = hdr_tree(tree, tvb, hf.cnp, off, 16);
    proto_tree_add_bytes(t, hf.cnp_resv, tvb, off, 16, e->cnp.resv);
    break;
  default:
    break;
  }
}

void ornic_tree_headers(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const ornic_frame *f,
                        guint16 which, const guint32 *lost, guint32 nlost) {
  tree_bth(tree, tvb, &f->bth);
  guint16 have = f->ext.present & f->decoded;
  for (unsigned i = 0; i < ORNIC_HDR_COUNT; i++) {
    guint16 bit = (guint16)(1u << i);
    if (!(have & bit)) continue;
    size_t before = ornic_ext_size(&f->ext, (guint16)(have & (bit - 1u)));
    if (which & bit)
      tree_one(tree, tvb, pinfo, &f->ext, bit, toff(f, f->ext_off + before), lost, nlost);
  }
}

/* ---- analysis subtree ---------------------------------------------------------- */

static proto_item *gen_uint(proto_tree *t, int id, tvbuff_t *tvb, guint32 v) {
  proto_item *pi = proto_tree_add_uint(t, id, tvb, 0, 0, v);
  proto_item_set_generated(pi);
  return pi;
}

static proto_item *gen_u64(proto_tree *t, int id, tvbuff_t *tvb, guint64 v) {
  proto_item *pi = proto_tree_add_uint64(t, id, tvb, 0, 0, v);
  proto_item_set_generated(pi);
  return pi;
}

static proto_item *gen_flag(proto_tree *t, int id, tvbuff_t *tvb) {
  proto_item *pi = proto_tree_add_item(t, id, tvb, 0, 0, ENC_NA);
  proto_item_set_generated(pi);
  return pi;
}

static void tree_wqe(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const ornic_pkt *an,
                     const ornic_frame *f) {
  const ornic_an_verdict *v = &an->v;
  proto_item *top = proto_tree_get_parent(t);
  if (v->flags & ORNIC_AN_ADDR) {
    proto_item *pi = gen_u64(t, hf.an_addr, tvb, v->addr);
    if (ornic_opcode_info_get(f->bth.opcode)->flags & ORNIC_OPF_READ)
      proto_item_append_text(pi, " (remote source of the READ)");
  }
  if (v->flags & ORNIC_AN_ADDR_UNKNOWN) {
    gen_flag(t, hf.an_addr_unknown, tvb);
    if (an->once & ORNIC_ONCE_ADDR_UNKNOWN) expert_add_info(pinfo, top, &ei.addr_unknown);
  }
  if (v->flags & ORNIC_AN_PMTU_UNKNOWN) {
    gen_flag(t, hf.an_pmtu_unknown, tvb);
    if (an->once & ORNIC_ONCE_PMTU_UNKNOWN) expert_add_info(pinfo, top, &ei.pmtu_unknown);
  }
  if (v->flags & ORNIC_AN_NEW_WQE) gen_flag(t, hf.an_new_wqe, tvb);
  if (v->flags & ORNIC_AN_READ_RETRY) gen_flag(t, hf.an_read_retry, tvb);
  if (v->flags & ORNIC_AN_WQE) {
    gen_uint(t, hf.an_wqe, tvb, v->wqe);
    gen_uint(t, hf.an_wqe_start_psn, tvb, v->wqe_start_psn);
    if (v->wqe_npkts) {
      gen_uint(t, hf.an_wqe_last_psn, tvb, v->wqe_last_psn);
      gen_uint(t, hf.an_wqe_npkts, tvb, v->wqe_npkts);
    }
    gen_uint(t, hf.an_wqe_pkt, tvb, v->wqe_pkt);
    if (v->flags & (ORNIC_AN_ADDR | ORNIC_AN_PMTU_UNKNOWN)) { /* a RETH revealed it (not SEND) */
      gen_u64(t, hf.an_wqe_start_addr, tvb, v->wqe_start_addr);
      gen_uint(t, hf.an_wqe_len, tvb, v->wqe_len);
    }
    if (v->wqe_frame) gen_uint(t, hf.an_wqe_frame, tvb, (guint32)v->wqe_frame);
  }
  if (v->read_frame) gen_uint(t, hf.an_read_frame, tvb, (guint32)v->read_frame);
}

static void tree_sequence(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const ornic_pkt *an) {
  const ornic_an_verdict *v = &an->v;
  if (v->flags & ORNIC_AN_SEQ) {
    gen_uint(t, hf.an_hpsn, tvb, v->hpsn);
    gen_uint(t, hf.an_epsn, tvb, v->epsn);
  }
  if (v->flags & ORNIC_AN_OOO) {
    gen_flag(t, hf.an_ooo, tvb);
    expert_add_info(pinfo, proto_tree_get_parent(t), &ei.ooo);
  }
  /* Distance below the highest PSN of every late arrival (0: a repeat at or
   * above the highest, an RTO probe). */
  if (v->flags & (ORNIC_AN_OOO | ORNIC_AN_DUP | ORNIC_AN_RETRANS))
    gen_uint(t, hf.an_ooo_distance, tvb, v->ooo_distance);
  if (v->flags & ORNIC_AN_OTD_EXCEEDED) {
    gen_flag(t, hf.an_otd_exceeded, tvb);
    gen_uint(t, hf.an_hole_first, tvb, v->hole_first);
    gen_uint(t, hf.an_hole_count, tvb, v->hole_count);
  }
  if (an->acked_in) gen_uint(t, hf.an_acked_in, tvb, an->acked_in);
}

/* The problems, under the umbrella ornic.analysis.flags (as tcp.analysis.flags). */
static void tree_problems(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const ornic_pkt *an,
                          gboolean ornic_nak) {
  const ornic_an_verdict *v = &an->v;
  if (!(v->flags & ORNIC_AN_PROBLEMS)) return;
  proto_item *fi = gen_flag(t, hf.an_flags, tvb);
  proto_tree *ft = proto_item_add_subtree(fi, ett.an_flags);
  proto_item *pi;
  if (v->flags & ORNIC_AN_DUP) {
    pi = gen_flag(ft, hf.an_dup, tvb);
    expert_add_info(pinfo, pi, &ei.dup);
    if (v->first_frame) gen_uint(ft, hf.an_first_frame, tvb, (guint32)v->first_frame);
  }
  if (v->flags & ORNIC_AN_RETRANS) {
    pi = gen_flag(ft, hf.an_retrans, tvb);
    expert_add_info(pinfo, pi, &ei.retrans);
    if (v->first_frame && !(v->flags & ORNIC_AN_DUP))
      gen_uint(ft, hf.an_first_frame, tvb, (guint32)v->first_frame);
    if (v->asked_frame) gen_uint(ft, hf.an_nak_frame, tvb, (guint32)v->asked_frame);
  }
  if (v->flags & ORNIC_AN_PROBE) gen_flag(ft, hf.an_probe, tvb);
  if (v->flags & ORNIC_AN_LOSS) {
    pi = gen_flag(ft, hf.an_loss, tvb);
    expert_add_info(pinfo, pi, &ei.loss);
    gen_uint(ft, hf.an_loss_first_psn, tvb, v->loss_first_psn);
    gen_uint(ft, hf.an_loss_count, tvb, v->loss_count);
  }
  if (v->flags & ORNIC_AN_NAK) {
    pi = gen_flag(ft, hf.an_nak, tvb);
    expert_add_info(pinfo, pi, &ei.nak);
    if (ornic_nak) gen_uint(ft, hf.an_nak_lost, tvb, v->nak_lost);
  }
  if (v->flags & ORNIC_AN_NOT_CAPTURED) {
    pi = gen_flag(ft, hf.an_not_captured, tvb);
    if (an->once & ORNIC_ONCE_NOT_CAPTURED) expert_add_info(pinfo, pi, &ei.not_captured);
    gen_uint(ft, hf.an_not_captured_first, tvb, v->not_captured_first);
    gen_uint(ft, hf.an_not_captured_count, tvb, v->not_captured);
  }
}

static void tree_ack(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const ornic_pkt *an) {
  const ornic_an_verdict *v = &an->v;
  if (v->flags & ORNIC_AN_ACK) {
    gen_uint(t, hf.an_ack_prev, tvb, v->ack_prev);
    gen_uint(t, hf.an_ack_newly, tvb, v->ack_newly);
    if (v->ack_frame_of) gen_uint(t, hf.an_ack_frame_of, tvb, (guint32)v->ack_frame_of);
  }
  if (v->flags & ORNIC_AN_ACK_STALE) {
    /* ACKs cross a sprayed fabric too: an older one arriving late is ignored (4.2). */
    proto_item *pi = gen_flag(t, hf.an_ack_stale, tvb);
    expert_add_info(pinfo, pi, &ei.ack_stale);
  }
  if (v->flags & ORNIC_AN_MSN) gen_uint(t, hf.an_msn_delta, tvb, v->msn_delta);
  if (v->flags & ORNIC_AN_WQE_DONE) {
    gen_uint(t, hf.an_wqe_completed, tvb, v->wqe_completed);
    expert_add_info(pinfo, proto_tree_get_parent(t), &ei.wqe_done);
  }
}

void ornic_tree_analysis(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo,
                         const ornic_frame *f, const ornic_pkt *an) {
  const ornic_an_verdict *v = &an->v;
  proto_item *ti = proto_tree_add_item(tree, hf.an, tvb, 0, 0, ENC_NA);
  proto_item_set_generated(ti);
  proto_tree *t = proto_item_add_subtree(ti, ett.an);
  if (tree) {
    char label[200];
    ornic_analysis_label(an, label, sizeof(label));
    proto_item_append_text(ti, ": %s, %s", label, v->dir == ORNIC_AN_DIR_AB ? "A->B" : "B->A");
  }
  gen_uint(t, hf.an_conv, tvb, v->conv);
  gen_uint(t, hf.an_dir, tvb, v->dir);
  gen_uint(t, hf.an_role, tvb, v->role);
  if (an->req_qp != G_MAXUINT32) gen_uint(t, hf.an_req_qp, tvb, an->req_qp);
  if (an->resp_qp != G_MAXUINT32) gen_uint(t, hf.an_resp_qp, tvb, an->resp_qp);
  if (v->flags & ORNIC_AN_PAIRED) gen_flag(t, hf.an_paired, tvb);
  if (v->flags & ORNIC_AN_UNTRACKED) gen_flag(t, hf.an_untracked, tvb);
  if (v->flags & ORNIC_AN_BEFORE_CAPTURE) {
    proto_item *pi = gen_flag(t, hf.an_before_capture, tvb);
    if (an->once & ORNIC_ONCE_BEFORE_CAPTURE) expert_add_info(pinfo, pi, &ei.before_capture);
  }
  if (v->pmtu) gen_uint(t, hf.an_pmtu, tvb, v->pmtu);
  tree_problems(t, tvb, pinfo, an, (f->ext.present & f->decoded & ORNIC_HDR_NAKETH) != 0);
  tree_wqe(t, tvb, pinfo, an, f);
  tree_sequence(t, tvb, pinfo, an);
  tree_ack(t, tvb, pinfo, an);
  if (v->flags & ORNIC_AN_ECN) {
    proto_item *pi = gen_flag(t, hf.an_ecn, tvb);
    expert_add_info(pinfo, pi, &ei.ecn);
  }
}
