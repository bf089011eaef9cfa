/* SPDX-License-Identifier: MIT */
/* ornic-decode-floor: the least work `ornic-decode --stats` cannot avoid on
 * a capture, as a program, so that ornic-decode's cost is measured against
 * the work itself rather than against `cat` (issue 33; docs/PERFORMANCE.md).
 * Per record: the capture read (floor_input.c: page-aligned read()s, or
 * mmap), Ethernet (one 802.1Q tag) or raw IP, IPv4 or IPv6, UDP to port
 * 4791, the BTH's opcode, DestQP and PSN (docs/PROTOCOL.md 2.1-2.3), the
 * iCRC computed with libornicproto's public ornic_icrc_compute_at and
 * compared with the frame's, then per-QP counters in a hash table
 * (floor_qp.c) and a count per opcode. At the end, the totals and one line
 * per QP: the smallest report --stats could print. It makes no check a
 * decoder would need to describe a frame it cannot parse (it counts it as
 * not RoCE), keeps no window, pairs nothing: what it leaves out is what
 * ornic-decode is measured for.
 *
 * The iCRC is libornicproto's, which clears the vector registers' upper
 * halves after ISA-L's AVX code (ornic_crc32_inline.h): the floor gets what
 * ornic-decode gets. */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floor_input.h"
#include "floor_qp.h"
#include "ornic/ornic.h"

#define ROCEV2_PORT 4791
#define BTH_LEN 12
#define PSN_MASK 0xffffffu

typedef struct {
  uint64_t records, roce, not_roce, icrc_ok, icrc_bad;
  uint64_t opcode[256];
  floor_qp_table qps;
} floor_stats;

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be24(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | be24(p + 1); }
static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Where a RoCEv2 packet's parts are, from its IP header. */
typedef struct {
  ornic_l3 kind;
  size_t bth_off, icrc_off; /* from the IP header */
  uint32_t src, dst;        /* IPv6: each address folded into 32 bits */
} roce_pos;

static bool udp_to_roce(const uint8_t *udp) { return be16(udp + 2) == ROCEV2_PORT; }

static bool ipv4(const uint8_t *ip, size_t len, roce_pos *r) {
  size_t ihl = (size_t)(ip[0] & 15) * 4, tot;
  if (len < 20 || ip[0] >> 4 != 4 || ihl < 20 || ip[9] != 17 || (be16(ip + 6) & 0x3fff))
    return false;
  tot = be16(ip + 2);
  if (tot > len || tot < ihl + 8 + BTH_LEN + 4 || !udp_to_roce(ip + ihl)) return false;
  *r = (roce_pos){ORNIC_L3_IPV4, ihl + 8, tot - 4, be32(ip + 12), be32(ip + 16)};
  return true;
}

static uint32_t fold(const uint8_t *a) {
  return be32(a) ^ be32(a + 4) ^ be32(a + 8) ^ be32(a + 12);
}

static bool ipv6(const uint8_t *ip, size_t len, roce_pos *r) {
  if (len < 40 || ip[0] >> 4 != 6 || ip[6] != 17) return false;
  size_t tot = 40 + (size_t)be16(ip + 4);
  if (tot > len || tot < 48 + BTH_LEN + 4 || !udp_to_roce(ip + 40)) return false;
  *r = (roce_pos){ORNIC_L3_IPV6, 48, tot - 4, fold(ip + 8), fold(ip + 24)};
  return true;
}

/* The IP header of an Ethernet (one optional 802.1Q tag) or raw-IP record. */
static const uint8_t *l3_of(const floor_rec *rec, size_t *len) {
  const uint8_t *p = rec->data;
  size_t off = 0;
  if (rec->linktype == 1) {
    if (rec->caplen < 18) return NULL;
    off = be16(p + 12) == 0x8100 ? 18 : 14;
    uint16_t type = be16(p + off - 2);
    if (type != 0x0800 && type != 0x86dd) return NULL;
  } else if (rec->linktype != 101 && rec->linktype != 228 && rec->linktype != 229) {
    return NULL;
  }
  *len = rec->caplen - off;
  return p + off;
}

