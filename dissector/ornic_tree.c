/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Protocol tree items from a frame decoded by libornicproto. Which headers a
 * frame has, where each lies and how long it is come from the library's
 * decode (ornic_frame_hdr_offset/_size); where each field lies in its header,
 * its size and bit mask, from the library's layout tables (ornic/layout.h,
 * through ornic_view()); the values are read from those bytes. */
#include "ornic_diss.h"

/* Offset in the UDP-payload tvb (which starts at the BTH) of a library offset. */
static int toff(const ornic_frame *f, size_t lib_off) { return (int)(lib_off - f->bth_off); }

/* The fields of one header at `off` of the tvb, in the layout's order; a
 * field that names bits of another goes in that one's subtree. items[i] is
 * the item of field i (NULL: not shown). */
static void tree_fields(proto_tree *t, tvbuff_t *tvb, int off, const ornic_hdr_view *v,
                        proto_item **items) {
  proto_tree *sub = NULL;
  int sub_of = -1;
  for (size_t i = 0; i < v->nfields; i++) {
    const ornic_field_layout *fl = &v->fields[i];
    proto_tree *pt = t;
    items[i] = NULL;
    if (v->hf[i] < 0) continue;
    if (fl->parent >= 0) {
      if (!items[fl->parent]) continue;
      if (sub_of != fl->parent) {
        sub = proto_item_add_subtree(items[fl->parent], ett.field_bits);
        sub_of = fl->parent;
      }
      pt = sub;
    }
    items[i] = proto_tree_add_item(pt, v->hf[i], tvb, off + fl->offset, fl->size,
                                   fl->size > 8 ? ENC_NA : ENC_BIG_ENDIAN);
  }
}

static void tree_bth(proto_tree *tree, tvbuff_t *tvb, const ornic_bth *b) {
  proto_item *items[ORNIC_VIEW_MAX_FIELDS];
  proto_item *ti = proto_tree_add_item(tree, hf.bth, tvb, 0, ORNIC_BTH_LEN, ENC_NA);
  proto_tree *t = proto_item_add_subtree(ti, ett.bth);
  tree_fields(t, tvb, 0, ornic_view(0), items);
  proto_item_append_text(ti, ", %s, QP 0x%06x, PSN %u", ornic_opcode_name(b->opcode), b->destqp,
                         b->psn);
}

/* Under stock's InfiniBand tree the BTH is already shown, all but byte 4's
 * FECN, BECN and reserved bits (stock names them as one reserved byte): only
 * those, as items of a BTH subtree spanning that byte. */
static void tree_bth_stock_lacks(proto_tree *tree, tvbuff_t *tvb, const ornic_bth *b) {
  const ornic_hdr_view *v = ornic_view(0);
  proto_item *ti = proto_tree_add_item(tree, hf.bth, tvb, 4, 1, ENC_NA);
  proto_item_append_text(ti, " (what stock's tree lacks)%s%s", b->fecn ? ", FECN" : "",
                         b->becn ? ", BECN" : "");
  proto_tree *t = proto_item_add_subtree(ti, ett.bth);
  for (size_t i = 0; i < v->nfields; i++) {
    int id = v->hf[i];
    if (id == hf.fecn || id == hf.becn || id == hf.resv6)
      proto_tree_add_item(t, id, tvb, v->fields[i].offset, v->fields[i].size, ENC_BIG_ENDIAN);
  }
}

/* Appends "a" or "a-b" to s, comma-separated. */
static void append_run(wmem_strbuf_t *s, guint32 first, guint32 last) {
  if (wmem_strbuf_get_len(s)) wmem_strbuf_append(s, ", ");
  if (first == last)
    wmem_strbuf_append_printf(s, "%u", first);
  else
    wmem_strbuf_append_printf(s, "%u-%u", first, last);
}

/* The bitmap blocks after the NAKETH's fixed part, the PSNs they mark
 * received, and the lost set (PROTOCOL.md 4.4), walked by the library. The
 * tree shows runs of PSNs ("2131510, 2131512-2131513"); one item per PSN
 * stays, hidden, so that ornic.nak.received_psn and ornic.nak.missing_psn
 * filter on every PSN.
 * A NAK of 255 blocks of alternating bits has 2,040 runs and 4,080 PSNs: text
 * and items for them cost 0.7 ms per packet in tshark -2, 27 times stock's cost
 * of the packet (issue 28, dissector/README.md "Cost"). So the runs' text is made
 * for a tree someone sees only, and the per-PSN items for such a tree or a
 * filter, column or -T fields that names them (proto_field_is_referenced): a
 * first pass under a display filter or coloring rules builds neither. */
