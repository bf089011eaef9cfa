/* SPDX-License-Identifier: MIT */
/* What a capture held, counted as it is read, for the one note a first
 * user most needs: a capture without a single RoCE packet decodes to
 * nothing, and the usual reason is where it was taken (README.md,
 * "Capturing RoCE"), not this program. */
#ifndef DEC_SEEN_H
#define DEC_SEEN_H

#include <stdbool.h>
#include <stdint.h>

#include "packet.h"

typedef struct {
  uint64_t frames; /* decoded (after -f on a file) */
  uint64_t roce;   /* with a BTH, or broken on the way to it */
  uint64_t udp;    /* UDP to another port */
  uint64_t other;  /* not UDP (TCP, ARP, ...) and not RoCEv1 */
  uint64_t frag, snap, unsupported;
} dec_seen;

void dec_seen_add(dec_seen *s, const dec_packet *pk);

typedef struct {
  uint64_t records;   /* what the capture delivered, before -f */
  const char *filter; /* -f, or NULL (a live capture's is the kernel's: not counted here) */
  bool live;
  uint16_t port;
} dec_seen_ctx;

/* "ornic-decode: N frames read, none RoCE (UDP port 4791 or EtherType
 * 0x8915): ...; offloaded RDMA traffic ..." on stderr when no frame was
 * RoCE. Returns whether it printed. */
bool dec_seen_note_no_roce(const dec_seen *s, const dec_seen_ctx *c);

#endif
