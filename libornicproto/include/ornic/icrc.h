/* The RoCE invariant CRC and the CRC-32 backend under it. */
#ifndef ORNIC_ICRC_H
#define ORNIC_ICRC_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CRC-32 (IEEE 802.3, reflected) with zlib's calling convention:
 * ornic_crc32(0, NULL, 0) == 0, and calls chain. Uses ISA-L when built with it. */
uint32_t ornic_crc32(uint32_t crc, const uint8_t *buf, size_t len);
/* "isa-l" or "zlib". */
const char *ornic_crc32_backend(void);

/* The iCRC of a decoded frame whose bytes are `data` (the same pointer given to
 * ornic_frame_decode). Covers 8 bytes of 0xFF, the IP (or GRH), UDP and BTH
 * headers with variant fields set to ones, then everything up to the iCRC.
 * IPv4 options are covered as they stand (as Scapy does; rxe does not).
 * Returns ORNIC_OK, or ORNIC_ERR_TRUNCATED when the frame was cut short. */
int ornic_icrc_compute(const ornic_frame *f, const uint8_t *data, uint32_t *icrc);

/* ORNIC_OK, ORNIC_ERR_BAD_ICRC, or ORNIC_ERR_TRUNCATED (not verifiable). */
int ornic_icrc_verify(const ornic_frame *f, const uint8_t *data);

#ifdef __cplusplus
}
#endif
#endif
