/* SPDX-License-Identifier: MIT */
/* The one-line text format:
 *   frame time src > dst OPCODE qp=0x.. psn=N [flags] headers... len=N icrc=ok
 * key=value tokens so that grep and awk work on it; names in parentheses
 * are for people. The conversation engine's verdict comes last: conv=,
 * wqe=, addr= tokens, then one bracketed tag per finding, as tshark's
 * "[TCP Retransmission]" in its Info column.
 *
 * Written into spans of the output buffer (outbuf.h); each function
 * reserves the room its part can take (the sizes in its comment). */
#include <ornic/ornic.h>

#include "analysis.h"
#include "names.h"
#include "print.h"

#define LIT(lit) (p = DEC_PUT_LIT(p, lit))
#define U(v) (p = dec_put_u64_inlined(p, (uint64_t)(v)))
#define HEX(v, digits) (p = dec_put_hex(p, (v), (digits)))
#define ROOM(n) (p = dec_out_span(o, p, (n)))
/* The parts every RoCE line has, folded into their caller: a call's saved
 * registers cost more than some of the parts. */
#define INLINE static inline __attribute__((always_inline))

/* A library name in a span of at least DEC_NAME_MAX bytes; a longer one
 * through the buffer, then the span is taken again. */
static inline char *put_name(dec_out *o, char *p, dec_name nm, size_t room) {
  if (nm.n == 0) return p;
  if (nm.n <= DEC_NAME_MAX) return dec_put_name(p, nm);
  dec_out_end(o, p);
  dec_out_mem(o, nm.s, nm.n);
  return dec_out_room(o, room);
}

/* Native InfiniBand: " IB slid=S dlid=D vl= sl= pktlen=" (+ lver, reserved
 * bits when set). 110 bytes */
static char *put_lrh(char *p, const ornic_lrh *l) {
  LIT(" IB slid=");
  U(l->slid);
  LIT(" dlid=");
  U(l->dlid);
  LIT(" vl=");
  U(l->vl);
  LIT(" sl=");
  U(l->sl);
  LIT(" pktlen=");
  U(l->pktlen);
  if (l->lver) {
    LIT(" lver=");
    U(l->lver);
  }
  if (l->resv2) {
    LIT(" lrh_resv2=");
    HEX(l->resv2, 1);
  }
  if (l->resv5) {
    LIT(" lrh_resv5=");
    HEX(l->resv5, 2);
  }
  return p;
}

/* " SRC > DST [RoCEv1]": 110 bytes; remembered for IPv4 pairs. */
static char *put_addrs(dec_out *o, char *p, const ornic_frame *f) {
  static dec_frag_cache cache;
  bool v4 = f->l3 == ORNIC_L3_IPV4;
  uint64_t k0 = 0;
  dec_frag *fr = v4 ? dec_frag_ip4_slot(&cache, f->ip.src, f->ip.dst, &k0) : NULL;
  if (fr && dec_frag_hit(fr, k0, 1)) return dec_frag_put(p, fr);
  char *start = p;
  *p++ = ' ';
  p = dec_put_addr(o, p, f->ip.src, v4);
  LIT(" > ");
  p = dec_put_addr(o, p, f->ip.dst, v4);
  if (f->l3 == ORNIC_L3_GRH && f->link != ORNIC_LINK_IB) LIT(" RoCEv1");
  if (fr) dec_frag_keep(fr, k0, 1, start, (size_t)(p - start));
  return p;
}

/* "FRAME TIME": 55 bytes */
static char *put_frame_time(dec_out *o, char *p, const dec_packet *pk) {
  p = dec_put_frame(o, p, pk->frame);
  *p++ = ' ';
  return dec_put_time(o, p, pk->sec, pk->nsec);
}

/* Addresses, LRH, VLAN: 110 + 110 + 20 bytes */
static char *put_layers(dec_out *o, char *p, const dec_packet *pk) {
  const ornic_frame *f = &pk->f;
  if (pk->has_l3) p = put_addrs(o, p, f);
  if (f->layers & ORNIC_LAYER_LRH) p = put_lrh(p, &f->lrh);
  if (pk->has_vlan) {
    LIT(" vlan=");
    U(f->eth.vlan_tci & 0x0fff);
  }
  return p;
}