static void tree_nak_bitmap(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, int off,
                            const ornic_naketh *nak, guint32 nlost) {
  gboolean shown = t && PTREE_DATA(t)->visible;
  gboolean want_recv = proto_field_is_referenced(t, hf.nak_received_psn);
  gboolean want_miss = proto_field_is_referenced(t, hf.nak_missing_psn);
  int blocks = off + ORNIC_NAKETH_FIXED_LEN;
  proto_tree *bt = proto_tree_add_subtree_format(
      t, tvb, blocks, 2 * nak->nblocks, ett.nak_blocks, NULL, "Bitmap: %u block%s, PSNs %u-%u",
      nak->nblocks, nak->nblocks == 1 ? "" : "s", nak->base_psn,
      ornic_psn_add(nak->base_psn, 16 * nak->nblocks - 1));
  /* Block k (2 bytes) covers the 16 PSNs from Base + 16k; which of them it
   * marks received is the library's reading (ornic_naketh_psn_state). */
  guint32 nrecv = 0;
  for (unsigned k = 0; k < nak->nblocks; k++) {
    int boff = blocks + 2 * (int)k;
    guint32 first = ornic_psn_add(nak->base_psn, 16 * (gint32)k);
    guint16 bits = ornic_naketh_block(nak, k);
    /* Which bit is which PSN is the library's; how many are set is not. */
    int in_block = __builtin_popcount(bits);
    /* Base itself (bit 0 of block 0) is the first missing PSN, never received. */
    nrecv += (guint32)in_block - (k == 0 && ornic_naketh_psn_state(nak, first) == 1);
    proto_item *bi = proto_tree_add_uint(bt, hf.nak_block, tvb, boff, 2, bits);
    if (!shown && !want_recv) continue;
    if (shown)
      proto_item_append_text(bi, " (block %u: PSNs %u-%u, %d received)", k, first,
                             ornic_psn_add(first, 15), in_block);
    proto_tree *rt = NULL;
    wmem_strbuf_t *runs = wmem_strbuf_new(pinfo->pool, "");
    gint32 run_start = -1;
    for (gint32 i = (k == 0); i <= 16; i++) {
      guint32 psn = ornic_psn_add(first, i);
      gboolean got = i < 16 && ornic_naketh_psn_state(nak, psn) == 1;
      if (!got) {
        if (run_start >= 0 && shown)
          append_run(runs, ornic_psn_add(first, run_start), ornic_psn_add(first, i - 1));
        run_start = -1;
        continue;
      }
      if (run_start < 0) run_start = i;
      if (!rt) rt = proto_item_add_subtree(bi, ett.nak_block);
      proto_item *pi = proto_tree_add_uint(rt, hf.nak_received_psn, tvb, boff, 2, psn);
      proto_item_set_generated(pi);
      proto_item_set_hidden(pi);
    }
    if (wmem_strbuf_get_len(runs))
      proto_item_append_text(bi, ": received %s", wmem_strbuf_get_str(runs));
  }
  proto_item *ci =
      proto_tree_add_uint(t, hf.nak_received_count, tvb, blocks, 2 * nak->nblocks, nrecv);
  proto_item_set_generated(ci);
  ci = proto_tree_add_uint(t, hf.nak_missing_count, tvb, off, ORNIC_NAKETH_FIXED_LEN, nlost);
  proto_item_set_generated(ci);
  if (!shown && !want_miss) return;
  proto_tree *mt = proto_item_add_subtree(ci, ett.nak_missing);
  /* Each missing PSN on its bitmap block; Base itself on the Base PSN field. */
  const ornic_field_layout *base = ornic_fl_nak_base;
  ornic_naketh_lost_iter it;
  guint32 first, n;
  ornic_naketh_lost_begin(&it, nak);
  while (ornic_naketh_lost_next_run(&it, &first, &n)) {
    guint32 last = ornic_psn_add(first, (gint32)n - 1);
    if (shown && n == 1)
      proto_tree_add_subtree_format(mt, tvb, off, 0, ett.nak_missing, NULL, "Missing: %u", first);
    else if (shown)
      proto_tree_add_subtree_format(mt, tvb, off, 0, ett.nak_missing, NULL,
                                    "Missing: %u-%u (%u PSNs)", first, last, n);
    for (guint32 i = 0; want_miss && i < n; i++) {
      guint32 psn = ornic_psn_add(first, (gint32)i);
      gint32 rel = ornic_psn_diff(psn, nak->base_psn);
      int boff = rel > 0 ? blocks + 2 * (rel / 16) : off + base->offset;
      proto_item *pi =
          proto_tree_add_uint(mt, hf.nak_missing_psn, tvb, boff, rel > 0 ? 2 : base->size, psn);
      proto_item_set_generated(pi);
      proto_item_set_hidden(pi);
    }
  }
}

