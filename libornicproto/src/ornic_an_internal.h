/* SPDX-License-Identifier: MIT */
/* Internals of the conversation analysis (ornic/analysis.h). The rules are
 * docs/PROTOCOL.md section 8; each file holds one part of them:
 *   ornic_an_map.c   the hash map of QP halves and address pairs
 *   ornic_an_conv.c  conversations: keying, pairing the two QPs, merging
 *   ornic_an_wqe.c   WQE / message history, implied addresses
 *   ornic_an_seq.c   the PSN window and the requests of one direction
 *   ornic_an_resp.c  responses: ACK, NAK, READ responses
 *   ornic_an_mode.c  an RC requester: go-back-N or selective (8.6)
 *   ornic_an_cm.c    RDMA-CM REQ and REP: a QP pair as its set-up says (8.10)
 *   ornic_an_report.c the report of a direction, gathered from the verdicts (8.9)
 *   ornic_an_lat.c   its latency distributions
 *   ornic_analysis.c the public entry points */
#ifndef ORNIC_AN_INTERNAL_H
#define ORNIC_AN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ornic/analysis.h"
#include "ornic/cm.h"
#include "ornic/opcode.h"
#include "ornic/psn.h"
#include "ornic_internal.h"

/* Keeps a rarely taken path out of its caller (whose register saves it
 * would otherwise pay on every packet). */
#if defined(__GNUC__)
#define AN_NOINLINE __attribute__((noinline))
#else
#define AN_NOINLINE
#endif

/* The opcode's role flags, read from the table without a call: every
 * packet needs them, in several places. */
static inline uint16_t an_op_flags(uint8_t op) { return ornic_opcode_table_[op].flags; }
static inline bool an_op_ornic(uint8_t op) {
  return ornic_opcode_transport(op) == ORNIC_TRANSPORT_ORNIC;
}

/* What the engine needs of an opcode, in one word per opcode (built once
 * per engine, ornic_analysis.c): the role flags (ORNIC_OPF_*, 16 bits) and
 * these. The packet's word is passed down as `fl`. */
enum {
  AN_OP_ANALYSED = 1u << 16, /* PROTOCOL.md 8.1: RC, UC, XRC, ORNIC and CNP; not UD, RD, vendor */
  AN_OP_ORNIC = 1u << 17     /* an ORNIC opcode (an_op_ornic) */
};

/* ---- hash map: key -> uint32 value ---------------------------------------- */
typedef struct {
  uint8_t alen, pad[3];
  uint32_t qp; /* AN_PAIR_KEY for address-pair entries */
  uint8_t src[16], dst[16];
} an_key;
#define AN_PAIR_KEY 0xffffffffu

/* A key and its value side by side: a lookup in a map larger than the
 * cache (tens of thousands of QPs) misses once, not once per array. */
typedef struct {
  an_key key;
  uint32_t val; /* AN_NONE: empty slot */
} an_map_entry;

typedef struct {
  an_map_entry *e;
  uint32_t cap, n;
} an_map;
#define AN_NONE 0xffffffffu

void an_map_free(an_map *m);
/* The value for k, or AN_NONE. */
uint32_t an_map_get(const an_map *m, const an_key *k);
/* Inserts or replaces into a->map; -1 when out of memory. The map's
 * memory counts against the budget (the conversation that needs the entry
 * was admitted by it, ornic_an_conv.c). */
int an_map_put(ornic_analysis *a, const an_key *k, uint32_t v);

/* ---- the PSN window of one direction ------------------------------------- */
enum {
  S_REQ = 1u << 0,       /* a request with this PSN was seen (frame: its first copy) */
  S_RESV = 1u << 1,      /* reserved by a READ request (P+1 .. P+N-1) */
  S_RESP = 1u << 2,      /* a READ response with this PSN was seen (resp_frame) */
  S_ASKED = 0xfu << 8,   /* copies of the request NAKs asked for and not yet seen (a count) */
  S_RASKED = 0xfu << 12, /* copies of the READ response retries asked for (a count) */
  S_DECLARED = 1u << 5,  /* declared lost (counted in a LOSS) since it was last seen */
  S_ACKED = 1u << 6,     /* covered by a cumulative ACK (on_acked already called) */
  S_RANSWERED = 1u << 7  /* a copy answering the last READ retry that asked for it was seen */
};

