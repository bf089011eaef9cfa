/* SPDX-License-Identifier: MIT */
/* Internal helpers shared by the encoder and the iCRC code. */
#ifndef ORNIC_INTERNAL_H
#define ORNIC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ornic/headers.h"
#include "ornic/opcode.h"

/* The opcode table (ornic_opcode.c, generated: ornic_opcode_table.inc), for
 * the decoder's fast path, which reads it without a call. Hidden: not ABI. */
extern const ornic_opcode_info ornic_opcode_table_[256];

/* iCRC over the bytes [l3, l3 + roce_len): the IP (or GRH) header of
 * hdr_len bytes, then UDP (absent for a GRH), BTH, and the rest up to but
 * excluding the iCRC. bth_rel is the BTH's offset from l3. */
uint32_t ornic_icrc_calc(const uint8_t *l3, int l3_kind, size_t bth_rel, size_t icrc_rel);

/* Index i of a single-bit mask 1 << i (its lowest set bit otherwise). */
static inline unsigned ornic_bit_index(unsigned v) {
#if defined(__GNUC__)
  return (unsigned)__builtin_ctz(v);
#else
  unsigned i = 0;
  while (!(v & 1u)) v >>= 1, i++;
  return i;
#endif
}

/* Fixed wire size of each extension header by bit index (NAKETH: its fixed part). */
extern const uint8_t ornic_hdr_sizes[];

/* Whether ornic_bth_encode / ornic_ext_encode would accept these values
 * (field widths, NAK block count): encoders check everything before they
 * write a byte, so a failed encode leaves the caller's buffer untouched. */
bool ornic_bth_valid(const ornic_bth *b);
bool ornic_ext_valid(const ornic_ext *e, uint16_t hdrs);

/* RFC 1071 one's complement sum, folded but not inverted. */
uint32_t ornic_csum_add(uint32_t sum, const uint8_t *p, size_t len);
uint16_t ornic_csum_fold(uint32_t sum);

#endif
