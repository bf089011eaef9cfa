/* SPDX-License-Identifier: MIT */
/* ornic_cm_decode (ornic/cm.h): RDMA-CM MADs over RoCEv2, built here byte by
 * byte from IBA Vol. 1 12.6's layouts (as docs/PROTOCOL.md 2.10 and Wireshark's
 * packet-infiniband.c have them), never with the code under test: a distinct
 * value in every field the decoder reads and in the bits and bytes around it
 * (a 24-bit QPN with its top byte set, the reserved byte after it, the path
 * MTU nibble beside RDC Exists and RNR Retry Count), every message type,
 * every cut of a frame against a guard page, frames that are not CM. */
#include <string.h>

#include "testutil.h"

/* Offsets in the MAD (the UD payload): the 24-byte common MAD header, then the
 * CM message (IBA 13.4, 12.6). */
enum { MAD = 256, HDR = 24 };

static void put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static void put24(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 16);
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v) {
  put16(p, (uint16_t)(v >> 16));
  put16(p + 2, (uint16_t)v);
}
static void put64(uint8_t *p, uint64_t v) {
  put32(p, (uint32_t)(v >> 32));
  put32(p + 4, (uint32_t)v);
}

/* The common MAD header: BaseVersion 1, MgmtClass, ClassVersion 2, Method,
 * Status, ClassSpecific, TransactionID, AttributeID, Reserved, AttributeModifier;
 * every byte of the rest 0xEE, so that a read of a wrong byte shows. */
static void mad_header(uint8_t *m, uint8_t mclass, uint8_t method, uint64_t tid, uint16_t attr) {
  memset(m, 0xEE, MAD);
  m[0] = 1;
  m[1] = mclass;
  m[2] = 2;
  m[3] = method;
  put16(m + 4, 0x0102);
  put16(m + 6, 0x0304);
  put64(m + 8, tid);
  put16(m + 16, attr);
  put16(m + 18, 0);
  put32(m + 20, 0x05060708);
}

/* REQ (IBA 12.6): the fields in wire order, the ones ornic_cm_decode reads
 * distinct, the others (and the reserved words) set all ones. */
typedef struct {
  uint32_t comm_id, qpn, psn;
  uint8_t resp_res, init_depth, transport, mtu_nibble;
  uint64_t guid;
} req_fields;

static void build_req(uint8_t *m, uint64_t tid, const req_fields *q) {
  mad_header(m, 0x07, 0x03, tid, 0x0010);
  uint8_t *c = m + HDR;
  put32(c + 0, q->comm_id);
  put32(c + 4, 0xFFFFFFFF); /* reserved: not a Remote Communication ID */
  put64(c + 8, 0x0000000001060000ull | 18515);
  put64(c + 16, q->guid);
  put32(c + 24, 0xFFFFFFFF); /* reserved */
  put32(c + 28, 0x11223344); /* Local Q_Key */
  put24(c + 32, q->qpn);
  c[35] = q->resp_res;
  put24(c + 36, 0xFFFFFF); /* Local EECN */
  c[39] = q->init_depth;
  put24(c + 40, 0xFFFFFF); /* Remote EECN */
  /* Remote CM Response Timeout 7:3 (all ones), Transport Service Type 2:1, E2E 0 (1) */
  c[43] = (uint8_t)(0xF8 | (q->transport & 3) << 1 | 1);
  put24(c + 44, q->psn);
  c[47] = 0xFF;          /* Local CM Response Timeout, Retry Count */
  put16(c + 48, 0xFFFF); /* P_Key */
  /* Path Packet Payload MTU 7:4, RDC Exists 3, RNR Retry Count 2:0 (all ones) */
  c[50] = (uint8_t)(q->mtu_nibble << 4 | 0x0F);
  c[51] = 0xFF; /* Max CM Retries, SRQ, Extended Transport */
}

