/* SPDX-License-Identifier: MIT */
/* --stats: what the capture shows of the fabric and of the capture path.
 * The fabric: 802.3x PAUSE and 802.1Qbb PFC frames (ornic/pause.h), per
 * sender and priority. The capture path: RoCE frames cut by the snaplen,
 * and bad iCRCs that are all on UDP source port 4791, the mark of a capture
 * point that rewrote the source port after the sender computed the iCRC.
 * Capture-wide: --qp does not narrow it (a PFC frame has no QP). */
#ifndef DEC_STATS_FABRIC_H
#define DEC_STATS_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "outbuf.h"
#include "packet.h"

#define DEC_FABRIC_DEFAULT_GBPS 100
#define DEC_FABRIC_MAX_SENDERS 1024 /* further senders' frames are counted, not tabled */
#define DEC_FABRIC_PAUSE_ROW 8      /* row of an 802.3x PAUSE (the whole link); 0-7: PFC classes */
#define DEC_FABRIC_ROWS 9

/* One sender's frames for one priority (or PAUSE). */
typedef struct {
  uint64_t frames, xoff, xon; /* XOFF: quanta > 0; XON: quanta 0 (resume) */
  uint64_t quanta_total;
  uint16_t quanta_max;
  uint64_t pause_ns; /* the frames' quanta as time at link_gbps (ornic_pause_ns), summed */
  int64_t first_sec, last_sec;
  uint32_t first_nsec, last_nsec;
} dec_fabric_row;

typedef struct {
  uint8_t mac[6];
  dec_fabric_row row[DEC_FABRIC_ROWS];
} dec_fabric_sender;

typedef struct {
  uint32_t link_gbps; /* --link-gbps; 0: DEC_FABRIC_DEFAULT_GBPS */
  /* PFC and PAUSE frames; senders in the order they were first seen */
  uint64_t pfc_frames, pause_frames;
  uint64_t other_dst;         /* sent to another address than 01-80-C2-00-00-01 */
  uint64_t untracked_frames;  /* of senders past DEC_FABRIC_MAX_SENDERS (or out of memory) */
  dec_fabric_sender *senders; /* malloc'd; dec_fabric_free */
  size_t nsenders, cap, last;
  /* the capture path */
  uint64_t roce_cut;            /* RoCE frames the snaplen cut after the BTH */
  uint32_t cut_min, cut_max;    /* bytes kept of them */
  uint64_t cut_before_bth;      /* frames the snaplen cut before the BTH (skipped) */
  uint64_t bad_4791, bad_other; /* bad iCRCs with UDP source port 4791 / the rest */
  uint64_t ok_4791, ok_other;   /* good iCRCs, likewise (RoCEv2 only: ok_other has a port) */
} dec_fabric;

/* Every packet read, --qp or not (stats.c). */
void dec_fabric_add(dec_fabric *fb, const dec_packet *pk);
void dec_fabric_free(dec_fabric *fb);

/* Text: the capture-path lines (when a frame was cut or an iCRC bad) and the
 * PFC/PAUSE table (when there were such frames), after the conversations.
 * JSON: the member ,"fabric":{...}, always. */
void dec_fabric_print_text(dec_out *o, const dec_fabric *fb);
void dec_fabric_print_json(dec_out *o, const dec_fabric *fb);

#endif