/* " [A,SE,M,FECN,BECN]": 20 bytes */
static char *put_flags(char *p, const ornic_bth *b) {
  if (!(b->ackreq | b->se | b->m | b->fecn | b->becn)) return p;
  const char *sep = " [";
  size_t n = 2;
#define FLAG(on, lit)           \
  if (on) {                     \
    p = dec_put_mem(p, sep, n); \
    LIT(lit);                   \
    sep = ",";                  \
    n = 1;                      \
  }
  FLAG(b->ackreq, "A")
  FLAG(b->se, "SE")
  FLAG(b->m, "M")
  FLAG(b->fecn, "FECN")
  FLAG(b->becn, "BECN")
#undef FLAG
  if (n == 1) *p++ = ']';
  return p;
}

/* " NAME qp=0x..": 20 bytes + the name; remembered per opcode and QP. */
static char *put_name_qp(dec_out *o, char *p, const ornic_bth *b) {
  static dec_frag_cache cache;
  uint64_t k0 = b->opcode | (uint64_t)b->destqp << 8;
  dec_frag *f = dec_frag_slot(&cache, k0, 0);
  if (dec_frag_hit(f, k0, 0)) return dec_frag_put(p, f);
  dec_name name = dec_opcode_short_name(b->opcode);
  size_t at = (size_t)(p - o->buf);
  uint64_t flushes = o->flushes;
  *p++ = ' ';
  if (name.s) {
    p = put_name(o, p, name, 130);
  } else {
    LIT("UNKNOWN_");
    HEX(b->opcode, 2);
  }
  LIT(" qp=");
  HEX(b->destqp, 6);
  if (o->flushes == flushes) dec_frag_keep(f, k0, 0, o->buf + at, (size_t)(p - o->buf) - at);
  return p;
}

/* The key of " SRC > DST NAME qp=0x.." as one fragment, when nothing comes
 * between the addresses and the opcode (IPv4, no LRH, no VLAN tag) and
 * there is a BTH: k0 the addresses, k1 the opcode and QP. */
static bool addrs_qp_key(const dec_packet *pk, uint64_t *k0, uint64_t *k1) {
  const ornic_frame *f = &pk->f;
  if (!pk->has_bth || !pk->has_l3 || f->l3 != ORNIC_L3_IPV4 || pk->has_vlan ||
      (f->layers & ORNIC_LAYER_LRH))
    return false;
  uint32_t s4, d4;
  memcpy(&s4, f->ip.src, 4);
  memcpy(&d4, f->ip.dst, 4);
  *k0 = s4 | (uint64_t)d4 << 32;
  *k1 = f->bth.opcode | (uint64_t)f->bth.destqp << 8;
  return true;
}

/* " SRC > DST NAME qp=0x..": 34 + 20 bytes + the name, or the fragment
 * copied 64 bytes at a time (DEC_FRAG_COPY). One lookup where there were
 * two: remembered per address pair, opcode and QP. */
static char *put_addrs_name_qp(dec_out *o, char *p, const dec_packet *pk, uint64_t k0,
                               uint64_t k1) {
  static dec_frag_cache cache;
  dec_frag *f = dec_frag_slot(&cache, k0, k1);
  if (dec_frag_hit(f, k0, k1)) return dec_frag_put(p, f);
  size_t at = (size_t)(p - o->buf); /* a long name may flush: where the span starts */
  uint64_t flushes = o->flushes;
  p = put_addrs(o, p, &pk->f);
  ROOM(DEC_FRAG_COPY); /* the name's fragment is copied 64 bytes at a time */
  p = put_name_qp(o, p, &pk->f.bth);
  if (o->flushes == flushes) dec_frag_keep(f, k0, k1, o->buf + at, (size_t)(p - o->buf) - at);
  return p;
}

/* After the name and QP: 130 bytes */
INLINE char *put_bth(dec_out *o, char *p, const ornic_bth *b) {
  ROOM(130);
  LIT(" psn=");
  U(b->psn);
  p = put_flags(p, b);
  if (b->pkey != 0xffff) {
    LIT(" pkey=");
    HEX(b->pkey, 4);
  }
  if (b->tver) {
    LIT(" tver=");
    U(b->tver);
  }
  if (b->resv6) {
    LIT(" resv6=");
    HEX(b->resv6, 2);
  }
  if (b->resv7) {
    LIT(" resv7=");
    HEX(b->resv7, 2);
  }
  return p;
}

/* Runs of a NAK's lost set a text line shows: a NAK of 255 blocks may hold
 * 2,040 (about 49 KB of text for one packet); the rest are counted, and
 * nmissing= is the whole set. --json lists every PSN. */