static int count_frame(floor_stats *st, const floor_rec *rec) {
  size_t len = 0;
  roce_pos r;
  const uint8_t *ip = l3_of(rec, &len);
  if (!ip || len < 1 ||
      !((ip[0] >> 4 == 4 && ipv4(ip, len, &r)) || (ip[0] >> 4 == 6 && ipv6(ip, len, &r)))) {
    st->not_roce++;
    return 0;
  }
  uint32_t icrc;
  if (ornic_icrc_compute_at(ip, len, r.kind, r.bth_off, r.icrc_off, &icrc) != ORNIC_OK) {
    st->not_roce++;
    return 0;
  }
  bool bad = icrc != le32(ip + r.icrc_off);
  const uint8_t *bth = ip + r.bth_off;
  uint32_t psn = be24(bth + 9);
  floor_qp *q = floor_qp_get(&st->qps, r.src, r.dst, be24(bth + 5));
  if (!q) return -1;
  st->roce++;
  st->icrc_bad += bad;
  st->icrc_ok += !bad;
  st->opcode[bth[0]]++;
  q->psn_jumps += q->packets != 0 && psn != q->next_psn;
  q->next_psn = (psn + 1) & PSN_MASK;
  q->packets++;
  q->bytes += rec->caplen;
  q->icrc_bad += bad;
  return 0;
}

static void report(const floor_stats *st) {
  printf("records=%" PRIu64 " roce=%" PRIu64 " not_roce=%" PRIu64 " icrc_ok=%" PRIu64
         " icrc_bad=%" PRIu64 " qps=%zu crc_backend=%s\n",
         st->records, st->roce, st->not_roce, st->icrc_ok, st->icrc_bad, st->qps.used,
         ornic_crc32_backend());
  for (unsigned op = 0; op < 256; op++)
    if (st->opcode[op]) printf("opcode 0x%02x %" PRIu64 "\n", op, st->opcode[op]);
  for (size_t i = 0; i <= st->qps.mask; i++) {
    const floor_qp *q = &st->qps.slot[i];
    if (q->packets)
      printf("qp %08x>%08x 0x%06x packets=%" PRIu64 " bytes=%" PRIu64 " psn_jumps=%" PRIu64
             " icrc_bad=%" PRIu64 "\n",
             q->src, q->dst, q->qpn, q->packets, q->bytes, q->psn_jumps, q->icrc_bad);
  }
}

static void usage(FILE *o) {
  fprintf(o,
          "Usage: ornic-decode-floor [--mmap | --mmap-populate] CAPTURE\n"
          "The least work of `ornic-decode --stats` on a pcap or pcapng capture: read it\n"
          "(page-aligned 128 KiB read()s, or one mmap), walk its records, compute and\n"
          "compare each RoCEv2 frame's iCRC, parse Ethernet/IP/UDP/BTH, count per QP.\n"
          "  --mmap           map the file (MADV_SEQUENTIAL) instead of read()\n"
          "  --mmap-populate  map it with MAP_POPULATE\n");
}

static int run(const char *path, floor_mode mode) {
  char err[256];
  floor_stats *st = calloc(1, sizeof *st);
  floor_input *in =
      st && floor_qp_init(&st->qps) == 0 ? floor_open(path, mode, err, sizeof err) : NULL;
  if (!in) {
    fprintf(stderr, "ornic-decode-floor: %s\n", st ? err : "out of memory");
    return 1;
  }
  floor_rec rec;
  int k, rc = 0;
  while ((k = floor_next(in, &rec, err, sizeof err)) > 0) {
    st->records++;
    if (count_frame(st, &rec) < 0) {
      snprintf(err, sizeof err, "out of memory");
      k = -1;
      break;
    }
  }
  if (k < 0) {
    fprintf(stderr, "ornic-decode-floor: %s: %s\n", path, err);
    rc = 1;
  }
  report(st);
  floor_close(in);
  floor_qp_free(&st->qps);
  free(st);
  return rc;
}

int main(int argc, char **argv) {
  static const struct option opts[] = {{"mmap", no_argument, NULL, 'm'},
                                       {"mmap-populate", no_argument, NULL, 'p'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  floor_mode mode = FLOOR_READ;
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'm': mode = FLOOR_MMAP; break;
    case 'p': mode = FLOOR_MMAP_POPULATE; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind != argc - 1) {
    usage(stderr);
    return 2;
  }
  return run(argv[optind], mode);
}
