/* The ORNIC dissector: takes the RoCEv2 UDP port, decodes the whole frame
 * (from its IP header, so the iCRC can be verified) with libornicproto,
 * hands standard IBA opcodes to Wireshark's own InfiniBand dissector and
 * adds the ORNIC tree (ORNIC opcodes, CNP, iCRC, analysis) beside it. */
#include "ornic_diss.h"

#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/tap.h>

int proto_ornic = -1;
int ornic_tap = -1;

static dissector_handle_t ornic_handle;
static dissector_handle_t stock_rroce_handle; /* packet-infiniband.c's RoCEv2 handle */

/* Where the library decoded this packet from. */
typedef struct {
  ornic_frame f;
  const guint8 *base; /* bytes given to the decoder */
  int rc;
  gboolean from_ip;   /* decoded from the IP header: the iCRC is verifiable */
  const char *no_ip;  /* else why not (packet scope) */
} located;

/* The UDP payload is a subset of the frame: find the IP header right before
 * its UDP header (IPv6 without extension headers, IPv4 with any IHL) whose
 * length holds the UDP length. An IP datagram longer than the UDP one
 * (PROTOCOL.md D3) is kept: the library decodes inside the UDP length, locates
 * the iCRC there and reports the frame malformed. -1 and *why when there is
 * none. */
static int find_ip_header(tvbuff_t *ds, int udp_off, guint32 udp_len, packet_info *pinfo,
                          const char **why) {
  *why = "no IPv4 or IPv6 header (protocol UDP) right before the UDP header";
  if (udp_off >= 40 && tvb_get_guint8(ds, udp_off - 40) >> 4 == 6 &&
      tvb_get_guint8(ds, udp_off - 34) == ORNIC_IPPROTO_UDP) {
    guint32 plen = tvb_get_ntohs(ds, udp_off - 36);
    if (plen >= udp_len) return udp_off - 40;
    *why = wmem_strdup_printf(pinfo->pool, "IPv6 payload length %u is shorter than UDP length %u",
                              plen, udp_len);
  }
  for (int ihl = 5; ihl <= 15; ihl++) {
    int ip = udp_off - 4 * ihl;
    if (ip < 0) break;
    if (tvb_get_guint8(ds, ip) != (0x40 | ihl) || tvb_get_guint8(ds, ip + 9) != ORNIC_IPPROTO_UDP)
      continue;
    guint32 tlen = tvb_get_ntohs(ds, ip + 2);
    if (tlen >= udp_len + 4u * (guint)ihl) return ip;
    *why = wmem_strdup_printf(pinfo->pool, "IPv4 total length %u cannot hold UDP length %u",
                              tlen, udp_len);
  }
  return -1;
}

static gboolean locate_from_ip(tvbuff_t *tvb, packet_info *pinfo, located *loc) {
  tvbuff_t *ds = tvb_get_ds_tvb(tvb);
  int roff = tvb_raw_offset(tvb);
  loc->no_ip = "the UDP payload is not part of a captured frame (reassembled or detached)";
  if (!ds || ds == tvb || roff < 8 + 20) return FALSE;
  guint ds_cap = tvb_captured_length(ds);
  if ((guint)roff > ds_cap) return FALSE;
  int udp = roff - 8;
  guint32 payload_len = tvb_reported_length(tvb);
  guint32 udp_len = tvb_get_ntohs(ds, udp + 4);
  if (udp_len != payload_len + 8) {
    loc->no_ip = wmem_strdup_printf(pinfo->pool, "UDP length %u disagrees with the %u bytes of UDP "
                                    "payload", udp_len, payload_len);
    return FALSE;
  }
  int ip = find_ip_header(ds, udp, udp_len, pinfo, &loc->no_ip);
  if (ip < 0) return FALSE;
  guint16 dport = tvb_get_ntohs(ds, udp + 2);
  loc->base = tvb_get_ptr(ds, ip, (gint)(ds_cap - (guint)ip));
  loc->rc = ornic_frame_decode(&loc->f, loc->base, ds_cap - (guint)ip, ORNIC_LINK_RAW_IP,
                               dport ? dport : 1);
  if (loc->rc == ORNIC_ERR_NOT_ROCE || loc->f.bth_off == 0 ||
      loc->f.bth_off != (size_t)(roff - ip)) {
    loc->no_ip = wmem_strdup_printf(pinfo->pool, "the IP/UDP framing does not decode: %s",
                                    ornic_strerror(loc->rc));
    return FALSE;
  }
  loc->from_ip = TRUE;
  return TRUE;
}

