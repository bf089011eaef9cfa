/* SPDX-License-Identifier: MIT */
/* What both --plot renderers (plot.c: PSN/time and OOO distance; incast_plot.c:
 * the switch's queue and the senders' rates) need of gnuplot: temporary files
 * for its data and script, paths quoted its way, the terminal the plot's
 * extension asks for, and gnuplot run on a script. */
#ifndef PCAPGEN_CLI_GNUPLOT_H
#define PCAPGEN_CLI_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

/* A new file $TMPDIR/ornic-pcapgen-TAG-XXXXXX (/tmp without TMPDIR), open
 * for writing; its name in path. NULL (errno set, nothing left behind) when
 * it cannot be made. */
FILE *gp_temp_file(char *path, size_t cap, const char *tag);
/* s inside gnuplot's single quotes: a quote is written twice. */
void gp_put_quoted(FILE *f, const char *s);
/* "set terminal ..." of the size given: pngcairo when plot_name ends in
 * .png, else svg on a white background. */
void gp_terminal(FILE *f, const char *plot_name, int width, int height);
/* gnuplot run on script: its exit status, 127 when it cannot be started,
 * 128 when it did not exit, -1 when it cannot be forked or waited for. */
int gp_run(const char *script);
/* gp_run for --plot: 0, or -1 with "--plot: gnuplot failed (status N); no
 * plot written" in err. */
int gp_render(const char *script, char *err, size_t errlen);

#endif
