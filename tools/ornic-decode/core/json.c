/* SPDX-License-Identifier: MIT */
/* One JSON object per line, keys after Wireshark's infiniband.* fields.
 * 64-bit values (RETH/AtomicETH VA, atomic operands) are hex strings: JSON
 * numbers lose precision above 2^53 in most parsers. The timestamp is a
 * string for the same reason (nanoseconds since 1970 need 19 digits). */
#include <ornic/ornic.h>

#include "analysis.h"
#include "print.h"

/* K("name") is the pre-quoted key `"name":` and its length, as two arguments. */
#define K(lit) "\"" lit "\":", sizeof("\"" lit "\":") - 1

/* Emits `,"key":` (or `"key":` first in an object). */
static void key(dec_out *o, const char *k, size_t n, bool *first) {
  if (!*first) dec_out_char(o, ',');
  *first = false;
  dec_out_mem(o, k, n);
}

static void num(dec_out *o, const char *k, size_t n, uint64_t v, bool *first) {
  key(o, k, n, first);
  dec_out_u64(o, v);
}

static void hexstr(dec_out *o, const char *k, size_t n, uint64_t v, unsigned digits, bool *first) {
  key(o, k, n, first);
  dec_out_char(o, '"');
  dec_out_hex(o, v, digits);
  dec_out_char(o, '"');
}

static void str(dec_out *o, const char *k, size_t n, const char *v, bool *first) {
  key(o, k, n, first);
  dec_out_json_str(o, v);
}

/* `,"name":{` ... `}` */
static void obj_open(dec_out *o, const char *k, size_t n, bool *outer_first, bool *first) {
  key(o, k, n, outer_first);
  dec_out_char(o, '{');
  *first = true;
}

static void addr(dec_out *o, const char *k, size_t n, const uint8_t *a, bool v4, bool *first) {
  key(o, k, n, first);
  dec_out_char(o, '"');
  dec_out_addr(o, a, v4);
  dec_out_char(o, '"');
}

static void put_bth(dec_out *o, const ornic_bth *b, bool *outer) {
  bool f;
  obj_open(o, K("bth"), outer, &f);
  num(o, K("opcode"), b->opcode, &f);
  str(o, K("opcode_name"), ornic_opcode_name(b->opcode), &f);
  num(o, K("se"), b->se, &f);
  num(o, K("m"), b->m, &f);
  num(o, K("padcnt"), b->padcnt, &f);
  num(o, K("tver"), b->tver, &f);
  num(o, K("pkey"), b->pkey, &f);
  num(o, K("fecn"), b->fecn, &f);
  num(o, K("becn"), b->becn, &f);
  num(o, K("resv6"), b->resv6, &f);
  num(o, K("destqp"), b->destqp, &f);
  num(o, K("a"), b->ackreq, &f);
  num(o, K("resv7"), b->resv7, &f);
  num(o, K("psn"), b->psn, &f);
  dec_out_char(o, '}');
}

static void put_blocks(dec_out *o, const ornic_naketh *n, bool *f) {
  key(o, K("blocks"), f);
  dec_out_char(o, '[');
  for (unsigned k = 0; k < n->nblocks; k++) {
    if (k) dec_out_char(o, ',');
    dec_out_u64(o, ornic_naketh_block(n, k));
  }
  dec_out_char(o, ']');
}

typedef struct {
  dec_out *o;
  bool first;
} list_ctx;

static void put_missing_run(void *ctx, uint32_t first, uint32_t count) {
  list_ctx *lc = ctx;
  for (uint32_t i = 0; i < count; i++) {
    if (!lc->first) dec_out_char(lc->o, ',');
    lc->first = false;
    dec_out_u64(lc->o, ornic_psn_add(first, (int32_t)i));
  }
}

