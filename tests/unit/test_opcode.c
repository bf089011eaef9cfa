/* SPDX-License-Identifier: MIT */
/* The opcode table against an independent transcription of docs/IBA_NOTES.md section
 * 4 (operation codes, names, headers in wire order) and its sources:
 *  - RC/UC/UD rows: docs/IBA_NOTES.md table ("headers after BTH (RC/UC)").
 *  - RD: RDETH then DETH before the RC-style headers for requests; responses
 *    (READ responses, ACK, ATOMIC ACK) carry RDETH only (Linux rxe_opcode.c,
 *    e.g. IB_OPCODE_RD_RDMA_READ_RESPONSE_FIRST = RDETH|AETH|PAYLOAD).
 *  - XRC: XRCETH after the BTH on requests; responses carry none (Linux rxe
 *    XRC patch: IB_OPCODE_XRC_RDMA_READ_RESPONSE_FIRST = AETH|PAYLOAD).
 *    docs/IBA_NOTES.md says "XRC packets carry XRCETH" without the request/response
 *    split and marks XRCETH placement unverified.
 *  - CNP: 0x81 with the 16 reserved bytes (docs/IBA_NOTES.md section 6).
 *  - ORNIC 0xC0-0xCA: docs/PROTOCOL.md section 3 (the source of truth). */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

enum {
  P = ORNIC_OPF_PAYLOAD,
  RQ = ORNIC_OPF_REQUEST,
  RS = ORNIC_OPF_RESPONSE,
  F = ORNIC_OPF_FIRST,
  L = ORNIC_OPF_LAST,
  W = ORNIC_OPF_WRITE,
  R = ORNIC_OPF_READ,
  S = ORNIC_OPF_SEND,
  A = ORNIC_OPF_ATOMIC,
  K = ORNIC_OPF_ACK
};
enum {
  IMM = ORNIC_HDR_IMMDT,
  RETH = ORNIC_HDR_RETH,
  AETH = ORNIC_HDR_AETH,
  ATE = ORNIC_HDR_ATOMICETH,
  AACK = ORNIC_HDR_ATOMICACKETH,
  IETH = ORNIC_HDR_IETH,
  FETH = ORNIC_HDR_FETH
};

/* docs/IBA_NOTES.md section 4, one row per operation code (bits 4:0). */
typedef struct {
  uint8_t op;
  const char *name;  /* Wireshark-style, "w/" spelled "with" */
  const char *kname; /* kernel ib_pack.h / Scapy suffix */
  uint16_t hdrs;     /* RC/UC headers after the BTH */
  uint16_t flags;
  bool uc, rd, xrc; /* defined for UC / RD / XRC */
} op_row;

