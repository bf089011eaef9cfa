/* SPDX-License-Identifier: MIT */
/* What frame.h promises about a decode result, checked field by field. */
#include "fuzz_frame_check.h"

#include <stdbool.h>
#include <string.h>

#include "fuzz_driver.h"

static int known_rc(int rc) {
  return rc == ORNIC_OK || rc == ORNIC_ERR_TRUNCATED || rc == ORNIC_ERR_MALFORMED ||
         rc == ORNIC_ERR_NOT_ROCE || rc == ORNIC_ERR_UNKNOWN_OPCODE || rc == ORNIC_ERR_UNSUPPORTED;
}

/* A view [p, p + n) must lie inside [data, data + len). */
static void check_view(const uint8_t *p, size_t n, const uint8_t *data, size_t len,
                       const char *what) {
  fuzz_check(p >= data && (size_t)(p - data) <= len && n <= len - (size_t)(p - data),
             "%s view [%td, +%zu) outside the %zu input bytes", what, p - data, n, len);
}

/* NAK bitmap: the accessors against the bytes, bit by bit (an independent
 * reading of PROTOCOL.md 3.5), and PSNs just outside read as -1. */
void fuzz_check_nak(const ornic_naketh *nak, const uint8_t *data, size_t len) {
  fuzz_check(nak->nblocks >= 1, "decoded NAK with 0 blocks");
  check_view(nak->bitmap, 2u * nak->nblocks, data, len, "NAK bitmap");
  for (unsigned k = 0; k < nak->nblocks; k++) {
    unsigned block = (unsigned)nak->bitmap[2 * k] << 8 | nak->bitmap[2 * k + 1];
    fuzz_check(ornic_naketh_block(nak, k) == block, "block %u", k);
    for (unsigned i = 0; i < 16; i++) {
      uint32_t psn = ornic_psn_add(nak->base_psn, (int32_t)(16 * k + i));
      fuzz_check(ornic_naketh_psn_state(nak, psn) == (int)((block >> i) & 1),
                 "PSN state of block %u bit %u", k, i);
    }
  }
  fuzz_check(ornic_naketh_block(nak, nak->nblocks) == 0, "block past the end");
  fuzz_check(ornic_naketh_psn_state(nak, ornic_psn_add(nak->base_psn, -1)) == -1,
             "PSN before base");
  fuzz_check(ornic_naketh_psn_state(nak, ornic_psn_add(nak->base_psn, 16 * nak->nblocks)) == -1,
             "PSN past the bitmap");
  (void)ornic_naketh_reason_name(nak->reason);
  /* The lost set (4.4) from the NAK alone: the span is Limit - Base clamped to
   * 1 .. 16n, and the iterator's runs are exactly the PSNs psn_lost names. */
  uint32_t span = ornic_naketh_lost_span(nak), bits = 16u * nak->nblocks;
  int32_t want = ornic_psn_diff(nak->limit_psn, nak->base_psn);
  fuzz_check(span == (want < 1                ? 1u
                      : (uint32_t)want < bits ? (uint32_t)want
                                              : bits),
             "lost span %u for limit - base %d, %u bits", span, want, bits);
  ornic_naketh_lost_iter it;
  uint32_t first, n, d = 0, total = 0;
  ornic_naketh_lost_begin(&it, nak);
  while (ornic_naketh_lost_next_run(&it, &first, &n)) {
    uint32_t at = (uint32_t)ornic_psn_diff(first, nak->base_psn);
    fuzz_check(n >= 1 && at >= d && at + n <= span, "lost run %u+%u after %u, span %u", at, n, d,
               span);
    for (; d < at; d++)
      fuzz_check(!ornic_naketh_psn_lost(nak, ornic_psn_add(nak->base_psn, (int32_t)d)),
                 "PSN Base+%u lost but not in a run", d);
    for (; d < at + n; d++)
      fuzz_check(ornic_naketh_psn_lost(nak, ornic_psn_add(nak->base_psn, (int32_t)d)),
                 "PSN Base+%u in a run but not lost", d);
    total += n;
  }
  for (; d < bits; d++)
    fuzz_check(!ornic_naketh_psn_lost(nak, ornic_psn_add(nak->base_psn, (int32_t)d)),
               "PSN Base+%u lost after the last run", d);
  fuzz_check(total == ornic_naketh_lost_count(nak) && total >= 1, "lost count %u", total);
}

