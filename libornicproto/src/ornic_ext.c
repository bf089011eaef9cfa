/* SPDX-License-Identifier: MIT */
/* Extension header codecs. Each header is one case in decode and one in
 * encode; the fixed sizes live in the table of ornic_opcode.c. The headers
 * the fast path reads too (RETH, OFFETH, AETH, OACKETH, NAKETH, ImmDt) are
 * read here by its readers (ornic_ext_read.h): one description of each. */
#include "ornic/errors.h"
#include "ornic/headers.h"
#include "ornic/opcode.h"
#include "ornic_conv.h"
#include "ornic_ext_read.h"
#include "ornic_internal.h"

static size_t hdr_wire_size(const ornic_ext *e, uint16_t bit) {
  size_t n = ornic_hdr_size(bit);
  if (bit == ORNIC_HDR_NAKETH) n += 2u * e->naketh.nblocks;
  return n;
}

/* The set bits of hdrs that name headers, lowest first (= wire order). */
#define FOR_EACH_HDR(bit, hdrs)                                      \
  for (unsigned rest_ = (hdrs) & ((1u << ORNIC_HDR_COUNT) - 1), bit; \
       rest_ && ((bit = rest_ & (0u - rest_)), 1); rest_ &= rest_ - 1)

size_t ornic_ext_size(const ornic_ext *e, uint16_t hdrs) {
  size_t n = 0;
  FOR_EACH_HDR(bit, hdrs) n += hdr_wire_size(e, (uint16_t)bit);
  return n;
}

static int naketh_read(ornic_naketh *n, const uint8_t *p, size_t len) {
  if (len < ORNIC_NAKETH_FIXED_LEN) return ORNIC_ERR_TRUNCATED;
  ornic_naketh_read(n, p); /* the fixed part; the bitmap is a view, checked below */
  if (n->nblocks == 0) return ORNIC_ERR_MALFORMED;
  size_t total = ORNIC_NAKETH_FIXED_LEN + 2u * n->nblocks;
  return len < total ? ORNIC_ERR_TRUNCATED : (int)total;
}

static void fixed_read(ornic_ext *e, uint16_t bit, const uint8_t *p) {
  switch (bit) {
  case ORNIC_HDR_RDETH:
    e->rdeth.resv = p[0];
    e->rdeth.een = ornic_get_u24(p + 1);
    break;
  case ORNIC_HDR_DETH:
    e->deth.qkey = ornic_get_u32(p);
    e->deth.resv = p[4];
    e->deth.srcqp = ornic_get_u24(p + 5);
    break;
  case ORNIC_HDR_XRCETH:
    e->xrceth.resv = p[0];
    e->xrceth.xrcsrq = ornic_get_u24(p + 1);
    break;
  case ORNIC_HDR_FETH: e->feth.value = ornic_get_u32(p); break;
  case ORNIC_HDR_RETH: ornic_reth_read(&e->reth, p); break;
  case ORNIC_HDR_OFFETH: ornic_offeth_read(&e->offeth, p); break;
  case ORNIC_HDR_ATOMICETH:
    e->atomiceth.va = ornic_get_u64(p);
    e->atomiceth.rkey = ornic_get_u32(p + 8);
    e->atomiceth.swap_add = ornic_get_u64(p + 12);
    e->atomiceth.compare = ornic_get_u64(p + 20);
    break;
  case ORNIC_HDR_AETH: ornic_aeth_read(&e->aeth, p); break;
  case ORNIC_HDR_ATOMICACKETH: e->atomicacketh.orig = ornic_get_u64(p); break;
  case ORNIC_HDR_OACKETH: ornic_oacketh_read(&e->oacketh, p); break;
  case ORNIC_HDR_IMMDT: ornic_immdt_read(&e->immdt, p); break;
  case ORNIC_HDR_IETH: e->ieth.rkey = ornic_get_u32(p); break;
  case ORNIC_HDR_CNP:
    for (int i = 0; i < 16; i++) e->cnp.resv[i] = p[i];
    break;
  default: break;
  }
}

