/* Shared declarations of the ORNIC Wireshark plugin: protocol ids, field
 * ids, expert infos, preferences and the per-packet analysis record. */
#ifndef ORNIC_DISS_H
#define ORNIC_DISS_H

#include <wireshark.h>
#include <epan/packet.h>
#include <epan/expert.h>

#include <ornic/ornic.h>

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
  int naketh, nak_reason, nak_trigger, nak_nblocks, nak_base, nak_block;
  int nak_missing_psn, nak_received_psn, nak_missing_count, nak_received_count;
  int immdt, ieth_rkey, cnp, cnp_resv;
  int payload, payload_len, pad, icrc, icrc_status, icrc_expected;
  /* analysis */
  int an, an_conv, an_resp_qp, an_req_qp, an_pmtu, an_addr, an_wqe, an_wqe_start_psn,
      an_wqe_last_psn, an_wqe_pkt, an_wqe_npkts, an_wqe_start_addr, an_wqe_len, an_wqe_frame,
      an_read_frame, an_hpsn, an_epsn, an_ooo, an_ooo_distance, an_dup, an_first_frame, an_retrans,
      an_nak_frame, an_probe, an_loss, an_loss_first_psn, an_loss_count, an_acked_in, an_ack_prev,
      an_ack_newly, an_ack_stale, an_msn_delta, an_wqe_completed;
} ornic_hf_ids;
extern ornic_hf_ids hf;

typedef struct {
  int root, bth, hdr, nak_blocks, nak_block, nak_missing, nak_received, icrc, an, oack_flags;
} ornic_ett_ids;
extern ornic_ett_ids ett;

typedef struct {
  expert_field icrc_bad, malformed, truncated, unknown_opcode, lint, addr_unknown, ooo, dup,
      retrans, loss, nak, ecn, ack_stale, no_ip, pmtu_unknown, wqe_done;
} ornic_ei_ids;
extern ornic_ei_ids ei;

/* Preferences. */
extern gint ornic_pref_pmtu; /* 0: learn from traffic */
extern guint ornic_pref_otd;

void ornic_register_fields(void);

/* ---- per-packet analysis (ornic_analysis.c) -------------------------------- */
enum {
  ORNIC_AN_DATA = 1u << 0,        /* carries data in the conversation's PSN space */
  ORNIC_AN_ADDR = 1u << 1,        /* addr is known */
  ORNIC_AN_ADDR_UNKNOWN = 1u << 2,/* addr should exist but is not known yet */
  ORNIC_AN_OOO = 1u << 3,         /* first arrival below the highest PSN */
  ORNIC_AN_DUP = 1u << 4,         /* PSN seen before */
  ORNIC_AN_RETRANS = 1u << 5,     /* sent again (dup, NAK'd or RTO probe) */
  ORNIC_AN_PROBE = 1u << 6,       /* ORNIC request with A = 1 */
  ORNIC_AN_LOSS = 1u << 7,        /* this arrival passed ePSN + OTD */
  ORNIC_AN_WQE = 1u << 8,         /* wqe fields valid */
  ORNIC_AN_NEW_WQE = 1u << 9,     /* this packet revealed a new WQE */
  ORNIC_AN_ACK = 1u << 10,        /* cumulative acknowledgement fields valid */
  ORNIC_AN_ACK_STALE = 1u << 11,  /* cumulative PSN went backwards */
  ORNIC_AN_MSN = 1u << 12,        /* msn_delta valid */
  ORNIC_AN_WQE_DONE = 1u << 13,   /* wqe_completed valid */
  ORNIC_AN_HPSN = 1u << 14,       /* hpsn/epsn valid */
  ORNIC_AN_PMTU_UNKNOWN = 1u << 15,
  ORNIC_AN_NAK = 1u << 16,        /* ORNIC NAK or RC NAK */
  ORNIC_AN_CNP = 1u << 17,
  ORNIC_AN_BEYOND = 1u << 18      /* too far below the highest PSN to judge */
};

typedef struct ornic_conv ornic_conv;

typedef struct ornic_pkt {
  guint32 flags;
  ornic_conv *conv;
  guint32 pmtu;
  guint32 req_qp; /* the requester's QP as known when this packet was analysed */
  guint32 hpsn, epsn, ooo_distance;
  guint64 addr;
  guint32 wqe, wqe_start_psn, wqe_last_psn, wqe_pkt, wqe_npkts, wqe_frame, read_frame;
  guint64 wqe_start_addr;
  guint32 wqe_len;
  guint32 first_frame, nak_frame, acked_in;
  guint32 loss_first_psn, loss_count;
  guint32 ack_prev, ack_newly, msn_delta, wqe_completed;
  struct ornic_pkt *next_same_psn; /* older copies waiting for an ACK */
} ornic_pkt;

/* What the analysis needs from one decoded packet. */
typedef struct {
  const ornic_frame *f;
  guint32 frame_num;
  const guint8 *src, *dst; /* 16-byte IP addresses (IPv4 in the first 4) */
  guint8 addr_len;         /* 4 or 16, 0 when unknown */
  guint32 nak_missing_n;
  const guint32 *nak_missing; /* lost set of a NAK, section 4.4 */
} ornic_an_input;

struct ornic_conv {
  guint32 id;
  char label[160];
  guint32 resp_qp, req_qp; /* G_MAXUINT32 when unknown */
  gboolean from_response;  /* created by a response: requester side unknown */
  /* opaque state follows in ornic_analysis.c */
};

void ornic_analysis_init(void);
ornic_pkt *ornic_analyse(const ornic_an_input *in);

/* ---- stats (ornic_stats.c) ----------------------------------------------- */
typedef struct {
  const ornic_pkt *an; /* may be NULL */
  guint8 opcode;
  guint8 icrc_status; /* PROTO_CHECKSUM_E_* */
  gboolean malformed;
} ornic_tap_info;

void ornic_register_stats(void);

/* ---- dissection helpers -------------------------------------------------- */
/* Fills the lost set of a NAK (PROTOCOL.md 4.4, with the QP's OTD) into out. */
guint32 ornic_nak_lost_set(const ornic_naketh *nak, guint32 otd, guint32 *out, guint32 cap);
void ornic_tree_headers(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const ornic_frame *f,
                        guint16 which, const guint32 *lost, guint32 nlost);
void ornic_tree_analysis(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo,
                         const ornic_frame *f, const ornic_pkt *an);

#endif
