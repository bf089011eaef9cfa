/* SPDX-License-Identifier: MIT */
/* A tiny classic-pcap writer, so the demo needs nothing but the library. */
#ifndef ORNIC_EXAMPLES_PCAP_OUT_H
#define ORNIC_EXAMPLES_PCAP_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes the file header (Ethernet, nanosecond timestamps). 0 or -1. */
int pcap_out_begin(FILE *fp);
/* Appends one frame stamped ts_ns. 0 or -1. */
int pcap_out_frame(FILE *fp, uint64_t ts_ns, const uint8_t *frame, size_t len);

#endif