#define TEXT_NAK_RUNS 16

/* " nak=0xR(NAME) trigger= base= limit= nblocks= missing=RUNS nmissing=N":
 * 100 bytes + the name, 24 bytes per run */
static char *put_nak(dec_out *o, char *p, const ornic_naketh *n) {
  ROOM(100 + DEC_NAME_MAX);
  LIT(" nak=");
  HEX(n->reason, 0);
  *p++ = '(';
  p = put_name(o, p, dec_nak_reason_name(n->reason), 100);
  LIT(") trigger=");
  U(n->trigger_psn);
  LIT(" base=");
  U(n->base_psn);
  LIT(" limit=");
  U(n->limit_psn);
  LIT(" nblocks=");
  U(n->nblocks);
  LIT(" missing=");
  ornic_naketh_lost_iter it;
  uint32_t first, count, missing = 0, runs = 0;
  ornic_naketh_lost_begin(&it, n);
  while (runs < TEXT_NAK_RUNS && ornic_naketh_lost_next_run(&it, &first, &count)) {
    ROOM(24);
    if (runs++) *p++ = ',';
    U(first);
    if (count > 1) {
      *p++ = '-';
      U(ornic_psn_add(first, (int32_t)(count - 1)));
    }
    missing += count;
  }
  ROOM(40);
  if (runs == TEXT_NAK_RUNS && ornic_naketh_lost_next_run(&it, &first, &count)) {
    missing = ornic_naketh_lost_count(n);
    LIT(",...");
  }
  if (!missing) {
    LIT("none");
  } else {
    LIT(" nmissing=");
    U(missing);
  }
  return p;
}

/* 60 bytes + the name */
static char *put_aeth(dec_out *o, char *p, const ornic_aeth *a) {
  ROOM(60 + DEC_NAME_MAX);
  LIT(" aeth=");
  HEX(a->syndrome, 2);
  *p++ = '(';
  p = put_name(o, p, dec_syndrome_name(a->syndrome), 60);
  LIT(") msn=");
  U(a->msn);
  return p;
}

/* 50 bytes */
static char *put_oack(char *p, const ornic_oacketh *a) {
  LIT(" oack=");
  HEX(a->flags, 2);
  switch (a->flags & 3) {
  case 0: LIT("(-)"); break;
  case 1: LIT("(addr_cached)"); break;
  case 2: LIT("(wqe_done)"); break;
  default: LIT("(addr_cached,wqe_done)"); break;
  }
  LIT(" count=");
  U(a->count);
  return p;
}

/* The fixed-size headers; bits come in wire order. 110 bytes */
static char *put_small_ext(char *p, const ornic_ext *e, uint16_t bit) {
  switch (bit) {
  case ORNIC_HDR_RDETH: LIT(" een="), HEX(e->rdeth.een, 6); break;
  case ORNIC_HDR_DETH:
    LIT(" qkey="), HEX(e->deth.qkey, 8);
    LIT(" srcqp="), HEX(e->deth.srcqp, 6);
    break;
  case ORNIC_HDR_XRCETH: LIT(" xrcsrq="), HEX(e->xrceth.xrcsrq, 6); break;
  case ORNIC_HDR_FETH: LIT(" feth="), HEX(e->feth.value, 8); break;
  case ORNIC_HDR_RETH:
    LIT(" va="), HEX(e->reth.va, 16);
    LIT(" rkey="), HEX(e->reth.rkey, 8);
    LIT(" dmalen="), U(e->reth.dmalen);
    break;
  case ORNIC_HDR_OFFETH: LIT(" offset="), U(e->offeth.offset); break;
  case ORNIC_HDR_ATOMICETH:
    LIT(" va="), HEX(e->atomiceth.va, 16);
    LIT(" rkey="), HEX(e->atomiceth.rkey, 8);
    LIT(" swap_add="), HEX(e->atomiceth.swap_add, 0);
    LIT(" compare="), HEX(e->atomiceth.compare, 0);
    break;
  case ORNIC_HDR_ATOMICACKETH: LIT(" orig="), HEX(e->atomicacketh.orig, 0); break;
  case ORNIC_HDR_OACKETH: p = put_oack(p, &e->oacketh); break;
  case ORNIC_HDR_IMMDT: LIT(" imm="), HEX(e->immdt.data, 8); break;
  case ORNIC_HDR_IETH: LIT(" inv_rkey="), HEX(e->ieth.rkey, 8); break;
  default: break; /* CNP: 16 reserved bytes */
  }
  return p;
}

