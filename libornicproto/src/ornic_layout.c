/* SPDX-License-Identifier: MIT */
/* Field layout tables of the BTH and the extension headers (ornic/layout.h).
 * They describe what ornic_bth.c and ornic_ext.c read and write;
 * tests/unit/test_layout.c encodes every field at all ones through those
 * codecs and checks that exactly the bits named here are set. */
#include "ornic/layout.h"

#include "ornic/opcode.h"
#include "ornic_internal.h"

/* The `bits` low ones, moved up by `shift` (bits 64 included: 2 << 63 wraps to 0). */
#define BITS_MASK(bits, shift) ((((uint64_t)2 << ((bits)-1)) - 1) << (shift))

/* A whole field of `size` bytes, a bit field inside one byte (or a
 * sub-field of the field at index `parent`), and a byte string. */
#define WHOLE(name, display, off, size, kind) \
  { name, display, off, size, 8 * (size), 0, -1, kind, BITS_MASK(8 * (size), 0) }
#define BITF(name, display, off, bits, shift, kind) \
  { name, display, off, 1, bits, shift, -1, kind, BITS_MASK(bits, shift) }
#define SUBF(name, display, off, bits, shift, kind, parent) \
  { name, display, off, 1, bits, shift, parent, kind, BITS_MASK(bits, shift) }
#define BYTES(name, display, off, size, kind) \
  { name, display, off, size, 8 * (size), 0, -1, kind, 0 }

#define K_UINT ORNIC_FIELD_UINT
#define K_FLAG ORNIC_FIELD_FLAG
#define K_FLAGS ORNIC_FIELD_FLAGS
#define K_RESV ORNIC_FIELD_RESERVED
#define K_PSN ORNIC_FIELD_PSN
#define K_QPN ORNIC_FIELD_QPN

/* IBA 9.2. */
static const ornic_field_layout bth_fields[] = {
    WHOLE("bth.opcode", "OpCode", 0, 1, K_UINT),
    BITF("bth.se", "Solicited Event", 1, 1, 7, K_FLAG),
    BITF("bth.m", "MigReq", 1, 1, 6, K_FLAG),
    BITF("bth.padcnt", "Pad Count", 1, 2, 4, K_UINT),
    BITF("bth.tver", "Header Version", 1, 4, 0, K_UINT),
    WHOLE("bth.pkey", "Partition Key", 2, 2, K_UINT),
    BITF("bth.fecn", "FECN", 4, 1, 7, K_FLAG),
    BITF("bth.becn", "BECN", 4, 1, 6, K_FLAG),
    BITF("bth.resv6", "Reserved (6 bits)", 4, 6, 0, K_RESV),
    WHOLE("bth.destqp", "Destination QP", 5, 3, K_QPN),
    BITF("bth.a", "AckReq", 8, 1, 7, K_FLAG),
    BITF("bth.resv7", "Reserved (7 bits)", 8, 7, 0, K_RESV),
    WHOLE("bth.psn", "Packet Sequence Number", 9, 3, K_PSN),
};

static const ornic_field_layout rdeth_fields[] = {
    WHOLE("rdeth.resv", "Reserved", 0, 1, K_RESV),
    WHOLE("rdeth.een", "EE Context", 1, 3, K_UINT),
};

static const ornic_field_layout deth_fields[] = {
    WHOLE("deth.q_key", "Q_Key", 0, 4, K_UINT),
    WHOLE("deth.resv", "Reserved", 4, 1, K_RESV),
    WHOLE("deth.srcqp", "Source QP", 5, 3, K_QPN),
};

static const ornic_field_layout xrceth_fields[] = {
    WHOLE("xrceth.resv", "Reserved", 0, 1, K_RESV),
    WHOLE("xrceth.xrcsrq", "XRC SRQ", 1, 3, K_UINT),
};

/* Kept whole, as ornic_feth is. */
static const ornic_field_layout feth_fields[] = {
    WHOLE("feth.value", "FETH value", 0, 4, K_UINT),
};

static const ornic_field_layout reth_fields[] = {
    WHOLE("reth.va", "Virtual Address", 0, 8, K_UINT),
    WHOLE("reth.r_key", "Remote Key", 8, 4, K_UINT),
    WHOLE("reth.dmalen", "DMA Length", 12, 4, K_UINT),
};

/* PROTOCOL.md 3.3. */
static const ornic_field_layout offeth_fields[] = {
    WHOLE("offeth.offset", "Offset in WQE", 0, 4, K_UINT),
};

static const ornic_field_layout atomiceth_fields[] = {
    WHOLE("atomiceth.va", "Virtual Address", 0, 8, K_UINT),
    WHOLE("atomiceth.r_key", "Remote Key", 8, 4, K_UINT),
    WHOLE("atomiceth.swap_add", "Swap (or Add) Data", 12, 8, K_UINT),
    WHOLE("atomiceth.compare", "Compare Data", 20, 8, K_UINT),
};

