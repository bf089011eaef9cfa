/* SPDX-License-Identifier: MIT */
/* The switch of an incast run: the egress port towards the receiver, shared
 * by the N senders (one ingress port each). A FIFO queue with a byte buffer
 * drains at the receiver link's rate. At enqueue, in this order: tail drop
 * when the frame does not fit in the buffer; ECN marking RED-style on the
 * bytes queued (Kmin, Kmax, Pmax: 0 at or below Kmin, linear to Pmax at
 * Kmax, 1 above Kmax; ECT frames only, set to CE with the IPv4 checksum
 * fixed; the iCRC masks the TOS byte, docs/PROTOCOL.md 2.6, so it stays
 * valid); with PFC, an XOFF to a sender whose ingress bytes pass Xoff. A
 * paused port's XOFF is refreshed before it expires and an XON (quanta 0)
 * sent once its bytes fall below Xon: those are the switch's own events
 * (fswitch_next_time). The rules' sources: pcapgen/fabric/README.md. */
#ifndef PCAPGEN_FSWITCH_H
#define PCAPGEN_FSWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"
#include "sim.h"

typedef struct fswitch fswitch;

/* What one sim hands the switch (the ctx of sim_set_switch). */
typedef struct {
  fswitch *sw;
  uint32_t port; /* the sender: ingress port k */
} fswitch_port;

typedef struct {
  uint64_t depart_ps; /* its last bit leaves the egress port */
  uint32_t bytes;
  uint32_t port;
} fswitch_entry;

struct fswitch {
  sim_incast cfg;
  uint32_t nports;
  sim **sims;          /* per port: the sim whose sender it is */
  fswitch_port *ports; /* the ctx of each sim */
  double ps_per_byte;  /* the egress link (the receiver's rate) */
  uint64_t hop_ps;     /* switch to receiver */
  uint64_t pfc_hop_ps; /* a PFC frame's way to a sender: its serialization + path 0's delay */
  uint64_t refresh_ps; /* an XOFF is sent again this long after the last (half its pause) */
  uint64_t free_ps;    /* egress busy until */
  fswitch_entry *ring; /* the queue, oldest first */
  size_t head, n, cap;
  uint64_t q_bytes, *port_bytes;
  bool *paused;         /* an XOFF is in force for the port */
  uint64_t *refresh_at; /* when to refresh it */
  rng mark_rng;
  uint8_t mac[6];
  /* what the run measured */
  uint64_t peak_bytes, marks, drops, xoff_sent, xon_sent;
};

/* 0, or -1 when out of memory. cfg: the run's (its incast section and
 * fabric); sims[k]: sender k's sim, which the switch registers itself with. */
int fswitch_init(fswitch *sw, const sim_config *cfg, sim **sims, uint32_t n);
void fswitch_free(fswitch *sw);

/* Registers the switch with every sender's sim (sim_set_switch). */
void fswitch_attach(fswitch *sw);

/* The bytes queued at t (frames whose last bit left by t are gone). */
uint64_t fswitch_queue_bytes(fswitch *sw, uint64_t t);

/* The switch's next own event (a PFC refresh or XON check), false when none. */
bool fswitch_next_time(fswitch *sw, uint64_t *t);
/* Handles what is due at t (fswitch_next_time's). */
void fswitch_step(fswitch *sw, uint64_t t);

#endif
