/* SPDX-License-Identifier: MIT */
/* The ORNIC paper's sizing rules, on the configured fabric (Ma et al., Electronics
 * 14(1):88, 2025):
 *
 *   Eq. 3      OTD = MDD x B / L          packets that can overtake a late one
 *   Eqs. 5-6   W   = OTD + BDP,  BDP = RTT x B / L
 *
 * MDD: the largest delay difference between two paths (--delay-spread-us with
 * two paths or more, 0 with one; with a --path list, its longest delay minus
 * its shortest). B: the sending rate, --rate-gbps: a QP alone
 * on the NIC sends at line rate, so with several QPs the value is an upper
 * bound. L: the PMTU, the payload of a full data packet. The paper calls L the
 * packet length; with B the line rate, L = the whole frame on the wire (PMTU +
 * 102 bytes of headers, iCRC, FCS, preamble and gap) would give the exact count,
 * and L = PMTU over-estimates it by 2.5% at 4 KiB and 10% at 1 KiB: the margin
 * lies on the safe side (an OTD below the true distance NAKs packets
 * that were only late, one above it only reports a loss a little later) and it
 * is the reading under which the paper's 64 needs the least MDD (21 us at 100
 * Gb/s). Results round up. --reorder-max D (net.h) adds D - 1: no packet
 * arrives D or more PSNs late through the emulator. Queues (--path-rate-gbps
 * below the NIC rate) add delay differences this does not see.
 *
 * RTT: the nominal round trip over the slowest path, as the simulator's timers
 * take it (sim.h, sim_timing.rtt_ps): a full data frame out, an ACK back, plus
 * the emulator's longest hold in each direction. */
#ifndef PCAPGEN_SIZING_H
#define PCAPGEN_SIZING_H

#include <stdint.h>

#include "sim_config.h"

/* Eq. 3: ceil(mdd_us x rate_gbps / (8 x len_bytes)) packets, at least 1 (OTD 0
 * would NAK every reordering): libornicproto's ornic_sizing_otd (ornic/sizing.h,
 * where the rounding is stated), which ornic-bitmap-sim uses too. */
uint32_t sizing_otd_eq3(double mdd_us, double rate_gbps, uint32_t len_bytes);
/* ceil(rtt_us x rate_gbps / (8 x len_bytes)) packets, rounded as above. */
uint32_t sizing_bdp(double rtt_us, double rate_gbps, uint32_t len_bytes);
/* Eqs. 5-6: otd + bdp. */
uint32_t sizing_window(uint32_t otd, uint32_t bdp);

/* Serialization of a full-PMTU data frame (Ethernet 14 + IPv4 20 + UDP 8 + BTH
 * 12 + RETH/OFFETH 20 + PMTU + iCRC 4) at --rate-gbps, with preamble, FCS and
 * gap, picoseconds. */
uint64_t sizing_frame_ps(const sim_config *cfg);
/* The nominal round trip above, picoseconds. */
uint64_t sizing_rtt_ps(const sim_config *cfg);
/* MDD of the configured paths, microseconds. */
double sizing_mdd_us(const sim_config *cfg);
/* Eq. 3 on the configuration: MDD, --rate-gbps, PMTU, plus --reorder-max - 1. */
uint32_t sizing_otd(const sim_config *cfg);
/* BDP on the configuration (RTT above, --rate-gbps, PMTU). */
uint32_t sizing_bdp_of(const sim_config *cfg);
/* Packets the responder holds unacknowledged under the ACK policy: N - 1 for
 * an ACK every N packets (received, not yet covered by an ACK), 0 for one per
 * packet; with the ACK scheduler, the packets that arrive in one service time
 * (at least 1: one may arrive while the engine serves another QP).
 * The paper's scheduler ACKs as soon as it can, so its Eqs. 5-6 have no such
 * term; with EVERY_N a window of OTD + BDP alone idles the link (one path,
 * 2 us: 52 Gb/s at W = 18, 96.7 at 18 + 15; pcapgen/README.md). */
uint32_t sizing_ack_slack(const sim_config *cfg);

/* --ack-engine-ns auto: the wire time of one ACK frame at --rate-gbps, in ns
 * rounded up (8 at 100 Gb/s). */
uint32_t sizing_ack_engine_ns(const sim_config *cfg);

#endif
