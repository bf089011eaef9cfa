/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Follow ORNIC QP stream (register_follow_stream): the message bytes of one
 * QP pair, `tshark -z follow,ornic,ascii|hex|raw|...,N` with N the
 * conversation (ornic.analysis.conv) and, from 4.2 on, Analyze > Follow >
 * ORNIC Stream in the GUI.
 *
 * Host A of the conversation is the client, host B the server; a host's
 * bytes are the payloads it sends: its requests' (SEND, WRITE) and its READ
 * responses'. Each packet is one record, in PSN order within its PSN space
 * (a requester direction), whatever order the fabric delivered them in, and
 * each PSN once: a repeat (ORNIC_AN_DUP, ORNIC_AN_RETRANS) finds its PSN
 * already held and is left out. */
#include "ornic_diss.h"

#include <epan/follow.h>
#include <epan/tap.h>
#include <epan/to_str.h>

#define CONV_FIELD "ornic.analysis.conv"

/* ---- filters ----------------------------------------------------------------------- */

/* Every conversation id whose packets belong to final conversation `stream`:
 * a packet keeps the id its conversation had when it was analysed. Before a
 * capture is read (tshark parses -z first) the engine knows none: the id
 * alone. */
static gchar *index_filter(guint stream, guint sub_stream _U_) {
  const ornic_analysis *a = ornic_analysis_engine();
  guint32 count = a ? ornic_analysis_conv_count(a) : 0, n = 0;
  GString *ids = g_string_new(NULL);
  for (guint32 id = 1; id <= count; id++) {
    const ornic_an_conv *f = ornic_analysis_conv_final(a, id);
    if (!f || f->id != stream) continue;
    g_string_append_printf(ids, "%s%u", n++ ? ", " : "", id);
  }
  gchar *r = n > 1 ? g_strdup_printf(CONV_FIELD " in {%s}", ids->str)
                   : g_strdup_printf(CONV_FIELD " == %u", stream);
  g_string_free(ids, TRUE);
  return r;
}

static guint32 final_id(guint32 conv) {
  const ornic_analysis *a = ornic_analysis_engine();
  const ornic_an_conv *f = a ? ornic_analysis_conv_final(a, conv) : NULL;
  return f ? f->id : conv;
}

/* The selected packet's QP pair (the GUI's Follow). */
static gchar *conv_filter(epan_dissect_t *edt _U_, packet_info *pinfo, guint *stream,
                          guint *sub_stream) {
  guint32 conv;
  guint8 dir;
  if (!ornic_analysis_stored_conv(pinfo, &conv, &dir) || !conv) return NULL;
  *stream = final_id(conv);
  *sub_stream = 0;
  return index_filter(*stream, 0);
}

/* tshark's "-z follow,ornic,MODE,ADDR:QP,ADDR:QP" form: the ports are QPs.
 * DestQP is stock's field for standard opcodes, ORNIC's for its own. */
static gchar *address_filter(address *src, address *dst, int src_qp, int dst_qp) {
  const char *ip = src->type == AT_IPv6 ? "ipv6" : "ip";
  gchar *a = address_to_str(NULL, src), *b = address_to_str(NULL, dst);
  gchar *r = g_strdup_printf(
      "%s.addr == %s && %s.addr == %s && (infiniband.bth.destqp in {%d, %d} || "
      "ornic.bth.destqp in {%d, %d})",
      ip, a, ip, b, src_qp, dst_qp, src_qp, dst_qp);
  wmem_free(NULL, a);
  wmem_free(NULL, b);
  return r;
}

static gchar *qp_to_display(wmem_allocator_t *allocator, guint qp) {
  return wmem_strdup_printf(allocator, "0x%06x", qp);
}

/* The GUI's stream number runs from 0 to this minus one; 0 is no conversation. */
static guint32 stream_count(void) {
  const ornic_analysis *a = ornic_analysis_engine();
  return a ? ornic_analysis_conv_count(a) + 1 : 0;
}

/* ---- the tap ----------------------------------------------------------------------- */

/* A record's seq: its PSN and its PSN space (the requester direction). */
#define SEQ(psn, dir) ((guint32)(psn) | (guint32)((dir)&1u) << 24)
#define SEQ_SPACE(seq) ((seq) >> 24)
#define SEQ_PSN(seq) ((seq)&0xffffffu)

