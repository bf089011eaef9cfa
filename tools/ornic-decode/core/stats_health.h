/* SPDX-License-Identifier: MIT */
/* --stats: the health report of each requester direction (stats_health.c). */
#ifndef DEC_STATS_HEALTH_H
#define DEC_STATS_HEALTH_H

#include <ornic/analysis.h>

#include "outbuf.h"
#include "stats.h"

/* The traffic, latency, capture quality, congestion and NIC counter
 * sections, after the conversations table (nothing without an engine). */
void dec_health_print_text(dec_out *o, const dec_stats *st);
/* A conversation's ",\"report\":{...}" member. */
void dec_health_print_json_conv(dec_out *o, const dec_stats *st, const ornic_an_conv *c);
/* The summary's ",\"nic_counters\":{...}" member (nothing without an engine). */
void dec_health_print_json_nic(dec_out *o, const dec_stats *st);

#endif
