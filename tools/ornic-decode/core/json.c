/* SPDX-License-Identifier: MIT */
/* One JSON object per line, keys after Wireshark's infiniband.* fields.
 * 64-bit values (RETH/AtomicETH VA, atomic operands) are hex strings: JSON
 * numbers lose precision above 2^53 in most parsers. The timestamp is a
 * string for the same reason (nanoseconds since 1970 need 19 digits).
 *
 * Speed: the line is written into spans of the output buffer (outbuf.h)
 * with keys as literals, commas and all: every object's first key is always
 * there, so the separator before each key is known when the code is
 * written, not decided per key at run time. Each function below reserves
 * the room its part can take (the sizes in its comment) before it writes. */
#include <ornic/ornic.h>

#include "analysis.h"
#include "names.h"
#include "print.h"

#define LIT(lit) (p = DEC_PUT_LIT(p, lit))
#define U(v) (p = dec_put_u64(p, (uint64_t)(v)))
#define HEX(v, digits) (p = dec_put_hex(p, (v), (digits)))
#define QHEX(v, digits) (*p++ = '"', HEX(v, digits), *p++ = '"')
/* Room for a part of at most n bytes. */
#define ROOM(n) (p = dec_out_span(o, p, (n)))
#define NAME_ROOM (DEC_NAME_MAX + 2)

/* A name as a JSON string (at most NAME_ROOM bytes); one that needs
 * escaping goes through dec_out_json_str, and the span is taken again. */
static char *put_name(dec_out *o, char *p, dec_name nm, size_t room) {
  if (nm.plain) {
    *p++ = '"';
    p = dec_put_name(p, nm);
    *p++ = '"';
    return p;
  }
  dec_out_end(o, p);
  dec_out_json_str(o, nm.s ? nm.s : "");
  return dec_out_room(o, room);
}

static char *put_str(dec_out *o, char *p, const char *s, size_t room) {
  dec_out_end(o, p);
  dec_out_json_str(o, s);
  return dec_out_room(o, room);
}

/* `,"bth":{"opcode":..,"resv6":N,"destqp":`: 220 bytes + the name */
static char *put_bth_head(dec_out *o, char *p, const ornic_bth *b, dec_name name) {
  LIT(",\"bth\":{\"opcode\":");
  U(b->opcode);
  LIT(",\"opcode_name\":");
  p = put_name(o, p, name, 340);
  LIT(",\"se\":");
  U(b->se);
  LIT(",\"m\":");
  U(b->m);
  LIT(",\"padcnt\":");
  U(b->padcnt);
  LIT(",\"tver\":");
  U(b->tver);
  LIT(",\"pkey\":");
  U(b->pkey);
  LIT(",\"fecn\":");
  U(b->fecn);
  LIT(",\"becn\":");
  U(b->becn);
  LIT(",\"resv6\":");
  U(b->resv6);
  LIT(",\"destqp\":");
  return p;
}

/* The part before the QP: remembered per opcode, flag bits (k0) and P_Key.
 * *plain: it was (a name that needs escaping may flush the buffer). */
static char *put_bth_upto_qp(dec_out *o, char *p, const ornic_bth *b, uint64_t k0, bool *plain) {
  static dec_frag_cache cache;
  uint64_t k1 = b->pkey;
  dec_frag *f = dec_frag_slot(&cache, k0, k1);
  if (dec_frag_hit(f, k0, k1)) return dec_frag_put(p, f);
  dec_name name = dec_opcode_name(b->opcode);
  char *start = p;
  p = put_bth_head(o, p, b, name);
  *plain = name.plain;
  if (name.plain) dec_frag_keep(f, k0, k1, start, (size_t)(p - start));
  return p;
}

/* 340 bytes + the name. All but the PSN is remembered per opcode, flag
 * bits, P_Key and QP; a miss (a capture with many QPs) is made from the
 * part before the QP, remembered without it. */
