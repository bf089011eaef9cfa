/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Field, subtree and expert registration: the `ornic.*` names are a stable
 * interface, documented in dissector/README.md. Keep the two in step. */
#include "ornic_diss.h"

#include <string.h>

#include <epan/prefs.h>

ornic_hf_ids hf;
ornic_ett_ids ett;
ornic_ei_ids ei;

/* Opcode and NAK reason names come from the library, filled in at registration. */
static value_string opcode_vals[257];
static value_string nak_reason_vals[257];

static const value_string an_dir_vals[] = {
    {ORNIC_AN_DIR_AB, "A->B"}, {ORNIC_AN_DIR_BA, "B->A"}, {0, NULL}};

static const value_string an_role_vals[] = {{ORNIC_AN_ROLE_NONE, "none"},
                                            {ORNIC_AN_ROLE_REQUEST, "request"},
                                            {ORNIC_AN_ROLE_RESPONSE, "response"},
                                            {ORNIC_AN_ROLE_CNP, "CNP"},
                                            {0, NULL}};

static void fill_opcode_vals(void) {
  unsigned n = 0;
  for (unsigned op = 0; op < 256; op++) {
    const ornic_opcode_info *info = ornic_opcode_info_get((uint8_t)op);
    if (!info->name) continue;
    opcode_vals[n].value = op;
    opcode_vals[n].strptr = info->name;
    n++;
  }
  opcode_vals[n].value = 0;
  opcode_vals[n].strptr = NULL;
}

/* Every value: the library names the reserved ones too. */
static void fill_nak_reason_vals(void) {
  for (unsigned v = 0; v < 256; v++) {
    nak_reason_vals[v].value = v;
    nak_reason_vals[v].strptr = ornic_naketh_reason_name((uint8_t)v);
  }
  nak_reason_vals[256].value = 0;
  nak_reason_vals[256].strptr = NULL;
}

#define F(id, name, abbr, type, base, strings, mask, blurb)         \
  {                                                                 \
    &hf.id, { name, abbr, type, base, strings, mask, blurb, HFILL } \
  }

/* Header fields whose name is "ornic." + a libornicproto layout field name
 * (ornic/layout.h) take their bit mask from that layout at registration (the
 * 0 masks below); the tree adds them at the layout's offsets and sizes. */
