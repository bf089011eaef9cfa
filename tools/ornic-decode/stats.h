/* --stats: counters over the whole capture and per QP, in bounded memory. */
#ifndef DEC_STATS_H
#define DEC_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "outbuf.h"
#include "packet.h"

#define DEC_STATS_MAX_QPS 65536u /* QPs tracked; later ones are only counted */
#define DEC_DUP_WINDOW 4096u     /* PSNs below the highest that duplicates are checked in */

typedef struct {
  uint32_t destqp;
  uint8_t l3; /* ornic_l3: says how to print src/dst */
  uint8_t src[16], dst[16];
  bool psn_seen; /* false while only CNPs (which carry no PSN) were seen */
  uint32_t psn_first, psn_min, psn_max;
  uint32_t ooo_max;      /* largest distance below psn_max of an out-of-order arrival */
  uint64_t packets, payload_bytes, ooo, dups, beyond_window, icrc_bad;
  uint64_t window[DEC_DUP_WINDOW / 64]; /* bit (psn % WINDOW): seen, for PSNs near psn_max */
} dec_qp_stats;

typedef struct {
  uint64_t total, roce, broken, filtered, errors, warned;
  uint64_t skipped[DEC_SKIP_COUNT];
  uint64_t icrc[4]; /* by dec_icrc */
  uint64_t opcodes[256];
  bool have_time;
  int64_t first_sec, last_sec;
  uint32_t first_nsec, last_nsec;
  bool damaged; /* the capture ended in a damaged record */
  /* QP table: open addressing over `slots` (indices into `qps`, or UINT32_MAX). */
  dec_qp_stats *qps;
  uint32_t nqps, qps_cap;
  uint32_t *slots;
  uint32_t nslots;
  uint64_t untracked; /* packets of QPs past DEC_STATS_MAX_QPS */
} dec_stats;

void dec_stats_init(dec_stats *st);
void dec_stats_free(dec_stats *st);
/* Every packet read: those excluded by -q only count as filtered. */
void dec_stats_add(dec_stats *st, const dec_packet *pk);
void dec_stats_add_filtered(dec_stats *st, const dec_packet *pk);

void dec_stats_print_text(dec_out *o, const dec_stats *st, const char *name);
void dec_stats_print_json(dec_out *o, const dec_stats *st, const char *name);

#endif
