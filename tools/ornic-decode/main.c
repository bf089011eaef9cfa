/* SPDX-License-Identifier: MIT */
/* ornic-decode: decode RoCEv2/RoCEv1 and ORNIC packets in pcap/pcapng
 * captures or live from an interface. This file holds the command line and
 * the read loop; capture input (core/live.c for interfaces), decoding
 * verdicts, output formats, statistics and signals live in their own files. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <ornic/ornic.h>

#include "analysis.h"
#include "capture.h"
#include "cli_num.h"
#include "live.h"
#include "outbuf.h"
#include "packet.h"
#include "print.h"
#include "signals.h"
#include "stats.h"

enum {
  EXIT_OK = 0,
  EXIT_USAGE = 1,   /* bad options, unreadable or unsupported input, write error */
  EXIT_DAMAGED = 2, /* the capture is damaged (live: failed); packets before were decoded */
  EXIT_STRICT = 3   /* --strict: a bad iCRC or a decode error was seen */
};

typedef struct {
  const char *path;   /* NULL: stdin */
  const char *iface;  /* -i: a live capture instead of path */
  const char *filter; /* -f: BPF filter of the live capture */
  bool no_promisc;
  uint32_t buffer_kib; /* -B */
  bool json, stats, verbose, strict, line_buffered, verify_icrc, analysis;
  bool have_qp;
  uint32_t qp;
  uint64_t count; /* 0: no limit */
  uint16_t port;  /* UDP destination port of RoCEv2 */
  uint32_t otd;
  uint32_t pmtu; /* 0: learnt per conversation */
} dec_opts;

typedef struct {
  uint64_t shown; /* packets that passed the filters and were not skipped */
  uint64_t icrc_bad, errors;
  bool damaged;
} dec_run;

static dec_out out; /* 256 KiB: static, not on the stack */