static const op_row ops[] = {
    {0x00, "SEND First", "SEND_FIRST", 0, P | RQ | F | S, true, true, true},
    {0x01, "SEND Middle", "SEND_MIDDLE", 0, P | RQ | S, true, true, true},
    {0x02, "SEND Last", "SEND_LAST", 0, P | RQ | L | S, true, true, true},
    {0x03, "SEND Last with Immediate", "SEND_LAST_WITH_IMMEDIATE", IMM, P | RQ | L | S, true, true,
     true},
    {0x04, "SEND Only", "SEND_ONLY", 0, P | RQ | F | L | S, true, true, true},
    {0x05, "SEND Only with Immediate", "SEND_ONLY_WITH_IMMEDIATE", IMM, P | RQ | F | L | S, true,
     true, true},
    {0x06, "RDMA WRITE First", "RDMA_WRITE_FIRST", RETH, P | RQ | F | W, true, true, true},
    {0x07, "RDMA WRITE Middle", "RDMA_WRITE_MIDDLE", 0, P | RQ | W, true, true, true},
    {0x08, "RDMA WRITE Last", "RDMA_WRITE_LAST", 0, P | RQ | L | W, true, true, true},
    {0x09, "RDMA WRITE Last with Immediate", "RDMA_WRITE_LAST_WITH_IMMEDIATE", IMM, P | RQ | L | W,
     true, true, true},
    {0x0A, "RDMA WRITE Only", "RDMA_WRITE_ONLY", RETH, P | RQ | F | L | W, true, true, true},
    {0x0B, "RDMA WRITE Only with Immediate", "RDMA_WRITE_ONLY_WITH_IMMEDIATE", RETH | IMM,
     P | RQ | F | L | W, true, true, true},
    {0x0C, "RDMA READ Request", "RDMA_READ_REQUEST", RETH, RQ | F | L | R, false, true, true},
    {0x0D, "RDMA READ Response First", "RDMA_READ_RESPONSE_FIRST", AETH, P | RS | F | R, false,
     true, true},
    {0x0E, "RDMA READ Response Middle", "RDMA_READ_RESPONSE_MIDDLE", 0, P | RS | R, false, true,
     true},
    {0x0F, "RDMA READ Response Last", "RDMA_READ_RESPONSE_LAST", AETH, P | RS | L | R, false, true,
     true},
    {0x10, "RDMA READ Response Only", "RDMA_READ_RESPONSE_ONLY", AETH, P | RS | F | L | R, false,
     true, true},
    {0x11, "Acknowledge", "ACKNOWLEDGE", AETH, RS | K, false, true, true},
    {0x12, "ATOMIC Acknowledge", "ATOMIC_ACKNOWLEDGE", AETH | AACK, RS | K | A, false, true, true},
    {0x13, "CmpSwap", "COMPARE_SWAP", ATE, RQ | F | L | A, false, true, true},
    {0x14, "FetchAdd", "FETCH_ADD", ATE, RQ | F | L | A, false, true, true},
    {0x15, "RESYNC", "RESYNC", 0, RQ | F | L, false, true,
     false}, /* RD only (ws: RD RESYNC 0x55) */
    {0x16, "SEND Last with Invalidate", "SEND_LAST_WITH_INVALIDATE", IETH, P | RQ | L | S, false,
     false, true},
    {0x17, "SEND Only with Invalidate", "SEND_ONLY_WITH_INVALIDATE", IETH, P | RQ | F | L | S,
     false, false, true},
    {0x1C, "FLUSH", "FLUSH", FETH | RETH, RQ | F | L, false, false, false},
    {0x1D, "ATOMIC WRITE", "ATOMIC_WRITE", RETH, P | RQ | F | L | A, false, false, false},
};
#define NOPS (sizeof ops / sizeof ops[0])

typedef struct {
  bool defined;
  char name[64], kname[64];
  uint16_t hdrs, flags;
  ornic_transport transport;
} expect;

static expect expected[256];

static void add(uint8_t code, const char *prefix, const op_row *o, uint16_t pre,
                ornic_transport t) {
  expect *e = &expected[code];
  e->defined = true;
  snprintf(e->name, sizeof e->name, "%s %s", prefix, o->name);
  /* The short name is Scapy's and the kernel's: RD_* for the DC block too. */
  snprintf(e->kname, sizeof e->kname, "%s_%s", strcmp(prefix, "DC") ? prefix : "RD", o->kname);
  e->hdrs = (uint16_t)(pre | o->hdrs);
  e->flags = o->flags;
  e->transport = t;
}

static void build_expected(void) {
  memset(expected, 0, sizeof expected);
  for (size_t i = 0; i < NOPS; i++) {
    const op_row *o = &ops[i];
    bool response = o->flags & RS;
    if (o->op != 0x15) add(o->op, "RC", o, 0, ORNIC_TRANSPORT_RC);
    if (o->uc) add((uint8_t)(0x20 | o->op), "UC", o, 0, ORNIC_TRANSPORT_UC);
    /* The RD block as Wireshark's packet-infiniband.c decodes it, ConnectX's
     * DC (PROTOCOL.md 2.8): RD's headers after the DC bytes, but the
     * Acknowledge has its AETH alone and RESYNC payload only. */
    if (o->rd && o->op == 0x11) {
      add(0x51, "DC", o, 0, ORNIC_TRANSPORT_RD);
    } else if (o->rd && o->op == 0x15) {
      add(0x55, "DC", o, 0, ORNIC_TRANSPORT_RD);
      expected[0x55].hdrs = 0;
      expected[0x55].flags |= ORNIC_OPF_PAYLOAD;
    } else if (o->rd) {
      add((uint8_t)(0x40 | o->op), "DC", o,
          response ? ORNIC_HDR_RDETH : ORNIC_HDR_RDETH | ORNIC_HDR_DETH, ORNIC_TRANSPORT_RD);
    }
    if (o->xrc)
      add((uint8_t)(0xA0 | o->op), "XRC", o, response ? 0 : ORNIC_HDR_XRCETH, ORNIC_TRANSPORT_XRC);
  }
  /* UD: SEND Only (DETH) and SEND Only with Immediate (DETH, ImmDt) */
  add(0x64, "UD", &ops[4], ORNIC_HDR_DETH, ORNIC_TRANSPORT_UD);
  add(0x65, "UD", &ops[5], ORNIC_HDR_DETH, ORNIC_TRANSPORT_UD);
  /* CNP 0x81 */
  expect *c = &expected[0x81];
  c->defined = true;
  strcpy(c->name, "CNP");
  strcpy(c->kname, "CNP");
  c->hdrs = ORNIC_HDR_CNP;
  c->flags = RQ | F | L;
  c->transport = ORNIC_TRANSPORT_CNP;
}

