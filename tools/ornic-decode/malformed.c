/* Explanations of ORNIC_ERR_MALFORMED, from the rules the library says the
 * frame breaks (ornic_frame.malformed, PROTOCOL.md D3, D5, D6, D7) and the
 * fields it filled in. A frame may break several: each is named, in wire
 * order. */
#include "malformed.h"

#include <stdarg.h>
#include <stdio.h>

#include <ornic/ornic.h>

typedef struct {
  char *buf;
  size_t len, used;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void add(text *t, const char *fmt, ...) {
  if (t->used >= t->len) return;
  if (t->used) {
    int n = snprintf(t->buf + t->used, t->len - t->used, "; ");
    t->used += n > 0 ? (size_t)n : 0;
    if (t->used >= t->len) return;
  }
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
  va_end(ap);
  t->used += n > 0 ? (size_t)n : 0;
}

static unsigned ip_payload(const ornic_frame *f) { return f->ip.total_len - f->ip.hdr_len; }

static void explain_lengths(const ornic_frame *f, uint16_t m, text *t) {
  if (m & ORNIC_MAL_IP_LEN)
    add(t, "IP length %u leaves no room for a UDP header (D3)", f->ip.total_len);
  if (m & ORNIC_MAL_UDP_SHORT)
    add(t, "UDP length %u is shorter than the %u-byte IP payload: %u bytes after the UDP datagram (D3)",
        f->udp.len, ip_payload(f), ip_payload(f) - (unsigned)(f->roce_end - f->l4_off));
  if (m & ORNIC_MAL_UDP_LONG)
    add(t, "UDP length %u exceeds the %u-byte IP payload: iCRC not located (D3)", f->udp.len,
        ip_payload(f));
  if (m & ORNIC_MAL_ROCE_SHORT) {
    if (f->l3 == ORNIC_L3_GRH)
      add(t, "GRH payload length %u cannot hold a BTH and an iCRC (D3)", ip_payload(f));
    else
      add(t, "UDP length %u cannot hold a BTH and an iCRC (D3)", f->udp.len);
  }
}

/* The rules after the BTH; the iCRC is located whenever they are checked. */
static void explain_layout(const ornic_frame *f, uint16_t m, text *t) {
  const char *name = ornic_opcode_name(f->bth.opcode);
  if (m & ORNIC_MAL_EXT)
    add(t, "the %zu bytes between BTH and iCRC cannot hold the extension headers of %s (D5)",
        f->icrc_off - f->ext_off, name);
  if (m & ORNIC_MAL_NAK_BLOCKS) add(t, "NAKETH nblocks is 0 (D6)");
  if (m & ORNIC_MAL_ALIGN)
    add(t, "ORNIC packet is not whole 4-byte words from BTH to iCRC (%zu bytes after the BTH; "
           "PadCnt %u) (D7)", f->icrc_off - f->ext_off, f->bth.padcnt);
  long tail = (long)f->icrc_off - (long)f->payload_off;
  if (m & ORNIC_MAL_PAD) add(t, "PadCnt %u exceeds the %ld bytes after the headers (D5)", f->bth.padcnt, tail);
  if (m & ORNIC_MAL_PAYLOAD)
    add(t, "%s carries no payload but %ld bytes follow its headers (D5)", name, tail - f->bth.padcnt);
}

void dec_explain_malformed(const ornic_frame *f, char *buf, size_t len) {
  uint16_t m = f->malformed;
  if (m & ORNIC_MAL_IP_HEADER) {
    snprintf(buf, len, "malformed IP header: bad version or header length");
    return;
  }
  int n = snprintf(buf, len, "malformed: ");
  if (n < 0 || (size_t)n >= len) return;
  text t = {buf + n, len - (size_t)n, 0};
  explain_lengths(f, m, &t);
  explain_layout(f, m, &t);
  if (!t.used) snprintf(buf, len, "%s", ornic_strerror(ORNIC_ERR_MALFORMED));
}