static const char usage_text[] =
    "Usage: ornic-decode [OPTIONS] [FILE | -]\n"
    "       ornic-decode [OPTIONS] -i INTERFACE [-f FILTER]\n"
    "Decode RoCEv2 (UDP 4791), RoCEv1 (EtherType 0x8915) and ORNIC out-of-order\n"
    "RDMA packets from a pcap or pcapng capture, optionally gzip-compressed\n"
    "(detected by content, not by name). FILE '-' or no FILE reads standard input.\n"
    "Link types: Ethernet (with or without one 802.1Q/802.1ad tag), raw IP\n"
    "(LINKTYPE_RAW, IPV4, IPV6), Linux cooked SLL and SLL2 (tcpdump -i any),\n"
    "native InfiniBand (LINKTYPE_INFINIBAND: LRH [+ GRH], iCRC and VCRC checked)\n"
    "and ERF records of type InfiniBand, Ethernet or IP (LINKTYPE_ERF).\n"
    "With -i, packets come live from an interface (as tcpdump -i), with the\n"
    "same output. Ctrl-C (SIGINT) or SIGTERM ends a live capture as the end of\n"
    "a file would: the packets already captured are decoded, --stats is\n"
    "printed, the exit status is 0.\n"
    "\n"
    "Options (numbers are decimal or 0x hex, never octal: 010 is ten):\n"
    "  -j, --json           one JSON object per packet and line (see below)\n"
    "  -s, --stats          a summary at the end instead of per-packet lines;\n"
    "                       with --json, as one JSON object\n"
    "  -v, --verbose        also a line for each skipped (non-RoCE) packet\n"
    "  -q, --qp QPN         only packets whose BTH DestQP is QPN (decimal or 0x..);\n"
    "                       every packet is still analysed, and --stats lists the\n"
    "                       conversations QPN is one end of\n"
    "  -c, --count N        stop after N packets that passed -q (skipped packets\n"
    "                       do not count)\n"
    "  -p, --port N         RoCEv2 UDP destination port (default 4791)\n"
    "      --otd N          the QPs' OOO Tolerance Distance, for the analysis\n"
    "                       only: its [OTD exceeded] tag and the reordering it\n"
    "                       allows sprayed RC senders (default 64; 0 reads as\n"
    "                       64). A NAK's missing= does not depend on it\n"
    "      --pmtu N         path MTU for the implied addresses: 256, 512, 1024,\n"
    "                       2048 or 4096; 0 (default) learns it per conversation\n"
    "      --no-analysis    no conversation analysis (faster; no tags, no\n"
    "                       \"analysis\" objects, no conversations in --stats)\n"
    "      --no-icrc        do not verify the iCRC (faster; shown as 'unchecked')\n"
    "      --strict         exit with status 3 if any iCRC is bad or any packet\n"
    "                       has a decode error\n"
    "  -l, --line-buffered  flush after every line (default on a terminal);\n"
    "                       else output is written in 256 KiB blocks, as\n"
    "                       tcpdump's without -l: give -l to a live capture\n"
    "                       piped into another program\n"
    "  -r, --read FILE      same as giving FILE\n"
    "  -i, --interface IF   capture live from interface IF ('any': every\n"
    "                       interface, as Linux cooked SLL2); needs CAP_NET_RAW.\n"
    "                       Immediate mode, snaplen 262144, nanosecond stamps;\n"
    "                       stderr says 'listening on IF, link-type ..' when\n"
    "                       ready and, at the end, libpcap's packet and drop\n"
    "                       counts (a drop reads as a loss in the analysis)\n"
    "  -f, --filter EXPR    only packets matching the BPF filter EXPR (pcap-\n"
    "                       filter(7), as tcpdump's), e.g. 'udp port 4791'\n"
    "  -B, --buffer-size KIB  the kernel's capture buffer for -i, in KiB\n"
    "                       (default 32768; libpcap's 2048 drops bursts)\n"
    "      --no-promiscuous-mode  do not put IF into promiscuous mode\n"
    "  -h, --help           this text\n"
    "  -V, --version        print the version\n"
    "\n"
    "Text output, one line per RoCE packet:\n"
    "  FRAME TIME SRC > DST [RoCEv1] [vlan=ID] OPCODE qp=0xQPN psn=PSN\n"
    "  [A,SE,M,FECN,BECN] [pkey=..] [header fields] len=PAYLOAD [captured=N]\n"
    "  [snap=CAPLEN/LEN] icrc=STATE [warn=NAMES] [conv=ID] [wqe=N] [addr=0x..]\n"
    "  [TAGS] [error: TEXT]\n"
    "  TIME: seconds since 1970 with nanoseconds. SRC/DST: IP addresses, GIDs for\n"
    "  RoCEv1. Header fields: RETH va= rkey= dmalen=; AETH aeth=SYNDROME(name) msn=;\n"
    "  OFFETH offset=; OACKETH oack=FLAGS(names) count=; NAKETH nak=REASON(name)\n"
    "  trigger= base= limit= nblocks= missing=PSN ranges nmissing=; ImmDt imm=;\n"
    "  IETH inv_rkey=; DETH qkey= srcqp=; RDETH een=; XRCETH xrcsrq=; FETH feth=;\n"
    "  AtomicETH va= rkey= swap_add= compare=; AtomicAckETH orig=.\n"
    "  STATE: ok, BAD(got X want Y), n/a (not verifiable: cut by the capture's\n"
    "  snaplen, or the packet has an error) or unchecked (--no-icrc). iCRC values\n"
    "  are the 4 wire bytes read as a little-endian 32-bit number (Wireshark shows\n"
    "  the same bytes big-endian).\n"
    "  NAK missing= is the lost set of docs/PROTOCOL.md 4.4, what the requester\n"
    "  must retransmit: Base, plus the clear bitmap bits before limit= (the loss\n"
    "  limit the responder wrote into the NAK), read from the packet alone.\n"
    "  warn= lists protocol violations that are not decode errors (the lint\n"
    "  rules of docs/PROTOCOL.md section 5): pad_not_aligned, pad_not_zero,\n"
    "  nak_psn_not_base, nak_trigger_not_after_base, nak_base_bit_set,\n"
    "  nak_limit_out_of_range, ack_flags_both_set, se_without_immdt,\n"
    "  ackreq_on_response, becn_outside_cnp, offset_beyond_dma; with --pmtu also\n"
    "  offset_not_pmtu, spot_not_pmtu.\n"
    "  A frame cut by the capture's snaplen shows every header that was captured\n"
    "  and no error. A frame captured whole but shorter than its own IP/UDP\n"
    "  lengths, or whose fields contradict each other, gets 'error: TEXT'\n"
    "  (malformed frames name the docs/PROTOCOL.md rule they break).\n"
    "  Conversation analysis (libornicproto's engine, docs/PROTOCOL.md section 8)\n"
    "  of every RC/UC/XRC/ORNIC packet with a BTH (also malformed ones): conv= is the\n"
    "  conversation (QP pair) number, wqe= the message number in its direction,\n"
    "  addr= the address the packet's payload goes to (WRITE) or comes from\n"
    "  (READ). Tags, as tshark's Info column: [Retransmission] [Duplicate]\n"
    "  [Loss: N PSNs from P] [NAK] [Stale ACK] [ACKed unseen: N PSNs from P]\n"
    "  (delivered, but not in the capture) [OOO D] (D below the highest PSN)\n"
    "  [Probe] [READ retry] [OTD exceeded: N PSNs from P] (the hole the\n"
    "  responder should now NAK) [Untracked: conversation table full].\n"
    "\n"
    "JSON output (--json), one object per line:\n"
    "  frame, time (a string, 9 decimals), frame_len, cap_len, vlan,\n"
    "  l3 (ipv4|ipv6|grh), src, dst, udp_sport,\n"
    "  bth {opcode, opcode_name, se, m, padcnt, tver, pkey, fecn, becn, resv6,\n"
    "  destqp, a, resv7, psn}, then the extension headers present, in wire order:\n"
    "  rdeth {een}, deth {q_key, srcqp}, xrceth {xrcsrq}, feth {value},\n"
    "  reth {va, r_key, dmalen}, offeth {offset},\n"
    "  atomiceth {va, r_key, swap_add, compare}, aeth {syndrome, syndrome_name, msn},\n"
    "  atomicacketh {orig_rdata}, oacketh {flags, addr_cached, wqe_done, count},\n"
    "  naketh {reason, reason_name, trigger_psn, nblocks, base_psn, limit_psn,\n"
    "  blocks [16-bit values], missing_psns [PSNs]}, immdt, ieth, cnp {};\n"
    "  then payload_len, payload_caplen (if cut), icrc {value, ok, expected (if\n"
    "  bad)}, warnings [names] (if any), analysis (if analysed) and error (null\n"
    "  or text). analysis: {conv, dir (a_to_b|b_to_a: the PSN space),\n"
    "  role (request|response|cnp), flags [names], pmtu (if known), then what the\n"
    "  flags make valid: hpsn, epsn (seq); ooo_distance (ooo, duplicate,\n"
    "  retransmission); first_frame; asked_frame (retransmission; null: timeout);\n"
    "  hole {first_psn, count} (otd_exceeded); addr \"0x..\"; wqe {id, start_psn,\n"
    "  last_psn, npkts, pkt, start_addr, len, frame}; read_frame; ack {prev,\n"
    "  newly, frame_of}; not_captured {first, count}; loss {first_psn, count};\n"
    "  msn_delta; wqe_completed; nak_lost (ORNIC NAK)}. Frame numbers are null\n"
    "  when unknown.\n"
    "  Keys of layers that were not decoded are absent. 64-bit values (va,\n"
    "  swap_add, compare, orig_rdata) are hex strings \"0x...\": JSON numbers are\n"
    "  exact only up to 2^53. icrc.value is \"0x%08x\", or null when not captured;\n"
    "  icrc.ok is true, false, or null (not verifiable, or --no-icrc).\n"
    "  Skipped packets (only with -v): {frame, time, skipped}.\n"
    "\n"
    "Statistics (--stats): packets total / RoCE / skipped (by reason) / broken\n"
    "(error before the BTH), decode errors, warnings, iCRC ok / bad / n/a /\n"
    "unchecked, packets per opcode, and the conversations (QP pairs, host A being\n"
    "the source of the first packet) with, per requester direction (A->B: A's\n"
    "requests and B's responses; B->A), requests and their payload bytes,\n"
    "responses, WQEs / messages seen and completed, out-of-order arrivals (with\n"
    "the largest distance and a histogram), retransmissions, duplicates, PSNs\n"
    "lost, PSNs acknowledged but not captured, NAKs, ACKs, stale ACKs, ECN marks,\n"
    "CNPs and the time from the first to the last packet. Conversations are\n"
    "listed by number; one found to be part of another is counted there. At most\n"
    "65536 conversations are tracked; packets of further ones are counted as\n"
    "untracked. JSON: capture, damaged, packets {total, roce, skipped, broken,\n"
    "filtered_out}, skipped {..}, errors, warnings, icrc {..}, time {first,\n"
    "last}, opcodes [{opcode, name, count}], analysis {otd, pmtu, window,\n"
    "max_convs, conversations, merged, untracked_packets} and conversations\n"
    "[{id, a, b, qp_a, qp_b, ornic, directions {a_to_b, b_to_a}}], each\n"
    "direction {requests, request_bytes, responses, response_bytes, wqes,\n"
    "wqes_completed, ooo, ooo_max_distance, ooo_histogram {\"1\", \"2-3\", ..,\n"
    "\"128+\"}, retransmissions, duplicates, losses, not_captured, naks, acks,\n"
    "acks_stale, ecn, cnps, psn_first, psn_high, time {first, last}, duration};\n"
    "analysis and conversations are null with --no-analysis.\n"
    "\n"
    "Exit status:\n"
    "  0  success (bad iCRCs and decode errors are reported, not fatal)\n"
    "  1  usage error; input missing, unreadable, not a capture or of an\n"
    "     unsupported link type; output write error; -i: no such interface,\n"
    "     no permission (CAP_NET_RAW), interface down, bad filter\n"
    "  2  damaged capture (e.g. cut mid-record): the packets before the damage\n"
    "     are printed, then stderr names the packet number and byte offset;\n"
    "     -i: the capture failed after it started (the interface went away)\n"
    "  3  --strict and at least one bad iCRC or decode error\n";

