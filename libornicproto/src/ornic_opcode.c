/* The opcode table and the extension-header size/name table. */
#include "ornic/headers.h"
#include "ornic/opcode.h"

static const ornic_opcode_info opcode_table[256] = {
#include "ornic_opcode_table.inc"
};

const ornic_opcode_info *ornic_opcode_info_get(uint8_t opcode) {
  return &opcode_table[opcode];
}

const char *ornic_opcode_name(uint8_t opcode) {
  const char *n = opcode_table[opcode].name;
  return n ? n : "Unknown";
}

typedef struct {
  const char *name;
  unsigned size;
} hdr_row;

/* Indexed by bit position of ORNIC_HDR_*. */
static const hdr_row hdr_rows[ORNIC_HDR_COUNT] = {
    {"RDETH", 4}, {"DETH", 8},  {"XRCETH", 4},  {"FETH", 4},       {"RETH", 16},
    {"OFFETH", 4}, {"AtomicETH", 28}, {"AETH", 4}, {"AtomicAckETH", 8}, {"OACKETH", 4},
    {"NAKETH", ORNIC_NAK_FIXED_LEN}, {"ImmDt", 4}, {"IETH", 4}, {"CNP", 16},
};

static int hdr_index(uint16_t bit) {
  for (int i = 0; i < ORNIC_HDR_COUNT; i++)
    if (bit == (1u << i)) return i;
  return -1;
}

unsigned ornic_hdr_size(uint16_t hdr_bit) {
  int i = hdr_index(hdr_bit);
  return i < 0 ? 0 : hdr_rows[i].size;
}

const char *ornic_hdr_name(uint16_t hdr_bit) {
  int i = hdr_index(hdr_bit);
  return i < 0 ? "?" : hdr_rows[i].name;
}
