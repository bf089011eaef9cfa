/* SPDX-License-Identifier: MIT */
/* Capture shapes a host's own tap gives real files (issue 30), made at the
 * tap alone: the simulation is the same with and without them.
 *   --capture-tx-late US: a host capture stamps and writes the NIC's
 *     transmitted frames when the driver reaps their completions, up to
 *     tens of us after the wire, so the ACK that answers a request can come
 *     first in the file. A tap_late queue holds each transmitted frame for
 *     0 to US us (its own random stream), never before the one transmitted
 *     before it (completions are reaped in order).
 *   --capture-rocev1 requester|responder: a host whose GID table holds
 *     IPv4-mapped GIDs sends RoCEv1 (EtherType 0x8915, a GRH with
 *     ::ffff:a.b.c.d) while its peer answers in RoCEv2. */
#ifndef PCAPGEN_TAP_SHAPES_H
#define PCAPGEN_TAP_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "packet_pool.h"
#include "rng.h"

typedef struct tap_late_frame tap_late_frame;

typedef struct {
  double late_us;
  tap_late_frame *head, *tail; /* oldest first: write times never decrease */
  uint64_t last_ps;
  rng r;
} tap_late;

/* late_us 0: frames are never held. */
void tap_late_init(tap_late *q, double late_us, uint64_t seed);
/* Holds a copy of p, transmitted at now_ps, until its write time. -1: out
 * of memory. */
int tap_late_hold(tap_late *q, const pkt *p, uint64_t now_ps);
/* The oldest frame due by t_ps (all: UINT64_MAX) and its write time, taken
 * off the queue; the caller frees it. NULL: none due. */
pkt *tap_late_due(tap_late *q, uint64_t t_ps, uint64_t *at_ps);
/* Frees what is still held. */
void tap_late_free(tap_late *q);

/* The frame data[0..len) as RoCEv1 with IPv4-mapped GIDs, in out: its
 * length, or 0 when it is not an IPv4 RoCEv2 frame (kept as it is). */
size_t tap_as_rocev1(const uint8_t *data, size_t len, uint8_t *out, size_t cap);

#endif
