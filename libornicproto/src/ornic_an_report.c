/* SPDX-License-Identifier: MIT */
/* The report of one requester direction (ornic_an_dir_report,
 * docs/PROTOCOL.md 8.9): what the verdicts add up to for an RDMA engineer,
 * gathered from each packet's verdict once the rules have given it, so that
 * no rule is taken again here. Throughput and message mix, message sizes,
 * latency distributions, congestion marks and the reaction to them, and
 * the capture's own quality.
 *
 * Memory: a direction's report is allocated on its first packet, and each
 * latency histogram on its first sample, both from the engine's budget
 * (analysis.h "Memory"); what the budget refuses is reported as missing
 * (available, percentiles false), never guessed. */
#include <stdlib.h>

#include "ornic/errors.h"
#include "ornic_an_lat.h"

enum { LAT_ACK_RTT, LAT_MSG_TIME, LAT_READ_TIME, LAT_CNP, LAT_N };

struct an_report {
  an_lat lat[LAT_N];
  uint64_t msgs[ORNIC_AN_MSG_KINDS];
  uint64_t size_hist[ORNIC_AN_SIZE_BUCKETS], size_unknown;
  uint64_t ce, fecn, becn, dscp_seen;
  uint8_t ecn_seen;
  uint64_t dup_acks, seq_naks, rnr_naks, fatal_naks, credit0_acks;
  uint64_t gaps, gap_psns, cut;
  uint32_t flight_max;
  uint32_t reads_max;  /* the most RDMA READs outstanding at a READ request */
  uint64_t reads_over; /* READ requests past the depth RDMA-CM negotiated */
  bool ce_pending;     /* a CE-marked request since the last CNP */
  int64_t ce_ns;       /* its time */
};

/* ---- message sizes ----------------------------------------------------------- */

unsigned ornic_an_size_bucket(uint64_t len) {
  if (!len) return 0;
  unsigned b = an_log2_64(len) + 1u;
  return b < ORNIC_AN_SIZE_BUCKETS ? b : ORNIC_AN_SIZE_BUCKETS - 1;
}

const char *ornic_an_size_bucket_name(unsigned bucket) {
  static const char *const names[ORNIC_AN_SIZE_BUCKETS] = {
      "0",         "1",         "2-3",     "4-7",      "8-15",      "16-31",     "32-63",
      "64-127",    "128-255",   "256-511", "512-1023", "1K-2K",     "2K-4K",     "4K-8K",
      "8K-16K",    "16K-32K",   "32K-64K", "64K-128K", "128K-256K", "256K-512K", "512K-1M",
      "1M-2M",     "2M-4M",     "4M-8M",   "8M-16M",   "16M-32M",   "32M-64M",   "64M-128M",
      "128M-256M", "256M-512M", "512M-1G", "1G-2G",    "2G-4G"};
  return bucket < ORNIC_AN_SIZE_BUCKETS ? names[bucket] : "?";
}

static unsigned msg_kind(uint32_t fl) {
  if (fl & ORNIC_OPF_WRITE) return ORNIC_AN_MSG_WRITE;
  if (fl & ORNIC_OPF_READ) return ORNIC_AN_MSG_READ;
  if (fl & ORNIC_OPF_ATOMIC) return ORNIC_AN_MSG_ATOMIC;
  return ORNIC_AN_MSG_SEND;
}

/* A message's size: a RETH gives it on the packet that reveals the message;
 * a SEND's is known at its Last (or Only) packet, as First and Middle
 * packets carry exactly the PMTU (IBA 9.7.5.1.3, PROTOCOL.md 8.9). */
