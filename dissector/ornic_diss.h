/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared declarations of the ORNIC Wireshark plugin: protocol ids, field
 * ids, expert infos, preferences and the per-packet analysis record. */
#ifndef ORNIC_DISS_H
#define ORNIC_DISS_H

#include <wireshark.h>
#include <epan/packet.h>
#include <epan/expert.h>

#include "ornic_compat.h"

#include <ornic/ornic.h>
#include <ornic/analysis.h>

/* ---- registration (ornic_fields.c) ---------------------------------------- */
extern int proto_ornic;
extern int ornic_tap;

/* Field ids. One struct so the table in ornic_fields.c is the single list. */
typedef struct {
  int bth, opcode, se, m, padcnt, tver, pkey, fecn, becn, resv6, destqp, ackreq, resv7, psn;
  int rdeth, rdeth_een, deth, deth_qkey, deth_srcqp, xrceth, xrceth_resv, xrceth_xrcsrq, feth,
      feth_value;
  int reth, reth_va, reth_rkey, reth_dmalen, offeth, offeth_offset;
  int atomiceth, atomiceth_va, atomiceth_rkey, atomiceth_swap, atomiceth_cmp;
  int aeth, aeth_syndrome, aeth_msn, atomicacketh, atomicacketh_orig;
  int oacketh, oack_flags, oack_addr_cached, oack_wqe_done, oack_flags_resv, oack_resv, oack_count;
  int naketh, nak_reason, nak_trigger, nak_nblocks, nak_base, nak_resv, nak_limit, nak_block;
  int nak_missing_psn, nak_received_psn, nak_missing_count, nak_received_count;
  int immdt, ieth_rkey, cnp, cnp_resv;
  int payload, payload_len, pad, icrc, icrc_status, icrc_expected, icrc_crc32, decode_error;
  /* analysis (libornicproto's ornic_analysis verdict) */
  int an, an_conv, an_dir, an_role, an_resp_qp, an_req_qp, an_pmtu, an_addr, an_addr_unknown,
      an_pmtu_unknown, an_wqe, an_new_wqe, an_wqe_start_psn, an_wqe_last_psn, an_wqe_pkt,
      an_wqe_npkts, an_wqe_start_addr, an_wqe_len, an_wqe_frame, an_read_frame, an_read_retry,
      an_hpsn, an_epsn, an_ooo, an_ooo_distance, an_repeat_distance, an_otd_exceeded, an_hole_first,
      an_hole_count, an_flags, an_dup, an_first_frame, an_retrans, an_nak_frame, an_probe, an_loss,
      an_loss_first_psn, an_loss_count, an_nak, an_nak_lost, an_ack_stale, an_not_captured,
      an_not_captured_first, an_not_captured_count, an_acked_in, an_ack_prev, an_ack_newly,
      an_ack_frame_of, an_msn_delta, an_wqe_completed, an_ecn, an_before_capture, an_untracked,
      an_over_budget, an_work_limit, an_paired, an_psn_relative, an_time_delta, an_ack_rtt,
      an_wqe_time, an_read_time, an_acked_before_seen, an_prev_not_captured, an_in_flight,
      an_bytes_in_flight, an_cm;
} ornic_hf_ids;
extern ornic_hf_ids hf;

typedef struct {
  int root, bth, hdr, nak_blocks, nak_block, nak_missing, nak_received, icrc, an, an_flags,
      field_bits;
} ornic_ett_ids;
extern ornic_ett_ids ett;

typedef struct {
  expert_field icrc_bad, icrc_not_captured, malformed, truncated, unknown_opcode, lint,
      addr_unknown, ooo, dup, retrans, loss, nak, ecn, ack_stale, not_captured, before_capture,
      no_ip, pmtu_unknown, wqe_done, otd_exceeded, over_budget, table_full, work_limit,
      acked_before_seen, prev_not_captured;
} ornic_ei_ids;
extern ornic_ei_ids ei;

/* Preferences. */
extern gint ornic_pref_pmtu; /* 0: learn from traffic */
extern guint ornic_pref_otd;
extern ornic_ws_bool ornic_pref_analyze;      /* FALSE: no analysis, no engine */
extern ornic_ws_bool ornic_pref_relative_psn; /* ornic.analysis.psn_relative shown */
extern guint ornic_pref_max_memory;           /* the engine's memory budget in MiB; 0: none */
extern guint ornic_pref_max_convs;            /* conversations the engine tracks; 0: its default */

void ornic_register_fields(void (*prefs_apply)(void));