typedef struct {
  uint32_t frame, resp_frame,
      asked; /* frame numbers, truncated to 32 bits; asked: the last asker */
  uint32_t bits;
  int64_t passed;  /* ns: when the window's top first reached this PSN */
  int64_t seen_ns; /* ns: when the request's first copy (frame) was seen */
} an_slot;

/* The ask counters (S_ASKED, S_RASKED): each NAK or READ retry asks for one
 * more copy, each copy that arrives answers one. */
static inline uint32_t an_asks(const an_slot *s, uint32_t field) {
  return (s->bits & field) / (field & -field);
}
static inline void an_ask(an_slot *s, uint32_t field) {
  if (an_asks(s, field) < 15) s->bits += field & -field;
}
static inline void an_answer(an_slot *s, uint32_t field) {
  if (an_asks(s, field)) s->bits -= field & -field;
}

/* ---- WQEs / messages ---------------------------------------------------- */
enum { W_SEND = 1, W_WRITE = 2, W_READ = 3, W_ATOMIC = 4 };
typedef struct {
  uint32_t idx;  /* 1-based in the direction */
  uint8_t kind;  /* W_* */
  bool has_reth; /* va, len, rkey valid */
  bool ornic;    /* ORNIC OOO WQE: any packet may come first */
  bool single;   /* an Only opcode: one packet, whatever its length */
  uint32_t start_psn;
  uint32_t end_psn; /* exclusive end when known from the next message (ends_known) */
  bool ends_known;
  bool reserved; /* READ: its PSNs after the first are marked S_RESV (the PMTU was known) */
  uint32_t len, rkey;
  uint32_t np;           /* an_wqe_npkts(w, np_pmtu): the answer for the last PMTU asked (a
                          * division per packet otherwise) */
  uint64_t np_pmtu;      /* that PMTU; AN_NP_NONE (no PMTU is) until asked: an_wqe_push */
  uint64_t va;           /* WRITE: Start_Addr; READ: the remote source */
  uint64_t frame;        /* the packet that revealed it */
  uint64_t cached_frame; /* ORNIC: the first ACK with ADDR_CACHED for it (3.4), 0 none */
  int64_t first_ns;      /* ns: its earliest packet seen (the request, for a READ) */
} an_wqe;
#define AN_WQE_HIST 64u
#define AN_NP_NONE UINT64_MAX

typedef struct {
  an_wqe *ring;     /* cap entries, grown by an_wqe_push up to AN_WQE_HIST */
  uint32_t cap;     /* 0 until the first WQE */
  uint32_t n, head; /* head: index of the newest */
  uint32_t count;   /* WQEs created in the direction */
} an_wqe_hist;

/* ---- how an RC requester answers a PSN sequence error NAK (8.6, ours) ---- */
/* Go-back-N (IBA RC) or selective (IRN, LEFT): learnt from what the
 * direction sends after a NAK (ornic_an_mode.c). 32 bytes. */
enum { AN_RC_UNKNOWN = 0, AN_RC_SELECTIVE = 1, AN_RC_GOBACK = 2 };
typedef struct {
  uint8_t mode;      /* AN_RC_*: once known, for the direction's life */
  bool on;           /* a NAK's tail is on trial: n + 1 .. h */
  bool copy;         /* the copy answering PSN n was seen */
  bool have_top;     /* a sequence error NAK was seen */
  bool tail_asked;   /* the NAK asked for its tail (one path: nothing arrives late) */
  uint8_t reps;      /* distinct repeats of tail PSNs seen since the NAK (up to 2) */
  uint32_t n, h;     /* the NAK's PSN; the highest request PSN when it came */
  uint32_t frame;    /* the NAK (the asker of the tail), truncated to 32 bits */
  uint32_t last_rep; /* the last repeat */
  uint32_t after;    /* requests seen since the copy of n */
  uint32_t top;      /* the highest request PSN when the last such NAK came (8.3's lag) */
} an_rc_trial;

/* ---- one requester direction: its requests and the responses to them ---- */
/* One ACK's PSNs past the highest request, held (8.5): up to `end`. */
typedef struct {
  uint32_t end;
  uint32_t pkts;  /* the direction's packets when it was held */
  int64_t ns;     /* its time */
  uint64_t frame; /* the ACK */
} an_hold;
/* ACKs held at once: more extend the newest (its wait starts again). */
#define AN_HOLD_MAX 8u

