/* SPDX-License-Identifier: MIT */
/* pcapgen's in-place frame encoder (pcapgen/sim/framer.h, issue 18) against
 * libornicproto's ornic_frame_encode: random frames of every opcode the
 * simulator sends, and of others, with random header values, TOS, IP ID,
 * source port and payloads (none, copied with every pad count, generated
 * after a head of 0 or 16 bytes) give the same bytes from both, or are
 * refused by both; a frame whose Ethernet/IP/UDP fields are not the
 * template's is refused; a short buffer is ORNIC_ERR_NOBUF. */
#include "../check_fast.h"
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "framer.h"
#include "pattern.h"
#include "rng.h"

#define FRAMES 20000u

static const uint8_t opcodes[] = {ORNIC_OP_OOO_WRITE_FSPOT,
                                  ORNIC_OP_OOO_WRITE_SPOT,
                                  ORNIC_OP_OOO_WRITE_LAST,
                                  ORNIC_OP_OOO_WRITE_LAST_IMM,
                                  ORNIC_OP_OOO_WRITE_LAST_ADDR,
                                  ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM,
                                  ORNIC_OP_OOO_READ_REQ,
                                  ORNIC_OP_OOO_READ_RESP,
                                  ORNIC_OP_OOO_READ_RESP_LAST,
                                  ORNIC_OP_ACK,
                                  ORNIC_OP_NAK,
                                  ORNIC_OP_RC_SEND_ONLY,
                                  ORNIC_OP_RC_RDMA_WRITE_FIRST,
                                  ORNIC_OP_RC_RDMA_WRITE_MIDDLE,
                                  ORNIC_OP_RC_RDMA_WRITE_LAST,
                                  ORNIC_OP_RC_RDMA_WRITE_ONLY,
                                  ORNIC_OP_RC_RDMA_READ_REQ,
                                  ORNIC_OP_RC_RDMA_READ_RESP_FIRST,
                                  ORNIC_OP_RC_RDMA_READ_RESP_LAST,
                                  ORNIC_OP_RC_ACK,
                                  ORNIC_OP_UD_SEND_ONLY,
                                  ORNIC_OP_CNP,
                                  0x00 /* RC SEND First */,
                                  0xff /* no such opcode */};

/* A NIC template as pcapgen/sim/sim.c makes it. */
static void template(ornic_frame *t) {
  static const uint8_t a[6] = {2, 0, 0, 0, 0, 1}, b[6] = {2, 0, 0, 0, 0, 2};
  ornic_frame_init(t, ORNIC_LINK_ETHERNET, 4);
  memcpy(t->eth.src, a, 6);
  memcpy(t->eth.dst, b, 6);
  memcpy(t->ip.src, (const uint8_t[]){10, 0, 0, 1}, 4);
  memcpy(t->ip.dst, (const uint8_t[]){10, 0, 0, 2}, 4);
  t->ip.tos = 0x6A;
}

/* Random header values, mostly valid (the NAKETH reason and block count
 * within range), sometimes not. */
static void random_headers(rng *g, ornic_frame *f, uint8_t *nak_bytes) {
  f->bth.opcode = opcodes[rng_below(g, sizeof opcodes)];
  f->bth.destqp = (uint32_t)rng_next(g) & 0xffffff;
  f->bth.psn = (uint32_t)rng_next(g) & 0xffffff;
  f->bth.ackreq = rng_below(g, 2);
  f->bth.se = rng_below(g, 2);
  f->ext.reth = (ornic_reth){rng_next(g), (uint32_t)rng_next(g), (uint32_t)rng_next(g)};
  f->ext.aeth = (ornic_aeth){(uint8_t)rng_next(g), (uint32_t)rng_next(g) & 0xffffff};
  f->ext.offeth.offset = (uint32_t)rng_next(g);
  f->ext.oacketh = (ornic_oacketh){(uint8_t)rng_below(g, 4), 0, (uint16_t)rng_next(g)};
  f->ext.immdt.data = (uint32_t)rng_next(g);
  for (unsigned i = 0; i < 2 * 255; i++) nak_bytes[i] = (uint8_t)rng_next(g);
  f->ext.naketh.reason = (uint8_t)(1 + rng_below(g, rng_below(g, 8) ? 3 : 8));
  f->ext.naketh.trigger_psn = (uint32_t)rng_next(g) & 0xffffff;
  f->ext.naketh.nblocks = (uint8_t)(1 + rng_below(g, 255));
  f->ext.naketh.base_psn = f->bth.psn;
  f->ext.naketh.limit_psn = (uint32_t)rng_next(g) & 0xffffff;
  f->ext.naketh.bitmap = nak_bytes;
}