/* One header as the tree shows it: libornicproto's field layout
 * (ornic/layout.h) and, per layout field, the hf id registered for it under
 * "ornic." + its name (-1: a field the tree does not show). Filled at
 * registration; offsets, sizes and bit masks all come from the layout. */
#define ORNIC_VIEW_MAX_FIELDS 16
typedef struct {
  const int *hf_hdr; /* the header's subtree item (hf.reth, ...); NULL: fields go in the parent */
  const ornic_field_layout *fields;
  size_t nfields;
  int hf[ORNIC_VIEW_MAX_FIELDS];
} ornic_hdr_view;
/* hdr_bit: one ORNIC_HDR_* bit, or 0 for the BTH. NULL for another value. */
const ornic_hdr_view *ornic_view(guint16 hdr_bit);
/* Fields the tree annotates, found in the layout by name at registration. */
extern const ornic_field_layout *ornic_fl_aeth_syndrome, *ornic_fl_nak_base;

/* ---- per-packet analysis (ornic_analysis.c) -------------------------------- */
/* What the first pass stored for one packet (file scope). */
typedef struct {
  ornic_an_verdict v;
  guint32 acked_in;        /* first ACK covering it (filled by the engine's on_acked) */
  guint32 in_flight;       /* request PSNs of its direction sent and not yet acknowledged, after
                            * it (ornic_analysis_in_flight) */
  guint32 req_qp, resp_qp; /* of the packet's direction, as known then; G_MAXUINT32 unknown */
  /* The capture's first packet not tracked for its reason (the memory budget,
   * or the conversation table): it carries the capture's one expert note of
   * that reason, so `-z expert` says it once, not once per packet. */
  gboolean first_untracked;
} ornic_pkt;

void ornic_analysis_register(void);
void ornic_analysis_prefs_changed(void);
/* The verdict of one packet, computed in the first pass and stored under
 * (frame, layer: the dissector's pinfo->curr_layer_num on entry); NULL for
 * packets the engine does not analyse (role NONE). in->frame must be pinfo->num.
 * The record returned lives in pinfo->pool (an unpacked copy). */
const ornic_pkt *ornic_analysis_packet(packet_info *pinfo, const ornic_an_input *in, guint32 layer);
/* The conversation and direction of this frame's (first) analysed packet, as
 * stored, without analysing anything (menus, conversation filters); FALSE
 * when the frame has none. */
gboolean ornic_analysis_stored_conv(packet_info *pinfo, guint32 *conv, guint8 *dir);
/* The first PSN seen in a conversation direction's PSN space (the base of
 * relative PSNs); FALSE when none was seen. */
gboolean ornic_analysis_psn_base(guint32 conv, guint8 dir, guint32 *base);
/* The capture's engine (NULL outside a capture file), for the statistics. */
const ornic_analysis *ornic_analysis_engine(void);
/* The configuration the capture's engine was created with (the limits'
 * values for the expert notes). */
const ornic_analysis_cfg *ornic_analysis_config(void);
/* "10.0.0.1 QP 0x000011 <-> 10.0.0.2 QP 0x000022" with the QPs known when
 * the packet was analysed. */
void ornic_analysis_label(const ornic_pkt *an, char *out, size_t cap);

/* ---- stats (ornic_stats.c) ----------------------------------------------- */
/* What the "ornic" tap hands its listeners, queued only while one listens
 * (have_tap_listener): -z ornic,stat / ornic,tree, the Conversations and
 * Endpoints tables. */
typedef struct {
  const ornic_pkt *an; /* may be NULL: not analysed */
  guint8 opcode;
  guint8 icrc_status; /* PROTO_CHECKSUM_E_* */
  gboolean malformed;
  guint16 udp_srcport; /* the path the sender chose (0: not over UDP) */
  /* The packet as decoded (its PSN; its payload, a view into the frame's
   * bytes, valid while the taps run), for Follow ORNIC QP stream. */
  const ornic_frame *f;
} ornic_tap_info;

void ornic_register_stats(void);

/* ---- Service Response Time and Follow (ornic_srt.c, ornic_follow.c) --------- */
/* Called from ornic_stats.c's tap registration. */
void ornic_register_srt(void);
void ornic_register_follow(void);

/* ---- dissection helpers -------------------------------------------------- */
/* The BTH and the headers of f in `which` (ORNIC_HDR_* bits); a NAK's lost
 * set (PROTOCOL.md 4.4, from the NAK's own Limit PSN), of nlost PSNs. */
void ornic_tree_headers(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const ornic_frame *f,
                        guint16 which, guint32 nlost);
void ornic_tree_analysis(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const ornic_frame *f,
                         const ornic_pkt *an);

#endif