static hf_register_info field_table[] = {
    /* BTH */
    F(bth, "Base Transport Header", "ornic.bth", FT_NONE, BASE_NONE, NULL, 0,
      "BTH, 12 bytes: opcode, flags, partition key, destination QP, PSN"),
    F(opcode, "OpCode", "ornic.bth.opcode", FT_UINT8, BASE_HEX, VALS(opcode_vals), 0,
      "Transport and operation (0xC0-0xDF: ORNIC)"),
    F(se, "Solicited Event", "ornic.bth.se", FT_BOOLEAN, 8, NULL, 0,
      "Solicited Event: the responder should raise an event"),
    F(m, "MigReq", "ornic.bth.m", FT_BOOLEAN, 8, NULL, 0, "Migration request (APM)"),
    F(padcnt, "Pad Count", "ornic.bth.padcnt", FT_UINT8, BASE_DEC, NULL, 0,
      "Pad bytes after the payload (0-3), to a 4-byte boundary"),
    F(tver, "Header Version", "ornic.bth.tver", FT_UINT8, BASE_DEC, NULL, 0,
      "Transport header version (0)"),
    F(pkey, "Partition Key", "ornic.bth.p_key", FT_UINT16, BASE_HEX, NULL, 0,
      "Partition the QP belongs to"),
    F(fecn, "FECN", "ornic.bth.fecn", FT_BOOLEAN, 8, NULL, 0,
      "Forward ECN (variant: the iCRC covers this byte as 0xFF)"),
    F(becn, "BECN", "ornic.bth.becn", FT_BOOLEAN, 8, NULL, 0, "Backward ECN (set in CNPs)"),
    F(resv6, "Reserved (6 bits)", "ornic.bth.reserved6", FT_UINT8, BASE_HEX, NULL, 0,
      "Reserved bits after FECN/BECN"),
    F(destqp, "Destination QP", "ornic.bth.destqp", FT_UINT24, BASE_HEX, NULL, 0,
      "QP the packet is addressed to"),
    F(ackreq, "AckReq", "ornic.bth.a", FT_BOOLEAN, 8, NULL, 0,
      "The requester asks for an acknowledgement (ORNIC: also an RTO probe)"),
    F(resv7, "Reserved (7 bits)", "ornic.bth.reserved7", FT_UINT8, BASE_HEX, NULL, 0,
      "Reserved bits after AckReq"),
    F(psn, "Packet Sequence Number", "ornic.bth.psn", FT_UINT24, BASE_DEC, NULL, 0,
      "24-bit PSN of the packet"),
    /* IBA extension headers */
    F(rdeth, "RDETH", "ornic.rdeth", FT_NONE, BASE_NONE, NULL, 0,
      "Reliable Datagram extended transport header"),
    F(rdeth_een, "EE Context", "ornic.rdeth.een", FT_UINT24, BASE_HEX, NULL, 0,
      "End-to-end context of an RD packet"),
    F(deth, "DETH", "ornic.deth", FT_NONE, BASE_NONE, NULL, 0,
      "Datagram extended transport header (UD, RD)"),
    F(deth_qkey, "Q_Key", "ornic.deth.q_key", FT_UINT32, BASE_HEX, NULL, 0,
      "Queue key checked by the destination QP"),
    F(deth_srcqp, "Source QP", "ornic.deth.srcqp", FT_UINT24, BASE_HEX, NULL, 0,
      "QP that sent the datagram"),
    F(xrceth, "XRCETH", "ornic.xrceth", FT_NONE, BASE_NONE, NULL, 0,
      "XRC extended transport header"),
    F(xrceth_resv, "Reserved", "ornic.xrceth.resv", FT_UINT8, BASE_HEX, NULL, 0,
      "Reserved byte of the XRCETH"),
    F(xrceth_xrcsrq, "XRC SRQ", "ornic.xrceth.xrcsrq", FT_UINT24, BASE_HEX, NULL, 0,
      "XRC shared receive queue of the target"),
    F(feth, "FETH", "ornic.feth", FT_NONE, BASE_NONE, NULL, 0,
      "Flush extended transport header (RDMA FLUSH)"),
    F(feth_value, "FETH value", "ornic.feth.value", FT_UINT32, BASE_HEX, NULL, 0,
      "FETH word: placement type and selectivity level"),
    F(reth, "RETH", "ornic.reth", FT_NONE, BASE_NONE, NULL, 0,
      "RDMA extended transport header: VA, R_Key, DMA length"),
    F(reth_va, "Virtual Address", "ornic.reth.va", FT_UINT64, BASE_HEX, NULL, 0,
      "Remote virtual address (ORNIC FSpot / Last with Address: the packet's own address)"),
    F(reth_rkey, "Remote Key", "ornic.reth.r_key", FT_UINT32, BASE_HEX, NULL, 0,
      "Remote key of the memory region"),
    F(reth_dmalen, "DMA Length", "ornic.reth.dmalen", FT_UINT32, BASE_DEC, NULL, 0,
      "Bytes of the whole WRITE or READ"),
    F(offeth, "OFFETH", "ornic.offeth", FT_NONE, BASE_NONE, NULL, 0,
      "ORNIC offset extended transport header: where this payload starts within the WQE"),
    F(offeth_offset, "Offset in WQE", "ornic.offeth.offset", FT_UINT32, BASE_DEC, NULL, 0,
      "Byte offset of this packet in its WQE: Start_Addr = VA - Offset"),
    F(atomiceth, "AtomicETH", "ornic.atomiceth", FT_NONE, BASE_NONE, NULL, 0,
      "Atomic extended transport header"),
    F(atomiceth_va, "Virtual Address", "ornic.atomiceth.va", FT_UINT64, BASE_HEX, NULL, 0,
      "Remote virtual address of the 8-byte operand"),
    F(atomiceth_rkey, "Remote Key", "ornic.atomiceth.r_key", FT_UINT32, BASE_HEX, NULL, 0,
      "Remote key of the memory region"),
    F(atomiceth_swap, "Swap (or Add) Data", "ornic.atomiceth.swap_add", FT_UINT64, BASE_HEX, NULL,
      0, "Swap value (CmpSwap) or addend (FetchAdd)"),
    F(atomiceth_cmp, "Compare Data", "ornic.atomiceth.compare", FT_UINT64, BASE_HEX, NULL, 0,
      "Compare value (CmpSwap)"),
    F(aeth, "AETH", "ornic.aeth", FT_NONE, BASE_NONE, NULL, 0,
      "ACK extended transport header: syndrome and MSN"),
    F(aeth_syndrome, "Syndrome", "ornic.aeth.syndrome", FT_UINT8, BASE_HEX, NULL, 0,
      "ACK, RNR NAK or NAK code with credits, timer or error"),
    F(aeth_msn, "Message Sequence Number", "ornic.aeth.msn", FT_UINT24, BASE_DEC, NULL, 0,
      "Message sequence number: messages the responder completed"),
    F(atomicacketh, "AtomicAckETH", "ornic.atomicacketh", FT_NONE, BASE_NONE, NULL, 0,
      "Atomic ACK extended transport header"),
    F(atomicacketh_orig, "Original Remote Data", "ornic.atomicacketh.orig_rdata", FT_UINT64,
      BASE_HEX, NULL, 0, "The remote operand before the atomic operation"),
    /* ORNIC headers */
    F(oacketh, "OACKETH", "ornic.oacketh", FT_NONE, BASE_NONE, NULL, 0,
      "ORNIC ACK extended transport header: flags and the packets this ACK stands for"),
    F(oack_flags, "Flags", "ornic.oacketh.flags", FT_UINT8, BASE_HEX, NULL, 0,
      "ADDR_CACHED, WQE_DONE and reserved bits"),
    F(oack_addr_cached, "ADDR_CACHED", "ornic.oacketh.addr_cached", FT_BOOLEAN, 8, NULL, 0,
      "The responder holds Start_Addr of the WQE in flight"),
    F(oack_wqe_done, "WQE_DONE", "ornic.oacketh.wqe_done", FT_BOOLEAN, 8, NULL, 0,
      "The cumulative PSN completes the WQE counted by the AETH MSN"),
    F(oack_flags_resv, "Reserved flags", "ornic.oacketh.flags_resv", FT_UINT8, BASE_HEX, NULL, 0,
      "Reserved flag bits (zero)"),
    F(oack_resv, "Reserved", "ornic.oacketh.resv", FT_UINT8, BASE_HEX, NULL, 0,
      "Reserved byte (zero)"),
    F(oack_count, "Count", "ornic.oacketh.count", FT_UINT16, BASE_DEC, NULL, 0,
      "New request packets accepted since the previous ACK"),
    F(naketh, "NAKETH", "ornic.naketh", FT_NONE, BASE_NONE, NULL, 0,
      "ORNIC NAK extended transport header: reason, trigger, loss limit, bitmap"),
    F(nak_reason, "Reason", "ornic.naketh.reason", FT_UINT8, BASE_DEC, VALS(nak_reason_vals), 0,
      "Why the responder sends the NAK"),
    F(nak_trigger, "Trigger PSN", "ornic.naketh.trigger_psn", FT_UINT24, BASE_DEC, NULL, 0,
      "PSN whose arrival (or timeout) triggered the NAK; informative"),
    F(nak_nblocks, "Bitmap blocks", "ornic.naketh.nblocks", FT_UINT8, BASE_DEC, NULL, 0,
      "16-bit bitmap blocks that follow"),
    F(nak_base, "Base PSN", "ornic.naketh.base_psn", FT_UINT24, BASE_DEC, NULL, 0,
      "PSN of bit 0 of block 0: the first missing PSN"),
    F(nak_resv, "Reserved", "ornic.naketh.resv", FT_UINT8, BASE_HEX, NULL, 0,
      "Reserved byte (zero)"),
    F(nak_limit, "Limit PSN", "ornic.naketh.limit_psn", FT_UINT24, BASE_DEC, NULL, 0,
      "Loss limit: the NAK declares lost Base and the clear bits before this PSN"),
    F(nak_block, "Block", "ornic.naketh.block", FT_UINT16, BASE_HEX, NULL, 0,
      "16 PSNs, a set bit for each one received"),
    F(nak_missing_psn, "Missing PSN", "ornic.nak.missing_psn", FT_UINT24, BASE_DEC, NULL, 0,
      "A PSN this NAK declares lost: the requester retransmits it"),
    F(nak_received_psn, "Received PSN", "ornic.nak.received_psn", FT_UINT24, BASE_DEC, NULL, 0,
      "A PSN whose bitmap bit is set"),
    F(nak_missing_count, "Missing PSNs", "ornic.nak.missing_count", FT_UINT32, BASE_DEC, NULL, 0,
      "Size of the lost set: PSNs the requester retransmits"),
    F(nak_received_count, "Received PSNs", "ornic.nak.received_count", FT_UINT32, BASE_DEC, NULL, 0,
      "Set bits of the bitmap (bit 0 of block 0 excluded)"),
    F(immdt, "Immediate Data", "ornic.immdt", FT_UINT32, BASE_HEX, NULL, 0,
      "Immediate data delivered with the completion"),
    F(ieth_rkey, "Invalidate R_Key", "ornic.ieth.r_key", FT_UINT32, BASE_HEX, NULL, 0,
      "R_Key the responder invalidates (SEND with Invalidate)"),
    F(cnp, "CNP", "ornic.cnp", FT_NONE, BASE_NONE, NULL, 0, "RoCEv2 congestion notification"),
    F(cnp_resv, "Reserved", "ornic.cnp.resv", FT_BYTES, BASE_NONE, NULL, 0,
      "16 reserved bytes of the CNP"),
    F(payload, "Payload", "ornic.payload", FT_BYTES, BASE_NONE, NULL, 0,
      "Payload bytes, without pad"),
    F(payload_len, "Payload length", "ornic.payload_len", FT_UINT32, BASE_DEC, NULL, 0,
      "Payload bytes per the IP/UDP lengths, without pad"),
    F(pad, "Pad", "ornic.pad", FT_BYTES, BASE_NONE, NULL, 0, "Pad bytes counted by PadCnt"),
    F(icrc, "Invariant CRC", "ornic.invariant.crc", FT_UINT32, BASE_HEX, NULL, 0,
      "The 4 iCRC bytes in wire order, as the stock field infiniband.invariant.crc shows them"),
    F(icrc_crc32, "CRC-32 value", "ornic.invariant.crc.crc32", FT_UINT32, BASE_HEX, NULL, 0,
      "The iCRC as a CRC-32 value: its wire bytes are this number least significant byte first"),
    F(icrc_status, "iCRC status", "ornic.invariant.crc.status", FT_UINT8, BASE_NONE,
      VALS(proto_checksum_vals), 0,
      "Good, Bad, or Unverified (IP header not reachable, capture cut)"),
    F(icrc_expected, "Expected iCRC", "ornic.invariant.crc.expected", FT_UINT32, BASE_HEX, NULL, 0,
      "The iCRC the library computes over the invariant fields, in wire order as "
      "ornic.invariant.crc"),
    F(decode_error, "Decode error", "ornic.decode_error", FT_STRING, BASE_NONE, NULL, 0,
      "Why libornicproto did not decode the frame completely (for opcodes the stock InfiniBand "
      "dissector decodes, no expert info: its layout may differ, e.g. ConnectX DC in the RD "
      "block)"),
    /* analysis */
    F(an, "ORNIC analysis", "ornic.analysis", FT_NONE, BASE_NONE, NULL, 0,
      "libornicproto's passive conversation analysis of this packet"),
    F(an_conv, "Conversation", "ornic.analysis.conv", FT_UINT32, BASE_DEC, NULL, 0,
      "Id of the QP pair conversation, from 1"),
    F(an_dir, "Direction", "ornic.analysis.dir", FT_UINT8, BASE_DEC, VALS(an_dir_vals), 0,
      "The PSN space of the packet: requests of host A (the conversation's first source) and "
      "their responses, or requests of host B and theirs"),
    F(an_role, "Role", "ornic.analysis.role", FT_UINT8, BASE_DEC, VALS(an_role_vals), 0,
      "Request, response (ACK, NAK, READ response, atomic ACK) or CNP"),
    F(an_resp_qp, "Responder QP", "ornic.analysis.resp_qp", FT_UINT24, BASE_HEX, NULL, 0,
      "QP of the responder of this direction, once known"),
    F(an_req_qp, "Requester QP", "ornic.analysis.req_qp", FT_UINT24, BASE_HEX, NULL, 0,
      "QP of the requester of this direction, once known (no request carries it: learnt when "
      "a response fits the requests)"),
    F(an_pmtu, "PMTU", "ornic.analysis.pmtu", FT_UINT32, BASE_DEC, NULL, 0,
      "From the preference, or learnt from full-size packets"),
    F(an_addr, "Implied address", "ornic.analysis.addr", FT_UINT64, BASE_HEX, NULL, 0,
      "Start_Addr + (PSN - Start_PSN) * PMTU; for READ responses the remote source address"),
    F(an_addr_unknown, "Address not known", "ornic.analysis.addr_unknown", FT_NONE, BASE_NONE, NULL,
      0, "The packet has an implied address, but its WQE started before the capture"),
    F(an_pmtu_unknown, "PMTU not known", "ornic.analysis.pmtu_unknown", FT_NONE, BASE_NONE, NULL, 0,
      "The implied address needs the PMTU, not known yet (set the ornic.pmtu preference)"),
    F(an_wqe, "WQE", "ornic.analysis.wqe", FT_UINT32, BASE_DEC, NULL, 0,
      "WQE (message) number in this direction, from 1"),
    F(an_new_wqe, "New WQE", "ornic.analysis.new_wqe", FT_NONE, BASE_NONE, NULL, 0,
      "This packet revealed a WQE not seen before"),
    F(an_wqe_start_psn, "WQE Start_PSN", "ornic.analysis.wqe_start_psn", FT_UINT24, BASE_DEC, NULL,
      0, "First PSN of the WQE"),
    F(an_wqe_last_psn, "WQE Last_PSN", "ornic.analysis.wqe_last_psn", FT_UINT24, BASE_DEC, NULL, 0,
      "Last PSN of the WQE, when its length and the PMTU are known"),
    F(an_wqe_pkt, "Packet in WQE", "ornic.analysis.wqe_pkt", FT_UINT32, BASE_DEC, NULL, 0,
      "PSN - Start_PSN"),
    F(an_wqe_npkts, "Packets in WQE", "ornic.analysis.wqe_npkts", FT_UINT32, BASE_DEC, NULL, 0,
      "DMA length / PMTU, rounded up"),
    F(an_wqe_start_addr, "WQE Start_Addr", "ornic.analysis.wqe_start_addr", FT_UINT64, BASE_HEX,
      NULL, 0, "Address of the WQE's first byte (READ: remote source)"),
    F(an_wqe_len, "WQE length", "ornic.analysis.wqe_len", FT_UINT32, BASE_DEC, NULL, 0,
      "DMA length of the WQE"),
    F(an_wqe_frame, "WQE address learnt in", "ornic.analysis.wqe_frame", FT_FRAMENUM, BASE_NONE,
      NULL, 0, "The frame whose RETH revealed the WQE"),
    F(an_read_frame, "READ request in", "ornic.analysis.read_frame", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, "The READ request this response or retry belongs to"),
    F(an_read_retry, "READ retry", "ornic.analysis.read_retry", FT_NONE, BASE_NONE, NULL, 0,
      "A READ request inside an earlier READ's range: not a new WQE"),
    F(an_hpsn, "Highest PSN before", "ornic.analysis.hpsn", FT_UINT24, BASE_DEC, NULL, 0,
      "Highest PSN of this direction seen before this packet"),
    F(an_epsn, "Expected PSN", "ornic.analysis.epsn", FT_UINT24, BASE_DEC, NULL, 0,
      "First PSN not yet seen, after this packet"),
    F(an_ooo, "Out of order", "ornic.analysis.ooo", FT_NONE, BASE_NONE, NULL, 0,
      "A first arrival below the highest PSN seen (ORNIC's normal operation)"),
    F(an_psn_relative, "Relative PSN", "ornic.analysis.psn_relative", FT_INT32, BASE_DEC, NULL, 0,
      "PSN minus the first PSN seen in this conversation direction (24-bit, signed: a PSN "
      "sent before that first one is negative); preference ornic.relative_psn"),
    F(an_ooo_distance, "OOO distance", "ornic.analysis.ooo_distance", FT_UINT32, BASE_DEC, NULL, 0,
      "Highest PSN seen before minus this PSN, on an out-of-order arrival"),
    F(an_repeat_distance, "Repeat distance", "ornic.analysis.repeat_distance", FT_UINT32, BASE_DEC,
      NULL, 0, "Highest PSN seen before minus this PSN, on a duplicate or retransmission"),
    F(an_otd_exceeded, "OTD exceeded", "ornic.analysis.otd_exceeded", FT_NONE, BASE_NONE, NULL, 0,
      "This arrival is more than OTD past the expected PSN: the responder should now declare the "
      "hole lost (NAK reason 1)"),
    F(an_hole_first, "Hole first PSN", "ornic.analysis.hole_first", FT_UINT24, BASE_DEC, NULL, 0,
      "First missing PSN of the hole (the expected PSN)"),
    F(an_hole_count, "Hole PSNs", "ornic.analysis.hole_count", FT_UINT32, BASE_DEC, NULL, 0,
      "PSNs missing between the expected PSN and this one"),
    F(an_prev_not_captured, "Previous PSN not captured", "ornic.analysis.prev_not_captured",
      FT_NONE, BASE_NONE, NULL, 0,
      "A request past PSNs of its direction the capture never saw, on traffic that is not "
      "reordered: lost before the capture point or dropped by the capture (hole_first, "
      "hole_count; docs/PROTOCOL.md 8.5)"),
    F(an_in_flight, "PSNs in flight", "ornic.analysis.in_flight", FT_UINT32, BASE_DEC, NULL, 0,
      "Request PSNs of this direction sent and not yet acknowledged, as the capture shows them "
      "after this packet (docs/PROTOCOL.md 8.9)"),
    F(an_bytes_in_flight, "Bytes in flight", "ornic.analysis.bytes_in_flight", FT_UINT64, BASE_DEC,
      NULL, 0, "PSNs in flight times the PMTU (at most: a last packet may be short)"),
    F(an_flags, "Analysis flags", "ornic.analysis.flags", FT_NONE, BASE_NONE, NULL, 0,
      "This packet has a problem: retransmission, duplicate, loss, NAK, acknowledged PSNs the "
      "capture lacks, or PSNs before it the capture lacks"),
    F(an_dup, "Duplicate", "ornic.analysis.duplicate", FT_NONE, BASE_NONE, NULL, 0,
      "A repeat of a PSN nobody asked for"),
    F(an_first_frame, "First copy in", "ornic.analysis.first_frame", FT_FRAMENUM, BASE_NONE, NULL,
      0, "The frame of the first copy of this PSN"),
    F(an_retrans, "Retransmission", "ornic.analysis.retransmission", FT_NONE, BASE_NONE, NULL, 0,
      "A repeat the sender was asked for (NAK, READ retry) or timed out on"),
    F(an_nak_frame, "Requested in", "ornic.analysis.nak_frame", FT_FRAMENUM, BASE_NONE, NULL, 0,
      "The NAK or READ retry that asked for this retransmission (none: a timeout)"),
    F(an_probe, "RTO probe", "ornic.analysis.rto_probe", FT_NONE, BASE_NONE, NULL, 0,
      "ORNIC request with A = 1 sent again on a timeout"),
    F(an_loss, "Loss", "ornic.analysis.loss", FT_NONE, BASE_NONE, NULL, 0,
      "This packet proves PSNs lost: a NAK, or a retransmission whose original the capture saw "
      "nowhere"),
    F(an_loss_first_psn, "First lost PSN", "ornic.analysis.loss_first_psn", FT_UINT24, BASE_DEC,
      NULL, 0, "First of the PSNs this packet proves lost"),
    F(an_loss_count, "Lost PSNs", "ornic.analysis.loss_count", FT_UINT32, BASE_DEC, NULL, 0,
      "How many PSNs this packet proves lost"),
    F(an_nak, "NAK", "ornic.analysis.nak", FT_NONE, BASE_NONE, NULL, 0,
      "A negative acknowledgement: PSN sequence error, RNR or fatal"),
    F(an_nak_lost, "PSNs declared lost", "ornic.analysis.nak_lost", FT_UINT32, BASE_DEC, NULL, 0,
      "Size of an ORNIC NAK's lost set: Base and the clear bits before its Limit PSN"),
    F(an_ack_stale, "Stale acknowledgement", "ornic.analysis.ack_stale", FT_NONE, BASE_NONE, NULL,
      0,
      "An ACK whose PSN is before the cumulative PSN already acknowledged: a reordered "
      "ACK, which the requester ignores"),
    F(an_not_captured, "Not captured", "ornic.analysis.not_captured", FT_NONE, BASE_NONE, NULL, 0,
      "This ACK covers PSNs the capture never saw: delivered, but missing from the file (a "
      "capture artefact, not a network loss)"),
    F(an_not_captured_first, "First PSN not captured", "ornic.analysis.not_captured_first",
      FT_UINT24, BASE_DEC, NULL, 0, "First of the acknowledged PSNs missing from the capture"),
    F(an_not_captured_count, "PSNs not captured", "ornic.analysis.not_captured_count", FT_UINT32,
      BASE_DEC, NULL, 0, "How many acknowledged PSNs are missing from the capture"),
    F(an_acked_in, "Acknowledged in", "ornic.analysis.acked_in", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0,
      "The first ACK/NAK whose cumulative PSN covers this packet (known after the first pass)"),
    F(an_ack_prev, "Previous cumulative PSN", "ornic.analysis.ack_prev", FT_UINT24, BASE_DEC, NULL,
      0, "The cumulative PSN acknowledged before this ACK"),
    F(an_ack_newly, "Newly acknowledged PSNs", "ornic.analysis.ack_newly", FT_UINT32, BASE_DEC,
      NULL, 0, "PSNs this ACK acknowledges for the first time"),
    F(an_ack_frame_of, "Newest packet acknowledged", "ornic.analysis.ack_frame_of", FT_FRAMENUM,
      BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0,
      "Frame of the newest packet this ACK newly covers"),
    F(an_msn_delta, "MSN advance", "ornic.analysis.msn_delta", FT_UINT32, BASE_DEC, NULL, 0,
      "Messages completed since the previous ACK (AETH MSN difference)"),
    F(an_wqe_completed, "Completes WQE", "ornic.analysis.wqe_completed", FT_UINT32, BASE_DEC, NULL,
      0, "The WQE this ACK reports complete"),
    F(an_ecn, "Congestion experienced", "ornic.analysis.ecn", FT_NONE, BASE_NONE, NULL, 0,
      "IP ECN CE, or BTH FECN/BECN set"),
    F(an_before_capture, "Before the capture", "ornic.analysis.before_capture", FT_NONE, BASE_NONE,
      NULL, 0, "About PSNs sent before the capture started: not judged"),
    F(an_untracked, "Not tracked", "ornic.analysis.untracked", FT_NONE, BASE_NONE, NULL, 0,
      "A new conversation the analysis has no room for (the conversation table is full, or "
      "ornic.analysis.over_budget): this packet is not analysed"),
    /* The engine's limits (ornic/analysis.h "Memory" and "Work"; docs/RELIABILITY.md
     * "Hostile captures"). */
    F(an_over_budget, "Over memory budget", "ornic.analysis.over_budget", FT_NONE, BASE_NONE, NULL,
      0,
      "The analysis memory budget (preference ornic.max_memory) is reached: this packet's new "
      "conversation is not analysed"),
    F(an_work_limit, "Work limit", "ornic.analysis.work_limit", FT_NONE, BASE_NONE, NULL, 0,
      "This direction has cost more work than its packets earn (a hostile capture): its PSN "
      "window shrank to the smallest, and PSNs further back are not judged until its packets "
      "have earned their allowance back"),
    F(an_acked_before_seen, "Stored after its ACK", "ornic.analysis.acked_before_seen", FT_NONE,
      BASE_NONE, NULL, 0,
      "The capture stored this request after the ACK that covers it (a host capture's late "
      "transmit timestamps, docs/PROTOCOL.md 8.5): a capture-quality note, not a gap"),
    F(an_cm, "RDMA-CM", "ornic.analysis.cm", FT_NONE, BASE_NONE, NULL, 0,
      "An RDMA-CM REQ or REP the analysis read: a REP sets up its QP pair, with each "
      "direction's first PSN and the PMTU (docs/PROTOCOL.md 8.10)"),
    F(an_paired, "QPs paired", "ornic.analysis.paired", FT_NONE, BASE_NONE, NULL, 0,
      "This packet paired the conversation's two QPs (a response fitted the requests)"),
    /* Timing (PROTOCOL.md 8.8), as tcp.time_delta and tcp.analysis.ack_rtt. */
    F(an_time_delta, "Time since previous packet in this conversation", "ornic.analysis.time_delta",
      FT_RELATIVE_TIME, BASE_NONE, NULL, 0,
      "Time since the previous packet of this QP pair, either direction"),
    F(an_ack_rtt, "ACK round-trip time", "ornic.analysis.ack_rtt", FT_RELATIVE_TIME, BASE_NONE,
      NULL, 0, "From the first copy of the newest packet this ACK newly covers to this ACK"),
    F(an_wqe_time, "WQE completion time", "ornic.analysis.wqe_time", FT_RELATIVE_TIME, BASE_NONE,
      NULL, 0, "From the completed WQE's first packet seen to this ACK that completes it"),
    F(an_read_time, "READ latency", "ornic.analysis.read_time", FT_RELATIVE_TIME, BASE_NONE, NULL,
      0, "From the READ request to this response, the last of the READ"),
};
#undef F

