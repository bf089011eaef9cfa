/* SPDX-License-Identifier: MIT */
/* Live capture from a network interface through libpcap, as tcpdump -i
 * does. The handle is a dec_capture with `live` set, so the read loop, the
 * decoder and every output format are the ones files use. */
#ifndef DEC_LIVE_H
#define DEC_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "capture.h"

#define DEC_LIVE_SNAPLEN 262144 /* tcpdump's default: whole frames, jumbo included */
/* The kernel's capture buffer. libpcap's 2 MiB default holds only about 32
 * frames on a link with receive offload (libpcap sizes each slot for 64 KiB):
 * a burst of RDMA packets overflows it before the reader wakes up, and every
 * drop then reads as a loss in the analysis. */
#define DEC_LIVE_BUFFER_KIB 32768

typedef struct {
  const char *iface;   /* "eth0", "any", ... */
  const char *filter;  /* BPF filter expression, or NULL for every packet */
  bool promisc;        /* promiscuous mode (never asked of "any", which cannot) */
  unsigned buffer_kib; /* kernel capture buffer in KiB; 0: DEC_LIVE_BUFFER_KIB */
  unsigned snaplen;    /* bytes kept of each frame (-s); 0: DEC_LIVE_SNAPLEN */
} dec_live_cfg;

/* Opens cfg->iface: immediate mode (each packet as it arrives), snaplen
 * cfg->snaplen or DEC_LIVE_SNAPLEN, nanosecond timestamps, LINKTYPE_LINUX_SLL2 on "any".
 * Returns 0, with any warning of pcap_activate's in warn (empty if none), or
 * -1 with a message in err that names libpcap's code (PCAP_ERROR_...) and,
 * for a permission error, the capability needed and the setcap command for
 * this very program (its path from /proc/self/exe). The messages start with the
 * interface's name or say "no such interface: NAME". */
int dec_live_open(dec_capture *c, const dec_live_cfg *cfg, char *err, size_t errlen, char *warn,
                  size_t warnlen);

/* dec_capture_next for a live capture. Blocks until a packet arrives. After
 * dec_live_stop it returns the packets the kernel received before the stop
 * (those already in the capture buffer), then 0. -1: the capture failed
 * (the interface went away, ...): dec_capture_damage says why. */
int dec_live_next(dec_capture *c, const struct pcap_pkthdr **hdr, const uint8_t **data);

/* Asks a blocked or running dec_live_next to stop. Async-signal-safe: it
 * only calls pcap_breakloop, which libpcap documents as safe in a handler. */
void dec_live_stop(dec_capture *c);

/* "listening on eth0, link-type EN10MB (Ethernet), snapshot length 262144
 * bytes", as tcpdump says it. */
void dec_live_describe(const dec_capture *c, char *buf, size_t len);

/* libpcap's counters at the end, as tcpdump prints them: packets read,
 * received by the filter, dropped by the kernel (and by the interface when
 * it reports any). Drops matter here: the analysis reads a gap the capture
 * missed as a loss. */
void dec_live_summary(const dec_capture *c, char *buf, size_t len);
/* libpcap's counters now: received by the filter, dropped by the kernel and
 * by the interface. -1 when the platform keeps none. */
int dec_live_counts(const dec_capture *c, uint64_t *recv, uint64_t *drop, uint64_t *ifdrop);

#endif