START_TEST(defined_set_and_layouts_match_iba_notes) {
  build_expected();
  unsigned n_std = 0;
  for (unsigned op = 0; op < 0xC0; op++) {
    const ornic_opcode_info *i = ornic_opcode_info_get((uint8_t)op);
    const expect *e = &expected[op];
    ck_assert_ptr_nonnull(i);
    if (!e->defined) {
      ck_assert_msg(i->name == NULL && i->hdrs == 0, "0x%02x should have no layout, has %s", op,
                    i->name);
      continue;
    }
    n_std++;
    ck_assert_msg(i->name != NULL, "0x%02x (%s) has no layout", op, e->name);
    ck_assert_msg(i->hdrs == e->hdrs, "0x%02x %s: hdrs 0x%04x, IBA notes 0x%04x", op, e->name,
                  i->hdrs, e->hdrs);
    ck_assert_msg(i->flags == e->flags, "0x%02x %s: flags 0x%04x, expected 0x%04x", op, e->name,
                  i->flags, e->flags);
    ck_assert_msg(i->transport == e->transport, "0x%02x %s: transport %d", op, e->name,
                  i->transport);
    ck_assert_msg(strcmp(i->name, e->name) == 0, "0x%02x: name \"%s\", expected \"%s\"", op,
                  i->name, e->name);
    ck_assert_msg(strcmp(i->short_name, e->kname) == 0,
                  "0x%02x: short name \"%s\", expected \"%s\"", op, i->short_name, e->kname);
    ck_assert_str_eq(ornic_opcode_name((uint8_t)op), e->name);
  }
  /* RC 25 + UC 12 + RD 22 + UD 2 + CNP 1 + XRC 23 */
  ck_assert_uint_eq(n_std, 25 + 12 + 22 + 2 + 1 + 23);
}
END_TEST

START_TEST(named_opcode_constants) {
  /* opcode.h's constants are the IBA codes */
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_SEND_ONLY)->short_name, "RC_SEND_ONLY");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_RDMA_WRITE_FIRST)->short_name,
                   "RC_RDMA_WRITE_FIRST");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_RDMA_WRITE_MIDDLE)->short_name,
                   "RC_RDMA_WRITE_MIDDLE");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_RDMA_WRITE_LAST)->short_name,
                   "RC_RDMA_WRITE_LAST");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_RDMA_WRITE_ONLY)->short_name,
                   "RC_RDMA_WRITE_ONLY");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_RDMA_READ_REQ)->short_name,
                   "RC_RDMA_READ_REQUEST");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_RDMA_READ_RESP_FIRST)->short_name,
                   "RC_RDMA_READ_RESPONSE_FIRST");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE)->short_name,
                   "RC_RDMA_READ_RESPONSE_MIDDLE");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_RDMA_READ_RESP_LAST)->short_name,
                   "RC_RDMA_READ_RESPONSE_LAST");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_RDMA_READ_RESP_ONLY)->short_name,
                   "RC_RDMA_READ_RESPONSE_ONLY");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_RC_ACK)->short_name, "RC_ACKNOWLEDGE");
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_UD_SEND_ONLY)->short_name, "UD_SEND_ONLY");
  ck_assert_uint_eq(ORNIC_OP_CNP, 0x81);
  ck_assert_str_eq(ornic_opcode_info_get(ORNIC_OP_CNP)->short_name, "CNP");
  /* IB_OPCODE_CNP 0x80 (ib_pack.h) is not the RoCEv2 CNP: no layout here */
  ck_assert_ptr_null(ornic_opcode_info_get(0x80)->name);
}
END_TEST

