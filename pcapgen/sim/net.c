/* SPDX-License-Identifier: MIT */
#include "net.h"

#include <stdlib.h>
#include <string.h>

#include "path_events.h"
#include "rng.h"
#include "sizing.h"

/* RNG streams of one seed, one per purpose. */
enum {
  STREAM_SPRAY_REQ = 1,
  STREAM_SPRAY_RESP = 2,
  STREAM_LOSS = 3,
  STREAM_REORDER_REQ = 4,
  STREAM_REORDER_RESP = 5,
  STREAM_SHARE_REQ = 10, /* --reorder-share: which frames are displaced (7-9: the tap, rc_cm.c) */
  STREAM_SHARE_RESP = 11
};

typedef struct {
  uint64_t delay_ps;
  double ps_per_byte;     /* its link's serialization */
  double burst_start;     /* probability that a packet starts a loss burst here */
  uint64_t free_ps[2];    /* per direction (index = sending node): link busy until */
  uint64_t load_bytes[2]; /* queued or propagating, for least-loaded */
  uint32_t burst_left[2]; /* packets still to lose in the current burst */
  path_timeline tl;       /* --path-event: its changes in time (none: tl.n == 0) */
} path;

/* The --reorder-max emulator of one direction: the arrival times of the last
 * D frames it delivered (ring), and the latest arrival of all frames before
 * them. */
typedef struct {
  uint64_t *ring;
  uint64_t count;    /* frames delivered so far */
  uint64_t floor_ps; /* latest arrival among frames count - D and earlier */
  rng hold_rng;
  rng share_rng; /* --reorder-share below 1: which frames are held */
} reorderer;

struct net {
  unsigned npaths;
  path *p;
  double nic_ps_per_byte;
  spray_policy spray;
  uint32_t rr[2];
  rng spray_rng[2], loss_rng;
  bool any_loss; /* some path may lose at random, at some time: each packet draws */
  uint32_t burst_len;
  drop_rule *drops;
  size_t ndrops;
  uint32_t reorder_max;  /* D, 0: no emulator */
  double reorder_share;  /* the share of frames held (1: all, as the emulator was before it) */
  uint64_t hold_unit_ps; /* a full data frame's serialization */
  reorderer ro[2];       /* per direction (index = sending node) */
};

static uint64_t us_to_ps(double us) { return (uint64_t)(us * 1e6 + 0.5); }

/* Path i's delay, link and loss (sim_fabric_path), and its events. 0, or -1
 * out of memory. */
static int path_init(net *n, const sim_config *cfg, unsigned i) {
  path *pa = &n->p[i];
  path_spec sp = sim_fabric_path(&cfg->fabric, i);
  pa->delay_ps = us_to_ps(sp.delay_us);
  /* 8 bits per byte at G Gb/s: 8000/G picoseconds per byte. */
  pa->ps_per_byte = 8000.0 / sp.rate_gbps;
  pa->burst_start = sp.loss / cfg->fabric.burst_len;
  n->any_loss |= pa->burst_start > 0;
  return path_timeline_init(&pa->tl, &cfg->fabric, i);
}

net *net_new(const sim_config *cfg) {
  net *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->npaths = cfg->fabric.paths;
  n->p = calloc(cfg->fabric.paths, sizeof *n->p);
  n->drops = cfg->fabric.ndrops ? malloc(cfg->fabric.ndrops * sizeof *n->drops) : NULL;
  if (!n->p || (cfg->fabric.ndrops && !n->drops)) {
    net_free(n);
    return NULL;
  }
  if (cfg->fabric.ndrops)
    memcpy(n->drops, cfg->fabric.drops, cfg->fabric.ndrops * sizeof *n->drops);
  n->ndrops = cfg->fabric.ndrops;
  for (unsigned i = 0; i < cfg->fabric.paths; i++)
    if (path_init(n, cfg, i) < 0) {
      net_free(n);
      return NULL;
    }
  /* A loss event on a loss-free fabric makes packets draw as a lossy one does. */
  for (size_t i = 0; i < cfg->fabric.nevents; i++)
    n->any_loss |= cfg->fabric.events[i].kind == PATH_EV_LOSS && cfg->fabric.events[i].value > 0;
  n->nic_ps_per_byte = 8000.0 / cfg->fabric.rate_gbps;
  n->spray = cfg->fabric.spray;
  rng_seed(&n->spray_rng[0], cfg->seed, STREAM_SPRAY_REQ);
  rng_seed(&n->spray_rng[1], cfg->seed, STREAM_SPRAY_RESP);
  rng_seed(&n->loss_rng, cfg->seed, STREAM_LOSS);
  n->burst_len = cfg->fabric.burst_len;
  n->reorder_max = cfg->fabric.reorder_max;
  n->reorder_share = cfg->fabric.reorder_share;
  n->hold_unit_ps = sizing_frame_ps(cfg);
  for (int d = 0; d < 2 && n->reorder_max; d++) {
    if (!(n->ro[d].ring = calloc(n->reorder_max, sizeof *n->ro[d].ring))) {
      net_free(n);
      return NULL;
    }
    rng_seed(&n->ro[d].hold_rng, cfg->seed, d ? STREAM_REORDER_RESP : STREAM_REORDER_REQ);
    rng_seed(&n->ro[d].share_rng, cfg->seed, d ? STREAM_SHARE_RESP : STREAM_SHARE_REQ);
  }
  return n;
}

void net_free(net *n) {
  if (!n) return;
  for (unsigned i = 0; n->p && i < n->npaths; i++) path_timeline_free(&n->p[i].tl);
  free(n->p);
  free(n->drops);
  free(n->ro[0].ring);
  free(n->ro[1].ring);
  free(n);
}

