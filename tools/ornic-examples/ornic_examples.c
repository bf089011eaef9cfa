/* SPDX-License-Identifier: MIT */
/* ornic-examples: builds the worked examples of docs/PROTOCOL.md section 6
 * with ornic_frame_encode, decodes each one back with ornic_frame_decode,
 * checks its iCRC with ornic_icrc_verify, and prints the section in the
 * document's exact format (Markdown field table, ```hex name=...``` block
 * of 16 bytes per line, iCRC line). docs/examples.txt is this output.
 *
 * Usage: ornic-examples [NAME...]             print every example, or the named ones
 *        ornic-examples --pcap FILE [NAME...] write them as a capture ('-': stdout)
 * Exit status: 0; 1 if an example fails to encode, decode or verify, or output
 * cannot be written; 2 for a bad command line (as ornic-pcapgen and
 * ornic-bitmap-sim), with a message on stderr naming the bad argument. */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_outfile.h"
#include "pcap_out.h"

#include <ornic/ornic.h>

#define PROG "ornic-examples"

#define PMTU 256u
#define FRAME_MAX 2048u

/* QPs and addresses shared by the examples (section 6.0). */
#define QP_REQ 0x000011u /* requester's QP, at 10.0.0.1 / fd00::1 */
#define QP_RSP 0x000012u /* responder's QP, at 10.0.0.2 / fd00::2 */
#define RKEY_W 0x1234ABCDu
#define RKEY_R 0x5678EF01u
#define WQE1_ADDR UINT64_C(0x00007F3A12340000)
#define WQE1_LEN 1001u
#define WQE1_PSN 0xFFFFFEu

typedef struct {
  const char *name;  /* hex block name */
  const char *title; /* subsection title */
  const char *text;  /* what the example shows, with derived values */
  const char *payload_note;
  void (*build)(ornic_frame *f);
  /* optional: patch bytes after encoding (only fields the iCRC masks) */
  void (*patch)(uint8_t *frame, size_t len);
} example;

static uint8_t payload_buf[FRAME_MAX];
static uint8_t bitmap_buf[2 * ORNIC_NAKETH_MAX_BLOCKS];

/* Byte j of every WQE (and of the READ's remote buffer) is j mod 251. */
static const uint8_t *wqe_bytes(size_t wqe_off, size_t len) {
  for (size_t i = 0; i < len; i++) payload_buf[i] = (uint8_t)((wqe_off + i) % 251u);
  return payload_buf;
}

static void set_ip4(uint8_t *a, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3) {
  memset(a, 0, 16);
  a[0] = b0, a[1] = b1, a[2] = b2, a[3] = b3;
}

/* Requester -> responder on IPv4: the library's defaults. */
static void to_responder(ornic_frame *f, uint16_t ip_id, uint16_t sport) {
  ornic_frame_init(f, ORNIC_LINK_ETHERNET, 4);
  f->ip.tos = 0x6A; /* DSCP 26, ECN ECT(0) */
  f->ip.id = ip_id;
  f->udp.sport = sport;
  f->bth.destqp = QP_RSP;
}

/* Responder -> requester: addresses and MACs swapped. */
static void to_requester(ornic_frame *f, uint16_t ip_id, uint16_t sport) {
  uint8_t mac[6], ip[16];
  to_responder(f, ip_id, sport);
  memcpy(mac, f->eth.dst, 6);
  memcpy(f->eth.dst, f->eth.src, 6);
  memcpy(f->eth.src, mac, 6);
  memcpy(ip, f->ip.dst, 16);
  memcpy(f->ip.dst, f->ip.src, 16);
  memcpy(f->ip.src, ip, 16);
  f->bth.destqp = QP_REQ;
}

static void wqe1_packet(ornic_frame *f, unsigned i) {
  uint32_t off = i * PMTU;
  uint32_t len = off + PMTU <= WQE1_LEN ? PMTU : WQE1_LEN - off;
  f->bth.psn = (WQE1_PSN + i) & ORNIC_PSN_MASK;
  f->payload = wqe_bytes(off, len);
  f->payload_len = len;
  f->ext.reth.va = WQE1_ADDR + off;
  f->ext.reth.rkey = RKEY_W;
  f->ext.reth.dmalen = WQE1_LEN;
  f->ext.offeth.offset = off;
}

static void build_fspot(ornic_frame *f) {
  to_responder(f, 0x0001, 0xC001);
  f->bth.opcode = ORNIC_OP_OOO_WRITE_FSPOT;
  wqe1_packet(f, 2);
}

static void build_spot(ornic_frame *f) {
  to_responder(f, 0x0002, 0xC002);
  f->bth.opcode = ORNIC_OP_OOO_WRITE_SPOT;
  wqe1_packet(f, 1);
}

static void build_last(ornic_frame *f) {
  to_responder(f, 0x0003, 0xC003);
  f->bth.opcode = ORNIC_OP_OOO_WRITE_LAST;
  f->bth.ackreq = 1;
  wqe1_packet(f, 3);
}

