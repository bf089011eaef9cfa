/* SPDX-License-Identifier: MIT */
/* How the workload maps onto QPs, PSNs and addresses; shared by every
 * profile so their captures differ only in protocol behaviour. */
#ifndef PCAPGEN_WORKLOAD_H
#define PCAPGEN_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_config.h"

/* --qpn-base's default: the first QP number of the requester and the responder. */
#define WL_REQ_QPN_BASE 0x000100u
#define WL_RESP_QPN_BASE 0x000200u
#define WL_VA_BASE 0x00007f0000000000ull
#define WL_VA_SPAN_BITS 40 /* each QP's remote region: 1 TiB */

/* The number of QP index q at the requester (rc: host A) or the responder
 * (host B): --qpn-base. QP q of one side talks only to QP q of the other. */
static inline uint32_t wl_qpn(const sim_config *cfg, bool responder, uint32_t q) {
  return cfg->workload.qpn_base[responder] + q;
}
/* wl_qpn with the default --qpn-base, for code that builds frames for a run
 * with default options (fuzz/); pcapgen itself uses wl_qpn. */
static inline uint32_t wl_req_qpn(uint32_t q) { return WL_REQ_QPN_BASE + q; }
static inline uint32_t wl_resp_qpn(uint32_t q) { return WL_RESP_QPN_BASE + q; }
/* The number of the QP at the requester (responder = false) or the
 * responder that sends to the peer's QP destqp: the same index. Every DestQP
 * an engine writes is one of the peer's QPs (wl_qp_index checks arrivals). */
static inline uint32_t wl_sender_qpn(const sim_config *cfg, bool responder, uint32_t destqp) {
  return destqp - cfg->workload.qpn_base[!responder] + cfg->workload.qpn_base[responder];
}
static inline uint32_t wl_rkey(uint32_t q) { return 0x1234abcdu ^ (q << 8); }

/* QP index of a DestQP number, or -1. */
int wl_qp_index(const sim_config *cfg, uint32_t destqp, bool at_responder);

/* The WQEs QP q posts, in order: the scenario's wqe lines that name q, or
 * --wqes of --wqe-size. */
uint64_t wl_wqe_count(const sim_config *cfg, uint32_t q);
uint64_t wl_wqe_len(const sim_config *cfg, uint32_t q, uint64_t w);
uint64_t wl_max_wqe_len(const sim_config *cfg);
/* WQEs, and data packets (first transmissions), of the whole workload. */
uint64_t wl_total_wqes(const sim_config *cfg);
uint64_t wl_total_packets(const sim_config *cfg);
/* The least the capture can hold, in bytes (pcap records, whole frames): every
 * data packet once, with its Ethernet/IPv4/UDP/BTH/iCRC headers, and one ACK
 * per WQE; both hosts' workloads under the rc profile. Retransmissions, more
 * ACKs and NAKs only add to it (go-back-N can multiply it). */
double wl_capture_floor(const sim_config *cfg);
/* Its payload part alone (both hosts' under the rc profile): what a .gz capture
 * holds at least, the payload being pattern bytes (pattern.h) that deflate
 * does not shrink. */
double wl_capture_payload(const sim_config *cfg);

/* Packets of a WQE: max(1, ceil(len / PMTU)), and the bytes of its last packet. */
uint32_t wl_npkts(uint64_t len, uint32_t pmtu);
uint32_t wl_last_len(uint64_t len, uint32_t pmtu);

/* Remote VA of WQE w on QP q: 4 KiB aligned, consecutive WQEs side by side,
 * wrapping inside the QP's 1 TiB region. */
uint64_t wl_va(const sim_config *cfg, uint32_t q, uint64_t w);

/* Whether [va, va + len) lies in QP q's registered region (R_Key check). */
bool wl_va_ok(uint32_t q, uint64_t va, uint64_t len);

/* Key of QP q's memory content (pattern.h). */
uint64_t wl_key(const sim_config *cfg, uint32_t q);

/* First PSN of QP q: --start-psn, or drawn from the seed. */
uint32_t wl_start_psn(const sim_config *cfg, uint32_t q);

#endif
