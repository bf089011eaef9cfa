/* SPDX-License-Identifier: MIT */
/* The fields of the BTH and of every extension header, each described once:
 * the header, the member of headers.h's struct that holds the field, its
 * <ornic/layout.h> name and display text, and where it lies in the header's
 * bytes (BTH: docs/PROTOCOL.md 2.2; IBA's headers: docs/IBA_NOTES.md
 * section 3; ORNIC's: docs/PROTOCOL.md 3.3-3.5). Everything that knows a
 * field's place is expanded from these lists: the layout tables
 * (ornic_layout.c), the readers of both decoders, the writers and the range
 * checks of the encoders (ornic_hdr_codec.h), the sizes and names of
 * ornic_hdr_size() and ornic_hdr_name() (ornic_opcode.c).
 *
 * ORNIC_FIELDS_<hdr>(N, S, Y, V) lists a header's fields in wire order, each
 * through one of four macros of the caller's:
 *   N(hdr, member, name, display, off, size, bits, shift, kind): a number,
 *     the big-endian size-byte word at byte off masked to `bits` ones moved
 *     up by `shift` (ornic/layout.h's rule; a whole field has bits 8 * size
 *     and shift 0). size is 1 to 4 inside one 4-byte word of the header, or 8
 *     at a multiple of 4 (ornic_hdr_codec.h reads words); a field of fewer
 *     bits lies in one byte, whose fields are listed from its highest bits
 *     down;
 *   S(hdr, name, display, off, bits, shift, kind, parent): bits of the field
 *     at index `parent` of the same list, named for readers (the OACKETH
 *     flags); held by the parent's member;
 *   Y(hdr, member, name, display, off, size, kind): size bytes kept as they
 *     are, in a byte array member;
 *   V(hdr, member, count, unit): the variable part after the fixed bytes,
 *     count * unit bytes (count: a member read before), and member a view of
 *     them; at least one unit (PROTOCOL.md D6). Not in the layout table, which
 *     describes the fixed part.
 * kind is the suffix of an ORNIC_FIELD_* kind. */
#ifndef ORNIC_HDR_FIELDS_H
#define ORNIC_HDR_FIELDS_H

#include "ornic/headers.h"
#include "ornic/opcode.h"

/* H(hdr, BIT, name, len): the extension headers in the order of their
 * ORNIC_HDR_<BIT> bits, which is wire order (PROTOCOL.md 2.4), with the
 * name ornic_hdr_name() gives and the size of the fixed part. hdr names the
 * struct ornic_<hdr>, the member ornic_ext.<hdr> and ORNIC_FIELDS_<hdr>. */
#define ORNIC_EXT_HDRS(H)                             \
  H(rdeth, RDETH, "RDETH", 4)                         \
  H(deth, DETH, "DETH", 8)                            \
  H(xrceth, XRCETH, "XRCETH", 4)                      \
  H(feth, FETH, "FETH", 4)                            \
  H(reth, RETH, "RETH", 16)                           \
  H(offeth, OFFETH, "OFFETH", 4)                      \
  H(atomiceth, ATOMICETH, "AtomicETH", 28)            \
  H(aeth, AETH, "AETH", 4)                            \
  H(atomicacketh, ATOMICACKETH, "AtomicAckETH", 8)    \
  H(oacketh, OACKETH, "OACKETH", 4)                   \
  H(naketh, NAKETH, "NAKETH", ORNIC_NAKETH_FIXED_LEN) \
  H(immdt, IMMDT, "ImmDt", 4)                         \
  H(ieth, IETH, "IETH", 4)                            \
  H(cnp, CNP, "CNP", 16)

/* IBA 9.2. */
#define ORNIC_FIELDS_bth(N, S, Y, V)                                    \
  N(bth, opcode, "bth.opcode", "OpCode", 0, 1, 8, 0, UINT)              \
  N(bth, se, "bth.se", "Solicited Event", 1, 1, 1, 7, FLAG)             \
  N(bth, m, "bth.m", "MigReq", 1, 1, 1, 6, FLAG)                        \
  N(bth, padcnt, "bth.padcnt", "Pad Count", 1, 1, 2, 4, UINT)           \
  N(bth, tver, "bth.tver", "Header Version", 1, 1, 4, 0, UINT)          \
  N(bth, pkey, "bth.pkey", "Partition Key", 2, 2, 16, 0, UINT)          \
  N(bth, fecn, "bth.fecn", "FECN", 4, 1, 1, 7, FLAG)                    \
  N(bth, becn, "bth.becn", "BECN", 4, 1, 1, 6, FLAG)                    \
  N(bth, resv6, "bth.resv6", "Reserved (6 bits)", 4, 1, 6, 0, RESERVED) \
  N(bth, destqp, "bth.destqp", "Destination QP", 5, 3, 24, 0, QPN)      \
  N(bth, ackreq, "bth.a", "AckReq", 8, 1, 1, 7, FLAG)                   \
  N(bth, resv7, "bth.resv7", "Reserved (7 bits)", 8, 1, 7, 0, RESERVED) \
  N(bth, psn, "bth.psn", "Packet Sequence Number", 9, 3, 24, 0, PSN)

#define ORNIC_FIELDS_rdeth(N, S, Y, V)                           \
  N(rdeth, resv, "rdeth.resv", "Reserved", 0, 1, 8, 0, RESERVED) \
  N(rdeth, een, "rdeth.een", "EE Context", 1, 3, 24, 0, UINT)

