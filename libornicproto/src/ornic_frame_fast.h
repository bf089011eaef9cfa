/* SPDX-License-Identifier: MIT */
/* The two halves of ornic_frame_decode: the fast path for clean Ethernet
 * frames of the common layout (ornic_frame_fast.c, issue 18) and the
 * general path that decodes everything (ornic_frame_decode.c). Not exported. */
#ifndef ORNIC_FRAME_FAST_H
#define ORNIC_FRAME_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/frame.h"

/* ornic_frame_decode of an ORNIC_LINK_ETHERNET frame: the fast path when
 * the frame is clean and of the common layout, else the general path. */
int ornic_frame_decode_eth(ornic_frame *f, const uint8_t *data, size_t len, uint16_t udp_port);

/* ornic_frame_decode for every link and every frame, as frame.h says. */
int ornic_frame_decode_general(ornic_frame *f, const uint8_t *data, size_t len, ornic_link link,
                               uint16_t udp_port);

#endif