/* ORNIC rows: docs/PROTOCOL.md section 3.2 (opcode, headers in wire order,
 * payload, role) and 3.1 (0xCB-0xDF reserved, 0xE0-0xFF not ORNIC). */
START_TEST(ornic_opcodes_match_protocol_md) {
  enum {
    OFF = ORNIC_HDR_OFFETH,
    OACK = ORNIC_HDR_OACKETH,
    NAK = ORNIC_HDR_NAKETH,
    O = ORNIC_OPF_OOO
  };
  const struct {
    uint8_t op;
    const char *name;
    uint16_t hdrs;
    uint16_t flags;
  } spec[] = {
      {0xC0, "ORNIC OOO WRITE FSpot", RETH | OFF, P | RQ | W},
      {0xC1, "ORNIC OOO WRITE Spot", 0, P | RQ | W},
      {0xC2, "ORNIC OOO WRITE Last", 0, P | RQ | W | L},
      {0xC3, "ORNIC OOO WRITE Last with Immediate", IMM, P | RQ | W | L},
      {0xC4, "ORNIC OOO WRITE Last with Address", RETH | OFF, P | RQ | W | L},
      {0xC5, "ORNIC OOO WRITE Last with Address and Immediate", RETH | OFF | IMM, P | RQ | W | L},
      {0xC6, "ORNIC OOO READ Request", RETH, RQ | R | L}, /* one packet, as IBA 0x0C: Last too */
      {0xC7, "ORNIC OOO READ Response", 0, P | RS | R},
      {0xC8, "ORNIC OOO READ Response Last", AETH, P | RS | R | L},
      {0xC9, "ORNIC ACK", AETH | OACK, RS | K},
      {0xCA, "ORNIC NAK", AETH | NAK, RS | K},
  };
  /* the role bits PROTOCOL.md states (FIRST is not compared: 3.2 has no "first" column) */
  const uint16_t stated = P | RQ | RS | W | R | L | K;
  for (size_t i = 0; i < sizeof spec / sizeof spec[0]; i++) {
    const ornic_opcode_info *in = ornic_opcode_info_get(spec[i].op);
    ck_assert_msg(in->name && strcmp(in->name, spec[i].name) == 0, "0x%02x name %s", spec[i].op,
                  in->name);
    ck_assert_msg(in->hdrs == spec[i].hdrs, "0x%02x hdrs 0x%04x, PROTOCOL.md 0x%04x", spec[i].op,
                  in->hdrs, spec[i].hdrs);
    ck_assert_msg((in->flags & stated) == spec[i].flags, "0x%02x flags 0x%04x, PROTOCOL.md 0x%04x",
                  spec[i].op, in->flags & stated, spec[i].flags);
    ck_assert_msg(in->flags & O, "0x%02x lacks OPF_OOO", spec[i].op);
    ck_assert_uint_eq(in->transport, ORNIC_TRANSPORT_ORNIC);
    ck_assert_uint_eq(spec[i].op >> 5, 6); /* "opcode >> 5 == 6 identifies an ORNIC packet" */
    ck_assert_msg(in->short_name && strncmp(in->short_name, "ORNIC_", 6) == 0, "0x%02x short %s",
                  spec[i].op, in->short_name);
  }
  /* ext bytes column of 3.2 (NAK: 16 + 2n, AETH and NAKETH) */
  ornic_ext e;
  memset(&e, 0, sizeof e);
  ck_assert_uint_eq(ornic_ext_size(&e, ornic_opcode_info_get(0xC0)->hdrs), 20);
  ck_assert_uint_eq(ornic_ext_size(&e, ornic_opcode_info_get(0xC5)->hdrs), 24);
  ck_assert_uint_eq(ornic_ext_size(&e, ornic_opcode_info_get(0xC9)->hdrs), 8);
  e.naketh.nblocks = 7;
  ck_assert_uint_eq(ornic_ext_size(&e, ornic_opcode_info_get(0xCA)->hdrs), 16 + 2 * 7);
  /* 0xCB-0xDF reserved for ORNIC, 0xE0-0xFF not ORNIC: no layout */
  for (unsigned op = 0xCB; op < 0x100; op++) {
    const ornic_opcode_info *in = ornic_opcode_info_get((uint8_t)op);
    ck_assert_msg(in->name == NULL && in->hdrs == 0, "0x%02x has a layout", op);
  }
  ck_assert_int_eq(ornic_opcode_transport(0xE0), ORNIC_TRANSPORT_VENDOR); /* hfi1 TID RDMA */
  /* OFFETH, OACKETH and NAKETH appear in ORNIC opcodes only */
  for (unsigned op = 0; op < 0xC0; op++)
    ck_assert(!(ornic_opcode_info_get((uint8_t)op)->hdrs &
                (ORNIC_HDR_OFFETH | ORNIC_HDR_OACKETH | ORNIC_HDR_NAKETH)));
  /* opcode.h's constants */
  ck_assert_uint_eq(ORNIC_OP_OOO_WRITE_FSPOT, 0xC0);
  ck_assert_uint_eq(ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM, 0xC5);
  ck_assert_uint_eq(ORNIC_OP_OOO_READ_RESP_LAST, 0xC8);
  ck_assert_uint_eq(ORNIC_OP_ACK, 0xC9);
  ck_assert_uint_eq(ORNIC_OP_NAK, 0xCA);
}
END_TEST

