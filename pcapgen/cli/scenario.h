/* SPDX-License-Identifier: MIT */
/* Scenario files (docs/SCENARIOS.md): a run's options and its list of WQEs
 * in a small text file that can be kept next to the capture it made. */
#ifndef PCAPGEN_SCENARIO_H
#define PCAPGEN_SCENARIO_H

#include <stdio.h>

#include "options.h"

/* Reads `path` and applies its lines to o, in order (--scenario). 0, or -1
 * with a message naming the file and line on err. The text stays in o
 * (option values point into it) until options_free. */
int scenario_load(options *o, const char *path, FILE *err);

#endif