static void build_last_addr_imm_v6(ornic_frame *f) {
  ornic_frame_init(f, ORNIC_LINK_ETHERNET, 6);
  f->ip.tos = 0x6A;
  f->ip.flow_label = 0x12345;
  f->udp.sport = 0xC004;
  f->bth.opcode = ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM;
  f->bth.se = 1;
  f->bth.destqp = QP_RSP;
  f->bth.psn = 0x000002;
  f->payload = wqe_bytes(0, 64);
  f->payload_len = 64;
  f->ext.reth.va = UINT64_C(0x00007F3A12350000);
  f->ext.reth.rkey = RKEY_W;
  f->ext.reth.dmalen = 64;
  f->ext.offeth.offset = 0;
  f->ext.immdt.data = 0xDEADBEEF;
}

static void build_read_req(ornic_frame *f) {
  to_responder(f, 0x0005, 0xC005);
  f->bth.opcode = ORNIC_OP_OOO_READ_REQ;
  f->bth.psn = 0x000003;
  f->ext.reth.va = UINT64_C(0x00007F3A12360000);
  f->ext.reth.rkey = RKEY_R;
  f->ext.reth.dmalen = 602;
}

static void build_read_resp_last(ornic_frame *f) {
  to_requester(f, 0x0101, 0xC101);
  f->bth.opcode = ORNIC_OP_OOO_READ_RESP_LAST;
  f->bth.psn = 0x000005;
  f->payload = wqe_bytes(2 * PMTU, 602 - 2 * PMTU);
  f->payload_len = 602 - 2 * PMTU;
  f->ext.aeth.syndrome = 0x1F;
  f->ext.aeth.msn = 3;
}

static void build_ack(ornic_frame *f) {
  to_requester(f, 0x0102, 0xC102);
  f->bth.opcode = ORNIC_OP_ACK;
  f->bth.psn = 0x000010;
  f->ext.aeth.syndrome = 0x1F;
  f->ext.aeth.msn = 3;
  f->ext.oacketh.flags = ORNIC_OACK_ADDR_CACHED;
  f->ext.oacketh.count = 16;
}

static void set_nak(ornic_frame *f, uint8_t reason, uint32_t trigger, uint32_t base, uint32_t limit,
                    const uint16_t *blocks, unsigned n, uint32_t msn) {
  f->bth.opcode = ORNIC_OP_NAK;
  f->bth.psn = base;
  f->ext.aeth.syndrome = ORNIC_AETH_NAK; /* 0x60 PSN sequence error */
  f->ext.aeth.msn = msn;
  f->ext.naketh.reason = reason;
  f->ext.naketh.trigger_psn = trigger;
  f->ext.naketh.nblocks = (uint8_t)n;
  f->ext.naketh.base_psn = base;
  f->ext.naketh.limit_psn = limit;
  ornic_naketh_bitmap_pack(bitmap_buf, blocks, n);
  f->ext.naketh.bitmap = bitmap_buf;
}

static void build_nak1(ornic_frame *f) {
  static const uint16_t blocks[] = {0x03F6};
  to_requester(f, 0x0103, 0xC103);
  set_nak(f, ORNIC_NAKETH_LAST_INCOMPLETE, 0x000051, 0x000048, 0x000051, blocks, 1, 4);
}

static void build_nak3(ornic_frame *f) {
  static const uint16_t blocks[] = {0xFF7C, 0xFFDF, 0x002B};
  to_requester(f, 0x0104, 0xC104);
  set_nak(f, ORNIC_NAKETH_OTD_EXCEEDED, 0x000081, 0x000060, 0x000061, blocks, 3, 5);
}

static void build_nak_all(ornic_frame *f) {
  static const uint16_t blocks[] = {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF};
  to_requester(f, 0x0105, 0xC105);
  set_nak(f, ORNIC_NAKETH_TIMEOUT, 0x00002F, 0xFFFFF0, 0x00002F, blocks, 4, 0x000123);
}

static void build_rc_write_first_vlan(ornic_frame *f) {
  to_responder(f, 0x0010, 0xC010);
  f->eth.has_vlan = true;
  f->eth.vlan_tpid = ORNIC_ETHERTYPE_VLAN;
  f->eth.vlan_tci = 3u << 13 | 100u; /* PCP 3, DEI 0, VID 100 */
  f->bth.opcode = ORNIC_OP_RC_RDMA_WRITE_FIRST;
  f->bth.psn = 0x001000;
  f->ext.reth.va = UINT64_C(0x00007F3A12370000);
  f->ext.reth.rkey = RKEY_W;
  f->ext.reth.dmalen = 1024;
  f->payload = wqe_bytes(0, PMTU);
  f->payload_len = PMTU;
}

/* ConnectX-4 Lx CNP from Scapy's test/contrib/roce.uts, field by field. */
static void build_cnp(ornic_frame *f) {
  static const uint8_t dst[6] = {0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2};
  static const uint8_t src[6] = {0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32};
  ornic_frame_init(f, ORNIC_LINK_ETHERNET, 4);
  memcpy(f->eth.dst, dst, 6);
  memcpy(f->eth.src, src, 6);
  f->ip.tos = 0xC2;
  f->ip.id = 0x718C;
  f->ip.ttl = 64;
  set_ip4(f->ip.src, 10, 0, 17, 1);
  set_ip4(f->ip.dst, 10, 0, 18, 1);
  f->udp.sport = 0;
  f->bth.opcode = ORNIC_OP_CNP;
  f->bth.becn = 1;
  f->bth.destqp = 0x000118;
  f->bth.psn = 0;
}

