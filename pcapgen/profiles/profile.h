/* SPDX-License-Identifier: MIT */
/* The protocol profiles of ornic-pcapgen behind one interface: one table
 * (profile.c), a row per profile, that --profile, --list-profiles, --help, the
 * option checks, the tap, the memory budget, the summary and cli/main.c's run
 * all read. Nothing else names a profile.
 *
 * A row: the name (--profile NAME), a one-line description, what the profile
 * supports (caps: the option checks read them), how it recovers losses and
 * how its data packets choose paths (for --list-profiles), what its
 * receiver's drops are (summary), and its engines.
 *
 * A new profile is one new file (or folder) in profiles/ and one row:
 * - the file (say foo.c) builds both NICs' engines on sim.h: create()
 *   allocates them from the run's sim_config (sim_config.h: the workload, the
 *   fabric, and the protocol parameters its caps name) and registers an
 *   endpoint_ops for NODE_REQ and NODE_RESP with sim_set_endpoint;
 *   requesters post their WQEs through work_queue.h (every profile runs the
 *   same workload, and wqe_post / wqe_complete keep the statistics the run
 *   ends on), responders check each WQE's bytes against pattern.h and count
 *   stats.wqes_verified, and whatever cannot go on is sim_fail(). It defines
 *   `const profile_engines foo_engines`;
 * - its row in profile.c, naming &foo_engines (declared with the others at
 *   the end of this header), with the caps it honours. Rows are listed in
 *   table order; the first is the default.
 * A transport of the irn / mprdma / ioi / left family (RC opcodes, one WQE in
 * flight per QP) is only a set of hooks on research_engine.h. */
#ifndef PCAPGEN_PROFILE_H
#define PCAPGEN_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "sim.h"
#include "sim_config.h"
#include "stats.h"

/* What a profile supports: profile.caps. */
enum {
  PROFILE_READ = 1u << 0,          /* --op read (the others simulate WRITE only) */
  PROFILE_TWO_HOSTS = 1u << 1,     /* both hosts post WQEs to each other (rc): the --rc-*
                                    options apply, data flows both ways (no --plot),
                                    --capture auto taps host A, every message is checked
                                    as it is placed (no WQE-sized buffers) */
  PROFILE_BITMAP = 1u << 2,        /* the ORNIC receive bitmap: --bitmap-pool, its memory
                                    budget and its summary line */
  PROFILE_ACK_OPTIONS = 1u << 3,   /* --ack-every, --ack-per-packet, --ack-per-wqe */
  PROFILE_WINDOW = 1u << 4,        /* --window caps the packets in flight (the others:
                                    one bandwidth-delay product, or --rc-outstanding) */
  PROFILE_OTD = 1u << 5,           /* the OTD is a protocol parameter (NAK rule, lost set):
                                    --otd defaults to auto (Eq. 3, sizing.h) and a given
                                    value below Eq. 3's is warned about (the others take
                                    64, which only pads their timeouts) */
  PROFILE_RNIC = 1u << 6,          /* --rnic and the --rnic-* options: the behaviour of a
                                    hardware go-back-N RNIC */
  PROFILE_NACK_THRESHOLD = 1u << 7 /* --irn-nack-threshold: IRN's reordering tolerance */
};

/* A profile's engines: both NICs, created and torn down together. */
typedef struct {
  /* Allocates the engines and registers them with s (sim_set_endpoint for
   * both nodes). NULL when out of memory. */
  void *(*create)(sim *s, const sim_config *cfg);
  /* Posts every QP's first WQE(s); the run starts after it. */
  void (*start)(void *engines);
  /* NULL, or fills the statistics only the engines know, at the end of the
   * run (PROFILE_BITMAP: the bitmap's peaks). */
  void (*stats)(void *engines, stats *st);
  /* Frees everything; engines may be NULL. */
  void (*destroy)(void *engines);
} profile_engines;

struct profile {
  const char *name;        /* --profile NAME: lower case, no spaces */
  const char *description; /* one line: the model */
  unsigned caps;           /* PROFILE_* */
  const char *recovery;    /* loss recovery, one word with dashes (--list-profiles) */
  const char *paths;       /* how data packets choose their paths, likewise */
  const char *rx_drops;    /* what the receiver's drops are, for the summary;
                              NULL: the receiver never drops data */
  const profile_engines *engines;
};

/* The rows in table order (the first is the default), NULL past the last. */
const profile *profile_at(size_t i);
const profile *profile_default(void);
/* The row named name, or NULL. */
const profile *profile_find(const char *name);
/* "ornic, roce, ... or rc": every name, for messages, into buf (truncated
 * to len - 1 characters). */
void profile_names(char *buf, size_t len);
/* --list-profiles: one line per profile, three fields separated by tabs:
 * name, description, capabilities (space-separated words: read, plot,
 * two-hosts, ack-every, window, bitmap-pool, otd, rnic, receiver-drops, then
 * recovery=WORD and paths=WORD). */
void profile_list(FILE *f);

/* The engines of the rows, one per profile file. */
extern const profile_engines ornic_engines;  /* ornic/ornic_profile.c */
extern const profile_engines roce_engines;   /* roce.c */
extern const profile_engines irn_engines;    /* irn.c */
extern const profile_engines mprdma_engines; /* mprdma.c */
extern const profile_engines ioi_engines;    /* ioi.c */
extern const profile_engines left_engines;   /* left.c */
extern const profile_engines rc_engines;     /* rc/rc_profile.c */

#endif