/* Where the record `seq` goes in the payload list (newest first): after the
 * run of its space's records with higher PSNs at the head, so each space
 * reads in PSN order; NULL when its PSN is already there (a repeat). *at is
 * the element to insert before (NULL: at the end). */
static gboolean find_place(GList *payload, guint32 seq, GList **at) {
  *at = payload;
  for (GList *l = payload; l; l = l->next) {
    const follow_record_t *r = l->data;
    if (SEQ_SPACE(r->seq) != SEQ_SPACE(seq)) continue;
    int32_t d = ornic_psn_diff(SEQ_PSN(r->seq), SEQ_PSN(seq));
    if (d == 0) return FALSE;
    if (d < 0) break;
    *at = l->next;
  }
  return TRUE;
}

/* Host A is the client, its QP the port: the QP pair as the engine knows it
 * now (a QP is learnt when a response pairs the two: later, in one pass). */
static void set_ends(follow_info_t *fi, const ornic_an_conv *c) {
  if (c->qp_a_known) fi->client_port = c->qp_a;
  if (c->qp_b_known) fi->server_port = c->qp_b;
  if (fi->client_ip.type != AT_NONE || !c->addr_len) return;
  int t = c->addr_len == 16 ? AT_IPv6 : AT_IPv4;
  address a, b;
  set_address(&a, t, c->addr_len, c->a);
  set_address(&b, t, c->addr_len, c->b);
  copy_address(&fi->client_ip, &a);
  copy_address(&fi->server_ip, &b);
}

/* Whether host B sent the packet: its requests (direction B->A) and its
 * responses to A's (A->B). */
static gboolean from_b(const ornic_an_verdict *v) {
  return (v->dir == ORNIC_AN_DIR_BA) == (v->role == ORNIC_AN_ROLE_REQUEST);
}

static tap_packet_status follow_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_,
                                       const void *data, tap_flags_t flags _U_) {
  follow_info_t *fi = tapdata;
  const ornic_tap_info *ti = data;
  const ornic_frame *f = ti->f;
  const ornic_analysis *a = ornic_analysis_engine();
  if (!f || !f->payload || !f->payload_caplen || !ti->an || !ti->an->v.conv || !a)
    return TAP_PACKET_DONT_REDRAW;
  const ornic_an_verdict *v = &ti->an->v;
  if (v->role != ORNIC_AN_ROLE_REQUEST && v->role != ORNIC_AN_ROLE_RESPONSE)
    return TAP_PACKET_DONT_REDRAW;
  guint32 seq = SEQ(f->bth.psn, v->dir);
  GList *at;
  if (!find_place(fi->payload, seq, &at)) return TAP_PACKET_DONT_REDRAW;
  const ornic_an_conv *c = ornic_analysis_conv_final(a, v->conv);
  if (c) set_ends(fi, c);
  follow_record_t *r = g_new0(follow_record_t, 1);
  r->is_server = from_b(v);
  r->packet_num = pinfo->num;
  r->abs_ts = pinfo->abs_ts;
  r->seq = seq;
  /* A payload cut by the snaplen: the captured part. */
  r->data = g_byte_array_append(g_byte_array_new(), f->payload, (guint)f->payload_caplen);
  fi->bytes_written[r->is_server] += (guint)f->payload_caplen;
  fi->payload = g_list_insert_before(fi->payload, at, r);
  return TAP_PACKET_REDRAW;
}

/* Twice: as ORNIC, and under stock's InfiniBand protocol, which has no
 * follower of its own. The GUI (4.2 on) enables a follower only on packets
 * whose layers hold its protocol, and a standard-opcode packet's layers are
 * stock's (eth:...:udp:infiniband, ornic_dissect.c drop_own_layer): every
 * real capture's RC SENDs would have no Follow otherwise. Both read the same
 * tap, so `-z follow,ornic,...` and `-z follow,infiniband,...` agree. */
void ornic_register_follow(void) {
  ornic_register_follow_stream(proto_ornic, "ornic", conv_filter, index_filter, address_filter,
                               qp_to_display, follow_packet, stream_count);
  int proto_ib = proto_get_id_by_filter_name("infiniband");
  if (proto_ib != -1)
    ornic_register_follow_stream(proto_ib, "ornic", conv_filter, index_filter, address_filter,
                                 qp_to_display, follow_packet, stream_count);
}