static void print_version(void) {
  printf("ornic-decode %s\n", ORNIC_VERSION_STRING);
  printf("libornicproto %s (CRC-32: %s), %s, zlib %s\n", ORNIC_VERSION_STRING,
         ornic_crc32_backend(), pcap_lib_version(), zlibVersion());
}

enum { OPT_NO_ICRC = 256, OPT_STRICT, OPT_OTD, OPT_PMTU, OPT_NO_ANALYSIS, OPT_NO_PROMISC };

static const struct option long_opts[] = {
    {"json", no_argument, NULL, 'j'},
    {"stats", no_argument, NULL, 's'},
    {"verbose", no_argument, NULL, 'v'},
    {"qp", required_argument, NULL, 'q'},
    {"count", required_argument, NULL, 'c'},
    {"port", required_argument, NULL, 'p'},
    {"no-icrc", no_argument, NULL, OPT_NO_ICRC},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"otd", required_argument, NULL, OPT_OTD},
    {"pmtu", required_argument, NULL, OPT_PMTU},
    {"no-analysis", no_argument, NULL, OPT_NO_ANALYSIS},
    {"line-buffered", no_argument, NULL, 'l'},
    {"read", required_argument, NULL, 'r'},
    {"interface", required_argument, NULL, 'i'},
    {"filter", required_argument, NULL, 'f'},
    {"buffer-size", required_argument, NULL, 'B'},
    {"no-promiscuous-mode", no_argument, NULL, OPT_NO_PROMISC},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0}};

