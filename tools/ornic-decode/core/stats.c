/* SPDX-License-Identifier: MIT */
/* Statistics collection: counters over the whole capture. Everything per
 * queue pair (order, duplicates, loss, ...) is the conversation engine's
 * (analysis.c); its counters are read at report time. */
#include "stats.h"

#include <string.h>

void dec_stats_init(dec_stats *st) { memset(st, 0, sizeof *st); }

void dec_stats_free(dec_stats *st) { dec_fabric_free(&st->fabric); }

static void add_time(dec_stats *st, const dec_packet *pk) {
  if (!st->have_time) {
    st->have_time = true;
    st->first_sec = pk->sec;
    st->first_nsec = pk->nsec;
  }
  st->last_sec = pk->sec;
  st->last_nsec = pk->nsec;
}

static void add_untracked(dec_stats *st, const dec_packet *pk) {
  if (pk->analysed && (pk->an.flags & ORNIC_AN_UNTRACKED)) st->an_untracked++;
}

void dec_stats_add_filtered(dec_stats *st, const dec_packet *pk) {
  st->total++;
  st->filtered++;
  add_time(st, pk);
  add_untracked(st, pk);
  dec_fabric_add(&st->fabric, pk); /* capture-wide: a PFC frame has no QP */
}

void dec_stats_add(dec_stats *st, const dec_packet *pk) {
  st->total++;
  add_time(st, pk);
  add_untracked(st, pk);
  dec_fabric_add(&st->fabric, pk);
  if (pk->error) st->errors++;
  if (pk->warnings) st->warned++;
  switch (pk->cls) {
  case DEC_CLASS_SKIPPED: st->skipped[pk->skip]++; return;
  case DEC_CLASS_BROKEN: st->broken++; return;
  case DEC_CLASS_ROCE: break;
  }
  st->roce++;
  st->icrc[pk->icrc]++;
  st->opcodes[pk->f.bth.opcode]++;
}