typedef struct {
  /* requests */
  bool have_req;
  uint32_t floor;    /* lowest request PSN seen: nothing before it is judged */
  uint32_t first;    /* first request PSN seen: not-captured is judged from it on */
  uint32_t hpsn;     /* highest request PSN */
  uint32_t epsn;     /* first PSN from floor on neither seen nor reserved */
  uint32_t last_psn; /* the previous request's PSN */
  bool hole_flagged;
  /* A gap before a request, held (8.5): PSNs gap_first .. + gap_n, seen
   * missing when the direction had gap_pkts packets, at gap_ns. */
  bool gap_on;
  uint32_t gap_first, gap_n, gap_pkts;
  int64_t gap_ns;
  uint32_t hole_limit;
  uint16_t sport;       /* UDP source port of the first request */
  bool sprayed;         /* requests came from more than one source port (paths) */
  an_rc_trial rc;       /* go-back-N or selective (8.6) */
  bool resend_on;       /* the last request was a repeat: a go-back-N resend may go on (8.6) */
  bool limited;         /* held at the smallest window for its work (ORNIC_AN_WORK_LIMIT) */
  bool starts_msg;      /* the first request seen was the first packet of a message (8.6 MSN) */
  uint32_t resend_next; /* the PSN after it: where such a resend continues */
  /* window: cap PSNs (what the budget counts and what decides which PSNs it
   * holds); only the newest `real` of them, (top - real, top], are in
   * memory, in pcap slots. The rest are PSNs no packet has reached (before
   * the direction's first PSN, or passed over by a jump of a whole window):
   * alike, {.passed = base_ns}, and given a slot when first touched
   * (an_slot_real). A direction that does not reorder holds as many slots
   * as PSNs it has carried, not a window's worth. (The small fields around
   * sit where the struct has room: the budget counts every an_conv.) */
  an_slot *slots;
  uint32_t cap;      /* 0 until the first PSN */
  uint32_t pcap;     /* slots allocated: a power of two, at most cap */
  uint32_t real;     /* real <= valid */
  uint32_t evidence; /* packets seen and PSNs reserved: what the window may grow to
                      * (ornic_an_seq.c) */
  int64_t base_ns;
  int64_t credit; /* work steps the direction may still take (ornic_an_seq.c) */
  uint64_t steps; /* work steps taken (ornic_an_limits.work_steps) */
  uint32_t valid; /* slots known: (top - valid, top]; valid <= cap */
  uint32_t top;   /* highest PSN in the window */
  bool have_top;
  /* responses */
  bool have_cum, have_msn, have_resp;
  uint32_t cum, msn, resp_hpsn;
  uint32_t resp_last;                 /* the previous READ response's PSN */
  bool resp_retry;                    /* it answered a retry: the next in sequence does too */
  bool have_resp_sport, resp_sprayed; /* READ responses from more than one source port */
  uint16_t resp_sport;                /* UDP source port of the first READ response */
  int64_t now;                        /* ns: the packet being analysed */
  int64_t lag_max; /* ns: the longest an out-of-order first arrival lagged behind a later PSN */
  /* Held "not captured" judgements (8.5): PSNs past the highest request
   * that ACKs covered, from hold_first on, each ACK's up to its end; judged
   * once AN_HOLD_NS and AN_HOLD_PKTS packets of the direction have passed. */
  uint32_t hold_first;
  uint8_t hold_n, hold_head; /* entries; the oldest */
  an_hold hold[AN_HOLD_MAX];
  an_wqe_hist wqes;
  ornic_an_dir_stats *st;
  /* Capture quality (ornic_an_dir_report, 8.5): PSNs from the first request
   * on that the highest reached or the floor went back over, and of those
   * the ones seen as a request or reserved by a READ. */
  uint64_t span, covered;
  bool cm_on; /* RDMA-CM gave the direction's first PSN (8.10) */
  bool rep_tried;
  uint32_t cm_psn;       /* that PSN */
  struct an_report *rep; /* ornic_an_report.c; NULL until the first packet, or refused */
} an_dir;

/* ---- conversations and halves -------------------------------------------- */
typedef struct {
  ornic_an_conv pub;
  an_dir dir[2];
  uint32_t pmtu;      /* learnt, 0 unknown */
  uint32_t next_pair; /* next conversation with the same (A, B) addresses, AN_NONE at the end */
  bool have_last;
  int64_t last_ns; /* ns: the previous packet of the conversation, either direction */
} an_conv;