/* Offsets of a frame whose BTH was read (OK, TRUNCATED after the BTH, ...). */
static void check_transport(const ornic_frame *f, const uint8_t *data, size_t len, int rc) {
  const ornic_opcode_info *op = ornic_opcode_info_get(f->bth.opcode);
  fuzz_check(f->bth_off + ORNIC_BTH_LEN <= len, "BTH at %zu of %zu", f->bth_off, len);
  /* The DC block's bytes sit between BTH and headers once they were read
   * (docs/PROTOCOL.md 2.8); a decoded frame has read them. */
  size_t dc = ornic_opcode_dc_len(f->bth.opcode, f->bth.se);
  fuzz_check(f->ext_off == f->bth_off + ORNIC_BTH_LEN + dc ||
                 (rc != ORNIC_OK && f->ext_off == f->bth_off + ORNIC_BTH_LEN),
             "ext_off");
  /* icrc_off is 0 while the lengths do not locate the iCRC (malformed, D3). */
  fuzz_check(
      f->icrc_off == 0 ? rc == ORNIC_ERR_MALFORMED : f->icrc_off + ORNIC_ICRC_LEN == f->roce_end,
      "icrc_off %zu roce_end %zu rc %d", f->icrc_off, f->roce_end, rc);
  fuzz_check(!f->icrc_present || (f->icrc_off && f->roce_end <= len),
             "iCRC present beyond the input");
  fuzz_check(!f->payload || f->icrc_off, "a payload view without a located iCRC");
  fuzz_check((f->ext.present & ~op->hdrs) == 0, "decoded headers %#x not in the opcode's %#x",
             f->ext.present, op->hdrs);
  fuzz_check(
      f->bth.padcnt <= 3 && f->bth.se <= 1 && f->bth.destqp <= 0xffffff && f->bth.psn <= 0xffffff,
      "BTH field widths");
  if (f->ext.present & ORNIC_HDR_NAKETH) fuzz_check_nak(&f->ext.naketh, data, len);
  if (f->ext.present & ORNIC_HDR_AETH) (void)ornic_aeth_syndrome_name(f->ext.aeth.syndrome);
  if (rc == ORNIC_OK) {
    fuzz_check(f->ext.present == op->hdrs, "whole frame with headers %#x of %#x", f->ext.present,
               op->hdrs);
    fuzz_check(f->icrc_present && f->roce_end <= len, "whole frame without its iCRC");
    fuzz_check(f->payload_off + f->payload_len + f->pad_len == f->icrc_off,
               "payload %zu + %zu + pad %u != iCRC offset %zu", f->payload_off, f->payload_len,
               f->pad_len, f->icrc_off);
    fuzz_check(f->pad_len == f->bth.padcnt, "pad_len");
    fuzz_check(f->payload_caplen == f->payload_len, "caplen of a whole payload");
    fuzz_check(f->payload_off == f->ext_off + ornic_ext_size(&f->ext, op->hdrs), "ext size");
    fuzz_check(!f->payload_len || (op->flags & ORNIC_OPF_PAYLOAD),
               "payload on a payload-less opcode");
    check_view(f->payload, f->payload_len + f->pad_len, data, len, "payload");
  } else if ((rc == ORNIC_ERR_TRUNCATED || rc == ORNIC_ERR_MALFORMED) && f->payload) {
    fuzz_check(f->payload_caplen <= f->payload_len, "payload caplen");
    check_view(f->payload, f->payload_caplen, data, len, "captured payload");
  }
}

static void check_icrc(const ornic_frame *f, const uint8_t *data, int rc) {
  uint32_t icrc = 0;
  int crc = ornic_icrc_compute(f, data, &icrc);
  int vrc = ornic_icrc_verify(f, data);
  fuzz_check(crc == ORNIC_OK || crc == ORNIC_ERR_TRUNCATED || crc == ORNIC_ERR_INVALID_ARG ||
                 crc == ORNIC_ERR_UNSUPPORTED,
             "icrc_compute returned %d", crc);
  if (crc == ORNIC_OK)
    fuzz_check(vrc == (icrc == f->icrc ? ORNIC_OK : ORNIC_ERR_BAD_ICRC),
               "verify %d disagrees with compute %#x vs wire %#x", vrc, icrc, f->icrc);
  else
    fuzz_check(vrc == crc, "verify %d, compute %d", vrc, crc);
  /* A whole frame read from Ethernet/IP/GRH can always be checked (IPv4 options included). */
  if (rc == ORNIC_OK && f->l3 != ORNIC_L3_NONE)
    fuzz_check(crc == ORNIC_OK, "whole frame, iCRC %d", crc);
}

void fuzz_check_decoded(const ornic_frame *f, const uint8_t *data, size_t len, int rc) {
  fuzz_check(known_rc(rc), "decode returned %d (%s)", rc, ornic_errname(rc));
  fuzz_check(strcmp(ornic_strerror(rc), "unknown error code") != 0 &&
                 strcmp(ornic_errname(rc), "ORNIC_ERR_?") != 0,
             "text of %d", rc);
  fuzz_check(f->caplen == len, "caplen %zu of %zu", f->caplen, len);
  fuzz_check((rc == ORNIC_ERR_MALFORMED) == (f->malformed != 0), "rc %d with malformed bits %#x",
             rc, f->malformed);
  fuzz_check(f->l3_off <= len && f->l4_off <= len, "L3/L4 offsets past the input");
  (void)ornic_opcode_name(f->bth.opcode);
  bool bth_read = (f->layers & ORNIC_LAYER_BTH) != 0;
  if (rc == ORNIC_OK || rc == ORNIC_ERR_UNKNOWN_OPCODE || (rc != ORNIC_ERR_NOT_ROCE && bth_read))
    check_transport(f, data, len, rc);
  if (rc == ORNIC_OK || rc == ORNIC_ERR_UNKNOWN_OPCODE || rc == ORNIC_ERR_TRUNCATED ||
      rc == ORNIC_ERR_MALFORMED)
    if (bth_read) check_icrc(f, data, rc);
}
