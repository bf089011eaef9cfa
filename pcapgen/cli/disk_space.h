/* SPDX-License-Identifier: MIT */
/* The capture against the free space of its folder, before the run (issue
 * 28): memory was checked up front (memory_budget.h), disk space was not, and a run
 * that cannot fit was found out only when write(2) failed, after minutes of
 * simulation. */
#ifndef PCAPGEN_DISK_SPACE_H
#define PCAPGEN_DISK_SPACE_H

#include <stdbool.h>
#include <stdio.h>

#include "options.h"

/* 0 when the capture's least size fits in the free space of the folder it is
 * written to (statvfs), or cannot be judged; else -1 with a message on err
 * giving both figures and the folder. The least size is wl_capture_floor
 * (the figure of the 1 GB notice), or for a .gz capture its payload
 * (wl_capture_payload), capped by --max-output. Not judged: --space-check
 * off, --bench, stdout, a device or FIFO, a tap that keeps less than every
 * frame whole (space_capture_whole), a folder statvfs cannot read (opening the
 * output reports it). Space for the summary and the plot is not counted. */
int space_check(const options *o, FILE *err);

/* Whether the tap writes every frame whole (no --snaplen, --capture-start,
 * --capture-drop*): only then does the capture's floor (wl_capture_floor)
 * hold. */
bool space_capture_whole(const options *o);

#endif