static void locate(tvbuff_t *tvb, packet_info *pinfo, located *loc) {
  memset(loc, 0, sizeof(*loc));
  if (locate_from_ip(tvb, pinfo, loc)) return;
  const char *why = loc->no_ip;
  memset(loc, 0, sizeof(*loc));
  loc->no_ip = why;
  guint cap = tvb_captured_length(tvb);
  loc->base = tvb_get_ptr(tvb, 0, (gint)cap);
  loc->rc = ornic_roce_decode(&loc->f, loc->base, cap);
  if (loc->rc == ORNIC_ERR_TRUNCATED && cap >= ORNIC_BTH_LEN) loc->f.bth_off = 0;
}

/* ORNIC's opcode space 0xC0-0xDF (PROTOCOL.md 3.1: 0xCB-0xDF reserved) and
 * the CNP, which the stock dissector does not decode. */
static gboolean own_opcode(guint8 op) {
  return op >> 5 == 6 || op == ORNIC_OP_CNP;
}

static gboolean bth_read(const located *loc, tvbuff_t *tvb) {
  /* bth_off is 0 both when the BTH starts the buffer and when it was not read. */
  return loc->from_ip ? loc->f.bth_off != 0 : tvb_captured_length(tvb) >= ORNIC_BTH_LEN &&
                                                  loc->rc != ORNIC_ERR_NOT_ROCE;
}

/* ---- payload, pad, iCRC -------------------------------------------------------- */

static guint8 tree_icrc(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const located *loc) {
  const ornic_frame *f = &loc->f;
  int off = (int)(f->icrc_off - f->bth_off);
  if (!f->icrc_present) {
    proto_item *pi = proto_tree_add_uint(tree, hf.icrc_status, tvb, 0, 0, PROTO_CHECKSUM_E_UNVERIFIED);
    proto_item_set_generated(pi);
    return PROTO_CHECKSUM_E_UNVERIFIED;
  }
  if (!loc->from_ip) {
    proto_tree_add_checksum(tree, tvb, off, hf.icrc, hf.icrc_status, NULL, pinfo, 0,
                            ENC_LITTLE_ENDIAN, PROTO_CHECKSUM_NO_FLAGS);
    proto_tree_add_expert_format(tree, pinfo, &ei.no_ip, tvb, off, 4, "iCRC not verified: %s",
                                 loc->no_ip);
    return PROTO_CHECKSUM_E_UNVERIFIED;
  }
  guint32 want = 0;
  int rc = ornic_icrc_compute(f, loc->base, &want);
  if (rc != ORNIC_OK) {
    proto_tree_add_checksum(tree, tvb, off, hf.icrc, hf.icrc_status, NULL, pinfo, 0,
                            ENC_LITTLE_ENDIAN, PROTO_CHECKSUM_NO_FLAGS);
    return PROTO_CHECKSUM_E_UNVERIFIED;
  }
  /* f->icrc is the wire value (little-endian), as ornic_icrc_verify compares it. */
  gboolean ok = want == f->icrc;
  proto_tree_add_checksum(tree, tvb, off, hf.icrc, hf.icrc_status, &ei.icrc_bad, pinfo, want,
                          ENC_LITTLE_ENDIAN, PROTO_CHECKSUM_VERIFY);
  if (!ok) {
    proto_item *pi = proto_tree_add_uint(tree, hf.icrc_expected, tvb, off, 4, want);
    proto_item_set_generated(pi);
  }
  return ok ? PROTO_CHECKSUM_E_GOOD : PROTO_CHECKSUM_E_BAD;
}

