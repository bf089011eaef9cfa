/* SPDX-License-Identifier: MIT */
/* Native InfiniBand: the Local Route Header and the variant CRC.
 *
 * A native IB packet (link ORNIC_LINK_IB, pcap LINKTYPE_INFINIBAND) is
 *   LRH (8 B) [GRH (40 B) when LNH = 3] BTH ... payload pad iCRC (4 B) VCRC (2 B)
 * ornic_frame_decode reads all of it into an ornic_frame (the LRH in f->lrh,
 * the GRH in f->ip as for RoCEv1) and ornic_frame_encode writes it; the
 * functions here are the LRH on its own and the VCRC. The iCRC of a native
 * IB frame is ornic_icrc_compute / ornic_icrc_verify (ornic/icrc.h), as for
 * RoCE. docs/PROTOCOL.md section 2.7 has the byte layout and what is IBA's. */
#ifndef ORNIC_IB_H
#define ORNIC_IB_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/export.h"
#include "ornic/frame.h"
#include "ornic/headers.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ORNIC_LRH_LEN 8
#define ORNIC_VCRC_LEN 2
#define ORNIC_LRH_PKTLEN_MAX 0x7ff /* 11 bits of 4-byte words */

/* Reads the 8-byte LRH at p into *lrh. Returns ORNIC_LRH_LEN, or
 * ORNIC_ERR_TRUNCATED when len < 8 (*lrh untouched). Every field is kept as
 * it stands, reserved bits and LVer included. lrh and p must be non-NULL
 * (p may be anything when len < 8). */
ORNIC_API int ornic_lrh_decode(ornic_lrh *lrh, const uint8_t *p, size_t len);

/* Writes *lrh as 8 bytes at out. Returns ORNIC_LRH_LEN, ORNIC_ERR_NOBUF
 * (cap < 8, nothing written) or ORNIC_ERR_INVALID_ARG (a field wider than its
 * bits: vl, lver, sl > 15, resv2, lnh > 3, resv5 > 31, pktlen > 0x7ff;
 * nothing written). out and lrh must be non-NULL. */
ORNIC_API ornic_ssize ornic_lrh_encode(uint8_t *out, size_t cap, const ornic_lrh *lrh);

/* The VCRC (IBA 7.8.2) of the bytes [lrh, lrh + vcrc_off): CRC-16 with
 * polynomial 0x100B, reflected, initial value 0xFFFF, final XOR 0xFFFF,
 * over every byte from the LRH through the iCRC. *vcrc is the value as
 * ornic_frame.vcrc holds it (the little-endian u16 of the two wire bytes).
 * Returns ORNIC_OK, ORNIC_ERR_TRUNCATED (len < vcrc_off) or
 * ORNIC_ERR_INVALID_ARG (lrh or vcrc NULL, or vcrc_off < ORNIC_LRH_LEN);
 * *vcrc is written only on ORNIC_OK. */
ORNIC_API int ornic_vcrc_compute_at(const uint8_t *lrh, size_t len, size_t vcrc_off,
                                    uint16_t *vcrc);

/* The VCRC of a frame decoded by ornic_frame_decode from `data` (the same
 * pointer). Returns ORNIC_OK (*vcrc written), ORNIC_ERR_TRUNCATED (the VCRC
 * was not located or not captured: f->vcrc_present is false) or
 * ORNIC_ERR_INVALID_ARG (f is not an ORNIC_LINK_IB frame, or data or vcrc is
 * NULL). f must be non-NULL. */
ORNIC_API int ornic_vcrc_compute(const ornic_frame *f, const uint8_t *data, uint16_t *vcrc);

/* Checks f->vcrc against the bytes. Returns ORNIC_OK, ORNIC_ERR_BAD_VCRC
 * (the VCRC does not match: damage on the last link, which the iCRC may
 * not show), or the codes of ornic_vcrc_compute when it cannot be
 * checked (ORNIC_ERR_TRUNCATED, ORNIC_ERR_INVALID_ARG). f must be non-NULL. */
ORNIC_API int ornic_vcrc_verify(const ornic_frame *f, const uint8_t *data);

#ifdef __cplusplus
}
#endif
#endif
