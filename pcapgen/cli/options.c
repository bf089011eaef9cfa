/* SPDX-License-Identifier: MIT */
#include "options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_num.h"
#include "distinct_files.h"
#include "fabric_options.h"
#include "path_options.h"
#include "profile.h"
#include "scenario.h"
#include "sizing.h"
#include "workload.h"

#define PROG "ornic-pcapgen"

enum {
  O_FORMAT = 256,
  O_PLOT,
  O_RECORDS,
  O_SNAPLEN,
  O_GZ_LEVEL,
  O_CAPTURE,
  O_SUMMARY_JSON,
  O_BENCH,
  O_WQES,
  O_WQE_SIZE,
  O_OP,
  O_QPS,
  O_PMTU,
  O_START_PSN,
  O_QPN_BASE,
  O_PATHS,
  O_BASE_DELAY,
  O_DELAY_SPREAD,
  O_RATE,
  O_PATH_RATE,
  O_SPRAY,
  O_LOSS,
  O_BURST,
  O_DROP,
  O_ACK_EVERY,
  O_ACK_PER_PACKET,
  O_ACK_PER_WQE,
  O_RESP_TIMEOUT_NAK,
  O_LAST_TIMEOUT_NAK,
  O_NAK_PACING,
  O_NAK_LOSS_LIMIT,
  O_NAK_BLOCKS,
  O_RTO_PROBE,
  O_ACK_ENGINE_NS,
  O_OTD,
  O_WINDOW,
  O_BITMAP_POOL,
  O_RETRY_LIMIT,
  O_IRN_NACK_THRESHOLD,
  O_SCENARIO,
  O_RC_OPS,
  O_RC_DIRS,
  O_RC_OUTSTANDING,
  O_RC_ACK_EVERY,
  O_RC_SPRAY,
  O_RC_DC,
  O_RC_CM,
  O_CAPTURE_START,
  O_CAPTURE_DROP,
  O_CAPTURE_DROP_FRAMES,
  O_CAPTURE_TX_LATE,
  O_CAPTURE_ROCEV1,
  O_MAX_MEMORY,
  O_MAX_OUTPUT,
  O_SPACE_CHECK,
  O_LIST_PROFILES,
  O_REORDER_MAX,
  O_REORDER_SHARE,
  O_UDP_SPORT,
  O_RNIC,
  O_RNIC_NAK_DELAY,
  O_RNIC_RETX_DELAY,
  O_RNIC_ACK_REQ,
  O_RNIC_NAK_IN_RETRY,
  O_RNIC_RTO,
  O_RNIC_TIMEOUT,
  O_PATH,
  O_PATH_EVENT
};

static const struct option long_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, O_FORMAT},
    {"snaplen", required_argument, NULL, O_SNAPLEN},
    {"gz-level", required_argument, NULL, O_GZ_LEVEL},
    {"capture", required_argument, NULL, O_CAPTURE},
    {"summary-json", required_argument, NULL, O_SUMMARY_JSON},
    {"plot", required_argument, NULL, O_PLOT},
    {"records", required_argument, NULL, O_RECORDS},
    {"quiet", no_argument, NULL, 'q'},
    {"bench", required_argument, NULL, O_BENCH},
    {"seed", required_argument, NULL, 's'},
    {"profile", required_argument, NULL, 'p'},
    {"wqes", required_argument, NULL, O_WQES},
    {"wqe-size", required_argument, NULL, O_WQE_SIZE},
    {"op", required_argument, NULL, O_OP},
    {"qps", required_argument, NULL, O_QPS},
    {"pmtu", required_argument, NULL, O_PMTU},
    {"start-psn", required_argument, NULL, O_START_PSN},
    {"qpn-base", required_argument, NULL, O_QPN_BASE},
    {"paths", required_argument, NULL, O_PATHS},
    {"base-delay-us", required_argument, NULL, O_BASE_DELAY},
    {"delay-spread-us", required_argument, NULL, O_DELAY_SPREAD},
    {"rate-gbps", required_argument, NULL, O_RATE},
    {"path-rate-gbps", required_argument, NULL, O_PATH_RATE},
    {"spray", required_argument, NULL, O_SPRAY},
    {"loss", required_argument, NULL, O_LOSS},
    {"burst-len", required_argument, NULL, O_BURST},
    {"drop", required_argument, NULL, O_DROP},
    {"path", required_argument, NULL, O_PATH},
    {"path-event", required_argument, NULL, O_PATH_EVENT},
    {"senders", required_argument, NULL, FO_SENDERS},
    {"switch-buffer", required_argument, NULL, FO_SWITCH_BUFFER},
    {"ecn", required_argument, NULL, FO_ECN},
    {"dcqcn", required_argument, NULL, FO_DCQCN},
    {"pfc", required_argument, NULL, FO_PFC},
    {"pfc-xoff", required_argument, NULL, FO_PFC_XOFF},
    {"pfc-xon", required_argument, NULL, FO_PFC_XON},
    {"switch-delay-us", required_argument, NULL, FO_SWITCH_DELAY},
    {"reorder-max", required_argument, NULL, O_REORDER_MAX},
    {"reorder-share", required_argument, NULL, O_REORDER_SHARE},
    {"udp-sport", required_argument, NULL, O_UDP_SPORT},
    {"ack-every", required_argument, NULL, O_ACK_EVERY},
    {"ack-per-packet", no_argument, NULL, O_ACK_PER_PACKET},
    {"ack-per-wqe", no_argument, NULL, O_ACK_PER_WQE},
    {"resp-timeout-nak", required_argument, NULL, O_RESP_TIMEOUT_NAK},
    {"last-timeout-nak", required_argument, NULL, O_LAST_TIMEOUT_NAK},
    {"nak-pacing", required_argument, NULL, O_NAK_PACING},
    {"nak-loss-limit", required_argument, NULL, O_NAK_LOSS_LIMIT},
    {"nak-blocks", required_argument, NULL, O_NAK_BLOCKS},
    {"rto-probe", required_argument, NULL, O_RTO_PROBE},
    {"ack-engine-ns", required_argument, NULL, O_ACK_ENGINE_NS},
    {"otd", required_argument, NULL, O_OTD},
    {"window", required_argument, NULL, O_WINDOW},
    {"bitmap-pool", required_argument, NULL, O_BITMAP_POOL},
    {"retry-limit", required_argument, NULL, O_RETRY_LIMIT},
    {"irn-nack-threshold", required_argument, NULL, O_IRN_NACK_THRESHOLD},
    {"rnic", required_argument, NULL, O_RNIC},
    {"rnic-nak-delay-us", required_argument, NULL, O_RNIC_NAK_DELAY},
    {"rnic-retx-delay-us", required_argument, NULL, O_RNIC_RETX_DELAY},
    {"rnic-ack-req", required_argument, NULL, O_RNIC_ACK_REQ},
    {"rnic-nak-in-retry", required_argument, NULL, O_RNIC_NAK_IN_RETRY},
    {"rnic-rto-us", required_argument, NULL, O_RNIC_RTO},
    {"rnic-timeout", required_argument, NULL, O_RNIC_TIMEOUT},
    {"scenario", required_argument, NULL, O_SCENARIO},
    {"rc-ops", required_argument, NULL, O_RC_OPS},
    {"rc-dirs", required_argument, NULL, O_RC_DIRS},
    {"rc-outstanding", required_argument, NULL, O_RC_OUTSTANDING},
    {"rc-ack-every", required_argument, NULL, O_RC_ACK_EVERY},
    {"rc-spray", no_argument, NULL, O_RC_SPRAY},
    {"rc-dc", no_argument, NULL, O_RC_DC},
    {"rc-cm", no_argument, NULL, O_RC_CM},
    {"capture-start", required_argument, NULL, O_CAPTURE_START},
    {"capture-drop", required_argument, NULL, O_CAPTURE_DROP},
    {"capture-drop-frames", required_argument, NULL, O_CAPTURE_DROP_FRAMES},
    {"capture-tx-late", required_argument, NULL, O_CAPTURE_TX_LATE},
    {"capture-rocev1", required_argument, NULL, O_CAPTURE_ROCEV1},
    {"max-memory", required_argument, NULL, O_MAX_MEMORY},
    {"max-output", required_argument, NULL, O_MAX_OUTPUT},
    {"space-check", required_argument, NULL, O_SPACE_CHECK},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {"list-profiles", no_argument, NULL, O_LIST_PROFILES},
    {NULL, 0, NULL, 0}};

/* "NAME: text" under the option column, wrapped at 79 columns. */
static void usage_item(FILE *f, const char *name, const char *text) {
  enum { INDENT = 25, WIDTH = 79 };
  int col = fprintf(f, "%*s%s:", INDENT, "", name);
  while (*text) {
    size_t n = strcspn(text, " ");
    if (col + 1 + (int)n > WIDTH) {
      fprintf(f, "\n%*s", INDENT + 1, "");
      col = INDENT + 1;
    }
    col += fprintf(f, " %.*s", (int)n, text);
    text += n;
    text += strspn(text, " ");
  }
  fputc('\n', f);
}