uint64_t net_nic_ser_ps(const net *n, uint32_t frame_len) {
  return (uint64_t)((frame_len + NET_WIRE_EXTRA) * n->nic_ps_per_byte + 0.5);
}

/* Fewest bytes queued or in flight; ties go round-robin so equal paths share. */
static unsigned least_loaded(net *n, int from) {
  unsigned best = n->rr[from] % n->npaths;
  for (unsigned k = 1; k < n->npaths; k++) {
    unsigned i = (n->rr[from] + k) % n->npaths;
    if (n->p[i].load_bytes[from] < n->p[best].load_bytes[from]) best = i;
  }
  n->rr[from] = best + 1;
  return best;
}

unsigned net_pick(net *n, int from, uint64_t now_ps) {
  (void)now_ps;
  switch (n->spray) {
  case SPRAY_RR: return n->rr[from]++ % n->npaths;
  case SPRAY_LEAST_LOADED: return least_loaded(n, from);
  case SPRAY_RANDOM: break;
  }
  return rng_below(&n->spray_rng[from], n->npaths);
}

/* Every packet draws once some path can lose at random, whatever its own
 * path's probability, so that changing one path's loss moves no other path's
 * losses. A loss-free fabric draws nothing (as before paths had their own). */
static bool random_loss(net *n, path *pa, int from, uint64_t at_ps) {
  if (pa->burst_left[from]) {
    pa->burst_left[from]--;
    return true;
  }
  if (!n->any_loss) return false;
  double u = rng_double(&n->loss_rng), p_start = pa->burst_start;
  if (pa->tl.n) { /* a loss window that holds replaces the path's own probability */
    double w = path_timeline_value(&pa->tl, PATH_EV_LOSS, at_ps, -1);
    if (w >= 0) p_start = w / n->burst_len;
  }
  if (u >= p_start) return false;
  pa->burst_left[from] = n->burst_len - 1;
  return true;
}

static bool rule_drop(net *n, const pkt *p) {
  if (p->m.kind != PK_DATA || p->m.retx) return false;
  for (size_t i = 0; i < n->ndrops; i++) {
    drop_rule *r = &n->drops[i];
    if (!r->used && r->qp == p->m.qp && r->wqe == p->m.wqe && r->off == p->m.idx) {
      r->used = true;
      return true;
    }
  }
  return false;
}

/* The emulator: hold the frame a uniform random time in [0, D) frame times,
 * then no earlier than every frame delivered D or more frames before it (equal
 * times arrive in sending order: the event queue pops ties in push order). A
 * frame can therefore be overtaken only by the D - 1 frames sent after it.
 * --reorder-share P < 1: a frame is held with probability P, then for a
 * uniform time in (1, D) frame times, so that the next frame overtakes it
 * unless that one is held too; the others are not held (the floor still
 * applies). P = 1 draws nothing more: the emulator as before the option. */
static uint64_t reorder(net *n, int from, uint64_t arrive) {
  reorderer *r = &n->ro[from];
  uint32_t d = n->reorder_max;
  double units = rng_double(&r->hold_rng) * d;
  if (n->reorder_share < 1)
    units = rng_double(&r->share_rng) < n->reorder_share ? 1 + units * (d - 1) / d : 0;
  uint64_t a = arrive + (uint64_t)(units * (double)n->hold_unit_ps);
  uint64_t *slot = &r->ring[r->count % d]; /* frame count - D, leaving the window */
  if (r->count >= d && *slot > r->floor_ps) r->floor_ps = *slot;
  if (a < r->floor_ps) a = r->floor_ps;
  *slot = a;
  r->count++;
  return a;
}

/* The path's link at `start` (--path-event rate=), picoseconds per byte. */
static double link_ps_per_byte(const path *pa, uint64_t start) {
  if (!pa->tl.n) return pa->ps_per_byte;
  double g = path_timeline_value(&pa->tl, PATH_EV_RATE, start, 0);
  return g > 0 ? 8000.0 / g : pa->ps_per_byte;
}

int net_send(net *n, const pkt *p, uint64_t done_ps, uint64_t *arrive_ps) {
  path *pa = &n->p[p->path];
  int from = p->src;
  /* When the frame enters the path's link: the moment its events are read at. */
  uint64_t start = done_ps > pa->free_ps[from] ? done_ps : pa->free_ps[from];
  /* The random draw comes first and always, so a --drop rule does not shift
   * which other packets the loss stream picks. */
  bool lost = random_loss(n, pa, from, start);
  if (rule_drop(n, p)) return NET_DROP_RULE;
  if (lost) return NET_DROP_RANDOM;
  /* A link that is down takes nothing: the frame vanishes at its entry. */
  if (pa->tl.n && path_timeline_down(&pa->tl, start, start + 1)) return NET_DROP_DOWN;
  uint64_t ser = (uint64_t)((p->len + NET_WIRE_EXTRA) * link_ps_per_byte(pa, start) + 0.5);
  pa->free_ps[from] = start + ser;
  *arrive_ps = pa->free_ps[from] + pa->delay_ps;
  /* One that fails under it loses what it carries: the frame held the link. */
  if (pa->tl.n && path_timeline_down(&pa->tl, start, *arrive_ps)) return NET_DROP_DOWN;
  pa->load_bytes[from] += p->len;
  if (n->reorder_max) *arrive_ps = reorder(n, from, *arrive_ps);
  return NET_DELIVER;
}

void net_arrived(net *n, const pkt *p) { n->p[p->path].load_bytes[p->src] -= p->len; }

unsigned net_unused_drop_rules(const net *n) {
  unsigned k = 0;
  for (size_t i = 0; i < n->ndrops; i++) k += !n->drops[i].used;
  return k;
}