/* REP (IBA 12.6). */
static void build_rep(uint8_t *m, uint64_t tid, uint32_t local, uint32_t remote, uint32_t qpn,
                      uint32_t psn, uint8_t resp_res, uint8_t init_depth, uint64_t guid) {
  mad_header(m, 0x07, 0x03, tid, 0x0013);
  uint8_t *c = m + HDR;
  put32(c + 0, local);
  put32(c + 4, remote);
  put32(c + 8, 0x11223344); /* Local Q_Key */
  put24(c + 12, qpn);
  c[15] = 0xFF;            /* reserved */
  put24(c + 16, 0xFFFFFF); /* Local EE Context */
  c[19] = 0xFF;
  put24(c + 20, psn);
  c[23] = 0xFF;
  c[24] = resp_res;
  c[25] = init_depth;
  c[26] = 0xFF; /* Target ACK Delay, Failover Accepted, E2E */
  c[27] = 0xFF; /* RNR Retry Count, SRQ, reserved */
  put64(c + 28, guid);
}

/* A message of the Communication IDs alone (MRA, REJ, RTU, DREQ, DREP). */
static void build_ids(uint8_t *m, uint64_t tid, uint16_t attr, uint32_t local, uint32_t remote) {
  mad_header(m, 0x07, 0x03, tid, attr);
  put32(m + HDR, local);
  put32(m + HDR + 4, remote);
}

/* The MAD in a UD SEND Only from QP 1 to QP 1 (DETH Q_Key 0x80010000),
 * Ethernet/IPv4/UDP 4791; returns the frame's length. */
static size_t ud_frame(uint8_t *out, size_t cap, const uint8_t *mad, size_t madlen, uint8_t opcode,
                       uint32_t destqp) {
  ornic_frame f;
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  f.bth.opcode = opcode;
  f.bth.destqp = destqp;
  f.bth.psn = 0x000123;
  f.ext.deth = (ornic_deth){0x80010000u, 0, 1};
  f.ext.immdt.data = 0xCAFEF00D;
  f.payload = mad;
  f.payload_len = madlen;
  return tu_encode(&f, out, cap);
}

/* Decodes the frame, then its CM message. */
static int cm_of(const uint8_t *buf, size_t len, ornic_cm_msg *m) {
  ornic_frame f;
  ornic_frame_decode(&f, buf, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  return ornic_cm_decode(&f, m);
}

static void assert_tail_zero(const ornic_cm_msg *m) {
  ck_assert(m->reserved[0] == 0 && m->reserved[1] == 0);
}

START_TEST(req_every_field) {
  uint8_t mad[MAD], buf[512];
  req_fields q = {0x89ABCDEF, 0xFEDCBA, 0xF0E1D2, 0xA5, 0x5A, 3, 5, 0x0123456789ABCDEFull};
  build_req(mad, 0x8877665544332211ull, &q);
  size_t n = ud_frame(buf, sizeof buf, mad, MAD, ORNIC_OP_UD_SEND_ONLY, 1);
  ornic_cm_msg m;
  memset(&m, 0xAA, sizeof m);
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_OK);
  ck_assert_uint_eq(m.attr_id, ORNIC_CM_REQ);
  ck_assert_uint_eq(m.method, 0x03);
  ck_assert(m.tid == 0x8877665544332211ull);
  ck_assert_uint_eq(m.local_comm_id, 0x89ABCDEF);
  ck_assert_uint_eq(m.remote_comm_id, 0); /* the reserved word is not read as one */
  ck_assert_uint_eq(m.local_qpn, 0xFEDCBA);
  ck_assert_uint_eq(m.start_psn, 0xF0E1D2);
  ck_assert_uint_eq(m.resp_resources, 0xA5);
  ck_assert_uint_eq(m.init_depth, 0x5A);
  ck_assert_uint_eq(m.transport, 3);
  ck_assert_uint_eq(m.path_mtu, 5);
  ck_assert_uint_eq(m.pmtu, 4096);
  ck_assert(m.local_ca_guid == 0x0123456789ABCDEFull);
  ck_assert_uint_eq(m.has,
                    ORNIC_CM_HAS_QPN | ORNIC_CM_HAS_PSN | ORNIC_CM_HAS_PMTU | ORNIC_CM_HAS_DEPTH);
  assert_tail_zero(&m);
  ck_assert_str_eq(ornic_cm_name(m.attr_id), "REQ");
}
END_TEST

