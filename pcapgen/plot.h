/* --plot FILE.svg (or .png): what the data receiver saw, drawn by gnuplot.
 *
 * Top: the PSN of every data packet (relative to the QP's first PSN, so WQEs
 * stack up) against its arrival time, coloured by the path it took, with
 * retransmissions marked. Bottom: the histogram of out-of-order distance,
 * the number of PSNs a first transmission arrived behind the highest PSN its
 * QP had already received (0 = in order).
 *
 * Memory stays constant: points stream to a temporary data file, one in
 * every `stride` packets when the run is large (at most about 200,000 points,
 * which gnuplot draws in a few seconds); the histogram counts every packet. */
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

/* Runs gnuplot and writes the SVG to o->plot (temporary file + rename).
 * 0, or -1 with a message in err. */
int plot_render(plot *pl, const options *o, char *err, size_t errlen);

#endif
