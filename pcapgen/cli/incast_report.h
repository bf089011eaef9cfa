/* SPDX-License-Identifier: MIT */
/* The summary of an incast run (--senders): the switch (queue peak and mean,
 * ECN marks, tail drops, PFC frames), each sender (goodput, CNPs, pause
 * frames, retransmissions), Jain's fairness index, and in --summary-json the
 * timeline the plot draws. */
#ifndef PCAPGEN_INCAST_REPORT_H
#define PCAPGEN_INCAST_REPORT_H

#include <stdio.h>

#include "options.h"
#include "stats.h"

/* Nothing unless st->incast. */
void incast_report_text(FILE *f, const stats *st, const options *o);
/* The "incast" member and a trailing comma. */
void incast_report_json(FILE *f, const stats *st, const options *o);

#endif
