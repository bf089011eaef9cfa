/* SPDX-License-Identifier: MIT */
/* The one-line text format:
 *   frame time src > dst OPCODE qp=0x.. psn=N [flags] headers... len=N icrc=ok
 * key=value tokens so that grep and awk work on it; names in parentheses
 * are for people. The conversation engine's verdict comes last: conv=,
 * wqe=, addr= tokens, then one bracketed tag per finding, as tshark's
 * "[TCP Retransmission]" in its Info column. */
#include <ornic/ornic.h>

#include "analysis.h"
#include "print.h"

/* KEY(" psn=") is a literal and its length, as two arguments. */
#define KEY(lit) lit, sizeof(lit) - 1

static void kv_hex(dec_out *o, const char *key, size_t n, uint64_t v, unsigned digits) {
  dec_out_mem(o, key, n);
  dec_out_hex(o, v, digits);
}

static void kv_u64(dec_out *o, const char *key, size_t n, uint64_t v) {
  dec_out_mem(o, key, n);
  dec_out_u64(o, v);
}

static void kv_named(dec_out *o, const char *key, size_t n, uint64_t v, unsigned digits,
                     const char *name) {
  kv_hex(o, key, n, v, digits);
  dec_out_char(o, '(');
  dec_out_str(o, name);
  dec_out_char(o, ')');
}

/* Native InfiniBand: " IB slid=S dlid=D vl= sl= pktlen=" (+ lver, reserved
 * bits when set). */
static void put_lrh(dec_out *o, const ornic_lrh *l) {
  kv_u64(o, KEY(" IB slid="), l->slid);
  kv_u64(o, KEY(" dlid="), l->dlid);
  kv_u64(o, KEY(" vl="), l->vl);
  kv_u64(o, KEY(" sl="), l->sl);
  kv_u64(o, KEY(" pktlen="), l->pktlen);
  if (l->lver) kv_u64(o, KEY(" lver="), l->lver);
  if (l->resv2) kv_hex(o, KEY(" lrh_resv2="), l->resv2, 1);
  if (l->resv5) kv_hex(o, KEY(" lrh_resv5="), l->resv5, 2);
}

static void put_prefix(dec_out *o, const dec_packet *pk) {
  const ornic_frame *f = &pk->f;
  dec_out_u64(o, pk->frame);
  dec_out_char(o, ' ');
  dec_out_time(o, pk->sec, pk->nsec);
  if (pk->has_l3) {
    bool v4 = f->l3 == ORNIC_L3_IPV4;
    dec_out_char(o, ' ');
    dec_out_addr(o, f->ip.src, v4);
    dec_out_lit(o, " > ");
    dec_out_addr(o, f->ip.dst, v4);
    if (f->l3 == ORNIC_L3_GRH && f->link != ORNIC_LINK_IB) dec_out_lit(o, " RoCEv1");
  }
  if (f->layers & ORNIC_LAYER_LRH) put_lrh(o, &f->lrh);
  if (pk->has_vlan) kv_u64(o, KEY(" vlan="), f->eth.vlan_tci & 0x0fff);
}

static void put_flag(dec_out *o, bool on, const char *name, bool *first) {
  if (!on) return;
  dec_out_str(o, *first ? " [" : ",");
  dec_out_str(o, name);
  *first = false;
}

static void put_bth(dec_out *o, const ornic_bth *b) {
  const char *name = ornic_opcode_info_get(b->opcode)->short_name;
  dec_out_char(o, ' ');
  if (name) {
    dec_out_str(o, name);
  } else {
    dec_out_lit(o, "UNKNOWN_");
    dec_out_hex(o, b->opcode, 2);
  }
  kv_hex(o, KEY(" qp="), b->destqp, 6);
  kv_u64(o, KEY(" psn="), b->psn);
  bool first = true;
  put_flag(o, b->ackreq, "A", &first);
  put_flag(o, b->se, "SE", &first);
  put_flag(o, b->m, "M", &first);
  put_flag(o, b->fecn, "FECN", &first);
  put_flag(o, b->becn, "BECN", &first);
  if (!first) dec_out_char(o, ']');
  if (b->pkey != 0xffff) kv_hex(o, KEY(" pkey="), b->pkey, 4);
  if (b->tver) kv_u64(o, KEY(" tver="), b->tver);
  if (b->resv6) kv_hex(o, KEY(" resv6="), b->resv6, 2);
  if (b->resv7) kv_hex(o, KEY(" resv7="), b->resv7, 2);
}

typedef struct {
  dec_out *o;
  bool first;
} run_ctx;

static void put_missing_run(void *ctx, uint32_t first, uint32_t count) {
  run_ctx *rc = ctx;
  dec_out *o = rc->o;
  if (!rc->first) dec_out_char(o, ',');
  rc->first = false;
  dec_out_u64(o, first);
  if (count > 1) {
    dec_out_char(o, '-');
    dec_out_u64(o, ornic_psn_add(first, (int32_t)(count - 1)));
  }
}