static void tree_payload(proto_tree *tree, tvbuff_t *tvb, const ornic_frame *f) {
  /* Not located: cut inside the headers, or a malformed frame whose payload
   * end the lengths do not give (frame.h). */
  if (!f->payload) return;
  int off = (int)(f->payload_off - f->bth_off);
  size_t cap = f->payload_caplen;
  if (f->payload_len) {
    proto_tree_add_bytes(tree, hf.payload, tvb, off, (gint)cap, f->payload);
  }
  proto_item *pi = proto_tree_add_uint(tree, hf.payload_len, tvb, off, (gint)cap, (guint32)f->payload_len);
  proto_item_set_generated(pi);
  if (f->pad_len && f->icrc_present)
    proto_tree_add_item(tree, hf.pad, tvb, off + (int)f->payload_len, f->pad_len, ENC_NA);
}

/* ---- expert checks that need no state ---------------------------------------- */

/* own: an opcode this plugin decodes. For the others the stock InfiniBand
 * dissector owns the decode and its verdict: the library's layout may not
 * fit them (ConnectX DC uses the RD block), so its errors are a field, not
 * expert info. */
static void lint(proto_tree *tree, packet_info *pinfo, const located *loc, tvbuff_t *tvb,
                 gboolean own, gboolean analysed) {
  const ornic_frame *f = &loc->f;
  proto_item *top = proto_tree_get_parent(tree);
  if (loc->rc != ORNIC_OK) {
    proto_item *pi = proto_tree_add_string_format_value(
        tree, hf.decode_error, tvb, 0, 0, ornic_errname(loc->rc), "%s (%s)",
        ornic_strerror(loc->rc), ornic_errname(loc->rc));
    proto_item_set_generated(pi);
    if (own) {
      switch (loc->rc) {
      case ORNIC_ERR_TRUNCATED:
        expert_add_info(pinfo, top, &ei.truncated);
        break;
      case ORNIC_ERR_UNKNOWN_OPCODE:
        expert_add_info(pinfo, top, &ei.unknown_opcode);
        break;
      default:
        expert_add_info(pinfo, top, &ei.malformed);
        break;
      }
    }
  }
  (void)tvb;
  if (!analysed && (f->bth.fecn || f->bth.becn)) expert_add_info(pinfo, top, &ei.ecn);
  if ((f->ext.present & f->decoded & ORNIC_HDR_NAKETH) && f->ext.naketh.base_psn != f->bth.psn)
    expert_add_info_format(pinfo, top, &ei.lint, "NAK BTH.PSN differs from its Base PSN");
  if ((f->ext.present & f->decoded & ORNIC_HDR_OACKETH) &&
      (f->ext.oacketh.flags & (ORNIC_OACK_ADDR_CACHED | ORNIC_OACK_WQE_DONE)) ==
          (ORNIC_OACK_ADDR_CACHED | ORNIC_OACK_WQE_DONE))
    expert_add_info_format(pinfo, top, &ei.lint, "OACKETH ADDR_CACHED and WQE_DONE both set");
}

/* ---- Info column --------------------------------------------------------------- */

static const char *short_opcode_name(guint8 op) {
  const char *n = ornic_opcode_name(op);
  return g_str_has_prefix(n, "ORNIC ") ? n + 6 : n;
}