static char *put_bth(dec_out *o, char *p, const ornic_bth *b) {
  static dec_frag_cache cache;
  uint64_t k0 = b->opcode | (uint64_t)b->se << 8 | (uint64_t)b->m << 16 |
                (uint64_t)b->padcnt << 24 | (uint64_t)b->tver << 32 | (uint64_t)b->fecn << 40 |
                (uint64_t)b->becn << 48 | (uint64_t)b->resv6 << 56;
  uint64_t k1 = b->pkey | (uint64_t)(b->destqp & 0xffffff) << 16 | (uint64_t)b->ackreq << 40 |
                (uint64_t)b->resv7 << 48; /* the QP's 24 bits */
  ROOM(340 + NAME_ROOM);
  dec_frag *f = dec_frag_slot(&cache, k0, k1);
  if (dec_frag_hit(f, k0, k1)) {
    p = dec_frag_put(p, f);
  } else {
    bool plain = true;
    char *start = p;
    p = put_bth_upto_qp(o, p, b, k0, &plain);
    U(b->destqp);
    LIT(",\"a\":");
    U(b->ackreq);
    LIT(",\"resv7\":");
    U(b->resv7);
    LIT(",\"psn\":");
    if (plain && b->destqp <= 0xffffff) dec_frag_keep(f, k0, k1, start, (size_t)(p - start));
  }
  U(b->psn);
  *p++ = '}';
  return p;
}

/* "blocks":[...],"missing_psns":[...]}: 16 bytes per element */
static char *put_nak_lists(dec_out *o, char *p, const ornic_naketh *n) {
  LIT(",\"blocks\":[");
  for (unsigned k = 0; k < n->nblocks; k++) {
    ROOM(16);
    if (k) *p++ = ',';
    U(ornic_naketh_block(n, k));
  }
  ROOM(32);
  LIT("],\"missing_psns\":[");
  ornic_naketh_lost_iter it;
  uint32_t first, count;
  bool any = false;
  ornic_naketh_lost_begin(&it, n);
  while (ornic_naketh_lost_next_run(&it, &first, &count)) {
    for (uint32_t i = 0; i < count; i++) {
      ROOM(16);
      if (any) *p++ = ',';
      any = true;
      U(ornic_psn_add(first, (int32_t)i));
    }
  }
  ROOM(16);
  LIT("]}");
  return p;
}

/* 200 bytes + the name, then the lists */
static char *put_naketh(dec_out *o, char *p, const ornic_naketh *n) {
  ROOM(200 + NAME_ROOM);
  LIT(",\"naketh\":{\"reason\":");
  U(n->reason);
  LIT(",\"reason_name\":");
  p = put_name(o, p, dec_nak_reason_name(n->reason), 200);
  LIT(",\"trigger_psn\":");
  U(n->trigger_psn);
  LIT(",\"nblocks\":");
  U(n->nblocks);
  LIT(",\"base_psn\":");
  U(n->base_psn);
  LIT(",\"limit_psn\":");
  U(n->limit_psn);
  return put_nak_lists(o, p, n);
}

/* 120 bytes */
static char *put_oacketh(char *p, const ornic_oacketh *a) {
  LIT(",\"oacketh\":{\"flags\":");
  U(a->flags);
  if (a->flags & ORNIC_OACK_ADDR_CACHED)
    LIT(",\"addr_cached\":true");
  else
    LIT(",\"addr_cached\":false");
  if (a->flags & ORNIC_OACK_WQE_DONE)
    LIT(",\"wqe_done\":true");
  else
    LIT(",\"wqe_done\":false");
  LIT(",\"count\":");
  U(a->count);
  *p++ = '}';
  return p;
}

/* 100 bytes + the name */
static char *put_aeth(dec_out *o, char *p, const ornic_aeth *a) {
  ROOM(100 + NAME_ROOM);
  LIT(",\"aeth\":{\"syndrome\":");
  U(a->syndrome);
  LIT(",\"syndrome_name\":");
  p = put_name(o, p, dec_syndrome_name(a->syndrome), 100);
  LIT(",\"msn\":");
  U(a->msn);
  *p++ = '}';
  return p;
}