static void put_nak(dec_out *o, const ornic_naketh *n) {
  kv_named(o, KEY(" nak="), n->reason, 0, ornic_naketh_reason_name(n->reason));
  kv_u64(o, KEY(" trigger="), n->trigger_psn);
  kv_u64(o, KEY(" base="), n->base_psn);
  kv_u64(o, KEY(" limit="), n->limit_psn);
  kv_u64(o, KEY(" nblocks="), n->nblocks);
  dec_out_lit(o, " missing=");
  run_ctx rc = {o, true};
  ornic_naketh_lost_iter it;
  uint32_t first, count, missing = 0;
  ornic_naketh_lost_begin(&it, n);
  while (ornic_naketh_lost_next_run(&it, &first, &count)) {
    put_missing_run(&rc, first, count);
    missing += count;
  }
  if (!missing)
    dec_out_lit(o, "none");
  else
    kv_u64(o, KEY(" nmissing="), missing);
}

static void put_oack(dec_out *o, const ornic_oacketh *a) {
  static const char *const names[4] = {"-", "addr_cached", "wqe_done", "addr_cached,wqe_done"};
  kv_named(o, KEY(" oack="), a->flags, 2, names[a->flags & 3]);
  kv_u64(o, KEY(" count="), a->count);
}

/* One extension header; bits come in wire order. */
static void put_ext(dec_out *o, const ornic_ext *e, uint16_t bit) {
  switch (bit) {
  case ORNIC_HDR_RDETH: kv_hex(o, KEY(" een="), e->rdeth.een, 6); break;
  case ORNIC_HDR_DETH:
    kv_hex(o, KEY(" qkey="), e->deth.qkey, 8);
    kv_hex(o, KEY(" srcqp="), e->deth.srcqp, 6);
    break;
  case ORNIC_HDR_XRCETH: kv_hex(o, KEY(" xrcsrq="), e->xrceth.xrcsrq, 6); break;
  case ORNIC_HDR_FETH: kv_hex(o, KEY(" feth="), e->feth.value, 8); break;
  case ORNIC_HDR_RETH:
    kv_hex(o, KEY(" va="), e->reth.va, 16);
    kv_hex(o, KEY(" rkey="), e->reth.rkey, 8);
    kv_u64(o, KEY(" dmalen="), e->reth.dmalen);
    break;
  case ORNIC_HDR_OFFETH: kv_u64(o, KEY(" offset="), e->offeth.offset); break;
  case ORNIC_HDR_ATOMICETH:
    kv_hex(o, KEY(" va="), e->atomiceth.va, 16);
    kv_hex(o, KEY(" rkey="), e->atomiceth.rkey, 8);
    kv_hex(o, KEY(" swap_add="), e->atomiceth.swap_add, 0);
    kv_hex(o, KEY(" compare="), e->atomiceth.compare, 0);
    break;
  case ORNIC_HDR_AETH:
    kv_named(o, KEY(" aeth="), e->aeth.syndrome, 2, ornic_aeth_syndrome_name(e->aeth.syndrome));
    kv_u64(o, KEY(" msn="), e->aeth.msn);
    break;
  case ORNIC_HDR_ATOMICACKETH: kv_hex(o, KEY(" orig="), e->atomicacketh.orig, 0); break;
  case ORNIC_HDR_OACKETH: put_oack(o, &e->oacketh); break;
  case ORNIC_HDR_NAKETH: put_nak(o, &e->naketh); break;
  case ORNIC_HDR_IMMDT: kv_hex(o, KEY(" imm="), e->immdt.data, 8); break;
  case ORNIC_HDR_IETH: kv_hex(o, KEY(" inv_rkey="), e->ieth.rkey, 8); break;
  default: break; /* CNP: 16 reserved bytes */
  }
}

static void put_icrc(dec_out *o, const dec_packet *pk) {
  switch (pk->icrc) {
  case DEC_ICRC_OK: dec_out_lit(o, " icrc=ok"); break;
  case DEC_ICRC_BAD:
    dec_out_lit(o, " icrc=BAD(got ");
    dec_out_hex(o, pk->f.icrc, 8);
    dec_out_lit(o, " want ");
    dec_out_hex(o, pk->icrc_want, 8);
    dec_out_char(o, ')');
    break;
  case DEC_ICRC_UNCHECKED: dec_out_lit(o, " icrc=unchecked"); break;
  default: dec_out_lit(o, " icrc=n/a"); break;
  }
}

/* Native InfiniBand: " vcrc=ok", "=BAD(got X want Y)", "=unchecked", "=n/a"
 * (values as the two wire bytes read little-endian, as the iCRC's). */
static void put_vcrc(dec_out *o, const dec_packet *pk) {
  switch (pk->vcrc) {
  case DEC_ICRC_OK: dec_out_lit(o, " vcrc=ok"); break;
  case DEC_ICRC_BAD:
    dec_out_lit(o, " vcrc=BAD(got ");
    dec_out_hex(o, pk->f.vcrc, 4);
    dec_out_lit(o, " want ");
    dec_out_hex(o, pk->vcrc_want, 4);
    dec_out_char(o, ')');
    break;
  case DEC_ICRC_UNCHECKED: dec_out_lit(o, " vcrc=unchecked"); break;
  default: dec_out_lit(o, " vcrc=n/a"); break;
  }
}

