/* SPDX-License-Identifier: MIT */
/* The output capture: classic pcap, nanosecond timestamps, Ethernet, in the
 * host's byte order (the magic number tells readers which), as
 * tools/ornic-examples/pcap_out.c writes it, with a snaplen that holds a
 * grown jumbo frame. */
#ifndef MUT_PCAP_WRITE_H
#define MUT_PCAP_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The largest frame written (pcap's snaplen in the file header). */
#define MUT_SNAPLEN 262144u

/* 0, or -1 when fp failed. */
int mut_pcap_begin(FILE *fp);
int mut_pcap_frame(FILE *fp, int64_t sec, uint32_t nsec, const uint8_t *frame, size_t len);

#endif