/* 130 bytes */
static char *put_atomiceth(char *p, const ornic_atomiceth *a) {
  LIT(",\"atomiceth\":{\"va\":");
  QHEX(a->va, 16);
  LIT(",\"r_key\":");
  U(a->rkey);
  LIT(",\"swap_add\":");
  QHEX(a->swap_add, 16);
  LIT(",\"compare\":");
  QHEX(a->compare, 16);
  *p++ = '}';
  return p;
}

/* The fixed-size headers: 130 bytes at most. */
static char *put_small_ext(char *p, const ornic_ext *e, uint16_t bit) {
  switch (bit) {
  case ORNIC_HDR_RDETH:
    LIT(",\"rdeth\":{\"een\":");
    U(e->rdeth.een);
    break;
  case ORNIC_HDR_DETH:
    LIT(",\"deth\":{\"q_key\":");
    U(e->deth.qkey);
    LIT(",\"srcqp\":");
    U(e->deth.srcqp);
    break;
  case ORNIC_HDR_XRCETH:
    LIT(",\"xrceth\":{\"xrcsrq\":");
    U(e->xrceth.xrcsrq);
    break;
  case ORNIC_HDR_FETH:
    LIT(",\"feth\":{\"value\":");
    U(e->feth.value);
    break;
  case ORNIC_HDR_RETH:
    LIT(",\"reth\":{\"va\":");
    QHEX(e->reth.va, 16);
    LIT(",\"r_key\":");
    U(e->reth.rkey);
    LIT(",\"dmalen\":");
    U(e->reth.dmalen);
    break;
  case ORNIC_HDR_OFFETH:
    LIT(",\"offeth\":{\"offset\":");
    U(e->offeth.offset);
    break;
  case ORNIC_HDR_ATOMICETH: return put_atomiceth(p, &e->atomiceth);
  case ORNIC_HDR_ATOMICACKETH:
    LIT(",\"atomicacketh\":{\"orig_rdata\":");
    QHEX(e->atomicacketh.orig, 16);
    break;
  case ORNIC_HDR_OACKETH: return put_oacketh(p, &e->oacketh);
  case ORNIC_HDR_IMMDT:
    LIT(",\"immdt\":");
    U(e->immdt.data);
    return p;
  case ORNIC_HDR_IETH:
    LIT(",\"ieth\":");
    U(e->ieth.rkey);
    return p;
  case ORNIC_HDR_CNP: LIT(",\"cnp\":{"); break;
  default: return p;
  }
  *p++ = '}';
  return p;
}

/* One extension header as `"name":{...}` (or a plain number for ImmDt/IETH). */
static char *put_ext(dec_out *o, char *p, const ornic_ext *e, uint16_t bit) {
  if (bit == ORNIC_HDR_AETH) return put_aeth(o, p, &e->aeth);
  if (bit == ORNIC_HDR_NAKETH) return put_naketh(o, p, &e->naketh);
  ROOM(140);
  return put_small_ext(p, e, bit);
}

/* `,"icrc":{"value":"0x..","ok":..,"expected":".."}` and the same for the
 * VCRC (KEY), its value `digits` hex digits: 80 bytes. Inlined, so that the
 * constants fold. */
static inline __attribute__((always_inline)) char *put_crc(char *p, const char *key, size_t key_len,
                                                           bool present, uint32_t value,
                                                           dec_icrc state, uint32_t want,
                                                           unsigned digits) {
  p = dec_put_mem(p, key, key_len);
  if (present)
    QHEX(value, digits);
  else
    LIT("null");
  if (state == DEC_ICRC_OK)
    LIT(",\"ok\":true");
  else if (state == DEC_ICRC_BAD)
    LIT(",\"ok\":false");
  else
    LIT(",\"ok\":null");
  if (state == DEC_ICRC_BAD) {
    LIT(",\"expected\":");
    QHEX(want, digits);
  }
  *p++ = '}';
  return p;
}

