/* SPDX-License-Identifier: MIT */
/* The mutator's state and the steps its files share (not installed). */
#ifndef MUT_INTERNAL_H
#define MUT_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <ornic/ornic.h>

#include "mut_rng.h"
#include "ornic_mutator.h"

#define MUT_MAX_FRAME 65536 /* ornic_frame_encode refuses frames over 64 KiB */
#define MUT_LOG_LEN 512

struct ornic_mut {
  ornic_mut_cfg cfg;
  mut_rng rng;
  ornic_frame f;                               /* the frame being mutated; payload points at pay */
  uint8_t pay[MUT_MAX_FRAME];                  /* its payload */
  uint8_t bitmap[2 * ORNIC_NAKETH_MAX_BLOCKS]; /* its NAK bitmap */
  uint8_t wire_op; /* opcode to write over the encoded one (header removed), or f's */
  int wire_op_set;
  int wire_padcnt;  /* PadCnt to write over the derived one, -1 none */
  int wire_reorder; /* swap the first two extension headers on the wire */
  char log[MUT_LOG_LEN];
  size_t log_len;
  int broken;
};

/* Appends "; "-separated text to the last-call log (cut when full). */
void mut_log(ornic_mut *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One field mutation of m->f (mut_fields.c); returns 0 when the chosen kind
 * does not apply to this frame (the caller picks another). */
int mut_field_step(ornic_mut *m);

/* Wire patches after encoding (mut_wire.c): PadCnt, a header left out or
 * reordered; then the iCRC recomputed from the bytes. */
void mut_wire_patch(ornic_mut *m, uint8_t *out, size_t len);
int mut_wire_fix_icrc(uint8_t *out, size_t len);
/* Break one of iCRC, IP checksum, IP length, UDP length, UDP checksum on
 * purpose; logs which. */
void mut_wire_break(ornic_mut *m, uint8_t *out, size_t len);

/* Plain byte mutations of out[from, to) (mut_bytes.c). */
void mut_bytes(ornic_mut *m, uint8_t *out, size_t from, size_t to);

#endif