/* --profile: the table's rows (profile.c), the first being the default. */
static void usage_profiles(FILE *f) {
  fprintf(f, "  -p, --profile P        the protocol both NICs run (default %s):\n",
          profile_default()->name);
  for (size_t i = 0; profile_at(i); i++)
    usage_item(f, profile_at(i)->name, profile_at(i)->description);
  fputs(
      "                         Wire encodings: pcapgen/README.md\n"
      "      --list-profiles    one line per profile: name, description and what it\n"
      "                         supports (tab-separated), then exit\n",
      f);
}

static void usage(FILE *f) {
  fputs(
      "Usage: ornic-pcapgen -o FILE [OPTIONS]\n"
      "Simulate a requester and a responder RDMA NIC talking over a multipath, lossy\n"
      "fabric and write what a tap at one NIC port captures. Every frame is complete\n"
      "and valid (lengths, checksums, iCRC); every protocol decision follows\n"
      "docs/PROTOCOL.md. Same seed and options: byte-identical output.\n"
      "\n"
      "Output:\n"
      "  -o, --output FILE      capture to write (required unless --bench). Written to a\n"
      "                         hidden temporary file in the same directory and renamed\n"
      "                         on success. A name ending in .gz is gzip-compressed.\n"
      "                         '-' or a device (/dev/null) is written directly\n"
      "      --format F         pcap or pcapng (default: pcapng when FILE ends in\n"
      "                         .pcapng or .pcapng.gz, else pcap). Nanosecond timestamps\n"
      "      --snaplen N        capture at most N bytes of each frame (default 0: whole)\n"
      "      --gz-level N       gzip level 1-9 for .gz output (default 1)\n"
      "      --capture WHERE    tap point: requester, responder or auto (default auto:\n"
      "                         the end that receives the data, where reordering shows).\n"
      "                         Frames the tapped NIC sends are stamped when they start\n"
      "                         on the wire (frames lost in the fabric still appear);\n"
      "                         frames it receives, when they arrive.\n"
      "                         rc profile: auto and requester = host A, responder =\n"
      "                         host B (both send and receive requests)\n"
      "      --capture-start US the tap starts US microseconds into the run: earlier\n"
      "                         frames are not written (the simulation is unchanged),\n"
      "                         so the file starts mid-stream (default 0)\n"
      "      --capture-drop P   the tap misses each frame with probability P (0-1,\n"
      "                         seeded): frames the NICs sent and received are absent\n"
      "                         from the file; the simulation is unchanged (default 0)\n"
      "      --capture-drop-frames LIST  the tap misses exactly these frames, numbered\n"
      "                         1, 2, ... in the full capture (the same run without\n"
      "                         --capture-start and --capture-drop*), e.g. 10,11,57\n"
      "      --capture-tx-late US  the tapped host's transmitted frames are written\n"
      "                         0 to US microseconds late, in order (a host capture's\n"
      "                         late TX timestamps): an ACK may precede its requests\n"
      "      --capture-rocev1 requester|responder  that host's frames are written as\n"
      "                         RoCEv1 (EtherType 0x8915, GIDs ::ffff:a.b.c.d); its\n"
      "                         peer's stay RoCEv2 (the simulation is unchanged)\n"
      "      --summary-json F   also write the summary as one JSON object to F, with a\n"
      "                         \"truth\" object: per written frame, retransmissions,\n"
      "                         NAKs, probes; network losses; capture drops\n"
      "      --records LIST     also list in the --summary-json each completed WQE\n"
      "                         (wqe: QP, PSNs, bytes, times, sends, retransmissions,\n"
      "                         FSpots) and/or each NAK sent (nak: time, QP, PSNs,\n"
      "                         syndrome, NAKETH reason, blocks, lost PSNs);\n"
      "                         LIST: wqe, nak or wqe,nak (pcapgen/README.md)\n"
      "      --plot FILE.svg    draw PSN against arrival time at the data receiver,\n"
      "                         coloured by path, and the out-of-order distance\n"
      "                         histogram (needs gnuplot: apt-get install gnuplot-nox).\n"
      "                         A name ending in .png gives a PNG image\n"
      "  -q, --quiet            no summary on stdout\n"
      "      --max-output SIZE  the capture may hold at most SIZE bytes, suffixes K M\n"
      "                         G T (default: no limit): a run whose capture would\n"
      "                         grow past it stops (exit 1) and writes nothing. A run\n"
      "                         whose capture holds at least 1 GB whatever happens\n"
      "                         (data, headers, an ACK per WQE) says so first, on stderr\n"
      "      --space-check on|off  on (default): a capture whose least size (as above;\n"
      "                         .gz: its payload) exceeds the free space of its folder\n"
      "                         is refused before the run (exit 1); off: run anyway\n"
      "      --max-memory SIZE  memory the run may use, suffixes K M G T (default:\n"
      "                         half of the physical memory). A configuration that\n"
      "                         needs more (per-packet state, bitmap pool, per-QP\n"
      "                         state, output buffers) is refused before it runs\n"
      "                         (exit 2); frames in flight beyond it stop the run\n"
      "                         (exit 1)\n"
      "      --bench N          time the generation of about N packets (default PMTU\n"
      "                         1024, no loss, output /dev/null unless -o) and print\n"
      "                         packets/s and MB/s\n"
      "\n"
      "Run:\n"
      "  -s, --seed N           PRNG seed (default 1)\n",
      f);
  usage_profiles(f);
  fputs(
      "\n"
      "Workload (closed loop: each QP posts its next WQE when the previous completes):\n"
      "      --scenario FILE    read options and a list of WQEs from FILE (format:\n"
      "                         docs/SCENARIOS.md); later options override it\n"
      "      --wqes N           WQEs per QP (default 16)\n"
      "      --wqe-size BYTES   bytes per WQE, suffixes K M G = KiB MiB GiB (default 1M,\n"
      "                         at most 1G)\n"
      "      --op OP            write or read (default write; read: ornic profile only)\n"
      "      --qps N            queue pairs (default 1, at most 4096)\n"
      "      --pmtu N           256, 512, 1024, 2048 or 4096 (default 4096)\n"
      "      --start-psn N      first PSN of every QP (default: from the seed)\n"
      "      --qpn-base A,B     QP numbers: QP q is A + q at the requester (rc: host\n"
      "                         A) and B + q at the responder (host B); each from 2\n"
      "                         to 0xFFFFFE (default 0x100,0x200)\n"
      "\n"
      "Network (N paths, each with its own one-way delay; ACKs cross the same fabric):\n"
      "      --paths N          paths (default 4)\n"
      "      --base-delay-us US one-way delay of path 0 (default 2)\n"
      "      --delay-spread-us US  path i delay = base + spread * i / (N - 1)\n"
      "                         (default 20)\n"
      "      --rate-gbps G      NIC link rate (default 100)\n"
      "      --path-rate-gbps G rate of each path link (default: --rate-gbps)\n"
      "      --spray S          random (default), rr (round-robin) or least-loaded\n"
      "                         (fewest bytes queued or in flight on the path)\n"
      "      --loss RATE        packet loss probability, both directions (default 0.0005)\n"
      "      --burst-len N      losses come in bursts of N packets on one path\n"
      "                         (default 1; the average rate stays RATE)\n"
      "      --drop [QP:]WQE:OFF  drop the first transmission of the data packet at PSN\n"
      "                         offset OFF of WQE number WQE (from 0) of QP (default 0).\n"
      "                         Repeatable\n"
      "      --path SPEC        one more path, numbered from 0 in the order given:\n"
      "                         SPEC = delay=US,rate=GBPS,loss=P, any of them (left out:\n"
      "                         --base-delay-us, --path-rate-gbps, --loss). The list\n"
      "                         replaces --paths and --delay-spread-us. Repeatable\n"
      "      --path-event PATH:WHAT@US[:recover@US]  from US microseconds of the run\n"
      "                         until recover@US (or the end), path PATH (from 0):\n"
      "                         fail: a black hole, every frame on it is lost, both\n"
      "                         directions; loss=P: loses with probability P;\n"
      "                         rate=GBPS: its link runs at that rate. The summary\n"
      "                         then gives each path's frames and losses and the\n"
      "                         goodput between events. Repeatable (at most 32)\n"
      "      --reorder-max D    a network emulator after the paths, in each direction:\n"
      "                         every frame is held a random 0 to D frame times (full\n"
      "                         data frames), then released no later than any frame\n"
      "                         sent D or more frames after it, so that no packet is D\n"
      "                         or more out of order. A packet's OOO distance = the\n"
      "                         highest PSN that arrived before it minus its own (0:\n"
      "                         in order); it is at least the number of later-PSN\n"
      "                         packets that overtook it, and below D for first\n"
      "                         transmissions of one QP over --paths 1 (default 0: off)\n"
      "      --reorder-share P  with --reorder-max D: the emulator displaces only a share\n"
      "                         P (0-1) of the frames, each with probability P, held\n"
      "                         1 to D frame times so that the next frame overtakes\n"
      "                         it unless also held; the rest pass unheld (default 1:\n"
      "                         every frame held 0 to D, as above)\n"
      "      --udp-sport MODE   UDP source port of every frame: path (default): 0xC000\n"
      "                         + its path; qpn: the low 16 bits of the sending QP's\n"
      "                         number (a request's requester QP; an ACK's, NAK's or\n"
      "                         READ response's responder QP); N: port N (1-65535).\n"
      "                         Paths, their delays and losses are the same in every\n"
      "                         mode: only the port on the wire changes\n",
      f);
  fabric_options_usage(f);
  fputs(
      "\n"
      "Protocol:\n"
      "      --ack-every N      responder ACKs every N accepted packets (default 16;\n"
      "                         for ornic it replaces the ACK scheduler)\n"
      "      --ack-per-packet   same as --ack-every 1\n"
      "      --ack-per-wqe      ACK only at WQE completion (and when the protocol requires)\n"
      "      --ack-engine-ns N|auto|off  ornic: ACKs through a register scheduler (the\n"
      "                         paper's aggregation, PROTOCOL.md 4.3) that sends one ACK\n"
      "                         per N ns at most, each covering every packet accepted\n"
      "                         meanwhile. auto: one ACK frame's wire time at --rate-gbps\n"
      "                         (8 ns at 100 Gb/s); off: --ack-every. Default auto for\n"
      "                         ornic unless an --ack-every option is given\n"
      "      --resp-timeout-nak on|off  ornic: the responder's timeout NAK (reason 2,\n"
      "                         T_resp without arrivals; default on, pcapgen/README.md)\n"
      "      --last-timeout-nak on|off  ornic: the responder's NAK when the Last arrived\n"
      "                         T_last ago and holes remain (reason 3; default on)\n"
      "      --nak-pacing on|off  ornic: no reason 1 or 3 NAK while the last NAK's\n"
      "                         resends are on their way (default on; off: one per\n"
      "                         arrival more than OTD past ePSN)\n"
      "      --nak-loss-limit on|off  ornic: a reason-1 NAK's lost set ends OTD before\n"
      "                         its trigger (default on; off: at the trigger)\n"
      "      --nak-blocks all|one  ornic: a NAK's bitmap covers ePSN to its trigger, up\n"
      "                         to 255 blocks (default all), or one block of 16 PSNs\n"
      "      --rto-probe on|off  ornic: a WRITE requester's timeout sends one packet with\n"
      "                         A = 1 (default on; off: resends every unacknowledged\n"
      "                         packet). These five and --resp-timeout-nak are ours,\n"
      "                         not the paper's: all off is the paper's ORNIC\n"
      "                         (docs/PROFILES.md, \"What our additions buy\")\n"
      "      --otd N|auto       OOO Tolerance Distance (OTD), packets. auto: the ORNIC\n"
      "                         paper's Eq. 3, OTD = MDD x B / L, rounded up: MDD =\n"
      "                         --delay-spread-us (0 with one path), B = --rate-gbps,\n"
      "                         L = PMTU (payload), plus D - 1 with --reorder-max D\n"
      "                         (default auto for ornic, and for mprdma and irn,\n"
      "                         whose bitmap and NACK threshold it sizes; 64 for\n"
      "                         the others). A value below Eq. 3's is warned\n"
      "                         about. The ornic, roce,\n"
      "                         mprdma and ioi retransmission timeouts add OTD packet\n"
      "                         times (irn's has its own low and high RTO)\n"
      "      --window N|auto    responder window W, packets (default auto for ornic,\n"
      "                         4080 for roce). auto: the\n"
      "                         paper's Eqs. 5-6, W = OTD + BDP, BDP = RTT x B / L\n"
      "                         rounded up, RTT = the nominal round trip over the\n"
      "                         slowest path (a data frame out, an ACK back, plus the\n"
      "                         emulator's longest hold both ways); 16 to 4080\n"
      "      --bitmap-pool N    bitmap blocks shared by all QPs (default: enough for all)\n"
      "      --retry-limit N    requester timeouts in a row before the QP fails (default 7)\n"
      "      --irn-nack-threshold N|auto  irn: loss recovery starts after N NACKs, and\n"
      "                         a packet is lost once N later PSNs are selectively\n"
      "                         acknowledged (IRN's proposal for reordering fabrics,\n"
      "                         pcapgen/README.md). auto (default): the OTD when\n"
      "                         the fabric reorders (--paths > 1 or --reorder-max),\n"
      "                         else 1, IRN as published\n"
      "\n"
      "roce profile (the behaviour of a hardware go-back-N RNIC; each default's source:\n"
      "pcapgen/README.md, section \"Profile roce: --rnic\"):\n"
      "      --rnic MODEL       ideal (default): NAKs and resends at once, adaptive\n"
      "                         microsecond RTO, ACK every --ack-every packets;\n"
      "                         commodity: the defaults in brackets below (rxe's rules,\n"
      "                         ConnectX-5's timers); ernic: Xilinx ERNIC (PG332);\n"
      "                         cx5: NVIDIA ConnectX-5. Each sends one NAK per sequence\n"
      "                         error and drops every later packet until the expected\n"
      "                         PSN arrives\n"
      "      --rnic-nak-delay-us US  the responder's NAK leaves US after the packet\n"
      "                         that broke the sequence [20]\n"
      "      --rnic-retx-delay-us US  the requester starts resending US after a NAK\n"
      "                         arrives, sending new packets meanwhile [0]\n"
      "      --rnic-ack-req N   the requester sets the A bit on every N-th packet and\n"
      "                         on each message's last; the responder ACKs only those\n"
      "                         and duplicates (0: ACK per --ack-every) [66]\n"
      "      --rnic-nak-in-retry act|ignore  a NAK that arrives while a NAK-started\n"
      "                         resend is under way, no ACK having advanced since, is\n"
      "                         acted on or ignored (but for its implicit ACK) [ignore]\n"
      "      --rnic-rto-us US   retransmission timeout, doubled per timeout in a row\n"
      "                         (0: the adaptive RTO of the ideal endpoint) [2000]\n"
      "      --rnic-timeout N   the doubled timeout stops at 4.096 us x 2^N, the IBA\n"
      "                         local ACK timeout (0: no cap) [14: 67.1 ms]\n"
      "\n"
      "rc profile (--wqes, --wqe-size, --qps, --pmtu, --start-psn, scenario wqe lines\n"
      "apply to each host's requester; --drop names host A's WQEs: a SEND/WRITE packet\n"
      "or, for a READ WQE, its READ response at that PSN offset):\n"
      "      --rc-ops LIST      operations the WQEs take in turn: send, write, read,\n"
      "                         write_imm, send_imm, comma-separated (default\n"
      "                         send,write,read)\n"
      "      --rc-dirs D        both (default): both hosts post WQEs; a2b: host A only\n"
      "      --rc-outstanding N WQEs each requester QP keeps posted (default 16, as\n"
      "                         ib_read_bw); 1 with both directions is a ping-pong\n"
      "                         (ib_send_lat): B sends message w after receiving A's w\n"
      "      --rc-ack-every N   responder ACKs every N request packets, and the last\n"
      "                         packet of each message (A bit) (default 4)\n"
      "      --rc-spray         spray packets over --paths (default: one path per QP\n"
      "                         pair, as ConnectX hashes a QP to one UDP source port)\n"
      "      --rc-dc            send as ConnectX DC: the RD opcode block, 8 DC bytes\n"
      "                         after the BTH, RDETH/DETH (docs/PROTOCOL.md 2.8)\n"
      "      --rc-cm            set up each QP pair with RDMA-CM first: REQ, REP and\n"
      "                         RTU (UD MADs to QP 1) carrying its QPNs, first PSNs,\n"
      "                         PMTU and READ depth (docs/PROTOCOL.md 2.10)\n"
      "\n"
      "  -h, --help             this text\n"
      "  -V, --version          the program's version and libornicproto's\n"
      "\n"
      "No two of the files (--scenario, -o, --summary-json, --plot) may be one\n"
      "file (the same inode, or the same folder and name; -o - and --summary-json -\n"
      "are both stdout): that is refused before anything is written (exit 2).\n"
      "Every output (-o, --summary-json, --plot) is opened before the run and\n"
      "replaced atomically at the end (hidden temporary file + rename; a symbolic\n"
      "link's target is replaced, an existing file keeps its mode); in a directory\n"
      "we cannot create files in, an existing writable file is written in place.\n"
      "\n"
      "Exit status: 0 success; 1 run failed (integrity check, protocol error, retry\n"
      "limit, I/O error, an output that cannot be created or a capture that does not\n"
      "fit in its folder's free space: checked before the run); 2 bad option or\n"
      "scenario, two files that are one, or a configuration over --max-memory\n"
      "(nothing run); 3 no progress: a run that cannot complete (e.g. --bitmap-pool\n"
      "too small) is stopped after 2^18 + 256 x window events without a new packet\n"
      "accepted (no capture written); 128+N stopped by signal N: 130 SIGINT,\n"
      "143 SIGTERM, 129 SIGHUP (the capture so far is kept\n"
      "and valid; a FIFO or pipe that stopped reading may hold a partial frame).\n",
      f);
}

