/* SPDX-License-Identifier: MIT */
/* The decoder's contract as an oracle, shared by fuzz_frame and fuzz_roundtrip. */
#ifndef ORNIC_FUZZ_FRAME_CHECK_H
#define ORNIC_FUZZ_FRAME_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <ornic/ornic.h>

/* Checks what ornic_frame_decode / ornic_roce_decode returned (rc) for
 * data[0..len), verifies or computes the iCRC where the contract says it is
 * possible, and reads every decoded header through the public accessors.
 * Aborts on any broken promise. */
void fuzz_check_decoded(const ornic_frame *f, const uint8_t *data, size_t len, int rc);

/* The NAK bitmap accessors against the bytes (the bitmap must lie in data). */
void fuzz_check_nak(const ornic_naketh *nak, const uint8_t *data, size_t len);

#endif
