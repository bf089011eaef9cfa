/* SPDX-License-Identifier: MIT */
/* Base Transport Header codec (IBA 9.2). */
#include "ornic/errors.h"
#include "ornic/headers.h"
#include "ornic_conv.h"
#include "ornic_internal.h"

int ornic_bth_decode(ornic_bth *b, const uint8_t *p, size_t len) {
  if (len < ORNIC_BTH_LEN) return ORNIC_ERR_TRUNCATED;
  b->opcode = p[0];
  b->se = p[1] >> 7;
  b->m = (p[1] >> 6) & 1;
  b->padcnt = (p[1] >> 4) & 3;
  b->tver = p[1] & 0x0f;
  b->pkey = ornic_get_u16(p + 2);
  b->fecn = p[4] >> 7;
  b->becn = (p[4] >> 6) & 1;
  b->resv6 = p[4] & 0x3f;
  b->destqp = ornic_get_u24(p + 5);
  b->ackreq = p[8] >> 7;
  b->resv7 = p[8] & 0x7f;
  b->psn = ornic_get_u24(p + 9);
  return ORNIC_BTH_LEN;
}

bool ornic_bth_valid(const ornic_bth *b) {
  return b->se <= 1 && b->m <= 1 && b->padcnt <= 3 && b->tver <= 15 && b->fecn <= 1 &&
         b->becn <= 1 && b->resv6 <= 0x3f && b->destqp <= 0xffffff && b->ackreq <= 1 &&
         b->resv7 <= 0x7f && b->psn <= 0xffffff;
}

ornic_ssize ornic_bth_encode(uint8_t *out, size_t cap, const ornic_bth *b) {
  if (!ornic_bth_valid(b)) return ORNIC_ERR_INVALID_ARG;
  if (cap < ORNIC_BTH_LEN) return ORNIC_ERR_NOBUF;
  uint8_t *p = out;
  p = ornic_put_u8(p, b->opcode);
  p = ornic_put_u8(p, (uint8_t)(b->se << 7 | b->m << 6 | b->padcnt << 4 | b->tver));
  p = ornic_put_u16(p, b->pkey);
  p = ornic_put_u8(p, (uint8_t)(b->fecn << 7 | b->becn << 6 | b->resv6));
  p = ornic_put_u24(p, b->destqp);
  p = ornic_put_u8(p, (uint8_t)(b->ackreq << 7 | b->resv7));
  ornic_put_u24(p, b->psn);
  return ORNIC_BTH_LEN;
}
