/* SPDX-License-Identifier: MIT */
/* The public entry points of the conversation analysis (ornic/analysis.h):
 * configuration, one packet in, its verdict out, conversation accessors.
 * Which conversation and direction a packet belongs to is decided here from
 * the opcode table's role flags (PROTOCOL.md 8.1); the rules themselves are
 * in ornic_an_seq.c (requests) and ornic_an_resp.c (responses). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ornic/errors.h"
#include "ornic_an_internal.h"

/* The defaults of analysis.h, for the fields left 0: the one place they are
 * applied. */
static void apply_defaults(ornic_analysis_cfg *cfg) {
  if (!cfg->otd) cfg->otd = ORNIC_AN_DEFAULT_OTD;
  if (!cfg->window) cfg->window = ORNIC_AN_DEFAULT_WINDOW;
  if (!cfg->max_convs) cfg->max_convs = ORNIC_AN_DEFAULT_MAX_CONVS;
  if (!cfg->max_memory) cfg->max_memory = ORNIC_AN_MAX_MEMORY;
}

void ornic_analysis_cfg_init(ornic_analysis_cfg *cfg) {
  memset(cfg, 0, sizeof *cfg);
  apply_defaults(cfg);
}

bool an_mem_take(ornic_analysis *a, uint64_t more, bool force) {
  ornic_an_limits *l = &a->lim;
  if (!force && (l->memory_used > l->memory_budget || more > l->memory_budget - l->memory_used))
    return false;
  l->memory_used += more;
  if (l->memory_used > l->memory_peak) l->memory_peak = l->memory_used;
  return true;
}

void ornic_analysis_limits(const ornic_analysis *a, ornic_an_limits *out) {
  *out = a->lim;
  for (uint32_t i = 0; i < a->nconvs; i++)
    out->work_steps += a->convs[i].dir[0].steps + a->convs[i].dir[1].steps;
}

/* Transports whose PSNs follow IBA reliable or unreliable connection rules.
 * UD, RD (and the vendor DC transport that reuses its opcodes) and unknown
 * opcodes are counted by nobody here: stock decoders show them as they are. */
static bool analysed(uint8_t op, const ornic_opcode_info *oi) {
  if (op == ORNIC_OP_CNP) return true;
  if (!oi->name) return false;
  ornic_transport t = ornic_opcode_transport(op);
  return t == ORNIC_TRANSPORT_RC || t == ORNIC_TRANSPORT_UC || t == ORNIC_TRANSPORT_XRC ||
         t == ORNIC_TRANSPORT_ORNIC;
}

/* The per-opcode words of a->op: one load per packet instead of the
 * table's entry, its name and its transport. */
static void init_ops(ornic_analysis *a) {
  for (unsigned op = 0; op < 256; op++) {
    const ornic_opcode_info *oi = &ornic_opcode_table_[op];
    a->op[op] = oi->flags | (analysed((uint8_t)op, oi) ? AN_OP_ANALYSED : 0) |
                (an_op_ornic((uint8_t)op) ? AN_OP_ORNIC : 0);
  }
}

ornic_analysis *ornic_analysis_new(const ornic_analysis_cfg *cfg) {
  ornic_analysis_cfg c;
  ornic_analysis_cfg_init(&c);
  if (cfg) {
    c = *cfg;
    apply_defaults(&c);
  }
  if (c.window < 256 || c.window > (1u << 22) || (c.window & (c.window - 1))) return NULL;
  ornic_analysis *a = calloc(1, sizeof *a);
  if (a) {
    a->cfg = c;
    a->lim.memory_budget = c.max_memory;
    a->work_burst = 4 * (int64_t)c.window;
    an_half_cache_clear(a);
    init_ops(a);
  }
  return a;
}

