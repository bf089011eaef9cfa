/* SPDX-License-Identifier: MIT */
/* ornic-decode's command line: tcpdump's letters where they mean the same
 * thing (-r -w -i -f -c -s -B -p -l -v), the convention every program of
 * the tree shares for the rest (libs/ornic-cli/include/cli.h). */
#ifndef DEC_OPTIONS_H
#define DEC_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#define DEC_PROG "ornic-decode"

typedef struct {
  const char *path;         /* NULL: stdin; the first of paths */
  const char *const *paths; /* the captures (FILE...), read as one in time order; NULL: path */
  int npaths;
  const char *iface;  /* -i: a live capture instead of path */
  const char *filter; /* -f: BPF filter (live: in the kernel; file: pcap_offline_filter) */
  const char *write;  /* -w: the selected packets as a pcap, or NULL */
  const char *plot;   /* --plot: the time-sequence graph's image (plot.h), or NULL */
  bool no_promisc;
  uint32_t buffer_kib; /* -B */
  uint32_t snaplen;    /* -s: live capture's snapshot length; 0: the default */
  bool have_snaplen;   /* -s given (-s 0 too: refused without -i) */
  bool json, stats, verbose, strict, line_buffered, verify_icrc, analysis, quiet;
  bool print; /* --print: with -w, print the packets too */
  bool have_qp;
  uint32_t qp;
  uint64_t count; /* 0: no limit */
  uint16_t port;  /* UDP destination port of RoCEv2 */
  uint32_t otd;
  uint32_t pmtu;       /* 0: learnt per conversation */
  uint64_t max_memory; /* the analysis' memory budget (--max-memory); UINT64_MAX: none */
  uint32_t max_convs;  /* conversations tracked (--max-conversations); 0: the engine's default */
  uint32_t link_gbps;  /* --link-gbps: --stats' PFC/PAUSE times; 0: 100 Gb/s */
  unsigned threads;    /* --threads: 1 reads on the main thread; default: the CPUs (ahead.h) */
} dec_opts;

/* Parses argv into *o. Returns -1 to run, or the exit status to end with:
 * 0 after -h/--help/--version, 2 (CLI_EXIT_USAGE) after a usage error,
 * whose one line is on stderr. */
int dec_options_parse(dec_opts *o, int argc, char **argv);

/* Are per-packet lines printed? Not with -w (as tcpdump -w) unless --print,
 * never with --stats. */
bool dec_options_print_packets(const dec_opts *o);

#endif
