/* RoCE invariant CRC (IBA Annex A17.3.3; RoCEv1: 9.8 with the GRH). */
#include <string.h>

#include "ornic/errors.h"
#include "ornic/frame.h"
#include "ornic/icrc.h"
#include "ornic_conv.h"
#include "ornic_internal.h"

/* ornic_crc32(0, eight 0xFF bytes): the masked LRH every RoCE iCRC starts with. */
#define ICRC_SEED_AFTER_LRH 0x2144df1cu
/* Largest masked prefix: IPv4 with 40 B of options, UDP, BTH. */
#define MASKED_MAX (60 + 8 + ORNIC_BTH_LEN)

static void mask_variant_fields(uint8_t *h, int l3_kind, size_t bth_rel) {
  if (l3_kind == ORNIC_L3_IPV4) {
    size_t ihl = (size_t)(h[0] & 0x0f) * 4;
    h[1] = 0xff;                    /* TOS: DSCP + ECN */
    h[8] = 0xff;                    /* TTL */
    h[10] = h[11] = 0xff;           /* header checksum */
    h[ihl + 6] = h[ihl + 7] = 0xff; /* UDP checksum */
  } else {
    h[0] |= 0x0f;                   /* traffic class (high nibble) */
    h[1] = h[2] = h[3] = 0xff;      /* traffic class (low nibble), flow label */
    h[7] = 0xff;                    /* hop limit */
    if (l3_kind == ORNIC_L3_IPV6) h[40 + 6] = h[40 + 7] = 0xff;
  }
  h[bth_rel + 4] = 0xff; /* BTH FECN, BECN, resv6 */
}

uint32_t ornic_icrc_calc(const uint8_t *l3, int l3_kind, size_t bth_rel, size_t icrc_rel) {
  uint8_t h[MASKED_MAX];
  size_t hlen = bth_rel + ORNIC_BTH_LEN;
  memcpy(h, l3, hlen);
  mask_variant_fields(h, l3_kind, bth_rel);
  uint32_t crc = ornic_crc32(ICRC_SEED_AFTER_LRH, h, hlen);
  return ornic_crc32(crc, l3 + hlen, icrc_rel - hlen);
}

int ornic_icrc_compute(const ornic_frame *f, const uint8_t *data, uint32_t *icrc) {
  /* Anything cut before the iCRC's last byte is "not verifiable". */
  if (!f->icrc_present) return ORNIC_ERR_TRUNCATED;
  if (f->l3 == ORNIC_L3_NONE) return ORNIC_ERR_INVALID_ARG;
  if (f->bth_off - f->l3_off + ORNIC_BTH_LEN > MASKED_MAX) return ORNIC_ERR_UNSUPPORTED;
  *icrc = ornic_icrc_calc(data + f->l3_off, f->l3, f->bth_off - f->l3_off, f->icrc_off - f->l3_off);
  return ORNIC_OK;
}

int ornic_icrc_verify(const ornic_frame *f, const uint8_t *data) {
  uint32_t c;
  int rc = ornic_icrc_compute(f, data, &c);
  if (rc < 0) return rc;
  return c == f->icrc ? ORNIC_OK : ORNIC_ERR_BAD_ICRC;
}
