/* SPDX-License-Identifier: MIT */
/* Native InfiniBand pieces that ornic_frame_decode.c, ornic_frame_encode.c
 * and ornic_icrc.c call (ornic_ib.c, ornic_icrc.c). Not exported. */
#ifndef ORNIC_IB_INTERNAL_H
#define ORNIC_IB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/frame.h"
#include "ornic/headers.h"
#include "ornic/ib.h"

/* Decode, step 1: the LRH of data. Sets f->lrh, ORNIC_LAYER_LRH, the VCRC's
 * place (vcrc_off, vcrc, vcrc_present) and f->roce_end (PktLen * 4, the end
 * of the iCRC), and flags ORNIC_MAL_LRH_LEN when PktLen cannot hold the
 * headers. Returns the offset of the BTH (8, or 48 after a GRH: the caller
 * reads the GRH at 8), or ORNIC_ERR_TRUNCATED (no whole LRH),
 * ORNIC_ERR_NOT_ROCE (LNH 0 or 1: no BTH), ORNIC_ERR_MALFORMED (PktLen ends
 * before the BTH's place). */
int ornic_ib_decode_lrh(ornic_frame *f, const uint8_t *data, size_t len);

/* Decode, step 2 (LNH 3): the GRH was read into f->ip; flags
 * ORNIC_MAL_LRH_LEN when its payload length disagrees with PktLen. */
void ornic_ib_check_grh(ornic_frame *f);

/* Decode, step 3: rc is what the transport decoder returned. One broken
 * rule, one bit: a PktLen too short for BTH + iCRC is LRH_LEN, not
 * ROCE_SHORT. A frame whole up to its iCRC but without its VCRC is
 * truncated. Returns the decode result. */
int ornic_ib_decode_end(ornic_frame *f, int rc);

/* ornic_frame_encode / _capacity for f->link == ORNIC_LINK_IB. */
ornic_ssize ornic_ib_frame_encode(uint8_t *out, size_t cap, const ornic_frame *f);
size_t ornic_ib_frame_encode_capacity(const ornic_frame *f);

/* The iCRC of a native IB packet from its LRH (ornic_icrc.c): lrh[1]'s LNH
 * must be 2 or 3 and icrc_off at least the BTH's end (unchecked). */
uint32_t ornic_icrc_ib_calc(const uint8_t *lrh, size_t icrc_off);

#endif