/* Table-wide consistency for every defined opcode. */
START_TEST(table_consistency) {
  const char *seen_names[256] = {0}, *seen_short[256] = {0};
  unsigned nseen = 0;
  for (unsigned op = 0; op < 256; op++) {
    const ornic_opcode_info *i = ornic_opcode_info_get((uint8_t)op);
    ck_assert_ptr_nonnull(i);
    if (!i->name) {
      ck_assert_str_eq(ornic_opcode_name((uint8_t)op), "Unknown");
      ck_assert_uint_eq(i->hdrs, 0);
      continue;
    }
    ck_assert_ptr_nonnull(i->short_name);
    ck_assert_str_eq(ornic_opcode_name((uint8_t)op), i->name);
    /* unique names */
    for (unsigned k = 0; k < nseen; k++) {
      ck_assert_msg(strcmp(seen_names[k], i->name) != 0, "duplicate name %s", i->name);
      ck_assert_msg(strcmp(seen_short[k], i->short_name) != 0, "duplicate short name %s",
                    i->short_name);
    }
    seen_names[nseen] = i->name;
    seen_short[nseen++] = i->short_name;
    /* transport field agrees with the opcode's bits */
    ck_assert_msg(i->transport == ornic_opcode_transport((uint8_t)op), "0x%02x transport", op);
    /* only known header bits, only known flag bits */
    ck_assert_uint_eq(i->hdrs & ~((1u << ORNIC_HDR_COUNT) - 1), 0);
    ck_assert_uint_eq(i->flags & ~0x7ffu, 0);
    /* exactly one of request/response */
    ck_assert_msg(!!(i->flags & ORNIC_OPF_REQUEST) + !!(i->flags & ORNIC_OPF_RESPONSE) == 1,
                  "0x%02x: request xor response", op);
    /* a header's size is known for every header an opcode uses */
    for (unsigned b = 0; b < ORNIC_HDR_COUNT; b++)
      if (i->hdrs & (1u << b)) ck_assert_uint_gt(ornic_hdr_size((uint16_t)(1u << b)), 0);
    /* First/Middle/Last/Only in the name agree with the flags (ACKs aside) */
    if (strstr(i->name, " Only")) ck_assert_uint_eq(i->flags & (F | L), F | L);
    if (strstr(i->name, " First")) ck_assert_uint_eq(i->flags & (F | L), F);
    if (strstr(i->name, " Middle")) ck_assert_uint_eq(i->flags & (F | L), 0);
    if (strstr(i->name, " Last")) ck_assert_uint_eq(i->flags & L, L);
    if (strstr(i->name, " with Immediate") || strstr(i->name, "and Immediate"))
      ck_assert_msg(i->hdrs & ORNIC_HDR_IMMDT, "0x%02x %s lacks ImmDt", op, i->name);
    else
      ck_assert_msg(!(i->hdrs & ORNIC_HDR_IMMDT), "0x%02x %s has ImmDt", op, i->name);
  }
  ck_assert_uint_eq(nseen, 85 + 11);
}
END_TEST