static void clear(ornic_analysis *a) {
  for (uint32_t i = 0; i < a->nconvs; i++)
    for (int d = 0; d < 2; d++) {
      free(a->convs[i].dir[d].slots);
      free(a->convs[i].dir[d].wqes.ring);
      an_report_free(a, &a->convs[i].dir[d]);
    }
  free(a->convs);
  free(a->halves);
  an_map_free(&a->map);
  ornic_analysis_cfg cfg = a->cfg;
  memset(a, 0, sizeof *a);
  a->cfg = cfg;
  a->lim.memory_budget = cfg.max_memory;
  a->work_burst = 4 * (int64_t)cfg.window;
  an_half_cache_clear(a);
  init_ops(a);
}

void ornic_analysis_free(ornic_analysis *a) {
  if (!a) return;
  clear(a);
  free(a);
}

void ornic_analysis_reset(ornic_analysis *a) {
  if (a) clear(a);
}

static bool ecn_marked(const ornic_frame *f) {
  bool ip_ce = (f->l3 == ORNIC_L3_IPV4 || f->l3 == ORNIC_L3_IPV6) && (f->ip.tos & 3) == 3;
  return ip_ce || f->bth.fecn || f->bth.becn;
}

/* A zeroed verdict. memset() of more than 64 bytes compiles to `rep stos`
 * (GCC), whose start-up costs more than the rest of a typical packet's
 * analysis, and a copy of a zero constant loads what it stores; memsets of
 * at most 64 bytes compile to 16-byte stores of one zero register. */
static inline void zero_verdict(ornic_an_verdict *restrict v) {
  _Static_assert(sizeof *v > 192 && sizeof *v <= 256, "zero_verdict: four parts");
  unsigned char *p = (unsigned char *)v;
  memset(p, 0, 64);
  memset(p + 64, 0, 64);
  memset(p + 128, 0, 64);
  memset(p + 192, 0, sizeof *v - 192);
}

/* A packet whose conversation the table or the budget has no room for. */
static void untracked(ornic_analysis *a, ornic_an_verdict *restrict v) {
  v->flags = ORNIC_AN_UNTRACKED;
  if (a->over_budget) {
    v->flags |= ORNIC_AN_OVER_BUDGET;
    a->lim.untracked_memory++;
  } else {
    a->lim.untracked_table++;
  }
}

int ornic_analysis_add(ornic_analysis *a, const ornic_an_input *in, ornic_an_verdict *restrict v) {
  if (v) zero_verdict(v);
  /* no BTH read: f->bth may be a previous decode's (frame.h, layers) */
  if (!a || !in || !in->f || !v || !(in->f->layers & ORNIC_LAYER_BTH)) return ORNIC_ERR_INVALID_ARG;
  const ornic_frame *f = in->f;
  uint32_t fl = a->op[f->bth.opcode];
  if (f->bth.destqp == ORNIC_CM_QP) { /* UD to the GSI QP: RDMA-CM (8.10) */
    an_cm(a, in, v);
    return ORNIC_OK;
  }
  if (!(fl & AN_OP_ANALYSED)) return ORNIC_OK;
  a->new_unpaired = false;
  an_half *h = an_half_for(a, in);
  if (!h) {
    untracked(a, v);
    return ORNIC_OK;
  }
  /* A CNP goes to the QP whose requests were marked: it counts in their
   * direction, as a response does (8.1), though its opcode is a request's. */
  bool request = (fl & ORNIC_OPF_REQUEST) != 0 && f->bth.opcode != ORNIC_OP_CNP;
  /* A conversation this packet made was made because no pair fitted it:
   * the same search again (an_try_pair) would find nothing. */
  if (!a->convs[h->conv].pub.qp_a_known && !a->new_unpaired && an_try_pair(a, h, in))
    v->flags |= ORNIC_AN_PAIRED;
  an_conv *c = an_conv_at(a, h->conv);
  unsigned dir = request ? h->side : 1u - h->side;
  an_dir *d = &c->dir[dir];
  v->conv = c->pub.id;
  v->dir = (uint8_t)dir;
  if (fl & AN_OP_ORNIC) c->pub.transport_ornic = true;
  if (f->l3 == ORNIC_L3_GRH)
    c->pub.roce_versions |= ORNIC_AN_ROCE_V1;
  else if (f->l3 == ORNIC_L3_IPV4 || f->l3 == ORNIC_L3_IPV6)
    c->pub.roce_versions |= ORNIC_AN_ROCE_V2;
  an_note_time(d->st, in);
  /* A damaged capture can carry any 64-bit time: wrap (unsigned) rather
   * than overflow; only differences of nearby times are used. */
  d->now = (int64_t)((uint64_t)in->sec * 1000000000u + in->nsec);
  if (c->have_last && an_elapsed(d->now, c->last_ns, &v->since_prev_ns))
    v->flags |= ORNIC_AN_SINCE_PREV;
  c->have_last = true;
  c->last_ns = d->now;
  if (ecn_marked(f)) {
    v->flags |= ORNIC_AN_ECN;
    d->st->ecn++;
  }
  an_work_earn(a, d);
  an_hold_tick(a, d, v);
  if (f->bth.opcode == ORNIC_OP_CNP) {
    v->role = ORNIC_AN_ROLE_CNP;
    d->st->cnp++;
  } else if (request) {
    an_request(a, c, d, in, fl, v);
  } else if (fl & ORNIC_OPF_RESPONSE) {
    an_response(a, c, d, in, fl, v);
  }
  an_report_packet(a, c, d, in, fl, v);
  an_work_settle(a, d, v);
  return ORNIC_OK;
}