/* Traffic into one QP from one source address. */
typedef struct {
  uint32_t conv; /* index into convs */
  uint8_t side;  /* 0: the source is the conversation's A; 1: it is B */
} an_half;

/* An RDMA-CM REQ waiting for its REP (ornic_an_cm.c). */
typedef struct {
  bool used;
  uint8_t alen;
  uint8_t init_depth, resp_resources;
  uint32_t comm_id, qpn, psn, pmtu;
  uint8_t src[16], dst[16]; /* the active side, the passive side */
} an_cm_req;
#define AN_CM_PENDING 64u

/* The halves cached behind the last two (many QP pairs in turn): a power of two. */
#define AN_QP_CACHE 64u

struct ornic_analysis {
  ornic_analysis_cfg cfg;
  ornic_an_limits lim; /* memory and what the limits did */
  int64_t work_burst;  /* what a direction may borrow: 4 windows (an_work_earn) */
  bool over_budget;    /* the last conversation refused was refused for memory */
  bool new_unpaired;   /* the packet being analysed made a conversation: no pair fitted it */
  uint32_t op[256];    /* per opcode: ORNIC_OPF_* | AN_OP_* */
  an_map map;          /* half keys -> half index; pair keys -> first conversation index */
  an_half *halves;
  uint32_t nhalves, halves_cap;
  an_conv *convs;
  uint32_t nconvs, convs_cap;
  an_key last_key[2];         /* the last two halves looked up */
  uint32_t last_half[2];      /* AN_NONE: none */
  an_key qp_key[AN_QP_CACHE]; /* behind those: one half per qp_slot(DestQP) */
  uint32_t qp_half[AN_QP_CACHE];
  an_cm_req cm[AN_CM_PENDING]; /* REQs waiting for their REP, a ring */
  uint32_t cm_next;
};

/* ---- memory (ornic_analysis.c): every allocation counts against the budget ---- */
/* Whether `more` bytes fit the budget; when they do (or `force`), they are
 * counted as used. */
bool an_mem_take(ornic_analysis *a, uint64_t more, bool force);
static inline void an_mem_give(ornic_analysis *a, uint64_t less) { a->lim.memory_used -= less; }

/* ornic_an_conv.c */
/* The addresses packet `in` is keyed by (PROTOCOL.md 8.1): the caller's,
 * else the IP header's (or GRH's); their length, 0 for none (DestQP alone). */
/* An IPv4-mapped IPv6 address or GID (::ffff:a.b.c.d, RFC 4291 2.5.5.2):
 * what RoCEv1 carries for a host that RoCEv2 names by a.b.c.d. */
static inline bool an_v4_mapped(const uint8_t *x) {
  static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return !memcmp(x, prefix, 12);
}

static inline uint8_t an_key_addrs(const ornic_an_input *in, const uint8_t **src,
                                   const uint8_t **dst) {
  uint8_t alen;
  if (in->src && in->dst && (in->addr_len == 4 || in->addr_len == 16)) {
    *src = in->src;
    *dst = in->dst;
    alen = in->addr_len;
  } else {
    *src = in->f->ip.src;
    *dst = in->f->ip.dst;
    alen = in->f->l3 == ORNIC_L3_NONE ? 0 : in->f->l3 == ORNIC_L3_IPV4 ? 4 : 16;
  }
  /* Both IPv4-mapped: keyed as the IPv4 addresses, so that a host's RoCEv1
   * half (GIDs ::ffff:a.b.c.d) pairs with its peer's RoCEv2 half (8.1). */
  if (alen == 16 && an_v4_mapped(*src) && an_v4_mapped(*dst)) {
    *src += 12;
    *dst += 12;
    alen = 4;
  }
  return alen;
}

/* The key of the half packet `in` goes into: its addresses (constant-length
 * copies: a copy of a variable length is a library call) and its BTH DestQP. */
static inline void an_make_key(an_key *k, const ornic_an_input *in) {
  const uint8_t *src, *dst;
  uint8_t alen = an_key_addrs(in, &src, &dst);
  memset(k, 0, sizeof *k);
  k->qp = in->f->bth.destqp;
  k->alen = alen;
  if (alen == 4) {
    memcpy(k->src, src, 4);
    memcpy(k->dst, dst, 4);
  } else if (alen == 16) {
    memcpy(k->src, src, 16);
    memcpy(k->dst, dst, 16);
  }
}