/* Header number `i` (bit 1 << i) at p. Indexing ornic_hdr_sizes directly
 * spares the per-packet path ornic_hdr_size()'s scan for the bit. */
static int decode_index(ornic_ext *e, unsigned i, const uint8_t *p, size_t len) {
  uint16_t bit = (uint16_t)(1u << i);
  int n;
  if (bit == ORNIC_HDR_NAKETH) {
    n = naketh_read(&e->naketh, p, len);
  } else if (len < ornic_hdr_sizes[i]) {
    n = ORNIC_ERR_TRUNCATED;
  } else {
    fixed_read(e, bit, p);
    n = ornic_hdr_sizes[i];
  }
  if (n > 0) e->present |= bit;
  return n;
}

int ornic_ext_decode_one(ornic_ext *e, uint16_t bit, const uint8_t *p, size_t len) {
  if (ornic_hdr_size(bit) == 0) return ORNIC_ERR_INVALID_ARG;
  return decode_index(e, ornic_bit_index(bit), p, len);
}

/* Visits only the set bits: most packets carry zero to two headers, and a
 * loop over all 14 bits costs a branch per bit. */
int ornic_ext_decode(ornic_ext *e, uint16_t hdrs, const uint8_t *p, size_t len) {
  size_t off = 0;
  FOR_EACH_HDR(bit, hdrs) {
    int n = decode_index(e, ornic_bit_index(bit), p + off, len - off);
    if (n < 0) return n;
    off += (size_t)n;
  }
  return (int)off;
}

static int fixed_valid(const ornic_ext *e, uint16_t bit) {
  switch (bit) {
  case ORNIC_HDR_RDETH: return e->rdeth.een <= 0xffffff;
  case ORNIC_HDR_DETH: return e->deth.srcqp <= 0xffffff;
  case ORNIC_HDR_XRCETH: return e->xrceth.xrcsrq <= 0xffffff;
  case ORNIC_HDR_AETH: return e->aeth.msn <= 0xffffff;
  case ORNIC_HDR_NAKETH:
    return e->naketh.nblocks > 0 && e->naketh.trigger_psn <= 0xffffff &&
           e->naketh.base_psn <= 0xffffff && e->naketh.limit_psn <= 0xffffff &&
           e->naketh.bitmap != 0;
  default: return 1;
  }
}

static void fixed_write(uint8_t *p, const ornic_ext *e, uint16_t bit) {
  switch (bit) {
  case ORNIC_HDR_RDETH: ornic_put_u24(ornic_put_u8(p, e->rdeth.resv), e->rdeth.een); break;
  case ORNIC_HDR_DETH:
    ornic_put_u24(ornic_put_u8(ornic_put_u32(p, e->deth.qkey), e->deth.resv), e->deth.srcqp);
    break;
  case ORNIC_HDR_XRCETH: ornic_put_u24(ornic_put_u8(p, e->xrceth.resv), e->xrceth.xrcsrq); break;
  case ORNIC_HDR_FETH: ornic_put_u32(p, e->feth.value); break;
  case ORNIC_HDR_RETH:
    ornic_put_u32(ornic_put_u32(ornic_put_u64(p, e->reth.va), e->reth.rkey), e->reth.dmalen);
    break;
  case ORNIC_HDR_OFFETH: ornic_put_u32(p, e->offeth.offset); break;
  case ORNIC_HDR_ATOMICETH:
    p = ornic_put_u32(ornic_put_u64(p, e->atomiceth.va), e->atomiceth.rkey);
    ornic_put_u64(ornic_put_u64(p, e->atomiceth.swap_add), e->atomiceth.compare);
    break;
  case ORNIC_HDR_AETH: ornic_put_u24(ornic_put_u8(p, e->aeth.syndrome), e->aeth.msn); break;
  case ORNIC_HDR_ATOMICACKETH: ornic_put_u64(p, e->atomicacketh.orig); break;
  case ORNIC_HDR_OACKETH:
    ornic_put_u16(ornic_put_u8(ornic_put_u8(p, e->oacketh.flags), e->oacketh.resv),
                  e->oacketh.count);
    break;
  case ORNIC_HDR_NAKETH: {
    const ornic_naketh *n = &e->naketh;
    p = ornic_put_u24(ornic_put_u8(p, n->reason), n->trigger_psn);
    p = ornic_put_u24(ornic_put_u8(p, n->nblocks), n->base_psn);
    p = ornic_put_u24(ornic_put_u8(p, n->resv), n->limit_psn);
    for (unsigned i = 0; i < 2u * n->nblocks; i++) p[i] = n->bitmap[i];
    break;
  }
  case ORNIC_HDR_IMMDT: ornic_put_u32(p, e->immdt.data); break;
  case ORNIC_HDR_IETH: ornic_put_u32(p, e->ieth.rkey); break;
  case ORNIC_HDR_CNP:
    for (int i = 0; i < 16; i++) p[i] = e->cnp.resv[i];
    break;
  default: break;
  }
}

