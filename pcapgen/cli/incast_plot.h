/* SPDX-License-Identifier: MIT */
/* --plot FILE.svg (or .png) of an incast run (--senders), drawn by gnuplot
 * from the run's timeline (fabric/incast.h): the switch's queue against
 * time with the ECN thresholds Kmin and Kmax, each sender's delivered rate
 * (its accepted packets x PMTU, averaged over 100 us), and with DCQCN each
 * sender's rate limit Rc. */
#ifndef PCAPGEN_INCAST_PLOT_H
#define PCAPGEN_INCAST_PLOT_H

#include <stddef.h>

#include "options.h"
#include "stats.h"

/* Writes the image to dest (main.c's temporary file, renamed over o->plot).
 * 0, or -1 with a message in err. */
int incast_plot_render(const stats *st, const options *o, const char *dest, char *err,
                       size_t errlen);

#endif
