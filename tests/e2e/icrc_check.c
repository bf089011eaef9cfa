/* SPDX-License-Identifier: MIT */
/* ornic-test-icrc: a test-only bridge between the end-to-end scripts and
 * libornicproto. It reads commands, one per line, on stdin and answers each
 * with exactly one line on stdout:
 *
 *   decode LINK HEX      LINK = eth | raw | grh. Prints one JSON object: the
 *                        decode result ("rc"), the iCRC verification
 *                        ("verify", null unless decode succeeded), and every
 *                        decoded field (see print_frame).
 *   encode K=V ...       Builds a frame with ornic_frame_encode. Prints
 *                        "ok HEX" or "err ERRNAME". Keys: see apply().
 *   pause K=V ...        Builds a PAUSE/PFC frame with ornic_pause_encode.
 *                        Keys: opcode, src, dst (hex, 6 bytes), enable,
 *                        q0 .. q7. Prints "ok HEX" or "err ERRNAME".
 *   pausedec HEX         ornic_pause_decode on an Ethernet frame: one JSON
 *                        object, "rc" and the fields read.
 *   opcodes              Prints the opcode table as one JSON object
 *                        {"0x04": {"short": ..., "name": ..., "hdrs": N,
 *                        "flags": N}, ...}.
 *
 * Integers accept C syntax (0x.., decimal). Hex strings have no separators. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ornic/ornic.h"

#define MAXFRAME 70000

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Returns the byte count, or -1 on bad hex / overflow. */
static long unhex(const char *s, uint8_t *out, size_t cap) {
  size_t n = strlen(s);
  if (n % 2 || n / 2 > cap) return -1;
  for (size_t i = 0; i < n / 2; i++) {
    int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return (long)(n / 2);
}

static void puthex(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
}

static void print_hexfield(const char *key, const uint8_t *p, size_t n) {
  printf("\"%s\":\"", key);
  puthex(p, n);
  printf("\"");
}

static void print_frame(const ornic_frame *f, const uint8_t *data, int rc) {
  printf("{\"rc\":\"%s\"", ornic_errname(rc));
  if (rc == ORNIC_OK) {
    int v = ornic_icrc_verify(f, data);
    uint32_t c = 0;
    int crc = ornic_icrc_compute(f, data, &c);
    printf(",\"verify\":\"%s\",\"icrc\":%u,\"icrc_computed\":%s", ornic_errname(v), f->icrc,
           crc == ORNIC_OK ? "" : "null");
    if (crc == ORNIC_OK) printf("%u", c);
  } else {
    printf(",\"verify\":null");
  }
  printf(
      ",\"l3\":%d,\"l3_off\":%zu,\"l4_off\":%zu,\"bth_off\":%zu,\"ext_off\":%zu,\"payload_off\":%"
      "zu",
      (int)f->l3, f->l3_off, f->l4_off, f->bth_off, f->ext_off, f->payload_off);
  if (f->link == ORNIC_LINK_ETHERNET && f->l3_off) {
    printf(",\"eth\":{");
    print_hexfield("dst", f->eth.dst, 6);
    printf(",");
    print_hexfield("src", f->eth.src, 6);
    printf(",\"vlan\":%s,\"tpid\":%u,\"tci\":%u,\"type\":%u}", f->eth.has_vlan ? "true" : "false",
           f->eth.has_vlan ? f->eth.vlan_tpid : 0, f->eth.has_vlan ? f->eth.vlan_tci : 0,
           f->eth.ethertype);
  }
  if (f->l3 != ORNIC_L3_NONE) {
    size_t alen = f->l3 == ORNIC_L3_IPV4 ? 4 : 16;
    printf(
        ",\"ip\":{\"version\":%u,\"tos\":%u,\"ttl\":%u,\"flow_label\":%u,\"id\":%u,\"frag\":%u,"
        "\"next\":%u,\"hdr_len\":%u,\"total_len\":%u,\"checksum\":%u,",
        f->ip.version, f->ip.tos, f->ip.ttl, f->ip.flow_label, f->ip.id, f->ip.frag,
        f->ip.next_proto, f->ip.hdr_len, f->ip.total_len, f->ip.checksum);
    print_hexfield("src", f->ip.src, alen);
    printf(",");
    print_hexfield("dst", f->ip.dst, alen);
    printf("}");
    if (f->l3 != ORNIC_L3_GRH && f->bth_off)
      printf(",\"udp\":{\"sport\":%u,\"dport\":%u,\"len\":%u,\"checksum\":%u}", f->udp.sport,
             f->udp.dport, f->udp.len, f->udp.checksum);
  }
  if (f->bth_off && f->caplen >= f->bth_off + ORNIC_BTH_LEN) {
    const ornic_bth *b = &f->bth;
    printf(
        ",\"bth\":{\"opcode\":%u,\"se\":%u,\"m\":%u,\"padcnt\":%u,\"tver\":%u,\"pkey\":%u,\"fecn\":"
        "%u,"
        "\"becn\":%u,\"resv6\":%u,\"destqp\":%u,\"a\":%u,\"resv7\":%u,\"psn\":%u}",
        b->opcode, b->se, b->m, b->padcnt, b->tver, b->pkey, b->fecn, b->becn, b->resv6, b->destqp,
        b->ackreq, b->resv7, b->psn);
  }
  const ornic_ext *e = &f->ext;
  uint16_t h = f->ext.present;
  if (h & ORNIC_HDR_RDETH)
    printf(",\"rdeth\":{\"resv\":%u,\"een\":%u}", e->rdeth.resv, e->rdeth.een);
  if (h & ORNIC_HDR_DETH)
    printf(",\"deth\":{\"qkey\":%u,\"resv\":%u,\"srcqp\":%u}", e->deth.qkey, e->deth.resv,
           e->deth.srcqp);
  if (h & ORNIC_HDR_XRCETH)
    printf(",\"xrceth\":{\"resv\":%u,\"srq\":%u}", e->xrceth.resv, e->xrceth.xrcsrq);
  if (h & ORNIC_HDR_FETH) printf(",\"feth\":%u", e->feth.value);
  if (h & ORNIC_HDR_RETH)
    printf(",\"reth\":{\"va\":%llu,\"rkey\":%u,\"dmalen\":%u}", (unsigned long long)e->reth.va,
           e->reth.rkey, e->reth.dmalen);
  if (h & ORNIC_HDR_OFFETH) printf(",\"offeth\":%u", e->offeth.offset);
  if (h & ORNIC_HDR_ATOMICETH)
    printf(",\"atomiceth\":{\"va\":%llu,\"rkey\":%u,\"swap\":%llu,\"cmp\":%llu}",
           (unsigned long long)e->atomiceth.va, e->atomiceth.rkey,
           (unsigned long long)e->atomiceth.swap_add, (unsigned long long)e->atomiceth.compare);
  if (h & ORNIC_HDR_AETH)
    printf(",\"aeth\":{\"syndrome\":%u,\"msn\":%u}", e->aeth.syndrome, e->aeth.msn);
  if (h & ORNIC_HDR_ATOMICACKETH)
    printf(",\"atomicacketh\":%llu", (unsigned long long)e->atomicacketh.orig);
  if (h & ORNIC_HDR_OACKETH)
    printf(",\"oacketh\":{\"flags\":%u,\"resv\":%u,\"count\":%u}", e->oacketh.flags,
           e->oacketh.resv, e->oacketh.count);
  if (h & ORNIC_HDR_NAKETH) {
    printf(
        ",\"naketh\":{\"reason\":%u,\"trigger\":%u,\"nblocks\":%u,\"base\":%u,\"resv\":%u,"
        "\"limit\":%u,",
        e->naketh.reason, e->naketh.trigger_psn, e->naketh.nblocks, e->naketh.base_psn,
        e->naketh.resv, e->naketh.limit_psn);
    print_hexfield("bitmap", e->naketh.bitmap, 2u * e->naketh.nblocks);
    printf("}");
  }
  if (h & ORNIC_HDR_IMMDT) printf(",\"immdt\":%u", e->immdt.data);
  if (h & ORNIC_HDR_IETH) printf(",\"ieth\":%u", e->ieth.rkey);
  if (h & ORNIC_HDR_CNP) {
    printf(",");
    print_hexfield("cnp", e->cnp.resv, 16);
  }
  if (rc == ORNIC_OK) {
    printf(",\"payload_len\":%zu,\"pad_len\":%u,", f->payload_len, f->pad_len);
    print_hexfield("payload", f->payload, f->payload_len);
  }
  printf("}\n");
}

static int cmd_decode(char *args) {
  char *link = strtok(args, " \t");
  char *hex = strtok(NULL, " \t");
  if (!link || !hex) return -1;
  ornic_link l = !strcmp(link, "eth")   ? ORNIC_LINK_ETHERNET
                 : !strcmp(link, "raw") ? ORNIC_LINK_RAW_IP
                 : !strcmp(link, "grh") ? ORNIC_LINK_GRH
                                        : (ornic_link)-1;
  if ((int)l < 0) return -1;
  static uint8_t data[MAXFRAME];
  long n = unhex(hex, data, sizeof data);
  if (n < 0) return -1;
  ornic_frame f;
  int rc = ornic_frame_decode(&f, data, (size_t)n, l, ORNIC_ROCEV2_UDP_PORT);
  print_frame(&f, data, rc);
  return 0;
}

/* Frame spec storage. */
static uint8_t payload[MAXFRAME], bitmap[512];

static int apply(ornic_frame *f, const char *k, const char *v) {
  unsigned long long x = strtoull(v, NULL, 0);
  long n;
#define INT(name, field)  \
  if (!strcmp(k, name)) { \
    f->field = x;         \
    return 0;             \
  }
  if (!strcmp(k, "link")) {
    f->link = !strcmp(v, "eth")   ? ORNIC_LINK_ETHERNET
              : !strcmp(v, "raw") ? ORNIC_LINK_RAW_IP
                                  : ORNIC_LINK_GRH;
    return 0;
  }
  if (!strcmp(k, "vlan")) {
    f->eth.has_vlan = true;
    f->eth.vlan_tci = (uint16_t)x;
    return 0;
  }
  if (!strcmp(k, "dmac")) return unhex(v, f->eth.dst, 6) == 6 ? 0 : -1;
  if (!strcmp(k, "smac")) return unhex(v, f->eth.src, 6) == 6 ? 0 : -1;
  if (!strcmp(k, "src")) return memset(f->ip.src, 0, 16), unhex(v, f->ip.src, 16) > 0 ? 0 : -1;
  if (!strcmp(k, "dst")) return memset(f->ip.dst, 0, 16), unhex(v, f->ip.dst, 16) > 0 ? 0 : -1;
  if (!strcmp(k, "payload")) {
    if ((n = unhex(v, payload, sizeof payload)) < 0) return -1;
    f->payload = payload;
    f->payload_len = (size_t)n;
    return 0;
  }
  if (!strcmp(k, "nak.bitmap")) {
    if ((n = unhex(v, bitmap, sizeof bitmap)) < 0) return -1;
    f->ext.naketh.bitmap = bitmap;
    f->ext.naketh.nblocks = (uint8_t)(n / 2);
    return 0;
  }
  if (!strcmp(k, "cnp")) return unhex(v, f->ext.cnp.resv, 16) == 16 ? 0 : -1;
  /* one assignment per INT(), laid out as a table */
  // clang-format off
  INT("ipv", ip.version) INT("tpid", eth.vlan_tpid) INT("tos", ip.tos) INT("ttl", ip.ttl)
  INT("flow", ip.flow_label) INT("id", ip.id) INT("frag", ip.frag) INT("sport", udp.sport)
  INT("dport", udp.dport) INT("opcode", bth.opcode) INT("se", bth.se) INT("m", bth.m)
  INT("tver", bth.tver) INT("pkey", bth.pkey) INT("fecn", bth.fecn) INT("becn", bth.becn)
  INT("resv6", bth.resv6) INT("destqp", bth.destqp) INT("a", bth.ackreq) INT("resv7", bth.resv7)
  INT("psn", bth.psn) INT("rdeth.resv", ext.rdeth.resv) INT("rdeth.een", ext.rdeth.een)
  INT("deth.qkey", ext.deth.qkey) INT("deth.resv", ext.deth.resv) INT("deth.srcqp", ext.deth.srcqp)
  INT("xrceth.resv", ext.xrceth.resv) INT("xrceth.srq", ext.xrceth.xrcsrq) INT("feth", ext.feth.value)
  INT("reth.va", ext.reth.va) INT("reth.rkey", ext.reth.rkey) INT("reth.dmalen", ext.reth.dmalen)
  INT("offeth", ext.offeth.offset) INT("atomic.va", ext.atomiceth.va) INT("atomic.rkey", ext.atomiceth.rkey)
  INT("atomic.swap", ext.atomiceth.swap_add) INT("atomic.cmp", ext.atomiceth.compare)
  INT("aeth.syn", ext.aeth.syndrome) INT("aeth.msn", ext.aeth.msn) INT("atomicack", ext.atomicacketh.orig)
  INT("oack.flags", ext.oacketh.flags) INT("oack.resv", ext.oacketh.resv) INT("oack.count", ext.oacketh.count)
  INT("nak.reason", ext.naketh.reason) INT("nak.trigger", ext.naketh.trigger_psn)
  INT("nak.base", ext.naketh.base_psn) INT("nak.resv", ext.naketh.resv)
  INT("nak.limit", ext.naketh.limit_psn) INT("immdt", ext.immdt.data) INT("ieth", ext.ieth.rkey)
  // clang-format on
#undef INT
                                                                          return -1;
}

/* An encoder's result as the protocol of this program says: "ok HEX" or "err NAME". */
static void put_encoded(const uint8_t *out, ornic_ssize n) {
  if (n < 0) {
    printf("err %s\n", ornic_errname((int)n));
  } else {
    printf("ok ");
    puthex(out, (size_t)n);
    printf("\n");
  }
}

static int cmd_encode(char *args) {
  ornic_frame f;
  /* link and ipv first, so that ornic_frame_init gets them (hex values
   * cannot contain these key names) */
  int ipv = strstr(args, "ipv=6") ? 6 : 4;
  ornic_link link = strstr(args, "link=raw")   ? ORNIC_LINK_RAW_IP
                    : strstr(args, "link=grh") ? ORNIC_LINK_GRH
                                               : ORNIC_LINK_ETHERNET;
  ornic_frame_init(&f, link, ipv);
  for (char *t = strtok(args, " \t"); t; t = strtok(NULL, " \t")) {
    char *eq = strchr(t, '=');
    if (!eq) return -1;
    *eq = 0;
    if (apply(&f, t, eq + 1) < 0) {
      fprintf(stderr, "ornic-test-icrc: bad key or value: %s=%s\n", t, eq + 1);
      return -1;
    }
  }
  static uint8_t out[MAXFRAME];
  ornic_ssize n = ornic_frame_encode(out, sizeof out, &f);
  put_encoded(out, n);
  return 0;
}

/* One key of a pause spec; -1 on an unknown key or a bad value. */
static int apply_pause(ornic_pause *p, const char *k, const char *v) {
  if (!strcmp(k, "src")) return unhex(v, p->src, 6) == 6 ? 0 : -1;
  if (!strcmp(k, "dst")) return unhex(v, p->dst, 6) == 6 ? 0 : -1;
  char *end;
  unsigned long x = strtoul(v, &end, 0);
  if (*end || x > 0xffff) return -1;
  bool quantum = k[0] == 'q' && k[1] >= '0' && k[1] <= '7' && !k[2];
  uint16_t *field = !strcmp(k, "opcode")   ? &p->opcode
                    : !strcmp(k, "enable") ? &p->enable
                    : quantum              ? &p->quanta[k[1] - '0']
                                           : NULL;
  if (!field) return -1;
  *field = (uint16_t)x;
  return 0;
}

static int cmd_pause(char *args) {
  ornic_pause p = {0};
  for (char *t = strtok(args, " \t"); t; t = strtok(NULL, " \t")) {
    char *eq = strchr(t, '=');
    if (!eq) return -1;
    *eq = 0;
    if (apply_pause(&p, t, eq + 1) < 0) return -1;
  }
  uint8_t out[ORNIC_PAUSE_FRAME_LEN];
  ornic_ssize n = ornic_pause_encode(out, sizeof out, &p);
  put_encoded(out, n);
  return 0;
}

static int cmd_pausedec(char *args) {
  static uint8_t data[MAXFRAME];
  long n = unhex(args, data, sizeof data);
  if (n < 0) return -1;
  ornic_pause p;
  int rc = ornic_pause_decode(data, (size_t)n, ORNIC_LINK_ETHERNET, &p);
  printf("{\"rc\":\"%s\",\"opcode\":%u,", ornic_errname(rc), p.opcode);
  print_hexfield("src", p.src, 6);
  printf(",");
  print_hexfield("dst", p.dst, 6);
  printf(",\"enable\":%u,\"quanta\":[", p.enable);
  for (int i = 0; i < ORNIC_PAUSE_CLASSES; i++) printf("%s%u", i ? "," : "", p.quanta[i]);
  printf("]}\n");
  return 0;
}

static void cmd_opcodes(void) {
  printf("{");
  const char *sep = "";
  for (unsigned op = 0; op < 256; op++) {
    const ornic_opcode_info *i = ornic_opcode_info_get((uint8_t)op);
    if (!i->name) continue;
    printf("%s\"0x%02x\":{\"short\":\"%s\",\"name\":\"%s\",\"hdrs\":%u,\"flags\":%u}", sep, op,
           i->short_name, i->name, i->hdrs, i->flags);
    sep = ",";
  }
  printf("}\n");
}

int main(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int status = 0;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (len == 0) continue;
    char *sp = strchr(line, ' ');
    char *args = sp ? sp + 1 : line + len;
    if (sp) *sp = 0;
    int rc = 0;
    if (!strcmp(line, "decode"))
      rc = cmd_decode(args);
    else if (!strcmp(line, "encode"))
      rc = cmd_encode(args);
    else if (!strcmp(line, "pause"))
      rc = cmd_pause(args);
    else if (!strcmp(line, "pausedec"))
      rc = cmd_pausedec(args);
    else if (!strcmp(line, "opcodes"))
      cmd_opcodes();
    else
      rc = -1;
    if (rc < 0) {
      printf("usage-error\n");
      status = 2;
    }
    fflush(stdout);
  }
  free(line);
  return status;
}