/* Whether k is the key an_make_key would build from these, without
 * building it: what a cached key is checked with on every packet. */
static inline bool an_key_is(const an_key *k, uint8_t alen, uint32_t qp, const uint8_t *src,
                             const uint8_t *dst) {
  if (k->qp != qp || k->alen != alen) return false;
  if (alen == 4) return !memcmp(k->src, src, 4) && !memcmp(k->dst, dst, 4);
  return alen != 16 || (!memcmp(k->src, src, 16) && !memcmp(k->dst, dst, 16));
}

/* The per-QP cache, the map, and the creation of a new half; fills the
 * caches. */
an_half *an_half_lookup(ornic_analysis *a, const ornic_an_input *in);
/* Empties the caches (an alen no key has never matches). */
static inline void an_half_cache_clear(ornic_analysis *a) {
  for (int i = 0; i < 2; i++) {
    a->last_key[i].alen = 0xff;
    a->last_half[i] = AN_NONE;
  }
  for (uint32_t i = 0; i < AN_QP_CACHE; i++) {
    a->qp_key[i].alen = 0xff;
    a->qp_half[i] = AN_NONE;
  }
}

/* The half of packet `in` (created on first sight), resolved through merges;
 * NULL when the table is full or out of memory. Packets mostly alternate
 * between a QP pair's two halves (data one way, ACKs the other): two
 * entries of cache, inline in the caller, before the per-QP cache and the
 * map. A cached half is already resolved: a merge empties the caches
 * (ornic_an_conv.c). */
static inline an_half *an_half_for(ornic_analysis *a, const ornic_an_input *in) {
  const uint8_t *src, *dst;
  uint8_t alen = an_key_addrs(in, &src, &dst);
  uint32_t qp = in->f->bth.destqp;
  if (an_key_is(&a->last_key[0], alen, qp, src, dst)) return &a->halves[a->last_half[0]];
  if (an_key_is(&a->last_key[1], alen, qp, src, dst)) return &a->halves[a->last_half[1]];
  return an_half_lookup(a, in);
}

/* A response on half h whose conversation's QPs are not yet paired: if it
 * fits the requests of the reverse conversation, merge the two. Returns true
 * when it paired them (h is updated). */
bool an_try_pair(ornic_analysis *a, an_half *h, const ornic_an_input *in);
static inline an_conv *an_conv_at(ornic_analysis *a, uint32_t idx) { return &a->convs[idx]; }

/* A conversation RDMA-CM set up (8.10): A (src) with QP qa is the active
 * side, B (dst) with QP qb the passive; both halves made now. Its index, or
 * -1 when a packet made either half already (the pair stays as packets
 * made it) or there is no room. */
int an_conv_from_cm(ornic_analysis *a, uint8_t alen, const uint8_t *src, const uint8_t *dst,
                    uint32_t qa, uint32_t qb);

/* ornic_an_cm.c: a UD packet to QP 1; reads its CM REQ or REP if it is one. */
void an_cm(ornic_analysis *a, const ornic_an_input *in, ornic_an_verdict *restrict v);

/* ornic_an_wqe.c */
/* Adds w as the newest WQE; NULL when there is no room at all (the first
 * allocation failed). */
an_wqe *an_wqe_push(ornic_analysis *a, an_wqe_hist *h, const an_wqe *w);
void an_wqe_free(ornic_analysis *a, an_wqe_hist *h);
/* an_wqe_find without its inline first try: the whole history, newest first. */
an_wqe *an_wqe_search(an_wqe_hist *h, uint32_t psn, uint8_t kind, uint32_t pmtu);
/* Close the newest WQE: the next message starts at psn. */
void an_wqe_close(an_wqe_hist *h, uint32_t psn);

/* ornic_an_seq.c */
/* The slot k PSNs below the top, real <= k < valid: made real (with the
 * ones between), out of line. */
an_slot *an_slot_real(an_dir *d, uint32_t k);
/* The slot of psn, NULL outside the window. Inline: several per packet.
 * A slot made real may move the others: a loop over a range starts at its
 * lowest PSN (the ones above it are then real). */