static void note_size(struct an_report *r, const ornic_an_input *in, uint32_t fl,
                      const ornic_an_verdict *v) {
  const ornic_frame *f = in->f;
  bool send_end = (fl & ORNIC_OPF_SEND) && (fl & ORNIC_OPF_LAST);
  if (!(v->flags & ORNIC_AN_NEW_WQE) && !send_end) return; /* most packets */
  if (fl & ORNIC_OPF_ATOMIC) {
    if (v->flags & ORNIC_AN_NEW_WQE) r->size_hist[ornic_an_size_bucket(8)]++;
    return;
  }
  if (f->ext.present & ORNIC_HDR_RETH) {
    if (v->flags & ORNIC_AN_NEW_WQE) r->size_hist[ornic_an_size_bucket(f->ext.reth.dmalen)]++;
    return;
  }
  if (!send_end || (v->flags & (ORNIC_AN_DUP | ORNIC_AN_RETRANS))) return;
  if (fl & ORNIC_OPF_FIRST) { /* Only */
    r->size_hist[ornic_an_size_bucket(f->payload_len)]++;
    return;
  }
  if ((v->flags & ORNIC_AN_WQE) && v->pmtu && f->payload) {
    uint64_t before = (uint64_t)(uint32_t)ornic_psn_diff(f->bth.psn, v->wqe_start_psn) * v->pmtu;
    r->size_hist[ornic_an_size_bucket(before + f->payload_len)]++;
  } else {
    r->size_unknown++;
  }
}

/* ---- per packet ------------------------------------------------------------- */

static struct an_report *report_of(ornic_analysis *a, an_dir *d) {
  if (d->rep || d->rep_tried) return d->rep;
  d->rep_tried = true;
  if (!an_mem_take(a, sizeof *d->rep, false)) return NULL;
  d->rep = calloc(1, sizeof *d->rep);
  if (!d->rep) an_mem_give(a, sizeof *d->rep);
  return d->rep;
}

static void note_marks(struct an_report *r, const ornic_frame *f, bool request, int64_t now) {
  bool ip = f->l3 == ORNIC_L3_IPV4 || f->l3 == ORNIC_L3_IPV6;
  if (!request) {
    if (f->bth.becn) r->becn++;
    return;
  }
  if (f->bth.fecn) r->fecn++;
  if (!ip) return;
  uint8_t ecn = f->ip.tos & 3;
  r->ecn_seen |= (uint8_t)(1u << ecn);
  r->dscp_seen |= (uint64_t)1 << (f->ip.tos >> 2);
  if (ecn == 3) {
    r->ce++;
    if (!r->ce_pending) {
      r->ce_pending = true;
      r->ce_ns = now;
    }
  }
}

static void note_aeth(struct an_report *r, const ornic_frame *f, uint32_t fl,
                      const ornic_an_verdict *v) {
  if (!(fl & ORNIC_OPF_ACK) || !(f->ext.present & ORNIC_HDR_AETH)) return;
  uint8_t syn = f->ext.aeth.syndrome, type = ornic_aeth_type(syn);
  if (type == ORNIC_AETH_ACK) {
    if (syn == ORNIC_AETH_ACK) r->credit0_acks++;
    /* RC's: an ORNIC responder's ACK scheduler answers out-of-order arrivals
     * with the same cumulative PSN by design (4.3) */
    if ((v->flags & ORNIC_AN_ACK) && !(v->flags & ORNIC_AN_ACK_STALE) && !v->ack_newly &&
        !v->msn_delta && !(fl & AN_OP_ORNIC))
      r->dup_acks++;
  } else if (type == ORNIC_AETH_RNR_NAK) {
    r->rnr_naks++;
  } else if (type == ORNIC_AETH_NAK) {
    if (syn == ORNIC_AETH_NAK_PSN_SEQ)
      r->seq_naks++;
    else
      r->fatal_naks++;
  }
}

/* READs of d outstanding once the one revealed now is sent (8.10): those in
 * the WQE history whose last response PSN the cumulative acknowledgement
 * (READ responses acknowledge implicitly, 8.6) has not reached. RC only:
 * sprayed READ responses acknowledge nothing. */
static uint32_t reads_outstanding(an_dir *d, uint32_t pmtu) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < d->wqes.n; i++) {
    an_wqe *w = &d->wqes.ring[(d->wqes.head - i) & (d->wqes.cap - 1)];
    if (w->kind != W_READ) continue;
    uint32_t np = an_wqe_npkts(w, pmtu);
    if (!d->have_cum || !np ||
        ornic_psn_diff(ornic_psn_add(w->start_psn, (int32_t)np - 1), d->cum) > 0)
      n++;
  }
  an_work(d, d->wqes.n);
  return n;
}