#define E(id, abbr, group, sev, text)           \
  {                                             \
    &ei.id, { abbr, group, sev, text, EXPFILL } \
  }

/* Summaries are constant per kind (the numbers are in fields), so that
 * `-z expert` groups them. As TCP's, every packet that carries an analysis
 * flag carries its expert info, so `-z expert` counts equal the filters'.
 * Network problems warn; capture artefacts are notes; OOO is ORNIC's normal
 * operation; a bad iCRC is an error, as stock's bad checksums are. */
static ei_register_info expert_table[] = {
    E(icrc_bad, "ornic.invariant.crc.bad", PI_CHECKSUM, PI_ERROR, "Bad iCRC"),
    E(malformed, "ornic.malformed", PI_MALFORMED, PI_ERROR, "Malformed RoCE packet"),
    /* A capture artefact, never Malformed: the bytes that are there are right. */
    E(truncated, "ornic.truncated", PI_UNDECODED, PI_NOTE, "Packet cut short by the capture"),
    E(icrc_not_captured, "ornic.invariant.crc.not_captured", PI_CHECKSUM, PI_NOTE,
      "iCRC not captured"),
    E(unknown_opcode, "ornic.unknown_opcode", PI_PROTOCOL, PI_WARN, "Opcode without a layout"),
    E(lint, "ornic.lint", PI_PROTOCOL, PI_WARN, "Protocol violation"),
    E(addr_unknown, "ornic.analysis.addr_unknown.expert", PI_SEQUENCE, PI_NOTE,
      "Implied address not known: the WQE started before the capture"),
    E(ooo, "ornic.analysis.ooo.expert", PI_SEQUENCE, PI_CHAT, "Out-of-order arrival"),
    E(dup, "ornic.analysis.duplicate.expert", PI_SEQUENCE, PI_WARN, "Duplicate PSN"),
    E(retrans, "ornic.analysis.retransmission.expert", PI_SEQUENCE, PI_WARN, "Retransmission"),
    E(loss, "ornic.analysis.loss.expert", PI_SEQUENCE, PI_WARN, "Loss: PSNs lost in the network"),
    E(nak, "ornic.nak.expert", PI_SEQUENCE, PI_WARN, "NAK"),
    E(ecn, "ornic.ecn", PI_SEQUENCE, PI_CHAT, "Congestion notification"),
    E(ack_stale, "ornic.analysis.ack_stale.expert", PI_SEQUENCE, PI_NOTE,
      "Stale ACK: cumulative PSN before the previous one"),
    E(not_captured, "ornic.analysis.not_captured.expert", PI_SEQUENCE, PI_NOTE,
      "Acknowledged PSNs not captured (capture artefact)"),
    E(before_capture, "ornic.analysis.before_capture.expert", PI_SEQUENCE, PI_NOTE,
      "Conversation started before the capture: earlier PSNs not judged"),
    E(no_ip, "ornic.invariant.crc.no_ip", PI_UNDECODED, PI_NOTE,
      "iCRC not verified: IP header not reachable, or IP and UDP lengths disagree"),
    E(pmtu_unknown, "ornic.analysis.pmtu_unknown.expert", PI_SEQUENCE, PI_NOTE,
      "PMTU not known yet (set the ornic.pmtu preference or wait for a full packet)"),
    E(wqe_done, "ornic.analysis.wqe_done", PI_SEQUENCE, PI_CHAT, "WQE completed"),
    E(otd_exceeded, "ornic.analysis.otd_exceeded.expert", PI_SEQUENCE, PI_NOTE,
      "OTD exceeded: the responder should declare the hole lost"),
    /* The two reasons a conversation is not tracked: one note per capture each, on the
     * first packet it concerns (a per-packet note would repeat one fact thousands of
     * times); ornic.analysis.untracked and .over_budget mark every packet. The text
     * shown names the limit (ornic_tree.c). */
    E(over_budget, "ornic.analysis.over_budget.expert", PI_SEQUENCE, PI_NOTE,
      "Analysis memory budget reached: new conversations are not analysed (preference "
      "ornic.max_memory)"),
    E(table_full, "ornic.analysis.table_full.expert", PI_SEQUENCE, PI_NOTE,
      "Conversation table full: new conversations are not analysed"),
    E(work_limit, "ornic.analysis.work_limit.expert", PI_SEQUENCE, PI_NOTE,
      "Analysis work limit: this direction's PSN window shrank; older PSNs are not judged"),
    E(acked_before_seen, "ornic.analysis.acked_before_seen.expert", PI_SEQUENCE, PI_NOTE,
      "Request stored after the ACK that covers it (late transmit timestamp)"),
    E(prev_not_captured, "ornic.analysis.prev_not_captured.expert", PI_SEQUENCE, PI_WARN,
      "Previous PSN not captured (lost before the capture point, or dropped by the capture)"),
};
#undef E

