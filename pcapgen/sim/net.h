/* SPDX-License-Identifier: MIT */
/* The fabric between the two NICs: N paths, each a link of its own rate
 * followed by its own one-way delay, in both directions. A sender picks a
 * path per packet (spraying policy); by default the path id is the packet's
 * UDP source port (0xC000 + path), as ECMP hashing would make it (sim.h,
 * --udp-sport). Each path has its own delay, link rate and loss probability
 * (sim_fabric_path: a --path list, or the uniform set). Packets are lost at
 * random (alone or in bursts on one path), by exact --drop rules, or on a
 * path that is down; a path's rate and loss can change in time
 * (--path-event, path_events.h).
 *
 * --reorder-max D adds a network emulator after the paths, in each direction
 * on its own: it holds each delivered frame a random time, uniform in [0, D)
 * full data frame times, and never releases it before a frame delivered D or
 * more frames earlier. So a frame is overtaken only by frames sent fewer than
 * D after it, whatever the path delays: with one path (or no delay spread),
 * the OOO distance of a QP's first transmissions (the highest PSN that arrived
 * before a packet minus its own) stays below D. Paths behind it keep their
 * own delays, which add to the reordering. The emulator breaks the per-path
 * FIFO order that mprdma and ioi infer losses from. */
#ifndef PCAPGEN_NET_H
#define PCAPGEN_NET_H

#include <stdint.h>

#include "packet_pool.h"
#include "sim_config.h"

typedef struct net net;

/* Outcomes of net_send. NET_DROP_DOWN: the path was down (--path-event fail)
 * at some moment between the frame's entry onto its link and its arrival. */
enum { NET_DELIVER = 0, NET_DROP_RANDOM = 1, NET_DROP_RULE = 2, NET_DROP_DOWN = 3 };

/* Bytes a frame occupies on a link beyond its own: preamble + SFD (8),
 * FCS (4), inter-frame gap (12). */
#define NET_WIRE_EXTRA 24u

/* NULL when out of memory. Takes a copy of the --drop rules. */
net *net_new(const sim_config *cfg);
void net_free(net *n);

/* The path for the next packet `from` sends at now_ps. */
unsigned net_pick(net *n, int from, uint64_t now_ps);

/* Serialization time of a frame on the NIC link, picoseconds. */
uint64_t net_nic_ser_ps(const net *n, uint32_t frame_len);

/* Puts p (path already chosen) on the fabric; the NIC finished sending it at
 * done_ps. NET_DELIVER sets *arrive_ps (last bit at the other NIC). */
int net_send(net *n, const pkt *p, uint64_t done_ps, uint64_t *arrive_ps);

/* A delivered packet left the fabric (for the least-loaded policy). */
void net_arrived(net *n, const pkt *p);

/* --drop rules that never matched (a rule naming a packet that was never sent). */
unsigned net_unused_drop_rules(const net *n);

#endif