static const ornic_field_layout aeth_fields[] = {
    WHOLE("aeth.syndrome", "Syndrome", 0, 1, K_UINT),
    WHOLE("aeth.msn", "Message Sequence Number", 1, 3, K_UINT),
};

static const ornic_field_layout atomicacketh_fields[] = {
    WHOLE("atomicacketh.orig_rdata", "Original Remote Data", 0, 8, K_UINT),
};

/* PROTOCOL.md 3.4: the flag bits are ORNIC_OACK_* (headers.h). */
static const ornic_field_layout oacketh_fields[] = {
    WHOLE("oacketh.flags", "Flags", 0, 1, K_FLAGS),
    SUBF("oacketh.addr_cached", "ADDR_CACHED", 0, 1, 0, K_FLAG, 0),
    SUBF("oacketh.wqe_done", "WQE_DONE", 0, 1, 1, K_FLAG, 0),
    SUBF("oacketh.flags_resv", "Reserved flags", 0, 6, 2, K_RESV, 0),
    WHOLE("oacketh.resv", "Reserved", 1, 1, K_RESV),
    WHOLE("oacketh.count", "Count", 2, 2, K_UINT),
};

/* PROTOCOL.md 3.5: the fixed part; the bitmap blocks follow. */
static const ornic_field_layout naketh_fields[] = {
    WHOLE("naketh.reason", "Reason", 0, 1, K_UINT),
    WHOLE("naketh.trigger_psn", "Trigger PSN", 1, 3, K_PSN),
    WHOLE("naketh.nblocks", "Bitmap blocks", 4, 1, K_UINT),
    WHOLE("naketh.base_psn", "Base PSN", 5, 3, K_PSN),
    WHOLE("naketh.resv", "Reserved", 8, 1, K_RESV),
    WHOLE("naketh.limit_psn", "Limit PSN", 9, 3, K_PSN),
};

static const ornic_field_layout immdt_fields[] = {
    WHOLE("immdt.data", "Immediate Data", 0, 4, K_UINT),
};

static const ornic_field_layout ieth_fields[] = {
    WHOLE("ieth.r_key", "Invalidate R_Key", 0, 4, K_UINT),
};

static const ornic_field_layout cnp_fields[] = {
    BYTES("cnp.resv", "Reserved", 0, 16, K_RESV),
};

#define TABLE(t) \
  { t, sizeof(t) / sizeof((t)[0]) }

/* By bit index of ORNIC_HDR_* (opcode.h). */
static const struct {
  const ornic_field_layout *fields;
  size_t count;
} hdr_tables[ORNIC_HDR_COUNT] = {
    TABLE(rdeth_fields),        TABLE(deth_fields),    TABLE(xrceth_fields),    TABLE(feth_fields),
    TABLE(reth_fields),         TABLE(offeth_fields),  TABLE(atomiceth_fields), TABLE(aeth_fields),
    TABLE(atomicacketh_fields), TABLE(oacketh_fields), TABLE(naketh_fields),    TABLE(immdt_fields),
    TABLE(ieth_fields),         TABLE(cnp_fields),
};

/* 1 when bit is exactly one known ORNIC_HDR_* bit. */
static int one_hdr_bit(uint16_t bit) {
  return bit != 0 && (bit & (bit - 1u)) == 0 && bit < (1u << ORNIC_HDR_COUNT);
}

const ornic_field_layout *ornic_bth_layout(size_t *count) {
  *count = sizeof(bth_fields) / sizeof(bth_fields[0]);
  return bth_fields;
}

const ornic_field_layout *ornic_hdr_layout(uint16_t hdr_bit, size_t *count) {
  if (!one_hdr_bit(hdr_bit)) {
    *count = 0;
    return NULL;
  }
  unsigned i = ornic_bit_index(hdr_bit);
  *count = hdr_tables[i].count;
  return hdr_tables[i].fields;
}

uint64_t ornic_field_value(const ornic_field_layout *fl, const uint8_t *hdr) {
  if (fl->size > 8) return 0;
  uint64_t v = 0;
  for (unsigned i = 0; i < fl->size; i++) v = v << 8 | hdr[fl->offset + i];
  return (v & fl->mask) >> fl->shift;
}

size_t ornic_frame_hdr_offset(const ornic_frame *f, uint16_t hdr_bit) {
  if (!one_hdr_bit(hdr_bit) || !(f->ext.present & hdr_bit)) return 0;
  /* Headers lie in the order of their bits: those below this one come first. */
  return f->ext_off + ornic_ext_size(&f->ext, (uint16_t)(f->ext.present & (hdr_bit - 1u)));
}

size_t ornic_frame_hdr_size(const ornic_frame *f, uint16_t hdr_bit) {
  if (!one_hdr_bit(hdr_bit) || !(f->ext.present & hdr_bit)) return 0;
  return ornic_ext_size(&f->ext, hdr_bit);
}