static void note_read(struct an_report *r, const an_conv *c, an_dir *d, uint32_t pmtu) {
  uint32_t n = reads_outstanding(d, pmtu);
  if (n > r->reads_max) r->reads_max = n;
  uint8_t depth = c->pub.cm_read_depth[d - c->dir];
  if (depth && n > depth) r->reads_over++;
}

static uint32_t in_flight(const an_dir *d) {
  if (!d->have_req || !d->have_cum) return 0;
  int32_t n = ornic_psn_diff(d->hpsn, d->cum);
  return n > 0 ? (uint32_t)n : 0;
}

void an_report_packet(ornic_analysis *a, an_conv *c, an_dir *d, const ornic_an_input *in,
                      uint32_t fl, const ornic_an_verdict *restrict v) {
  struct an_report *r = report_of(a, d);
  if (!r) return;
  const ornic_frame *f = in->f;
  bool request = v->role == ORNIC_AN_ROLE_REQUEST;
  if (f->payload_caplen < f->payload_len) r->cut++;
  if (v->role == ORNIC_AN_ROLE_CNP) {
    if (r->ce_pending && d->now >= r->ce_ns)
      an_lat_add(a, &r->lat[LAT_CNP], (uint64_t)(d->now - r->ce_ns));
    r->ce_pending = false;
    return;
  }
  note_marks(r, f, request, d->now);
  if (request) {
    if (v->flags & ORNIC_AN_NEW_WQE) r->msgs[msg_kind(fl)]++;
    if ((v->flags & ORNIC_AN_NEW_WQE) && (fl & ORNIC_OPF_READ) && !(fl & AN_OP_ORNIC))
      note_read(r, c, d, v->pmtu);
    note_size(r, in, fl, v);
    if (v->flags & ORNIC_AN_PREV_NOT_CAPTURED) {
      r->gaps++;
      r->gap_psns += v->hole_count;
    }
    uint32_t fly = in_flight(d);
    if (fly > r->flight_max) r->flight_max = fly;
    return;
  }
  note_aeth(r, f, fl, v);
  if (v->flags & ORNIC_AN_ACK_RTT) an_lat_add(a, &r->lat[LAT_ACK_RTT], v->ack_rtt_ns);
  if (v->flags & ORNIC_AN_MSG_TIME)
    an_lat_add(a, &r->lat[(fl & ORNIC_OPF_READ) ? LAT_READ_TIME : LAT_MSG_TIME], v->msg_time_ns);
}

/* ---- merge, free ------------------------------------------------------------ */

#define ADD(x) dst->x += src->x

void an_report_merge(ornic_analysis *a, an_dir *dst_dir, an_dir *src_dir) {
  dst_dir->span += src_dir->span;
  dst_dir->covered += src_dir->covered;
  struct an_report *dst = dst_dir->rep, *src = src_dir->rep;
  if (!src) return;
  if (!dst) {
    dst_dir->rep = src;
    dst_dir->rep_tried = true;
    src_dir->rep = NULL;
    return;
  }
  for (int i = 0; i < LAT_N; i++) an_lat_merge(a, &dst->lat[i], &src->lat[i]);
  for (int i = 0; i < ORNIC_AN_MSG_KINDS; i++) ADD(msgs[i]);
  for (int i = 0; i < ORNIC_AN_SIZE_BUCKETS; i++) ADD(size_hist[i]);
  ADD(size_unknown);
  ADD(ce);
  ADD(fecn);
  ADD(becn);
  dst->dscp_seen |= src->dscp_seen;
  dst->ecn_seen |= src->ecn_seen;
  ADD(dup_acks);
  ADD(seq_naks);
  ADD(rnr_naks);
  ADD(fatal_naks);
  ADD(credit0_acks);
  ADD(gaps);
  ADD(gap_psns);
  ADD(cut);
  if (src->flight_max > dst->flight_max) dst->flight_max = src->flight_max;
  if (src->reads_max > dst->reads_max) dst->reads_max = src->reads_max;
  ADD(reads_over);
  an_report_free(a, src_dir);
}

#undef ADD