static void put_naketh(dec_out *o, const ornic_naketh *n, bool *outer) {
  bool f;
  obj_open(o, K("naketh"), outer, &f);
  num(o, K("reason"), n->reason, &f);
  str(o, K("reason_name"), ornic_naketh_reason_name(n->reason), &f);
  num(o, K("trigger_psn"), n->trigger_psn, &f);
  num(o, K("nblocks"), n->nblocks, &f);
  num(o, K("base_psn"), n->base_psn, &f);
  num(o, K("limit_psn"), n->limit_psn, &f);
  put_blocks(o, n, &f);
  key(o, K("missing_psns"), &f);
  dec_out_char(o, '[');
  list_ctx lc = {o, true};
  ornic_naketh_lost_iter it;
  uint32_t first, count;
  ornic_naketh_lost_begin(&it, n);
  while (ornic_naketh_lost_next_run(&it, &first, &count)) put_missing_run(&lc, first, count);
  dec_out_lit(o, "]}");
}

static void put_oacketh(dec_out *o, const ornic_oacketh *a, bool *outer) {
  bool f;
  obj_open(o, K("oacketh"), outer, &f);
  num(o, K("flags"), a->flags, &f);
  key(o, K("addr_cached"), &f);
  dec_out_str(o, a->flags & ORNIC_OACK_ADDR_CACHED ? "true" : "false");
  key(o, K("wqe_done"), &f);
  dec_out_str(o, a->flags & ORNIC_OACK_WQE_DONE ? "true" : "false");
  num(o, K("count"), a->count, &f);
  dec_out_char(o, '}');
}

static void put_aeth(dec_out *o, const ornic_aeth *a, bool *outer) {
  bool f;
  obj_open(o, K("aeth"), outer, &f);
  num(o, K("syndrome"), a->syndrome, &f);
  str(o, K("syndrome_name"), ornic_aeth_syndrome_name(a->syndrome), &f);
  num(o, K("msn"), a->msn, &f);
  dec_out_char(o, '}');
}

static void put_atomiceth(dec_out *o, const ornic_atomiceth *a, bool *outer) {
  bool f;
  obj_open(o, K("atomiceth"), outer, &f);
  hexstr(o, K("va"), a->va, 16, &f);
  num(o, K("r_key"), a->rkey, &f);
  hexstr(o, K("swap_add"), a->swap_add, 16, &f);
  hexstr(o, K("compare"), a->compare, 16, &f);
  dec_out_char(o, '}');
}

/* One extension header as `"name":{...}` (or a plain number for ImmDt/IETH). */
static void put_ext(dec_out *o, const ornic_ext *e, uint16_t bit, bool *outer) {
  bool f;
  switch (bit) {
  case ORNIC_HDR_RDETH:
    obj_open(o, K("rdeth"), outer, &f);
    num(o, K("een"), e->rdeth.een, &f);
    break;
  case ORNIC_HDR_DETH:
    obj_open(o, K("deth"), outer, &f);
    num(o, K("q_key"), e->deth.qkey, &f);
    num(o, K("srcqp"), e->deth.srcqp, &f);
    break;
  case ORNIC_HDR_XRCETH:
    obj_open(o, K("xrceth"), outer, &f);
    num(o, K("xrcsrq"), e->xrceth.xrcsrq, &f);
    break;
  case ORNIC_HDR_FETH:
    obj_open(o, K("feth"), outer, &f);
    num(o, K("value"), e->feth.value, &f);
    break;
  case ORNIC_HDR_RETH:
    obj_open(o, K("reth"), outer, &f);
    hexstr(o, K("va"), e->reth.va, 16, &f);
    num(o, K("r_key"), e->reth.rkey, &f);
    num(o, K("dmalen"), e->reth.dmalen, &f);
    break;
  case ORNIC_HDR_OFFETH:
    obj_open(o, K("offeth"), outer, &f);
    num(o, K("offset"), e->offeth.offset, &f);
    break;
  case ORNIC_HDR_ATOMICETH: put_atomiceth(o, &e->atomiceth, outer); return;
  case ORNIC_HDR_AETH: put_aeth(o, &e->aeth, outer); return;
  case ORNIC_HDR_ATOMICACKETH:
    obj_open(o, K("atomicacketh"), outer, &f);
    hexstr(o, K("orig_rdata"), e->atomicacketh.orig, 16, &f);
    break;
  case ORNIC_HDR_OACKETH: put_oacketh(o, &e->oacketh, outer); return;
  case ORNIC_HDR_NAKETH: put_naketh(o, &e->naketh, outer); return;
  case ORNIC_HDR_IMMDT: num(o, K("immdt"), e->immdt.data, outer); return;
  case ORNIC_HDR_IETH: num(o, K("ieth"), e->ieth.rkey, outer); return;
  case ORNIC_HDR_CNP: obj_open(o, K("cnp"), outer, &f); break;
  default: return;
  }
  dec_out_char(o, '}');
}