/* Every value of the 4-bit MTU and 2-bit transport fields, beside all-ones bits. */
START_TEST(req_mtu_nibble_and_transport) {
  static const uint32_t bytes[16] = {0, 256, 512, 1024, 2048, 4096};
  uint8_t mad[MAD], buf[512];
  for (unsigned v = 0; v < 16; v++) {
    req_fields q = {1, 0x800001, 0x7FFFFF, 0, 0xFF, (uint8_t)(v & 3), (uint8_t)v, 0};
    build_req(mad, v, &q);
    size_t n = ud_frame(buf, sizeof buf, mad, MAD, ORNIC_OP_UD_SEND_ONLY, 1);
    ornic_cm_msg m;
    ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_OK);
    ck_assert_uint_eq(m.path_mtu, v);
    ck_assert_uint_eq(m.pmtu, bytes[v]);
    ck_assert_uint_eq(m.transport, v & 3);
    ck_assert_uint_eq(m.local_qpn, 0x800001);
    ck_assert_uint_eq(m.start_psn, 0x7FFFFF);
    ck_assert_uint_eq(m.resp_resources, 0);
    ck_assert_uint_eq(m.init_depth, 0xFF);
  }
}
END_TEST

START_TEST(rep_every_field) {
  uint8_t mad[MAD], buf[512];
  build_rep(mad, 0x0102030405060708ull, 0x13579BDF, 0x2468ACE0, 0x9ABCDE, 0xFF0001, 0x07, 0x09,
            0xFEDCBA9876543210ull);
  size_t n = ud_frame(buf, sizeof buf, mad, MAD, ORNIC_OP_UD_SEND_ONLY, 1);
  ornic_cm_msg m;
  memset(&m, 0x55, sizeof m);
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_OK);
  ck_assert_uint_eq(m.attr_id, ORNIC_CM_REP);
  ck_assert(m.tid == 0x0102030405060708ull);
  ck_assert_uint_eq(m.local_comm_id, 0x13579BDF);
  ck_assert_uint_eq(m.remote_comm_id, 0x2468ACE0);
  ck_assert_uint_eq(m.local_qpn, 0x9ABCDE);
  ck_assert_uint_eq(m.start_psn, 0xFF0001);
  ck_assert_uint_eq(m.resp_resources, 7);
  ck_assert_uint_eq(m.init_depth, 9);
  ck_assert(m.local_ca_guid == 0xFEDCBA9876543210ull);
  ck_assert_uint_eq(m.has, ORNIC_CM_HAS_QPN | ORNIC_CM_HAS_PSN | ORNIC_CM_HAS_DEPTH);
  /* a REP carries no path MTU nor transport */
  ck_assert_uint_eq(m.path_mtu, 0);
  ck_assert_uint_eq(m.pmtu, 0);
  ck_assert_uint_eq(m.transport, 0);
  assert_tail_zero(&m);
}
END_TEST

/* MRA, REJ, RTU, DREQ, DREP: the two Communication IDs; nothing else. SEND Only
 * with Immediate (0x65) carries a MAD too. */
