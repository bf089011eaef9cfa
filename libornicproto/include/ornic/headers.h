/* SPDX-License-Identifier: MIT */
/* BTH and extension headers: value structs and their byte-exact codecs.
 *
 * Every decoder has the form  int X_decode(X *out, const uint8_t *p, size_t len)
 * and returns the number of bytes consumed (> 0), ORNIC_ERR_TRUNCATED when
 * len is too short, ORNIC_ERR_MALFORMED for a NAKETH with 0 blocks (the
 * fixed part is then filled in), or ORNIC_ERR_INVALID_ARG for a header bit
 * that is not exactly one ORNIC_HDR_* bit.
 * Every encoder has the form  ornic_ssize X_encode(uint8_t *out, size_t cap, const X *in)
 * and returns the bytes written, ORNIC_ERR_INVALID_ARG when a value does not
 * fit its field (or a NAKETH has 0 blocks or no bitmap), else ORNIC_ERR_NOBUF
 * when cap is too small; every value is checked before the first byte is
 * written, so a failed encode leaves `out` untouched.
 * Pointers must be non-NULL (p/out may be anything when len/cap is 0 and the
 * call fails for that reason).
 * Reserved bits are kept, so decode-then-encode of a header reproduces its
 * bytes. (Whole frames re-encode byte for byte when they follow
 * docs/PROTOCOL.md section 2: no IPv4 options, zero pad bytes.) */
#ifndef ORNIC_HEADERS_H
#define ORNIC_HEADERS_H

#include <stddef.h>
#include <stdint.h>

#include "ornic/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef ptrdiff_t ornic_ssize;

#define ORNIC_BTH_LEN 12
#define ORNIC_ICRC_LEN 4
#define ORNIC_ROCEV2_UDP_PORT 4791

typedef struct {
  uint8_t opcode;
  uint8_t se;     /* 1 bit */
  uint8_t m;      /* 1 bit, MigReq */
  uint8_t padcnt; /* 2 bits */
  uint8_t tver;   /* 4 bits */
  uint16_t pkey;
  uint8_t fecn;    /* 1 bit; byte 4 is variant (masked by the iCRC) */
  uint8_t becn;    /* 1 bit */
  uint8_t resv6;   /* 6 bits */
  uint32_t destqp; /* 24 bits */
  uint8_t ackreq;  /* 1 bit */
  uint8_t resv7;   /* 7 bits */
  uint32_t psn;    /* 24 bits */
} ornic_bth;

typedef struct {
  uint8_t resv;
  uint32_t een;
} ornic_rdeth;
typedef struct {
  uint32_t qkey;
  uint8_t resv;
  uint32_t srcqp;
} ornic_deth;
typedef struct {
  uint8_t resv;
  uint32_t xrcsrq;
} ornic_xrceth;
typedef struct {
  uint32_t value;
} ornic_feth; /* kept whole: its sub-fields are IBA 1.5's business */
typedef struct {
  uint64_t va;
  uint32_t rkey;
  uint32_t dmalen;
} ornic_reth;
/* ORNIC: byte offset of this packet's payload within its WQE. */
typedef struct {
  uint32_t offset;
} ornic_offeth;
typedef struct {
  uint64_t va;
  uint32_t rkey;
  uint64_t swap_add;
  uint64_t compare;
} ornic_atomiceth;
typedef struct {
  uint8_t syndrome;
  uint32_t msn;
} ornic_aeth;
typedef struct {
  uint64_t orig;
} ornic_atomicacketh;

/* ORNIC ACK extension (OACKETH) flags. */
enum {
  ORNIC_OACK_ADDR_CACHED = 0x01, /* responder holds Start_Addr of the WQE in flight */
  ORNIC_OACK_WQE_DONE = 0x02     /* the cumulative PSN completes a WQE (MSN advanced) */
};
typedef struct {
  uint8_t flags;
  uint8_t resv;
  uint16_t count;
} ornic_oacketh;

/* ORNIC NAK reasons. */
enum {
  ORNIC_NAKETH_OTD_EXCEEDED = 1,   /* a packet arrived more than OTD past the expected PSN */
  ORNIC_NAKETH_TIMEOUT = 2,        /* responder-side timer, nothing newer arrived */
  ORNIC_NAKETH_LAST_INCOMPLETE = 3 /* Last arrived but the WQE has holes */
};
#define ORNIC_NAKETH_FIXED_LEN 12
#define ORNIC_NAKETH_MAX_BLOCKS 255
/* NAKETH (docs/PROTOCOL.md 3.5): 12 fixed bytes, then nblocks big-endian
 * 16-bit blocks. Bit i (i = 0 is the least significant) of block k set means
 * PSN base_psn + 16k + i was received. limit_psn is the loss limit: the lost
 * set is Base and the clear bits before it (ornic_naketh_lost_span), so the
 * NAK alone says what it asks for. bitmap is a view into the decoded bytes
 * (or, for encoding, the caller's 2*nblocks big-endian bytes). */
