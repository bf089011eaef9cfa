/* SPDX-License-Identifier: MIT */
/* The summary's part for a custom fabric (a --path list or --path-event; sim_fabric_custom):
 * each path as it was configured, what it carried and lost, the events, and the goodput of
 * the run's phases between them (stats.h). A run on the uniform set without events reports
 * none of it, so its summary is what it always was. */
#ifndef PCAPGEN_PATH_REPORT_H
#define PCAPGEN_PATH_REPORT_H

#include <stdio.h>

#include "options.h"
#include "stats.h"

/* Text lines under the summary's; nothing without st->paths. */
void path_report_text(FILE *f, const stats *st, const options *o);
/* JSON members "drops_path_down", "path_list", "path_events" and
 * "goodput_phases", each line ending in a comma; nothing without st->paths. */
void path_report_json(FILE *f, const stats *st, const options *o);

#endif
