/* SPDX-License-Identifier: MIT */
/* The link to libornicproto's conversation-analysis engine (ornic/analysis.h):
 * which packets it sees, and the per-packet verdict's text forms. Every
 * per-QP judgement (out of order, duplicate, retransmission, loss, ...) is
 * the engine's; this tool only feeds it and prints what it says. */
#ifndef DEC_ANALYSIS_H
#define DEC_ANALYSIS_H

#include <ornic/analysis.h>

#include "packet.h"

/* Feeds pk to the engine when it has a BTH: frames cut by the snaplen, with
 * a bad iCRC or malformed included (the engine reads only the headers that
 * were decoded), as tshark's TCP analysis does and the Wireshark plugin
 * does, so the two agree. Sets pk->analysed and pk->an. Packets must come
 * in capture order. */
/* in_flight: also pk->in_flight (ornic_analysis_in_flight; what --json prints). */
void dec_analyse(ornic_analysis *a, dec_packet *pk, bool in_flight);

/* Whether pk carries a verdict worth printing: analysed, and either given
 * a role in a conversation, refused for a full table, or an RDMA-CM REQ or
 * REP the engine read (PROTOCOL.md 8.10). */
static inline bool dec_has_verdict(const dec_packet *pk) {
  return pk->analysed &&
         (pk->an.role != ORNIC_AN_ROLE_NONE || (pk->an.flags & (ORNIC_AN_UNTRACKED | ORNIC_AN_CM)));
}

#endif
