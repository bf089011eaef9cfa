/* SPDX-License-Identifier: MIT */
/* The wire encoding of the research transports (profiles irn, mprdma, ioi,
 * left). They extend RoCEv2 RC, but have no opcodes of their own: everything is a
 * standard RC opcode, so stock decoders read every frame, and the extensions
 * sit where a stock decoder shows them as ordinary fields or payload
 * (pcapgen/README.md, "Wire encoding of the research profiles"):
 *
 * - Data: RC RDMA WRITE First (0x06) / Middle (0x07) / Last (0x08), or Only
 *   (0x0A) for a one-packet WQE. First and Only carry the RETH header (VA of
 *   the WQE, R_Key, DMA length = WQE bytes), as in IBA. With a per-packet
 *   address (irn, mprdma) Middle and Last carry the same 16 bytes at the
 *   start of their payload: RETH layout, VA = the address of this packet's
 *   first byte, R_Key, DMA length = WQE bytes. The data follows, PMTU bytes
 *   (less in the Last).
 * - ACK and NACK: RC Acknowledge (0x11) with an AETH. BTH.PSN keeps its IBA
 *   meaning (ACK: the last PSN received in order; NAK 0x60: the next PSN
 *   expected, i.e. the cumulative PSN). The AETH's 24-bit MSN field carries a
 *   second PSN: the PSN of the data packet this ACK or NACK answers (IRN's
 *   trigger PSN, MP-RDMA's selectively acknowledged PSN). left adds nothing:
 *   its AETH MSN is the MSN, as in IBA.
 * - Paths: a frame's path is pcapgen's own (pkt.path): its UDP source port
 *   is 0xC000 + path by default, but --udp-sport may put another number on
 *   the wire (sim.h), so engines never read the path back from the port. A
 *   pinned or echoed path is a path the sender chose.
 * - ioi in-order marking: IPv4 DSCP RCX_DSCP_INORDER; sprayed packets keep the
 *   template's DSCP 26. */
#ifndef PCAPGEN_RESEARCH_WIRE_H
#define PCAPGEN_RESEARCH_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ornic/ornic.h"
#include "sim_config.h"
#include "sim.h"
#include "work_queue.h"

#define RCX_ADDR_LEN 16     /* RETH layout at the start of a Middle/Last payload */
#define RCX_DSCP_INORDER 24 /* CS3: in-order class (ioi) */

/* One data packet to send. */
typedef struct {
  const wqe *w;
  uint32_t q;   /* QP index */
  uint32_t idx; /* packet of the WQE */
  bool retx;
  bool addr; /* per-packet address in Middle / Last */
  bool ackreq;
  bool inorder;  /* DSCP RCX_DSCP_INORDER */
  unsigned path; /* or SIM_PATH_SPRAY */
} rcx_write;

/* Encodes x from the requester, its payload generated in the frame. NULL
 * after sim_fail. */
pkt *rcx_build_write(sim *s, const sim_config *cfg, const rcx_write *x);

/* The data and the address of an arriving WRITE packet. */
typedef struct {
  bool has_addr; /* First / Only, or a prefixed Middle / Last */
  ornic_reth addr;
  const uint8_t *data;
  size_t len;
  bool first, last; /* by opcode */
} rcx_data;

/* false when f is not an RC WRITE data packet or its prefix is cut short. */
bool rcx_parse_write(const ornic_frame *f, bool prefixed, rcx_data *d);

/* Sends an RC Acknowledge from the responder to QP q's requester. */
void rcx_send_ack(sim *s, const sim_config *cfg, uint32_t q, uint8_t syndrome, uint32_t psn,
                  uint32_t second, uint8_t kind, unsigned path);

#endif
