/* SPDX-License-Identifier: MIT */
#include "switch.h"

#include <stdlib.h>
#include <string.h>

#include "net.h"

/* The switch's RNG stream (net.c takes 1-5, the tap 7-8, rc_cm 9, the
 * reorder share 10-11). */
#define STREAM_ECN_MARK 12
/* The lossless class: priority 3, DSCP 26's in the usual RoCE configuration
 * (sim.c's SIM_PFC_PRIORITY; pcapgen/fabric/README.md). */
#define PFC_PRIORITY 3
#define PFC_QUANTA_MAX 0xFFFFu
#define PFC_FRAME_LEN ORNIC_PAUSE_FRAME_LEN /* the minimum Ethernet frame without its FCS */

static uint64_t us_to_ps(double us) { return (uint64_t)(us * 1e6 + 0.5); }

int fswitch_init(fswitch *sw, const sim_config *cfg, sim **sims, uint32_t n) {
  memset(sw, 0, sizeof *sw);
  sw->cfg = cfg->incast;
  sw->nports = n;
  sw->sims = sims;
  sw->ports = calloc(n, sizeof *sw->ports);
  sw->port_bytes = calloc(n, sizeof *sw->port_bytes);
  sw->paused = calloc(n, sizeof *sw->paused);
  sw->refresh_at = calloc(n, sizeof *sw->refresh_at);
  sw->cap = 1024;
  sw->ring = malloc(sw->cap * sizeof *sw->ring);
  if (!sw->ports || !sw->port_bytes || !sw->paused || !sw->refresh_at || !sw->ring) {
    fswitch_free(sw);
    return -1;
  }
  double rate = cfg->fabric.rate_gbps;
  sw->ps_per_byte = 8000.0 / rate;
  sw->hop_ps = us_to_ps(cfg->incast.switch_delay_us);
  sw->pfc_hop_ps = (uint64_t)((PFC_FRAME_LEN + NET_WIRE_EXTRA) * sw->ps_per_byte + 0.5) +
                   us_to_ps(sim_fabric_path(&cfg->fabric, 0).delay_us);
  /* 0xFFFF quanta of 512 bit times pause a sender 65535 x 512 / rate; the
   * XOFF is sent again at half that, long before it expires (ours). */
  sw->refresh_ps = (uint64_t)(PFC_QUANTA_MAX * 512.0 * 1000.0 / rate / 2);
  rng_seed(&sw->mark_rng, cfg->seed, STREAM_ECN_MARK);
  static const uint8_t mac[6] = {2, 0, 0, 0xff, 0, 1}; /* the switch's own (ours) */
  memcpy(sw->mac, mac, 6);
  for (uint32_t k = 0; k < n; k++) {
    sw->ports[k] = (fswitch_port){sw, k};
  }
  return 0;
}

void fswitch_free(fswitch *sw) {
  free(sw->ports);
  free(sw->port_bytes);
  free(sw->paused);
  free(sw->refresh_at);
  free(sw->ring);
  sw->ports = NULL;
  sw->port_bytes = NULL;
  sw->paused = NULL;
  sw->refresh_at = NULL;
  sw->ring = NULL;
}

/* Frames whose last bit left by t leave the queue. */
static void drain(fswitch *sw, uint64_t t) {
  while (sw->n && sw->ring[sw->head].depart_ps <= t) {
    fswitch_entry *e = &sw->ring[sw->head];
    sw->q_bytes -= e->bytes;
    sw->port_bytes[e->port] -= e->bytes;
    sw->head = (sw->head + 1) % sw->cap;
    sw->n--;
  }
}

uint64_t fswitch_queue_bytes(fswitch *sw, uint64_t t) {
  drain(sw, t);
  return sw->q_bytes;
}

static int ring_push(fswitch *sw, fswitch_entry e) {
  if (sw->n == sw->cap) {
    fswitch_entry *r = malloc(2 * sw->cap * sizeof *r);
    if (!r) return -1;
    for (size_t i = 0; i < sw->n; i++) r[i] = sw->ring[(sw->head + i) % sw->cap];
    free(sw->ring);
    sw->ring = r;
    sw->head = 0;
    sw->cap *= 2;
  }
  sw->ring[(sw->head + sw->n++) % sw->cap] = e;
  return 0;
}

/* RED as RoCE switches are configured for DCQCN (Zhu et al., SIGCOMM 2015,
 * section 3.1, Fig. 5): never at or below Kmin, always above Kmax, in between
 * with a probability rising linearly to Pmax at Kmax. q: the bytes queued
 * when the frame arrives. */
static bool red_mark(fswitch *sw, uint64_t q) {
  const sim_incast *c = &sw->cfg;
  if (!c->ecn || q <= c->kmin) return false;
  if (q > c->kmax) return true;
  double p = c->pmax * (double)(q - c->kmin) / (double)(c->kmax - c->kmin);
  return rng_double(&sw->mark_rng) < p;
}

/* Sets an ECT frame's ECN field to CE (RFC 3168: 11) and recomputes its IPv4
 * header checksum (RFC 791). Frames are Ethernet + IPv4 without options
 * (framer.h). False when the frame is not ECN-capable (Not-ECT, or CE). */
