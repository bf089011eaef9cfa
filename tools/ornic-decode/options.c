/* SPDX-License-Identifier: MIT */
/* ornic-decode's command line (options.h). The messages, exit statuses and
 * --version are the tree's one convention (libs/ornic-cli, cli.h); what is
 * here is which options exist and how they combine. */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <ornic/ornic.h>
#include <pcap/pcap.h>

#include "ahead.h"
#include "cli.h"
#include "cli_num.h"
#include "live.h"
#include "plot.h"

static const char usage_text[] =
    "Usage: ornic-decode [OPTIONS] [[-r] FILE | -]\n"
    "  or:  ornic-decode [OPTIONS] FILE FILE...\n"
    "  or:  ornic-decode [OPTIONS] -i INTERFACE [-f FILTER]\n"
    "Decode RoCEv2 (UDP 4791), RoCEv1 (EtherType 0x8915) and ORNIC out-of-order\n"
    "RDMA packets from a pcap or pcapng capture, optionally gzip-compressed\n"
    "(detected by content, not by name). FILE '-' or no FILE reads standard input.\n"
    "Several FILEs (a tcpdump -C/-W ring, two capture points; any formats) are read\n"
    "as one capture in time order, as their union by mergecap: frame numbers,\n"
    "the analysis, -c, -w and --stats run across the files.\n"
    "Link types: Ethernet (with or without one 802.1Q/802.1ad tag), raw IP\n"
    "(LINKTYPE_RAW, IPV4, IPV6), Linux cooked SLL and SLL2 (tcpdump -i any),\n"
    "native InfiniBand (LINKTYPE_INFINIBAND: LRH [+ GRH], iCRC and VCRC checked)\n"
    "and ERF records of type InfiniBand, Ethernet or IP (LINKTYPE_ERF).\n"
    "With -i, packets come live from an interface (as tcpdump -i), with the\n"
    "same output. Ctrl-C (SIGINT) or SIGTERM ends a live capture as the end of\n"
    "a file would: the packets already captured are decoded, --stats is\n"
    "printed, the exit status is 0. The one-letter options are tcpdump's where\n"
    "they mean the same thing: -r -w -i -f -c -s -B -p -l -v.\n"
    "A capture without a RoCE packet decodes nothing: stderr then says what it\n"
    "held (offloaded RDMA traffic does not reach tcpdump on most NICs; see\n"
    "\"Capturing RoCE\" in README.md).\n"
    "\n"
    "Input and selection (numbers are decimal or 0x hex, never octal: 010 is ten):\n"
    "  -r, --read FILE      the capture to read (the same as giving FILE)\n"
    "  FILE FILE...         several captures, merged by time as mergecap merges\n"
    "                       them (of equal times, the file named last first);\n"
    "                       frame numbers run on across files. Every file is\n"
    "                       opened first (one missing: exit 1, nothing read);\n"
    "                       a damaged one stops the merge there, as mergecap\n"
    "                       (exit 2, its name, packet and byte offset on stderr)\n"
    "  -i, --interface IF   capture live from interface IF ('any': every\n"
    "                       interface, as Linux cooked SLL2); needs CAP_NET_RAW.\n"
    "                       Immediate mode, nanosecond stamps; stderr says\n"
    "                       'listening on IF, link-type ..' when ready and, at\n"
    "                       the end, libpcap's packet and drop counts (a drop\n"
    "                       reads as a loss in the analysis)\n"
    "  -f, --filter EXPR    only packets matching the BPF filter EXPR, as\n"
    "                       tcpdump's (pcap-filter(7)), e.g. 'udp port 4791'.\n"
    "                       Live: applied in the kernel. A file: the packets it\n"
    "                       rejects are passed over (not analysed, not counted);\n"
    "                       frame numbers stay the file's\n"
    "      --qp QPN         only packets whose BTH DestQP is QPN (decimal or 0x..);\n"
    "                       every packet is still analysed, and --stats lists the\n"
    "                       conversations QPN is one end of\n"
    "  -c, --count N        stop after N packets that passed --qp (skipped packets\n"
    "                       do not count)\n"
    "      --port N         RoCEv2 UDP destination port (default 4791)\n"
    "  -s, --snaplen N      live capture: bytes kept of each frame, as tcpdump's\n"
    "                       -s (also --snapshot-length; default and 0: 262144)\n"
    "  -B, --buffer-size KIB  the kernel's capture buffer for -i, in KiB\n"
    "                       (default 32768; libpcap's 2048 drops bursts)\n"
    "  -p, --no-promiscuous-mode  do not put IF into promiscuous mode\n"
    "\n"
    "Output:\n"
    "  -j, --json           one JSON object per packet and line (see below)\n"
    "      --stats          a summary at the end instead of per-packet lines;\n"
    "                       with --json, as one JSON object\n"
    "      --link-gbps N    the link speed, in Gb/s, at which --stats gives the\n"
    "                       time PFC and PAUSE frames ask for (default 100)\n"
    "  -v, --verbose        also a line for each skipped (non-RoCE) packet\n"
    "  -w, --write FILE     write the selected packets (those -f, --qp and -c let\n"
    "                       through; with -v the skipped ones too) to FILE as a\n"
    "                       pcap with nanosecond timestamps, instead of printing\n"
    "                       them, as tcpdump -w. FILE appears when complete (a\n"
    "                       hidden temporary file is renamed); '-' is standard\n"
    "                       output, unless that is a terminal. stderr says how\n"
    "                       many packets were written\n"
    "      --print          with -w, print the packets too\n"
    "      --plot FILE      also draw a time-sequence graph (tcptrace's) with\n"
    "                       gnuplot: per conversation direction with requests\n"
    "                       (the 6 busiest; --qp: that QP's conversations), PSN\n"
    "                       against time with the analysis' verdicts: first\n"
    "                       arrivals, out of order, retransmissions, duplicates,\n"
    "                       READ responses, NAKs and the cumulative ACK. FILE\n"
    "                       ends in .svg or .png and appears when complete;\n"
    "                       interrupted, it shows the packets read. Needs\n"
    "                       gnuplot (apt-get install gnuplot-nox)\n"
    "  -l, --line-buffered  flush after every line (default on a terminal);\n"
    "                       else output is written in 256 KiB blocks, as\n"
    "                       tcpdump's without -l: give -l to a live capture\n"
    "                       piped into another program\n"
    "  -q, --quiet          no notes on stderr ('listening on', the capture's\n"
    "                       counts, -w's count, what a capture without RoCE\n"
    "                       held); errors and warnings are still printed\n"
    "\n"
    "Analysis:\n"
    "      --otd N          the QPs' OOO Tolerance Distance, for the analysis\n"
    "                       only: its [OTD exceeded] tag and the reordering it\n"
    "                       allows sprayed RC senders (default 64; 0 reads as\n"
    "                       64). A NAK's missing= does not depend on it\n"
    "      --pmtu N         path MTU for the implied addresses: 256, 512, 1024,\n"
    "                       2048 or 4096; 0 (default) learns it per conversation\n"
    "      --max-memory SIZE  memory the analysis may take (default 128M; K, M,\n"
    "                       G suffixes; 0: no limit); past it new conversations\n"
    "                       are counted, not analysed [Untracked: memory budget]\n"
    "      --max-conversations N  conversations the analysis tracks (default\n"
    "                       65536, at most 16777216); packets of further ones\n"
    "                       are counted, not analysed [Untracked: conversation\n"
    "                       table full]\n"
    "      --no-analysis    no conversation analysis (faster; no tags, no\n"
    "                       \"analysis\" objects, no conversations in --stats)\n"
    "      --no-icrc        do not verify the iCRC (faster; shown as 'unchecked')\n"
    "      --strict         exit with status 3 if any iCRC is bad or any packet\n"
    "                       has a decode error\n"
    "      --threads N      1 (the default): one thread; 2 or more: capture\n"
    "                       files are read and\n"
    "                       their packets decoded on a second thread while\n"
    "                       the main one analyses and prints; the output is\n"
    "                       the same. More than 2 counts as 2. One thread\n"
    "                       anyway for -i, -f, -l (or a terminal) and an\n"
    "                       input that is not a regular file (a pipe)\n"
    "  -h, --help           this text\n"
    "  -V, --version        the program's version and the libraries' it runs on\n"
    "\n"
    "Text output, one line per RoCE packet:\n"
    "  FRAME TIME SRC > DST [RoCEv1] [vlan=ID] OPCODE qp=0xQPN psn=PSN\n"
    "  [A,SE,M,FECN,BECN] [pkey=..] [header fields] len=PAYLOAD [captured=N]\n"
    "  [snap=CAPLEN/LEN] icrc=STATE [warn=NAMES] [conv=ID] [wqe=N] [addr=0x..]\n"
    "  [TAGS] [error: TEXT]\n"
    "  TIME: seconds since 1970 with nanoseconds (an ERF record in a pcap: its ERF\n"
    "  header's time, rounded to the nanosecond as Wireshark shows it). SRC/DST: IP\n"
    "  addresses, GIDs for RoCEv1. Header fields: RETH va= rkey= dmalen=;\n"
    "  AETH aeth=SYNDROME(name) msn=; OFFETH offset=; OACKETH oack=FLAGS(names)\n"
    "  count=; NAKETH nak=REASON(name)\n"
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
    "  responder should now NAK) [Untracked: conversation table full]\n"
    "  [Stored after its ACK] (late transmit timestamps: information).\n"
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
    "--max-conversations (65536), and as many as --max-memory holds, are tracked;\n"
    "packets of further ones are counted as untracked (a 'limits' line says\n"
    "why). JSON: capture, damaged, packets {total, roce, skipped, broken,\n"
    "filtered_out}, skipped {..}, errors, warnings, icrc {..}, time {first,\n"
    "last}, opcodes [{opcode, name, count}], analysis {otd, pmtu, window,\n"
    "max_convs, conversations, merged, untracked_packets, max_memory (0: none),\n"
    "memory_peak, untracked_memory, untracked_table, windows_held,\n"
    "work_limited} and conversations\n"
    "[{id, a, b, qp_a, qp_b, ornic, directions {a_to_b, b_to_a}}], each\n"
    "direction {requests, request_bytes, responses, response_bytes, wqes,\n"
    "wqes_completed, ooo, ooo_max_distance, ooo_histogram {\"1\", \"2-3\", ..,\n"
    "\"128+\"}, retransmissions, duplicates, losses, not_captured, naks, acks,\n"
    "acks_stale, ecn, cnps, psn_first, psn_high, time {first, last}, duration};\n"
    "analysis and conversations are null with --no-analysis.\n"
    "Then, capture-wide (--qp does not narrow them), a 'quality' line when RoCE\n"
    "frames were cut by the snaplen or iCRCs are bad (bad ones with UDP source\n"
    "port 4791 counted apart; when all are, and other ports' iCRCs are good, a\n"
    "second line says the capture path rewrote the port after the iCRC was\n"
    "computed: not corruption), and a 'pause' table when the capture holds\n"
    "802.3x PAUSE or 802.1Qbb PFC frames (skipped as PFC/PAUSE): per sender and\n"
    "priority ('all': PAUSE) frames, XOFF (quanta > 0), XON (0), quanta total\n"
    "and max, pause_ns (quanta x 512 bit times at --link-gbps), first and last.\n"
    "JSON: fabric {link_gbps, pause {frames, pfc_frames, pause_frames, senders,\n"
    "not_reserved_dst, untracked_frames, rows [{src, kind, priority, frames,\n"
    "xoff, xon, quanta_total, quanta_max, pause_ns, time}]}, capture_quality\n"
    "{snaplen_cut, snaplen_kept, snaplen_before_bth, icrc_bad_sport_4791,\n"
    "icrc_bad_other, icrc_ok_sport_4791, icrc_ok_sport_other, sport_rewritten}}.\n"
    "\n"
    "Exit status:\n"
    "  0  success (bad iCRCs and decode errors are reported, not fatal; so is a\n"
    "     capture without RoCE)\n"
    "  1  input missing, unreadable, not a capture or of an unsupported link\n"
    "     type; output write error; -f: a filter that does not compile for the\n"
    "     link type; -i: no such interface, no permission (CAP_NET_RAW),\n"
    "     interface down; --plot: gnuplot missing or failed (no FILE left)\n"
    "  2  bad command line: one line on stderr, nothing read. Or a damaged\n"
    "     capture (e.g. cut mid-record): the packets before the damage are\n"
    "     printed (and written by -w), then stderr names the packet number and\n"
    "     byte offset; -i: the capture failed after it started\n"
    "  3  --strict and at least one bad iCRC or decode error\n";