typedef struct {
  uint8_t reason;
  uint32_t trigger_psn; /* 24 bits; informative since spec 0.2 */
  uint8_t nblocks;      /* 1..255 */
  uint32_t base_psn;    /* 24 bits */
  uint8_t resv;         /* reserved byte before the Limit PSN, kept */
  uint32_t limit_psn;   /* 24 bits */
  const uint8_t *bitmap;
} ornic_naketh;
typedef struct {
  uint32_t data;
} ornic_immdt;
typedef struct {
  uint32_t rkey;
} ornic_ieth;
typedef struct {
  uint8_t resv[16];
} ornic_cnp;

/* All extension headers of one packet; `present` says which are valid. */
typedef struct {
  uint16_t present; /* ORNIC_HDR_* mask */
  ornic_rdeth rdeth;
  ornic_deth deth;
  ornic_xrceth xrceth;
  ornic_feth feth;
  ornic_reth reth;
  ornic_offeth offeth;
  ornic_atomiceth atomiceth;
  ornic_aeth aeth;
  ornic_atomicacketh atomicacketh;
  ornic_oacketh oacketh;
  ornic_naketh naketh;
  ornic_immdt immdt;
  ornic_ieth ieth;
  ornic_cnp cnp;
} ornic_ext;

ORNIC_API int ornic_bth_decode(ornic_bth *out, const uint8_t *p, size_t len);
ORNIC_API ornic_ssize ornic_bth_encode(uint8_t *out, size_t cap, const ornic_bth *in);

/* One extension header selected by its ORNIC_HDR_* bit, into/from `ext`.
 * decode also sets the bit in ext->present; NAKETH additionally returns
 * ORNIC_ERR_MALFORMED for a block count of 0. */
ORNIC_API int ornic_ext_decode_one(ornic_ext *ext, uint16_t hdr_bit, const uint8_t *p, size_t len);
ORNIC_API ornic_ssize ornic_ext_encode_one(uint8_t *out, size_t cap, const ornic_ext *ext,
                                           uint16_t hdr_bit);

/* Every header in `hdrs`, in wire order. decode returns the total consumed. */
ORNIC_API int ornic_ext_decode(ornic_ext *ext, uint16_t hdrs, const uint8_t *p, size_t len);
ORNIC_API ornic_ssize ornic_ext_encode(uint8_t *out, size_t cap, const ornic_ext *ext,
                                       uint16_t hdrs);
/* Bytes `hdrs` take on the wire for this ext (NAKETH depends on nblocks). */
ORNIC_API size_t ornic_ext_size(const ornic_ext *ext, uint16_t hdrs);

/* The ORNIC headers by name (thin wrappers, for fuzzers and readers). */
ORNIC_API int ornic_offeth_decode(ornic_offeth *out, const uint8_t *p, size_t len);
ORNIC_API ornic_ssize ornic_offeth_encode(uint8_t *out, size_t cap, const ornic_offeth *in);
ORNIC_API int ornic_oacketh_decode(ornic_oacketh *out, const uint8_t *p, size_t len);
ORNIC_API ornic_ssize ornic_oacketh_encode(uint8_t *out, size_t cap, const ornic_oacketh *in);
ORNIC_API int ornic_naketh_decode(ornic_naketh *out, const uint8_t *p, size_t len);
ORNIC_API ornic_ssize ornic_naketh_encode(uint8_t *out, size_t cap, const ornic_naketh *in);

/* NAK bitmap access. block k (0 <= k < nblocks) as a host-order value. */
ORNIC_API uint16_t ornic_naketh_block(const ornic_naketh *nak, unsigned k);
/* 1 received, 0 missing, -1 outside the bitmap (PSN arithmetic wraps). */
ORNIC_API int ornic_naketh_psn_state(const ornic_naketh *nak, uint32_t psn);
/* The lost set of docs/PROTOCOL.md 4.4, what the requester retransmits:
 * Base itself, plus every PSN Base + d with 0 < d < span whose bit is 0.
 * ornic_naketh_lost_span returns span: the Limit PSN minus Base, at most
 * 16 * nblocks and at least 1 (a limit at or before Base, or a NAK without
 * blocks, declares Base alone; a limit past the bitmap, every clear bit). It reads only the NAK: the responder wrote its
 * loss limit into the Limit PSN (the trigger minus its OTD for reason 1). */