/* Reads optarg as a number in [min, max] with the tree's one parser
 * (cli_num.h: decimal or 0x hex, never octal); on failure says which option
 * and what it expected. */
static int opt_num(const char *opt, uint64_t min, uint64_t max, uint64_t *v) {
  char why[160];
  if (cli_parse_u64(optarg, min, max, v, why, sizeof why) == 0) return 0;
  fprintf(stderr, "ornic-decode: %s: %s\n", opt, why);
  return -1;
}

/* --pmtu: 0 (learn it), or an IBA MTU, a power of two from 256 to 4096. */
static int opt_pmtu(uint64_t *v) {
  if (opt_num("--pmtu", 0, 4096, v) < 0) return -1;
  if (*v == 0 || (*v >= 256 && (*v & (*v - 1)) == 0)) return 0;
  fprintf(stderr, "ornic-decode: --pmtu: expected 0, 256, 512, 1024, 2048 or 4096, got '%s'\n",
          optarg);
  return -1;
}

/* Returns 0 to run, 1 when done (help/version), -1 on a usage error. */
static int parse_option(dec_opts *o, int c) {
  uint64_t v;
  switch (c) {
  case 'j': o->json = true; return 0;
  case 's': o->stats = true; return 0;
  case 'v': o->verbose = true; return 0;
  case 'l': o->line_buffered = true; return 0;
  case 'r': o->path = optarg; return 0;
  case 'i': o->iface = optarg; return 0;
  case 'f': o->filter = optarg; return 0;
  case 'B':
    if (opt_num("--buffer-size", 1, 2097151, &v) < 0) return -1; /* below 2 GiB: an int of bytes */
    o->buffer_kib = (uint32_t)v;
    return 0;
  case OPT_NO_PROMISC: o->no_promisc = true; return 0;
  case OPT_NO_ICRC: o->verify_icrc = false; return 0;
  case OPT_NO_ANALYSIS: o->analysis = false; return 0;
  case OPT_STRICT: o->strict = true; return 0;
  case 'q':
    if (opt_num("--qp", 0, ORNIC_PSN_MASK, &v) < 0) return -1;
    o->have_qp = true;
    o->qp = (uint32_t)v;
    return 0;
  case 'c':
    if (opt_num("--count", 1, UINT64_MAX, &v) < 0) return -1;
    o->count = v;
    return 0;
  case 'p':
    if (opt_num("--port", 1, 65535, &v) < 0) return -1;
    o->port = (uint16_t)v;
    return 0;
  case OPT_OTD:
    if (opt_num("--otd", 0, 4080, &v) < 0) return -1;
    o->otd = (uint32_t)v;
    return 0;
  case OPT_PMTU:
    if (opt_pmtu(&v) < 0) return -1;
    o->pmtu = (uint32_t)v;
    return 0;
  case 'h': fputs(usage_text, stdout); return 1;
  case 'V': print_version(); return 1;
  case ':': /* getopt: an option without its argument */
  case '?': /* getopt: an unknown option */
  default: return -1;
  }
}

