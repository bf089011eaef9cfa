/* SPDX-License-Identifier: MIT */
/* Base Transport Header codec (IBA 9.2): its fields are ornic_hdr_fields.h's
 * ORNIC_FIELDS_bth, read, written and range-checked by ornic_hdr_codec.h. */
#include "ornic/errors.h"
#include "ornic/headers.h"
#include "ornic_hdr_codec.h"
#include "ornic_internal.h"

int ornic_bth_decode(ornic_bth *b, const uint8_t *p, size_t len) {
  if (len < ORNIC_BTH_LEN) return ORNIC_ERR_TRUNCATED;
  ornic_bth_read(b, p);
  return ORNIC_BTH_LEN;
}

bool ornic_bth_valid(const ornic_bth *b) { return ornic_bth_fits(b); }

ornic_ssize ornic_bth_encode(uint8_t *out, size_t cap, const ornic_bth *b) {
  if (!ornic_bth_valid(b)) return ORNIC_ERR_INVALID_ARG;
  if (cap < ORNIC_BTH_LEN) return ORNIC_ERR_NOBUF;
  ornic_bth_write(out, b);
  return ORNIC_BTH_LEN;
}