#define ORNIC_FIELDS_deth(N, S, Y, V)                          \
  N(deth, qkey, "deth.q_key", "Q_Key", 0, 4, 32, 0, UINT)      \
  N(deth, resv, "deth.resv", "Reserved", 4, 1, 8, 0, RESERVED) \
  N(deth, srcqp, "deth.srcqp", "Source QP", 5, 3, 24, 0, QPN)

#define ORNIC_FIELDS_xrceth(N, S, Y, V)                            \
  N(xrceth, resv, "xrceth.resv", "Reserved", 0, 1, 8, 0, RESERVED) \
  N(xrceth, xrcsrq, "xrceth.xrcsrq", "XRC SRQ", 1, 3, 24, 0, UINT)

/* Kept whole, as ornic_feth is. */
#define ORNIC_FIELDS_feth(N, S, Y, V) N(feth, value, "feth.value", "FETH value", 0, 4, 32, 0, UINT)

#define ORNIC_FIELDS_reth(N, S, Y, V)                          \
  N(reth, va, "reth.va", "Virtual Address", 0, 8, 64, 0, UINT) \
  N(reth, rkey, "reth.r_key", "Remote Key", 8, 4, 32, 0, UINT) \
  N(reth, dmalen, "reth.dmalen", "DMA Length", 12, 4, 32, 0, UINT)

/* PROTOCOL.md 3.3. */
#define ORNIC_FIELDS_offeth(N, S, Y, V) \
  N(offeth, offset, "offeth.offset", "Offset in WQE", 0, 4, 32, 0, UINT)

#define ORNIC_FIELDS_atomiceth(N, S, Y, V)                                               \
  N(atomiceth, va, "atomiceth.va", "Virtual Address", 0, 8, 64, 0, UINT)                 \
  N(atomiceth, rkey, "atomiceth.r_key", "Remote Key", 8, 4, 32, 0, UINT)                 \
  N(atomiceth, swap_add, "atomiceth.swap_add", "Swap (or Add) Data", 12, 8, 64, 0, UINT) \
  N(atomiceth, compare, "atomiceth.compare", "Compare Data", 20, 8, 64, 0, UINT)

#define ORNIC_FIELDS_aeth(N, S, Y, V)                              \
  N(aeth, syndrome, "aeth.syndrome", "Syndrome", 0, 1, 8, 0, UINT) \
  N(aeth, msn, "aeth.msn", "Message Sequence Number", 1, 3, 24, 0, UINT)

#define ORNIC_FIELDS_atomicacketh(N, S, Y, V) \
  N(atomicacketh, orig, "atomicacketh.orig_rdata", "Original Remote Data", 0, 8, 64, 0, UINT)

/* PROTOCOL.md 3.4: the flag bits are ORNIC_OACK_* (headers.h). */
#define ORNIC_FIELDS_oacketh(N, S, Y, V)                                   \
  N(oacketh, flags, "oacketh.flags", "Flags", 0, 1, 8, 0, FLAGS)           \
  S(oacketh, "oacketh.addr_cached", "ADDR_CACHED", 0, 1, 0, FLAG, 0)       \
  S(oacketh, "oacketh.wqe_done", "WQE_DONE", 0, 1, 1, FLAG, 0)             \
  S(oacketh, "oacketh.flags_resv", "Reserved flags", 0, 6, 2, RESERVED, 0) \
  N(oacketh, resv, "oacketh.resv", "Reserved", 1, 1, 8, 0, RESERVED)       \
  N(oacketh, count, "oacketh.count", "Count", 2, 2, 16, 0, UINT)

/* PROTOCOL.md 3.5: the fixed part, then nblocks 16-bit blocks. The fast
 * path finds the block count at ORNIC_NAKETH_NBLOCKS_OFF before it decodes. */
#define ORNIC_NAKETH_NBLOCKS_OFF 4
#define ORNIC_FIELDS_naketh(N, S, Y, V)                                                          \
  N(naketh, reason, "naketh.reason", "Reason", 0, 1, 8, 0, UINT)                                 \
  N(naketh, trigger_psn, "naketh.trigger_psn", "Trigger PSN", 1, 3, 24, 0, PSN)                  \
  N(naketh, nblocks, "naketh.nblocks", "Bitmap blocks", ORNIC_NAKETH_NBLOCKS_OFF, 1, 8, 0, UINT) \
  N(naketh, base_psn, "naketh.base_psn", "Base PSN", 5, 3, 24, 0, PSN)                           \
  N(naketh, resv, "naketh.resv", "Reserved", 8, 1, 8, 0, RESERVED)                               \
  N(naketh, limit_psn, "naketh.limit_psn", "Limit PSN", 9, 3, 24, 0, PSN)                        \
  V(naketh, bitmap, nblocks, 2)

#define ORNIC_FIELDS_immdt(N, S, Y, V) \
  N(immdt, data, "immdt.data", "Immediate Data", 0, 4, 32, 0, UINT)

#define ORNIC_FIELDS_ieth(N, S, Y, V) \
  N(ieth, rkey, "ieth.r_key", "Invalidate R_Key", 0, 4, 32, 0, UINT)

#define ORNIC_FIELDS_cnp(N, S, Y, V) Y(cnp, resv, "cnp.resv", "Reserved", 0, 16, RESERVED)

/* For the lists' parameters a use does not need. */
#define ORNIC_FIELD_SKIP(...)

#endif