static bool set_ce(pkt *p) {
  uint8_t *ip = p->data + 14;
  uint8_t ecn = ip[1] & 3;
  if (ecn != 1 && ecn != 2) return false;
  ip[1] |= 3;
  ip[10] = ip[11] = 0;
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += (uint32_t)ip[i] << 8 | ip[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  sum = ~sum & 0xffff;
  ip[10] = (uint8_t)(sum >> 8);
  ip[11] = (uint8_t)sum;
  return true;
}

/* An 802.1Qbb PFC frame (802.1Q clause 36; docs/PROTOCOL.md 2.9) pausing the
 * lossless priority for `quanta` (0: XON), from the switch's port. */
static size_t pfc_frame(const fswitch *sw, uint16_t quanta, uint8_t out[PFC_FRAME_LEN]) {
  ornic_pause pf;
  memset(&pf, 0, sizeof pf);
  pf.opcode = ORNIC_PAUSE_OP_PFC;
  memcpy(pf.src, sw->mac, 6);
  static const uint8_t dst[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
  memcpy(pf.dst, dst, 6);
  pf.enable = 1u << PFC_PRIORITY;
  pf.quanta[PFC_PRIORITY] = quanta;
  ornic_ssize n = ornic_pause_encode(out, PFC_FRAME_LEN, &pf);
  return n > 0 ? (size_t)n : 0;
}

static void send_pfc(fswitch *sw, uint32_t k, uint16_t quanta, uint64_t now) {
  uint8_t f[PFC_FRAME_LEN];
  size_t len = pfc_frame(sw, quanta, f);
  if (!len) {
    sim_fail(sw->sims[k], "internal error: cannot encode a PFC frame");
    return;
  }
  sim_switch_pause(sw->sims[k], f, len, now + sw->pfc_hop_ps);
  if (quanta) {
    sw->xoff_sent++;
    sw->refresh_at[k] = now + sw->refresh_ps;
  } else {
    sw->xon_sent++;
  }
}

/* PFC at an ingress port after its bytes changed: XOFF above Xoff. */
static void pfc_check(fswitch *sw, uint32_t k, uint64_t now) {
  if (!sw->cfg.pfc || sw->paused[k] || sw->port_bytes[k] <= sw->cfg.xoff) return;
  sw->paused[k] = true;
  send_pfc(sw, k, PFC_QUANTA_MAX, now);
}

/* The sim_switch_fn: p, from the port's sender, reaches the switch now. */
static void on_frame(void *ctx, sim *s, pkt *p) {
  fswitch_port *port = ctx;
  fswitch *sw = port->sw;
  uint64_t now = sim_now(s);
  drain(sw, now);
  if (sw->q_bytes + p->len > sw->cfg.buffer_bytes) {
    sw->drops++;
    sim_switch_drop(s, p);
    return;
  }
  if (red_mark(sw, sw->q_bytes) && set_ce(p)) {
    sw->marks++;
    sim_stats(s)->ce_marked++;
  }
  uint64_t start = sw->free_ps > now ? sw->free_ps : now;
  uint64_t end = start + (uint64_t)((p->len + NET_WIRE_EXTRA) * sw->ps_per_byte + 0.5);
  if (ring_push(sw, (fswitch_entry){end, p->len, port->port}) < 0) {
    sim_fail(s, "out of memory (switch queue)");
    sim_switch_drop(s, p);
    return;
  }
  sw->free_ps = end;
  sw->q_bytes += p->len;
  sw->port_bytes[port->port] += p->len;
  if (sw->q_bytes > sw->peak_bytes) sw->peak_bytes = sw->q_bytes;
  sim_switch_forward(s, p, end + sw->hop_ps);
  pfc_check(sw, port->port, now);
}

bool fswitch_next_time(fswitch *sw, uint64_t *t) {
  if (!sw->cfg.pfc) return false;
  uint64_t best = UINT64_MAX;
  bool any = false;
  for (uint32_t k = 0; k < sw->nports; k++) {
    if (!sw->paused[k]) continue;
    any = true;
    if (sw->refresh_at[k] < best) best = sw->refresh_at[k];
  }
  if (!any) return false;
  /* A departure may bring a paused port below Xon. */
  if (sw->n && sw->ring[sw->head].depart_ps < best) best = sw->ring[sw->head].depart_ps;
  *t = best;
  return true;
}

void fswitch_step(fswitch *sw, uint64_t t) {
  drain(sw, t);
  for (uint32_t k = 0; k < sw->nports; k++) {
    if (!sw->paused[k]) continue;
    if (sw->port_bytes[k] < sw->cfg.xon) {
      sw->paused[k] = false;
      send_pfc(sw, k, 0, t);
    } else if (sw->refresh_at[k] <= t) {
      send_pfc(sw, k, PFC_QUANTA_MAX, t);
    }
  }
}

void fswitch_attach(fswitch *sw) {
  for (uint32_t k = 0; k < sw->nports; k++) sim_set_switch(sw->sims[k], on_frame, &sw->ports[k]);
}