static void put_warnings(dec_out *o, uint32_t w) {
  if (!w) return;
  dec_out_lit(o, " warn=");
  for (unsigned i = 0, first = 1; i < ORNIC_LINT_COUNT; i++) {
    if (!(w & (1u << i))) continue;
    if (!first) dec_out_char(o, ',');
    dec_out_str(o, ornic_lint_name(i));
    first = 0;
  }
}

static void put_body(dec_out *o, const dec_packet *pk) {
  const ornic_frame *f = &pk->f;
  put_bth(o, &f->bth);
  for (unsigned i = 0; i < ORNIC_HDR_COUNT; i++)
    if (f->ext.present & (1u << i)) put_ext(o, &f->ext, (uint16_t)(1u << i));
  if (pk->has_payload) {
    kv_u64(o, KEY(" len="), f->payload_len);
    if (f->payload_caplen < f->payload_len) kv_u64(o, KEY(" captured="), f->payload_caplen);
  }
  if (pk->snap_cut) {
    kv_u64(o, KEY(" snap="), pk->caplen);
    dec_out_char(o, '/');
    dec_out_u64(o, pk->wire_len);
  }
  put_icrc(o, pk);
  if (f->link == ORNIC_LINK_IB) put_vcrc(o, pk);
  put_warnings(o, pk->warnings);
}

/* " N PSN(s) from FIRST" */
static void put_psn_run(dec_out *o, uint32_t count, uint32_t first) {
  dec_out_char(o, ' ');
  dec_out_u64(o, count);
  if (count == 1)
    dec_out_lit(o, " PSN from ");
  else
    dec_out_lit(o, " PSNs from ");
  dec_out_u64(o, first);
}

/* The tags, problems first, in a fixed order. */
static void put_tags(dec_out *o, const ornic_an_verdict *v) {
  uint32_t fl = v->flags;
  if (fl & ORNIC_AN_UNTRACKED) dec_out_lit(o, " [Untracked: conversation table full]");
  if (fl & ORNIC_AN_RETRANS) dec_out_lit(o, " [Retransmission]");
  if (fl & ORNIC_AN_DUP) dec_out_lit(o, " [Duplicate]");
  if (fl & ORNIC_AN_LOSS) {
    dec_out_lit(o, " [Loss:");
    put_psn_run(o, v->loss_count, v->loss_first_psn);
    dec_out_char(o, ']');
  }
  if (fl & ORNIC_AN_NAK) dec_out_lit(o, " [NAK]");
  if (fl & ORNIC_AN_ACK_STALE) dec_out_lit(o, " [Stale ACK]");
  if (fl & ORNIC_AN_NOT_CAPTURED) {
    dec_out_lit(o, " [ACKed unseen:");
    put_psn_run(o, v->not_captured, v->not_captured_first);
    dec_out_char(o, ']');
  }
  if (fl & ORNIC_AN_OOO) {
    dec_out_lit(o, " [OOO ");
    dec_out_u64(o, v->ooo_distance);
    dec_out_char(o, ']');
  }
  if (fl & ORNIC_AN_PROBE) dec_out_lit(o, " [Probe]");
  if (fl & ORNIC_AN_READ_RETRY) dec_out_lit(o, " [READ retry]");
  if (fl & ORNIC_AN_OTD_EXCEEDED) {
    dec_out_lit(o, " [OTD exceeded:");
    put_psn_run(o, v->hole_count, v->hole_first);
    dec_out_char(o, ']');
  }
}

static void put_analysis(dec_out *o, const dec_packet *pk) {
  const ornic_an_verdict *v = &pk->an;
  if (v->conv) kv_u64(o, KEY(" conv="), v->conv);
  if (v->flags & ORNIC_AN_WQE) kv_u64(o, KEY(" wqe="), v->wqe);
  if (v->flags & ORNIC_AN_ADDR) kv_hex(o, KEY(" addr="), v->addr, 16);
  put_tags(o, v);
}

void dec_text_packet(dec_out *o, const dec_packet *pk) {
  put_prefix(o, pk);
  if (pk->has_bth) put_body(o, pk);
  if (dec_has_verdict(pk)) put_analysis(o, pk);
  if (pk->error) {
    dec_out_lit(o, " error: ");
    dec_out_str(o, pk->error);
  }
  dec_out_eol(o);
}

void dec_text_skipped(dec_out *o, const dec_packet *pk) {
  dec_out_u64(o, pk->frame);
  dec_out_char(o, ' ');
  dec_out_time(o, pk->sec, pk->nsec);
  dec_out_lit(o, " skipped: ");
  dec_out_str(o, dec_skip_text(pk->skip));
  dec_out_eol(o);
}
