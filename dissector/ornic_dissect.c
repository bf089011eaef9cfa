/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ORNIC dissector: takes the RoCEv2 UDP port, decodes the whole frame
 * with libornicproto (forward, from its first byte or from the innermost IP
 * header, so the iCRC can be verified), hands standard IBA opcodes to
 * Wireshark's own InfiniBand dissector and adds the ORNIC tree (ORNIC
 * opcodes, CNP, iCRC, analysis) beside it. */
#include "ornic_diss.h"

#include <epan/conversation.h>
#include <epan/exceptions.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/tap.h>
#include <wiretap/wtap.h>

int proto_ornic = -1;
int ornic_tap = -1;

static dissector_handle_t ornic_handle;
static dissector_table_t udp_port_table;       /* "udp.port", found at hand-off */
static dissector_handle_t rocev1_handle;       /* EtherType 0x8915: stock's decode, our checks */
static dissector_handle_t stock_rroce_handle;  /* packet-infiniband.c's RoCEv2 handle */
static dissector_handle_t stock_rocev1_handle; /* and its RoCEv1 (EtherType) handle */
/* ERF's record type for an InfiniBand packet from the LRH (wiretap/erf_record.h). */
#ifndef ERF_TYPE_INFINIBAND
#define ERF_TYPE_INFINIBAND 21
#endif
static dissector_handle_t ib_handle; /* native IB in ERF records: stock's decode, our checks */
static dissector_handle_t stock_ib_handle; /* packet-infiniband.c's handle for ERF type 21 */
static int proto_infiniband = -1;

/* Where the library decoded this packet from. */
typedef struct {
  ornic_frame f;
  const guint8 *base; /* bytes given to the decoder */
  int rc;
  gboolean from_frame; /* decoded from the frame's start: the iCRC is verifiable */
  gboolean bth_only;   /* the UDP payload alone, cut: BTH and whole headers read piecewise */
  const char *no_ip;   /* else why not (packet scope) */
  guint32 layer;       /* pinfo->curr_layer_num on entry: the key of the stored verdict */
} located;

/* The link type libornicproto decodes a frame of this capture record with,
 * and the bytes before it: Ethernet (with at most one VLAN tag) and raw IP
 * are the library's link types; a Linux cooked capture (libpcap's
 * LINKTYPE_LINUX_SLL, 16 bytes, and LINKTYPE_LINUX_SLL2, 20 bytes) carries
 * raw IP after its header. FALSE for any other encapsulation. */
static gboolean record_link(const packet_info *pinfo, ornic_link *link, guint *start) {
  if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET) return FALSE;
  *link = ORNIC_LINK_RAW_IP;
  switch (pinfo->rec->rec_header.packet_header.pkt_encap) {
  case WTAP_ENCAP_ETHERNET:
    *link = ORNIC_LINK_ETHERNET;
    *start = 0;
    return TRUE;
  case WTAP_ENCAP_RAW_IP:
  case WTAP_ENCAP_RAW_IP4:
  case WTAP_ENCAP_RAW_IP6: *start = 0; return TRUE;
  case WTAP_ENCAP_SLL: *start = 16; return TRUE;
  case WTAP_ENCAP_SLL2: *start = 20; return TRUE;
  default: return FALSE;
  }
}

/* Where Wireshark's IPv4 or IPv6 dissector found this packet's IP header
 * (the innermost one, inside any tunnel). The IPv4 dissector points
 * pinfo->net_src at the source address in the packet's bytes, 12 bytes into
 * the header. The IPv6 dissector keeps a copy of the address; RoCEv2 carries
 * UDP right after the 40-byte IPv6 header (no extension headers: the library
 * decodes no other), so that header starts 40 bytes before the UDP header,
 * and *addr says whose addresses the decode must find there. FALSE when
 * neither applies. */
static gboolean net_header(const packet_info *pinfo, tvbuff_t *tvb, const guint8 *frame, guint cap,
                           guint *start, const address **addr) {
  const address *a = &pinfo->net_src;
  uintptr_t p = (uintptr_t)a->data, f = (uintptr_t)frame;
  gboolean in_frame = p >= f && p + (guint)a->len <= f + cap;
  *addr = NULL;
  if (a->type == AT_IPv4 && a->len == 4 && in_frame && p >= f + 12) {
    *start = (guint)(p - f) - 12;
    return TRUE;
  }
  if (a->type == AT_IPv6 && a->len == 16 && pinfo->net_dst.type == AT_IPv6 &&
      pinfo->net_dst.len == 16 && tvb_raw_offset(tvb) >= 8 + 40) {
    *start = (guint)tvb_raw_offset(tvb) - 8 - 40;
    *addr = a;
    return TRUE;
  }
  return FALSE;
}

/* The library's decode of the frame from `start` as `link`, kept when its BTH
 * is where the UDP dissector put this payload (RoCEv1: its GRH where the
 * EtherType dissector put it): then it has the IP header, the lengths and the
 * iCRC of exactly this packet. */