static gint *const ett_table[] = {
    &ett.root,         &ett.bth,  &ett.hdr, &ett.nak_blocks, &ett.nak_block, &ett.nak_missing,
    &ett.nak_received, &ett.icrc, &ett.an,  &ett.an_flags,   &ett.field_bits};

static const enum_val_t pmtu_enum[] = {{"learn", "Learn from traffic", 0},
                                       {"256", "256", 256},
                                       {"512", "512", 512},
                                       {"1024", "1024", 1024},
                                       {"2048", "2048", 2048},
                                       {"4096", "4096", 4096},
                                       {NULL, NULL, 0}};

gint ornic_pref_pmtu = 0;
guint ornic_pref_otd = 64;
ornic_ws_bool ornic_pref_analyze = TRUE;
ornic_ws_bool ornic_pref_relative_psn = TRUE;
guint ornic_pref_max_memory = (guint)(ORNIC_AN_MAX_MEMORY >> 20);
guint ornic_pref_max_convs = ORNIC_AN_DEFAULT_MAX_CONVS;

/* ---- the headers' layouts ------------------------------------------------------ */

/* Each header of the tree, and the item its fields hang under (ImmDt and
 * IETH: none, their one field goes in the ORNIC tree). */
static const struct {
  guint16 bit; /* 0: BTH */
  const int *hf_hdr;
} view_hdrs[] = {
    {0, &hf.bth},
    {ORNIC_HDR_RDETH, &hf.rdeth},
    {ORNIC_HDR_DETH, &hf.deth},
    {ORNIC_HDR_XRCETH, &hf.xrceth},
    {ORNIC_HDR_FETH, &hf.feth},
    {ORNIC_HDR_RETH, &hf.reth},
    {ORNIC_HDR_OFFETH, &hf.offeth},
    {ORNIC_HDR_ATOMICETH, &hf.atomiceth},
    {ORNIC_HDR_AETH, &hf.aeth},
    {ORNIC_HDR_ATOMICACKETH, &hf.atomicacketh},
    {ORNIC_HDR_OACKETH, &hf.oacketh},
    {ORNIC_HDR_NAKETH, &hf.naketh},
    {ORNIC_HDR_IMMDT, NULL},
    {ORNIC_HDR_IETH, NULL},
    {ORNIC_HDR_CNP, &hf.cnp},
};

