/* SPDX-License-Identifier: MIT */
/* Everything the command line can set: the simulation's configuration
 * (sim_config.h: workload, network, protocol, the tap) and the program's
 * own choices (output files, formats, checks). Parsing validates ranges and
 * resolves every "auto", so the simulator can trust sim. */
#ifndef PCAPGEN_OPTIONS_H
#define PCAPGEN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "records.h"
#include "sim_config.h"
#include "writer.h"

/* How --otd, --window and --ack-engine-ns got their values (the summary says which). */
typedef enum {
  SIZE_DEFAULT = 0, /* the fixed default: --otd 64 (profiles without PROFILE_OTD), --window 4080 */
  SIZE_AUTO = 1,    /* --otd auto (Eq. 3) or --window auto (OTD + BDP); sizing.h */
  SIZE_GIVEN = 2    /* a number on the command line or in a scenario */
} size_source;

/* --rnic: the preset that gives the behaviours of sim_config's rnic_model
 * (pcapgen/README.md, "Profile roce: --rnic", cites each default). The
 * --rnic-* options set one behaviour each; --rnic picks the defaults of the
 * others (ideal, commodity, ernic or cx5). */
typedef enum { RNIC_IDEAL = 0, RNIC_COMMODITY = 1, RNIC_ERNIC = 2, RNIC_CX5 = 3 } rnic_preset;
enum {
  RNIC_SET_NAK_DELAY = 1u << 0,
  RNIC_SET_RETX_DELAY = 1u << 1,
  RNIC_SET_ACK_REQ = 1u << 2,
  RNIC_SET_NAK_IN_RETRY = 1u << 3,
  RNIC_SET_RTO = 1u << 4,
  RNIC_SET_TIMEOUT = 1u << 5
};
typedef struct {
  rnic_preset preset;
  unsigned set; /* RNIC_SET_*: given explicitly, the preset does not override */
  bool given;   /* any --rnic* option (refused by profiles without PROFILE_RNIC) */
} rnic_choice;

/* Everything the command line can set. */
typedef struct {
  sim_config sim; /* what the run simulates; the rest is the program's own */
  /* output */
  const char *output;       /* NULL only with --bench (then /dev/null) */
  const char *summary_json; /* NULL: none */
  const char *plot;         /* --plot SVG file, NULL: none */
  unsigned records;         /* --records: RECORDS_* kinds in --summary-json (records.h) */
  out_format format;
  uint32_t snaplen; /* 0: whole frames */
  int gz_level;
  bool quiet;
  uint64_t max_output;  /* bytes the capture may hold (--max-output); 0: no limit */
  bool space_check_off; /* --space-check off: no free-space check before the run (disk_space.h) */
  /* how the sizes and the ACK policy in sim.protocol were chosen */
  size_source ack_engine_source; /* default (EVERY_N, or auto for ornic), auto or given */
  bool ack_every_given;          /* --ack-every, --ack-per-packet or --ack-per-wqe */
  bool ack_engine_off;           /* --ack-engine-ns off */
  size_source otd_source;
  uint32_t otd_eq3; /* Eq. 3 on this configuration (sizing.h), whatever otd is */
  size_source window_source;
  uint32_t bdp;                  /* BDP in packets (sizing.h), whatever window is */
  bool irn_nack_threshold_given; /* else auto: the OTD when the fabric reorders (more than
                                    one path, or --reorder-max), else 1 */
  rnic_choice rnic;              /* roce profile (PROFILE_RNIC) */
  /* the fabric as a list (path_options.h) */
  size_t npath_list;              /* --path entries so far (sim.fabric.path_list) */
  bool paths_given, spread_given; /* --paths, --delay-spread-us: refused beside a list */
  unsigned incast_given;          /* the incast options given (fabric_options.h: FO_GIVEN_*) */
  /* the scenario file (--scenario) */
  char *scenario_text;  /* its text; option values point into it */
  size_t scenario_len;  /* its bytes (lines are cut with NULs as they are read) */
  const char *scenario; /* its path */
  unsigned wqes_line;   /* the scenario line that set wqes / wqe-size, 0: none */
} options;

/* Fills *o from argv. Returns 0 to run, 1 when --help, --version or
 * --list-profiles was printed (exit 0), 2 when that output could not be
 * written (exit 1), -1 on a bad option (its one line already on `err`, in
 * the words of libs/ornic-cli's cli.h; exit 2). */
int options_parse(options *o, int argc, char **argv, FILE *err);
/* An unsigned integer (decimal or 0x.., never octal: libs/ornic-cli, cli_num.h);
 * with `sizes`, an optional binary suffix K, M, G or T (KiB, MiB, ...).
 * 0, or -1 when s is not one or does not fit in 64 bits. */
int options_parse_number(const char *s, uint64_t *v, bool sizes);

/* Applies one option by its long name ("paths", "drop", ...) with its value
 * (NULL for flags), as a scenario line does. 0, or -1 with a message on err. */
int options_apply_named(options *o, const char *name, const char *value, FILE *err);
void options_free(options *o);

const char *spray_name(spray_policy s);
const char *size_source_name(size_source s);
const char *rnic_preset_name(rnic_preset p);

#endif