/* Scapy's UC SEND Only vector from test/contrib/roce.uts. */
static void build_uc_send(ornic_frame *f) {
  static const uint8_t mac[6] = {0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22};
  static const uint8_t pay[18] = {0x46, 0x30, 0x81, 0x8b, 0xe2, 0x89, 0x35, 0xd9, 0x0e,
                                  0x9a, 0x95, 0x50, 0x54, 0x01, 0xbe, 0x88, 0x5e, 0x50};
  ornic_frame_init(f, ORNIC_LINK_ETHERNET, 4);
  memcpy(f->eth.dst, mac, 6);
  memcpy(f->eth.src, mac, 6);
  f->ip.tos = 0x01;
  f->ip.id = 1144;
  set_ip4(f->ip.src, 192, 168, 0, 7);
  set_ip4(f->ip.dst, 192, 168, 0, 7);
  f->udp.sport = 49152;
  f->bth.opcode = 0x24; /* UC SEND Only */
  f->bth.m = 1;
  f->bth.destqp = 211;
  f->bth.psn = 13571856;
  f->payload = pay;
  f->payload_len = sizeof pay;
}

/* Scapy computed a UDP checksum for this frame; ornic_frame_encode writes 0 on
 * IPv4. The iCRC masks the UDP checksum, so writing Scapy's value afterwards
 * leaves the iCRC valid: that is part of what the example shows. */
static void patch_uc_send(uint8_t *frame, size_t len) {
  if (len > 41) frame[40] = 0xAC, frame[41] = 0xA2;
}

