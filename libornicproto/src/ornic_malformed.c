/* SPDX-License-Identifier: MIT */
/* Names and explanations of the decoder rules a malformed frame breaks
 * (ornic_frame.malformed; docs/PROTOCOL.md section 5, D1-D7 and D12): the
 * decoder records which rule failed, this says it in words with the frame's
 * own numbers, so every tool prints the same sentence. */
#include <stdarg.h>
#include <stdio.h>

#include "ornic/errors.h"
#include "ornic/frame.h"
#include "ornic/opcode.h"

typedef struct {
  const char *name, *rule;
} mal_row;

/* Indexed by bit number of ORNIC_MAL_*. */
static const mal_row rows[ORNIC_MAL_COUNT] = {
    {"ip_header", "D1"},  {"ip_len", "D3"}, {"udp_short", "D3"}, {"udp_long", "D3"},
    {"roce_short", "D3"}, {"ext", "D5"},    {"pad", "D5"},       {"payload", "D5"},
    {"nak_blocks", "D6"}, {"align", "D7"},  {"lrh_len", "D12"},
};

const char *ornic_mal_name(unsigned i) { return i < ORNIC_MAL_COUNT ? rows[i].name : NULL; }
const char *ornic_mal_rule(unsigned i) { return i < ORNIC_MAL_COUNT ? rows[i].rule : NULL; }

typedef struct {
  char *buf;
  size_t len;  /* of buf */
  size_t need; /* bytes the whole text takes, as snprintf counts them */
} text;

static void vadd(text *t, const char *fmt, va_list ap) {
  char dummy[1];
  char *at = t->need < t->len ? t->buf + t->need : dummy;
  size_t room = t->need < t->len ? t->len - t->need : sizeof dummy;
  int n = vsnprintf(at, room, fmt, ap);
  t->need += n > 0 ? (size_t)n : 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vadd(t, fmt, ap);
  va_end(ap);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
add(text *t, const char *fmt, ...) {
  va_list ap;
  if (t->need) put(t, "; ");
  va_start(ap, fmt);
  vadd(t, fmt, ap);
  va_end(ap);
}

static unsigned ip_payload(const ornic_frame *f) {
  return f->ip.total_len > f->ip.hdr_len ? f->ip.total_len - f->ip.hdr_len : 0;
}

/* D1, D3: the lengths of the layers below the BTH. */
static void explain_lengths(const ornic_frame *f, uint16_t m, text *t) {
  if (m & ORNIC_MAL_IP_HEADER)
    add(t, "IP header: version %u, header length %u bytes (D1)", f->ip.version, f->ip.hdr_len);
  if (m & ORNIC_MAL_IP_LEN)
    add(t, "IP length %u leaves no room for a UDP header (D3)", (unsigned)f->ip.total_len);
  if (m & ORNIC_MAL_UDP_SHORT)
    add(t,
        "UDP length %u is shorter than the %u-byte IP payload: %u bytes after the UDP "
        "datagram (D3)",
        f->udp.len, ip_payload(f), ip_payload(f) - (unsigned)(f->roce_end - f->l4_off));
  if (m & ORNIC_MAL_UDP_LONG)
    add(t, "UDP length %u exceeds the %u-byte IP payload: iCRC not located (D3)", f->udp.len,
        ip_payload(f));
  if (m & ORNIC_MAL_ROCE_SHORT) {
    if (f->l3 == ORNIC_L3_GRH)
      add(t, "GRH payload length %u cannot hold a BTH and an iCRC (D3)", ip_payload(f));
    else if (f->layers & ORNIC_LAYER_UDP)
      add(t, "UDP length %u cannot hold a BTH and an iCRC (D3)", f->udp.len);
    else
      add(t, "%zu bytes cannot hold a BTH and an iCRC (D3)", f->roce_end);
  }
}

/* D12: native InfiniBand, the LRH PktLen against the headers and the GRH. */
static void explain_lrh(const ornic_frame *f, uint16_t m, text *t) {
  if (!(m & ORNIC_MAL_LRH_LEN)) return;
  size_t end = (size_t)f->lrh.pktlen * 4, hdrs = f->lrh.lnh == ORNIC_LNH_IBA_GLOBAL ? 48 : 8;
  if (end < hdrs + ORNIC_BTH_LEN + ORNIC_ICRC_LEN)
    add(t, "LRH PktLen %u (%zu bytes) cannot hold the %s, a BTH and an iCRC (D12)", f->lrh.pktlen,
        end, hdrs > 8 ? "LRH, the GRH" : "LRH");
  else if ((f->layers & ORNIC_LAYER_L3) && f->ip.total_len != end - 8)
    add(t, "GRH payload length %u disagrees with LRH PktLen %u (%zu bytes after the GRH) (D12)",
        (unsigned)(f->ip.total_len - 40), f->lrh.pktlen, end - 48);
}

/* D5-D7: the rules after the BTH; the iCRC is located whenever they are checked. */
static void explain_layout(const ornic_frame *f, uint16_t m, text *t) {
  const char *name = ornic_opcode_name(f->bth.opcode);
  /* Counted from the BTH's end: ext_off is past the DC bytes once they fit (PROTOCOL.md 2.8). */
  size_t after_bth = f->icrc_off - (f->bth_off + ORNIC_BTH_LEN);
  if (m & ORNIC_MAL_EXT)
    add(t, "the %zu bytes between BTH and iCRC cannot hold the %sextension headers of %s (D5)",
        after_bth, ornic_opcode_dc_len(f->bth.opcode, f->bth.se) ? "DC bytes and " : "", name);
  if (m & ORNIC_MAL_NAK_BLOCKS) add(t, "NAKETH nblocks is 0 (D6)");
  if (m & ORNIC_MAL_ALIGN)
    add(t,
        "ORNIC packet is not whole 4-byte words from BTH to iCRC (%zu bytes after the BTH; "
        "PadCnt %u) (D7)",
        f->icrc_off - f->ext_off, f->bth.padcnt);
  size_t tail = f->icrc_off > f->payload_off ? f->icrc_off - f->payload_off : 0;
  if (m & ORNIC_MAL_PAD)
    add(t, "PadCnt %u exceeds the %zu bytes after the headers (D5)", f->bth.padcnt, tail);
  if (m & ORNIC_MAL_PAYLOAD)
    add(t, "%s carries no payload but %zu bytes follow its headers (D5)", name,
        tail - f->bth.padcnt);
}

size_t ornic_frame_explain_malformed(const ornic_frame *f, char *buf, size_t len) {
  text t = {buf, buf ? len : 0, 0};
  if (t.len) buf[0] = 0;
  explain_lengths(f, f->malformed, &t);
  explain_lrh(f, f->malformed, &t);
  explain_layout(f, f->malformed, &t);
  return t.need;
}