ORNIC_API uint32_t ornic_naketh_lost_span(const ornic_naketh *nak);
/* 1 when psn is in the lost set, 0 when not (including outside the bitmap). */
ORNIC_API int ornic_naketh_psn_lost(const ornic_naketh *nak, uint32_t psn);
/* Writes n blocks as big-endian bytes into out (2n bytes) for encoding. */
ORNIC_API void ornic_naketh_bitmap_pack(uint8_t *out, const uint16_t *blocks, unsigned n);

/* AETH syndrome (IBA 9.7.5.1, docs/IBA_NOTES.md section 3): bits 7:5
 * give the type; the low 5 bits are credits (ACK), a timer (RNR NAK) or the
 * NAK code. Types 0x40 and 0x80-0xE0 are reserved. */
enum { ORNIC_AETH_ACK = 0x00, ORNIC_AETH_RNR_NAK = 0x20, ORNIC_AETH_NAK = 0x60 };
/* An ACK whose credit field is 0x1F: "no credit count" (end-to-end flow
 * control unused), what RoCE responders send (docs/IBA_NOTES.md section 3). */
#define ORNIC_AETH_ACK_NO_CREDIT 0x1f
/* The NAK codes (type ORNIC_AETH_NAK); 0x65-0x7F are reserved. */
enum {
  ORNIC_AETH_NAK_PSN_SEQ = 0x60,       /* PSN sequence error: go-back-N from the MSN's PSN */
  ORNIC_AETH_NAK_INVALID_REQ = 0x61,   /* invalid request */
  ORNIC_AETH_NAK_REMOTE_ACCESS = 0x62, /* remote access error */
  ORNIC_AETH_NAK_REMOTE_OP = 0x63,     /* remote operational error */
  ORNIC_AETH_NAK_INVALID_RD = 0x64     /* invalid RD request */
};
/* ORNIC_AETH_ACK, _RNR_NAK, _NAK, or a reserved type (0x40, 0x80-0xE0). */
static inline uint8_t ornic_aeth_type(uint8_t syndrome) { return syndrome & 0xe0; }
/* The low 5 bits: credit count, RNR timer or NAK code. */
static inline uint8_t ornic_aeth_value(uint8_t syndrome) { return syndrome & 0x1f; }
/* "ACK", "RNR NAK", "NAK PSN sequence error", ..., "NAK reserved code",
 * "reserved": static text, never NULL. */
ORNIC_API const char *ornic_aeth_syndrome_name(uint8_t syndrome);
/* "OTD exceeded", "timeout", "Last seen, WQE incomplete" or "reserved":
 * static text, never NULL. */
ORNIC_API const char *ornic_naketh_reason_name(uint8_t reason);

/* The lost set of a NAK (docs/PROTOCOL.md 4.4), walked in PSN order, in runs
 * of consecutive PSNs: the one walk every tool needs (what the requester
 * resends, what a reader shows, what the analysis engine marks lost).
 *
 *   ornic_naketh_lost_iter it;
 *   uint32_t first, n;
 *   ornic_naketh_lost_begin(&it, nak);
 *   while (ornic_naketh_lost_next_run(&it, &first, &n)) ...  // PSNs first .. first+n-1
 *
 * `nak` must stay valid while the iterator is used. Never allocates. */
typedef struct {
  const ornic_naketh *nak;
  uint32_t span;        /* ornic_naketh_lost_span */
  uint32_t d;           /* next distance from Base to look at */
  uint64_t reserved[2]; /* docs/ABI.md */
} ornic_naketh_lost_iter;
ORNIC_API void ornic_naketh_lost_begin(ornic_naketh_lost_iter *it, const ornic_naketh *nak);
/* The next run: 1 with *first (24-bit PSN, wrapping) and *count >= 1, or 0
 * when the set is exhausted. */
ORNIC_API int ornic_naketh_lost_next_run(ornic_naketh_lost_iter *it, uint32_t *first,
                                         uint32_t *count);
/* Total PSNs in the lost set (1 .. span). */
ORNIC_API uint32_t ornic_naketh_lost_count(const ornic_naketh *nak);

#ifdef __cplusplus
}
#endif
#endif