ornic_ssize ornic_ext_encode_one(uint8_t *out, size_t cap, const ornic_ext *e, uint16_t bit) {
  if (ornic_hdr_size(bit) == 0 || !fixed_valid(e, bit)) return ORNIC_ERR_INVALID_ARG;
  size_t n = hdr_wire_size(e, bit);
  if (cap < n) return ORNIC_ERR_NOBUF;
  fixed_write(out, e, bit);
  return (ornic_ssize)n;
}

/* Bits above the known headers are ignored, as by every function here. */
bool ornic_ext_valid(const ornic_ext *e, uint16_t hdrs) {
  FOR_EACH_HDR(bit, hdrs) {
    if (!fixed_valid(e, (uint16_t)bit)) return false;
  }
  return true;
}

/* Everything is checked before the first byte is written. */
ornic_ssize ornic_ext_encode(uint8_t *out, size_t cap, const ornic_ext *e, uint16_t hdrs) {
  if (!ornic_ext_valid(e, hdrs)) return ORNIC_ERR_INVALID_ARG;
  if (cap < ornic_ext_size(e, hdrs)) return ORNIC_ERR_NOBUF;
  size_t off = 0;
  FOR_EACH_HDR(bit, hdrs) {
    fixed_write(out + off, e, (uint16_t)bit);
    off += hdr_wire_size(e, (uint16_t)bit);
  }
  return (ornic_ssize)off;
}

/* Named entry points for the ORNIC headers, over the same cases as above. */
#define ORNIC_NAMED_CODEC(NAME, FIELD, BIT)                                             \
  int ornic_##NAME##_decode(ornic_##NAME *out, const uint8_t *p, size_t len) {          \
    ornic_ext e;                                                                        \
    e.present = 0;                                                                      \
    int n = ornic_ext_decode_one(&e, BIT, p, len);                                      \
    if (n > 0 || n == ORNIC_ERR_MALFORMED) *out = e.FIELD;                              \
    return n;                                                                           \
  }                                                                                     \
  ornic_ssize ornic_##NAME##_encode(uint8_t *out, size_t cap, const ornic_##NAME *in) { \
    ornic_ext e;                                                                        \
    e.FIELD = *in;                                                                      \
    return ornic_ext_encode_one(out, cap, &e, BIT);                                     \
  }

ORNIC_NAMED_CODEC(offeth, offeth, ORNIC_HDR_OFFETH)
ORNIC_NAMED_CODEC(oacketh, oacketh, ORNIC_HDR_OACKETH)
ORNIC_NAMED_CODEC(naketh, naketh, ORNIC_HDR_NAKETH)