static ornic_hdr_view views[array_length(view_hdrs)];
const ornic_field_layout *ornic_fl_aeth_syndrome, *ornic_fl_nak_base;

const ornic_hdr_view *ornic_view(guint16 hdr_bit) {
  if (hdr_bit == 0) return &views[0];
  if (hdr_bit & (hdr_bit - 1u) || hdr_bit >= 1u << ORNIC_HDR_COUNT) return NULL;
  return &views[1 + (unsigned)__builtin_ctz(hdr_bit)];
}

/* Layout fields whose filter name follows stock's infiniband.bth.* name for
 * the same bits (a user filtering both protocols types one spelling), and
 * ImmDt's one field, which has the header's name. */
static const struct {
  const char *layout, *filter;
} renamed[] = {{"bth.pkey", "ornic.bth.p_key"},
               {"bth.resv6", "ornic.bth.reserved6"},
               {"bth.resv7", "ornic.bth.reserved7"},
               {"immdt.data", "ornic.immdt"}};

/* The field_table entry shown for a layout field: "ornic." + its name, or
 * its renamed[] name. -1 for a field not shown. */
static int field_index(const char *layout_name) {
  char filter[80];
  g_snprintf(filter, sizeof filter, "ornic.%s", layout_name);
  for (size_t i = 0; i < array_length(renamed); i++)
    if (!strcmp(layout_name, renamed[i].layout))
      g_strlcpy(filter, renamed[i].filter, sizeof filter);
  for (size_t i = 0; i < array_length(field_table); i++)
    if (!strcmp(field_table[i].hfinfo.abbrev, filter)) return (int)i;
  return -1;
}