static int bad(FILE *err, const char *opt, const char *want, const char *got) {
  cli_usage_error(err, PROG, "%s: expected %s, got '%s'", opt, want, got);
  return -1;
}

/* Numbers go through the tree's one parser (libs/ornic-cli, cli_num.h):
 * decimal or 0x-hex, never octal ("--otd 010" is ten), overflow-checked. */
int options_parse_number(const char *s, uint64_t *v, bool sizes) {
  char why[8];
  return sizes ? cli_parse_size(s, 0, UINT64_MAX, v, why, sizeof why)
               : cli_parse_u64(s, 0, UINT64_MAX, v, why, sizeof why);
}

static int bad_why(FILE *err, const char *opt, const char *why) {
  cli_usage_error(err, PROG, "%s: %s", opt, why);
  return -1;
}

static int parse_range(FILE *err, const char *opt, const char *s, uint64_t lo, uint64_t hi,
                       bool sizes, uint64_t *v) {
  char why[200];
  int rc = sizes ? cli_parse_size(s, lo, hi, v, why, sizeof why)
                 : cli_parse_u64(s, lo, hi, v, why, sizeof why);
  return rc < 0 ? bad_why(err, opt, why) : 0;
}

static int parse_u32(FILE *err, const char *opt, const char *s, uint32_t lo, uint32_t hi,
                     uint32_t *v) {
  uint64_t x;
  if (parse_range(err, opt, s, lo, hi, false, &x) < 0) return -1;
  *v = (uint32_t)x;
  return 0;
}