static inline an_slot *an_slot_at(an_dir *d, uint32_t psn) {
  /* ornic_psn_diff(top, psn) in [0, valid): valid <= 2^22 is below the
   * half circle, so the forward distance alone decides (valid is 0 until
   * the first PSN, have_top) */
  uint32_t k = (d->top - psn) & ORNIC_PSN_MASK;
  if (k >= d->valid) return NULL;
  if (k >= d->real) return an_slot_real(d, k);
  return &d->slots[psn & (d->pcap - 1)];
}
/* The bits of the window's slot psn & (cap - 1) (the PSN of the window
 * congruent to psn), 0 outside what the window holds: for the loops that
 * only read, without making slots real. */
static inline uint32_t an_slot_bits(const an_dir *d, uint32_t psn) {
  uint32_t k = (d->top - psn) & (d->cap - 1);
  if (k >= d->valid || k >= d->real) return 0;
  return d->slots[psn & (d->pcap - 1)].bits;
}
/* an_window_touch for a psn past the top, or the first one. */
int an_window_advance(ornic_analysis *a, an_dir *d, uint32_t psn);
/* Makes psn the top if newer; -1 when out of memory. Inline: most PSNs
 * touched (NAKs' asks, READ responses, repeats) are not newer. */
static inline int an_window_touch(ornic_analysis *a, an_dir *d, uint32_t psn) {
  if (d->have_top && ornic_psn_diff(psn, d->top) <= 0) return 0;
  return an_window_advance(a, d, psn);
}
/* The part of the n PSNs from *first that has slots: *first and the count
 * returned are clipped to the window (top - valid, top]. What every loop
 * over a range a packet names goes through, so that a packet costs at most
 * a window's worth of steps whatever range it names. */
uint32_t an_window_clip(const an_dir *d, uint32_t *first, uint32_t n);
/* Steps of work taken for the packet being analysed (docs/RELIABILITY.md
 * "Hostile captures"): each packet earns AN_WORK_PER_PACKET. */
#define AN_WORK_PER_PACKET 64
static inline void an_work(an_dir *d, uint32_t steps) {
  d->credit -= steps;
  d->steps += steps;
}
/* A direction that spent more than it may borrow (an_work_settle). */
void an_work_limit(ornic_analysis *a, an_dir *d, ornic_an_verdict *restrict v);
/* Once per packet of d, before its analysis: its earnings (and one packet
 * more of evidence for its window, ornic_an_seq.c); a direction limited for
 * its work is free again once it has earned the whole burst back. */
static inline void an_work_earn(const ornic_analysis *a, an_dir *d) {
  if (d->evidence < a->cfg.window) d->evidence++;
  if (d->credit < a->work_burst) d->credit += AN_WORK_PER_PACKET;
  if (d->limited && d->credit >= a->work_burst) d->limited = false;
}
/* After the packet: a direction that borrowed more than it may is limited. */
static inline void an_work_settle(ornic_analysis *a, an_dir *d, ornic_an_verdict *restrict v) {
  if (d->credit < 0 && !d->limited) an_work_limit(a, d, v);
}

/* How long a "not captured" judgement of PSNs past the highest request
 * waits for those requests (8.5): a host capture writes the NIC's
 * transmitted frames up to tens of us after the ACKs that answer them. */
#define AN_HOLD_NS 50000
#define AN_HOLD_PKTS 64u
/* The direction's packets so far (requests and responses). */
static inline uint32_t an_dir_pkts(const an_dir *d) {
  return (uint32_t)(d->st->req_packets + d->st->resp_packets);
}
/* Once per packet of d, before its analysis: held judgements whose wait is
 * over are given on this packet (ornic_an_resp.c). */
void an_hold_expire(ornic_analysis *a, an_dir *d, ornic_an_verdict *restrict v);
static inline void an_hold_tick(ornic_analysis *a, an_dir *d, ornic_an_verdict *restrict v) {
  if (d->hold_n) an_hold_expire(a, d, v);
}
/* A request p first seen past the highest: inside a held range it was
 * acknowledged before the capture wrote it (ornic_an_resp.c). */
void an_hold_arrival(ornic_analysis *a, an_conv *c, an_dir *d, uint32_t p, const ornic_an_input *in,
                     ornic_an_verdict *restrict v);

