/* Explanations of ORNIC_ERR_MALFORMED, from the fields the library filled
 * in. The checks mirror PROTOCOL.md rules D3, D5, D6 and D7; when none
 * matches, the library's own text is used. */
#include "malformed.h"

#include <stdio.h>

#include <ornic/ornic.h>

static void explain_lower(const ornic_frame *f, char *buf, size_t len) {
  if (f->l3 == ORNIC_L3_NONE)
    snprintf(buf, len, "malformed IP header: bad version or header length");
  else if (f->l3 == ORNIC_L3_GRH)
    snprintf(buf, len, "malformed: GRH payload length %u cannot hold a BTH and an iCRC (D3)",
             (unsigned)(f->ip.total_len - 40));
  else
    snprintf(buf, len,
             "malformed: IP length %u and UDP length %u disagree, or the UDP payload cannot hold "
             "a BTH and an iCRC (D3)",
             f->ip.total_len, f->udp.len);
}

/* The headers before the NAKETH (lower bits: earlier on the wire) were read
 * and its fixed part fitted, so the library read nblocks and refused 0. */
static bool nak_blocks_zero(const ornic_frame *f, uint16_t hdrs, size_t after_bth) {
  uint16_t before = hdrs & (ORNIC_HDR_NAKETH - 1);
  if (!(hdrs & ORNIC_HDR_NAKETH) || (f->ext.present & before) != before) return false;
  return after_bth >= ornic_ext_size(&f->ext, before) + ORNIC_NAK_FIXED_LEN &&
         f->ext.naketh.nblocks == 0;
}

/* Bytes after the extension headers and before the iCRC (pad included). */
static long tail_bytes(const ornic_frame *f, uint16_t hdrs) {
  return (long)(f->roce_end - ORNIC_ICRC_LEN) - (long)f->ext_off -
         (long)ornic_ext_size(&f->ext, hdrs);
}

void dec_explain_malformed(const ornic_frame *f, bool has_bth, char *buf, size_t len) {
  if (!has_bth) {
    explain_lower(f, buf, len);
    return;
  }
  const ornic_opcode_info *op = ornic_opcode_info_get(f->bth.opcode);
  size_t after_bth = f->roce_end - ORNIC_ICRC_LEN - f->ext_off;
  if ((f->ext.present & op->hdrs) != op->hdrs) {
    if (nak_blocks_zero(f, op->hdrs, after_bth))
      snprintf(buf, len, "malformed: NAKETH nblocks is 0 (D6)");
    else
      snprintf(buf, len,
               "malformed: the %zu bytes between BTH and iCRC cannot hold the extension headers "
               "of %s (D5)",
               after_bth, ornic_opcode_name(f->bth.opcode));
    return;
  }
  if (op->transport == ORNIC_TRANSPORT_ORNIC && after_bth % 4) {
    snprintf(buf, len,
             "malformed: ORNIC packet is not whole 4-byte words from BTH to iCRC (%zu bytes "
             "after the BTH; PadCnt %u) (D7)",
             after_bth, f->bth.padcnt);
    return;
  }
  long tail = tail_bytes(f, op->hdrs);
  if (tail < f->bth.padcnt)
    snprintf(buf, len, "malformed: PadCnt %u exceeds the %ld bytes after the headers (D5)",
             f->bth.padcnt, tail);
  else if (tail > f->bth.padcnt && !(op->flags & ORNIC_OPF_PAYLOAD))
    snprintf(buf, len, "malformed: %s carries no payload but %ld bytes follow its headers (D5)",
             ornic_opcode_name(f->bth.opcode), tail - f->bth.padcnt);
  else
    snprintf(buf, len, "%s", ornic_strerror(ORNIC_ERR_MALFORMED));
}
