/* SPDX-License-Identifier: MIT */
/* Helpers shared by the unit tests: a seeded PRNG, random frame values, field
 * by field comparison, an independent reference iCRC, and guard-page buffers.
 *
 * Everything here is written from the IBA notes and the public headers, never
 * by calling the code under test, so that a test comparing the library with
 * these helpers compares two independent implementations. */
#ifndef ORNIC_TESTUTIL_H
#define ORNIC_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../check_fast.h"

#include "ornic/ornic.h"

/* ---- PRNG (splitmix64: fixed seeds make every run identical) ---- */
typedef struct {
  uint64_t s;
} tu_rng;
void tu_seed(tu_rng *r, uint64_t seed);
uint64_t tu_next(tu_rng *r);
uint32_t tu_bits(tu_rng *r, unsigned nbits); /* uniform in [0, 2^nbits) for nbits <= 32 */
uint32_t tu_range(tu_rng *r, uint32_t lo, uint32_t hi); /* inclusive */
void tu_fill(tu_rng *r, uint8_t *p, size_t n);

/* ---- independent reference implementations ---- */
/* Bitwise CRC-32 (reflected 0xEDB88320), zlib calling convention. */
uint32_t tu_crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n);
/* Bytes one extension header takes on the wire, from the IBA notes table. */
size_t tu_hdr_size(uint16_t bit, unsigned nak_nblocks);
size_t tu_hdrs_size(uint16_t hdrs, unsigned nak_nblocks);
/* RFC 1071 checksum (folded, inverted) of p[0..n). */
uint16_t tu_inet_csum(const uint8_t *p, size_t n, uint32_t start);
/* Reference iCRC of a frame (IBA notes section 5), computed from the bytes
 * alone. l3 points at the IPv4/IPv6 header or GRH (kind 4, 6 or 1); l3_len is
 * the number of bytes from there to the end of the iCRC. Returns the value as
 * the library reports it: the little-endian u32 of the four wire bytes. */
uint32_t tu_ref_icrc(const uint8_t *l3, int kind, size_t l3_len);

/* ---- frames ---- */
typedef struct {
  ornic_link link;
  int ipv; /* 4 or 6 (ignored for GRH) */
  bool vlan;
  uint16_t tpid; /* 0 (encoder default 0x8100), 0x8100 or 0x88A8 */
} tu_variant;

/* The encapsulations the round-trip tests cover. */
extern const tu_variant tu_variants[];
extern const size_t tu_nvariants;
const char *tu_variant_name(const tu_variant *v);

/* Storage a random frame points into (payload, NAK bitmap). */
typedef struct {
  uint8_t payload[64];
  uint8_t bitmap[2 * 255];
} tu_store;

/* Fill f with distinctive random values for every field the encoder takes,
 * for `opcode` (every header of its layout) and `paylen` payload bytes. */
void tu_random_frame(ornic_frame *f, tu_store *st, tu_rng *r, uint8_t opcode, const tu_variant *v,
                     size_t paylen);

/* Encode f (asserting success) into out; returns the size. */
size_t tu_encode(const ornic_frame *f, uint8_t *out, size_t cap);

/* Assert that `got` (decoded from `buf`) carries every value field of `want`
 * (what was encoded), and that the derived fields are right. `what` labels
 * failures. */
void tu_assert_frame_matches(const ornic_frame *want, const ornic_frame *got, const uint8_t *buf,
                             size_t len, const char *what);
/* Compare the BTH / one header / all headers of `hdrs`. */
void tu_assert_bth_eq(const ornic_bth *a, const ornic_bth *b, bool with_padcnt, const char *what);
void tu_assert_ext_eq(const ornic_ext *a, const ornic_ext *b, uint16_t hdrs, const char *what);

/* ---- guard pages (picohttpparser's trick) ---- */
/* Two pages, the second PROT_NONE. tu_guard_tail returns a pointer such that
 * [p, p + n) ends exactly at the unreadable page. */
typedef struct {
  uint8_t *base;
  size_t page;
} tu_guard;
void tu_guard_init(tu_guard *g);
uint8_t *tu_guard_tail(tu_guard *g, const uint8_t *src, size_t n);
void tu_guard_free(tu_guard *g);

/* ---- misc ---- */
void tu_hex(char *out, size_t cap, const uint8_t *p, size_t n);
/* Make the Check timeout generous (sanitizer builds are slow). */
TCase *tu_tcase(const char *name);
int tu_run(Suite *s);

#endif