/* -i reads an interface, not a file; -f and -B apply only to it. */
static int check_live_args(const dec_opts *o, int extra) {
  if (!o->iface) {
    fputs(
        "ornic-decode: -f, -B and --no-promiscuous-mode are for a live capture (-i);\n"
        "to filter a file: tcpdump -r FILE -w - 'FILTER' | ornic-decode\n",
        stderr);
    return -1;
  }
  if (o->path || extra) {
    fputs("ornic-decode: -i captures from an interface: give no FILE (a filter goes after -f)\n",
          stderr);
    return -1;
  }
  return 0;
}

static int parse_args(dec_opts *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->port = ORNIC_ROCEV2_UDP_PORT;
  o->verify_icrc = true;
  o->analysis = true;
  o->otd = 64;
  int c;
  opterr = 0; /* our messages name the program, not its path */
  while ((c = getopt_long(argc, argv, ":jsvq:c:p:lr:i:f:B:hV", long_opts, NULL)) != -1) {
    int rc = parse_option(o, c);
    if (rc < 0 && (c == '?' || c == ':'))
      fprintf(stderr, "ornic-decode: %s '%s'\nTry 'ornic-decode --help'.\n",
              c == ':' ? "missing value for option" : "unknown option", argv[optind - 1]);
    if (rc) return rc;
  }
  if (optind < argc && o->path) {
    fputs("ornic-decode: give the capture either with -r or as an argument\n", stderr);
    return -1;
  }
  if (o->iface || o->filter || o->buffer_kib || o->no_promisc)
    return check_live_args(o, argc - optind);
  if (optind < argc) o->path = argv[optind++];
  if (optind < argc) {
    fprintf(stderr, "ornic-decode: one capture at a time ('%s' is extra)\n", argv[optind]);
    return -1;
  }
  return 0;
}

static bool wanted(const dec_opts *o, const dec_packet *pk) {
  return !o->have_qp || (pk->has_bth && pk->f.bth.destqp == o->qp);
}

static void print_packet(const dec_opts *o, const dec_packet *pk) {
  if (pk->cls == DEC_CLASS_SKIPPED) {
    if (!o->verbose) return;
    if (o->json)
      dec_json_skipped(&out, pk);
    else
      dec_text_skipped(&out, pk);
  } else if (o->json) {
    dec_json_packet(&out, pk);
  } else {
    dec_text_packet(&out, pk);
  }
}

/* The read loop. The engine (an, NULL with --no-analysis) sees every
 * packet, -q or not: pairing a QP needs both directions. Returns
 * dec_capture_next's last result. */
static int run(const dec_opts *o, dec_capture *cap, ornic_analysis *an, dec_stats *st, dec_run *r) {
  dec_decode_cfg cfg = {.dlt = cap->dlt,
                        .udp_port = o->port,
                        .pmtu = o->pmtu,
                        .verify_icrc = o->verify_icrc,
                        .pcapng = cap->pcapng || cap->live}; /* 64-bit seconds */
  const struct pcap_pkthdr *h;
  const uint8_t *data;
  dec_packet pk;
  int rc;
  while ((rc = dec_capture_next(cap, &h, &data)) == 1) {
    cfg.dlt = cap->dlt; /* pcapng: each interface has its own */
    dec_packet_decode(&pk, &cfg, cap->records, h, data);
    if (an) dec_analyse(an, &pk);
    if (!wanted(o, &pk)) {
      if (o->stats) dec_stats_add_filtered(st, &pk);
      continue;
    }
    if (o->stats)
      dec_stats_add(st, &pk);
    else
      print_packet(o, &pk);
    r->icrc_bad += pk.icrc == DEC_ICRC_BAD;
    r->errors += pk.error != NULL;
    /* -c counts what passed -q and was not skipped; count 0 never matches. */
    if (pk.cls != DEC_CLASS_SKIPPED && ++r->shown == o->count) break;
  }
  return rc;
}