static const example examples[] = {
    {"fspot-ipv4", "OOO WRITE FSpot, IPv4",
     "WQE: RDMA WRITE of 1001 bytes to Start_Addr 0x00007F3A12340000, R_Key 0x1234ABCD, PMTU 256, "
     "so N = 4\n"
     "packets with PSNs 0xFFFFFE, 0xFFFFFF, 0x000000, 0x000001 (the PSN wraps inside the WQE). "
     "This is\n"
     "packet 2 (offset 512), the first of the WQE to reach the responder, on path 1 (UDP source "
     "port 0xC001).\n"
     "From it alone the responder derives Start_Addr = 0x00007F3A12340200 - 512 = "
     "0x00007F3A12340000,\n"
     "Start_PSN = 0x000000 - 512/256 = 0xFFFFFE (mod 2^24), N = ceil(1001/256) = 4 and Last_PSN = "
     "0x000001.",
     "WQE bytes 512-767; byte j of the WQE is j mod 251, so the payload starts 0a 0b 0c",
     build_fspot, NULL},
    {"spot-ipv4", "OOO WRITE Spot, IPv4",
     "Packet 1 of the same WQE, sent after the requester saw ADDR_CACHED, on path 2. No extension "
     "header:\n"
     "the responder places it at Start_Addr + (0xFFFFFF - 0xFFFFFE) * 256 = 0x00007F3A12340100.",
     "WQE bytes 256-511", build_spot, NULL},
    {"last-ipv4", "OOO WRITE Last, IPv4, PadCnt 3",
     "Packet 3, the Last, on path 3: 1001 - 3*256 = 233 payload bytes placed at Start_Addr + 3*256 "
     "=\n"
     "0x00007F3A12340300, followed by 3 zero pad bytes (PadCnt = 3). A = 1 asks for an immediate "
     "ACK. The\n"
     "WQE completes, and the responder's MSN goes from 0 to 1, when packets 0-3 have all been "
     "placed, in\n"
     "whatever order they arrive.",
     "WQE bytes 768-1000", build_last, NULL},
    {"last-addr-imm-ipv6", "OOO WRITE Last with Address and Immediate, IPv6",
     "A single-packet WQE (N = 1) over IPv6: 64 bytes to 0x00007F3A12350000 with immediate data\n"
     "0xDEADBEEF. A single-packet WQE always uses Last with Address: offset 0, VA = Start_Addr, "
     "DMA length =\n"
     "payload length. SE = 1 asks for a solicited event with the completion. Traffic class 0x6A "
     "and flow\n"
     "label 0x12345 are masked by the iCRC; the UDP checksum is computed, as IPv6 requires. The "
     "PSN follows\n"
     "the previous WQE; this WQE takes the responder's MSN to 2.",
     "WQE bytes 0-63", build_last_addr_imm_v6, NULL},
    {"read-req-ipv4", "OOO READ Request, IPv4",
     "OOO READ of 602 bytes from remote address 0x00007F3A12360000, R_Key 0x5678EF01. N = "
     "ceil(602/256) = 3:\n"
     "the responses carry PSNs 0x000003-0x000005 and the requester's next request PSN is 0x000006. "
     "The RETH\n"
     "is that of an IBA RDMA READ Request; only the opcode differs.",
     NULL, build_read_req, NULL},
    {"read-resp-last-ipv4", "OOO READ Response Last, IPv4, PadCnt 2",
     "The last response of that READ, responder to requester (addresses swapped, DestQP = the "
     "requester's\n"
     "QP 0x000011): PSN 0x000005 = P + 2 carries 602 - 2*256 = 90 bytes, placed at local_addr + "
     "2*256, and\n"
     "2 pad bytes. AETH 0x1F = ACK without credit information; MSN 3: the responder has executed "
     "three WQEs\n"
     "(two WRITEs and this READ).",
     "remote bytes 512-601; remote byte j is j mod 251", build_read_resp_last, NULL},
    {"ack-addr-cached-ipv4", "ORNIC ACK with ADDR_CACHED, Count 16",
     "WQE 4 (PSNs 0x000006-0x000045, 64 packets) is in flight; the ACK policy is EVERY_N with N = "
     "16. Since\n"
     "its previous ACK the responder accepted 16 new packets in arbitrary order; PSNs "
     "0x000006-0x000010 have\n"
     "all arrived, so BTH.PSN (the cumulative PSN) is 0x000010. MSN is still 3. ADDR_CACHED tells "
     "the\n"
     "requester to send the rest of WQE 4 as Spot and Last. Count (16) exceeds the cumulative "
     "advance (11):\n"
     "five of the packets arrived ahead of a hole.",
     NULL, build_ack, NULL},
    {"nak-1block-ipv4", "ORNIC NAK, reason 3, one block (PadCnt 2)",
     "WQE 5 has N = 12 packets, PSNs 0x000046-0x000051. All arrived except 0x000048 and 0x00004B; "
     "the Last\n"
     "(0x000051) arrived and T_last expired with the holes still open: reason 3. Base = ePSN = "
     "0x000048,\n"
     "trigger = Last_PSN = 0x000051, and for reason 3 the loss limit is the trigger: Limit = "
     "0x000051.\n"
     "n = floor((0x51 - 0x48)/16) + 1 = 1 block for PSNs 0x000048-0x000057: bits 1, 2 and 4-9 set "
     "= 0x03F6\n"
     "(bits 10-15 are PSNs after the WQE). One block makes the NAKETH 14 bytes, 2 mod 4, so PadCnt "
     "= 2.\n"
     "MSN 4.",
     NULL, build_nak1, NULL},
    {"nak-3blocks-ipv4", "ORNIC NAK, reason 1, three blocks (PadCnt 2)",
     "WQE 6 starts at PSN 0x000052 on a QP configured with OTD = 32. ePSN is 0x000060 when PSN "
     "0x000081\n"
     "arrives: 0x81 - 0x60 = 33 > 32, reason 1. n = floor(33/16) + 1 = 3 blocks cover "
     "0x000060-0x00008F.\n"
     "Block 0 = 0xFF7C (0x60, 0x61 and 0x67 missing), block 1 = 0xFFDF (0x75 missing), block 2 = "
     "0x002B\n"
     "(0x80, 0x81, 0x83 and 0x85 received). A reason 1 NAK declares lost only PSNs more than OTD "
     "behind\n"
     "the trigger: the responder writes Limit = 0x81 - 32 = 0x000061, and the others may still be "
     "on\n"
     "slower paths. So the lost set is Base alone, and any reader sees it from the Limit without "
     "knowing\n"
     "the OTD; 0x61, 0x67 and 0x75 go in a later NAK if they stay missing. Odd block count: PadCnt "
     "= 2.\n"
     "MSN 5.",
     NULL, build_nak3, NULL},
    {"nak-all-ones-ipv4", "ORNIC NAK, every bit set, across the PSN wrap",
     "The decoder edge case: four blocks with every bit set, Base 0xFFFFF0, so the bitmap covers\n"
     "0xFFFFF0-0x00002F across the PSN wrap. Bit 0 of block 0 is reserved (Base is missing by "
     "definition),\n"
     "so this NAK declares only Base lost; a conforming responder sends block 0 as 0xFFFE, and "
     "decoders\n"
     "accept and preserve either. Reason 2 (timeout); trigger = the highest PSN received, "
     "0x00002F, and\n"
     "Limit = the trigger. Even block count: PadCnt = 0.",
     NULL, build_nak_all, NULL},
    {"rc-write-first-vlan", "Standard RC RDMA WRITE First with an 802.1Q tag",
     "An IBA RC RDMA WRITE First (opcode 0x06) behind an 802.1Q tag (PCP 3, VID 100); the tag is "
     "not\n"
     "covered by the iCRC. The RETH describes the whole message (VA = message start, DMA length = "
     "1024)\n"
     "and the payload is one PMTU. Compare with example 6.1: a standard responder must receive "
     "this packet\n"
     "before any other packet of the message.",
     "message bytes 0-255", build_rc_write_first_vlan, NULL},
    {"cnp-connectx4", "RoCEv2 CNP captured on a ConnectX-4 Lx",
     "A real CNP from Scapy's test/contrib/roce.uts, rebuilt field by field with "
     "ornic_frame_encode: opcode\n"
     "0x81, BECN = 1 (BTH byte 4 = 0x40), DestQP 0x000118, PSN 0, 16 reserved zero bytes, UDP "
     "source port 0,\n"
     "IPv4 TOS 0xC2. The iCRC below equals the captured `82 fd 00 2a`: an independent test vector "
     "for\n"
     "section 2.6.",
     NULL, build_cnp, NULL},
    {"uc-send-only-scapy", "UC SEND Only: Scapy's RoCE test vector",
     "Scapy's own vector from test/contrib/roce.uts: UC SEND Only (0x24), M = 1, 18 payload bytes "
     "and\n"
     "PadCnt 2. Scapy also computed a UDP checksum (0xACA2) over IPv4; ornic_frame_encode writes "
     "0, and the\n"
     "generator then writes 0xACA2 into the frame. The iCRC masks the UDP checksum, so it stays "
     "valid. Scapy\n"
     "expects IP checksum 0xB4D5 and `icrc == 0x78f353f3`, i.e. wire bytes `78 f3 53 f3`.",
     "the 18 bytes of the Scapy test", build_uc_send, patch_uc_send},
};