enum {
  OPT_NO_ICRC = 256,
  OPT_STRICT,
  OPT_OTD,
  OPT_PMTU,
  OPT_NO_ANALYSIS,
  OPT_STATS,
  OPT_QP,
  OPT_PORT,
  OPT_PRINT,
  OPT_MAX_MEMORY,
  OPT_CONVS,
  OPT_PLOT,
  OPT_LINK_GBPS,
  OPT_THREADS
};

/* -s and -p were --stats and --port before they became tcpdump's; --qp has
 * no letter since -q became --quiet, as in ornic-pcapgen. */
static const struct option long_opts[] = {{"json", no_argument, NULL, 'j'},
                                          {"stats", no_argument, NULL, OPT_STATS},
                                          {"link-gbps", required_argument, NULL, OPT_LINK_GBPS},
                                          {"threads", required_argument, NULL, OPT_THREADS},
                                          {"verbose", no_argument, NULL, 'v'},
                                          {"quiet", no_argument, NULL, 'q'},
                                          {"qp", required_argument, NULL, OPT_QP},
                                          {"count", required_argument, NULL, 'c'},
                                          {"port", required_argument, NULL, OPT_PORT},
                                          {"no-icrc", no_argument, NULL, OPT_NO_ICRC},
                                          {"strict", no_argument, NULL, OPT_STRICT},
                                          {"otd", required_argument, NULL, OPT_OTD},
                                          {"pmtu", required_argument, NULL, OPT_PMTU},
                                          {"no-analysis", no_argument, NULL, OPT_NO_ANALYSIS},
                                          {"line-buffered", no_argument, NULL, 'l'},
                                          {"read", required_argument, NULL, 'r'},
                                          {"write", required_argument, NULL, 'w'},
                                          {"print", no_argument, NULL, OPT_PRINT},
                                          {"plot", required_argument, NULL, OPT_PLOT},
                                          {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
                                          {"max-conversations", required_argument, NULL, OPT_CONVS},
                                          {"interface", required_argument, NULL, 'i'},
                                          {"filter", required_argument, NULL, 'f'},
                                          {"snaplen", required_argument, NULL, 's'},
                                          {"snapshot-length", required_argument, NULL, 's'},
                                          {"buffer-size", required_argument, NULL, 'B'},
                                          {"no-promiscuous-mode", no_argument, NULL, 'p'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, 'V'},
                                          {NULL, 0, NULL, 0}};

static const char short_opts[] = ":jvqc:lr:w:i:f:s:B:phV";

static int print_version(void) {
  char extra[160];
  snprintf(extra, sizeof extra, "%s, zlib %s", pcap_lib_version(), zlibVersion());
  return cli_version(DEC_PROG, extra);
}

/* optarg as a number in [min, max] with the tree's one parser (cli_num.h:
 * decimal or 0x hex, never octal). -1 after the usage error. */
static int opt_num(const char *opt, uint64_t min, uint64_t max, uint64_t *v) {
  char why[160];
  if (cli_parse_u64(optarg, min, max, v, why, sizeof why) == 0) return 0;
  cli_usage_error(NULL, DEC_PROG, "%s: %s", opt, why);
  return -1;
}

/* --max-conversations: the engine's cfg.max_convs. Its conversation and
 * half indices are 32-bit (two halves per conversation); 2^24 conversations
 * already ask for tens of GB, past any --max-memory a user would give. */
#define DEC_MAX_CONVS (1u << 24)

/* --max-memory: a size; 0 is no limit. */
static int opt_memory(uint64_t *v) {
  char why[160];
  if (cli_parse_size(optarg, 0, UINT64_MAX, v, why, sizeof why) == 0) {
    if (*v == 0) *v = UINT64_MAX;
    return 0;
  }
  cli_usage_error(NULL, DEC_PROG, "--max-memory: %s", why);
  return -1;
}

/* -s used to be --stats: "-s capture.pcap" now reads a snaplen, and the
 * message says where the summary went. */
static int opt_snaplen(uint64_t *v) {
  char why[160];
  if (cli_parse_u64(optarg, 0, DEC_LIVE_SNAPLEN, v, why, sizeof why) == 0) return 0;
  cli_usage_error(NULL, DEC_PROG, "--snaplen: %s; -s is tcpdump's snaplen, the summary is --stats",
                  why);
  return -1;
}

/* --pmtu: 0 (learn it), or an IBA MTU, a power of two from 256 to 4096. */
static int opt_pmtu(uint64_t *v) {
  if (opt_num("--pmtu", 0, 4096, v) < 0) return -1;
  if (*v == 0 || (*v >= 256 && (*v & (*v - 1)) == 0)) return 0;
  cli_usage_error(NULL, DEC_PROG, "--pmtu: expected 0, 256, 512, 1024, 2048 or 4096, got '%s'",
                  optarg);
  return -1;
}

/* Reads option c's number into v. 0, -1 after a usage error, 1: c takes
 * no number. */
static int read_number(int c, uint64_t *v) {
  switch (c) {
  case 'B': return opt_num("--buffer-size", 1, 2097151, v); /* libpcap: an int of bytes */
  case 's': return opt_snaplen(v);
  case OPT_QP: return opt_num("--qp", 0, ORNIC_PSN_MASK, v);
  case 'c': return opt_num("--count", 1, UINT64_MAX, v);
  case OPT_PORT: return opt_num("--port", 1, 65535, v);
  case OPT_OTD: return opt_num("--otd", 0, 4080, v);
  case OPT_PMTU: return opt_pmtu(v);
  case OPT_MAX_MEMORY: return opt_memory(v);
  case OPT_CONVS: return opt_num("--max-conversations", 1, DEC_MAX_CONVS, v);
  case OPT_LINK_GBPS: return opt_num("--link-gbps", 1, 1000000, v);
  case OPT_THREADS: return opt_num("--threads", 1, 1024, v);
  default: return 1;
  }
}

/* Options with a number. 0, or -1 after a usage error (or for an option
 * parse_option does not know: getopt_long only returns known ones). */
static int number_option(dec_opts *o, int c) {
  uint64_t v = 0;
  if (read_number(c, &v) != 0) return -1;
  switch (c) {
  case 'B': o->buffer_kib = (uint32_t)v; break;
  case 's':
    o->snaplen = (uint32_t)v;
    o->have_snaplen = true;
    break;
  case OPT_QP:
    o->qp = (uint32_t)v;
    o->have_qp = true;
    break;
  case 'c': o->count = v; break;
  case OPT_PORT: o->port = (uint16_t)v; break;
  case OPT_OTD: o->otd = (uint32_t)v; break;
  case OPT_PMTU: o->pmtu = (uint32_t)v; break;
  case OPT_MAX_MEMORY: o->max_memory = v; break;
  case OPT_CONVS: o->max_convs = (uint32_t)v; break;
  case OPT_LINK_GBPS: o->link_gbps = (uint32_t)v; break;
  case OPT_THREADS: o->threads = (unsigned)v; break;
  }
  return 0;
}

/* 0, or -1 after a usage error. */
static int parse_option(dec_opts *o, int c) {
  switch (c) {
  case 'j': o->json = true; return 0;
  case OPT_STATS: o->stats = true; return 0;
  case 'v': o->verbose = true; return 0;
  case 'q': o->quiet = true; return 0;
  case 'l': o->line_buffered = true; return 0;
  case 'r': o->path = optarg; return 0;
  case 'w': o->write = optarg; return 0;
  case OPT_PRINT: o->print = true; return 0;
  case OPT_PLOT: o->plot = optarg; return 0;
  case 'i': o->iface = optarg; return 0;
  case 'f': o->filter = optarg; return 0;
  case 'p': o->no_promisc = true; return 0;
  case OPT_NO_ICRC: o->verify_icrc = false; return 0;
  case OPT_NO_ANALYSIS: o->analysis = false; return 0;
  case OPT_STRICT: o->strict = true; return 0;
  default: return number_option(o, c);
  }
}

/* What only a live capture has: -s, -B, -p; and -i takes no FILE. */
static int check_live(const dec_opts *o, int extra) {
  bool live_only = o->have_snaplen || o->buffer_kib || o->no_promisc;
  if (!o->iface && live_only)
    return cli_usage_error(NULL, DEC_PROG,
                           "-s, -B and -p are for a live capture (-i): a file's frames are as "
                           "they were captured");
  if (o->iface && (o->path || extra))
    return cli_usage_error(NULL, DEC_PROG,
                           "-i captures from an interface: give no FILE (a filter goes after -f)");
  return 0;
}

/* -w -: the capture is standard output, which nothing else may write. */
static int check_write(const dec_opts *o) {
  if (!o->write || strcmp(o->write, "-") != 0) return 0;
  if (o->stats || o->print)
    return cli_usage_error(NULL, DEC_PROG,
                           "-w - writes the capture to standard output: --stats and --print "
                           "would write there too");
  if (isatty(STDOUT_FILENO))
    return cli_usage_error(NULL, DEC_PROG,
                           "-w -: standard output is a terminal; redirect it to a file or pipe");
  return 0;
}

/* --plot draws the analysis' verdicts, into an image named for its format. */
static int check_plot(const dec_opts *o) {
  if (!o->plot) return 0;
  if (!o->analysis)
    return cli_usage_error(NULL, DEC_PROG,
                           "--plot draws the conversation analysis: it cannot go with "
                           "--no-analysis");
  if (!dec_plot_name_ok(o->plot))
    return cli_usage_error(NULL, DEC_PROG, "--plot: '%s' must end in .svg or .png", o->plot);
  return 0;
}

static bool is_stdin(const char *path) { return !path || strcmp(path, "-") == 0; }

/* The operands: the captures, read as one (merge.h); or one with -r. */
static int take_operands(dec_opts *o, int argc, char **argv) {
  if (optind < argc && o->path)
    return cli_usage_error(NULL, DEC_PROG, "give the capture either with -r or as an argument");
  if (optind < argc && !o->iface) {
    o->path = argv[optind];
    o->paths = (const char *const *)argv + optind;
    o->npaths = argc - optind;
    optind = argc;
  }
  if (optind < argc) return cli_unexpected(NULL, DEC_PROG, argv[optind]);
  int nstdin = 0;
  for (int i = 0; i < o->npaths; i++) nstdin += is_stdin(o->paths[i]);
  if (nstdin > 1)
    return cli_usage_error(NULL, DEC_PROG, "standard input ('-') can be read only once");
  return 0;
}

static void defaults(dec_opts *o) {
  memset(o, 0, sizeof *o);
  o->port = ORNIC_ROCEV2_UDP_PORT;
  o->verify_icrc = true;
  o->analysis = true;
  o->otd = 64;
  o->max_memory = ORNIC_AN_MAX_MEMORY;
  /* One thread: with two, --stats was slower on an idle 2-core machine and
   * --json 0.76x (README.md "Threads"). */
  o->threads = 1;
}

int dec_options_parse(dec_opts *o, int argc, char **argv) {
  defaults(o);
  opterr = 0; /* the messages are cli.h's */
  for (int c; (c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1;) {
    if (c == 'h') return cli_help(DEC_PROG, usage_text);
    if (c == 'V') return print_version();
    if (c == '?' || c == ':') return cli_getopt_error(NULL, DEC_PROG, c, argv, long_opts);
    if (parse_option(o, c) < 0) return CLI_EXIT_USAGE;
  }
  int rc = check_live(o, argc - optind);
  if (!rc) rc = take_operands(o, argc, argv);
  if (!rc) rc = check_write(o);
  if (!rc) rc = check_plot(o);
  return rc ? rc : -1;
}

bool dec_options_print_packets(const dec_opts *o) { return !o->stats && (!o->write || o->print); }
