/* SPDX-License-Identifier: MIT */
/* --stats: counters over the whole capture, plus the conversation engine's
 * per-conversation, per-direction counters (ornic/analysis.h). */
#ifndef DEC_STATS_H
#define DEC_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include <ornic/analysis.h>

#include "outbuf.h"
#include "packet.h"
#include "stats_fabric.h"

typedef struct {
  uint64_t total, roce, broken, filtered, errors, warned;
  uint64_t skipped[DEC_SKIP_COUNT];
  uint64_t icrc[4]; /* by dec_icrc */
  uint64_t opcodes[256];
  bool have_time;
  int64_t first_sec, last_sec;
  uint32_t first_nsec, last_nsec;
  bool damaged; /* the capture ended in a damaged record */
  const char
      *interrupted; /* "SIGINT", ...: a signal ended the reading of a file or pipe; or NULL */
  /* Conversations: the engine that analysed the capture (NULL: none, as with
   * --no-analysis), its configuration, and the packets it refused. */
  const ornic_analysis *an;
  ornic_analysis_cfg an_cfg;
  uint64_t an_untracked; /* packets of conversations past an_cfg.max_convs */
  /* A live capture: libpcap's counters at the end (a frame the kernel dropped
   * reads as a loss in the analysis, so --stats carries them). */
  bool live;
  uint64_t live_recv, live_drop, live_ifdrop;
  bool have_qp; /* -q: list only the conversations of this QP */
  uint32_t qp;
  dec_fabric fabric; /* PFC/PAUSE and the capture path, capture-wide (stats_fabric.h) */
} dec_stats;

void dec_stats_init(dec_stats *st);
void dec_stats_free(dec_stats *st);
/* Every packet read: those excluded by -q only count as filtered. */
void dec_stats_add(dec_stats *st, const dec_packet *pk);
void dec_stats_add_filtered(dec_stats *st, const dec_packet *pk);

/* Whether --stats lists conversation c: a final one (not merged), of the
 * -q QP if one was given. */
bool dec_stats_conv_listed(const dec_stats *st, const ornic_an_conv *c);

void dec_stats_print_text(dec_out *o, const dec_stats *st, const char *name);
void dec_stats_print_json(dec_out *o, const dec_stats *st, const char *name);

#endif
