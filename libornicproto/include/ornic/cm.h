/* SPDX-License-Identifier: MIT */
/* RDMA-CM over RoCEv2: the IBA Communication Management MADs (REQ, MRA, REJ,
 * REP, RTU, DREQ, DREP) that set up and tear down an RC connection, read
 * from a decoded frame (a UD SEND Only to QP 1). The fields are those an
 * analysis of the connection needs: QP numbers, starting PSNs, path MTU,
 * READ depths, communication IDs. Layouts: IBA Vol. 1 12.6, as Wireshark's
 * packet-infiniband.c reads them (docs/PROTOCOL.md 2.10, "RDMA-CM over RoCEv2"). */
#ifndef ORNIC_CM_H
#define ORNIC_CM_H

#include <stdint.h>

#include "ornic/export.h"
#include "ornic/frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MAD AttributeIDs of the CM class (IBA 12.6). */
enum {
  ORNIC_CM_REQ = 0x0010,  /* ConnectRequest */
  ORNIC_CM_MRA = 0x0011,  /* MsgRcptAck */
  ORNIC_CM_REJ = 0x0012,  /* ConnectReject */
  ORNIC_CM_REP = 0x0013,  /* ConnectReply */
  ORNIC_CM_RTU = 0x0014,  /* ReadyToUse */
  ORNIC_CM_DREQ = 0x0015, /* DisconnectRequest */
  ORNIC_CM_DREP = 0x0016  /* DisconnectReply */
};

/* The wire constants of a CM MAD over RoCEv2. */
#define ORNIC_CM_QP 1u             /* the GSI QP: BTH DestQP and DETH SrcQP */
#define ORNIC_CM_QKEY 0x80010000u  /* the GSI Q_Key (DETH) */
#define ORNIC_CM_MGMT_CLASS 0x07u  /* MAD MgmtClass of Communication Management */
#define ORNIC_CM_CLASS_VERSION 2u  /* MAD ClassVersion of CM (IBA 1.2 on) */
#define ORNIC_CM_METHOD_SEND 0x03u /* MAD Method of every CM message */
#define ORNIC_CM_MAD_LEN 256u      /* a MAD: the UD payload */
#define ORNIC_CM_MAD_HDR_LEN 24u   /* the common MAD header; the CM message follows */

/* ornic_cm_msg.has: which of the optional fields the message carries. */
enum {
  ORNIC_CM_HAS_QPN = 1u << 0,  /* local_qpn (REQ, REP) */
  ORNIC_CM_HAS_PSN = 1u << 1,  /* start_psn (REQ, REP) */
  ORNIC_CM_HAS_PMTU = 1u << 2, /* path_mtu and pmtu (REQ) */
  ORNIC_CM_HAS_DEPTH = 1u << 3 /* resp_resources and init_depth (REQ, REP) */
};

/* One CM message. Zero means "absent" for every field a message does not
 * carry (see has). The caller allocates it; ornic_cm_decode fills all of it,
 * the reserved tail included (zeroed: docs/ABI.md, later fields come from
 * there). */
typedef struct {
  uint16_t attr_id;        /* ORNIC_CM_* */
  uint8_t method;          /* MAD Method, the whole byte (R bit included): 0x03 Send */
  uint64_t tid;            /* MAD TransactionID */
  uint32_t local_comm_id;  /* every message: the sender's Communication ID */
  uint32_t remote_comm_id; /* the receiver's; 0 in a REQ, which has none */
  uint32_t local_qpn;      /* REQ, REP: the sender's QP number (24 bits) */
  uint32_t start_psn;      /* REQ: the PSN the sender's requests start at (the active side);
                              REP: the passive side's (24 bits) */
  uint8_t resp_resources;  /* REQ, REP: RDMA READ / atomic requests the sender accepts
                              outstanding as a responder */
  uint8_t init_depth;      /* REQ, REP: those it keeps outstanding as a requester */
  uint8_t transport;       /* REQ: Transport Service Type: 0 RC, 1 UC, 3 XRC (IBA values) */
  uint8_t path_mtu;        /* REQ: Path Packet Payload MTU, the IBA enum (1 = 256 .. 5 = 4096) */
  uint32_t pmtu;           /* REQ: that MTU in bytes (256 .. 4096); 0 for another value */
  uint64_t local_ca_guid;  /* REQ, REP: the sender's CA GUID */
  uint8_t has;             /* ORNIC_CM_HAS_* */
  uint64_t reserved[2];    /* docs/ABI.md: later fields come from here; zeroed */
} ornic_cm_msg;

/* Reads the CM message a decoded frame carries. f: the result of
 * ornic_frame_decode or ornic_roce_decode, whatever it returned (a frame cut
 * by a snaplen is read as far as it was captured). Returns:
 *   ORNIC_OK               f is a UD SEND Only (0x64) or SEND Only with
 *                          Immediate (0x65) to QP 1 whose payload is a MAD of
 *                          class CM (0x07) with one of the AttributeIDs above,
 *                          and every byte of the fields read was captured: out
 *                          is filled;
 *   ORNIC_ERR_UNSUPPORTED  not a CM message (no BTH, another opcode or QP,
 *                          another MAD class or attribute): "not found";
 *   ORNIC_ERR_TRUNCATED    a UD SEND to QP 1 whose captured bytes end before
 *                          the MAD header or before a field its message is
 *                          read for (f->payload_caplen);
 *   ORNIC_ERR_MALFORMED    the frame's own lengths end the payload before
 *                          those bytes (f->payload_len), or the decoder could
 *                          not locate the payload of a UD SEND to QP 1;
 *   ORNIC_ERR_INVALID_ARG  f or out is NULL.
 * On an error *out is zero but for attr_id, method and tid when the MAD
 * header was read. The MAD's BaseVersion and ClassVersion are not checked,
 * as Wireshark does not. Never reads past f->payload_caplen; never allocates. */
ORNIC_API int ornic_cm_decode(const ornic_frame *f, ornic_cm_msg *out);

/* "REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP", or NULL for another value. */
ORNIC_API const char *ornic_cm_name(uint16_t attr_id);

#ifdef __cplusplus
}
#endif
#endif