static int parse_double(FILE *err, const char *opt, const char *s, double lo, double hi,
                        double *v) {
  char why[200];
  return cli_parse_double(s, lo, hi, v, why, sizeof why) < 0 ? bad_why(err, opt, why) : 0;
}

/* --ack-engine-ns N|auto|off: the ACK register scheduler's service time
 * (docs/PROTOCOL.md 4.3); auto is resolved with the rate in resolve_acks. */
static int parse_ack_engine(options *o, FILE *err, const char *a) {
  o->ack_engine_off = strcmp(a, "off") == 0;
  o->sim.protocol.ack_engine_ns = 0;
  if (o->ack_engine_off) {
    o->ack_engine_source = SIZE_GIVEN;
    return 0;
  }
  o->ack_engine_source = strcmp(a, "auto") == 0 ? SIZE_AUTO : SIZE_GIVEN;
  if (o->ack_engine_source == SIZE_AUTO) return 0;
  return parse_u32(err, "--ack-engine-ns", a, 1, 1000000, &o->sim.protocol.ack_engine_ns);
}

/* A file name: "" would only fail after the whole run. */
static int parse_path(FILE *err, const char *opt, const char *s, const char **out) {
  if (!*s) return bad(err, opt, "a file name", s);
  *out = s;
  return 0;
}

/* Index of s in the NULL-terminated list, or -1 with a message. */
static int parse_choice(FILE *err, const char *opt, const char *s, const char *const *names,
                        const char *want) {
  for (int i = 0; names[i]; i++)
    if (strcmp(s, names[i]) == 0) return i;
  bad(err, opt, want, s);
  return -1;
}

static int parse_drop(options *o, FILE *err, const char *s) {
  static const char want[] = "[QP:]WQE:PSN_OFFSET (QP and offset below 2^24)";
  uint64_t f[3];
  int n = 0;
  char buf[32];
  for (const char *p = s;;) {
    size_t len = strcspn(p, ":");
    if (n == 3 || len == 0 || len >= sizeof buf) return bad(err, "--drop", want, s);
    memcpy(buf, p, len);
    buf[len] = 0;
    if (options_parse_number(buf, &f[n++], false) < 0) return bad(err, "--drop", want, s);
    if (!p[len]) break;
    p += len + 1;
  }
  if (n < 2 || f[n - 1] > 0xffffffu || (n == 3 && f[0] > 0xffffffu))
    return bad(err, "--drop", want, s);
  drop_rule *d = realloc(o->sim.fabric.drops, (o->sim.fabric.ndrops + 1) * sizeof *d);
  if (!d) return bad(err, "--drop", "memory for another rule", s);
  o->sim.fabric.drops = d;
  o->sim.fabric.drops[o->sim.fabric.ndrops++] =
      (drop_rule){n == 3 ? (uint32_t)f[0] : 0, f[n - 2], (uint32_t)f[n - 1], false};
  return 0;
}

/* --udp-sport path|qpn|N. */
static int parse_sport(options *o, FILE *err, const char *s) {
  uint64_t v = 0;
  if (strcmp(s, "path") == 0 || strcmp(s, "qpn") == 0) {
    o->sim.fabric.sport = s[0] == 'p' ? SPORT_PATH : SPORT_QPN;
    return 0;
  }
  /* Port 0 is UDP's "no source port", not a port a NIC would pick. */
  if (options_parse_number(s, &v, false) < 0 || v < 1 || v > 65535)
    return bad(err, "--udp-sport", "path, qpn or a port number 1-65535", s);
  o->sim.fabric.sport = SPORT_FIXED;
  o->sim.fabric.sport_fixed = (uint16_t)v;
  return 0;
}

/* IBA reserves QP0 (SMI) and QP1 (GSI); DestQP 0xFFFFFF addresses multicast. */
#define QPN_MIN 2u
#define QPN_MAX 0xfffffeu

/* --qpn-base A,B: the first QP number of each node (options.h). */
static int parse_qpn_base(options *o, FILE *err, const char *s) {
  static const char want[] = "A,B: two QP numbers from 2 to 0xFFFFFE";
  const char *comma = strchr(s, ',');
  char buf[32];
  uint64_t v[2];
  size_t len = comma ? (size_t)(comma - s) : 0;
  if (len == 0 || len >= sizeof buf) return bad(err, "--qpn-base", want, s);
  memcpy(buf, s, len);
  buf[len] = 0;
  if (options_parse_number(buf, &v[0], false) < 0 ||
      options_parse_number(comma + 1, &v[1], false) < 0)
    return bad(err, "--qpn-base", want, s);
  for (int n = 0; n < 2; n++) {
    if (v[n] < QPN_MIN || v[n] > QPN_MAX) return bad(err, "--qpn-base", want, s);
    o->sim.workload.qpn_base[n] = (uint32_t)v[n];
  }
  return 0;
}

static const char *const rc_op_names[] = {"send", "write", "read", "write_imm", "send_imm", NULL};

static int parse_rc_ops(options *o, FILE *err, const char *s) {
  static const char want[] = "a comma-separated list of send, write, read, write_imm, send_imm";
  char buf[16];
  unsigned n = 0;
  for (const char *p = s;; p++) {
    size_t len = strcspn(p, ",");
    if (n == RC_MAX_OPS || len == 0 || len >= sizeof buf) return bad(err, "--rc-ops", want, s);
    memcpy(buf, p, len);
    buf[len] = 0;
    int i = -1;
    for (int k = 0; rc_op_names[k]; k++) i = strcmp(buf, rc_op_names[k]) == 0 ? k : i;
    if (i < 0) return bad(err, "--rc-ops", want, s);
    o->sim.protocol.rc.ops[n++] = (uint8_t)i;
    p += len;
    if (!*p) break;
  }
  o->sim.protocol.rc.nops = n;
  return 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Room for one more of n elements in *a (capacity *cap): doubles, so a list of
 * n numbers costs about log2(n) realloc calls, not n (issue 28). 0, or -1 with
 * *a unchanged. */
static int grow_u64(uint64_t **a, size_t n, size_t *cap) {
  if (n < *cap) return 0;
  size_t want = *cap ? 2 * *cap : 16;
  uint64_t *g = want > SIZE_MAX / sizeof *g ? NULL : realloc(*a, want * sizeof *g);
  if (!g) return -1;
  *a = g;
  *cap = want;
  return 0;
}

/* A comma-separated list of frame numbers (from 1); kept sorted, repeats merged. */
static int parse_frames(options *o, FILE *err, const char *s) {
  static const char want[] = "comma-separated frame numbers from 1";
  char buf[32];
  size_t n = 0, cap = 0;
  uint64_t *a = NULL;
  for (const char *p = s;; p++) {
    size_t len = strcspn(p, ",");
    uint64_t v;
    if (grow_u64(&a, n, &cap) < 0 || len == 0 || len >= sizeof buf)
      return free(a), bad(err, "--capture-drop-frames", want, s);
    memcpy(buf, p, len);
    buf[len] = 0;
    if (options_parse_number(buf, &v, false) < 0 || v == 0)
      return free(a), bad(err, "--capture-drop-frames", want, s);
    a[n++] = v;
    p += len;
    if (!*p) break;
  }
  qsort(a, n, sizeof *a, cmp_u64);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!k || a[k - 1] != a[i]) a[k++] = a[i];
  free(o->sim.capture.drop_frames);
  o->sim.capture.drop_frames = a;
  o->sim.capture.ndrop_frames = k;
  return 0;
}