START_TEST(id_messages) {
  static const struct {
    uint16_t attr;
    const char *name;
  } msgs[] = {
      {0x0011, "MRA"}, {0x0012, "REJ"}, {0x0014, "RTU"}, {0x0015, "DREQ"}, {0x0016, "DREP"}};
  uint8_t mad[MAD], buf[512];
  for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++)
    for (int imm = 0; imm < 2; imm++) {
      build_ids(mad, 0xABCD000000000000ull + i, msgs[i].attr, 0xC0DE0000u + (uint32_t)i,
                0xBEEF0000u + (uint32_t)i);
      size_t n = ud_frame(buf, sizeof buf, mad, MAD, imm ? 0x65 : ORNIC_OP_UD_SEND_ONLY, 1);
      ornic_cm_msg m;
      ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_OK);
      ck_assert_uint_eq(m.attr_id, msgs[i].attr);
      ck_assert_str_eq(ornic_cm_name(m.attr_id), msgs[i].name);
      ck_assert(m.tid == 0xABCD000000000000ull + i);
      ck_assert_uint_eq(m.local_comm_id, 0xC0DE0000u + (uint32_t)i);
      ck_assert_uint_eq(m.remote_comm_id, 0xBEEF0000u + (uint32_t)i);
      ck_assert_uint_eq(m.has, 0);
      ck_assert_uint_eq(m.local_qpn, 0);
      ck_assert(m.local_ca_guid == 0);
    }
}
END_TEST

START_TEST(names) {
  ck_assert_str_eq(ornic_cm_name(ORNIC_CM_REQ), "REQ");
  ck_assert_str_eq(ornic_cm_name(ORNIC_CM_REP), "REP");
  ck_assert_str_eq(ornic_cm_name(ORNIC_CM_DREP), "DREP");
  ck_assert_ptr_null(ornic_cm_name(0x000F));
  ck_assert_ptr_null(ornic_cm_name(0x0017));
  ck_assert_ptr_null(ornic_cm_name(0x0001)); /* ClassPortInfo: not a connection message */
  ck_assert_ptr_null(ornic_cm_name(0x1010));
}
END_TEST

/* Not CM: another MAD class or attribute, another QP, another opcode. */
START_TEST(not_cm) {
  uint8_t mad[MAD], buf[512];
  ornic_cm_msg m;
  build_ids(mad, 1, 0x0014, 2, 3);
  mad[1] = 0x03; /* Subnet Administration */
  size_t n = ud_frame(buf, sizeof buf, mad, MAD, ORNIC_OP_UD_SEND_ONLY, 1);
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_ERR_UNSUPPORTED);
  ck_assert_uint_eq(m.attr_id, 0);
  build_ids(mad, 1, 0x0017, 2, 3); /* ServiceIDResReq */
  n = ud_frame(buf, sizeof buf, mad, MAD, ORNIC_OP_UD_SEND_ONLY, 1);
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_ERR_UNSUPPORTED);
  build_ids(mad, 1, 0x0014, 2, 3);
  n = ud_frame(buf, sizeof buf, mad, MAD, ORNIC_OP_UD_SEND_ONLY, 0); /* QP 0: SMI */
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_ERR_UNSUPPORTED);
  n = ud_frame(buf, sizeof buf, mad, MAD, ORNIC_OP_UD_SEND_ONLY, 0x000101);
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_ERR_UNSUPPORTED);
  n = ud_frame(buf, sizeof buf, mad, MAD, ORNIC_OP_RC_SEND_ONLY, 1); /* RC to QP 1 */
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_ERR_UNSUPPORTED);
  /* Not RoCE at all: no BTH. */
  ornic_frame f;
  ck_assert_int_eq(ornic_frame_decode(&f, buf, 20, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT),
                   ORNIC_ERR_TRUNCATED);
  ck_assert_int_eq(ornic_cm_decode(&f, &m), ORNIC_ERR_UNSUPPORTED);
  ck_assert_int_eq(ornic_cm_decode(NULL, &m), ORNIC_ERR_INVALID_ARG);
  ck_assert_int_eq(ornic_cm_decode(&f, NULL), ORNIC_ERR_INVALID_ARG);
}
END_TEST