static char *put_ext(dec_out *o, char *p, const ornic_ext *e, uint16_t bit) {
  if (bit == ORNIC_HDR_AETH) return put_aeth(o, p, &e->aeth);
  if (bit == ORNIC_HDR_NAKETH) return put_nak(o, p, &e->naketh);
  ROOM(120);
  return put_small_ext(p, e, bit);
}

/* KEY "ok", "BAD(got X want Y)", "unchecked" or "n/a": the iCRC (" icrc=",
 * 8 hex digits) and native InfiniBand's VCRC (" vcrc=", 4), values read
 * little-endian from the wire. 40 bytes */
INLINE char *put_crc(char *p, const char key[6], dec_icrc state, uint32_t got, uint32_t want,
                     unsigned digits) {
  p = dec_put_mem(p, key, 6);
  switch (state) {
  case DEC_ICRC_OK: return DEC_PUT_LIT(p, "ok");
  case DEC_ICRC_BAD:
    LIT("BAD(got ");
    HEX(got, digits);
    LIT(" want ");
    HEX(want, digits);
    *p++ = ')';
    return p;
  case DEC_ICRC_UNCHECKED: return DEC_PUT_LIT(p, "unchecked");
  default: return DEC_PUT_LIT(p, "n/a");
  }
}

/* " warn=a,b": a name and a comma per set bit */
static char *put_warnings(dec_out *o, char *p, uint32_t w) {
  if (!w) return p;
  ROOM(8);
  LIT(" warn=");
  for (unsigned i = 0, first = 1; i < ORNIC_LINT_COUNT; i++) {
    if (!(w & (1u << i))) continue;
    ROOM(DEC_NAME_MAX + 2);
    if (!first) *p++ = ',';
    p = put_name(o, p, dec_lint_name(i), 2);
    first = 0;
  }
  return p;
}

INLINE char *put_body(dec_out *o, char *p, const dec_packet *pk) {
  const ornic_frame *f = &pk->f;
  p = put_bth(o, p, &f->bth);
  for (uint32_t m = f->ext.present; m; m &= m - 1) /* the headers present, in wire order */
    p = put_ext(o, p, &f->ext, (uint16_t)(m & (0 - m)));
  ROOM(160);
  if (pk->has_payload) {
    LIT(" len=");
    U(f->payload_len);
    if (f->payload_caplen < f->payload_len) {
      LIT(" captured=");
      U(f->payload_caplen);
    }
  }
  if (pk->snap_cut) {
    LIT(" snap=");
    U(pk->caplen);
    *p++ = '/';
    U(pk->wire_len);
  }
  p = put_crc(p, " icrc=", pk->icrc, pk->f.icrc, pk->icrc_want, 8);
  if (f->link == ORNIC_LINK_IB) p = put_crc(p, " vcrc=", pk->vcrc, pk->f.vcrc, pk->vcrc_want, 4);
  return put_warnings(o, p, pk->warnings);
}

/* " N PSN(s) from FIRST": 30 bytes */
static char *put_psn_run(char *p, uint32_t count, uint32_t first) {
  *p++ = ' ';
  U(count);
  if (count == 1)
    LIT(" PSN from ");
  else
    LIT(" PSNs from ");
  U(first);
  return p;
}

/* The tags, problems first, in a fixed order. 290 bytes (the previous-PSN and
 * OTD tags, 60 bytes each, never come together: 8.5, 8.4) */
