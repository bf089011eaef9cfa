/* SPDX-License-Identifier: MIT */
/* Ground truth for passive analysers: what the simulation knows about each
 * frame that a capture alone can only infer. Per frame written (numbered
 * from 1 in the file): retransmissions (data or request packets sent again,
 * READ requests retried, READ responses sent again for a retried READ),
 * duplicates (repeats nobody asked for: none of the profiles makes one),
 * NAKs (0xCA, or 0x11 with a NAK syndrome), probes (ornic's RTO probes);
 * every packet the fabric lost; every frame the tap missed
 * (--capture-drop*). Recorded only for --summary-json, and at most
 * TRUTH_MAX_ENTRIES entries in all (then `truncated`), so a huge run keeps
 * bounded memory. */
#ifndef PCAPGEN_TRUTH_H
#define PCAPGEN_TRUTH_H

#include <stdint.h>
#include <stdio.h>

#include "packet_pool.h"

#define TRUTH_MAX_ENTRIES 1000000u

typedef struct truth truth;

/* The truth of a capture that starts at capture_start_us (--capture-start).
 * NULL when out of memory. */
truth *truth_new(double capture_start_us);
void truth_free(truth *t);

/* Frame `frame` of the file is p. */
void truth_written(truth *t, uint64_t frame, const pkt *p);
/* The tap missed p, frame `full_frame` of the full capture. */
void truth_missed(truth *t, uint64_t full_frame, const pkt *p);
/* The fabric lost p. */
void truth_lost(truth *t, const pkt *p);

/* Writes `"truth": {...}` (no trailing comma or newline) at indent 2. */
void truth_write_json(FILE *f, const truth *t, uint64_t captured_frames, uint64_t full_frames);

#endif
