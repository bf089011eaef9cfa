/* SPDX-License-Identifier: MIT */
/* --plot FILE.svg|FILE.png: a tcptrace-style time-sequence graph of the
 * capture, one panel per conversation direction that has requests (the
 * DEC_PLOT_MAX_PANELS busiest by packets, requests and responses), drawn by
 * gnuplot. x: time since the capture's first packet; y: PSN relative to the
 * direction's first request PSN (24-bit wrap unwrapped). Series, from the
 * engine's verdicts (ornic/analysis.h): first arrivals in order, out-of-order
 * first arrivals, retransmissions, duplicates, READ responses, NAKs (at the
 * NAK's PSN) and the cumulative ACK as a step line.
 *
 * Memory stays constant in the capture's size: each point goes to an
 * unlinked temporary file as it is seen; when the file reaches
 * DEC_PLOT_MAX_POINTS, the class of points that holds more of it (packets,
 * or the events: retransmissions, duplicates, NAKs) is thinned to every
 * other point and its stride doubles, so the points stay evenly spread and
 * events are kept whole as long as they are the smaller class. What is
 * kept per conversation direction is a few counters. The panels are chosen
 * at the end, when the engine knows which conversations were merged.
 *
 * The image is written under a hidden temporary name beside FILE and
 * renamed when gnuplot has drawn it whole (libs/ornic-cli, cli_outfile.h):
 * a failure leaves no FILE that looks complete. */
#ifndef DEC_PLOT_H
#define DEC_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ornic/analysis.h>

#include "packet.h"

#define DEC_PLOT_MAX_PANELS 6
#define DEC_PLOT_MAX_POINTS 50000u

typedef struct dec_plot dec_plot;

/* Whether path names an image --plot can make: it ends in .svg or .png
 * (any case). */
bool dec_plot_name_ok(const char *path);

/* Before the capture is read: gnuplot on PATH, FILE creatable (nothing is
 * left there yet), the temporary point file. NULL with a message naming
 * FILE in err. */
dec_plot *dec_plot_open(const char *path, char *err, size_t errlen);

/* Every packet read, in capture order, after the engine's verdict
 * (analysis.h: pk->analysed, pk->an). The first one sets time 0. */
void dec_plot_packet(dec_plot *pl, const dec_packet *pk);

/* What the drawing says of the run besides its points. */
typedef struct {
  const ornic_analysis *an; /* the engine that judged the packets */
  const char *capture;      /* the capture's name, for the title */
  bool have_qp;             /* --qp: only the conversations QP is one end of */
  uint32_t qp;
  const char *interrupted; /* "SIGINT", ... when a signal ended the reading; else NULL */
  bool damaged;            /* the capture ended in damage: drawn up to it */
} dec_plot_end;

/* Draws the image and renames it into place. 0, or -1 with a message naming
 * FILE in err (gnuplot failed, a temporary file could not be written) and
 * nothing left at FILE. *panels: the panels drawn. */
int dec_plot_draw(dec_plot *pl, const dec_plot_end *e, unsigned *panels, char *err, size_t errlen);

/* pl may be NULL. */
void dec_plot_free(dec_plot *pl);

#endif
