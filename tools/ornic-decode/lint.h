/* Warnings: things a stateless decoder can see that docs/PROTOCOL.md says a
 * sender should not do, but that are not decode errors (PROTOCOL.md D7 and
 * "semantic checks left to end points"). An FPGA under test trips these
 * long before it produces an undecodable frame. */
#ifndef DEC_LINT_H
#define DEC_LINT_H

#include <stdint.h>

#include <ornic/frame.h>

enum {
  DEC_WARN_PAD_ALIGN = 1u << 0,   /* IBA opcode: BTH..iCRC not whole 4-byte words (PadCnt wrong) */
  DEC_WARN_PAD_NONZERO = 1u << 1, /* pad bytes are not zero */
  DEC_WARN_NAK_PSN = 1u << 2,     /* ORNIC NAK: BTH.PSN differs from NAKETH Base PSN */
  DEC_WARN_OACK_FLAGS = 1u << 3   /* ORNIC ACK: ADDR_CACHED and WQE_DONE both set */
};
#define DEC_WARN_COUNT 4

/* Warnings for a frame ornic_frame_decode accepted whole (ORNIC_OK); `l2` is
 * the pointer it decoded. */
unsigned dec_lint(const ornic_frame *f, const uint8_t *l2);

/* "pad_not_aligned", ... for bit i (0 <= i < DEC_WARN_COUNT). */
const char *dec_warn_name(unsigned i);

#endif
