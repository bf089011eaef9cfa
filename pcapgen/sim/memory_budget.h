/* SPDX-License-Identifier: MIT */
/* Memory a configuration needs, computed before the run: what the engines
 * allocate grows with --qps, the WQE size and --bitmap-pool, and a run that
 * would need terabytes must be refused at once, not found by the OOM killer
 * minutes later. The estimate counts the large allocations (per-packet
 * state, bitmap pool, per-QP state, the capture's buffers); frames in
 * flight are bounded by the fabric's bandwidth-delay product and checked as
 * they are made (budget_frames). */
#ifndef PCAPGEN_MEMORY_BUDGET_H
#define PCAPGEN_MEMORY_BUDGET_H

#include <stdint.h>
#include <stdio.h>

#include "sim_config.h"

/* Default of --max-memory: half of the physical memory (sysconf), or 4 GiB
 * when it cannot be read. */
uint64_t budget_default(void);

/* Bytes the configuration needs before any frame is in flight. */
uint64_t budget_needed(const sim_config *cfg);

/* 0 when budget_needed fits in cfg->max_memory; else -1 with a message on err
 * naming the figure, its largest part and the options that lower it. */
int budget_check(const sim_config *cfg, FILE *err);

/* How many frame buffers of `bufsize` bytes the rest of the budget allows. */
uint64_t budget_frames(const sim_config *cfg, size_t bufsize);

/* "4.0 TiB": bytes in binary units, for messages. */
void budget_format(uint64_t bytes, char *buf, size_t cap);

#endif