static void put_icrc(dec_out *o, const dec_packet *pk, bool *outer) {
  bool f;
  obj_open(o, K("icrc"), outer, &f);
  if (pk->f.icrc_present) {
    hexstr(o, K("value"), pk->f.icrc, 8, &f);
  } else {
    key(o, K("value"), &f);
    dec_out_lit(o, "null");
  }
  key(o, K("ok"), &f);
  dec_out_str(o, pk->icrc == DEC_ICRC_OK ? "true" : pk->icrc == DEC_ICRC_BAD ? "false" : "null");
  if (pk->icrc == DEC_ICRC_BAD) hexstr(o, K("expected"), pk->icrc_want, 8, &f);
  dec_out_char(o, '}');
}

/* Native InfiniBand: "vcrc": {value, ok, expected (if bad)}, as "icrc". */
static void put_vcrc(dec_out *o, const dec_packet *pk, bool *outer) {
  bool f;
  obj_open(o, K("vcrc"), outer, &f);
  if (pk->f.vcrc_present) {
    hexstr(o, K("value"), pk->f.vcrc, 4, &f);
  } else {
    key(o, K("value"), &f);
    dec_out_lit(o, "null");
  }
  key(o, K("ok"), &f);
  dec_out_str(o, pk->vcrc == DEC_ICRC_OK ? "true" : pk->vcrc == DEC_ICRC_BAD ? "false" : "null");
  if (pk->vcrc == DEC_ICRC_BAD) hexstr(o, K("expected"), pk->vcrc_want, 4, &f);
  dec_out_char(o, '}');
}

/* Native InfiniBand: "lrh": {...}, after Wireshark's infiniband.lrh.* fields. */
static void put_lrh(dec_out *o, const ornic_lrh *l, bool *outer) {
  bool f;
  obj_open(o, K("lrh"), outer, &f);
  num(o, K("vl"), l->vl, &f);
  num(o, K("lver"), l->lver, &f);
  num(o, K("sl"), l->sl, &f);
  num(o, K("reserved2"), l->resv2, &f);
  num(o, K("lnh"), l->lnh, &f);
  num(o, K("dlid"), l->dlid, &f);
  num(o, K("reserved5"), l->resv5, &f);
  num(o, K("pktlen"), l->pktlen, &f);
  num(o, K("slid"), l->slid, &f);
  dec_out_char(o, '}');
}

static void put_warnings(dec_out *o, uint32_t w, bool *outer) {
  if (!w) return;
  key(o, K("warnings"), outer);
  dec_out_char(o, '[');
  for (unsigned i = 0, first = 1; i < ORNIC_LINT_COUNT; i++) {
    if (!(w & (1u << i))) continue;
    if (!first) dec_out_char(o, ',');
    dec_out_json_str(o, ornic_lint_name(i));
    first = 0;
  }
  dec_out_char(o, ']');
}

static void put_head(dec_out *o, const dec_packet *pk, bool *f) {
  num(o, K("frame"), pk->frame, f);
  key(o, K("time"), f);
  dec_out_char(o, '"');
  dec_out_time(o, pk->sec, pk->nsec);
  dec_out_char(o, '"');
}

static void put_layers(dec_out *o, const dec_packet *pk, bool *f) {
  const ornic_frame *fr = &pk->f;
  num(o, K("frame_len"), pk->wire_len, f);
  num(o, K("cap_len"), pk->caplen, f);
  if (pk->has_vlan) num(o, K("vlan"), fr->eth.vlan_tci & 0x0fff, f);
  if (fr->layers & ORNIC_LAYER_LRH) put_lrh(o, &fr->lrh, f);
  if (pk->has_l3) {
    bool v4 = fr->l3 == ORNIC_L3_IPV4;
    str(o, K("l3"), v4 ? "ipv4" : fr->l3 == ORNIC_L3_IPV6 ? "ipv6" : "grh", f);
    addr(o, K("src"), fr->ip.src, v4, f);
    addr(o, K("dst"), fr->ip.dst, v4, f);
  }
  if (pk->has_udp) num(o, K("udp_sport"), fr->udp.sport, f);
}

