/* SPDX-License-Identifier: MIT */
/* A REFERENCE parse for ornic-bench, not a decoder: the least work a receive
 * path must do to accept a RoCEv2 frame the way ornic_frame_decode does, so
 * the benchmark can say what share of that speed the library reaches.
 * Used nowhere else; real code calls ornic_frame_decode. */
#ifndef ORNIC_BENCH_REF_H
#define ORNIC_BENCH_REF_H

#include <stddef.h>
#include <stdint.h>

/* What a receive path acts on; the fields frame_digest folds. */
typedef struct {
  const uint8_t *payload;
  uint32_t payload_len;
  uint32_t psn, destqp;
  uint16_t sport;
  uint16_t hdrs; /* the opcode's ORNIC_HDR_* mask: ornic_frame.ext.present on a good frame */
  uint8_t opcode;
} bench_ref_pkt;

/* Fills the per-opcode table from the library's opcode table, once, before
 * bench_ref_parse: a parser's constant data, not part of its per-frame cost. */
void bench_ref_init(void);

/* Ethernet II (at most one 802.1Q/802.1ad tag), IPv4 or IPv6, UDP to 4791,
 * BTH, extension headers, payload, pad, iCRC, with the checks
 * ornic_frame_decode makes on such a frame: every length against the bytes
 * and against each other, IP version, IHL, protocol, fragment, UDP port,
 * opcode known, NAKETH block count, ORNIC word alignment, PadCnt, payload on
 * an opcode that has none. Returns 0, or -1 for anything ornic_frame_decode
 * would not return ORNIC_OK for (no partial results: it only has to be as
 * strict, not as informative). */
int bench_ref_parse(bench_ref_pkt *out, const uint8_t *p, size_t len);

#endif
