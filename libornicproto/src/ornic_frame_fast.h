/* SPDX-License-Identifier: MIT */
/* The two halves of ornic_frame_decode: the fast path for clean Ethernet
 * frames of the common layout (ornic_frame_fast.c, docs/PERFORMANCE.md, which defines
 * ornic_frame_decode) and the general path that decodes everything
 * (ornic_frame_decode.c). Not exported. */
#ifndef ORNIC_FRAME_FAST_H
#define ORNIC_FRAME_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/frame.h"

/* ornic_frame_decode for every link and every frame, as frame.h says. */
int ornic_frame_decode_general(ornic_frame *f, const uint8_t *data, size_t len, ornic_link link,
                               uint16_t udp_port);

/* For the tests, which compare the fast path with the general one in
 * each of its forms: on != 0 makes the fast path write its frames without
 * SSSE3 even on a CPU that has it, 0 lets it use SSSE3 again where the CPU
 * has it. Returns 1 when the CPU has SSSE3 and the fast path a form for it. */
int ornic_frame_fast_portable(int on);

#endif
