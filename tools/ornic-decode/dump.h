/* SPDX-License-Identifier: MIT */
/* -w FILE: the packets ornic-decode selected, written as a classic pcap
 * with nanosecond timestamps (libpcap's pcap_dump, so tshark and tcpdump
 * read it as they read libpcap's own files). The file appears only when it
 * is complete: it is written under a temporary name and renamed at the end
 * (libs/ornic-cli, cli_outfile.h). */
#ifndef DEC_DUMP_H
#define DEC_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pcap/pcap.h>

#include "cli_outfile.h"

typedef struct {
  cli_outfile out;
  pcap_t *dead; /* the link type and precision pcap_dump writes under */
  pcap_dumper_t *dumper;
  int dlt;
  uint64_t written;
} dec_dump;

/* Creates the output (a pcap of link type dlt, whose header says snaplen).
 * 0, or -1 with a message in err and nothing created. */
int dec_dump_open(dec_dump *d, const char *path, int dlt, int snaplen, char *err, size_t errlen);

/* Appends one packet; h's tv_usec holds nanoseconds (capture.h). A pcap
 * holds one link type: a packet of another (a pcapng interface of its own)
 * is refused. 0, or -1 with a message in err. */
int dec_dump_packet(dec_dump *d, int dlt, uint64_t frame, const struct pcap_pkthdr *h,
                    const uint8_t *data, char *err, size_t errlen);

/* Completes the file and renames it into place. 0, or -1 with a message in
 * err (then nothing is left). */
int dec_dump_commit(dec_dump *d, char *err, size_t errlen);

/* Removes what was written. Safe after commit. */
void dec_dump_discard(dec_dump *d);

#endif