static void put_transport(dec_out *o, const dec_packet *pk, bool *f) {
  const ornic_frame *fr = &pk->f;
  put_bth(o, &fr->bth, f);
  for (unsigned i = 0; i < ORNIC_HDR_COUNT; i++)
    if (fr->ext.present & (1u << i)) put_ext(o, &fr->ext, (uint16_t)(1u << i), f);
  if (pk->has_payload) {
    num(o, K("payload_len"), fr->payload_len, f);
    if (fr->payload_caplen < fr->payload_len) num(o, K("payload_caplen"), fr->payload_caplen, f);
  }
  put_icrc(o, pk, f);
  if (fr->link == ORNIC_LINK_IB) put_vcrc(o, pk, f);
  put_warnings(o, pk->warnings, f);
}

/* A frame number, null when 0 (unknown). */
static void frame_ref(dec_out *o, const char *k, size_t n, uint64_t v, bool *first) {
  key(o, k, n, first);
  if (v)
    dec_out_u64(o, v);
  else
    dec_out_lit(o, "null");
}

/* The timing bits say which "time" keys are present (put_an_time): not listed. */
#define AN_TIME_BITS (ORNIC_AN_SINCE_PREV | ORNIC_AN_ACK_RTT | ORNIC_AN_MSG_TIME)

static void put_an_flags(dec_out *o, uint32_t flags, bool *outer) {
  flags &= ~(uint32_t)AN_TIME_BITS;
  key(o, K("flags"), outer);
  dec_out_char(o, '[');
  bool first = true;
  for (unsigned i = 0; i < 32; i++) {
    if (!(flags & (1u << i))) continue;
    const char *name = ornic_an_flag_name(1u << i);
    if (!name) continue;
    if (!first) dec_out_char(o, ',');
    dec_out_json_str(o, name);
    first = false;
  }
  dec_out_char(o, ']');
}

static void put_an_wqe(dec_out *o, const ornic_an_verdict *v, bool *outer) {
  bool f;
  obj_open(o, K("wqe"), outer, &f);
  num(o, K("id"), v->wqe, &f);
  num(o, K("start_psn"), v->wqe_start_psn, &f);
  if (v->wqe_npkts) { /* the message's size is known */
    num(o, K("last_psn"), v->wqe_last_psn, &f);
    num(o, K("npkts"), v->wqe_npkts, &f);
  } else {
    key(o, K("last_psn"), &f);
    dec_out_lit(o, "null");
    key(o, K("npkts"), &f);
    dec_out_lit(o, "null");
  }
  num(o, K("pkt"), v->wqe_pkt, &f);
  if (v->flags & (ORNIC_AN_ADDR | ORNIC_AN_PMTU_UNKNOWN)) { /* it has a RETH */
    hexstr(o, K("start_addr"), v->wqe_start_addr, 16, &f);
    num(o, K("len"), v->wqe_len, &f);
  }
  frame_ref(o, K("frame"), v->wqe_frame, &f);
  dec_out_char(o, '}');
}

/* "time": the engine's timing in ns (PROTOCOL.md 8.8), each key when valid. */
static void put_an_time(dec_out *o, const ornic_an_verdict *v, bool *outer) {
  bool f;
  if (!(v->flags & AN_TIME_BITS)) return;
  obj_open(o, K("time"), outer, &f);
  if (v->flags & ORNIC_AN_SINCE_PREV) num(o, K("since_prev_ns"), v->since_prev_ns, &f);
  if (v->flags & ORNIC_AN_ACK_RTT) num(o, K("ack_rtt_ns"), v->ack_rtt_ns, &f);
  if (v->flags & ORNIC_AN_MSG_TIME) num(o, K("msg_time_ns"), v->msg_time_ns, &f);
  dec_out_char(o, '}');
}

/* `{first,count}` objects: not_captured, loss, hole. */
static void put_an_run(dec_out *o, const char *k, size_t n, const char *fk, size_t fn,
                       uint32_t first, uint32_t count, bool *outer) {
  bool f;
  obj_open(o, k, n, outer, &f);
  num(o, fk, fn, first, &f);
  num(o, K("count"), count, &f);
  dec_out_char(o, '}');
}