#define PUT_CRC(key, ...) (p = put_crc(p, "" key, sizeof(key) - 1, __VA_ARGS__))

/* Native InfiniBand: "lrh": {...}, after Wireshark's infiniband.lrh.* fields. 200 bytes */
static char *put_lrh(char *p, const ornic_lrh *l) {
  LIT(",\"lrh\":{\"vl\":");
  U(l->vl);
  LIT(",\"lver\":");
  U(l->lver);
  LIT(",\"sl\":");
  U(l->sl);
  LIT(",\"reserved2\":");
  U(l->resv2);
  LIT(",\"lnh\":");
  U(l->lnh);
  LIT(",\"dlid\":");
  U(l->dlid);
  LIT(",\"reserved5\":");
  U(l->resv5);
  LIT(",\"pktlen\":");
  U(l->pktlen);
  LIT(",\"slid\":");
  U(l->slid);
  *p++ = '}';
  return p;
}

/* A name per set bit: NAME_ROOM + 1 bytes each. */
static char *put_warnings(dec_out *o, char *p, uint32_t w) {
  if (!w) return p;
  ROOM(16);
  LIT(",\"warnings\":[");
  for (unsigned i = 0, first = 1; i < ORNIC_LINT_COUNT; i++) {
    if (!(w & (1u << i))) continue;
    ROOM(NAME_ROOM + 8);
    if (!first) *p++ = ',';
    p = put_name(o, p, dec_lint_name(i), 8);
    first = 0;
  }
  *p++ = ']';
  return p;
}

/* 40 + 34 bytes */
static char *put_head(dec_out *o, char *p, const dec_packet *pk) {
  LIT("{\"frame\":");
  p = dec_put_frame(o, p, pk->frame);
  LIT(",\"time\":\"");
  p = dec_put_time(o, p, pk->sec, pk->nsec);
  *p++ = '"';
  return p;
}

/* `,"l3":..,"src":..,"dst":..`: 130 bytes; remembered for IPv4 pairs. */
static char *put_l3(dec_out *o, char *p, const ornic_frame *fr) {
  static dec_frag_cache cache;
  bool v4 = fr->l3 == ORNIC_L3_IPV4;
  uint64_t k0 = 0;
  dec_frag *f = v4 ? dec_frag_ip4_slot(&cache, fr->ip.src, fr->ip.dst, &k0) : NULL;
  if (f && dec_frag_hit(f, k0, 1)) return dec_frag_put(p, f);
  char *start = p;
  if (v4)
    LIT(",\"l3\":\"ipv4\",\"src\":\"");
  else if (fr->l3 == ORNIC_L3_IPV6)
    LIT(",\"l3\":\"ipv6\",\"src\":\"");
  else
    LIT(",\"l3\":\"grh\",\"src\":\"");
  p = dec_put_addr(o, p, fr->ip.src, v4);
  LIT("\",\"dst\":\"");
  p = dec_put_addr(o, p, fr->ip.dst, v4);
  *p++ = '"';
  if (f) dec_frag_keep(f, k0, 1, start, (size_t)(p - start));
  return p;
}

/* 70 + lrh 200 + l3 130 + 30 bytes */
static char *put_layers_made(dec_out *o, char *p, const dec_packet *pk) {
  const ornic_frame *fr = &pk->f;
  LIT(",\"frame_len\":");
  U(pk->wire_len);
  LIT(",\"cap_len\":");
  U(pk->caplen);
  if (pk->has_vlan) {
    LIT(",\"vlan\":");
    U(fr->eth.vlan_tci & 0x0fff);
  }
  if (fr->layers & ORNIC_LAYER_LRH) p = put_lrh(p, &fr->lrh);
  if (pk->has_l3) p = put_l3(o, p, fr);
  if (pk->has_udp) {
    LIT(",\"udp_sport\":");
    U(fr->udp.sport);
  }
  return p;
}