/* A new conversation's directions: their first allowance of work. */
void an_dir_init(const ornic_analysis *a, an_dir *d);
/* The window a direction starts with and is limited to. */
#define AN_WIN_MIN 256u
/* fl: the opcode's role flags (an_op_flags). */
void an_request(ornic_analysis *a, an_conv *c, an_dir *d, const ornic_an_input *in, uint32_t fl,
                ornic_an_verdict *restrict v);

/* ornic_an_report.c: the direction's report (ornic_an_dir_report), after
 * the packet's verdict is known; merged and freed with its direction. */
void an_report_packet(ornic_analysis *a, an_conv *c, an_dir *d, const ornic_an_input *in,
                      uint32_t fl, const ornic_an_verdict *restrict v);
void an_report_merge(ornic_analysis *a, an_dir *dst, an_dir *src);
void an_report_free(ornic_analysis *a, an_dir *d);

/* ornic_an_resp.c */
/* Asks again for the n PSNs from q0 (for the NAK `frame`): declare_first,
 * q0 is declared lost; declare_all, every PSN the capture saw is (ORNIC).
 * Returns how many it declares; *first, the first of them. */
uint32_t an_ask_range(ornic_analysis *a, an_dir *d, uint32_t q0, uint32_t n, uint64_t frame,
                      bool declare_all, bool declare_first, uint32_t *first);
void an_response(ornic_analysis *a, an_conv *c, an_dir *d, const ornic_an_input *in, uint32_t fl,
                 ornic_an_verdict *restrict v);

/* ornic_an_mode.c: go-back-N or selective (8.6, ours). */
/* An RC PSN sequence error NAK at psn: how many PSNs from psn it asks for
 * (1, or to the highest request seen); a tail left unasked goes on trial. */
uint32_t an_rc_nak_span(an_dir *d, uint32_t psn, uint32_t span, uint64_t frame);
/* While a tail is on trial (d->rc.on), after a request's verdict: what it
 * shows of the mode. seen: a request at psn had been seen before it. */
void an_rc_request(ornic_analysis *a, an_dir *d, uint32_t psn, bool seen,
                   const ornic_an_verdict *v);
/* While a tail is on trial, after a cumulative acknowledgement moved d->cum. */
void an_rc_acked(an_dir *d);

/* ---- shared by the request and response paths, once per packet ---------- */

static inline bool an_valid_pmtu(uint64_t n) {
  return n == 256 || n == 512 || n == 1024 || n == 2048 || n == 4096;
}

/* The conversation's PMTU: configured, or learnt from the first packet that
 * carries payload and does not end its message (it is PMTU-sized). fl: the
 * packet's opcode flags. */
static inline uint32_t an_conv_pmtu(const ornic_analysis *a, an_conv *c, const ornic_frame *f,
                                    uint32_t fl) {
  if (a->cfg.pmtu) return a->cfg.pmtu;
  if (!c->pmtu && (fl & ORNIC_OPF_PAYLOAD) && !(fl & ORNIC_OPF_LAST) &&
      an_valid_pmtu(f->payload_len))
    c->pmtu = (uint32_t)f->payload_len;
  return c->pmtu;
}

/* floor(log2(x)), x > 0: size and latency buckets (ornic_an_report.c, ornic_an_lat.c). */
static inline unsigned an_log2_64(uint64_t x) {
#if defined(__GNUC__)
  return 63u - (unsigned)__builtin_clzll(x);
#else
  unsigned e = 0;
  while (x >>= 1) e++;
  return e;
#endif
}

/* ornic_an_ooo_bucket: floor(log2(distance)), 0 for 0 and 1, at most
 * ORNIC_AN_OOO_BUCKETS - 1. Every out-of-order arrival counts one. */
static inline unsigned an_ooo_bucket(uint32_t distance) {
  if (distance >= 1u << (ORNIC_AN_OOO_BUCKETS - 1)) return ORNIC_AN_OOO_BUCKETS - 1;
#if defined(__GNUC__)
  return 31u - (unsigned)__builtin_clz(distance | 1u);
#else
  unsigned b = 0;
  while (distance > 1) {
    distance >>= 1;
    b++;
  }
  return b;
#endif
}

static inline void an_note_time(ornic_an_dir_stats *st, const ornic_an_input *in) {
  if (!st->have_time) {
    st->have_time = true;
    st->first_sec = in->sec;
    st->first_nsec = in->nsec;
  }
  st->last_sec = in->sec;
  st->last_nsec = in->nsec;
}