void an_report_free(ornic_analysis *a, an_dir *d) {
  if (!d->rep) return;
  for (int i = 0; i < LAT_N; i++) an_lat_free(a, &d->rep->lat[i]);
  an_mem_give(a, sizeof *d->rep);
  free(d->rep);
  d->rep = NULL;
}

/* ---- the public report -------------------------------------------------------- */

static double seconds(const ornic_an_dir_stats *st) {
  if (!st->have_time) return 0;
  double s = (double)(st->last_sec - st->first_sec) +
             ((double)st->last_nsec - (double)st->first_nsec) / 1e9;
  return s > 0 ? s : 0;
}

static void throughput(ornic_an_dir_report *o) {
  o->duration_s = seconds(&o->base);
  if (o->duration_s <= 0) return;
  o->req_gbps = (double)o->base.req_bytes * 8.0 / o->duration_s / 1e9;
  o->msgs_per_s = (double)o->base.wqes / o->duration_s;
  o->done_per_s = (double)o->base.wqes_done / o->duration_s;
}

static bool mixed(const struct an_report *r) {
  bool many_dscp = r->dscp_seen & (r->dscp_seen - 1);
  bool ect_and_not = (r->ecn_seen & 1u) && (r->ecn_seen & 0xeu);
  return many_dscp || ect_and_not;
}

static void fill(const an_conv *c, unsigned dir, ornic_an_dir_report *o) {
  const an_dir *d = &c->dir[dir];
  o->base = c->pub.dir[dir];
  o->acked_before_seen = c->pub.acked_before_seen[dir];
  o->cnps = o->base.cnp;
  o->psn_span = d->span;
  o->psn_missing = d->span > d->covered ? d->span - d->covered : 0;
  throughput(o);
  const struct an_report *r = d->rep;
  if (!r) return;
  o->available = true;
  memcpy(o->msgs, r->msgs, sizeof o->msgs);
  memcpy(o->size_hist, r->size_hist, sizeof o->size_hist);
  o->size_unknown = r->size_unknown;
  an_lat_out(&r->lat[LAT_ACK_RTT], &o->ack_rtt);
  an_lat_out(&r->lat[LAT_MSG_TIME], &o->msg_time);
  an_lat_out(&r->lat[LAT_READ_TIME], &o->read_time);
  an_lat_out(&r->lat[LAT_CNP], &o->cnp_reaction);
  o->ce = r->ce;
  o->fecn = r->fecn;
  o->becn = r->becn;
  o->dscp_seen = r->dscp_seen;
  o->ecn_seen = r->ecn_seen;
  o->mixed_marking = mixed(r);
  o->dup_acks = r->dup_acks;
  o->seq_naks = r->seq_naks;
  o->rnr_naks = r->rnr_naks;
  o->fatal_naks = r->fatal_naks;
  o->credit0_acks = r->credit0_acks;
  o->gaps = r->gaps;
  o->gap_psns = r->gap_psns;
  o->cut = r->cut;
  o->flight_max = r->flight_max;
  o->reads_max = r->reads_max;
  o->reads_over_depth = r->reads_over;
  o->read_depth = c->pub.cm_read_depth[dir];
}

static const an_conv *final_conv(const ornic_analysis *a, uint32_t id) {
  const ornic_an_conv *p = ornic_analysis_conv_final(a, id);
  return p ? &a->convs[p->id - 1] : NULL;
}

int ornic_analysis_dir_report(const ornic_analysis *a, uint32_t conv, unsigned dir,
                              ornic_an_dir_report *out, size_t out_size) {
  if (!a || !out || dir > 1) return ORNIC_ERR_INVALID_ARG;
  const an_conv *c = final_conv(a, conv);
  if (!c) return ORNIC_ERR_INVALID_ARG;
  ornic_an_dir_report o;
  memset(&o, 0, sizeof o);
  fill(c, dir, &o);
  memcpy(out, &o, out_size < sizeof o ? out_size : sizeof o);
  return ORNIC_OK;
}

uint32_t ornic_analysis_in_flight(const ornic_analysis *a, uint32_t conv, unsigned dir) {
  if (!a || dir > 1) return 0;
  const an_conv *c = final_conv(a, conv);
  return c ? in_flight(&c->dir[dir]) : 0;
}
