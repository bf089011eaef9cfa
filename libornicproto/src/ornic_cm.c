/* SPDX-License-Identifier: MIT */
/* RDMA-CM over RoCEv2 (ornic/cm.h): the IBA Communication Management MADs
 * read from a decoded UD SEND to QP 1, byte offsets as IBA Vol. 1 12.6 lays
 * them out and Wireshark's packet-infiniband.c reads them (parse_CM_Req,
 * parse_CM_Rsp, ...); docs/PROTOCOL.md 2.10 ("RDMA-CM over RoCEv2") has the table. One length check
 * per message, then reads without further checks. */
#include "ornic/cm.h"

#include <string.h>

#include "ornic/errors.h"
#include "ornic/opcode.h"
#include "ornic_conv.h"

#define ORNIC_OP_UD_SEND_ONLY_IMM 0x65

/* Offsets from the first byte of the MAD (the UD payload). */
enum {
  MAD_MGMT_CLASS = 1,
  MAD_METHOD = 3,
  MAD_TID = 8,
  MAD_ATTR_ID = 16,
  CM = ORNIC_CM_MAD_HDR_LEN, /* the CM message */
  /* every message: Local then Remote Communication ID */
  CM_LOCAL_COMM_ID = CM + 0,
  CM_REMOTE_COMM_ID = CM + 4,
  /* REQ (IBA 12.6) */
  REQ_LOCAL_CA_GUID = CM + 16,
  REQ_LOCAL_QPN = CM + 32, /* u24, then Responder Resources */
  REQ_RESP_RESOURCES = CM + 35,
  REQ_INIT_DEPTH = CM + 39, /* after the Local EECN (u24) */
  REQ_TRANSPORT = CM + 43,  /* Remote CM Response Timeout 7:3, Transport Service Type 2:1, E2E 0 */
  REQ_START_PSN = CM + 44,  /* u24, then Local CM Response Timeout and Retry Count */
  REQ_PATH_MTU = CM + 50,   /* Path Packet Payload MTU 7:4, RDC Exists 3, RNR Retry Count 2:0 */
  REQ_END = REQ_PATH_MTU + 1,
  /* REP (IBA 12.6) */
  REP_LOCAL_QPN = CM + 12, /* u24, then a reserved byte */
  REP_START_PSN = CM + 20, /* u24, then a reserved byte */
  REP_RESP_RESOURCES = CM + 24,
  REP_INIT_DEPTH = CM + 25,
  REP_LOCAL_CA_GUID = CM + 28,
  REP_END = REP_LOCAL_CA_GUID + 8,
  /* MRA, REJ, RTU, DREQ, DREP: the two Communication IDs only */
  IDS_END = CM_REMOTE_COMM_ID + 4
};

static const char *const cm_names[] = {"REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP"};

const char *ornic_cm_name(uint16_t attr_id) {
  if (attr_id < ORNIC_CM_REQ || attr_id > ORNIC_CM_DREP) return NULL;
  return cm_names[attr_id - ORNIC_CM_REQ];
}

static uint32_t get_u24(const uint8_t *p) {
  return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* The IBA MTU enum (IBA 9.7.5.2: 1 = 256 .. 5 = 4096) in bytes; 0 for another value. */
static uint32_t mtu_bytes(uint8_t v) { return v >= 1 && v <= 5 ? 128u << v : 0; }

/* The bytes of the MAD the message is read from: the whole of what is read. */
static size_t needed(uint16_t attr_id) {
  if (attr_id == ORNIC_CM_REQ) return (size_t)REQ_END;
  return attr_id == ORNIC_CM_REP ? (size_t)REP_END : (size_t)IDS_END;
}

static void read_req(const uint8_t *m, ornic_cm_msg *out) {
  out->local_ca_guid = ornic_get_u64(m + REQ_LOCAL_CA_GUID);
  out->local_qpn = get_u24(m + REQ_LOCAL_QPN);
  out->resp_resources = m[REQ_RESP_RESOURCES];
  out->init_depth = m[REQ_INIT_DEPTH];
  out->transport = (uint8_t)((m[REQ_TRANSPORT] >> 1) & 0x3);
  out->start_psn = get_u24(m + REQ_START_PSN);
  out->path_mtu = (uint8_t)(m[REQ_PATH_MTU] >> 4);
  out->pmtu = mtu_bytes(out->path_mtu);
  out->has = ORNIC_CM_HAS_QPN | ORNIC_CM_HAS_PSN | ORNIC_CM_HAS_PMTU | ORNIC_CM_HAS_DEPTH;
}

static void read_rep(const uint8_t *m, ornic_cm_msg *out) {
  out->local_qpn = get_u24(m + REP_LOCAL_QPN);
  out->start_psn = get_u24(m + REP_START_PSN);
  out->resp_resources = m[REP_RESP_RESOURCES];
  out->init_depth = m[REP_INIT_DEPTH];
  out->local_ca_guid = ornic_get_u64(m + REP_LOCAL_CA_GUID);
  out->has = ORNIC_CM_HAS_QPN | ORNIC_CM_HAS_PSN | ORNIC_CM_HAS_DEPTH;
}

int ornic_cm_decode(const ornic_frame *f, ornic_cm_msg *out) {
  if (!f || !out) return ORNIC_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  if (!(f->layers & ORNIC_LAYER_BTH) || f->bth.destqp != ORNIC_CM_QP ||
      (f->bth.opcode != ORNIC_OP_UD_SEND_ONLY && f->bth.opcode != ORNIC_OP_UD_SEND_ONLY_IMM))
    return ORNIC_ERR_UNSUPPORTED;
  /* A UD SEND to QP 1: from here on the answer is about its bytes. */
  if (!f->payload) return f->malformed ? ORNIC_ERR_MALFORMED : ORNIC_ERR_TRUNCATED;
  const uint8_t *m = f->payload;
  size_t cap = f->payload_caplen < f->payload_len ? f->payload_caplen : f->payload_len;
  if (cap < ORNIC_CM_MAD_HDR_LEN)
    return f->payload_len < ORNIC_CM_MAD_HDR_LEN ? ORNIC_ERR_MALFORMED : ORNIC_ERR_TRUNCATED;
  uint16_t attr = ornic_get_u16(m + MAD_ATTR_ID);
  if (m[MAD_MGMT_CLASS] != ORNIC_CM_MGMT_CLASS || !ornic_cm_name(attr))
    return ORNIC_ERR_UNSUPPORTED;
  out->attr_id = attr;
  out->method = m[MAD_METHOD];
  out->tid = ornic_get_u64(m + MAD_TID);
  size_t need = needed(attr);
  if (cap < need) return f->payload_len < need ? ORNIC_ERR_MALFORMED : ORNIC_ERR_TRUNCATED;
  out->local_comm_id = ornic_get_u32(m + CM_LOCAL_COMM_ID);
  out->remote_comm_id = attr == ORNIC_CM_REQ ? 0 : ornic_get_u32(m + CM_REMOTE_COMM_ID);
  if (attr == ORNIC_CM_REQ)
    read_req(m, out);
  else if (attr == ORNIC_CM_REP)
    read_rep(m, out);
  return ORNIC_OK;
}
