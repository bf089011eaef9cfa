/* SPDX-License-Identifier: MIT */
/* Seeds of fuzz_responder (the action format is in fuzz/fuzz_responder.c):
 * in-order and reversed WRITEs, holes that fire the NAK timers, probes,
 * READs, the PSN wrap, a tiny bitmap pool, three interleaved QPs, long
 * WQEs with multi-block NAKs, duplicates, mutations and arbitrary frames. */
#include <stdio.h>
#include <string.h>

#include "seeds.h"

typedef struct {
  uint8_t b[16384];
  size_t n;
} script;

enum { HONEST = 0, PAUSE = 4, DUP = 5, MUTATE = 6, ARBITRARY = 7 };
enum { SPOT = 0x20, IMM = 0x40, ACKREQ = 0x80 };

static void cfg(script *s, uint8_t c0, uint8_t c1, uint8_t c2, uint8_t c3) {
  s->n = 0;
  s->b[s->n++] = c0, s->b[s->n++] = c1, s->b[s->n++] = c2, s->b[s->n++] = c3;
}
static void act3(script *s, uint8_t op, uint8_t a, uint8_t b) {
  s->b[s->n++] = op, s->b[s->n++] = a, s->b[s->n++] = b;
}
static void pkt(script *s, unsigned q, unsigned idx, uint8_t flags) {
  act3(s, (uint8_t)(HONEST | q << 3 | flags), (uint8_t)(idx >> 8 & 0x3f), (uint8_t)idx);
}
static void pause_(script *s, uint8_t a, uint8_t b) { act3(s, PAUSE, a, b); }

/* WQE after WQE: packets idx 0..n-1 of the current WQE (taken mod its size), then a pause for the ACKs. */
static void wqes(script *s, unsigned q, unsigned count, unsigned n, int reverse, uint8_t flags) {
  for (unsigned w = 0; w < count; w++) {
    for (unsigned i = 0; i < n; i++) pkt(s, q, reverse ? n - 1 - i : i, i ? flags : 0);
    pause_(s, 15, 15);
  }
}

static void put(const script *s, const char *name) {
  seed_write("responder", NULL, 0, s->b, s->n, "%s", name);
}

void seeds_responder(void) {
  static script s;
  cfg(&s, 0, 0x00, 8, 0);
  wqes(&s, 0, 6, 20, 0, SPOT);
  put(&s, "write-in-order-pmtu256-ack-per-wqe");
  cfg(&s, 2, 0x0d, 64, 0x08);
  wqes(&s, 0, 6, 20, 1, SPOT);
  put(&s, "write-reversed-pmtu1024-ack-every-packet-w4080");
  cfg(&s, 0, 0x03 | 0x0c, 3, 0x10);
  for (unsigned w = 0; w < 4; w++) {
    for (unsigned i = 0; i < 20; i += 2) pkt(&s, 0, i, SPOT);
    pause_(&s, 255, 255); /* T_resp and T_last fire: NAK reasons 2 and 3 */
    for (unsigned i = 1; i < 20; i += 2) pkt(&s, 0, i, SPOT);
    pause_(&s, 31, 31);
  }
  put(&s, "write-holes-then-timers-nak");
  cfg(&s, 0, 0x0c, 2, 0x10);
  for (unsigned i = 0; i < 17; i++) pkt(&s, 0, (i * 5) % 17, (uint8_t)(i == 8 ? ACKREQ : 0));
  pause_(&s, 63, 63);
  put(&s, "write-otd-exceeded-and-probe");
  cfg(&s, 1, 0x80 | 0x04, 16, 0x00);
  wqes(&s, 0, 9, 20, 0, SPOT);
  act3(&s, HONEST | 0x00, 0x41, 0x00); /* a READ retry of an earlier WQE */
  pause_(&s, 63, 63);
  put(&s, "read-and-write-wqes");
  cfg(&s, 0, 0x10 | 0xe0 | 0x04, 8, 0x00);
  wqes(&s, 0, 6, 20, 0, SPOT);
  put(&s, "write-across-psn-wrap");
  cfg(&s, 0, 0x08, 16, 0x01 | 0x30);
  wqes(&s, 0, 3, 40, 0, SPOT);
  put(&s, "write-tiny-bitmap-pool");
  cfg(&s, 10, 0x05, 8, 0x00);
  for (unsigned w = 0; w < 4; w++) {
    for (unsigned i = 0; i < 20; i++) pkt(&s, i % 3, i / 3, SPOT);
    pause_(&s, 15, 15);
  }
  put(&s, "write-three-qps-interleaved");
  cfg(&s, 0, 0x0c, 100, 0x38);
  for (unsigned i = 0; i < 300; i += (i % 40 == 39) ? 2 : 1) pkt(&s, 0, i, SPOT);
  pause_(&s, 255, 255);
  put(&s, "write-300-packets-multi-block-nak");
  cfg(&s, 4, 0x04, 8, 0x00);
  wqes(&s, 0, 3, 4, 0, SPOT | IMM);
  s.b[s.n++] = DUP;
  pkt(&s, 0, 0, 0);
  s.b[s.n++] = DUP;
  pause_(&s, 15, 15);
  put(&s, "write-duplicates-pmtu4096-imm");
  cfg(&s, 0, 0x04, 8, 0x00);
  for (unsigned i = 0; i < 30; i++) {
    act3(&s, MUTATE, 0, (uint8_t)i);
    s.b[s.n++] = (uint8_t)(42 + i * 3), s.b[s.n++] = (uint8_t)(1u << (i % 8));
  }
  put(&s, "mutated-frames");
  cfg(&s, 0, 0x04, 8, 0x00);
  uint8_t fr[2048];
  static const uint8_t ops[] = {0xC0, 0xC1, 0xC2, 0xC4, 0xC6, 0xC9, 0xCA, 0x0A};
  for (unsigned i = 0; i < sizeof ops; i++) {
    /* BTH through iCRC, as ornic_roce_decode reads it. */
    size_t n = seed_frame(fr, sizeof fr, ORNIC_LINK_ETHERNET, 4, ops[i], 64);
    size_t body = n - 14 - 28;
    s.b[s.n++] = ARBITRARY | 0x20;
    s.b[s.n++] = (uint8_t)body;
    memcpy(s.b + s.n, fr + 14 + 28, body);
    s.n += body;
  }
  put(&s, "arbitrary-frames-to-qp0");
}