static gboolean decode_at(located *loc, tvbuff_t *tvb, const guint8 *frame, guint cap, guint start,
                          ornic_link link) {
  if (start >= cap) return FALSE;
  loc->base = frame + start;
  loc->rc = ornic_frame_decode(&loc->f, loc->base, cap - start, link, ORNIC_UDP_PORT_ANY);
  if (!(loc->f.layers & ORNIC_LAYER_BTH)) return FALSE;
  size_t anchor = loc->f.l3 == ORNIC_L3_GRH ? loc->f.l3_off : loc->f.bth_off;
  return start + anchor == (size_t)tvb_raw_offset(tvb);
}

/* Decodes the frame forward: from its first byte with the link type of its
 * capture record, else (a tunnel, a second VLAN tag, another link type, the
 * packet an ICMP error quotes) from the IP header Wireshark's IP dissector
 * read. A payload that is not the frame's own bytes (reassembled), or that
 * neither decode reaches, is not located: *no_ip says why. */
static gboolean locate_in_frame(tvbuff_t *tvb, packet_info *pinfo, located *loc) {
  tvbuff_t *ds = tvb_get_ds_tvb(tvb);
  loc->no_ip = "the UDP payload is not part of a captured frame (reassembled or detached)";
  if (!ds || ds == tvb || !pinfo->data_src || get_data_source_tvb(pinfo->data_src->data) != ds)
    return FALSE;
  guint cap = tvb_captured_length(ds), start = 0;
  const guint8 *frame = tvb_get_ptr(ds, 0, (gint)cap);
  ornic_link link;
  gboolean ok = record_link(pinfo, &link, &start) && decode_at(loc, tvb, frame, cap, start, link);
  const address *v6 = NULL;
  if (!ok && net_header(pinfo, tvb, frame, cap, &start, &v6))
    ok = decode_at(loc, tvb, frame, cap, start, ORNIC_LINK_RAW_IP) &&
         (!v6 || (loc->f.l3 == ORNIC_L3_IPV6 && !memcmp(loc->f.ip.src, v6->data, 16) &&
                  !memcmp(loc->f.ip.dst, pinfo->net_dst.data, 16)));
  if (!ok) {
    loc->no_ip = wmem_strdup_printf(pinfo->pool,
                                    "neither the frame's link type nor the IP header Wireshark "
                                    "found decodes to this UDP payload (%s)",
                                    ornic_strerror(loc->rc));
    return FALSE;
  }
  loc->from_frame = TRUE;
  return TRUE;
}

/* The UDP payload alone, when the frame does not decode to it: no IP header,
 * so no iCRC. A payload cut by the capture cannot go to ornic_roce_decode
 * (its RoCE bytes end where its input does, which would make the last
 * captured bytes the iCRC): then the BTH and the extension headers captured
 * whole are read with the header decoders. */
static void locate(tvbuff_t *tvb, packet_info *pinfo, located *loc) {
  memset(loc, 0, sizeof(*loc));
  if (locate_in_frame(tvb, pinfo, loc)) return;
  const char *why = loc->no_ip;
  memset(loc, 0, sizeof(*loc));
  loc->no_ip = why;
  guint cap = tvb_captured_length(tvb);
  loc->base = tvb_get_ptr(tvb, 0, (gint)cap);
  if (cap >= tvb_reported_length(tvb)) {
    loc->rc = ornic_roce_decode(&loc->f, loc->base, cap);
    if (loc->f.layers & ORNIC_LAYER_BTH) return;
  }
  loc->rc = ORNIC_ERR_TRUNCATED;
  if (cap < ORNIC_BTH_LEN) return;
  ornic_frame *f = &loc->f;
  ornic_bth_decode(&f->bth, loc->base, cap);
  f->bth_off = 0;
  f->ext_off = ORNIC_BTH_LEN;
  ornic_ext_decode(&f->ext, ornic_opcode_info_get(f->bth.opcode)->hdrs, loc->base + ORNIC_BTH_LEN,
                   cap - ORNIC_BTH_LEN);
  loc->bth_only = TRUE;
}

/* ORNIC's opcode space 0xC0-0xDF (PROTOCOL.md 3.1: 0xCB-0xDF reserved) and
 * the CNP, which the stock dissector does not decode. */
static gboolean own_opcode(guint8 op) {
  return ornic_opcode_transport(op) == ORNIC_TRANSPORT_ORNIC || op == ORNIC_OP_CNP;
}

static gboolean bth_read(const located *loc) {
  return (loc->f.layers & ORNIC_LAYER_BTH) != 0 || loc->bth_only;
}

/* ---- payload, pad, iCRC -------------------------------------------------------- */

