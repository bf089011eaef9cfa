/* SPDX-License-Identifier: MIT */
/* Encodes one NIC's frames in place: the bytes ornic_frame_encode writes,
 * for the one shape every simulated frame has (Ethernet without a VLAN tag,
 * IPv4 without options, UDP, as sim.c's NIC templates make them), with the
 * payload written straight into the frame. A data packet's payload is the
 * memory pattern (pattern.h), generated at its place in the packet buffer
 * instead of into a scratch buffer that the encoder then copies.
 *
 * The Ethernet, IPv4 and UDP bytes are the library's, encoded once from the
 * template (framer_init); per frame only the fields that vary are set (IPv4
 * TOS, total length, ID and checksum; UDP source port and length). The BTH
 * and extension headers go through the library's public encoders, the iCRC
 * through ornic_icrc_compute_at. What is ours is the layout of those three
 * headers and the IPv4 checksum; framer_init checks both against
 * ornic_frame_encode, and scripts/pcapgen-identity.sh compares whole runs. */
#ifndef PCAPGEN_FRAMER_H
#define PCAPGEN_FRAMER_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/ornic.h"

#define FRAMER_L2L4 42u /* Ethernet 14 + IPv4 20 + UDP 8 */

typedef struct {
  uint8_t l2l4[FRAMER_L2L4]; /* the template's headers, the varying fields zero */
  uint32_t ip_sum;           /* the sum of their IPv4 header's 16-bit words */
  ornic_frame tmpl;          /* what they were encoded from */
} framer;

/* What follows the extension headers. Either `copy` (the frame's own
 * f->payload), or generated: `head_len` bytes from `head`, then the memory
 * pattern of `key` from `addr` for the rest of f->payload_len. */
typedef struct {
  const uint8_t *head;
  uint32_t head_len;
  uint64_t key, addr;
} framer_payload;

/* 0; ORNIC_ERR_INVALID_ARG when the template is not of the one shape;
 * ORNIC_ERR_UNSUPPORTED when the bytes made here differ from
 * ornic_frame_encode's for frames of it (the library changed its layout). */
int framer_init(framer *fr, const ornic_frame *tmpl);

/* Encodes f into out (cap bytes). f must be a copy of the template with
 * only ip.tos, ip.id and udp.sport changed among its Ethernet, IPv4 and UDP
 * fields (ORNIC_ERR_INVALID_ARG otherwise). gen NULL: the payload is
 * f->payload; else it is generated as gen says (f->payload is ignored).
 * Returns the frame's length or a negative ORNIC_ERR_*, as
 * ornic_frame_encode does, and writes the same bytes. */
ornic_ssize framer_encode(const framer *fr, uint8_t *out, size_t cap, const ornic_frame *f,
                          const framer_payload *gen);

#endif