START_TEST(transport_of_every_opcode) {
  for (unsigned op = 0; op < 256; op++) {
    ornic_transport want = op < 0xC0   ? (ornic_transport)(op >> 5)
                           : op < 0xE0 ? ORNIC_TRANSPORT_ORNIC
                                       : ORNIC_TRANSPORT_VENDOR;
    ck_assert_msg(ornic_opcode_transport((uint8_t)op) == want, "0x%02x", op);
  }
  ck_assert_int_eq(ornic_opcode_transport(0x00), ORNIC_TRANSPORT_RC);
  ck_assert_int_eq(ornic_opcode_transport(0x3f), ORNIC_TRANSPORT_UC);
  ck_assert_int_eq(ornic_opcode_transport(0x40), ORNIC_TRANSPORT_RD);
  ck_assert_int_eq(ornic_opcode_transport(0x7f), ORNIC_TRANSPORT_UD);
  ck_assert_int_eq(ornic_opcode_transport(0x80), ORNIC_TRANSPORT_CNP);
  ck_assert_int_eq(ornic_opcode_transport(0xbf), ORNIC_TRANSPORT_XRC);
  ck_assert_int_eq(ornic_opcode_transport(0xc0), ORNIC_TRANSPORT_ORNIC);
  ck_assert_int_eq(ornic_opcode_transport(0xdf), ORNIC_TRANSPORT_ORNIC);
  ck_assert_int_eq(ornic_opcode_transport(0xe0), ORNIC_TRANSPORT_VENDOR);
  ck_assert_int_eq(ornic_opcode_transport(0xff), ORNIC_TRANSPORT_VENDOR);
}
END_TEST

START_TEST(header_sizes_and_names) {
  /* docs/IBA_NOTES.md section 3 sizes; ORNIC sizes from opcode.h */
  const struct {
    uint16_t bit;
    unsigned size;
    const char *name;
  } h[] = {
      {ORNIC_HDR_RDETH, 4, "RDETH"},
      {ORNIC_HDR_DETH, 8, "DETH"},
      {ORNIC_HDR_XRCETH, 4, "XRCETH"},
      {ORNIC_HDR_FETH, 4, "FETH"},
      {ORNIC_HDR_RETH, 16, "RETH"},
      {ORNIC_HDR_OFFETH, 4, "OFFETH"},
      {ORNIC_HDR_ATOMICETH, 28, "AtomicETH"},
      {ORNIC_HDR_AETH, 4, "AETH"},
      {ORNIC_HDR_ATOMICACKETH, 8, "AtomicAckETH"},
      {ORNIC_HDR_OACKETH, 4, "OACKETH"},
      {ORNIC_HDR_NAKETH, 12, "NAKETH"},
      {ORNIC_HDR_IMMDT, 4, "ImmDt"},
      {ORNIC_HDR_IETH, 4, "IETH"},
      {ORNIC_HDR_CNP, 16, "CNP"},
  };
  ck_assert_uint_eq(sizeof h / sizeof h[0], ORNIC_HDR_COUNT);
  for (size_t i = 0; i < ORNIC_HDR_COUNT; i++) {
    ck_assert_uint_eq(h[i].bit, 1u << i); /* wire order = bit order */
    ck_assert_uint_eq(ornic_hdr_size(h[i].bit), h[i].size);
    ck_assert_str_eq(ornic_hdr_name(h[i].bit), h[i].name);
  }
  ck_assert_uint_eq(ornic_hdr_size(0), 0);
  ck_assert_uint_eq(ornic_hdr_size(1u << ORNIC_HDR_COUNT), 0);
  ck_assert_str_eq(ornic_hdr_name(0), "?");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("opcode");
  TCase *tc = tu_tcase("opcode");
  tcase_add_test(tc, defined_set_and_layouts_match_iba_notes);
  tcase_add_test(tc, named_opcode_constants);
  tcase_add_test(tc, ornic_opcodes_match_protocol_md);
  tcase_add_test(tc, table_consistency);
  tcase_add_test(tc, transport_of_every_opcode);
  tcase_add_test(tc, header_sizes_and_names);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
