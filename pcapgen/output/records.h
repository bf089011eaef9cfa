/* SPDX-License-Identifier: MIT */
/* Per-WQE and per-NAK records for researchers (--records wqe,nak, written
 * into --summary-json as "wqe_records" and "nak_records"; pcapgen/README.md,
 * "Records"). A WQE record: its QP, number, first PSN, packets, bytes, post,
 * first-send and completion times, data packets sent for it, retransmissions
 * and FSpot packets among them. A NAK record: when it left its NIC, the QP,
 * the frame's DestQP and BTH PSN, the AETH syndrome and, for an ORNIC NAK,
 * the NAKETH's reason, trigger, base and limit PSNs, blocks and the PSNs its
 * bitmap declares lost (the library's lost-set iterator, PROTOCOL.md 4.4).
 * Off by default: a run's records grow with its length, at most
 * RECORDS_MAX of each kind (then "truncated"). Not for the rc profile, whose
 * WQEs complete through its own requester. */
#ifndef PCAPGEN_RECORDS_H
#define PCAPGEN_RECORDS_H

#include <stdint.h>
#include <stdio.h>

#include "packet_pool.h"

#define RECORDS_MAX 1000000u

/* The kinds of records (--records LIST). */
enum { RECORDS_WQE = 1u << 0, RECORDS_NAK = 1u << 1 };

typedef struct records records;

/* The records of `kinds` (RECORDS_*) for a run of `qps` QPs. NULL when out
 * of memory. */
records *records_new(unsigned kinds, uint32_t qps);
void records_free(records *r);

/* Frame p leaves its NIC at now_ps. */
void records_tx(records *r, uint64_t now_ps, const pkt *p);
/* WQE `wqe` of QP q (first PSN, packets, bytes, posted at post_ps) completed
 * at now_ps. */
void records_wqe_done(records *r, uint32_t q, uint64_t wqe, uint32_t start_psn, uint32_t npkts,
                      uint64_t bytes, uint64_t post_ps, uint64_t now_ps);

/* Writes `"wqe_records": [...]` and/or `"nak_records": [...]`, each
 * followed by ",\n" (at indent 2). */
void records_write_json(FILE *f, const records *r);

#endif
