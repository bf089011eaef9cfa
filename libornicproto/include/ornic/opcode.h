/* SPDX-License-Identifier: MIT */
/* The BTH opcode table: one row per opcode, shared by every tool. */
#ifndef ORNIC_OPCODE_H
#define ORNIC_OPCODE_H

#include <stdint.h>

#include "ornic/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Extension headers, as bits of a mask. Headers always appear on the wire in
 * the order of these bits (lowest first), which holds for every IBA and ORNIC
 * opcode; the table relies on it. */
enum {
  ORNIC_HDR_RDETH = 1u << 0,        /* 4 B, RD only */
  ORNIC_HDR_DETH = 1u << 1,         /* 8 B */
  ORNIC_HDR_XRCETH = 1u << 2,       /* 4 B, XRC only */
  ORNIC_HDR_FETH = 1u << 3,         /* 4 B, RC FLUSH */
  ORNIC_HDR_RETH = 1u << 4,         /* 16 B */
  ORNIC_HDR_OFFETH = 1u << 5,       /* 4 B, ORNIC: payload byte offset in WQE */
  ORNIC_HDR_ATOMICETH = 1u << 6,    /* 28 B */
  ORNIC_HDR_AETH = 1u << 7,         /* 4 B */
  ORNIC_HDR_ATOMICACKETH = 1u << 8, /* 8 B */
  ORNIC_HDR_OACKETH = 1u << 9,      /* 4 B, ORNIC ACK flags + aggregation */
  ORNIC_HDR_NAKETH = 1u << 10,      /* 12 B + 2 B per bitmap block, ORNIC NAK */
  ORNIC_HDR_IMMDT = 1u << 11,       /* 4 B */
  ORNIC_HDR_IETH = 1u << 12,        /* 4 B */
  ORNIC_HDR_CNP = 1u << 13          /* 16 reserved bytes of a RoCEv2 CNP */
};
#define ORNIC_HDR_COUNT 14

/* Transport class, from opcode bits 7:5 (ORNIC gets its own class). */
typedef enum {
  ORNIC_TRANSPORT_RC = 0,
  ORNIC_TRANSPORT_UC = 1,
  ORNIC_TRANSPORT_RD = 2,
  ORNIC_TRANSPORT_UD = 3,
  ORNIC_TRANSPORT_CNP = 4,
  ORNIC_TRANSPORT_XRC = 5,
  ORNIC_TRANSPORT_ORNIC = 6, /* 0xC0-0xDF, manufacturer range, ours */
  ORNIC_TRANSPORT_VENDOR = 7 /* the rest of 0xC0-0xFF */
} ornic_transport;

/* ORNIC opcodes (docs/PROTOCOL.md section 3). */
enum {
  ORNIC_OP_OOO_WRITE_FSPOT = 0xC0,
  ORNIC_OP_OOO_WRITE_SPOT = 0xC1,
  ORNIC_OP_OOO_WRITE_LAST = 0xC2,
  ORNIC_OP_OOO_WRITE_LAST_IMM = 0xC3,
  ORNIC_OP_OOO_WRITE_LAST_ADDR = 0xC4,
  ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM = 0xC5,
  ORNIC_OP_OOO_READ_REQ = 0xC6,
  ORNIC_OP_OOO_READ_RESP = 0xC7,
  ORNIC_OP_OOO_READ_RESP_LAST = 0xC8,
  ORNIC_OP_ACK = 0xC9,
  ORNIC_OP_NAK = 0xCA
};

/* Standard opcodes the tools name directly. */
enum {
  ORNIC_OP_RC_SEND_ONLY = 0x04,
  ORNIC_OP_RC_RDMA_WRITE_FIRST = 0x06,
  ORNIC_OP_RC_RDMA_WRITE_MIDDLE = 0x07,
  ORNIC_OP_RC_RDMA_WRITE_LAST = 0x08,
  ORNIC_OP_RC_RDMA_WRITE_ONLY = 0x0A,
  ORNIC_OP_RC_RDMA_READ_REQ = 0x0C,
  ORNIC_OP_RC_RDMA_READ_RESP_FIRST = 0x0D,
  ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE = 0x0E,
  ORNIC_OP_RC_RDMA_READ_RESP_LAST = 0x0F,
  ORNIC_OP_RC_RDMA_READ_RESP_ONLY = 0x10,
  ORNIC_OP_RC_ACK = 0x11,
  ORNIC_OP_UD_SEND_ONLY = 0x64,
  ORNIC_OP_CNP = 0x81
};

