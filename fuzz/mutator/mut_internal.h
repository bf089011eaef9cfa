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
#define MUT_MAX_RECORDS 4096 /* records handled one by one; later ones are kept as a tail */

/* One input in "frame records" form (ornic_mutator.h): where each whole
 * record's bytes start (after its length prefix) and how many there are. */
typedef struct {
  uint32_t off[MUT_MAX_RECORDS];
  uint16_t len[MUT_MAX_RECORDS];
  size_t n;        /* records in off/len */
  size_t nframes;  /* of them with len >= 14 (whole Ethernet frames) */
  size_t tail_off; /* whole records past MUT_MAX_RECORDS: [tail_off, tail_end) kept as they are */
  size_t tail_end; /* the end of the last whole record */
} mut_records;

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

  mut_records ra, rb; /* the records of the input and of a crossover's second input */
  uint16_t order[2 * MUT_MAX_RECORDS + 1]; /* the output's records, as mut_records.c says */
  size_t norder;
  size_t frame_rec;  /* the record of ra the frame pipeline mutates */
  uint8_t pause[13]; /* an inserted pause record's bytes */
  size_t pause_len;
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
/* The IPv6 UDP checksum (RFC 8200 8.1) of the datagram at out + l4_off, ulen
 * bytes, under the IPv6 header at out + l3_off; the IPv4 header checksum. */
void mut_wire_udp6_csum(uint8_t *out, size_t l3_off, size_t l4_off, size_t ulen);
uint16_t mut_wire_ip4_csum(const uint8_t *h, size_t n);

/* Starts a call: the log emptied, nothing broken, no wire patch pending. */
void mut_begin(ornic_mut *m);
/* Parses in[prefix, len) as records into r (mut_records.c). */
void mut_records_parse(mut_records *r, const uint8_t *in, size_t len, size_t prefix);

/* Plain byte mutations of out[from, to) (mut_bytes.c). */
void mut_bytes(ornic_mut *m, uint8_t *out, size_t from, size_t to);

#endif