/* One extension header at `off` (tvb offset), `len` bytes on the wire. */
static void tree_one(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const ornic_frame *f,
                     guint16 bit, int off, int len, guint32 nlost) {
  const ornic_hdr_view *v = ornic_view(bit);
  proto_item *items[ORNIC_VIEW_MAX_FIELDS];
  proto_tree *t = tree;
  if (v->hf_hdr) {
    proto_item *ti = proto_tree_add_item(tree, *v->hf_hdr, tvb, off, len, ENC_NA);
    t = proto_item_add_subtree(ti, ett.hdr);
  }
  tree_fields(t, tvb, off, v, items);
  if (bit == ORNIC_HDR_AETH) {
    proto_item *si = items[ornic_fl_aeth_syndrome - v->fields];
    if (si) proto_item_append_text(si, " (%s)", ornic_aeth_syndrome_name(f->ext.aeth.syndrome));
  } else if (bit == ORNIC_HDR_NAKETH) {
    tree_nak_bitmap(t, tvb, pinfo, off, &f->ext.naketh, nlost);
  }
}

void ornic_tree_headers(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const ornic_frame *f,
                        guint16 which, guint32 nlost) {
  if (which == 0xffff)
    tree_bth(tree, tvb, &f->bth);
  else
    tree_bth_stock_lacks(tree, tvb, &f->bth);
  guint16 show = f->ext.present & which;
  for (unsigned i = 0; i < ORNIC_HDR_COUNT; i++) {
    guint16 bit = (guint16)(1u << i);
    if (!(show & bit)) continue;
    tree_one(tree, tvb, pinfo, f, bit, toff(f, ornic_frame_hdr_offset(f, bit)),
             (int)ornic_frame_hdr_size(f, bit), nlost);
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
    expert_add_info(pinfo, top, &ei.addr_unknown);
  }
  if (v->flags & ORNIC_AN_PMTU_UNKNOWN) {
    gen_flag(t, hf.an_pmtu_unknown, tvb);
    expert_add_info(pinfo, top, &ei.pmtu_unknown);
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

/* Beside the BTH's absolute PSN, on requests and responses (a CNP's PSN is
 * not of the PSN space). */
static void tree_psn_relative(proto_tree *t, tvbuff_t *tvb, const ornic_frame *f,
                              const ornic_pkt *an) {
  guint32 base;
  if (!ornic_pref_relative_psn || an->v.role == ORNIC_AN_ROLE_CNP ||
      an->v.role == ORNIC_AN_ROLE_NONE || !ornic_analysis_psn_base(an->v.conv, an->v.dir, &base))
    return;
  proto_item *pi =
      proto_tree_add_int(t, hf.an_psn_relative, tvb, 0, 0, ornic_psn_diff(f->bth.psn, base));
  proto_item_set_generated(pi);
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
    gen_uint(t, hf.an_ooo_distance, tvb, v->ooo_distance);
  } else if (v->flags & (ORNIC_AN_DUP | ORNIC_AN_RETRANS)) {
    /* The engine's distance of a repeat (0: at or above the highest, an RTO
     * probe) has its own field: a go-back-N resend is not reordering, and
     * the OOO column, button and histogram count OOO arrivals only. */
    gen_uint(t, hf.an_repeat_distance, tvb, v->ooo_distance);
  }
  if (v->flags & ORNIC_AN_OTD_EXCEEDED) {
    proto_item *pi = gen_flag(t, hf.an_otd_exceeded, tvb);
    expert_add_info(pinfo, pi, &ei.otd_exceeded);
    gen_uint(t, hf.an_hole_first, tvb, v->hole_first);
    gen_uint(t, hf.an_hole_count, tvb, v->hole_count);
  }
  if (an->acked_in) gen_uint(t, hf.an_acked_in, tvb, an->acked_in);
  if (an->in_flight) { /* 8.9 */
    gen_uint(t, hf.an_in_flight, tvb, an->in_flight);
    if (v->pmtu) gen_u64(t, hf.an_bytes_in_flight, tvb, (guint64)an->in_flight * v->pmtu);
  }
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
    expert_add_info(pinfo, pi, &ei.not_captured);
    gen_uint(ft, hf.an_not_captured_first, tvb, v->not_captured_first);
    gen_uint(ft, hf.an_not_captured_count, tvb, v->not_captured);
  }
  if (v->flags & ORNIC_AN_PREV_NOT_CAPTURED) { /* 8.5: the hole fields, never with OTD */
    pi = gen_flag(ft, hf.an_prev_not_captured, tvb);
    expert_add_info(pinfo, pi, &ei.prev_not_captured);
    gen_uint(ft, hf.an_hole_first, tvb, v->hole_first);
    gen_uint(ft, hf.an_hole_count, tvb, v->hole_count);
  }
}