/* Role flags of an opcode, for tools that follow conversations. */
enum {
  ORNIC_OPF_PAYLOAD = 1u << 0,  /* may carry payload bytes */
  ORNIC_OPF_REQUEST = 1u << 1,  /* requester -> responder */
  ORNIC_OPF_RESPONSE = 1u << 2, /* responder -> requester */
  ORNIC_OPF_FIRST = 1u << 3,    /* starts a message */
  ORNIC_OPF_LAST = 1u << 4,     /* ends a message (Only = FIRST|LAST) */
  ORNIC_OPF_OOO = 1u << 5,      /* ORNIC out-of-order opcode */
  ORNIC_OPF_WRITE = 1u << 6,
  ORNIC_OPF_READ = 1u << 7,
  ORNIC_OPF_SEND = 1u << 8,
  ORNIC_OPF_ATOMIC = 1u << 9,
  ORNIC_OPF_ACK = 1u << 10 /* acknowledgement (ACK, NAK, atomic ACK) */
};

typedef struct {
  const char *name;       /* "RC RDMA WRITE First", "ORNIC OOO WRITE Spot"; NULL if unknown */
  const char *short_name; /* "RC_RDMA_WRITE_FIRST", as Scapy/kernel spell them */
  uint16_t hdrs;          /* ORNIC_HDR_* mask, in wire order by bit */
  uint16_t flags;         /* ORNIC_OPF_* */
  uint8_t transport;      /* ornic_transport */
} ornic_opcode_info;

/* Never NULL: an opcode with no defined layout has name == NULL and hdrs == 0. */
ORNIC_API const ornic_opcode_info *ornic_opcode_info_get(uint8_t opcode);

/* The opcode's name ("RC SEND Only"), or "Unknown" for an opcode without a
 * layout: static text, never NULL. */
ORNIC_API const char *ornic_opcode_name(uint8_t opcode);

static inline ornic_transport ornic_opcode_transport(uint8_t opcode) {
  return opcode >= 0xC0 && opcode <= 0xDF ? ORNIC_TRANSPORT_ORNIC
         : opcode >= 0xE0                 ? ORNIC_TRANSPORT_VENDOR
                                          : (ornic_transport)(opcode >> 5);
}

/* ConnectX's Dynamically Connected (DC) transport reuses the RD opcode block
 * 0x40-0x5F; the library decodes that block as DC, the rule of Wireshark's
 * packet-infiniband.c (docs/PROTOCOL.md 2.8): ORNIC_DC_LEN bytes follow the
 * BTH, then the headers of the opcode's row, and a DC connect (RESYNC, 0x55,
 * with SE clear) has ORNIC_DC_CONNECT_LEN more before its payload. Decode
 * leaves these bytes in place: they are [bth_off + 12, ext_off) of the frame;
 * encode writes them as zeros. */
#define ORNIC_DC_LEN 8
#define ORNIC_DC_CONNECT_LEN 16

/* The DC bytes between the BTH and the extension headers of a BTH with
 * this opcode and Solicited Event bit (se: 0 or not): 0 outside 0x40-0x5F. */
ORNIC_API unsigned ornic_opcode_dc_len(uint8_t opcode, int se);

/* Fixed size of one extension header (the NAK's fixed part for NAKETH); 0
 * unless hdr_bit is exactly one ORNIC_HDR_* bit. */
ORNIC_API unsigned ornic_hdr_size(uint16_t hdr_bit);

/* Short name of one extension header ("RETH"); "?" unless hdr_bit is
 * exactly one ORNIC_HDR_* bit. Static text, never NULL. */
ORNIC_API const char *ornic_hdr_name(uint16_t hdr_bit);

#ifdef __cplusplus
}
#endif
#endif