/* The key of the layers' text when it can be remembered: IPv4 and UDP with
 * no VLAN tag or LRH (k0: the addresses; k1: the lengths, below 2^24, and
 * the source port). False when it cannot. */
static bool layers_key(const dec_packet *pk, uint64_t *k0, uint64_t *k1) {
  const ornic_frame *fr = &pk->f;
  if (!pk->has_l3 || fr->l3 != ORNIC_L3_IPV4 || !pk->has_udp || pk->has_vlan ||
      (fr->layers & ORNIC_LAYER_LRH) || (pk->wire_len | pk->caplen) >> 24)
    return false;
  uint32_t s4, d4;
  memcpy(&s4, fr->ip.src, 4);
  memcpy(&d4, fr->ip.dst, 4);
  *k0 = s4 | (uint64_t)d4 << 32;
  *k1 = pk->wire_len | (uint64_t)pk->caplen << 24 | (uint64_t)fr->udp.sport << 48;
  return true;
}

/* The frame's lengths, addresses and UDP port: remembered per address pair,
 * lengths and port (a capture has few of each). */
static char *put_layers(dec_out *o, char *p, const dec_packet *pk) {
  static dec_frag_cache cache;
  uint64_t k0, k1;
  if (!layers_key(pk, &k0, &k1)) return put_layers_made(o, p, pk);
  dec_frag *f = dec_frag_slot(&cache, k0, k1);
  if (dec_frag_hit(f, k0, k1)) return dec_frag_put(p, f);
  char *start = p; /* no flush below: the span stays */
  p = put_layers_made(o, p, pk);
  dec_frag_keep(f, k0, k1, start, (size_t)(p - start));
  return p;
}

static char *put_transport(dec_out *o, char *p, const dec_packet *pk) {
  const ornic_frame *fr = &pk->f;
  p = put_bth(o, p, &fr->bth);
  for (uint32_t m = fr->ext.present; m; m &= m - 1) /* the headers present, in wire order */
    p = put_ext(o, p, &fr->ext, (uint16_t)(m & (0 - m)));
  ROOM(300);
  if (pk->has_payload) {
    LIT(",\"payload_len\":");
    U(fr->payload_len);
    if (fr->payload_caplen < fr->payload_len) {
      LIT(",\"payload_caplen\":");
      U(fr->payload_caplen);
    }
  }
  PUT_CRC(",\"icrc\":{\"value\":", pk->f.icrc_present, pk->f.icrc, pk->icrc, pk->icrc_want, 8);
  if (fr->link == ORNIC_LINK_IB) /* native InfiniBand: "vcrc", as "icrc" */
    PUT_CRC(",\"vcrc\":{\"value\":", pk->f.vcrc_present, pk->f.vcrc, pk->vcrc, pk->vcrc_want, 4);
  return put_warnings(o, p, pk->warnings);
}

/* A frame number, null when 0 (unknown): 20 bytes. */
static char *frame_ref(char *p, uint64_t v) {
  if (v) return dec_put_u64(p, v);
  return DEC_PUT_LIT(p, "null");
}

/* The timing bits say which "time" keys are present (put_an_time): not listed. */
#define AN_TIME_BITS (ORNIC_AN_SINCE_PREV | ORNIC_AN_ACK_RTT | ORNIC_AN_MSG_TIME)

/* NAME_ROOM + 1 bytes per flag; *plain: every name was */
static char *put_an_flags(dec_out *o, char *p, uint32_t flags, bool *plain) {
  LIT(",\"flags\":[");
  bool first = true;
  for (; flags; flags &= flags - 1) {
    unsigned i = (unsigned)__builtin_ctz(flags);
    dec_name nm = dec_an_flag_name(i);
    if (!nm.s) continue;
    ROOM(NAME_ROOM + 8);
    if (!first) *p++ = ',';
    *plain = *plain && nm.plain;
    p = put_name(o, p, nm, 8);
    first = false;
  }
  *p++ = ']';
  return p;
}