static guint8 tree_icrc(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const located *loc) {
  const ornic_frame *f = &loc->f;
  int off = (int)(f->icrc_off - f->bth_off);
  if (!f->icrc_present) {
    proto_item *pi =
        proto_tree_add_uint(tree, hf.icrc_status, tvb, 0, 0, PROTO_CHECKSUM_E_UNVERIFIED);
    proto_item_set_generated(pi);
    return PROTO_CHECKSUM_E_UNVERIFIED;
  }
  if (!loc->from_frame) {
    proto_tree_add_checksum(tree, tvb, off, hf.icrc, hf.icrc_status, NULL, pinfo, 0, ENC_BIG_ENDIAN,
                            PROTO_CHECKSUM_NO_FLAGS);
    proto_tree_add_expert_format(tree, pinfo, &ei.no_ip, tvb, off, 4, "iCRC not verified: %s",
                                 loc->no_ip);
    return PROTO_CHECKSUM_E_UNVERIFIED;
  }
  guint32 want = 0;
  int rc = ornic_icrc_compute(f, loc->base, &want);
  if (rc != ORNIC_OK) {
    proto_tree_add_checksum(tree, tvb, off, hf.icrc, hf.icrc_status, NULL, pinfo, 0, ENC_BIG_ENDIAN,
                            PROTO_CHECKSUM_NO_FLAGS);
    return PROTO_CHECKSUM_E_UNVERIFIED;
  }
  /* f->icrc and want are CRC-32 values (the wire bytes least significant
   * first, as ornic_icrc_verify compares them); the fields show the bytes in
   * wire order, as stock's infiniband.invariant.crc does. */
  gboolean ok = want == f->icrc;
  proto_tree_add_checksum(tree, tvb, off, hf.icrc, hf.icrc_status, &ei.icrc_bad, pinfo,
                          GUINT32_SWAP_LE_BE(want), ENC_BIG_ENDIAN, PROTO_CHECKSUM_VERIFY);
  proto_item *crc = proto_tree_add_uint(tree, hf.icrc_crc32, tvb, off, 4, f->icrc);
  proto_item_set_generated(crc);
  if (!ok) {
    proto_item *pi =
        proto_tree_add_uint(tree, hf.icrc_expected, tvb, off, 4, GUINT32_SWAP_LE_BE(want));
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
  proto_item *pi =
      proto_tree_add_uint(tree, hf.payload_len, tvb, off, (gint)cap, (guint32)f->payload_len);
  proto_item_set_generated(pi);
  if (f->pad_len && f->icrc_present)
    proto_tree_add_item(tree, hf.pad, tvb, off + (int)f->payload_len, f->pad_len, ENC_NA);
}

/* ---- expert checks that need no state ---------------------------------------- */

/* The Malformed expert, with the library's account of the rules broken. */
static void add_malformed(packet_info *pinfo, proto_item *top, const located *loc) {
  size_t need =
      loc->rc == ORNIC_ERR_MALFORMED ? ornic_frame_explain_malformed(&loc->f, NULL, 0) : 0;
  if (!need) {
    expert_add_info(pinfo, top, &ei.malformed);
    return;
  }
  char *why = (char *)wmem_alloc(pinfo->pool, need + 1);
  ornic_frame_explain_malformed(&loc->f, why, need + 1);
  expert_add_info_format(pinfo, top, &ei.malformed, "Malformed RoCE packet: %s", why);
}

/* own: an opcode this plugin decodes. For the others the stock InfiniBand
 * dissector owns the decode and its verdict: the library's layout may not
 * fit them (ConnectX DC uses the RD block), so its errors are a field, not
 * expert info, and its lint rules are not applied. */
static void lint(proto_tree *tree, packet_info *pinfo, const located *loc, tvbuff_t *tvb,
                 gboolean own, gboolean analysed) {
  const ornic_frame *f = &loc->f;
  proto_item *top = proto_tree_get_parent(tree);
  /* Every header captured, the payload or the iCRC cut by the snaplen: not a
   * decode error, only an iCRC that cannot be checked. */
  gboolean headers_whole = loc->rc == ORNIC_ERR_TRUNCATED && f->payload_off != 0;
  if (headers_whole && own) expert_add_info(pinfo, top, &ei.icrc_not_captured);
  if (loc->rc != ORNIC_OK && !headers_whole) {
    proto_item *pi = proto_tree_add_string_format_value(
        tree, hf.decode_error, tvb, 0, 0, ornic_errname(loc->rc), "%s (%s)",
        ornic_strerror(loc->rc), ornic_errname(loc->rc));
    proto_item_set_generated(pi);
    if (own) {
      switch (loc->rc) {
      case ORNIC_ERR_TRUNCATED: expert_add_info(pinfo, top, &ei.truncated); break;
      case ORNIC_ERR_UNKNOWN_OPCODE: expert_add_info(pinfo, top, &ei.unknown_opcode); break;
      default: add_malformed(pinfo, top, loc); break;
      }
    }
  }
  if (!analysed && (f->bth.fecn || f->bth.becn)) expert_add_info(pinfo, top, &ei.ecn);
  if (!own) return;
  /* PROTOCOL.md section 5's lint rules, one expert info each; PMTU rules
   * only with a PMTU preference (the "learn" default gives 0). */
  guint32 broken = ornic_lint(f, loc->base, (guint32)ornic_pref_pmtu);
  for (unsigned i = 0; i < ORNIC_LINT_COUNT; i++)
    if (broken & (1u << i)) expert_add_info_format(pinfo, top, &ei.lint, "%s", ornic_lint_text(i));
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
  if (e->present & ORNIC_HDR_OFFETH)
    col_append_fstr(pinfo->cinfo, COL_INFO, " off=%u", e->offeth.offset);
  if ((e->present & ORNIC_HDR_RETH) && !(e->present & ORNIC_HDR_OFFETH))
    col_append_fstr(pinfo->cinfo, COL_INFO, " va=0x%" PRIx64 " len=%u", e->reth.va, e->reth.dmalen);
  if (e->present & ORNIC_HDR_AETH) col_append_fstr(pinfo->cinfo, COL_INFO, " MSN=%u", e->aeth.msn);
  if (e->present & ORNIC_HDR_OACKETH) {
    col_append_fstr(pinfo->cinfo, COL_INFO, " count=%u", e->oacketh.count);
    if (e->oacketh.flags & ORNIC_OACK_ADDR_CACHED)
      col_append_str(pinfo->cinfo, COL_INFO, " ADDR_CACHED");
    if (e->oacketh.flags & ORNIC_OACK_WQE_DONE) col_append_str(pinfo->cinfo, COL_INFO, " WQE_DONE");
  }
  if (e->present & ORNIC_HDR_NAKETH)
    col_append_fstr(pinfo->cinfo, COL_INFO, " (%s) trigger=%u limit=%u missing=%u",
                    ornic_naketh_reason_name(e->naketh.reason), e->naketh.trigger_psn,
                    e->naketh.limit_psn, nlost);
  if (f->bth.becn) col_append_str(pinfo->cinfo, COL_INFO, " BECN");
}

/* The analysis tags, put before the rest of Info as TCP puts "[TCP
 * Retransmission]" (the column's end is what a narrow window cuts off), and
 * fenced so that nothing later replaces them. */
static void info_tags(packet_info *pinfo, const ornic_pkt *an, guint8 icrc) {
  const guint32 tagged = ORNIC_AN_DUP | ORNIC_AN_RETRANS | ORNIC_AN_OOO | ORNIC_AN_NAK |
                         ORNIC_AN_OTD_EXCEEDED | ORNIC_AN_LOSS | ORNIC_AN_NOT_CAPTURED |
                         ORNIC_AN_UNTRACKED | ORNIC_AN_WORK_LIMIT | ORNIC_AN_ACKED_BEFORE_SEEN |
                         ORNIC_AN_PREV_NOT_CAPTURED | ORNIC_AN_CM;
  if (icrc != PROTO_CHECKSUM_E_BAD && !(an && (an->v.flags & tagged))) return; /* most packets */
  wmem_strbuf_t *t = wmem_strbuf_new(pinfo->pool, "");
  if (an) {
    const ornic_an_verdict *v = &an->v;
    /* The limits first, with ornic-decode's words: what follows is not
     * judged the usual way (tools/ornic-decode/README.md, its tags). */
    if (v->flags & ORNIC_AN_OVER_BUDGET)
      wmem_strbuf_append(t, "[Untracked: memory budget] ");
    else if (v->flags & ORNIC_AN_UNTRACKED)
      wmem_strbuf_append(t, "[Untracked: conversation table full] ");
    if (v->flags & ORNIC_AN_WORK_LIMIT) wmem_strbuf_append(t, "[Work limit: window cut] ");
    if (v->flags & ORNIC_AN_DUP)
      wmem_strbuf_append(t, "[Duplicate] ");
    else if (v->flags & ORNIC_AN_RETRANS)
      wmem_strbuf_append(t, "[Retransmission] ");
    else if (v->flags & ORNIC_AN_OOO)
      wmem_strbuf_append_printf(t, "[OOO %u] ", v->ooo_distance);
    if (v->flags & ORNIC_AN_NAK) wmem_strbuf_append(t, "[NAK] ");
    if (v->flags & ORNIC_AN_PREV_NOT_CAPTURED) /* as ornic-decode's tag (8.5) */
      wmem_strbuf_append_printf(t, "[Previous PSN not captured: %u from %u] ", v->hole_count,
                                v->hole_first);
    if (v->flags & ORNIC_AN_OTD_EXCEEDED) /* as ornic-decode's tag */
      wmem_strbuf_append_printf(t, "[OTD exceeded: %u from %u] ", v->hole_count, v->hole_first);
    if (v->flags & ORNIC_AN_LOSS) wmem_strbuf_append_printf(t, "[Loss: %u lost] ", v->loss_count);
    if (v->flags & ORNIC_AN_NOT_CAPTURED)
      wmem_strbuf_append_printf(t, "[Not captured: %u] ", v->not_captured);
    /* Information last, ornic-decode's words (PROTOCOL.md 8.5). */
    if (v->flags & ORNIC_AN_ACKED_BEFORE_SEEN) wmem_strbuf_append(t, "[Stored after its ACK] ");
    if ((v->flags & ORNIC_AN_CM) && (v->flags & ORNIC_AN_PAIRED)) /* 8.10 */
      wmem_strbuf_append(t, "[CM: QP pair set up] ");
  }
  if (icrc == PROTO_CHECKSUM_E_BAD) wmem_strbuf_append(t, "[BAD iCRC] ");
  if (wmem_strbuf_get_len(t))
    col_prepend_fence_fstr(pinfo->cinfo, COL_INFO, "%s", wmem_strbuf_get_str(t));
}

/* ---- the dissector ------------------------------------------------------------- */

static const ornic_pkt *analysis_for(packet_info *pinfo, const located *loc) {
  if (pinfo->flags.in_error_pkt) return NULL; /* a copy inside an ICMP error */
  const ornic_frame *f = &loc->f;
  ornic_an_input in = {.frame = pinfo->num,
                       .sec = (int64_t)pinfo->abs_ts.secs,
                       .nsec = (uint32_t)pinfo->abs_ts.nsecs,
                       .f = f};
  /* From the frame, the engine reads the addresses in f->ip itself. */
  if (!loc->from_frame && (pinfo->net_src.type == AT_IPv4 || pinfo->net_src.type == AT_IPv6) &&
      pinfo->net_dst.type == pinfo->net_src.type) {
    in.src = pinfo->net_src.data;
    in.dst = pinfo->net_dst.data;
    in.addr_len = (uint8_t)pinfo->net_src.len;
  }
  return ornic_analysis_packet(pinfo, &in, loc->layer);
}

/* The layer UDP pushed for this dissector, taken off for a packet stock's
 * InfiniBand dissector decodes: frame.protocols then reads as stock's
 * (...:udp:infiniband[:nvme]). */
static void drop_own_layer(packet_info *pinfo) {
  wmem_list_frame_t *t = pinfo->layers ? wmem_list_tail(pinfo->layers) : NULL;
  if (t && GPOINTER_TO_INT(wmem_list_frame_data(t)) == proto_ornic) {
    wmem_list_remove_frame(pinfo->layers, t);
    pinfo->curr_layer_num--;
  }
}

/* Where the ORNIC item of a stock-decoded packet goes: inside stock's
 * top-level InfiniBand item, so that Protocol Hierarchy, which counts the
 * top-level items, shows stock's hierarchy and ORNIC nowhere under a payload
 * protocol (NVMe-oF, ...). The top level when that item is not in the tree
 * (a tree built only for some filters). */
static proto_tree *stock_parent(proto_tree *tree) {
  proto_node *found = NULL;
  for (proto_node *n = tree ? tree->first_child : NULL; n; n = n->next)
    if (PNODE_FINFO(n) && PNODE_FINFO(n)->hfinfo->id == proto_infiniband) found = n;
  return found ? found : tree;
}

/* The ORNIC tree of a packet whose BTH was read: every header of an opcode
 * this plugin decodes (own), only what stock lacks of the others. */
static void dissect_located(tvbuff_t *tvb, packet_info *pinfo, proto_tree *parent,
                            const located *loc, gboolean own) {
  const ornic_frame *f = &loc->f;
  proto_item *ti = proto_tree_add_item(parent, proto_ornic, tvb, 0, -1, ENC_NA);
  proto_tree *ot = proto_item_add_subtree(ti, ett.root);
  guint32 nlost = 0;
  if (f->ext.present & ORNIC_HDR_NAKETH) nlost = ornic_naketh_lost_count(&f->ext.naketh);
  const ornic_pkt *an = analysis_for(pinfo, loc);
  guint16 which = own ? 0xffff : (ORNIC_HDR_XRCETH | ORNIC_HDR_FETH | ORNIC_HDR_CNP);
  ornic_tree_headers(ot, tvb, pinfo, f, which, nlost);
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
  if (have_tap_listener(ornic_tap)) { /* nothing per packet while no statistic listens */
    ornic_tap_info *tap = wmem_new0(pinfo->pool, ornic_tap_info);
    /* A CM REQ/REP's verdict (8.10) names a conversation it is no packet of */
    tap->an =
        an && (an->v.role != ORNIC_AN_ROLE_NONE || (an->v.flags & ORNIC_AN_UNTRACKED)) ? an : NULL;
    tap->opcode = f->bth.opcode;
    tap->f = f;
    tap->icrc_status = icrc;
    tap->malformed = own && loc->rc != ORNIC_OK && loc->rc != ORNIC_ERR_TRUNCATED;
    /* The frame's UDP header: the stock RoCE dissector re-aims pinfo's ports at the QPs. */
    tap->udp_srcport = (f->layers & ORNIC_LAYER_UDP) ? f->udp.sport
                       : pinfo->ptype == PT_UDP      ? (guint16)pinfo->srcport
                                                     : 0;
    tap_queue_packet(ornic_tap, pinfo, tap);
  }
}

/* Stock's dissector on tvb, then the ORNIC item of loc (on `ours`) inside
 * stock's: also when stock throws. Its payload heuristics can (RPC-over-RDMA
 * on a 2-4 byte RC SEND, as rdma_cm and rping send, mostly when a packet is
 * dissected again), and the iCRC verdict and the analysis, which the next
 * packets' analysis depends on, must not depend on whether a stock payload
 * dissector succeeded. The exception goes on up, so stock's own verdict
 * (Malformed, ...) stays as stock shows it. */
static int stock_then_located(dissector_handle_t stock, tvbuff_t *tvb, tvbuff_t *ours,
                              packet_info *pinfo, proto_tree *tree, void *data,
                              const located *loc) {
  volatile int n = 0;
  /* An exception leaves pinfo->current_proto at the dissector that threw
   * (call_dissector_work restores it on return only), and an expert info
   * takes its protocol from it: ours would be listed under RPCoRDMA. */
  const char *proto = pinfo->current_proto;
  TRY { n = call_dissector_with_data(stock, tvb, pinfo, tree, data); }
  CATCH_ALL {
    pinfo->current_proto = proto;
    if (ours) dissect_located(ours, pinfo, stock_parent(tree), loc, FALSE);
    RETHROW;
  }
  ENDTRY;
  if (ours) dissect_located(ours, pinfo, stock_parent(tree), loc, FALSE);
  return n;
}

/* Once a flow towards a RoCEv2 port is seen, the reverse flow of that
 * address/port pair is ours too: some NICs send from UDP source port = QPN,
 * and a QPN such as 0x45 makes the responder's ACKs (4791 -> 69) TFTP by
 * port, so the QP pair would lose half its packets. UDP offers a
 * conversation's dissector before its ports (packet-udp.c), as TFTP and
 * RTP take their data flows. Needed only when UDP would try the source
 * port first (it tries the lower port first) and a dissector holds it: the
 * common source ports (0xC000 up) cost nothing. First pass only; pinfo's
 * ports are the UDP header's here, before stock's RoCE dissector re-aims
 * them at the QPs. */
static void claim_udp_conversation(packet_info *pinfo) {
  if (PINFO_FD_VISITED(pinfo) || pinfo->ptype != PT_UDP || pinfo->flags.in_error_pkt ||
      pinfo->srcport >= pinfo->destport || !udp_port_table ||
      dissector_get_uint_handle(udp_port_table, pinfo->destport) != ornic_handle)
    return;
  dissector_handle_t rival = dissector_get_uint_handle(udp_port_table, pinfo->srcport);
  if (!rival || rival == ornic_handle) return;
  conversation_t *c = find_or_create_conversation(pinfo);
  if (conversation_get_dissector(c, pinfo->num) != ornic_handle)
    conversation_set_dissector(c, ornic_handle);
}

/* Whether this frame went to this dissector or stock's RoCE one. A
 * postdissector runs with its own protocol pushed on pinfo->layers: the
 * last layer is not looked at. */
static gboolean decoded_as_roce(const packet_info *pinfo) {
  wmem_list_frame_t *last = pinfo->layers ? wmem_list_tail(pinfo->layers) : NULL;
  for (wmem_list_frame_t *l = pinfo->layers ? wmem_list_head(pinfo->layers) : NULL; l && l != last;
       l = wmem_list_frame_next(l)) {
    int id = GPOINTER_TO_INT(wmem_list_frame_data(l));
    if (id == proto_ornic || id == proto_infiniband) return TRUE;
  }
  return FALSE;
}

/* The layer number a dissector UDP calls gets (pinfo->curr_layer_num on its
 * entry): one more than the last UDP layer's position. 0 without UDP. */
static guint32 layer_after_udp(const packet_info *pinfo) {
  static int proto_udp = -1;
  if (proto_udp == -1) proto_udp = proto_get_id_by_filter_name("udp");
  guint32 n = 0, at = 0;
  for (wmem_list_frame_t *l = pinfo->layers ? wmem_list_head(pinfo->layers) : NULL; l;
       l = wmem_list_frame_next(l)) {
    n++;
    if (GPOINTER_TO_INT(wmem_list_frame_data(l)) == proto_udp) at = n;
  }
  return at ? at + 1 : 0;
}

/* A flow whose both ports another dissector wins: UDP tries the lower port
 * first, so 69 -> 4791 (source port = QPN 0x45) is TFTP's and never reaches
 * this dissector. After each frame of the first pass, a UDP datagram
 * towards a RoCEv2 port that nobody decoded as RoCE is checked: when the
 * library decodes the whole frame to a BTH with a good iCRC (a 32-bit
 * proof that it is RoCE), its conversation is claimed as above, so the
 * flow's later frames, and all of them in a second pass (GUI, tshark -2),
 * are ORNIC's; and the frame is analysed now, under the layer number this
 * dissector will have when UDP hands it the frame in the next pass (one
 * after UDP's), so no later ACK finds its PSN missing and the second pass
 * shows its verdict. */
static int claim_missed_flow(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree _U_,
                             void *data _U_) {
  /* A port UDP gives to this dissector (ornic.udp.port or Decode As): one
   * table lookup, before the walk of the layers. */
  if (PINFO_FD_VISITED(pinfo) || pinfo->ptype != PT_UDP || !udp_port_table ||
      dissector_get_uint_handle(udp_port_table, pinfo->destport) != ornic_handle ||
      decoded_as_roce(pinfo))
    return 0;
  ornic_link link;
  guint start = 0, cap = tvb_captured_length(tvb);
  if (!record_link(pinfo, &link, &start) || start >= cap) return 0;
  ornic_frame f;
  const guint8 *p = tvb_get_ptr(tvb, (gint)start, (gint)(cap - start));
  if (ornic_frame_decode(&f, p, cap - start, link, ORNIC_UDP_PORT_ANY) != ORNIC_OK ||
      f.udp.dport != pinfo->destport || f.udp.sport != pinfo->srcport ||
      ornic_icrc_verify(&f, p) != ORNIC_OK)
    return 0;
  claim_udp_conversation(pinfo);
  guint32 layer = layer_after_udp(pinfo);
  if (layer) {
    ornic_an_input in = {.frame = pinfo->num,
                         .sec = (int64_t)pinfo->abs_ts.secs,
                         .nsec = (uint32_t)pinfo->abs_ts.nsecs,
                         .f = &f};
    ornic_analysis_packet(pinfo, &in, layer);
  }
  return 0;
}

static int dissect_ornic(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data) {
  located *loc = wmem_new(pinfo->pool, located);
  locate(tvb, pinfo, loc);
  /* Taken before stock's dissector runs: its sub-dissectors' layers (a
   * heuristic may accept in one pass and not the other) do not move it. */
  loc->layer = pinfo->curr_layer_num;
  const ornic_frame *f = &loc->f;
  gboolean have_bth = bth_read(loc);
  if (have_bth) claim_udp_conversation(pinfo);
  gboolean own = !stock_rroce_handle || (have_bth && own_opcode(f->bth.opcode)) || !have_bth;
  if (!own) {
    drop_own_layer(pinfo);
    stock_then_located(stock_rroce_handle, tvb, tvb, pinfo, tree, data, loc);
    return (int)tvb_captured_length(tvb);
  }
  col_set_str(pinfo->cinfo, COL_PROTOCOL, f->bth.opcode == ORNIC_OP_CNP ? "RoCEv2 CNP" : "ORNIC");
  col_clear(pinfo->cinfo, COL_INFO);
  if (!have_bth) {
    proto_item *ti = proto_tree_add_item(tree, proto_ornic, tvb, 0, -1, ENC_NA);
    proto_tree *ot = proto_item_add_subtree(ti, ett.root);
    col_add_fstr(pinfo->cinfo, COL_INFO, "RoCEv2, not decodable: %s", ornic_strerror(loc->rc));
    proto_item *pi =
        proto_tree_add_string_format_value(ot, hf.decode_error, tvb, 0, 0, ornic_errname(loc->rc),
                                           "no BTH: %s", ornic_strerror(loc->rc));
    proto_item_set_generated(pi);
    add_malformed(pinfo, ti, loc);
    return (int)tvb_captured_length(tvb);
  }
  dissect_located(tvb, pinfo, tree, loc, TRUE);
  return (int)tvb_captured_length(tvb);
}

/* RoCEv1 (EtherType 0x8915): stock decodes it; ORNIC adds what it adds to a
 * stock RoCEv2 packet (the iCRC verified over the GRH, PROTOCOL.md 2.6; the
 * analysis), on the bytes from the BTH on. */
static int dissect_rocev1(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data) {
  guint32 layer = pinfo->curr_layer_num; /* before stock's sub-dissectors, as dissect_ornic */
  drop_own_layer(pinfo);
  located *loc = wmem_new0(pinfo->pool, located);
  loc->layer = layer;
  tvbuff_t *bth = NULL;
  if (locate_in_frame(tvb, pinfo, loc) && loc->f.l3 == ORNIC_L3_GRH &&
      loc->f.bth_off >= loc->f.l3_off && loc->f.bth_off - loc->f.l3_off < tvb_captured_length(tvb))
    bth = tvb_new_subset_remaining(tvb, (gint)(loc->f.bth_off - loc->f.l3_off));
  return stock_then_located(stock_rocev1_handle, tvb, bth, pinfo, tree, data, loc);
}

/* Native InfiniBand (ERF records of type INFINIBAND, as DAG cards capture
 * an IB link): stock decodes it from the LRH; ORNIC adds its item (the iCRC
 * and VCRC verified by the library's native-IB decode, PROTOCOL.md 2.7; the
 * analysis, keyed by LIDs as ornic-decode keys it) on the bytes from the BTH
 * on, as for RoCEv1. */
static int dissect_native_ib(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data) {
  guint32 layer = pinfo->curr_layer_num;
  drop_own_layer(pinfo);
  located *loc = wmem_new0(pinfo->pool, located);
  loc->layer = layer;
  guint cap = tvb_captured_length(tvb);
  loc->base = tvb_get_ptr(tvb, 0, (gint)cap);
  loc->rc = ornic_frame_decode(&loc->f, loc->base, cap, ORNIC_LINK_IB, ORNIC_UDP_PORT_ANY);
  tvbuff_t *bth = NULL;
  if ((loc->f.layers & ORNIC_LAYER_BTH) && loc->f.bth_off < cap) {
    loc->from_frame = TRUE;
    bth = tvb_new_subset_remaining(tvb, (gint)loc->f.bth_off);
  }
  return stock_then_located(stock_ib_handle, tvb, bth, pinfo, tree, data, loc);
}

void proto_register_ornic(void);
void proto_reg_handoff_ornic(void);

/* A disabled protocol's port handle does not fall back to the one it
 * replaced: UDP would show the datagrams as data. So on every (re)dissection
 * (init routines run after --disable-protocol or Enabled Protocols took
 * effect), the ports of ornic.udp.port go to stock's RoCEv2 handle while
 * ORNIC is disabled, and back to ORNIC's when it is enabled again. Enabled,
 * a port of ornic.udp.port that stock's RoCEv2 handle took (or left empty)
 * is ORNIC's again: packet-infiniband.c's infiniband.rroce.port preference
 * deletes and re-adds its own port, which would take 4791 from ORNIC. */
static void ports_follow_enabled(void) {
  dissector_table_t udp = find_dissector_table("udp.port");
  range_t *r = prefs_get_range_value("ornic", "udp.port");
  if (!udp || !r || !stock_rroce_handle) return;
  gboolean on = proto_is_protocol_enabled(find_protocol_by_id(proto_ornic));
  dissector_handle_t want = on ? ornic_handle : stock_rroce_handle;
  dissector_handle_t other = on ? stock_rroce_handle : ornic_handle;
  for (guint i = 0; i < r->nranges; i++)
    for (guint64 p = r->ranges[i].low; p <= r->ranges[i].high; p++) {
      dissector_handle_t cur = dissector_get_uint_handle(udp, (guint32)p);
      if (cur == other || (on && !cur)) dissector_change_uint("udp.port", (guint32)p, want);
    }
  /* RoCEv1's EtherType likewise. */
  dissector_table_t eth = find_dissector_table("ethertype");
  if (!eth || !stock_rocev1_handle) return;
  dissector_handle_t v1 = on ? rocev1_handle : stock_rocev1_handle;
  if (dissector_get_uint_handle(eth, ORNIC_ETHERTYPE_ROCEV1) != v1)
    dissector_change_uint("ethertype", ORNIC_ETHERTYPE_ROCEV1, v1);
  /* And ERF's native InfiniBand records. */
  dissector_table_t erf = find_dissector_table("erf.types.type");
  if (!erf || !stock_ib_handle) return;
  dissector_handle_t ib = on ? ib_handle : stock_ib_handle;
  if (dissector_get_uint_handle(erf, ERF_TYPE_INFINIBAND) != ib)
    dissector_change_uint("erf.types.type", ERF_TYPE_INFINIBAND, ib);
}

void proto_register_ornic(void) {
  proto_ornic = proto_register_protocol("ORNIC out-of-order RDMA over RoCEv2", "ORNIC", "ornic");
  ornic_register_fields(ornic_analysis_prefs_changed);
  ornic_handle = register_dissector("ornic", dissect_ornic, proto_ornic);
  rocev1_handle = create_dissector_handle(dissect_rocev1, proto_ornic);
  ib_handle = create_dissector_handle(dissect_native_ib, proto_ornic);
  ornic_tap = register_tap("ornic");
  register_postdissector(create_dissector_handle(claim_missed_flow, proto_ornic));
  ornic_analysis_register();
  register_init_routine(ports_follow_enabled);
}

void proto_reg_handoff_ornic(void) {
  /* Plugins hand off after the built-in dissectors, so the port still
   * holds packet-infiniband.c's RoCEv2 handle: keep it for standard opcodes. */
  dissector_table_t udp = udp_port_table = find_dissector_table("udp.port");
  dissector_handle_t cur = udp ? dissector_get_uint_handle(udp, ORNIC_ROCEV2_UDP_PORT) : NULL;
  if (cur && cur != ornic_handle) stock_rroce_handle = cur;
  dissector_add_uint_with_preference("udp.port", ORNIC_ROCEV2_UDP_PORT, ornic_handle);
  proto_infiniband = proto_get_id_by_filter_name("infiniband");
  dissector_table_t eth = find_dissector_table("ethertype");
  dissector_handle_t v1 = eth ? dissector_get_uint_handle(eth, ORNIC_ETHERTYPE_ROCEV1) : NULL;
  if (v1 && v1 != rocev1_handle) {
    stock_rocev1_handle = v1;
    dissector_change_uint("ethertype", ORNIC_ETHERTYPE_ROCEV1, rocev1_handle);
  }
  dissector_table_t erf = find_dissector_table("erf.types.type");
  dissector_handle_t ib = erf ? dissector_get_uint_handle(erf, ERF_TYPE_INFINIBAND) : NULL;
  if (ib && ib != ib_handle) {
    stock_ib_handle = ib;
    dissector_change_uint("erf.types.type", ERF_TYPE_INFINIBAND, ib_handle);
  }
}