static void info_own(packet_info *pinfo, const ornic_frame *f, const ornic_pkt *an, guint32 nlost) {
  if (ornic_opcode_info_get(f->bth.opcode)->name)
    col_add_str(pinfo->cinfo, COL_INFO, short_opcode_name(f->bth.opcode));
  else
    col_add_fstr(pinfo->cinfo, COL_INFO, "Reserved opcode 0x%02x", f->bth.opcode);
  col_append_fstr(pinfo->cinfo, COL_INFO, " QP=0x%06x PSN=%u", f->bth.destqp, f->bth.psn);
  const ornic_ext *e = &f->ext;
  if (an && (an->v.flags & ORNIC_AN_ADDR))
    col_append_fstr(pinfo->cinfo, COL_INFO, " addr=0x%" PRIx64, an->v.addr);
  if (e->present & ORNIC_HDR_OFFETH) col_append_fstr(pinfo->cinfo, COL_INFO, " off=%u", e->offeth.offset);
  if ((e->present & ORNIC_HDR_RETH) && !(e->present & ORNIC_HDR_OFFETH))
    col_append_fstr(pinfo->cinfo, COL_INFO, " va=0x%" PRIx64 " len=%u", e->reth.va, e->reth.dmalen);
  if (e->present & ORNIC_HDR_AETH) col_append_fstr(pinfo->cinfo, COL_INFO, " MSN=%u", e->aeth.msn);
  if (e->present & ORNIC_HDR_OACKETH) {
    col_append_fstr(pinfo->cinfo, COL_INFO, " count=%u", e->oacketh.count);
    if (e->oacketh.flags & ORNIC_OACK_ADDR_CACHED) col_append_str(pinfo->cinfo, COL_INFO, " ADDR_CACHED");
    if (e->oacketh.flags & ORNIC_OACK_WQE_DONE) col_append_str(pinfo->cinfo, COL_INFO, " WQE_DONE");
  }
  if (e->present & ORNIC_HDR_NAKETH)
    col_append_fstr(pinfo->cinfo, COL_INFO, " (%s) trigger=%u missing=%u",
                    ornic_nak_reason_name(e->naketh.reason), e->naketh.trigger_psn, nlost);
  if (f->bth.becn) col_append_str(pinfo->cinfo, COL_INFO, " BECN");
}

static void info_tags(packet_info *pinfo, const ornic_pkt *an, guint8 icrc) {
  if (an) {
    const ornic_an_verdict *v = &an->v;
    if (v->flags & ORNIC_AN_DUP)
      col_append_str(pinfo->cinfo, COL_INFO, " [Duplicate]");
    else if (v->flags & ORNIC_AN_RETRANS)
      col_append_str(pinfo->cinfo, COL_INFO, " [Retransmission]");
    else if (v->flags & ORNIC_AN_OOO)
      col_append_fstr(pinfo->cinfo, COL_INFO, " [OOO %u]", v->ooo_distance);
    if (v->flags & ORNIC_AN_NAK) col_append_str(pinfo->cinfo, COL_INFO, " [NAK]");
    if (v->flags & ORNIC_AN_LOSS)
      col_append_fstr(pinfo->cinfo, COL_INFO, " [Loss: %u lost]", v->loss_count);
    if (v->flags & ORNIC_AN_NOT_CAPTURED)
      col_append_fstr(pinfo->cinfo, COL_INFO, " [Not captured: %u]", v->not_captured);
  }
  if (icrc == PROTO_CHECKSUM_E_BAD) col_append_str(pinfo->cinfo, COL_INFO, " [BAD iCRC]");
}

/* ---- the dissector ------------------------------------------------------------- */

static const ornic_pkt *analysis_for(packet_info *pinfo, const located *loc) {
  if (pinfo->flags.in_error_pkt) return NULL; /* a copy inside an ICMP error */
  const ornic_frame *f = &loc->f;
  ornic_an_input in = {.frame = pinfo->num, .sec = (int64_t)pinfo->abs_ts.secs,
                       .nsec = (uint32_t)pinfo->abs_ts.nsecs, .f = f};
  /* From the IP header, the engine reads the addresses in f->ip itself. */
  if (!loc->from_ip && (pinfo->net_src.type == AT_IPv4 || pinfo->net_src.type == AT_IPv6) &&
      pinfo->net_dst.type == pinfo->net_src.type) {
    in.src = pinfo->net_src.data;
    in.dst = pinfo->net_dst.data;
    in.addr_len = (uint8_t)pinfo->net_src.len;
  }
  return ornic_analysis_packet(pinfo, &in);
}

