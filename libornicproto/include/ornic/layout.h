/* SPDX-License-Identifier: MIT */
/* Field layouts of the BTH and of every extension header: where each field
 * sits in its header's bytes, for readers that show or edit raw bytes (a
 * Wireshark dissector, a hex annotator) and want the library's layout
 * instead of typing the offsets again. The tables describe exactly what the
 * codecs of headers.h read and write (tests/unit/test_layout.c holds the two
 * equal, field by field and bit by bit).
 *
 * A field's value is read as the big-endian number of its `size` bytes at
 * `offset` from the start of its header, then masked and shifted:
 *
 *   value = (be(hdr + offset, size) & mask) >> shift
 *
 * Fields of more than 8 bytes (the CNP's 16 reserved bytes) are byte strings:
 * mask and shift are 0. Fields that name bits of another field (the OACKETH
 * flag bits inside oacketh.flags) say so with `parent`; every other field is
 * top level, and the top-level fields of a header cover each of its bits
 * exactly once, in wire order. */
#ifndef ORNIC_LAYOUT_H
#define ORNIC_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/export.h"
#include "ornic/frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a field holds, for a reader that formats it. */
typedef enum {
  ORNIC_FIELD_UINT = 0,     /* an unsigned number (lengths, keys, addresses, data) */
  ORNIC_FIELD_FLAG = 1,     /* one bit */
  ORNIC_FIELD_FLAGS = 2,    /* a set of flag bits, named by the fields whose parent it is */
  ORNIC_FIELD_RESERVED = 3, /* reserved bits or bytes: sent as zero, kept on decode */
  ORNIC_FIELD_PSN = 4,      /* a 24-bit packet sequence number (ornic/psn.h arithmetic) */
  ORNIC_FIELD_QPN = 5       /* a 24-bit queue pair number */
} ornic_field_kind;

typedef struct {
  const char *name;    /* stable "<header>.<field>" identifier: "bth.psn", "reth.va"; the
                          ORNIC Wireshark plugin's filter names are "ornic." + name */
  const char *display; /* for a person: "Packet Sequence Number" */
  uint8_t offset;      /* first byte, from the start of the header */
  uint8_t size;        /* bytes the value is read from: 1, 2, 3, 4, 8 (16: a byte string) */
  uint8_t bits;        /* width of the value in bits: 8 * size unless a bit field */
  uint8_t shift;       /* position of the value's lowest bit in the size-byte word */
  int8_t parent;       /* index (in the same table) of the field whose bits this one
                          names, or -1 for a top-level field */
  uint8_t kind;        /* ornic_field_kind */
  uint64_t mask;       /* the value's bits in the big-endian size-byte word (8 * size
                          ones for a whole field); 0 for a byte string */
} ornic_field_layout;

/* The fields of the 12-byte BTH, in wire order. count must be non-NULL: it
 * receives the number of fields. Never NULL; the table is static. */
ORNIC_API const ornic_field_layout *ornic_bth_layout(size_t *count);

/* The fields of one extension header, hdr_bit one ORNIC_HDR_* bit (opcode.h),
 * in wire order; for NAKETH its 12 fixed bytes (Reason, Trigger PSN, block
 * count, Base PSN, reserved, Limit PSN), after which come nblocks 16-bit
 * big-endian bitmap blocks (headers.h). count must be non-NULL. Returns the
 * static table, or NULL with *count = 0 when hdr_bit is not exactly one known
 * header bit. */
ORNIC_API const ornic_field_layout *ornic_hdr_layout(uint16_t hdr_bit, size_t *count);

/* The value of a field of at most 8 bytes from its header's bytes: hdr must
 * point at the header's first byte, with at least fl->offset + fl->size bytes
 * readable; fl must be non-NULL. Returns 0 for a byte string (size > 8). */
ORNIC_API uint64_t ornic_field_value(const ornic_field_layout *fl, const uint8_t *hdr);

/* Where an extension header lies in a decoded frame: the byte offset of its
 * first byte from the start of the bytes given to ornic_frame_decode (or
 * ornic_roce_decode), and its size on the wire (NAKETH: fixed part plus its
 * bitmap blocks). f must be non-NULL and come from one of those decoders.
 * Both return 0 when hdr_bit is not exactly one known header bit or the
 * header is not in f->ext.present (0 is never a header's offset: the BTH comes
 * first). The BTH itself is at f->bth_off, ORNIC_BTH_LEN bytes, when
 * f->layers has ORNIC_LAYER_BTH. */
ORNIC_API size_t ornic_frame_hdr_offset(const ornic_frame *f, uint16_t hdr_bit);
ORNIC_API size_t ornic_frame_hdr_size(const ornic_frame *f, uint16_t hdr_bit);

#ifdef __cplusplus
}
#endif
#endif