/* A WQE's text but its packet number: `,"wqe":{"id":..,"pkt":` before it,
 * `,"start_addr":..,"frame":N}` after. The same for every packet of the
 * message, so it is remembered with every value it shows. */
typedef struct {
  uint32_t conv, wqe, start_psn, last_psn, npkts, len;
  uint64_t start_addr, frame;
  uint8_t dir, has_addr;
  uint8_t head_len, tail_len; /* head_len 0: empty */
  char head[128], tail[128];  /* copied 128 bytes at a time */
} wqe_text;

#define WQE_SLOTS 16

/* Whether t was made for v's WQE: every value it shows is compared. */
static bool wqe_text_hit(const wqe_text *t, const ornic_an_verdict *v, bool has_addr) {
  return t->head_len && t->conv == v->conv && t->wqe == v->wqe && t->dir == v->dir &&
         t->start_psn == v->wqe_start_psn && t->last_psn == v->wqe_last_psn &&
         t->npkts == v->wqe_npkts && t->has_addr == has_addr && t->frame == v->wqe_frame &&
         (!has_addr || (t->start_addr == v->wqe_start_addr && t->len == v->wqe_len));
}

/* 100 bytes */
static char *put_wqe_head(char *p, const ornic_an_verdict *v) {
  LIT(",\"wqe\":{\"id\":");
  U(v->wqe);
  LIT(",\"start_psn\":");
  U(v->wqe_start_psn);
  if (v->wqe_npkts) { /* the message's size is known */
    LIT(",\"last_psn\":");
    U(v->wqe_last_psn);
    LIT(",\"npkts\":");
    U(v->wqe_npkts);
  } else {
    LIT(",\"last_psn\":null,\"npkts\":null");
  }
  return DEC_PUT_LIT(p, ",\"pkt\":");
}

/* 100 bytes */
static char *put_wqe_tail(char *p, const ornic_an_verdict *v, bool has_addr) {
  if (has_addr) {
    LIT(",\"start_addr\":");
    QHEX(v->wqe_start_addr, 16);
    LIT(",\"len\":");
    U(v->wqe_len);
  }
  LIT(",\"frame\":");
  p = frame_ref(p, v->wqe_frame);
  *p++ = '}';
  return p;
}

/* Formats v's WQE texts into t. */
static void wqe_text_make(wqe_text *t, const ornic_an_verdict *v, bool has_addr) {
  t->head_len = (uint8_t)(put_wqe_head(t->head, v) - t->head);
  t->tail_len = (uint8_t)(put_wqe_tail(t->tail, v, has_addr) - t->tail);
  t->conv = v->conv;
  t->wqe = v->wqe;
  t->dir = v->dir;
  t->start_psn = v->wqe_start_psn;
  t->last_psn = v->wqe_last_psn;
  t->npkts = v->wqe_npkts;
  t->has_addr = has_addr;
  t->frame = v->wqe_frame;
  t->start_addr = v->wqe_start_addr;
  t->len = v->wqe_len;
}

/* 270 bytes: the texts are copied 128 bytes at a time */
static char *put_an_wqe(char *p, const ornic_an_verdict *v) {
  static wqe_text cache[WQE_SLOTS];
  bool has_addr = v->flags & (ORNIC_AN_ADDR | ORNIC_AN_PMTU_UNKNOWN); /* it has a RETH */
  wqe_text *t = &cache[(v->wqe * 7u + v->conv * 5u + v->dir) % WQE_SLOTS];
  if (!wqe_text_hit(t, v, has_addr)) wqe_text_make(t, v, has_addr);
  memcpy(p, t->head, sizeof t->head);
  p += t->head_len;
  U(v->wqe_pkt);
  memcpy(p, t->tail, sizeof t->tail);
  return p + t->tail_len;
}

