/* SPDX-License-Identifier: MIT */
/* Ethernet flow control beside the RDMA traffic: IEEE 802.3x PAUSE (IEEE
 * 802.3 Annex 31B) and IEEE 802.1Qbb priority-based flow control (PFC,
 * 802.1Q clause 36), the MAC Control frames (EtherType 0x8808) a lossless
 * RoCE fabric sends. docs/PROTOCOL.md 2.9 says what is read and written. */
#ifndef ORNIC_PAUSE_H
#define ORNIC_PAUSE_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/export.h"
#include "ornic/frame.h"
#include "ornic/headers.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ORNIC_ETHERTYPE_MAC_CONTROL 0x8808
#define ORNIC_PAUSE_OP_PAUSE 0x0001 /* 802.3 Annex 31B: one pause_time for the whole link */
#define ORNIC_PAUSE_OP_PFC 0x0101   /* 802.1Qbb: a pause_time per priority (class) */
#define ORNIC_PAUSE_CLASSES 8
#define ORNIC_PAUSE_QUANTUM_BITS 512 /* one quantum of pause_time: 512 bit times */

/* One PAUSE or PFC frame. Reserved tail: docs/ABI.md (zeroed by decode). */
typedef struct {
  uint16_t opcode;        /* ORNIC_PAUSE_OP_PAUSE or ORNIC_PAUSE_OP_PFC (or, with
                             ORNIC_ERR_UNSUPPORTED, the other MAC Control opcode read) */
  uint8_t src[6], dst[6]; /* the Ethernet addresses; both use 01-80-C2-00-00-01 as dst
                             (PAUSE may also go to the peer's own address: 802.3 Annex 31B) */
  uint16_t enable;        /* PFC: priority-enable vector as on the wire (bit i: class i;
                             bits 15:8 reserved, sent as 0); PAUSE: 0 */
  uint16_t quanta[8];     /* PFC: per class, as on the wire, meaningful only where bit i of
                             enable is set (0: XON, resume at once); PAUSE: quanta[0], the
                             rest 0 */
  uint64_t reserved[2];
} ornic_pause;

/* Decode one frame as a MAC Control PAUSE or PFC frame. `link` is the frame
 * decoder's (ornic_frame_decode): only ORNIC_LINK_ETHERNET carries MAC
 * Control; pkt then starts at the Ethernet header (destination, source,
 * EtherType), which may carry up to two VLAN tags (TPID 0x8100 or 0x88A8,
 * in any order) before EtherType 0x8808. Every byte is checked before it is
 * read; nothing after the opcode's fields is read (no padding, no FCS).
 * *out is zeroed first, then filled with whatever was read. Returns:
 *   ORNIC_OK                 a PAUSE (opcode 0x0001) or PFC (0x0101) frame;
 *   ORNIC_ERR_TRUNCATED      the bytes end inside the Ethernet header, a tag,
 *                            the opcode or the opcode's fields (addresses and
 *                            opcode filled in when they were read);
 *   ORNIC_ERR_NOT_ROCE       not a MAC Control frame: another EtherType, a
 *                            third tag, or a link other than Ethernet (the
 *                            library's "valid frame of another protocol");
 *   ORNIC_ERR_UNSUPPORTED    MAC Control with another opcode (EPON's GATE,
 *                            REPORT, ...: 802.3 Annex 31A); opcode, src and dst
 *                            filled in;
 *   ORNIC_ERR_INVALID_ARG    `link` is not an ornic_link value.
 * The destination address is not checked (Wireshark flags one other than
 * 01-80-C2-00-00-01; out->dst lets a caller do the same). pkt and out must be
 * non-NULL (pkt may be anything when len is 0). Never allocates. */
ORNIC_API int ornic_pause_decode(const uint8_t *pkt, size_t len, ornic_link link, ornic_pause *out);

/* The bytes ornic_pause_encode writes: the minimum Ethernet frame without
 * its FCS (64 - 4), the opcode's fields then zero padding. */
#define ORNIC_PAUSE_FRAME_LEN 60

/* Encode one PAUSE or PFC frame into out[0..cap): destination in->dst, or
 * 01-80-C2-00-00-01 (802.1Q clause 36, 802.3 Annex 31B) when in->dst is all
 * zero; source in->src; no VLAN tag (a MAC Control frame is untagged);
 * EtherType 0x8808; in->opcode; for ORNIC_PAUSE_OP_PFC the priority-enable
 * vector in->enable as it is (its reserved bits 15:8 included, so that
 * decode-then-encode reproduces a frame's bytes) and the 8 in->quanta; for
 * ORNIC_PAUSE_OP_PAUSE in->quanta[0] alone (enable and quanta[1..7] are not
 * read); then zeros up to ORNIC_PAUSE_FRAME_LEN bytes. No FCS (as
 * ornic_frame_encode writes none). in->reserved is not read. Returns
 * ORNIC_PAUSE_FRAME_LEN, or ORNIC_ERR_INVALID_ARG (an opcode other than
 * PAUSE and PFC), else ORNIC_ERR_NOBUF (cap < ORNIC_PAUSE_FRAME_LEN);
 * everything is checked before the first byte is written, so after an
 * error `out` is untouched. The argument order is every encoder's
 * (ornic/headers.h): out, cap, in. out and in must be non-NULL (out may be
 * anything when cap is 0). Never allocates. */
ORNIC_API ornic_ssize ornic_pause_encode(uint8_t *out, size_t cap, const ornic_pause *in);

/* The pause time of q quanta at a link of gbps Gb/s, in nanoseconds,
 * rounded to the nearest: q * 512 bit times = q * 512 / gbps ns (65535
 * quanta at 100 Gb/s: 335539 ns). 0 when gbps is 0. */
ORNIC_API uint64_t ornic_pause_ns(uint16_t q, uint32_t gbps);

#ifdef __cplusplus
}
#endif
#endif
