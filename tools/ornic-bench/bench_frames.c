/* SPDX-License-Identifier: MIT */
/* Frame factories. Everything is built through ornic_frame_encode and checked
 * with ornic_frame_decode + ornic_icrc_verify, so the benchmark never times
 * an error path by accident. */
#include "bench_frames.h"

#include <stdlib.h>
#include <string.h>

#define CACHE_LINE 64
#define PATTERN_LEN 4096
#define RING_QPS 8
#define SMALL_MIN 64 /* small-frame target sizes, before padding and tags */
#define SMALL_MAX 128

static uint8_t payload_pattern[PATTERN_LEN];

/* splitmix64: tiny, seedable, good enough to scatter opcodes and sizes. */
static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

static void pattern_init(void) {
  uint64_t s = 0x0123456789abcdefu;
  for (size_t i = 0; i < PATTERN_LEN; i++) payload_pattern[i] = (uint8_t)rng_next(&s);
}

static void *alloc_lines(size_t n) {
  size_t rounded = (n + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
  void *p = aligned_alloc(CACHE_LINE, rounded ? rounded : CACHE_LINE);
  if (p) memset(p, 0, rounded);
  return p;
}

/* Encodes f into out and proves the bytes decode and verify cleanly. */
static ornic_ssize encode_checked(uint8_t *out, size_t cap, const ornic_frame *f) {
  ornic_ssize n = ornic_frame_encode(out, cap, f);
  if (n < 0) return n;
  ornic_frame d;
  int rc = ornic_frame_decode(&d, out, (size_t)n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  if (rc == ORNIC_OK) rc = ornic_icrc_verify(&d, out);
  if (rc == ORNIC_OK && d.bth.opcode != f->bth.opcode) rc = ORNIC_ERR_MALFORMED;
  return rc < 0 ? rc : n;
}

int bench_frame_spot(bench_frame *bf, size_t max_len) {
  memset(bf, 0, sizeof *bf);
  if (max_len < BENCH_HDR_LEN || max_len - BENCH_HDR_LEN > PATTERN_LEN)
    return ORNIC_ERR_INVALID_ARG;
  pattern_init();
  ornic_frame f;
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  f.bth.opcode = ORNIC_OP_OOO_WRITE_SPOT;
  f.bth.destqp = 0x000123;
  f.bth.psn = 0x00abcd;
  f.payload = payload_pattern;
  f.payload_len = (max_len - BENCH_HDR_LEN) / 4 * 4; /* a multiple of 4: no pad */
  bf->bytes = alloc_lines(max_len);
  if (!bf->bytes) return ORNIC_ERR_NOBUF;
  ornic_ssize n = encode_checked(bf->bytes, max_len, &f);
  if (n < 0) return (int)n;
  bf->len = (size_t)n;
  return ornic_frame_decode(&bf->frame, bf->bytes, bf->len, ORNIC_LINK_ETHERNET,
                            ORNIC_ROCEV2_UDP_PORT);
}

void bench_frame_free(bench_frame *bf) {
  free(bf->bytes);
  bf->bytes = NULL;
}

typedef struct {
  uint8_t opcode;
  uint8_t weight;
} op_weight;

/* A node running ORNIC writes next to ordinary RC traffic: mostly Spot
 * packets and the ACKs they draw, some NAKs, some RC bulk and control.
 * Weights sum to 100. */
static const op_weight op_mix[] = {
    {ORNIC_OP_OOO_WRITE_SPOT, 30},
    {ORNIC_OP_OOO_WRITE_FSPOT, 8},
    {ORNIC_OP_OOO_WRITE_LAST, 4},
    {ORNIC_OP_OOO_WRITE_LAST_ADDR_IMM, 2},
    {ORNIC_OP_ACK, 14},
    {ORNIC_OP_NAK, 4},
    {ORNIC_OP_RC_RDMA_WRITE_FIRST, 4},
    {ORNIC_OP_RC_RDMA_WRITE_MIDDLE, 12},
    {ORNIC_OP_RC_RDMA_WRITE_LAST, 4},
    {ORNIC_OP_RC_RDMA_WRITE_ONLY, 4},
    {ORNIC_OP_RC_SEND_ONLY, 4},
    {ORNIC_OP_RC_ACK, 6},
    {ORNIC_OP_RC_RDMA_READ_REQ, 2},
    {ORNIC_OP_RC_RDMA_READ_RESP_MIDDLE, 2},
};

static uint8_t pick_opcode(uint64_t *s) {
  uint32_t w = rng_below(s, 100);
  for (size_t i = 0; i < sizeof op_mix / sizeof op_mix[0]; i++) {
    if (w < op_mix[i].weight) return op_mix[i].opcode;
    w -= op_mix[i].weight;
  }
  return ORNIC_OP_OOO_WRITE_SPOT;
}

/* Values for every header an opcode may need; encode writes only its own. */
static void fill_ext(ornic_ext *e, uint8_t *bitmap, uint32_t psn, uint64_t *s) {
  e->reth.va = rng_next(s) & ~UINT64_C(0xfff);
  e->reth.rkey = (uint32_t)rng_next(s);
  e->reth.dmalen = 4096u << rng_below(s, 6);
  e->offeth.offset = rng_below(s, 1u << 20) & ~63u;
  e->aeth.syndrome = ORNIC_AETH_ACK | 0x1f; /* ACK, unlimited credits */
  e->aeth.msn = rng_below(s, 1u << 24);
  e->oacketh.flags = (uint8_t)rng_below(s, 4);
  e->oacketh.count = (uint16_t)(1 + rng_below(s, 16));
  e->naketh.reason = (uint8_t)(ORNIC_NAKETH_OTD_EXCEEDED + rng_below(s, 3));
  e->naketh.trigger_psn = psn;
  e->naketh.nblocks = (uint8_t)(1 + rng_below(s, BENCH_NAK_BYTES / 2));
  e->naketh.base_psn = ornic_psn_add(psn, -16);
  e->naketh.limit_psn = ornic_psn_add(psn, -(int32_t)rng_below(s, 16)); /* in (Base, trigger] */
  for (unsigned i = 0; i < BENCH_NAK_BYTES; i++) bitmap[i] = (uint8_t)rng_next(s);
  e->naketh.bitmap = bitmap;
  e->immdt.data = (uint32_t)rng_next(s);
}

/* Payload sized so the frame lands in SMALL_MIN..SMALL_MAX; packets that do
 * not end a message carry whole words, as a real requester sends them. */
static size_t small_payload(const ornic_frame *f, uint16_t flags, uint64_t *s) {
  const ornic_opcode_info *op = ornic_opcode_info_get(f->bth.opcode);
  size_t hdr = BENCH_HDR_LEN + (f->eth.has_vlan ? 4 : 0) + ornic_ext_size(&f->ext, op->hdrs);
  size_t target = SMALL_MIN + rng_below(s, SMALL_MAX - SMALL_MIN + 1);
  size_t n = target > hdr ? target - hdr : 0;
  if (!(flags & ORNIC_OPF_LAST)) n &= ~(size_t)3;
  return n < 4 ? 4 : n;
}

static void ring_desc(ornic_frame *f, uint8_t *bitmap, uint32_t *psns, uint64_t *s) {
  unsigned qp = rng_below(s, RING_QPS);
  ornic_frame_init(f, ORNIC_LINK_ETHERNET, 4);
  f->eth.has_vlan = rng_below(s, 4) == 0; /* PFC setups often tag */
  f->eth.vlan_tci = 0x6000 | 100;         /* priority 3, VLAN 100 */
  f->ip.tos = 0x6a;                       /* DSCP 26, ECT(0): the usual RoCE class */
  f->ip.id = (uint16_t)rng_next(s);
  f->udp.sport = (uint16_t)(49152 + qp);
  f->bth.opcode = pick_opcode(s);
  f->bth.destqp = 0x000100 + qp;
  f->bth.psn = psns[qp];
  psns[qp] = ornic_psn_add(psns[qp], 1);
  uint16_t flags = ornic_opcode_info_get(f->bth.opcode)->flags;
  f->bth.ackreq = (flags & ORNIC_OPF_LAST) ? 1 : 0;
  fill_ext(&f->ext, bitmap, f->bth.psn, s);
  if (flags & ORNIC_OPF_PAYLOAD) {
    f->payload_len = small_payload(f, flags, s);
    f->payload = payload_pattern + rng_below(s, PATTERN_LEN / 2);
  }
}

static int ring_alloc(bench_ring *r, size_t count) {
  memset(r, 0, sizeof *r);
  r->count = count;
  r->desc = calloc(count, sizeof *r->desc);
  r->bitmaps = alloc_lines(count * BENCH_NAK_BYTES);
  r->bytes = alloc_lines(count * BENCH_SLOT);
  r->len = calloc(count, sizeof *r->len);
  r->decoded = calloc(count, sizeof *r->decoded);
  return r->desc && r->bitmaps && r->bytes && r->len && r->decoded ? ORNIC_OK : ORNIC_ERR_NOBUF;
}

int bench_ring_build(bench_ring *r, size_t count, uint64_t seed) {
  int rc = ring_alloc(r, count);
  if (rc < 0) return rc;
  pattern_init();
  uint32_t psns[RING_QPS];
  for (unsigned q = 0; q < RING_QPS; q++) psns[q] = (uint32_t)rng_next(&seed) & ORNIC_PSN_MASK;
  r->min_len = SIZE_MAX;
  for (size_t i = 0; i < count; i++) {
    ring_desc(&r->desc[i], r->bitmaps + i * BENCH_NAK_BYTES, psns, &seed);
    ornic_ssize n = encode_checked(r->bytes + i * BENCH_SLOT, BENCH_SLOT, &r->desc[i]);
    if (n < 0) return (int)n;
    r->len[i] = (uint16_t)n;
    ornic_frame_decode(&r->decoded[i], bench_ring_frame(r, i), (size_t)n, ORNIC_LINK_ETHERNET,
                       ORNIC_ROCEV2_UDP_PORT); /* encode_checked proved it decodes */
    r->total_len += (size_t)n;
    if ((size_t)n < r->min_len) r->min_len = (size_t)n;
    if ((size_t)n > r->max_len) r->max_len = (size_t)n;
  }
  return ORNIC_OK;
}

void bench_ring_free(bench_ring *r) {
  free(r->desc);
  free(r->bitmaps);
  free(r->bytes);
  free(r->len);
  free(r->decoded);
  memset(r, 0, sizeof *r);
}

/* Fisher-Yates: every permutation equally likely, repeatable for a seed. */
static void shuffle(uint16_t *v, size_t n, uint64_t seed) {
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = rng_below(&seed, (uint32_t)i + 1);
    uint16_t t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

uint16_t *bench_order_build(size_t count, uint64_t seed) {
  if (count == 0 || count > 65536 || BENCH_ORDER_LEN % count) return NULL;
  uint16_t *order = malloc(BENCH_ORDER_LEN * sizeof *order);
  if (!order) return NULL;
  for (size_t i = 0; i < BENCH_ORDER_LEN; i++) order[i] = (uint16_t)(i % count);
  if (seed) shuffle(order, BENCH_ORDER_LEN, seed);
  return order;
}