/* "time": the engine's timing in ns (PROTOCOL.md 8.8), each key when valid. 100 bytes */
static char *put_an_time(char *p, const ornic_an_verdict *v) {
  if (!(v->flags & AN_TIME_BITS)) return p;
  LIT(",\"time\":{");
  bool first = true;
  if (v->flags & ORNIC_AN_SINCE_PREV) {
    LIT("\"since_prev_ns\":");
    U(v->since_prev_ns);
    first = false;
  }
  if (v->flags & ORNIC_AN_ACK_RTT) {
    if (!first) *p++ = ',';
    LIT("\"ack_rtt_ns\":");
    U(v->ack_rtt_ns);
    first = false;
  }
  if (v->flags & ORNIC_AN_MSG_TIME) {
    if (!first) *p++ = ',';
    LIT("\"msg_time_ns\":");
    U(v->msg_time_ns);
  }
  *p++ = '}';
  return p;
}

/* `{first,count}` objects: not_captured, loss, hole. 20 bytes + the keys */
#define RUN(key, fkey, first, count)    \
  do {                                  \
    LIT(",\"" key "\":{\"" fkey "\":"); \
    U(first);                           \
    LIT(",\"count\":");                 \
    U(count);                           \
    *p++ = '}';                         \
  } while (0)

/* conv, dir, role: 60 bytes */
static char *put_an_head(char *p, const ornic_an_verdict *v) {
  LIT(",\"analysis\":{\"conv\":");
  p = frame_ref(p, v->conv);
  if (!v->conv && (v->flags & ORNIC_AN_CM)) /* a CM REQ (8.10): read, in no conversation yet */
    return DEC_PUT_LIT(p, ",\"dir\":null,\"role\":\"none\"");
  if (!v->conv) /* untracked: no conversation to be in */
    return DEC_PUT_LIT(p, ",\"dir\":null,\"role\":null");
  if (v->dir == ORNIC_AN_DIR_BA)
    LIT(",\"dir\":\"b_to_a\",\"role\":");
  else
    LIT(",\"dir\":\"a_to_b\",\"role\":");
  switch (v->role) {
  case ORNIC_AN_ROLE_REQUEST: return DEC_PUT_LIT(p, "\"request\"");
  case ORNIC_AN_ROLE_RESPONSE: return DEC_PUT_LIT(p, "\"response\"");
  case ORNIC_AN_ROLE_CNP: return DEC_PUT_LIT(p, "\"cnp\"");
  default: return DEC_PUT_LIT(p, "\"none\"");
  }
}

/* Sequence, repeats, hole, address: 200 bytes */
static char *put_an_seq(char *p, const ornic_an_verdict *v) {
  uint32_t fl = v->flags;
  if (fl & ORNIC_AN_SEQ) {
    LIT(",\"hpsn\":");
    U(v->hpsn);
    LIT(",\"epsn\":");
    U(v->epsn);
  }
  if (fl & (ORNIC_AN_OOO | ORNIC_AN_DUP | ORNIC_AN_RETRANS)) {
    LIT(",\"ooo_distance\":");
    U(v->ooo_distance);
  }
  if (fl & (ORNIC_AN_DUP | ORNIC_AN_RETRANS)) {
    LIT(",\"first_frame\":");
    p = frame_ref(p, v->first_frame);
  }
  if (fl & ORNIC_AN_RETRANS) {
    LIT(",\"asked_frame\":");
    p = frame_ref(p, v->asked_frame);
  }
  /* The hole of OTD_EXCEEDED or PREV_NOT_CAPTURED (never together, 8.4, 8.5): the flags say which */
  if (fl & (ORNIC_AN_OTD_EXCEEDED | ORNIC_AN_PREV_NOT_CAPTURED))
    RUN("hole", "first_psn", v->hole_first, v->hole_count);
  if (fl & ORNIC_AN_ADDR) {
    LIT(",\"addr\":");
    QHEX(v->addr, 16);
  }
  return p;
}

