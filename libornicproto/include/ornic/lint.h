/* SPDX-License-Identifier: MIT */
/* Lint: the rules of docs/PROTOCOL.md that one frame can break without being
 * undecodable (table "Lint rules" in section 5). A decoder accepts these
 * frames (D7, D8, D9); a sender under test should not produce them, and an
 * FPGA trips them long before it produces an undecodable frame. Every tool
 * asks this function, so ornic-decode's warnings and the plugin's expert
 * infos are the same list. */
#ifndef ORNIC_LINT_H
#define ORNIC_LINT_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/export.h"
#include "ornic/frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One bit per rule; the numbers are the L-rules of PROTOCOL.md section 5. */
enum {
  ORNIC_LINT_PAD_ALIGN = 1u << 0,    /* L1 IBA opcode: BTH..iCRC not whole 4-byte words */
  ORNIC_LINT_PAD_NONZERO = 1u << 1,  /* L2 pad bytes are not zero */
  ORNIC_LINT_NAK_PSN = 1u << 2,      /* L3 ORNIC NAK: BTH.PSN differs from the Base PSN */
  ORNIC_LINT_NAK_TRIGGER = 1u << 3,  /* L4 ORNIC NAK: Trigger PSN not after the Base PSN */
  ORNIC_LINT_NAK_BASE_BIT = 1u << 4, /* L5 ORNIC NAK: bit 0 of block 0 (Base itself) set */
  ORNIC_LINT_OACK_FLAGS = 1u << 5,   /* L6 ORNIC ACK: ADDR_CACHED and WQE_DONE both set */
  ORNIC_LINT_SE = 1u << 6,           /* L7 ORNIC opcode without ImmDt has SE set */
  ORNIC_LINT_ACKREQ = 1u << 7,       /* L8 ORNIC ACK, NAK or READ response has AckReq set */
  ORNIC_LINT_BECN = 1u << 8,         /* L9 BECN set outside a CNP on an ORNIC opcode */
  ORNIC_LINT_OFFSET_DMA = 1u << 9,   /* L10 OFFETH offset not below max(1, RETH DMA length) */
  ORNIC_LINT_OFFSET_PMTU = 1u << 10, /* L11 OFFETH offset not a multiple of PMTU (PMTU known) */
  ORNIC_LINT_SPOT_PMTU = 1u << 11,   /* L12 FSpot/Spot payload differs from PMTU (PMTU known) */
  ORNIC_LINT_NAK_LIMIT = 1u << 12    /* L13 ORNIC NAK: Limit PSN not after Base, or after Trigger */
};
#define ORNIC_LINT_COUNT 13

/* The ORNIC_LINT_* rules f breaks. f must come from ornic_frame_decode (or
 * ornic_roce_decode) of `data`; only what was decoded is checked: headers in
 * f->ext.present, pad bytes when the payload was located and captured.
 * `pmtu` is the path MTU of the QP in payload bytes when the caller knows it
 * (256 .. 4096), or 0: rules L11 and L12 need it. Frames with a decode error
 * are linted as far as they were read. data and f must be non-NULL. */
ORNIC_API uint32_t ornic_lint(const ornic_frame *f, const uint8_t *data, uint32_t pmtu);

/* For bit i (0 <= i < ORNIC_LINT_COUNT): a stable identifier
 * ("pad_not_aligned", ...) for filters and JSON, a sentence for a person, and
 * the rule it breaks ("PROTOCOL.md 3.5"). NULL for i out of range. */
ORNIC_API const char *ornic_lint_name(unsigned i);
ORNIC_API const char *ornic_lint_text(unsigned i);
ORNIC_API const char *ornic_lint_rule(unsigned i);

#ifdef __cplusplus
}
#endif
#endif