START_TEST(same_bytes_as_the_library) {
  static uint8_t want[8192], got[8192], payload[4200], nak_bytes[2 * 255];
  framer fr;
  ornic_frame t;
  template(&t);
  ck_assert_int_eq(framer_init(&fr, &t), ORNIC_OK);
  rng g;
  rng_seed(&g, 18, 0);
  unsigned same = 0, refused = 0;
  for (unsigned i = 0; i < FRAMES; i++) {
    ornic_frame f = t;
    random_headers(&g, &f, nak_bytes);
    f.ip.tos = (uint8_t)rng_next(&g);
    f.ip.id = (uint16_t)rng_next(&g);
    f.udp.sport = (uint16_t)rng_next(&g);
    const ornic_opcode_info *op = ornic_opcode_info_get(f.bth.opcode);
    bool data = op->name && (op->flags & ORNIC_OPF_PAYLOAD) && rng_below(&g, 8);
    f.payload_len = data ? rng_below(&g, 4097) : 0;
    /* Generated: the head, then the pattern from a chunk-aligned address. */
    framer_payload gen = {payload, rng_below(&g, 2) ? 16 : 0, rng_next(&g),
                          (rng_next(&g) & 0xffffffffff) * PATTERN_CHUNK};
    bool generate = data && f.payload_len >= gen.head_len && rng_below(&g, 2);
    for (unsigned k = 0; k < f.payload_len; k++) payload[k] = (uint8_t)rng_next(&g);
    if (generate)
      pattern_fill(payload + gen.head_len, gen.key, gen.addr, f.payload_len - gen.head_len);
    f.payload = data ? payload : NULL;
    ornic_ssize a = ornic_frame_encode(want, sizeof want, &f);
    ornic_ssize b = framer_encode(&fr, got, sizeof got, &f, generate ? &gen : NULL);
    if (a < 0) {
      ck_assert_msg(b < 0, "frame %u (opcode 0x%02x): the library refuses it (%d), framer does not",
                    i, f.bth.opcode, (int)a);
      refused++;
      continue;
    }
    ck_assert_msg(b == a, "frame %u (opcode 0x%02x): %d bytes, library %d", i, f.bth.opcode, (int)b,
                  (int)a);
    ck_assert_msg(memcmp(want, got, (size_t)a) == 0, "frame %u (opcode 0x%02x): bytes differ", i,
                  f.bth.opcode);
    same++;
  }
  ck_assert_uint_gt(same, FRAMES / 2); /* the comparison compared */
  ck_assert_uint_gt(refused, 0);
}
END_TEST

START_TEST(refuses_other_shapes_and_short_buffers) {
  uint8_t buf[2048];
  framer fr;
  ornic_frame t;
  template(&t);
  ck_assert_int_eq(framer_init(&fr, &t), ORNIC_OK);
  t.bth.opcode = ORNIC_OP_RC_ACK;
  ornic_frame f = t;
  ornic_ssize n = framer_encode(&fr, buf, sizeof buf, &f, NULL);
  ck_assert_int_gt(n, 0);
  ck_assert_int_eq(framer_encode(&fr, buf, (size_t)n - 1, &f, NULL), ORNIC_ERR_NOBUF);
  f.ip.ttl++;
  ck_assert_int_eq(framer_encode(&fr, buf, sizeof buf, &f, NULL), ORNIC_ERR_INVALID_ARG);
  f = t;
  f.eth.has_vlan = true;
  ck_assert_int_eq(framer_encode(&fr, buf, sizeof buf, &f, NULL), ORNIC_ERR_INVALID_ARG);
  f = t;
  f.ip.dst[3] = 9;
  ck_assert_int_eq(framer_encode(&fr, buf, sizeof buf, &f, NULL), ORNIC_ERR_INVALID_ARG);
  f = t;
  f.udp.dport = 4792;
  ck_assert_int_eq(framer_encode(&fr, buf, sizeof buf, &f, NULL), ORNIC_ERR_INVALID_ARG);
  /* A template of another shape is refused: IPv6. */
  ornic_frame v6;
  ornic_frame_init(&v6, ORNIC_LINK_ETHERNET, 6);
  ck_assert_int_eq(framer_init(&fr, &v6), ORNIC_ERR_INVALID_ARG);
}
END_TEST

int main(void) {
  TCase *tc = tcase_create("framer");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, same_bytes_as_the_library);
  tcase_add_test(tc, refuses_other_shapes_and_short_buffers);
  return run_tcase("pcapgen_framer", tc);
}