/* The layout and the hf type must describe the same bytes: a mismatch is a
 * programming error, found when the plugin loads. */
static void check_type(const ornic_field_layout *fl, const header_field_info *h) {
  unsigned want = 0;
  switch (h->type) {
  case FT_BOOLEAN: want = (unsigned)h->display / 8; break;
  case FT_UINT8: want = 1; break;
  case FT_UINT16: want = 2; break;
  case FT_UINT24: want = 3; break;
  case FT_UINT32: want = 4; break;
  case FT_UINT64: want = 8; break;
  case FT_BYTES: want = fl->size > 8 ? fl->size : 0; break;
  default: break;
  }
  if (want != fl->size)
    g_error("ORNIC plugin: %s (%u bytes in libornicproto's layout) is registered as %s", h->abbrev,
            fl->size, ftype_name(h->type));
}

/* Before the fields are registered: the view of every header, each field's
 * field_table index, and the bit masks from the layout. */
static void layout_views(void) {
  for (size_t k = 0; k < array_length(view_hdrs); k++) {
    ornic_hdr_view *v = &views[k];
    v->hf_hdr = view_hdrs[k].hf_hdr;
    v->fields = view_hdrs[k].bit ? ornic_hdr_layout(view_hdrs[k].bit, &v->nfields)
                                 : ornic_bth_layout(&v->nfields);
    if (!v->fields || v->nfields > ORNIC_VIEW_MAX_FIELDS)
      g_error("ORNIC plugin: no usable layout for header 0x%x", view_hdrs[k].bit);
    for (size_t i = 0; i < v->nfields; i++) {
      const ornic_field_layout *fl = &v->fields[i];
      int j = field_index(fl->name);
      v->hf[i] = j;
      if (j < 0) continue;
      header_field_info *h = &field_table[j].hfinfo;
      check_type(fl, h);
      h->bitmask = fl->size <= 8 && fl->bits < 8u * fl->size ? fl->mask : 0;
      if (!strcmp(fl->name, "aeth.syndrome")) ornic_fl_aeth_syndrome = fl;
      if (!strcmp(fl->name, "naketh.base_psn")) ornic_fl_nak_base = fl;
    }
  }
  if (!ornic_fl_aeth_syndrome || !ornic_fl_nak_base)
    g_error("ORNIC plugin: libornicproto's layout lacks aeth.syndrome or naketh.base_psn");
}