/* Every cut of each message's frame, its last byte before an unreadable page:
 * TRUNCATED until the fields read are captured, OK from there; UNSUPPORTED
 * while the BTH is not captured (nothing says it is a MAD). */
START_TEST(every_cut) {
  uint8_t mad[MAD], buf[512];
  tu_guard g;
  tu_guard_init(&g);
  req_fields q = {0x89ABCDEF, 0xFEDCBA, 0xF0E1D2, 0xA5, 0x5A, 0, 3, 0x0123456789ABCDEFull};
  for (int k = 0; k < 3; k++) {
    size_t need; /* bytes of the MAD read */
    if (k == 0) {
      build_req(mad, 7, &q);
      need = HDR + 51;
    } else if (k == 1) {
      build_rep(mad, 7, 1, 2, 0xFEDCBA, 0xF0E1D2, 1, 2, 3);
      need = HDR + 36;
    } else {
      build_ids(mad, 7, 0x0014, 1, 2);
      need = HDR + 8;
    }
    size_t n = ud_frame(buf, sizeof buf, mad, MAD, ORNIC_OP_UD_SEND_ONLY, 1);
    size_t payload_off = 14 + 20 + 8 + 12 + 8;
    for (size_t cut = 0; cut <= n; cut++) {
      uint8_t *p = tu_guard_tail(&g, buf, cut);
      ornic_frame f;
      ornic_frame_decode(&f, p, cut, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
      ornic_cm_msg m;
      int rc = ornic_cm_decode(&f, &m);
      int want = cut < payload_off - 8      ? ORNIC_ERR_UNSUPPORTED /* no BTH yet */
                 : cut < payload_off + need ? ORNIC_ERR_TRUNCATED
                                            : ORNIC_OK;
      ck_assert_msg(rc == want, "message %d cut at %zu: %d, want %d", k, cut, rc, want);
      if (rc == ORNIC_OK) ck_assert_uint_eq(m.local_comm_id, k == 0 ? 0x89ABCDEF : 1);
      if (rc == ORNIC_ERR_TRUNCATED && cut >= payload_off + HDR) {
        ck_assert_uint_eq(m.attr_id, k == 0 ? 0x10 : k == 1 ? 0x13 : 0x14); /* header read */
        ck_assert_uint_eq(m.local_comm_id, 0);
      }
    }
  }
  tu_guard_free(&g);
}
END_TEST

/* The frame's own lengths make the MAD shorter than the fields read: MALFORMED,
 * whatever was captured. */
START_TEST(short_mad_is_malformed) {
  uint8_t mad[MAD], buf[512];
  req_fields q = {1, 2, 3, 4, 5, 0, 3, 6};
  build_req(mad, 7, &q);
  ornic_cm_msg m;
  size_t n = ud_frame(buf, sizeof buf, mad, HDR + 40, ORNIC_OP_UD_SEND_ONLY, 1);
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(m.attr_id, ORNIC_CM_REQ);
  n = ud_frame(buf, sizeof buf, mad, HDR + 51, ORNIC_OP_UD_SEND_ONLY, 1); /* exactly enough */
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_OK);
  ck_assert_uint_eq(m.path_mtu, 3);
  n = ud_frame(buf, sizeof buf, mad, 20, ORNIC_OP_UD_SEND_ONLY, 1); /* no whole MAD header */
  ck_assert_int_eq(cm_of(buf, n, &m), ORNIC_ERR_MALFORMED);
  ck_assert_uint_eq(m.attr_id, 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("cm");
  TCase *tc = tu_tcase("cm");
  tcase_add_test(tc, req_every_field);
  tcase_add_test(tc, req_mtu_nibble_and_transport);
  tcase_add_test(tc, rep_every_field);
  tcase_add_test(tc, id_messages);
  tcase_add_test(tc, names);
  tcase_add_test(tc, not_cm);
  tcase_add_test(tc, every_cut);
  tcase_add_test(tc, short_mad_is_malformed);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