/* The simulation's defaults (sim_config.h) and the program's. */
static void defaults(options *o) {
  memset(o, 0, sizeof *o);
  sim_config_defaults(&o->sim);
  o->gz_level = 1;
  o->otd_source = SIZE_DEFAULT;
  o->window_source = SIZE_DEFAULT;
}

static const char *const op_names[] = {"write", "read", NULL};
static const char *const spray_names[] = {"random", "rr", "least-loaded", NULL};
static const char *const format_names[] = {"auto", "pcap", "pcapng", NULL};
static const char *const tap_names[] = {"auto", "requester", "responder", NULL};

const char *spray_name(spray_policy s) { return spray_names[s]; }

const char *size_source_name(size_source s) {
  return s == SIZE_AUTO ? "auto" : s == SIZE_GIVEN ? "given" : "default";
}

static const char *const rnic_names[] = {"ideal", "commodity", "ernic", "cx5", NULL};
const char *rnic_preset_name(rnic_preset p) { return rnic_names[p]; }

static int set_pmtu(options *o, FILE *err, const char *s) {
  uint64_t v = 0;
  if (options_parse_number(s, &v, false) < 0 ||
      (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096))
    return bad(err, "--pmtu", "256, 512, 1024, 2048 or 4096", s);
  o->sim.workload.pmtu = (uint32_t)v;
  return 0;
}

static int set_profile(options *o, FILE *err, const char *s) {
  const profile *p = profile_find(s);
  if (!p) {
    char names[128];
    profile_names(names, sizeof names);
    return bad(err, "--profile", names, s);
  }
  o->sim.profile = p;
  return 0;
}

static int set_choice(FILE *err, const char *opt, const char *s, const char *const *names,
                      const char *want, int *out) {
  int i = parse_choice(err, opt, s, names, want);
  if (i < 0) return -1;
  *out = i;
  return 0;
}

/* Options of the output and run groups. 1 when `c` is not one of them. */
/* --records wqe,nak: each kind once. */
static int parse_records(FILE *err, const char *a, unsigned *out) {
  static const char *const kinds[] = {"wqe", "nak", NULL};
  *out = 0;
  const char *s = a;
  while (*s) {
    size_t n = strcspn(s, ",");
    unsigned bit = 0;
    for (unsigned k = 0; kinds[k]; k++)
      if (strlen(kinds[k]) == n && strncmp(s, kinds[k], n) == 0) bit = 1u << k;
    if (!bit || (*out & bit)) return bad(err, "--records", "wqe, nak or wqe,nak (each once)", a);
    *out |= bit;
    s += n;
    if (*s == ',' && !*++s) return bad(err, "--records", "wqe, nak or wqe,nak (each once)", a);
  }
  return *out ? 0 : bad(err, "--records", "wqe, nak or wqe,nak (each once)", a);
}

static int apply_output(options *o, int c, const char *a, FILE *err) {
  uint64_t v;
  int i = 0, rc;
  switch (c) {
  case 'o': return parse_path(err, "--output", a, &o->output);
  case O_FORMAT:
    rc = set_choice(err, "--format", a, format_names, "pcap or pcapng", &i);
    o->format = (out_format)i;
    return rc;
  case O_SNAPLEN: return parse_u32(err, "--snaplen", a, 0, 262144, &o->snaplen);
  case O_GZ_LEVEL:
    rc = parse_range(err, "--gz-level", a, 1, 9, false, &v);
    o->gz_level = (int)v;
    return rc;
  case O_CAPTURE:
    if (strcmp(a, "sender") == 0) { /* incast: sender 1's port (fabric_options.h) */
      o->sim.incast.tap_sender = true;
      return 0;
    }
    rc = set_choice(err, "--capture", a, tap_names, "requester, responder or auto", &i);
    o->sim.capture.tap = (tap_point)i;
    return rc;
  case O_SUMMARY_JSON: return parse_path(err, "--summary-json", a, &o->summary_json);
  case O_RECORDS: return parse_records(err, a, &o->records);
  case O_PLOT: return parse_path(err, "--plot", a, &o->plot);
  case O_MAX_MEMORY:
    return parse_range(err, "--max-memory", a, 1u << 20, UINT64_MAX, true, &o->sim.max_memory);
  case O_MAX_OUTPUT:
    return parse_range(err, "--max-output", a, 1, UINT64_MAX, true, &o->max_output);
  case O_SPACE_CHECK: {
    static const char *const onoff[] = {"off", "on", NULL};
    rc = set_choice(err, "--space-check", a, onoff, "on or off", &i);
    o->space_check_off = i == 0;
    return rc;
  }
  case O_CAPTURE_START:
    return parse_double(err, "--capture-start", a, 0, 1e12, &o->sim.capture.start_us);
  case O_CAPTURE_DROP: return parse_double(err, "--capture-drop", a, 0, 1, &o->sim.capture.drop);
  case O_CAPTURE_DROP_FRAMES: return parse_frames(o, err, a);
  case O_CAPTURE_TX_LATE:
    return parse_double(err, "--capture-tx-late", a, 0, 1e6, &o->sim.capture.tx_late_us);
  case O_CAPTURE_ROCEV1:
    rc = set_choice(err, "--capture-rocev1", a, tap_names + 1, "requester or responder", &i);
    if (!rc) o->sim.capture.rocev1 = i + 1; /* TAP_REQUESTER, TAP_RESPONDER */
    return rc;
  case 'q': o->quiet = true; return 0;
  case O_BENCH: return parse_range(err, "--bench", a, 1, 1ull << 40, false, &o->sim.bench_packets);
  case 's': return parse_range(err, "--seed", a, 0, UINT64_MAX, false, &o->sim.seed);
  case 'p': return set_profile(o, err, a);
  }
  return 1;
}

static int apply_workload(options *o, int c, const char *a, FILE *err) {
  uint64_t v;
  int i = 0, rc;
  switch (c) {
  case O_WQES: return parse_range(err, "--wqes", a, 1, 1ull << 40, false, &o->sim.workload.wqes);
  case O_WQE_SIZE:
    return parse_range(err, "--wqe-size", a, 0, 1ull << 30, true, &o->sim.workload.wqe_size);
  case O_OP:
    rc = set_choice(err, "--op", a, op_names, "write or read", &i);
    o->sim.workload.op = (op_kind)i;
    return rc;
  case O_QPS: return parse_u32(err, "--qps", a, 1, 4096, &o->sim.workload.qps);
  case O_QPN_BASE: return parse_qpn_base(o, err, a);
  case O_PMTU: return set_pmtu(o, err, a);
  case O_START_PSN:
    rc = parse_range(err, "--start-psn", a, 0, 0xffffff, false, &v);
    o->sim.workload.start_psn = (int64_t)v;
    return rc;
  }
  return 1;
}

static int apply_network(options *o, int c, const char *a, FILE *err) {
  int i = 0, rc;
  switch (c) {
  case O_PATHS:
    o->paths_given = true;
    return parse_u32(err, "--paths", a, 1, 0x4000, &o->sim.fabric.paths);
  case O_BASE_DELAY:
    return parse_double(err, "--base-delay-us", a, 0, 1e6, &o->sim.fabric.base_delay_us);
  case O_DELAY_SPREAD:
    o->spread_given = true;
    return parse_double(err, "--delay-spread-us", a, 0, 1e6, &o->sim.fabric.delay_spread_us);
  case O_PATH: return path_option_add(o, a, err);
  case O_PATH_EVENT: return path_event_option_add(o, a, err);
  case O_RATE: return parse_double(err, "--rate-gbps", a, 0.001, 10000, &o->sim.fabric.rate_gbps);
  case O_PATH_RATE:
    return parse_double(err, "--path-rate-gbps", a, 0.001, 10000, &o->sim.fabric.path_rate_gbps);
  case O_SPRAY:
    rc = set_choice(err, "--spray", a, spray_names, "random, rr or least-loaded", &i);
    o->sim.fabric.spray = (spray_policy)i;
    return rc;
  case O_LOSS: return parse_double(err, "--loss", a, 0, 0.5, &o->sim.fabric.loss);
  case O_BURST: return parse_u32(err, "--burst-len", a, 1, 1u << 20, &o->sim.fabric.burst_len);
  case O_DROP: return parse_drop(o, err, a);
  case O_REORDER_MAX:
    return parse_u32(err, "--reorder-max", a, 0, 4096, &o->sim.fabric.reorder_max);
  case O_REORDER_SHARE:
    return parse_double(err, "--reorder-share", a, 0, 1, &o->sim.fabric.reorder_share);
  case O_UDP_SPORT: return parse_sport(o, err, a);
  }
  return 1;
}