/* After: field_table indexes become hf ids. */
static void resolve_views(void) {
  for (size_t k = 0; k < array_length(views); k++)
    for (size_t i = 0; i < views[k].nfields; i++)
      if (views[k].hf[i] >= 0) views[k].hf[i] = *field_table[views[k].hf[i]].p_id;
}

void ornic_register_fields(void (*prefs_apply)(void)) {
  fill_opcode_vals();
  fill_nak_reason_vals();
  layout_views();
  proto_register_field_array(proto_ornic, field_table, array_length(field_table));
  resolve_views();
  for (size_t i = 0; i < array_length(ett_table); i++) *ett_table[i] = -1;
  proto_register_subtree_array((gint **)ett_table, array_length(ett_table));
  for (size_t i = 0; i < array_length(expert_table); i++) {
    expert_field init = EI_INIT;
    *expert_table[i].ids = init;
  }
  expert_module_t *em = expert_register_protocol(proto_ornic);
  expert_register_field_array(em, expert_table, array_length(expert_table));

  module_t *mod = prefs_register_protocol(proto_ornic, prefs_apply);
  prefs_register_enum_preference(
      mod, "pmtu", "PMTU",
      "Path MTU of every QP; 'learn' takes it from the first "
      "full-size packet of each conversation (FSpot, Spot, READ Response, RC "
      "First/Middle)",
      &ornic_pref_pmtu, pmtu_enum, FALSE);
  prefs_register_uint_preference(
      mod, "otd", "OTD (packets)",
      "OOO Tolerance Distance, for the analysis: an arrival more than OTD "
      "PSNs past the first missing one is flagged OTD exceeded. "
      "A NAK's missing PSNs come from its Limit PSN",
      10, &ornic_pref_otd);
  prefs_register_bool_preference(
      mod, "analyze", "Analyze conversations",
      "Run the conversation analysis (OOO distance, retransmissions, losses, NAKs, WQEs, "
      "timing, statistics), as tcp.analyze_sequence_numbers; off saves its first-pass "
      "cost and memory. Headers and the iCRC are decoded either way",
      &ornic_pref_analyze);
  prefs_register_bool_preference(
      mod, "relative_psn", "Relative PSNs",
      "Show each packet's PSN relative to the first PSN seen in its conversation direction "
      "(ornic.analysis.psn_relative), beside the absolute BTH PSN, as TCP's relative "
      "sequence numbers; usable in columns and I/O graphs",
      &ornic_pref_relative_psn);
  prefs_register_uint_preference(
      mod, "max_memory", "Analysis memory budget (MiB)",
      "Memory the conversation analysis may take for its conversations and PSN windows "
      "(0: no limit). When it is reached, PSN windows stop growing and new conversations "
      "are not analysed: their packets are marked ornic.analysis.untracked and "
      "ornic.analysis.over_budget, and one expert note says so; conversations already "
      "tracked are analysed as before. The plugin's per-packet records (a few bytes per "
      "packet) are not counted",
      10, &ornic_pref_max_memory);
  prefs_register_uint_preference(
      mod, "max_conversations", "Analysis conversation table (conversations)",
      "Conversations (QP pairs) the conversation analysis tracks (0: the default, 65536). "
      "Packets of further conversations are not analysed: they are marked "
      "ornic.analysis.untracked, and one expert note says the table is full; ornic-decode's "
      "--max-conversations",
      10, &ornic_pref_max_convs);
}