/* The engine's verdict; a field appears when the flags say it is valid. */
static void put_analysis(dec_out *o, const dec_packet *pk, bool *outer) {
  const ornic_an_verdict *v = &pk->an;
  uint32_t fl = v->flags;
  bool f;
  obj_open(o, K("analysis"), outer, &f);
  frame_ref(o, K("conv"), v->conv, &f);
  if (v->conv) {
    str(o, K("dir"), dec_an_dir_key(v->dir), &f);
    str(o, K("role"), dec_an_role_key(v->role), &f);
  } else { /* untracked: no conversation to be in */
    key(o, K("dir"), &f);
    dec_out_lit(o, "null");
    key(o, K("role"), &f);
    dec_out_lit(o, "null");
  }
  put_an_flags(o, fl, &f);
  if (v->pmtu) num(o, K("pmtu"), v->pmtu, &f);
  if (fl & ORNIC_AN_SEQ) {
    num(o, K("hpsn"), v->hpsn, &f);
    num(o, K("epsn"), v->epsn, &f);
  }
  if (fl & (ORNIC_AN_OOO | ORNIC_AN_DUP | ORNIC_AN_RETRANS))
    num(o, K("ooo_distance"), v->ooo_distance, &f);
  if (fl & (ORNIC_AN_DUP | ORNIC_AN_RETRANS)) frame_ref(o, K("first_frame"), v->first_frame, &f);
  if (fl & ORNIC_AN_RETRANS) frame_ref(o, K("asked_frame"), v->asked_frame, &f);
  if (fl & ORNIC_AN_OTD_EXCEEDED)
    put_an_run(o, K("hole"), K("first_psn"), v->hole_first, v->hole_count, &f);
  if (fl & ORNIC_AN_ADDR) hexstr(o, K("addr"), v->addr, 16, &f);
  if (fl & ORNIC_AN_WQE) put_an_wqe(o, v, &f);
  if (v->read_frame) num(o, K("read_frame"), v->read_frame, &f);
  if (fl & ORNIC_AN_ACK) {
    bool a;
    obj_open(o, K("ack"), &f, &a);
    num(o, K("prev"), v->ack_prev, &a);
    num(o, K("newly"), v->ack_newly, &a);
    frame_ref(o, K("frame_of"), v->ack_frame_of, &a);
    dec_out_char(o, '}');
  }
  if (fl & ORNIC_AN_NOT_CAPTURED)
    put_an_run(o, K("not_captured"), K("first"), v->not_captured_first, v->not_captured, &f);
  if (fl & ORNIC_AN_LOSS)
    put_an_run(o, K("loss"), K("first_psn"), v->loss_first_psn, v->loss_count, &f);
  if (fl & ORNIC_AN_MSN) num(o, K("msn_delta"), v->msn_delta, &f);
  if (fl & ORNIC_AN_WQE_DONE) num(o, K("wqe_completed"), v->wqe_completed, &f);
  if ((fl & ORNIC_AN_NAK) && (pk->f.ext.present & ORNIC_HDR_NAKETH))
    num(o, K("nak_lost"), v->nak_lost, &f);
  put_an_time(o, v, &f);
  dec_out_char(o, '}');
}

void dec_json_packet(dec_out *o, const dec_packet *pk) {
  bool f = true;
  dec_out_char(o, '{');
  put_head(o, pk, &f);
  put_layers(o, pk, &f);
  if (pk->has_bth) put_transport(o, pk, &f);
  if (dec_has_verdict(pk)) put_analysis(o, pk, &f);
  key(o, K("error"), &f);
  if (pk->error)
    dec_out_json_str(o, pk->error);
  else
    dec_out_lit(o, "null");
  dec_out_char(o, '}');
  dec_out_eol(o);
}

void dec_json_skipped(dec_out *o, const dec_packet *pk) {
  bool f = true;
  dec_out_char(o, '{');
  put_head(o, pk, &f);
  str(o, K("skipped"), dec_skip_text(pk->skip), &f);
  dec_out_char(o, '}');
  dec_out_eol(o);
}