/* WQE, ACK and the rest: 270 + 400 bytes */
static char *put_an_rest(const dec_packet *pk, char *p, const ornic_an_verdict *v) {
  uint32_t fl = v->flags;
  if (fl & ORNIC_AN_WQE) p = put_an_wqe(p, v);
  if (v->read_frame) {
    LIT(",\"read_frame\":");
    U(v->read_frame);
  }
  if (fl & ORNIC_AN_ACK) {
    LIT(",\"ack\":{\"prev\":");
    U(v->ack_prev);
    LIT(",\"newly\":");
    U(v->ack_newly);
    LIT(",\"frame_of\":");
    p = frame_ref(p, v->ack_frame_of);
    *p++ = '}';
  }
  if (fl & ORNIC_AN_NOT_CAPTURED)
    RUN("not_captured", "first", v->not_captured_first, v->not_captured);
  if (fl & ORNIC_AN_LOSS) RUN("loss", "first_psn", v->loss_first_psn, v->loss_count);
  if (fl & ORNIC_AN_MSN) {
    LIT(",\"msn_delta\":");
    U(v->msn_delta);
  }
  if (fl & ORNIC_AN_WQE_DONE) {
    LIT(",\"wqe_completed\":");
    U(v->wqe_completed);
  }
  if ((fl & ORNIC_AN_NAK) && (pk->f.ext.present & ORNIC_HDR_NAKETH)) {
    LIT(",\"nak_lost\":");
    U(v->nak_lost);
  }
  if (pk->in_flight) { /* PROTOCOL.md 8.9: 0 is left out, as the plugin leaves its field */
    LIT(",\"in_flight\":");
    U(pk->in_flight);
  }
  p = put_an_time(p, v);
  *p++ = '}';
  return p;
}

/* The engine's verdict; a field appears when the flags say it is valid.
 * Its head (conversation, direction, role, flag names, PMTU) is remembered
 * per conversation, flags and PMTU. */
static char *put_analysis(dec_out *o, char *p, const dec_packet *pk) {
  static dec_frag_cache cache;
  const ornic_an_verdict *v = &pk->an;
  uint32_t flags = v->flags & ~(uint32_t)AN_TIME_BITS;
  uint64_t k0 = v->conv | (uint64_t)v->dir << 32 | (uint64_t)v->role << 40;
  uint64_t k1 = flags | (uint64_t)v->pmtu << 32;
  ROOM(100);
  dec_frag *f = dec_frag_slot(&cache, k0, k1);
  if (dec_frag_hit(f, k0, k1)) {
    ROOM(DEC_FRAG_COPY + 8);
    p = dec_frag_put(p, f);
  } else {
    size_t at = (size_t)(p - o->buf); /* a flush may move the span: where it starts */
    uint64_t flushes = o->flushes;
    bool plain = true;
    p = put_an_head(p, v);
    p = put_an_flags(o, p, flags, &plain);
    ROOM(32);
    if (v->pmtu) {
      LIT(",\"pmtu\":");
      U(v->pmtu);
    }
    if (plain && o->flushes == flushes)
      dec_frag_keep(f, k0, k1, o->buf + at, (size_t)(p - o->buf) - at);
  }
  ROOM(400);
  p = put_an_seq(p, v);
  ROOM(700);
  return put_an_rest(pk, p, v);
}

void dec_json_packet(dec_out *o, const dec_packet *pk) {
  char *p = dec_out_room(o, 512);
  p = put_head(o, p, pk);
  p = put_layers(o, p, pk);
  if (pk->has_bth) p = put_transport(o, p, pk);
  if (dec_has_verdict(pk)) p = put_analysis(o, p, pk);
  ROOM(32);
  LIT(",\"error\":");
  if (pk->error)
    p = put_str(o, p, pk->error, 32);
  else
    LIT("null");
  *p++ = '}';
  dec_out_end(o, p);
  dec_out_eol(o);
}

void dec_json_skipped(dec_out *o, const dec_packet *pk) {
  char *p = dec_out_room(o, 96);
  p = put_head(o, p, pk);
  LIT(",\"skipped\":");
  p = put_str(o, p, dec_skip_text(pk->skip), 8);
  *p++ = '}';
  dec_out_end(o, p);
  dec_out_eol(o);
}
