/* SPDX-License-Identifier: MIT */
/* --plot FILE.svg (or .png): what the data receiver saw, drawn by gnuplot.
 *
 * Top: the PSN of every data packet (relative to the QP's first PSN, so WQEs
 * stack up) against its arrival time, coloured by the path it took, with
 * retransmissions marked. Bottom: the histogram of out-of-order distance,
 * the number of PSNs a first transmission arrived behind the highest PSN its
 * QP had already received (0 = in order).
 *
 * Memory stays constant: points stream to a temporary data file, one in
 * every `stride` packets when the run is large, the stride chosen from the
 * packets the workload needs. Retransmissions can send many times that (a
 * go-back-N run 20 to 90 times): when the file reaches 50,000 points it is thinned
 * to every other point and the stride doubles, so a plot never has more than
 * 50,000 points (gnuplot draws them in a second or two; an SVG of them is
 * about 5 MB) and they stay evenly spread over the run. The histogram counts
 * every packet. */
#ifndef PCAPGEN_PLOT_H
#define PCAPGEN_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

typedef struct plot plot;

/* Whether gnuplot is on PATH. */
bool plot_gnuplot_available(void);

/* NULL with a message in err (out of memory, no temporary file). */
plot *plot_new(const options *o, char *err, size_t errlen);
void plot_free(plot *pl); /* removes the temporary data file */

/* A data packet arrived at the end that receives the data. */
void plot_arrival(plot *pl, uint64_t t_ps, uint32_t qp, uint32_t psn, uint32_t path, bool retx);

/* Runs gnuplot and writes the image (SVG, or PNG when o->plot ends in .png)
 * to dest: the caller's temporary file, which it renames over o->plot
 * (output_file.h). 0, or -1 with a message in err. */
int plot_render(plot *pl, const options *o, const char *dest, char *err, size_t errlen);

#endif