static int apply_protocol(options *o, int c, const char *a, FILE *err) {
  switch (c) {
  case O_ACK_EVERY:
    o->ack_every_given = true;
    return parse_u32(err, "--ack-every", a, 1, 65535, &o->sim.protocol.ack_every);
  case O_ACK_PER_PACKET:
    o->ack_every_given = true;
    o->sim.protocol.ack_every = 1;
    return 0;
  case O_ACK_PER_WQE:
    o->ack_every_given = true;
    o->sim.protocol.ack_every = 0;
    return 0;
  case O_ACK_ENGINE_NS: return parse_ack_engine(o, err, a);
  case O_RESP_TIMEOUT_NAK: {
    static const char *const onoff[] = {"off", "on", NULL};
    int i = 0, rc = set_choice(err, "--resp-timeout-nak", a, onoff, "on or off", &i);
    o->sim.protocol.resp_timeout_nak = i == 1;
    return rc;
  }
  case O_LAST_TIMEOUT_NAK:
  case O_NAK_PACING:
  case O_NAK_LOSS_LIMIT:
  case O_RTO_PROBE: {
    static const char *const onoff[] = {"off", "on", NULL};
    const char *name = c == O_LAST_TIMEOUT_NAK ? "--last-timeout-nak"
                       : c == O_NAK_PACING     ? "--nak-pacing"
                       : c == O_NAK_LOSS_LIMIT ? "--nak-loss-limit"
                                               : "--rto-probe";
    bool *field = c == O_LAST_TIMEOUT_NAK ? &o->sim.protocol.last_timeout_nak
                  : c == O_NAK_PACING     ? &o->sim.protocol.nak_pacing
                  : c == O_NAK_LOSS_LIMIT ? &o->sim.protocol.nak_loss_limit
                                          : &o->sim.protocol.rto_probe;
    int i = 0, rc = set_choice(err, name, a, onoff, "on or off", &i);
    *field = i == 1;
    return rc;
  }
  case O_NAK_BLOCKS: {
    static const char *const blocks[] = {"one", "all", NULL};
    int i = 0, rc = set_choice(err, "--nak-blocks", a, blocks, "all or one", &i);
    o->sim.protocol.nak_all_blocks = i == 1;
    return rc;
  }
  case O_OTD:
    o->otd_source = strcmp(a, "auto") == 0 ? SIZE_AUTO : SIZE_GIVEN;
    return o->otd_source == SIZE_AUTO ? 0
                                      : parse_u32(err, "--otd", a, 1, 4079, &o->sim.protocol.otd);
  case O_WINDOW:
    o->window_source = strcmp(a, "auto") == 0 ? SIZE_AUTO : SIZE_GIVEN;
    return o->window_source == SIZE_AUTO
               ? 0
               : parse_u32(err, "--window", a, 16, 4080, &o->sim.protocol.window);
  case O_BITMAP_POOL:
    return parse_range(err, "--bitmap-pool", a, 1, 1u << 30, false, &o->sim.protocol.bitmap_pool);
  case O_RETRY_LIMIT:
    return parse_u32(err, "--retry-limit", a, 0, 1000, &o->sim.protocol.retry_limit);
  case O_IRN_NACK_THRESHOLD:
    o->irn_nack_threshold_given = strcmp(a, "auto") != 0;
    o->sim.protocol.irn_nack_threshold = 0;
    return o->irn_nack_threshold_given ? parse_u32(err, "--irn-nack-threshold", a, 1, 4079,
                                                   &o->sim.protocol.irn_nack_threshold)
                                       : 0;
  }
  return 1;
}

/* The --rnic options: each records that it was given, so the preset leaves it. */
static int apply_rnic(options *o, int c, const char *a, FILE *err) {
  static const char *const nak_in_retry[] = {"act", "ignore", NULL};
  rnic_model *m = &o->sim.protocol.rnic;
  int i = 0, rc;
  unsigned bit;
  switch (c) {
  case O_RNIC:
    rc = set_choice(err, "--rnic", a, rnic_names, "ideal, commodity, ernic or cx5", &i);
    o->rnic.preset = (rnic_preset)i;
    bit = 0;
    break;
  case O_RNIC_NAK_DELAY:
    rc = parse_double(err, "--rnic-nak-delay-us", a, 0, 1e6, &m->nak_delay_us);
    bit = RNIC_SET_NAK_DELAY;
    break;
  case O_RNIC_RETX_DELAY:
    rc = parse_double(err, "--rnic-retx-delay-us", a, 0, 1e6, &m->retx_delay_us);
    bit = RNIC_SET_RETX_DELAY;
    break;
  case O_RNIC_ACK_REQ:
    rc = parse_u32(err, "--rnic-ack-req", a, 0, 1u << 24, &m->ack_req);
    bit = RNIC_SET_ACK_REQ;
    break;
  case O_RNIC_NAK_IN_RETRY:
    rc = set_choice(err, "--rnic-nak-in-retry", a, nak_in_retry, "act or ignore", &i);
    m->ignore_nak_in_retry = i == 1;
    bit = RNIC_SET_NAK_IN_RETRY;
    break;
  case O_RNIC_RTO:
    rc = parse_double(err, "--rnic-rto-us", a, 0, 1e9, &m->rto_us);
    bit = RNIC_SET_RTO;
    break;
  case O_RNIC_TIMEOUT:
    rc = parse_u32(err, "--rnic-timeout", a, 0, 31, &m->timeout_exp);
    bit = RNIC_SET_TIMEOUT;
    break;
  default: return 1;
  }
  o->rnic.set |= bit;
  o->rnic.given = true;
  return rc;
}

static int apply_rc(options *o, int c, const char *a, FILE *err) {
  static const char *const dirs[] = {"both", "a2b", NULL};
  int i = 0, rc;
  switch (c) {
  case O_RC_OPS: return parse_rc_ops(o, err, a);
  case O_RC_DIRS:
    rc = set_choice(err, "--rc-dirs", a, dirs, "both or a2b", &i);
    o->sim.protocol.rc.a2b = i == 1;
    return rc;
  case O_RC_OUTSTANDING:
    return parse_u32(err, "--rc-outstanding", a, 1, 4096, &o->sim.protocol.rc.outstanding);
  case O_RC_ACK_EVERY:
    return parse_u32(err, "--rc-ack-every", a, 1, 65535, &o->sim.protocol.rc.ack_every);
  case O_RC_SPRAY: o->sim.protocol.rc.spray = true; return 0;
  case O_RC_DC: o->sim.protocol.rc.dc = true; return 0;
  case O_RC_CM: o->sim.protocol.rc.cm = true; return 0;
  }
  return 1;
}

static int apply(options *o, int c, const char *a, FILE *err) {
  if (c == O_SCENARIO) return scenario_load(o, a, err);
  int rc = apply_output(o, c, a, err);
  if (rc == 1) rc = apply_workload(o, c, a, err);
  if (rc == 1) rc = apply_network(o, c, a, err);
  if (rc == 1) rc = apply_protocol(o, c, a, err);
  if (rc == 1) rc = apply_rc(o, c, a, err);
  if (rc == 1) rc = apply_rnic(o, c, a, err);
  if (rc == 1) rc = fabric_option_apply(o, c, a, err);
  if (rc == 1) { /* a long_opts entry no group handles: a bug, said as one */
    cli_usage_error(err, PROG, "option code %d is not handled", c);
    rc = -1;
  }
  return rc;
}

int options_apply_named(options *o, const char *name, const char *value, FILE *err) {
  for (const struct option *lo = long_opts; lo->name; lo++) {
    if (strcmp(lo->name, name) != 0) continue;
    if (lo->val == 'h' || lo->val == 'V' || lo->val == O_LIST_PROFILES || lo->val == O_SCENARIO)
      break;
    if ((lo->has_arg == required_argument) != (value != NULL)) {
      fprintf(err, "ornic-pcapgen: '%s' %s\n", name, value ? "takes no value" : "needs a value");
      return -1;
    }
    return apply(o, lo->val, value, err);
  }
  fprintf(err, "ornic-pcapgen: '%s' is not an option a scenario can set\n", name);
  return -1;
}

