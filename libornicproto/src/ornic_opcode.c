/* SPDX-License-Identifier: MIT */
/* The opcode table and the extension-header size/name table. */
#include "ornic/headers.h"
#include "ornic/opcode.h"
#include "ornic_hdr_fields.h"
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

unsigned ornic_opcode_dc_len(uint8_t opcode, int se) {
  if (ornic_opcode_transport(opcode) != ORNIC_TRANSPORT_RD) return 0;
  /* packet-infiniband.c: dctConnect = !(SE) on RESYNC adds its DCCETH. */
  return ORNIC_DC_LEN + (opcode == 0x55 && !se ? ORNIC_DC_CONNECT_LEN : 0);
}

/* Indexed by bit position of ORNIC_HDR_*, from ornic_hdr_fields.h. The
 * sizes are shared with the extension decoder, which knows the index and
 * skips hdr_index(). */
#define HDR_INDEX(hdr, BIT, name, len) hdr_index_##hdr,
enum { ORNIC_EXT_HDRS(HDR_INDEX) hdr_count };
#define HDR_BIT_CHECK(hdr, BIT, name, len) \
  _Static_assert(ORNIC_HDR_##BIT == 1u << hdr_index_##hdr, name " in bit order");
ORNIC_EXT_HDRS(HDR_BIT_CHECK)
_Static_assert(hdr_count == ORNIC_HDR_COUNT, "every header listed");
#define HDR_SIZE(hdr, BIT, name, len) len,
const uint8_t ornic_hdr_sizes[ORNIC_HDR_COUNT] = {ORNIC_EXT_HDRS(HDR_SIZE)};
#define HDR_NAME(hdr, BIT, name, len) name,
static const char *const hdr_names[ORNIC_HDR_COUNT] = {ORNIC_EXT_HDRS(HDR_NAME)};

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
