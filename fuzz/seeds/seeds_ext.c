/* SPDX-License-Identifier: MIT */
/* Seeds of fuzz_ext: byte 0 picks the decoder (0-13 one header by bit index,
 * 14 BTH, 15-17 the named OFFETH / OACKETH / NAKETH codecs, 18 a chain by
 * mask, 19 the chain of an opcode); the header bytes follow. */
#include <stdio.h>

#include "seeds.h"

enum { SEL_BTH = 14, SEL_OFFETH, SEL_OACKETH, SEL_NAKETH, SEL_MASK, SEL_OPCODE };

static void put(uint8_t sel, const uint8_t *p, size_t n, const char *name) {
  seed_write("ext", &sel, 1, p, n, "%s", name);
}

static void one_headers(const ornic_ext *e) {
  uint8_t out[1024];
  char name[64];
  for (unsigned i = 0; i < ORNIC_HDR_COUNT; i++) {
    uint16_t bit = (uint16_t)(1u << i);
    ornic_ssize n = ornic_ext_encode_one(out, sizeof out, e, bit);
    if (n <= 0) continue;
    snprintf(name, sizeof name, "hdr-%02u-%s", i, ornic_hdr_name(bit));
    put((uint8_t)i, out, (size_t)n, name);
    snprintf(name, sizeof name, "hdr-%02u-%s-truncated", i, ornic_hdr_name(bit));
    put((uint8_t)i, out, (size_t)n - 1, name);
  }
}

/* Every NAK bitmap size, through the by-bit decoder; a spread through the named one. */
static void naks(ornic_ext *e) {
  uint8_t out[1024];
  char name[64];
  for (unsigned nb = 0; nb <= ORNIC_NAKETH_MAX_BLOCKS; nb++) {
    e->naketh.nblocks = (uint8_t)nb;
    e->naketh.bitmap = nb % 2 ? seed_ones : seed_payload;
    e->naketh.trigger_psn = ornic_psn_add(e->naketh.base_psn, (int32_t)(16 * nb) - 1);
    ornic_ssize n = ornic_ext_encode_one(out, sizeof out, e, ORNIC_HDR_NAKETH);
    if (nb == 0) { /* the encoder refuses 0 blocks: write the malformed header by hand */
      out[0] = 1, out[1] = 0x12, out[2] = 0x34, out[3] = 0x56, out[4] = 0;
      out[5] = 0x12, out[6] = 0x34, out[7] = 0x56;
      out[8] = 0, out[9] = 0x12, out[10] = 0x34, out[11] = 0x57;
      n = 12;
    }
    snprintf(name, sizeof name, "naketh-%03u-blocks", nb);
    put(10, out, (size_t)n, name);
    if (nb % 16 == 1 || nb == 255 || nb == 0) {
      put(SEL_NAKETH, out, (size_t)n, name);
      snprintf(name, sizeof name, "naketh-%03u-blocks-short-bitmap", nb);
      if (nb) put(SEL_NAKETH, out, (size_t)n - 1, name);
    }
  }
  e->naketh.nblocks = 3;
  e->naketh.bitmap = seed_payload;
}

static void chains(const ornic_ext *e) {
  uint8_t out[1100];
  char name[96];
  for (unsigned op = 0; op < 256; op++) {
    const ornic_opcode_info *info = ornic_opcode_info_get((uint8_t)op);
    if (!info->name || !info->hdrs) continue;
    out[0] = (uint8_t)op;
    ornic_ssize n = ornic_ext_encode(out + 1, sizeof out - 1, e, info->hdrs);
    if (n < 0) continue;
    snprintf(name, sizeof name, "chain-op-%02x-%s", op, info->short_name);
    put(SEL_OPCODE, out, (size_t)n + 1, name);
    out[0] = (uint8_t)(info->hdrs >> 8);
    out[1] = (uint8_t)info->hdrs;
    n = ornic_ext_encode(out + 2, sizeof out - 2, e, info->hdrs);
    snprintf(name, sizeof name, "mask-%04x-of-op-%02x", info->hdrs, op);
    put(SEL_MASK, out, (size_t)n + 2, name);
  }
  /* Every header at once, and bits above the known ones (ignored). */
  out[0] = 0xff;
  out[1] = 0xff;
  ornic_ssize n = ornic_ext_encode(out + 2, sizeof out - 2, e, 0xffff);
  if (n > 0) put(SEL_MASK, out, (size_t)n + 2, "mask-ffff-every-header");
}

void seeds_ext(void) {
  ornic_frame f;
  uint8_t out[64];
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  seed_fill(&f, ORNIC_OP_NAK, 0);
  f.ext.cnp.resv[0] = 0x80;
  f.ext.cnp.resv[15] = 0x01;
  one_headers(&f.ext);
  naks(&f.ext);
  chains(&f.ext);
  ornic_ssize n = ornic_bth_encode(out, sizeof out, &f.bth);
  put(SEL_BTH, out, (size_t)n, "bth-ornic-nak");
  put(SEL_BTH, out, (size_t)n - 1, "bth-truncated");
  f.bth = (ornic_bth){0xc1, 1, 1, 3, 15, 0xffff, 1, 1, 0x3f, 0xffffff, 1, 0x7f, 0xffffff};
  n = ornic_bth_encode(out, sizeof out, &f.bth);
  put(SEL_BTH, out, (size_t)n, "bth-every-bit-set");
  n = ornic_offeth_encode(out, sizeof out, &f.ext.offeth);
  put(SEL_OFFETH, out, (size_t)n, "offeth-1024");
  n = ornic_oacketh_encode(out, sizeof out, &f.ext.oacketh);
  put(SEL_OACKETH, out, (size_t)n, "oacketh-addr-cached-16");
  f.ext.oacketh = (ornic_oacketh){0xff, 0xff, 0xffff};
  n = ornic_oacketh_encode(out, sizeof out, &f.ext.oacketh);
  put(SEL_OACKETH, out, (size_t)n, "oacketh-reserved-bits");
}