/* now - then into *out when it is not negative (a capture's clock may step
 * back); false otherwise. */
static inline bool an_elapsed(int64_t now, int64_t then, uint64_t *out) {
  if (now < then) return false;
  *out = (uint64_t)now - (uint64_t)then;
  return true;
}

/* ---- small helpers of every packet, inline (they cross files) ----------- */

/* PSNs after the first one captured that may have arrived before the
 * capture started, having overtaken it on a faster path: never reported as
 * not captured (8.5). Only where packets are reordered at all: ORNIC, or a
 * direction that has shown out-of-order arrivals. */
static inline uint32_t an_not_captured_margin(const ornic_analysis *a, const an_conv *c,
                                              const an_dir *d) {
  if (!c->pub.transport_ornic && !d->st->ooo) return 0;
  uint32_t m = 2 * a->cfg.otd;
  return m < 512 ? 512 : m;
}

/* Packets of a message of len bytes; 0 when pmtu unknown. */
static inline uint32_t an_npkts(uint32_t len, uint32_t pmtu) {
  if (!pmtu) return 0;
  return len ? (uint32_t)(((uint64_t)len + pmtu - 1) / pmtu) : 1;
}

static inline an_wqe *an_wqe_newest(an_wqe_hist *h) { return h->n ? &h->ring[h->head] : NULL; }

/* Packets of w by its length at the PMTU (1 for an Only), 0 unknown. Every
 * packet of a message asks this of its WQE, with the same PMTU: the
 * division is done once per WQE and PMTU. */
static inline uint32_t an_wqe_npkts(an_wqe *w, uint32_t pmtu) {
  if (w->np_pmtu != pmtu) {
    w->np = w->single ? 1 : w->has_reth ? an_npkts(w->len, pmtu) : 0;
    w->np_pmtu = pmtu;
  }
  return w->np;
}

/* Packets of w: its length at the PMTU, else up to the next message. k:
 * psn's distance from the WQE's start, not negative. */
static inline bool an_wqe_holds(an_wqe *w, uint32_t psn, int32_t k, uint32_t pmtu) {
  uint32_t n = an_wqe_npkts(w, pmtu);
  if (n) return (uint32_t)k < n;
  if (w->ends_known) return ornic_psn_diff(w->end_psn, psn) > 0;
  return true; /* the newest message, length unknown: any PSN after its start */
}

/* The newest WQE of `kind` (0: any) that holds psn, or NULL. Most packets
 * belong to the newest WQE: it is tried inline, the history out of line. */
static inline an_wqe *an_wqe_find(an_wqe_hist *h, uint32_t psn, uint8_t kind, uint32_t pmtu) {
  an_wqe *w = an_wqe_newest(h);
  if (w && (!kind || w->kind == kind)) {
    int32_t k = ornic_psn_diff(psn, w->start_psn);
    if (k >= 0 && an_wqe_holds(w, psn, k, pmtu)) return w;
  }
  return an_wqe_search(h, psn, kind, pmtu);
}

/* Fills the verdict's wqe fields and the packet's address. */
static inline void an_wqe_fill(ornic_an_verdict *restrict v, an_wqe *w, uint32_t psn,
                               uint32_t pmtu) {
  uint32_t k = (uint32_t)ornic_psn_diff(psn, w->start_psn);
  v->flags |= ORNIC_AN_WQE;
  v->wqe = w->idx;
  v->wqe_start_psn = w->start_psn;
  v->wqe_pkt = k;
  v->wqe_frame = w->frame;
  v->wqe_npkts = an_wqe_npkts(w, pmtu);
  if (!v->wqe_npkts && w->ends_known)
    v->wqe_npkts = (uint32_t)ornic_psn_diff(w->end_psn, w->start_psn);
  if (v->wqe_npkts) v->wqe_last_psn = ornic_psn_add(w->start_psn, (int32_t)v->wqe_npkts - 1);
  if (!w->has_reth) return;
  v->wqe_start_addr = w->va;
  v->wqe_len = w->len;
  if (pmtu || k == 0) {
    v->addr = w->va + (uint64_t)k * pmtu;
    v->flags |= ORNIC_AN_ADDR;
  } else {
    v->flags |= ORNIC_AN_PMTU_UNKNOWN;
  }
}

#endif
