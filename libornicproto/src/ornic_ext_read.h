/* SPDX-License-Identifier: MIT */
/* The extension headers an ORNIC/RC stream carries most (RETH, OFFETH, AETH,
 * OACKETH, NAKETH, ImmDt: docs/PROTOCOL.md 3, IBA 9.3), one inline reader
 * each: the one description of their layouts, used by the frame decoder's
 * fast path (ornic_frame_fast.c) and by the general decoder (fixed_read and
 * naketh_read in ornic_ext.c, which check the lengths first); the caller
 * has checked that the header's bytes are there. Each returns the pointer past
 * the header, and reads each byte once, as part of a word (see
 * ornic_bth_read.h). */
#ifndef ORNIC_EXT_READ_H
#define ORNIC_EXT_READ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ornic/headers.h"
#include "ornic/opcode.h"
#include "ornic_conv.h"

#define ORNIC_EXT_READ_HDRS                                                                    \
  (ORNIC_HDR_RETH | ORNIC_HDR_OFFETH | ORNIC_HDR_AETH | ORNIC_HDR_OACKETH | ORNIC_HDR_NAKETH | \
   ORNIC_HDR_IMMDT)

static inline const uint8_t *ornic_reth_read(ornic_reth *r, const uint8_t *p) {
  r->va = ornic_get_u64(p);
  r->rkey = ornic_get_u32(p + 8);
  r->dmalen = ornic_get_u32(p + 12);
  return p + 16;
}

static inline const uint8_t *ornic_offeth_read(ornic_offeth *o, const uint8_t *p) {
  o->offset = ornic_get_u32(p);
  return p + 4;
}

static inline const uint8_t *ornic_aeth_read(ornic_aeth *a, const uint8_t *p) {
  uint32_t w = ornic_get_u32(p);
  a->syndrome = (uint8_t)(w >> 24);
  a->msn = w & 0xffffff;
  return p + 4;
}

/* Flags and resv as they are, count byte-swapped: one load, one store. */
_Static_assert(sizeof(ornic_oacketh) == 4 && offsetof(ornic_oacketh, flags) == 0 &&
                   offsetof(ornic_oacketh, resv) == 1 && offsetof(ornic_oacketh, count) == 2,
               "OACKETH layout");
static inline const uint8_t *ornic_oacketh_read(ornic_oacketh *o, const uint8_t *p) {
  uint16_t v[2];
  memcpy(v, p, 2); /* flags, resv: bytes */
  v[1] = ornic_get_u16(p + 2);
  memcpy(o, v, 4);
  return p + 4;
}

/* The fixed part and nblocks 16-bit blocks, the bitmap a view of them. */
static inline const uint8_t *ornic_naketh_read(ornic_naketh *n, const uint8_t *p) {
  uint32_t w = ornic_get_u32(p);
  n->reason = (uint8_t)(w >> 24);
  n->trigger_psn = w & 0xffffff;
  w = ornic_get_u32(p + 4);
  n->nblocks = (uint8_t)(w >> 24);
  n->base_psn = w & 0xffffff;
  w = ornic_get_u32(p + 8);
  n->resv = (uint8_t)(w >> 24);
  n->limit_psn = w & 0xffffff;
  n->bitmap = p + ORNIC_NAKETH_FIXED_LEN;
  return n->bitmap + 2u * n->nblocks;
}

static inline const uint8_t *ornic_immdt_read(ornic_immdt *i, const uint8_t *p) {
  i->data = ornic_get_u32(p);
  return p + 4;
}

#endif
