/* SPDX-License-Identifier: MIT */
/* -f on a file: the BPF filter applied to each record with libpcap's
 * pcap_offline_filter, as tcpdump -r FILE EXPR does. A live capture's
 * filter runs in the kernel instead (core/live.c). A program is compiled
 * for a link type: a pcapng file may have several, each compiled when its
 * first packet comes. */
#ifndef DEC_FILTER_H
#define DEC_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <pcap/pcap.h>

#define DEC_FILTER_DLTS 8

typedef struct {
  const char *expr;
  int n;
  int dlt[DEC_FILTER_DLTS];
  struct bpf_program prog[DEC_FILTER_DLTS];
} dec_filter;

/* Compiles expr for dlt (the capture's first link type): a bad expression
 * is refused before any packet is read. 0, or -1 with a message in err. */
int dec_filter_init(dec_filter *f, const char *expr, int dlt, char *err, size_t errlen);

/* 1: the packet matches; 0: it does not; -1: expr cannot be compiled for
 * this packet's link type (message in err). */
int dec_filter_match(dec_filter *f, int dlt, const struct pcap_pkthdr *h, const uint8_t *data,
                     char *err, size_t errlen);

void dec_filter_free(dec_filter *f);

#endif