static char *put_tags(char *p, const ornic_an_verdict *v) {
  uint32_t fl = v->flags;
  if (!(fl & (ORNIC_AN_UNTRACKED | ORNIC_AN_RETRANS | ORNIC_AN_DUP | ORNIC_AN_LOSS | ORNIC_AN_NAK |
              ORNIC_AN_ACK_STALE | ORNIC_AN_NOT_CAPTURED | ORNIC_AN_OOO | ORNIC_AN_PROBE |
              ORNIC_AN_READ_RETRY | ORNIC_AN_OTD_EXCEEDED | ORNIC_AN_WORK_LIMIT |
              ORNIC_AN_ACKED_BEFORE_SEEN | ORNIC_AN_PREV_NOT_CAPTURED | ORNIC_AN_CM)))
    return p; /* most packets: nothing to say */
  if (fl & ORNIC_AN_OVER_BUDGET)
    LIT(" [Untracked: memory budget]");
  else if (fl & ORNIC_AN_UNTRACKED)
    LIT(" [Untracked: conversation table full]");
  if (fl & ORNIC_AN_WORK_LIMIT) LIT(" [Work limit: window cut]");
  if (fl & ORNIC_AN_RETRANS) LIT(" [Retransmission]");
  if (fl & ORNIC_AN_DUP) LIT(" [Duplicate]");
  if (fl & ORNIC_AN_LOSS) {
    LIT(" [Loss:");
    p = put_psn_run(p, v->loss_count, v->loss_first_psn);
    *p++ = ']';
  }
  if (fl & ORNIC_AN_NAK) LIT(" [NAK]");
  if (fl & ORNIC_AN_PREV_NOT_CAPTURED) { /* PROTOCOL.md 8.5; never with OTD exceeded */
    LIT(" [Previous PSN not captured:");
    p = put_psn_run(p, v->hole_count, v->hole_first);
    *p++ = ']';
  }
  if (fl & ORNIC_AN_ACK_STALE) LIT(" [Stale ACK]");
  if (fl & ORNIC_AN_NOT_CAPTURED) {
    LIT(" [ACKed unseen:");
    p = put_psn_run(p, v->not_captured, v->not_captured_first);
    *p++ = ']';
  }
  if (fl & ORNIC_AN_OOO) {
    LIT(" [OOO ");
    U(v->ooo_distance);
    *p++ = ']';
  }
  if (fl & ORNIC_AN_PROBE) LIT(" [Probe]");
  if (fl & ORNIC_AN_READ_RETRY) LIT(" [READ retry]");
  if (fl & ORNIC_AN_OTD_EXCEEDED) {
    LIT(" [OTD exceeded:");
    p = put_psn_run(p, v->hole_count, v->hole_first);
    *p++ = ']';
  }
  /* Information, not a problem: the capture's timestamps (PROTOCOL.md 8.5). */
  if (fl & ORNIC_AN_ACKED_BEFORE_SEEN) LIT(" [Stored after its ACK]");
  /* RDMA-CM (8.10): the REP that set up its conversation */
  if ((fl & ORNIC_AN_CM) && (fl & ORNIC_AN_PAIRED)) LIT(" [CM: QP pair set up]");
  return p;
}

/* 60 + 290 bytes */
static char *put_analysis(char *p, const dec_packet *pk) {
  const ornic_an_verdict *v = &pk->an;
  if (v->conv) {
    LIT(" conv=");
    U(v->conv);
  }
  if (v->flags & ORNIC_AN_WQE) {
    LIT(" wqe=");
    U(v->wqe);
  }
  if (v->flags & ORNIC_AN_ADDR) {
    LIT(" addr=");
    HEX(v->addr, 16);
  }
  return put_tags(p, v);
}

/* The line up to the BTH's PSN: 320 bytes */
static char *put_head(dec_out *o, char *p, const dec_packet *pk) {
  uint64_t k0, k1;
  p = put_frame_time(o, p, pk);
  if (addrs_qp_key(pk, &k0, &k1)) return put_addrs_name_qp(o, p, pk, k0, k1);
  p = put_layers(o, p, pk);
  if (!pk->has_bth) return p;
  ROOM(DEC_FRAG_COPY); /* 20 bytes + the name, or its fragment copied 64 bytes at a time */
  return put_name_qp(o, p, &pk->f.bth);
}

void dec_text_packet(dec_out *o, const dec_packet *pk) {
  char *p = dec_out_room(o, 320);
  p = put_head(o, p, pk);
  if (pk->has_bth) p = put_body(o, p, pk);
  if (dec_has_verdict(pk)) {
    ROOM(350);
    p = put_analysis(p, pk);
  }
  dec_out_end(o, p);
  if (pk->error) {
    dec_out_lit(o, " error: ");
    dec_out_str(o, pk->error);
  }
  dec_out_eol(o);
}

void dec_text_skipped(dec_out *o, const dec_packet *pk) {
  char *p = dec_out_room(o, 72);
  p = dec_put_frame(o, p, pk->frame);
  *p++ = ' ';
  p = dec_put_time(o, p, pk->sec, pk->nsec);
  LIT(" skipped: ");
  dec_out_end(o, p);
  dec_out_str(o, dec_skip_text(pk->skip));
  dec_out_eol(o);
}
