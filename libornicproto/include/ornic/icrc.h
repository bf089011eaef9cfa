/* SPDX-License-Identifier: MIT */
/* The IBA invariant CRC (RoCEv2, RoCEv1 and native InfiniBand) and the
 * CRC-32 backend under it. docs/PROTOCOL.md 2.6 (RoCE) and 2.7 (native IB)
 * list the bytes covered and the fields masked. */
#ifndef ORNIC_ICRC_H
#define ORNIC_ICRC_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/export.h"
#include "ornic/frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CRC-32 (IEEE 802.3, reflected) with zlib's calling convention:
 * ornic_crc32(0, NULL, 0) == 0, and calls chain. buf may be NULL only when
 * len is 0. Uses ISA-L when built with it. Cannot fail. */
ORNIC_API uint32_t ornic_crc32(uint32_t crc, const uint8_t *buf, size_t len);
/* "isa-l" or "zlib": a static string, never NULL. */
ORNIC_API const char *ornic_crc32_backend(void);

/* The iCRC of a RoCE packet from offsets the caller already knows (a
 * Wireshark dissector, say), without decoding the frame again.
 *   l3        the IPv4 header, IPv6 header or GRH; must be non-NULL
 *   len       bytes readable from l3
 *   l3_kind   ORNIC_L3_IPV4, ORNIC_L3_IPV6 or ORNIC_L3_GRH (RoCEv1)
 *   bth_off   offset of the BTH from l3: IHL*4 + 8 for IPv4 (options are
 *             covered as they stand), 48 for IPv6, 40 for a GRH
 *   icrc_off  offset of the iCRC from l3 (it covers [0, icrc_off))
 *   icrc      where the result goes, as ornic_frame.icrc holds it (the
 *             little-endian u32 of the four wire bytes); must be non-NULL
 * Returns ORNIC_OK (*icrc written), ORNIC_ERR_TRUNCATED (len < icrc_off),
 * or ORNIC_ERR_INVALID_ARG: l3 or icrc NULL, another l3_kind, icrc_off
 * before the BTH's end, or a bth_off that is not where the header bytes put
 * the BTH (IPv4 version != 4 or IHL < 5, IPv6 version != 6). *icrc is
 * written only on ORNIC_OK. Never allocates. */
ORNIC_API int ornic_icrc_compute_at(const uint8_t *l3, size_t len, ornic_l3 l3_kind, size_t bth_off,
                                    size_t icrc_off, uint32_t *icrc);

/* The same for a native InfiniBand packet, from its LRH. The LNH (lrh[1]
 * bits 1:0) places the BTH: 2 at offset 8, 3 after the GRH at 48.
 * Returns ORNIC_OK (*icrc written), ORNIC_ERR_TRUNCATED (len < 8, or len <
 * icrc_off) or ORNIC_ERR_INVALID_ARG (lrh or icrc NULL, LNH 0 or 1: a raw
 * packet has no iCRC, or icrc_off before the BTH's end). */
ORNIC_API int ornic_icrc_compute_ib_at(const uint8_t *lrh, size_t len, size_t icrc_off,
                                       uint32_t *icrc);

/* The iCRC of a frame decoded by ornic_frame_decode from `data` (the same
 * pointer): a thin wrapper over ornic_icrc_compute_at (RoCE) or
 * ornic_icrc_compute_ib_at (f->link == ORNIC_LINK_IB) with the frame's
 * offsets. f must be non-NULL. Returns
 *   ORNIC_OK               *icrc written;
 *   ORNIC_ERR_TRUNCATED    the iCRC was not located or not captured
 *                          (f->icrc_present is false);
 *   ORNIC_ERR_INVALID_ARG  data or icrc NULL, or f has no IP header / GRH to
 *                          cover (a frame from ornic_roce_decode: use
 *                          ornic_icrc_compute_at with the IP header). */
ORNIC_API int ornic_icrc_compute(const ornic_frame *f, const uint8_t *data, uint32_t *icrc);

/* Checks f->icrc against the bytes. Returns ORNIC_OK, ORNIC_ERR_BAD_ICRC, or
 * ORNIC_ERR_TRUNCATED / ORNIC_ERR_INVALID_ARG as ornic_icrc_compute does
 * (not verifiable). f must be non-NULL. */
ORNIC_API int ornic_icrc_verify(const ornic_frame *f, const uint8_t *data);

#ifdef __cplusplus
}
#endif
#endif