static int finish(const dec_opts *o, const dec_capture *cap, dec_stats *st, const dec_run *r) {
  if (o->stats) {
    st->damaged = r->damaged;
    if (o->json)
      dec_stats_print_json(&out, st, cap->in.name);
    else
      dec_stats_print_text(&out, st, cap->in.name);
  }
  dec_out_flush(&out);
  if (out.failed || ferror(stdout)) {
    fprintf(stderr, "ornic-decode: error writing the output: %s\n", strerror(errno));
    return EXIT_USAGE;
  }
  if (r->damaged) return EXIT_DAMAGED;
  if (o->strict && (r->icrc_bad || r->errors)) return EXIT_STRICT;
  return EXIT_OK;
}

/* -i: the interface, ready to read, and the signals that end the capture.
 * "listening on" goes to stderr once packets are being captured, as
 * tcpdump's: a script can wait for it before it sends. */
static int open_live(const dec_opts *o, dec_capture *cap) {
  char err[512], warn[512];
  dec_live_cfg cfg = {.iface = o->iface,
                      .filter = o->filter,
                      .promisc = !o->no_promisc,
                      .buffer_kib = o->buffer_kib};
  if (dec_live_open(cap, &cfg, err, sizeof err, warn, sizeof warn) < 0) {
    fprintf(stderr, "ornic-decode: %s\n", err);
    return -1;
  }
  if (warn[0]) fprintf(stderr, "ornic-decode: warning: %s\n", warn);
  dec_live_describe(cap, err, sizeof err);
  fprintf(stderr, "ornic-decode: %s\n", err);
  dec_stop_on_signals(cap);
  return 0;
}

static int open_input(const dec_opts *o, dec_capture *cap) {
  if (o->iface) return open_live(o, cap);
  char err[512];
  if (dec_capture_open(cap, o->path, err, sizeof err) == 0) return 0;
  fprintf(stderr, "ornic-decode: %s: %s\n", o->path && strcmp(o->path, "-") ? o->path : "<stdin>",
          err);
  return -1;
}

int main(int argc, char **argv) {
  dec_opts o;
  int prc = parse_args(&o, argc, argv);
  if (prc) return prc > 0 ? EXIT_OK : EXIT_USAGE;
  dec_capture cap;
  char err[512];
  if (open_input(&o, &cap) < 0) return EXIT_USAGE;
  /* stdout is written through dec_out's 256 KiB buffer, in chunks that
   * bypass stdio's own (glibc ignores setvbuf sizes without a buffer). */
  dec_out_init(&out, stdout, o.line_buffered || isatty(STDOUT_FILENO));
  dec_stats st;
  dec_stats_init(&st);
  ornic_analysis *an = NULL;
  if (o.analysis) {
    ornic_analysis_cfg_init(&st.an_cfg);
    st.an_cfg.otd = o.otd;
    st.an_cfg.pmtu = o.pmtu;
    an = ornic_analysis_new(&st.an_cfg);
    if (!an) {
      fputs("ornic-decode: out of memory for the conversation analysis\n", stderr);
      dec_capture_close(&cap);
      return EXIT_USAGE;
    }
  }
  st.an = an;
  st.have_qp = o.have_qp;
  st.qp = o.qp;
  dec_run r = {0};
  if (run(&o, &cap, an, &st, &r) < 0) {
    r.damaged = true;
    dec_capture_damage(&cap, err, sizeof err);
    dec_out_flush(&out); /* the good packets first, then the complaint */
    fprintf(stderr, "ornic-decode: %s: %s\n", cap.in.name, err);
  }
  int status = finish(&o, &cap, &st, &r);
  if (cap.live) { /* after the output: the counts say whether it is complete */
    dec_live_summary(&cap, err, sizeof err);
    fprintf(stderr, "ornic-decode: %s\n", err);
  }
  dec_stats_free(&st);
  if (an) ornic_analysis_free(an);
  dec_capture_close(&cap);
  return status;
}