uint32_t ornic_analysis_conv_count(const ornic_analysis *a) { return a ? a->nconvs : 0; }

const ornic_an_conv *ornic_analysis_conv(const ornic_analysis *a, uint32_t id) {
  return a && id >= 1 && id <= a->nconvs ? &a->convs[id - 1].pub : NULL;
}

const ornic_an_conv *ornic_analysis_conv_final(const ornic_analysis *a, uint32_t id) {
  const ornic_an_conv *c = ornic_analysis_conv(a, id);
  while (c && c->merged_into) c = ornic_analysis_conv(a, c->merged_into);
  return c;
}

/* "a.b.c.d" at p (at most 16 bytes with its NUL); returns its end. */
static char *put_ipv4(char *p, const uint8_t *a) {
  return p + sprintf(p, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

/* The longest run of two or more zero groups (the first of equal ones), as
 * RFC 5952 4.2 compresses; *len 0 when there is none. */
static void zero_run(const uint16_t *w, int *base, int *len) {
  *base = -1;
  *len = 0;
  for (int i = 0, j; i < 8; i = j + 1) {
    for (j = i; j < 8 && w[j] == 0; j++) continue;
    if (j - i >= 2 && j - i > *len) {
      *base = i;
      *len = j - i;
    }
  }
}

/* RFC 5952 text of an IPv6 address, as inet_ntop(3) writes it (glibc's,
 * from BIND): lowercase hex without leading zeros, the longest zero run as
 * "::", and the IPv4 notation for IPv4-mapped (::ffff:a.b.c.d) and
 * IPv4-compatible (::a.b.c.d) addresses. At most 46 bytes with its NUL.
 * Written here so that the library needs C11 alone (no <arpa/inet.h>). */
static void put_ipv6(char *p, const uint8_t *a) {
  uint16_t w[8];
  int base, len;
  for (int i = 0; i < 8; i++) w[i] = (uint16_t)(a[2 * i] << 8 | a[2 * i + 1]);
  zero_run(w, &base, &len);
  for (int i = 0; i < 8; i++) {
    if (i == base) {
      *p++ = ':';
      i += len - 1;
      if (i == 7) *p++ = ':';
      continue;
    }
    if (i) *p++ = ':';
    if (i == 6 && base == 0 && (len == 6 || (len == 5 && w[5] == 0xffff))) {
      p = put_ipv4(p, a + 12);
      break;
    }
    p += sprintf(p, "%x", w[i]);
  }
  *p = '\0';
}

static void addr_str(char *out, size_t cap, const uint8_t *addr, uint8_t alen) {
  char buf[48] = "?";
  if (alen == 4) put_ipv4(buf, addr);
  if (alen == 16) put_ipv6(buf, addr);
  snprintf(out, cap, "%s", buf);
}

static void qp_str(char *out, size_t cap, bool known, uint32_t qp) {
  if (known)
    snprintf(out, cap, "0x%06x", qp);
  else
    snprintf(out, cap, "?");
}

void ornic_an_conv_label(const ornic_an_conv *c, char *out, size_t cap) {
  char a[48], b[48], qa[12], qb[12];
  addr_str(a, sizeof a, c->a, c->addr_len);
  addr_str(b, sizeof b, c->b, c->addr_len);
  qp_str(qa, sizeof qa, c->qp_a_known, c->qp_a);
  qp_str(qb, sizeof qb, c->qp_b_known, c->qp_b);
  snprintf(out, cap, "%s QP %s <-> %s QP %s", a, qa, b, qb);
}

void ornic_an_dir_label(const ornic_an_conv *c, unsigned dir, char *out, size_t cap) {
  char a[48], b[48];
  addr_str(a, sizeof a, c->a, c->addr_len);
  addr_str(b, sizeof b, c->b, c->addr_len);
  snprintf(out, cap, "%s -> %s", dir == ORNIC_AN_DIR_AB ? a : b, dir == ORNIC_AN_DIR_AB ? b : a);
}

unsigned ornic_an_ooo_bucket(uint32_t distance) { return an_ooo_bucket(distance); }

const char *ornic_an_ooo_bucket_name(unsigned bucket) {
  static const char *const names[ORNIC_AN_OOO_BUCKETS] = {"1",     "2-3",   "4-7",    "8-15",
                                                          "16-31", "32-63", "64-127", "128+"};
  return bucket < ORNIC_AN_OOO_BUCKETS ? names[bucket] : "?";
}

const char *ornic_an_flag_name(uint32_t flag_bit) {
  switch (flag_bit) {
  case ORNIC_AN_RETRANS: return "retransmission";
  case ORNIC_AN_DUP: return "duplicate";
  case ORNIC_AN_LOSS: return "loss";
  case ORNIC_AN_NAK: return "nak";
  case ORNIC_AN_NOT_CAPTURED: return "not_captured";
  case ORNIC_AN_PREV_NOT_CAPTURED: return "prev_not_captured";
  case ORNIC_AN_CM: return "cm";
  case ORNIC_AN_ACK_STALE: return "ack_stale";
  case ORNIC_AN_OOO: return "ooo";
  case ORNIC_AN_PROBE: return "probe";
  case ORNIC_AN_OTD_EXCEEDED: return "otd_exceeded";
  case ORNIC_AN_ADDR: return "addr";
  case ORNIC_AN_ADDR_UNKNOWN: return "addr_unknown";
  case ORNIC_AN_PMTU_UNKNOWN: return "pmtu_unknown";
  case ORNIC_AN_WQE: return "wqe";
  case ORNIC_AN_NEW_WQE: return "new_wqe";
  case ORNIC_AN_ACK: return "ack";
  case ORNIC_AN_MSN: return "msn";
  case ORNIC_AN_WQE_DONE: return "wqe_done";
  case ORNIC_AN_SEQ: return "seq";
  case ORNIC_AN_ECN: return "ecn";
  case ORNIC_AN_READ_RETRY: return "read_retry";
  case ORNIC_AN_BEFORE_CAPTURE: return "before_capture";
  case ORNIC_AN_UNTRACKED: return "untracked";
  case ORNIC_AN_PAIRED: return "paired";
  case ORNIC_AN_SINCE_PREV: return "since_prev";
  case ORNIC_AN_ACK_RTT: return "ack_rtt";
  case ORNIC_AN_MSG_TIME: return "msg_time";
  case ORNIC_AN_OVER_BUDGET: return "over_budget";
  case ORNIC_AN_WORK_LIMIT: return "work_limit";
  case ORNIC_AN_ACKED_BEFORE_SEEN: return "acked_before_seen";
  default: return NULL;
  }
}