static bool over(uint64_t a, uint64_t b, uint64_t *acc) {
  uint64_t m;
  return __builtin_mul_overflow(a, b, &m) || __builtin_add_overflow(*acc, m, acc) ||
         *acc > (UINT64_MAX >> 1); /* the rc profile counts both hosts: x2 must fit */
}

/* WQE and packet totals fit in 63 bits (a wrapped total reads "N of 0 WQEs
 * completed"); a scenario's offending line is named. */
static int check_totals(const options *o, FILE *err) {
  const sim_workload *wl = &o->sim.workload;
  uint64_t wqes = 0, pkts = 0;
  if (!wl->nplan) {
    if (!over(wl->qps, wl->wqes, &wqes) && !over(wqes, wl_npkts(wl->wqe_size, wl->pmtu), &pkts))
      return 0;
    cli_usage_error(err, PROG, "--qps %u x --wqes %llu WQEs of %llu packets overflow 63 bits",
                    wl->qps, (unsigned long long)wl->wqes,
                    (unsigned long long)wl_npkts(wl->wqe_size, wl->pmtu));
    return -1;
  }
  for (size_t i = 0; i < wl->nplan; i++) {
    const wqe_group *g = &wl->plan[i];
    uint64_t n = (uint64_t)(g->qp_hi - g->qp_lo) + 1, w = 0, before = wqes;
    if (over(g->count, n, &w) || over(g->count, n, &wqes) ||
        over(w, wl_npkts(g->size, wl->pmtu), &pkts)) {
      cli_usage_error(err, PROG,
                      "%s:%u: the run's WQE count overflows 63 bits here "
                      "(x%llu on %llu QPs after %llu WQEs)",
                      o->scenario, g->line, (unsigned long long)g->count, (unsigned long long)n,
                      (unsigned long long)before);
      return -1;
    }
  }
  return 0;
}

/* Each node's QP numbers (--qpn-base, --qps) are QP numbers, and under
 * --udp-sport qpn none of them would send from UDP port 0. */
static int check_qpns(const options *o, FILE *err) {
  const sim_workload *wl = &o->sim.workload;
  static const char *const node[] = {"requester; rc: host A", "responder; rc: host B"};
  for (int n = 0; n < 2; n++) {
    unsigned long long first = wl->qpn_base[n], last = first + wl->qps - 1;
    unsigned long long zero = (first + 0xffffu) & ~0xffffull; /* low 16 bits 0 */
    if (last > QPN_MAX) {
      cli_usage_error(err, PROG,
                      "--qpn-base: QPs 0x%llx-0x%llx (%s) go past 0x%x, the largest "
                      "QP number (--qps %u)",
                      first, last, node[n], QPN_MAX, wl->qps);
      return -1;
    }
    if (o->sim.fabric.sport == SPORT_QPN && zero <= last) {
      cli_usage_error(err, PROG,
                      "--udp-sport qpn: QP 0x%llx (%s) would send from UDP port 0 "
                      "(its low 16 bits); choose another --qpn-base",
                      zero, node[n]);
      return -1;
    }
  }
  return 0;
}

/* The workload plan against the other options. */
static int check_plan(options *o, FILE *err, bool wqes_set) {
  sim_workload *wl = &o->sim.workload;
  if (!wl->nplan) return 0;
  if (o->wqes_line) {
    cli_usage_error(err, PROG,
                    "%s:%u: 'wqes' / 'wqe-size' cannot be combined with the wqe "
                    "lines (line %u)",
                    o->scenario, o->wqes_line, wl->plan[0].line);
    return -1;
  }
  if (wqes_set) {
    cli_usage_error(err, PROG,
                    "--wqes / --wqe-size cannot be combined with the scenario's "
                    "wqe lines");
    return -1;
  }
  if (o->sim.bench_packets) {
    cli_usage_error(err, PROG, "--bench makes its own workload: drop the scenario's wqe lines");
    return -1;
  }
  for (size_t i = 0; i < wl->nplan; i++) {
    if (wl->plan[i].qp_hi == UINT32_MAX) wl->plan[i].qp_hi = wl->qps - 1; /* qp=all */
    if (wl->plan[i].qp_hi >= wl->qps) {
      cli_usage_error(err, PROG, "%s:%u: wqe names QP %u, but there are %u QPs (set 'qps')",
                      o->scenario, wl->plan[i].line, wl->plan[i].qp_hi, wl->qps);
      return -1;
    }
  }
  return 0;
}

/* --rnic: each preset's behaviours, in the order of rnic_preset. The values
 * and their sources (or "ours" and why): pcapgen/README.md, "Profile roce:
 * --rnic". commodity is the mix used before ernic and cx5 existed: rxe's ACK
 * cadence and NAK-during-retry rule with ConnectX-5's timers. ernic: no NAK
 * slow path (ours), every NAK acted on (PG332, "Response Handler"), the A bit
 * on every packet (ours; PG332's responder ACKs only those), a fixed IBA local
 * ACK timeout of 4.096 us x 2^14 (rto = cap: not doubled; ours, the unit is
 * PG332's, the exponent perftest's default). cx5: the 20 us slow path per PSN
 * gap (NVIDIA forum), every NAK acted on (ours: the IBA's rule), the A bit on
 * every packet (ours: log_ack_req_freq 0), ConnectX-5's measured 2 ms
 * doubling timeout (perftest issue 251). */
static const rnic_model rnic_presets[] = {
    [RNIC_IDEAL] = {0}, /* every behaviour off */
    [RNIC_COMMODITY] = {.nak_delay_us = 20,
                        .ack_req = 66,
                        .ignore_nak_in_retry = true,
                        .rto_us = 2000,
                        .timeout_exp = 14},
    [RNIC_ERNIC] = {.ack_req = 1, .rto_us = 4.096 * 16384, .timeout_exp = 14},
    [RNIC_CX5] = {.nak_delay_us = 20, .ack_req = 1, .rto_us = 2000, .timeout_exp = 14},
};

/* --rnic: the preset's value of every behaviour not given on its own. */
static void resolve_rnic(const rnic_choice *c, rnic_model *m) {
  const rnic_model p = rnic_presets[c->preset];
  if (!(c->set & RNIC_SET_NAK_DELAY)) m->nak_delay_us = p.nak_delay_us;
  if (!(c->set & RNIC_SET_RETX_DELAY)) m->retx_delay_us = p.retx_delay_us;
  if (!(c->set & RNIC_SET_ACK_REQ)) m->ack_req = p.ack_req;
  if (!(c->set & RNIC_SET_NAK_IN_RETRY)) m->ignore_nak_in_retry = p.ignore_nak_in_retry;
  if (!(c->set & RNIC_SET_RTO)) m->rto_us = p.rto_us;
  if (!(c->set & RNIC_SET_TIMEOUT)) m->timeout_exp = p.timeout_exp;
}

/* The ACK policy in force. ornic's default is the paper's register scheduler
 * (PROTOCOL.md 4.3) with auto's service time: one ACK frame's time on the
 * wire at --rate-gbps, the fastest an engine that shares the port can emit
 * ACKs (the paper gives no figure; ours, PROTOCOL.md 1.1). An --ack-every
 * choice, or --ack-engine-ns off, selects EVERY_N instead. */
static int resolve_acks(options *o, FILE *err) {
  sim_config *c = &o->sim;
  bool engine_asked = o->ack_engine_source != SIZE_DEFAULT && !o->ack_engine_off;
  if (engine_asked && !(c->profile->caps & PROFILE_BITMAP)) {
    cli_usage_error(err, PROG, "--ack-engine-ns: the %s profile does not take it (--profile ornic)",
                    c->profile->name);
    return -1;
  }
  if (engine_asked && o->ack_every_given) {
    cli_usage_error(err, PROG,
                    "--ack-engine-ns and --ack-every/--ack-per-packet/--ack-per-wqe "
                    "are two ACK policies: give one");
    return -1;
  }
  if (o->ack_engine_source == SIZE_DEFAULT && !o->ack_every_given &&
      (c->profile->caps & PROFILE_BITMAP))
    o->ack_engine_source = SIZE_AUTO;
  if (o->ack_engine_source == SIZE_AUTO) c->protocol.ack_engine_ns = sizing_ack_engine_ns(c);
  return 0;
}

/* --otd and --window on the final configuration (sizing.h): auto values, and a
 * warning when a given OTD is below Eq. 3's. */
