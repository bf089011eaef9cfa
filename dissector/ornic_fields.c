/* Field, subtree and expert registration: the `ornic.*` names are a stable
 * interface, documented in dissector/README.md. Keep the two in step. */
#include "ornic_diss.h"

#include <epan/prefs.h>

ornic_hf_ids hf;
ornic_ett_ids ett;
ornic_ei_ids ei;

/* Opcode names come from the library's table, filled in at registration. */
static value_string opcode_vals[257];

static const value_string nak_reason_vals[] = {
    {ORNIC_NAK_OTD_EXCEEDED, "OTD exceeded"},
    {ORNIC_NAK_TIMEOUT, "timeout"},
    {ORNIC_NAK_LAST_INCOMPLETE, "Last seen, WQE incomplete"},
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

#define F(id, name, abbr, type, base, strings, mask, blurb) \
  {&hf.id, {name, abbr, type, base, strings, mask, blurb, HFILL}}

static hf_register_info field_table[] = {
    /* BTH */
    F(bth, "Base Transport Header", "ornic.bth", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(opcode, "OpCode", "ornic.bth.opcode", FT_UINT8, BASE_HEX, VALS(opcode_vals), 0, NULL),
    F(se, "Solicited Event", "ornic.bth.se", FT_BOOLEAN, 8, NULL, 0x80, NULL),
    F(m, "MigReq", "ornic.bth.m", FT_BOOLEAN, 8, NULL, 0x40, NULL),
    F(padcnt, "Pad Count", "ornic.bth.padcnt", FT_UINT8, BASE_DEC, NULL, 0x30, NULL),
    F(tver, "Header Version", "ornic.bth.tver", FT_UINT8, BASE_DEC, NULL, 0x0f, NULL),
    F(pkey, "Partition Key", "ornic.bth.pkey", FT_UINT16, BASE_HEX, NULL, 0, NULL),
    F(fecn, "FECN", "ornic.bth.fecn", FT_BOOLEAN, 8, NULL, 0x80,
      "Forward ECN (variant: the iCRC covers this byte as 0xFF)"),
    F(becn, "BECN", "ornic.bth.becn", FT_BOOLEAN, 8, NULL, 0x40,
      "Backward ECN (set in CNPs)"),
    F(resv6, "Reserved (6 bits)", "ornic.bth.resv6", FT_UINT8, BASE_HEX, NULL, 0x3f, NULL),
    F(destqp, "Destination QP", "ornic.bth.destqp", FT_UINT24, BASE_HEX, NULL, 0, NULL),
    F(ackreq, "AckReq", "ornic.bth.a", FT_BOOLEAN, 8, NULL, 0x80, NULL),
    F(resv7, "Reserved (7 bits)", "ornic.bth.resv7", FT_UINT8, BASE_HEX, NULL, 0x7f, NULL),
    F(psn, "Packet Sequence Number", "ornic.bth.psn", FT_UINT24, BASE_DEC, NULL, 0, NULL),
    /* IBA extension headers */
    F(rdeth, "RDETH", "ornic.rdeth", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(rdeth_een, "EE Context", "ornic.rdeth.een", FT_UINT24, BASE_HEX, NULL, 0, NULL),
    F(deth, "DETH", "ornic.deth", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(deth_qkey, "Q_Key", "ornic.deth.q_key", FT_UINT32, BASE_HEX, NULL, 0, NULL),
    F(deth_srcqp, "Source QP", "ornic.deth.srcqp", FT_UINT24, BASE_HEX, NULL, 0, NULL),
    F(xrceth, "XRCETH", "ornic.xrceth", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(xrceth_resv, "Reserved", "ornic.xrceth.resv", FT_UINT8, BASE_HEX, NULL, 0, NULL),
    F(xrceth_xrcsrq, "XRC SRQ", "ornic.xrceth.xrcsrq", FT_UINT24, BASE_HEX, NULL, 0, NULL),
    F(feth, "FETH", "ornic.feth", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(feth_value, "FETH value", "ornic.feth.value", FT_UINT32, BASE_HEX, NULL, 0, NULL),
    F(reth, "RETH", "ornic.reth", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(reth_va, "Virtual Address", "ornic.reth.va", FT_UINT64, BASE_HEX, NULL, 0, NULL),
    F(reth_rkey, "Remote Key", "ornic.reth.r_key", FT_UINT32, BASE_HEX, NULL, 0, NULL),
    F(reth_dmalen, "DMA Length", "ornic.reth.dmalen", FT_UINT32, BASE_DEC, NULL, 0, NULL),
    F(offeth, "OFFETH", "ornic.offeth", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(offeth_offset, "Offset in WQE", "ornic.offeth.offset", FT_UINT32, BASE_DEC, NULL, 0, NULL),
    F(atomiceth, "AtomicETH", "ornic.atomiceth", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(atomiceth_va, "Virtual Address", "ornic.atomiceth.va", FT_UINT64, BASE_HEX, NULL, 0, NULL),
    F(atomiceth_rkey, "Remote Key", "ornic.atomiceth.r_key", FT_UINT32, BASE_HEX, NULL, 0, NULL),
    F(atomiceth_swap, "Swap (or Add) Data", "ornic.atomiceth.swap_add", FT_UINT64, BASE_HEX, NULL,
      0, NULL),
    F(atomiceth_cmp, "Compare Data", "ornic.atomiceth.compare", FT_UINT64, BASE_HEX, NULL, 0,
      NULL),
    F(aeth, "AETH", "ornic.aeth", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(aeth_syndrome, "Syndrome", "ornic.aeth.syndrome", FT_UINT8, BASE_HEX, NULL, 0, NULL),
    F(aeth_msn, "Message Sequence Number", "ornic.aeth.msn", FT_UINT24, BASE_DEC, NULL, 0, NULL),
    F(atomicacketh, "AtomicAckETH", "ornic.atomicacketh", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(atomicacketh_orig, "Original Remote Data", "ornic.atomicacketh.orig_rdata", FT_UINT64,
      BASE_HEX, NULL, 0, NULL),
    /* ORNIC headers */
    F(oacketh, "OACKETH", "ornic.oacketh", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(oack_flags, "Flags", "ornic.oacketh.flags", FT_UINT8, BASE_HEX, NULL, 0, NULL),
    F(oack_addr_cached, "ADDR_CACHED", "ornic.oacketh.addr_cached", FT_BOOLEAN, 8, NULL, 0x01,
      "The responder holds Start_Addr of the WQE in flight"),
    F(oack_wqe_done, "WQE_DONE", "ornic.oacketh.wqe_done", FT_BOOLEAN, 8, NULL, 0x02,
      "The cumulative PSN completes the WQE counted by the AETH MSN"),
    F(oack_flags_resv, "Reserved flags", "ornic.oacketh.flags_resv", FT_UINT8, BASE_HEX, NULL,
      0xfc, NULL),
    F(oack_resv, "Reserved", "ornic.oacketh.resv", FT_UINT8, BASE_HEX, NULL, 0, NULL),
    F(oack_count, "Count", "ornic.oacketh.count", FT_UINT16, BASE_DEC, NULL, 0,
      "New request packets accepted since the previous ACK"),
    F(naketh, "NAKETH", "ornic.naketh", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(nak_reason, "Reason", "ornic.naketh.reason", FT_UINT8, BASE_DEC, VALS(nak_reason_vals), 0,
      NULL),
    F(nak_trigger, "Trigger PSN", "ornic.naketh.trigger_psn", FT_UINT24, BASE_DEC, NULL, 0, NULL),
    F(nak_nblocks, "Bitmap blocks", "ornic.naketh.nblocks", FT_UINT8, BASE_DEC, NULL, 0, NULL),
    F(nak_base, "Base PSN", "ornic.naketh.base_psn", FT_UINT24, BASE_DEC, NULL, 0, NULL),
    F(nak_block, "Block", "ornic.naketh.block", FT_UINT16, BASE_HEX, NULL, 0, NULL),
    F(nak_missing_psn, "Missing PSN", "ornic.nak.missing_psn", FT_UINT24, BASE_DEC, NULL, 0,
      "A PSN this NAK declares lost (PROTOCOL.md 4.4): the requester retransmits it"),
    F(nak_received_psn, "Received PSN", "ornic.nak.received_psn", FT_UINT24, BASE_DEC, NULL, 0,
      "A PSN whose bitmap bit is set"),
    F(nak_missing_count, "Missing PSNs", "ornic.nak.missing_count", FT_UINT32, BASE_DEC, NULL, 0,
      NULL),
    F(nak_received_count, "Received PSNs", "ornic.nak.received_count", FT_UINT32, BASE_DEC, NULL,
      0, NULL),
    F(immdt, "Immediate Data", "ornic.immdt", FT_UINT32, BASE_HEX, NULL, 0, NULL),
    F(ieth_rkey, "Invalidate R_Key", "ornic.ieth.r_key", FT_UINT32, BASE_HEX, NULL, 0, NULL),
    F(cnp, "CNP", "ornic.cnp", FT_NONE, BASE_NONE, NULL, 0, "RoCEv2 congestion notification"),
    F(cnp_resv, "Reserved", "ornic.cnp.resv", FT_BYTES, BASE_NONE, NULL, 0, NULL),
    F(payload, "Payload", "ornic.payload", FT_BYTES, BASE_NONE, NULL, 0, NULL),
    F(payload_len, "Payload length", "ornic.payload_len", FT_UINT32, BASE_DEC, NULL, 0,
      "Payload bytes per the IP/UDP lengths, without pad"),
    F(pad, "Pad", "ornic.pad", FT_BYTES, BASE_NONE, NULL, 0, NULL),
    F(icrc, "Invariant CRC", "ornic.icrc", FT_UINT32, BASE_HEX, NULL, 0,
      "The 4 wire bytes read as a little-endian number (libornicproto's convention)"),
    F(icrc_status, "iCRC status", "ornic.icrc.status", FT_UINT8, BASE_NONE,
      VALS(proto_checksum_vals), 0, NULL),
    F(icrc_expected, "Expected iCRC", "ornic.icrc.expected", FT_UINT32, BASE_HEX, NULL, 0, NULL),
    /* analysis */
    F(an, "ORNIC analysis", "ornic.analysis", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(an_conv, "Conversation", "ornic.analysis.conv", FT_UINT32, BASE_DEC, NULL, 0,
      "Index of the QP pair conversation"),
    F(an_resp_qp, "Responder QP", "ornic.analysis.resp_qp", FT_UINT24, BASE_HEX, NULL, 0, NULL),
    F(an_req_qp, "Requester QP", "ornic.analysis.req_qp", FT_UINT24, BASE_HEX, NULL, 0, NULL),
    F(an_pmtu, "PMTU", "ornic.analysis.pmtu", FT_UINT32, BASE_DEC, NULL, 0,
      "From the preference, or learnt from full-size packets"),
    F(an_addr, "Implied address", "ornic.analysis.addr", FT_UINT64, BASE_HEX, NULL, 0,
      "Start_Addr + (PSN - Start_PSN) * PMTU; for READ responses the remote source address"),
    F(an_wqe, "WQE", "ornic.analysis.wqe", FT_UINT32, BASE_DEC, NULL, 0,
      "WQE number in this conversation, from 1"),
    F(an_wqe_start_psn, "WQE Start_PSN", "ornic.analysis.wqe_start_psn", FT_UINT24, BASE_DEC,
      NULL, 0, NULL),
    F(an_wqe_last_psn, "WQE Last_PSN", "ornic.analysis.wqe_last_psn", FT_UINT24, BASE_DEC, NULL, 0,
      NULL),
    F(an_wqe_pkt, "Packet in WQE", "ornic.analysis.wqe_pkt", FT_UINT32, BASE_DEC, NULL, 0,
      "PSN - Start_PSN"),
    F(an_wqe_npkts, "Packets in WQE", "ornic.analysis.wqe_npkts", FT_UINT32, BASE_DEC, NULL, 0,
      NULL),
    F(an_wqe_start_addr, "WQE Start_Addr", "ornic.analysis.wqe_start_addr", FT_UINT64, BASE_HEX,
      NULL, 0, NULL),
    F(an_wqe_len, "WQE length", "ornic.analysis.wqe_len", FT_UINT32, BASE_DEC, NULL, 0, NULL),
    F(an_wqe_frame, "WQE address learnt in", "ornic.analysis.wqe_frame", FT_FRAMENUM, BASE_NONE,
      NULL, 0, NULL),
    F(an_read_frame, "READ request in", "ornic.analysis.read_frame", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, NULL),
    F(an_hpsn, "Highest PSN before", "ornic.analysis.hpsn", FT_UINT24, BASE_DEC, NULL, 0, NULL),
    F(an_epsn, "Expected PSN", "ornic.analysis.epsn", FT_UINT24, BASE_DEC, NULL, 0,
      "First PSN not yet seen, after this packet"),
    F(an_ooo, "Out of order", "ornic.analysis.ooo", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(an_ooo_distance, "OOO distance", "ornic.analysis.ooo_distance", FT_UINT32, BASE_DEC, NULL, 0,
      "Highest PSN seen before minus this PSN"),
    F(an_dup, "Duplicate", "ornic.analysis.duplicate", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(an_first_frame, "First copy in", "ornic.analysis.first_frame", FT_FRAMENUM, BASE_NONE, NULL,
      0, NULL),
    F(an_retrans, "Retransmission", "ornic.analysis.retransmission", FT_NONE, BASE_NONE, NULL, 0,
      NULL),
    F(an_nak_frame, "Requested by NAK in", "ornic.analysis.nak_frame", FT_FRAMENUM, BASE_NONE,
      NULL, 0, NULL),
    F(an_probe, "RTO probe", "ornic.analysis.rto_probe", FT_NONE, BASE_NONE, NULL, 0, NULL),
    F(an_loss, "Loss inferred", "ornic.analysis.loss", FT_NONE, BASE_NONE, NULL, 0,
      "This arrival is more than OTD past the first missing PSN"),
    F(an_loss_first_psn, "First missing PSN", "ornic.analysis.loss_first_psn", FT_UINT24,
      BASE_DEC, NULL, 0, NULL),
    F(an_loss_count, "Missing PSNs", "ornic.analysis.loss_count", FT_UINT32, BASE_DEC, NULL, 0,
      NULL),
    F(an_acked_in, "Acknowledged in", "ornic.analysis.acked_in", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0,
      "The first ACK/NAK whose cumulative PSN covers this packet (known after the first pass)"),
    F(an_ack_prev, "Previous cumulative PSN", "ornic.analysis.ack_prev", FT_UINT24, BASE_DEC, NULL,
      0, NULL),
    F(an_ack_newly, "Newly acknowledged PSNs", "ornic.analysis.ack_newly", FT_UINT32, BASE_DEC,
      NULL, 0, NULL),
    F(an_ack_stale, "Stale acknowledgement", "ornic.analysis.ack_stale", FT_NONE, BASE_NONE, NULL,
      0, NULL),
    F(an_msn_delta, "MSN advance", "ornic.analysis.msn_delta", FT_UINT32, BASE_DEC, NULL, 0, NULL),
    F(an_wqe_completed, "Completes WQE", "ornic.analysis.wqe_completed", FT_UINT32, BASE_DEC, NULL,
      0, NULL),
};
#undef F

#define E(id, abbr, group, sev, text) {&ei.id, {abbr, group, sev, text, EXPFILL}}

static ei_register_info expert_table[] = {
    E(icrc_bad, "ornic.icrc.bad", PI_CHECKSUM, PI_WARN, "Bad iCRC"),
    E(malformed, "ornic.malformed", PI_MALFORMED, PI_ERROR, "Malformed RoCE packet"),
    E(truncated, "ornic.truncated", PI_MALFORMED, PI_NOTE, "Packet cut short by the capture"),
    E(unknown_opcode, "ornic.unknown_opcode", PI_PROTOCOL, PI_WARN, "Opcode without a layout"),
    E(lint, "ornic.lint", PI_PROTOCOL, PI_WARN, "Protocol violation"),
    E(addr_unknown, "ornic.analysis.addr_unknown", PI_SEQUENCE, PI_NOTE,
      "Implied address cannot be known yet: no RETH of this WQE seen before (FSpot, Last with "
      "Address, RC WRITE First / Only, READ request)"),
    E(ooo, "ornic.analysis.ooo.expert", PI_SEQUENCE, PI_CHAT, "Out-of-order arrival"),
    E(dup, "ornic.analysis.duplicate.expert", PI_SEQUENCE, PI_NOTE, "Duplicate PSN"),
    E(retrans, "ornic.analysis.retransmission.expert", PI_SEQUENCE, PI_NOTE, "Retransmission"),
    E(loss, "ornic.analysis.loss.expert", PI_SEQUENCE, PI_WARN,
      "Loss inferred: OOO distance passed the OTD"),
    E(nak, "ornic.nak.expert", PI_SEQUENCE, PI_WARN, "NAK"),
    E(ecn, "ornic.ecn", PI_SEQUENCE, PI_CHAT, "Congestion notification"),
    E(ack_stale, "ornic.analysis.ack_stale.expert", PI_SEQUENCE, PI_NOTE,
      "Cumulative PSN before the previous one (reordered ACK)"),
    E(no_ip, "ornic.icrc.no_ip", PI_UNDECODED, PI_NOTE,
      "iCRC not verified: IP header not reachable, or IP and UDP lengths disagree"),
    E(pmtu_unknown, "ornic.analysis.pmtu_unknown", PI_SEQUENCE, PI_NOTE,
      "PMTU not known yet (set the ornic.pmtu preference or wait for a full packet)"),
    E(wqe_done, "ornic.analysis.wqe_done", PI_SEQUENCE, PI_CHAT, "WQE completed"),
};
#undef E

static gint *const ett_table[] = {&ett.root,      &ett.bth,        &ett.hdr,
                                   &ett.nak_blocks, &ett.nak_block, &ett.nak_missing,
                                   &ett.nak_received, &ett.icrc,   &ett.an,
                                   &ett.oack_flags};

static const enum_val_t pmtu_enum[] = {
    {"learn", "Learn from traffic", 0}, {"256", "256", 256},   {"512", "512", 512},
    {"1024", "1024", 1024},            {"2048", "2048", 2048}, {"4096", "4096", 4096},
    {NULL, NULL, 0}};

gint ornic_pref_pmtu = 0;
guint ornic_pref_otd = 64;

void ornic_register_fields(void) {
  fill_opcode_vals();
  proto_register_field_array(proto_ornic, field_table, array_length(field_table));
  for (size_t i = 0; i < array_length(ett_table); i++) *ett_table[i] = -1;
  proto_register_subtree_array((gint **)ett_table, array_length(ett_table));
  for (size_t i = 0; i < array_length(expert_table); i++) {
    expert_field init = EI_INIT;
    *expert_table[i].ids = init;
  }
  expert_module_t *em = expert_register_protocol(proto_ornic);
  expert_register_field_array(em, expert_table, array_length(expert_table));

  module_t *mod = prefs_register_protocol(proto_ornic, NULL);
  prefs_register_enum_preference(mod, "pmtu", "PMTU",
                                 "Path MTU of every QP; 'learn' takes it from the first "
                                 "full-size packet (FSpot, Spot, READ Response, RC Middle)",
                                 &ornic_pref_pmtu, pmtu_enum, FALSE);
  prefs_register_uint_preference(mod, "otd", "OTD (packets)",
                                 "Out-of-order tolerance degree: an arrival more than OTD PSNs "
                                 "past the first missing one marks a loss (PROTOCOL.md 4.4)",
                                 10, &ornic_pref_otd);
}