static proto_item *gen_time(proto_tree *t, int id, tvbuff_t *tvb, guint64 ns) {
  nstime_t ts = {(time_t)(ns / 1000000000u), (int)(ns % 1000000000u)};
  proto_item *pi = proto_tree_add_time(t, id, tvb, 0, 0, &ts);
  proto_item_set_generated(pi);
  return pi;
}

/* The engine's timing (PROTOCOL.md 8.8); a READ response's message time is
 * the READ's latency, an ACK's the WQE's completion time. */
static void tree_timing(proto_tree *t, tvbuff_t *tvb, const ornic_pkt *an) {
  const ornic_an_verdict *v = &an->v;
  if (v->flags & ORNIC_AN_SINCE_PREV) gen_time(t, hf.an_time_delta, tvb, v->since_prev_ns);
  if (v->flags & ORNIC_AN_ACK_RTT) gen_time(t, hf.an_ack_rtt, tvb, v->ack_rtt_ns);
  if (v->flags & ORNIC_AN_MSG_TIME)
    gen_time(t, v->flags & ORNIC_AN_WQE_DONE ? hf.an_wqe_time : hf.an_read_time, tvb,
             v->msg_time_ns);
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

/* The engine's limits (ornic/analysis.h "Memory" and "Work"). An untracked
 * packet's reason is said once per capture, on its first packet (a note on
 * each would repeat one fact for every packet past the limit); a direction
 * cut for its work is noted on each packet it happens to. */
static void tree_limits(proto_tree *t, tvbuff_t *tvb, packet_info *pinfo, const ornic_pkt *an) {
  const ornic_an_verdict *v = &an->v;
  if (v->flags & ORNIC_AN_UNTRACKED) {
    proto_item *pi = gen_flag(t, hf.an_untracked, tvb);
    const ornic_analysis_cfg *cfg = ornic_analysis_config();
    if (v->flags & ORNIC_AN_OVER_BUDGET) {
      pi = gen_flag(t, hf.an_over_budget, tvb);
      if (an->first_untracked)
        expert_add_info_format(pinfo, pi, &ei.over_budget,
                               "Analysis memory budget (%" PRIu64
                               " MiB) reached: new conversations are not analysed "
                               "(preference ornic.max_memory)",
                               cfg->max_memory >> 20);
    } else if (an->first_untracked) {
      expert_add_info_format(pinfo, pi, &ei.table_full,
                             "Conversation table full (%u conversations): new conversations "
                             "are not analysed",
                             cfg->max_convs);
    }
  }
  if (v->flags & ORNIC_AN_WORK_LIMIT) {
    proto_item *pi = gen_flag(t, hf.an_work_limit, tvb);
    expert_add_info(pinfo, pi, &ei.work_limit);
  }
  if (v->flags & ORNIC_AN_ACKED_BEFORE_SEEN) { /* capture quality, 8.5 */
    proto_item *pi = gen_flag(t, hf.an_acked_before_seen, tvb);
    expert_add_info(pinfo, pi, &ei.acked_before_seen);
  }
}

void ornic_tree_analysis(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const ornic_frame *f,
                         const ornic_pkt *an) {
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
  if (v->flags & ORNIC_AN_CM) gen_flag(t, hf.an_cm, tvb);
  if (v->flags & ORNIC_AN_PAIRED) gen_flag(t, hf.an_paired, tvb);
  tree_limits(t, tvb, pinfo, an);
  if (v->flags & ORNIC_AN_BEFORE_CAPTURE) {
    proto_item *pi = gen_flag(t, hf.an_before_capture, tvb);
    expert_add_info(pinfo, pi, &ei.before_capture);
  }
  if (v->pmtu) gen_uint(t, hf.an_pmtu, tvb, v->pmtu);
  tree_psn_relative(t, tvb, f, an);
  tree_problems(t, tvb, pinfo, an, (f->ext.present & ORNIC_HDR_NAKETH) != 0);
  tree_wqe(t, tvb, pinfo, an, f);
  tree_sequence(t, tvb, pinfo, an);
  tree_ack(t, tvb, pinfo, an);
  tree_timing(t, tvb, an);
  if (v->flags & ORNIC_AN_ECN) {
    proto_item *pi = gen_flag(t, hf.an_ecn, tvb);
    expert_add_info(pinfo, pi, &ei.ecn);
  }
}