static int resolve_sizes(options *o, FILE *err) {
  sim_config *c = &o->sim;
  sim_protocol *p = &c->protocol;
  bool otd_matters = (c->profile->caps & PROFILE_OTD) != 0;
  o->otd_eq3 = sizing_otd(c);
  o->bdp = sizing_bdp_of(c);
  if (o->otd_source == SIZE_AUTO || (o->otd_source == SIZE_DEFAULT && otd_matters)) {
    if (o->otd_eq3 > 4079) {
      cli_usage_error(
          err, PROG,
          "--otd auto: Eq. 3 gives %u packets for this fabric (MDD %g us "
          "x %g Gb/s / %u bytes), above the largest OTD, 4079; lower --delay-spread-us or "
          "--reorder-max, or raise --pmtu",
          o->otd_eq3, sizing_mdd_us(c), c->fabric.rate_gbps, c->workload.pmtu);
      return -1;
    }
    p->otd = o->otd_eq3;
    o->otd_source = SIZE_AUTO;
  } else if (o->otd_source == SIZE_GIVEN && otd_matters && p->otd < o->otd_eq3) {
    fprintf(err,
            "ornic-pcapgen: warning: --otd %u is below Eq. 3's %u for this fabric (MDD %g us "
            "x %g Gb/s / %u-byte packets%s): packets that are only late will be NAKed and "
            "resent (--otd auto)\n",
            p->otd, o->otd_eq3, sizing_mdd_us(c), c->fabric.rate_gbps, c->workload.pmtu,
            c->fabric.reorder_max ? ", plus --reorder-max - 1" : "");
  }
  /* The paper sizes the bitmap, hence the window, OTD + BDP (Eqs. 5-6): the
   * default wherever the OTD is a protocol parameter (PROTOCOL.md 4.1). */
  if (o->window_source == SIZE_DEFAULT && otd_matters && (c->profile->caps & PROFILE_WINDOW))
    o->window_source = SIZE_AUTO;
  if (o->window_source == SIZE_AUTO) {
    uint64_t w = (uint64_t)p->otd + o->bdp + sizing_ack_slack(c);
    uint64_t lo = p->otd + 1u > 16u ? p->otd + 1u : 16u;
    if (w > 4080)
      fprintf(err,
              "ornic-pcapgen: warning: --window auto: OTD %u + BDP %u + ACK slack %u = %llu "
              "packets, above the largest window; using 4080\n",
              p->otd, o->bdp, sizing_ack_slack(c), (unsigned long long)w);
    p->window = (uint32_t)(w > 4080 ? 4080 : w < lo ? lo : w);
    /* --ack-per-wqe: no ACK before the WQE's end, so a window below the WQE
     * would stall the requester until its timeout. */
    uint64_t wqe_pkts = (wl_max_wqe_len(c) + c->workload.pmtu - 1) / c->workload.pmtu;
    if (p->ack_every == 0 && wqe_pkts > p->window)
      p->window = (uint32_t)(wqe_pkts > 4080 ? 4080 : wqe_pkts);
  }
  return 0;
}

/* Cross-option rules, and the defaults that depend on other options. */
static int finish(options *o, FILE *err, bool pmtu_set, bool loss_set, bool wqes_set) {
  sim_config *c = &o->sim;
  if (c->fabric.path_rate_gbps == 0) c->fabric.path_rate_gbps = c->fabric.rate_gbps;
  if (check_plan(o, err, wqes_set) < 0 || check_totals(o, err) < 0 || check_qpns(o, err) < 0)
    return -1;
  if (c->bench_packets) {
    if (!pmtu_set) c->workload.pmtu = 1024;
    if (!loss_set) c->fabric.loss = 0;
    if (!o->output) o->output = "/dev/null";
    /* Enough work for the packet count; the run stops at the count. */
    c->workload.wqes = c->bench_packets / c->workload.qps + 1;
  }
  if (!o->output) {
    cli_usage_error(err, PROG, "no output file: give -o FILE");
    return -1;
  }
  if (path_options_finish(o, err) < 0) return -1;
  if (fabric_options_finish(o, loss_set, err) < 0) return -1;
  if (pathcheck_distinct(o, err) < 0) return -1;
  if (o->rnic.given && !(c->profile->caps & PROFILE_RNIC)) {
    cli_usage_error(err, PROG,
                    "--rnic*: the %s profile does not take them (they model a "
                    "go-back-N RNIC: --profile roce; --list-profiles says which profiles do)",
                    c->profile->name);
    return -1;
  }
  if (c->workload.op == OP_READ && !(c->profile->caps & PROFILE_READ)) {
    cli_usage_error(err, PROG,
                    "--op read: the %s profile does not take it (%s; the profiles "
                    "that do: --list-profiles)",
                    c->profile->name,
                    c->profile->caps & PROFILE_TWO_HOSTS ? "its READs: --rc-ops read"
                                                         : "it simulates WRITE only");
    return -1;
  }
  if (c->protocol.rc.cm && c->protocol.rc.dc) {
    cli_usage_error(err, PROG,
                    "--rc-cm and --rc-dc: DC sets up no connection with RDMA-CM; give one of them");
    return -1;
  }
  if ((c->profile->caps & PROFILE_TWO_HOSTS) && o->plot) {
    cli_usage_error(err, PROG, "--plot does not draw the %s profile (data flows both ways)",
                    c->profile->name);
    return -1;
  }
  if (o->records && !o->summary_json) {
    cli_usage_error(err, PROG, "--records: the records go into the --summary-json file: give one");
    return -1;
  }
  if ((o->records & RECORDS_WQE) && (c->profile->caps & PROFILE_TWO_HOSTS)) {
    cli_usage_error(err, PROG,
                    "--records wqe: not for the %s profile (its WQEs complete "
                    "through its own requester); --records nak works",
                    c->profile->name);
    return -1;
  }
  if (resolve_acks(o, err) < 0) return -1;
  if (o->irn_nack_threshold_given && !(c->profile->caps & PROFILE_NACK_THRESHOLD)) {
    fprintf(
        err,
        "ornic-pcapgen: --irn-nack-threshold: the %s profile does not take it (--profile irn)\n",
        c->profile->name);
    return -1;
  }
  resolve_rnic(&o->rnic, &c->protocol.rnic);
  if (resolve_sizes(o, err) < 0) return -1;
  if (!o->irn_nack_threshold_given) /* IRN section 8: tolerate what the fabric reorders */
    c->protocol.irn_nack_threshold =
        c->fabric.paths > 1 || c->fabric.reorder_max ? c->protocol.otd : 1;
  if (c->protocol.otd >= c->protocol.window) {
    cli_usage_error(err, PROG, "--otd %u%s must be less than --window %u", c->protocol.otd,
                    o->otd_source == SIZE_AUTO ? " (auto: Eq. 3)" : "", c->protocol.window);
    return -1;
  }
  for (size_t i = 0; i < c->fabric.ndrops; i++)
    if (c->fabric.drops[i].qp >= c->workload.qps) {
      cli_usage_error(err, PROG, "--drop: QP %u does not exist (--qps %u)", c->fabric.drops[i].qp,
                      c->workload.qps);
      return -1;
    }
  return 0;
}

/* -h, --version and --list-profiles end the parse: 1, or 2 when their
 * output could not be written (a full disk must not look like success). */
static int info_option(int c) {
  int rc;
  if (c == 'V') {
    rc = cli_version(PROG, NULL);
  } else {
    if (c == 'h')
      usage(stdout);
    else
      profile_list(stdout);
    rc = cli_help(PROG, ""); /* the flush and its check */
  }
  return rc == CLI_EXIT_OK ? 1 : 2;
}

int options_parse(options *o, int argc, char **argv, FILE *err) {
  defaults(o);
  bool pmtu_set = false, loss_set = false, wqes_set = false;
  int c;
  opterr = 0; /* the messages are libs/ornic-cli's */
  optind = 1;
  while ((c = getopt_long(argc, argv, ":o:qs:p:hV", long_opts, NULL)) != -1) {
    if (c == 'h' || c == 'V' || c == O_LIST_PROFILES) return info_option(c);
    if (c == '?' || c == ':') {
      cli_getopt_error(err, PROG, c, argv, long_opts);
      return -1;
    }
    pmtu_set |= c == O_PMTU;
    loss_set |= c == O_LOSS;
    wqes_set |= c == O_WQES || c == O_WQE_SIZE;
    if (apply(o, c, optarg, err) < 0) return -1;
  }
  if (optind < argc) {
    cli_unexpected(err, PROG, argv[optind]);
    return -1;
  }
  return finish(o, err, pmtu_set, loss_set, wqes_set);
}

void options_free(options *o) {
  free(o->sim.workload.plan);
  free(o->scenario_text);
  o->sim.workload.plan = NULL;
  o->scenario_text = NULL;
  free(o->sim.fabric.drops);
  o->sim.fabric.drops = NULL;
  o->sim.fabric.ndrops = 0;
  free(o->sim.capture.drop_frames);
  o->sim.capture.drop_frames = NULL;
  o->sim.capture.ndrop_frames = 0;
  free(o->sim.fabric.path_list);
  o->sim.fabric.path_list = NULL;
  o->npath_list = 0;
  free(o->sim.fabric.events);
  o->sim.fabric.events = NULL;
  o->sim.fabric.nevents = 0;
}
