/* SPDX-License-Identifier: MIT */
/* The opcode table and the extension-header size/name table. */
#include "ornic/headers.h"
#include "ornic/opcode.h"
#include "ornic_internal.h"
#include "ornic_internal.h"

const ornic_opcode_info ornic_opcode_table_[256] = {
#include "ornic_opcode_table.inc"
};

const ornic_opcode_info *ornic_opcode_info_get(uint8_t opcode) {
  return &ornic_opcode_table_[opcode];
}

const char *ornic_opcode_name(uint8_t opcode) {
  const char *n = ornic_opcode_table_[opcode].name;
  return n ? n : "Unknown";
}

/* Indexed by bit position of ORNIC_HDR_*. The sizes are shared with the
 * extension decoder, which knows the index and skips hdr_index(). */
const uint8_t ornic_hdr_sizes[ORNIC_HDR_COUNT] = {
    4, 8, 4, 4, 16, 4, 28, 4, 8, 4, ORNIC_NAKETH_FIXED_LEN, 4, 4, 16};
static const char *const hdr_names[ORNIC_HDR_COUNT] = {
    "RDETH", "DETH",         "XRCETH",  "FETH",   "RETH",  "OFFETH", "AtomicETH",
    "AETH",  "AtomicAckETH", "OACKETH", "NAKETH", "ImmDt", "IETH",   "CNP",
};

/* -1 unless `bit` is exactly one known ORNIC_HDR_* bit. */
static int hdr_index(uint16_t bit) {
  if (bit == 0 || (bit & (bit - 1)) || bit >= (1u << ORNIC_HDR_COUNT)) return -1;
  return (int)ornic_bit_index(bit);
}

unsigned ornic_hdr_size(uint16_t hdr_bit) {
  int i = hdr_index(hdr_bit);
  return i < 0 ? 0 : ornic_hdr_sizes[i];
}

const char *ornic_hdr_name(uint16_t hdr_bit) {
  int i = hdr_index(hdr_bit);
  return i < 0 ? "?" : hdr_names[i];
}