/* ---- printing ---------------------------------------------------------- */

#if defined(__GNUC__)
static void row(const char *layer, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#endif

static void row(const char *layer, const char *field, const char *fmt, ...) {
  va_list ap;
  printf("| %s | %s | ", layer, field);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf(" |\n");
}

static const char *mac_str(const uint8_t *m, char *buf) {
  sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return buf;
}

/* RFC 5952 text form: longest run (>= 2) of zero groups becomes "::". */
static const char *ip6_str(const uint8_t *a, char *buf) {
  unsigned g[8];
  int best = -1, best_len = 0;
  for (int i = 0; i < 8; i++) g[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
  for (int i = 0; i < 8;) {
    int j = i;
    while (j < 8 && g[j] == 0) j++;
    if (j - i > best_len && j - i >= 2) best = i, best_len = j - i;
    i = j > i ? j : i + 1;
  }
  char *p = buf;
  for (int i = 0; i < 8; i++) {
    if (i == best) {
      p += sprintf(p, "::");
      i += best_len - 1;
      continue;
    }
    if (i > 0 && p[-1] != ':') *p++ = ':';
    p += sprintf(p, "%x", g[i]);
  }
  *p = 0;
  return buf;
}

static const char *ecn_name(unsigned ecn) {
  static const char *const n[] = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};
  return n[ecn & 3];
}

static void print_nak(const ornic_frame *d) {
  const ornic_naketh *n = &d->ext.naketh;
  row("NAKETH", "reason", "%u (%s)", n->reason, ornic_naketh_reason_name(n->reason));
  row("NAKETH", "trigger PSN", "0x%06" PRIX32, n->trigger_psn);
  row("NAKETH", "nblocks", "%u", n->nblocks);
  row("NAKETH", "base PSN", "0x%06" PRIX32, n->base_psn);
  row("NAKETH", "resv", "%u", n->resv);
  row("NAKETH", "limit PSN", "0x%06" PRIX32, n->limit_psn);
  for (unsigned k = 0; k < n->nblocks; k++) {
    char field[24];
    uint32_t first = ornic_psn_add(n->base_psn, (int32_t)(16 * k));
    sprintf(field, "block %u", k);
    row("NAKETH", field, "0x%04X: PSNs 0x%06" PRIX32 "-0x%06" PRIX32, ornic_naketh_block(n, k),
        first, ornic_psn_add(first, 15));
  }
  /* Lost set of section 4.4, from the NAK alone (its Limit PSN). */
  printf("| NAKETH | lost set (section 4.4) | 0x%06" PRIX32, n->base_psn);
  uint32_t span = ornic_naketh_lost_span(n);
  for (uint32_t i = 1; i < span; i++) {
    uint32_t q = ornic_psn_add(n->base_psn, (int32_t)i);
    if (ornic_naketh_psn_lost(n, q)) printf(", 0x%06" PRIX32, q);
  }
  printf(" |\n");
}

static void print_fields(const example *ex, const ornic_frame *d, const uint8_t *frame) {
  char b1[64], b2[64];
  const ornic_bth *bth = &d->bth;
  printf("| layer | field | value |\n|---|---|---|\n");
  row("Ethernet", "destination", "%s", mac_str(d->eth.dst, b1));
  row("Ethernet", "source", "%s", mac_str(d->eth.src, b2));
  if (d->eth.has_vlan)
    row("802.1Q", "TPID, TCI", "0x%04X, 0x%04X (PCP %u, DEI %u, VID %u)", d->eth.vlan_tpid,
        d->eth.vlan_tci, d->eth.vlan_tci >> 13, (d->eth.vlan_tci >> 12) & 1,
        d->eth.vlan_tci & 0xfff);
  row("Ethernet", "EtherType", "0x%04X (%s)", d->eth.ethertype,
      d->l3 == ORNIC_L3_IPV4 ? "IPv4" : "IPv6");
  if (d->l3 == ORNIC_L3_IPV4) {
    const ornic_ip *ip = &d->ip;
    row("IPv4", "version, IHL", "4, %u (%u bytes)", ip->hdr_len / 4, ip->hdr_len);
    row("IPv4", "TOS", "0x%02X (DSCP %u, %s); iCRC: 0xFF", ip->tos, ip->tos >> 2,
        ecn_name(ip->tos));
    row("IPv4", "total length", "%u", ip->total_len);
    row("IPv4", "identification", "0x%04X", ip->id);
    row("IPv4", "flags, fragment offset", "0x%04X%s", ip->frag, ip->frag == 0x4000 ? " (DF)" : "");
    row("IPv4", "TTL", "%u; iCRC: 0xFF", ip->ttl);
    row("IPv4", "protocol", "%u (UDP)", ip->next_proto);
    row("IPv4", "header checksum", "0x%04X; iCRC: 0xFFFF", ip->checksum);
    row("IPv4", "source", "%u.%u.%u.%u", ip->src[0], ip->src[1], ip->src[2], ip->src[3]);
    row("IPv4", "destination", "%u.%u.%u.%u", ip->dst[0], ip->dst[1], ip->dst[2], ip->dst[3]);
  } else {
    const ornic_ip *ip = &d->ip;
    row("IPv6", "version", "6");
    row("IPv6", "traffic class", "0x%02X (DSCP %u, %s); iCRC: 0xFF", ip->tos, ip->tos >> 2,
        ecn_name(ip->tos));
    row("IPv6", "flow label", "0x%05" PRIX32 "; iCRC: 0xFFFFF", ip->flow_label);
    row("IPv6", "payload length", "%u", ip->total_len - 40u);
    row("IPv6", "next header", "%u (UDP)", ip->next_proto);
    row("IPv6", "hop limit", "%u; iCRC: 0xFF", ip->ttl);
    row("IPv6", "source", "%s", ip6_str(ip->src, b1));
    row("IPv6", "destination", "%s", ip6_str(ip->dst, b2));
  }
  row("UDP", "source port", "%u (0x%04X)", d->udp.sport, d->udp.sport);
  row("UDP", "destination port", "%u", d->udp.dport);
  row("UDP", "length", "%u", d->udp.len);
  row("UDP", "checksum", "0x%04X (%s); iCRC: 0xFFFF", d->udp.checksum,
      d->l3 == ORNIC_L3_IPV6 ? "computed"
      : d->udp.checksum      ? "set by Scapy"
                             : "not used on IPv4");
  row("BTH", "OpCode", "0x%02X (%s)", bth->opcode, ornic_opcode_name(bth->opcode));
  row("BTH", "SE, M, PadCnt, TVer", "%u, %u, %u, %u", bth->se, bth->m, bth->padcnt, bth->tver);
  row("BTH", "P_Key", "0x%04X", bth->pkey);
  row("BTH", "FECN, BECN, resv6", "%u, %u, %u (byte 4 = 0x%02X); iCRC: 0xFF", bth->fecn, bth->becn,
      bth->resv6, frame[d->bth_off + 4]);
  row("BTH", "DestQP", "0x%06" PRIX32, bth->destqp);
  row("BTH", "A, resv7", "%u, %u", bth->ackreq, bth->resv7);
  row("BTH", "PSN", "0x%06" PRIX32, bth->psn);
  const ornic_ext *e = &d->ext;
  if (e->present & ORNIC_HDR_RETH) {
    row("RETH", "VA", "0x%016" PRIX64, e->reth.va);
    row("RETH", "R_Key", "0x%08" PRIX32, e->reth.rkey);
    row("RETH", "DMA length", "%" PRIu32, e->reth.dmalen);
  }
  if (e->present & ORNIC_HDR_OFFETH) row("OFFETH", "offset", "%" PRIu32, e->offeth.offset);
  if (e->present & ORNIC_HDR_AETH)
    row("AETH", "syndrome, MSN", "0x%02X (%s), 0x%06" PRIX32, e->aeth.syndrome,
        ornic_aeth_syndrome_name(e->aeth.syndrome), e->aeth.msn);
  if (e->present & ORNIC_HDR_OACKETH) {
    uint8_t fl = e->oacketh.flags;
    row("OACKETH", "flags", "0x%02X (%s%s%s)", fl, fl & ORNIC_OACK_ADDR_CACHED ? "ADDR_CACHED" : "",
        (fl & 3) == 3 ? ", " : "",
        fl & ORNIC_OACK_WQE_DONE ? "WQE_DONE"
        : fl                     ? ""
                                 : "none");
    row("OACKETH", "resv", "%u", e->oacketh.resv);
    row("OACKETH", "count", "%u", e->oacketh.count);
  }
  if (e->present & ORNIC_HDR_NAKETH) print_nak(d);
  if (e->present & ORNIC_HDR_IMMDT) row("ImmDt", "data", "0x%08" PRIX32, e->immdt.data);
  if (e->present & ORNIC_HDR_CNP) row("CNP", "reserved", "16 bytes of 00");
  if (d->payload_len)
    row("payload", "bytes", "%zu: %s", d->payload_len, ex->payload_note ? ex->payload_note : "");
  else
    row("payload", "bytes", "0");
  if (d->pad_len)
    row("pad", "bytes", "%u x 00", d->pad_len);
  else
    row("pad", "bytes", "none");
  row("iCRC", "wire bytes", "%02x %02x %02x %02x", frame[d->icrc_off], frame[d->icrc_off + 1],
      frame[d->icrc_off + 2], frame[d->icrc_off + 3]);
}

static void print_hex(const char *name, const uint8_t *p, size_t n) {
  printf("```hex name=%s\n", name);
  for (size_t off = 0; off < n; off += 16) {
    printf("%04zx ", off);
    for (size_t i = off; i < n && i < off + 16; i++) printf(" %02x", p[i]);
    printf("\n");
  }
  printf("```\n");
}

/* The example's frame as it goes on the wire (patch applied); its length,
 * or -1 with a message. */
static ornic_ssize encode(const example *ex, uint8_t *frame, size_t cap) {
  ornic_frame f;
  ex->build(&f);
  ornic_ssize n = ornic_frame_encode(frame, cap, &f);
  if (n < 0) {
    fprintf(stderr, "%s: encode: %s\n", ex->name, ornic_strerror((int)n));
    return -1;
  }
  if (ex->patch) ex->patch(frame, (size_t)n);
  return n;
}

static int run(const example *ex, unsigned number) {
  ornic_frame d;
  uint8_t frame[FRAME_MAX];
  ornic_ssize n = encode(ex, frame, sizeof frame);
  if (n < 0) return 1;
  int rc = ornic_frame_decode(&d, frame, (size_t)n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  if (rc != ORNIC_OK) {
    fprintf(stderr, "%s: decode: %s\n", ex->name, ornic_strerror(rc));
    return 1;
  }
  if ((rc = ornic_icrc_verify(&d, frame)) != ORNIC_OK) {
    fprintf(stderr, "%s: iCRC: %s\n", ex->name, ornic_strerror(rc));
    return 1;
  }
  printf("### 6.%u %s\n\n%s\n\n", number, ex->title, ex->text);
  printf("Frame: %zu bytes; UDP payload (BTH to iCRC): %u bytes.\n\n", (size_t)n, d.udp.len - 8u);
  print_fields(ex, &d, frame);
  printf("\n");
  print_hex(ex->name, frame, (size_t)n);
  const uint8_t *c = frame + d.icrc_off;
  printf("\niCRC wire bytes: `%02x %02x %02x %02x` (CRC-32 value 0x%08" PRIX32 ").\n\n", c[0], c[1],
         c[2], c[3], d.icrc);
  return 0;
}

static void print_intro(void) {
  printf(
      "### 6.0 How to read the examples\n\n"
      "Generated by `build/bin/ornic-examples` (tools/ornic-examples): each frame is built with\n"
      "`ornic_frame_encode`, decoded back with `ornic_frame_decode`, and its iCRC checked with\n"
      "`ornic_icrc_verify`; the field tables are printed from the decoded frame. The same text is "
      "in\n"
      "`docs/examples.txt`. `tests/e2e/check_examples_scapy.py` recomputes every iCRC "
      "independently\n"
      "(Scapy for IPv4, zlib for IPv6) and checks that this section equals `docs/examples.txt`.\n\n"
      "Common values, unless an example says otherwise: PMTU 256; requester 02:00:00:00:00:01, "
      "10.0.0.1\n"
      "(fd00::1), QP 0x000011; responder 02:00:00:00:00:02, 10.0.0.2 (fd00::2), QP 0x000012; IPv4 "
      "TOS and\n"
      "IPv6 traffic class 0x6A (DSCP 26, ECT(0)); TTL / hop limit 64; IPv4 DF set; P_Key 0xFFFF; "
      "UDP\n"
      "destination port 4791, source port = path (0xC0xx requester, 0xC1xx responder). Examples "
      "6.1 to\n"
      "6.10 follow one QP through six WQEs. Hex lines start with the byte offset in the frame "
      "(Ethernet\n"
      "first, no FCS), then 16 bytes. \"iCRC: 0xFF\" in a table marks a field the iCRC covers as "
      "ones.\n\n");
}

/* ---- capture ----------------------------------------------------------- */

#define NEXAMPLES (sizeof examples / sizeof examples[0])

/* Where --pcap writes: a file, or stdout for "-" (so the capture can be piped
 * into ornic-decode or tshark without a temporary file). */
static int pcap_frames(FILE *fp, const bool *wanted) {
  for (size_t i = 0; i < NEXAMPLES; i++) {
    uint8_t frame[FRAME_MAX];
    if (!wanted[i]) continue;
    ornic_ssize n = encode(&examples[i], frame, sizeof frame);
    if (n < 0 || pcap_out_frame(fp, 1700000000000000000ull + 1000u * i, frame, (size_t)n) < 0)
      return -1;
  }
  return 0;
}

/* --pcap FILE: each wanted example as one frame of a capture, 1 us apart
 * (the demo's input). A file left half written is removed. */
/* The capture appears under its name only when complete (cli_outfile.h:
 * a temporary file renamed at the end), as every program's outputs do. */
static int write_pcap(const char *path, const bool *wanted) {
  cli_outfile out;
  char err[512];
  if (cli_outfile_open(&out, path, err, sizeof err) < 0) {
    fprintf(stderr, PROG ": %s\n", err);
    return EXIT_FAILURE;
  }
  if (pcap_out_begin(out.fp) < 0 || pcap_frames(out.fp, wanted) < 0) {
    cli_outfile_discard(&out);
    fprintf(stderr, PROG ": cannot write %s\n", strcmp(path, "-") ? path : "standard output");
    return EXIT_FAILURE;
  }
  if (cli_outfile_commit(&out, err, sizeof err) < 0) {
    fprintf(stderr, PROG ": %s\n", err);
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}

/* ---- command line ------------------------------------------------------ */

typedef struct {
  const char *pcap; /* --pcap FILE; NULL: print the text */
  bool named;       /* any NAME given: only those are wanted */
  bool wanted[NEXAMPLES];
} cmdline;

static void usage(void) {
  printf(
      "Usage: ornic-examples [NAME...]\n"
      "  or:  ornic-examples --pcap FILE [NAME...]\n"
      "Prints the worked examples of docs/PROTOCOL.md section 6 (docs/examples.txt is\n"
      "this output), or only the named ones in document order.\n"
      "      --pcap FILE  write the examples (all, or the named ones) as the frames of a\n"
      "                   classic pcap instead, 1 us apart; FILE '-' is standard output,\n"
      "                   refused when that is a terminal\n"
      "  -h, --help       this text\n"
      "  -V, --version    the program's version and libornicproto's\n"
      "NAME is one of:\n");
  for (size_t i = 0; i < NEXAMPLES; i++) printf("  %s\n", examples[i].name);
  printf(
      "Exit status: 0 success; 1 an example failed to encode, decode or verify, or\n"
      "output could not be written; 2 bad command line (unknown option or NAME,\n"
      "--pcap without FILE or given twice, --pcap - on a terminal), with a message\n"
      "on stderr naming the argument.\n");
}

static int unknown_example(const char *name) {
  char known[512] = "";
  for (size_t i = 0; i < NEXAMPLES; i++) {
    if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
    strncat(known, examples[i].name, sizeof known - strlen(known) - 1);
  }
  return cli_usage_error(NULL, PROG, "unknown example '%s' (known: %s)", name, known);
}

static int want(cmdline *c, const char *name) {
  for (size_t i = 0; i < NEXAMPLES; i++)
    if (strcmp(name, examples[i].name) == 0) {
      c->wanted[i] = c->named = true;
      return 0;
    }
  return unknown_example(name);
}

static int pcap_arg(cmdline *c, const char *file) {
  /* "--pcap --json" is a forgotten FILE, not a file named "--json" (./--json is). */
  if (!*file || (file[0] == '-' && file[1]))
    return cli_usage_error(NULL, PROG, "--pcap: expected a file name or '-', got '%s'", file);
  if (c->pcap)
    return cli_usage_error(NULL, PROG, "--pcap given twice ('%s' and '%s')", c->pcap, file);
  c->pcap = file;
  return 0;
}

static const struct option long_opts[] = {{"pcap", required_argument, NULL, 'p'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, 'V'},
                                          {NULL, 0, NULL, 0}};

/* The options; -1 to go on, else the exit status. */
static int parse_options(cmdline *c, int argc, char **argv) {
  opterr = 0; /* the messages are libs/ornic-cli's */
  for (int o; (o = getopt_long(argc, argv, ":hV", long_opts, NULL)) != -1;) {
    if (o == 'h') {
      usage();
      return cli_help(PROG, ""); /* the flush and its check */
    }
    if (o == 'V') return cli_version(PROG, NULL);
    if (o == '?' || o == ':') return cli_getopt_error(NULL, PROG, o, argv, long_opts);
    int rc = pcap_arg(c, optarg);
    if (rc) return rc;
  }
  return -1;
}

/* -1: run; else the exit status (0 after --help or --version, 2 after a
 * usage error, whose one line is on stderr). */
static int parse_args(cmdline *c, int argc, char **argv) {
  memset(c, 0, sizeof *c);
  int rc = parse_options(c, argc, argv);
  if (rc >= 0) return rc;
  for (int i = optind; i < argc; i++)
    if ((rc = want(c, argv[i])) != 0) return rc;
  /* A capture is binary: on a terminal it is garbage and can upset the terminal. */
  if (c->pcap && strcmp(c->pcap, "-") == 0 && isatty(STDOUT_FILENO))
    return cli_usage_error(
        NULL, PROG, "--pcap -: standard output is a terminal; redirect it to a file or pipe");
  if (!c->named)
    for (size_t i = 0; i < NEXAMPLES; i++) c->wanted[i] = true;
  return -1;
}

static int print_text(const cmdline *c) {
  int failed = 0;
  if (!c->named) print_intro();
  for (size_t i = 0; i < NEXAMPLES; i++)
    if (c->wanted[i]) failed |= run(&examples[i], (unsigned)i + 1);
  /* A full disk or a closed pipe must not look like success. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    perror("ornic-examples: standard output");
    return EXIT_FAILURE;
  }
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv) {
  cmdline c;
  int rc = parse_args(&c, argc, argv);
  if (rc >= 0) return rc;
  return c.pcap ? write_pcap(c.pcap, c.wanted) : print_text(&c);
}
