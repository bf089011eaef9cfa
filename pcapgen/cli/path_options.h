/* SPDX-License-Identifier: MIT */
/* The fabric as a list of paths and their events in time (issue 31):
 *
 *   --path SPEC          one more path; SPEC = KEY=VALUE[,KEY=VALUE...] with
 *                        delay=US (one-way), rate=GBPS (its link), loss=P
 *                        (both directions), each at most once. The first
 *                        --path replaces the uniform set of --paths and
 *                        --delay-spread-us (giving either beside it is an
 *                        error); a key left out takes --base-delay-us,
 *                        --path-rate-gbps (else --rate-gbps) or --loss.
 *   --path-event EVENT   PATH:WHAT@US[:recover@US], WHAT = fail (a black hole
 *                        in both directions), loss=P or rate=GBPS: from US
 *                        microseconds of simulated time until recover@US, or
 *                        to the end of the run.
 *
 * Both work as scenario lines (`path delay=2,loss=0.02`, `path-event
 * 1:fail@500`). What they do in the simulator: sim/net.c, sim/path_events.h. */
#ifndef PCAPGEN_PATH_OPTIONS_H
#define PCAPGEN_PATH_OPTIONS_H

#include <stdio.h>

#include "options.h"

/* --path SPEC: appends a path to o's list, values left out unset until
 * path_options_finish. 0, or -1 with the message on err. */
int path_option_add(options *o, const char *spec, FILE *err);

/* --path-event EVENT: appends an event. 0, or -1 with the message on err. */
int path_event_option_add(options *o, const char *spec, FILE *err);

/* After every option: the list replaces the uniform set, its unset values
 * resolved; the events checked against the paths. 0, or -1 with the message
 * on err. */
int path_options_finish(options *o, FILE *err);

#endif