static int dissect_ornic(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data) {
  located *loc = wmem_new(pinfo->pool, located);
  locate(tvb, pinfo, loc);
  const ornic_frame *f = &loc->f;
  gboolean have_bth = bth_read(loc, tvb);
  gboolean own = !stock_rroce_handle || (have_bth && own_opcode(f->bth.opcode)) || !have_bth;

  if (!own) {
    call_dissector_with_data(stock_rroce_handle, tvb, pinfo, tree, data);
  } else {
    col_set_str(pinfo->cinfo, COL_PROTOCOL, f->bth.opcode == ORNIC_OP_CNP ? "RoCEv2 CNP" : "ORNIC");
    col_clear(pinfo->cinfo, COL_INFO);
  }

  proto_item *ti = proto_tree_add_item(tree, proto_ornic, tvb, 0, -1, ENC_NA);
  proto_tree *ot = proto_item_add_subtree(ti, ett.root);
  if (!have_bth) {
    col_add_fstr(pinfo->cinfo, COL_INFO, "RoCEv2, not decodable: %s", ornic_strerror(loc->rc));
    proto_item *pi = proto_tree_add_string_format_value(ot, hf.decode_error, tvb, 0, 0,
                                                        ornic_errname(loc->rc), "no BTH: %s",
                                                        ornic_strerror(loc->rc));
    proto_item_set_generated(pi);
    expert_add_info(pinfo, ti, &ei.malformed);
    return (int)tvb_captured_length(tvb);
  }

  guint32 nlost = 0, *lost = NULL;
  if (f->ext.present & f->decoded & ORNIC_HDR_NAKETH) {
    lost = wmem_alloc_array(pinfo->pool, guint32, 16u * ORNIC_NAK_MAX_BLOCKS);
    nlost = ornic_nak_lost_set(&f->ext.naketh, ornic_pref_otd, lost, 16u * ORNIC_NAK_MAX_BLOCKS);
  }
  const ornic_pkt *an = analysis_for(pinfo, loc);

  /* Own opcodes get every header; stock-decoded ones only what stock lacks. */
  guint16 which = own ? 0xffff : (ORNIC_HDR_XRCETH | ORNIC_HDR_FETH | ORNIC_HDR_CNP);
  ornic_tree_headers(ot, tvb, pinfo, f, which, lost, nlost);
  if (own) {
    tree_payload(ot, tvb, f);
    info_own(pinfo, f, an, nlost);
  } else if (f->pad_len && f->icrc_present) {
    proto_tree_add_item(ot, hf.pad, tvb, (int)(f->payload_off - f->bth_off) + (int)f->payload_len,
                        f->pad_len, ENC_NA);
  }
  guint8 icrc = tree_icrc(ot, tvb, pinfo, loc);
  lint(ot, pinfo, loc, tvb, own, an != NULL);
  if (an) ornic_tree_analysis(ot, tvb, pinfo, f, an);
  info_tags(pinfo, an, icrc);
  proto_item_append_text(ti, ", %s, QP 0x%06x, PSN %u", ornic_opcode_name(f->bth.opcode),
                         f->bth.destqp, f->bth.psn);

  ornic_tap_info *tap = wmem_new0(pinfo->pool, ornic_tap_info);
  tap->an = an;
  tap->opcode = f->bth.opcode;
  tap->icrc_status = icrc;
  tap->malformed = own && loc->rc != ORNIC_OK && loc->rc != ORNIC_ERR_TRUNCATED;
  tap_queue_packet(ornic_tap, pinfo, tap);
  return (int)tvb_captured_length(tvb);
}

void proto_register_ornic(void);
void proto_reg_handoff_ornic(void);

void proto_register_ornic(void) {
  proto_ornic = proto_register_protocol("ORNIC out-of-order RDMA over RoCEv2", "ORNIC", "ornic");
  ornic_register_fields(ornic_analysis_prefs_changed);
  ornic_handle = register_dissector("ornic", dissect_ornic, proto_ornic);
  ornic_tap = register_tap("ornic");
  ornic_analysis_register();
}

void proto_reg_handoff_ornic(void) {
  /* Plugins hand off after the built-in dissectors, so the port still
   * holds packet-infiniband.c's RoCEv2 handle: keep it for standard opcodes. */
  dissector_table_t udp = find_dissector_table("udp.port");
  dissector_handle_t cur = udp ? dissector_get_uint_handle(udp, ORNIC_ROCEV2_UDP_PORT) : NULL;
  if (cur && cur != ornic_handle) stock_rroce_handle = cur;
  dissector_add_uint_with_preference("udp.port", ORNIC_ROCEV2_UDP_PORT, ornic_handle);
}
