/* SPDX-License-Identifier: MIT */
/* The structure-aware RoCE/ORNIC mutator (issue 32): decodes a frame with
 * libornicproto's public API, changes fields with protocol knowledge and
 * re-encodes it with every length, checksum and the iCRC consistent, or, for
 * a share of the outputs (break_rate), broken on purpose. Deterministic from
 * the seed. AFL++ (afl_mutator.c) and libFuzzer (ornic_libfuzzer_mutator.h)
 * entry points sit on this interface; fuzz/mutator/README.md says more.
 *
 * Inputs: an Ethernet frame (RoCEv2 over IPv4 or IPv6, RoCEv1, with or
 * without a VLAN tag). Input that does not decode as such gets plain byte
 * mutations only (ornic_mut_last says "undecodable: bytes only"). */
#ifndef ORNIC_MUTATOR_H
#define ORNIC_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint64_t seed;        /* every choice derives from it: same seed + same input = same output */
  double byte_rate;     /* share of outputs that also get plain byte mutations (default 0.1) */
  double break_rate;    /* share of outputs left with iCRC / lengths / checksums broken on purpose
                           (default 0: every output re-encoded consistent) */
  unsigned max_steps;   /* field mutations per output: 1..max_steps (default 4) */
  uint32_t break_kinds; /* what break_rate may break: ORNIC_MUT_BREAK_* bits; 0: any of them */
  uint32_t reserved[7]; /* zero */
} ornic_mut_cfg;

/* The consistencies an output can be broken in (ornic_mut_cfg.break_kinds). The
 * iCRC covers the IP and UDP lengths, so breaking one of them breaks the iCRC
 * too; the IPv4 header checksum is masked in it (docs/PROTOCOL.md 2.6). A
 * frame none of the chosen kinds applies to (IPv4 checksum, IPv6 frame) gets
 * its iCRC broken. */
enum {
  ORNIC_MUT_BREAK_ICRC = 1u << 0,    /* the iCRC's four bytes */
  ORNIC_MUT_BREAK_IP_LEN = 1u << 1,  /* IPv4 total length (its checksum kept right) or IPv6
                                        payload length */
  ORNIC_MUT_BREAK_UDP_LEN = 1u << 2, /* the UDP length */
  ORNIC_MUT_BREAK_IP_CSUM = 1u << 3  /* the IPv4 header checksum */
};

/* byte_rate 0.1, break_rate 0, max_steps 4, break_kinds 0 (any), seed 0, reserved zero. */
void ornic_mut_cfg_default(ornic_mut_cfg *c);

typedef struct ornic_mut ornic_mut; /* opaque */

/* NULL: out of memory or bad cfg (a rate outside [0, 1] or NaN, max_steps 0
 * or over 64, a reserved word not zero). The only call that allocates. */
ornic_mut *ornic_mut_new(const ornic_mut_cfg *cfg);
void ornic_mut_free(ornic_mut *m);

/* One mutated variant of the frame in[0..len) (an Ethernet frame) into out
 * (cap bytes). Returns its length, 0 when it cannot (cap or len 0). A frame
 * whose re-encoding would not fit cap gives its first cap bytes with byte
 * mutations ("over cap: bytes only"); a field mutation that would make the
 * frame outgrow cap is not made.
 * Never reads past in+len, never writes past out+cap. Consecutive calls on
 * the same input give different variants; the sequence is a function of
 * the seed and the inputs. in and out must not overlap. */
size_t ornic_mut_mutate(ornic_mut *m, const uint8_t *in, size_t len, uint8_t *out, size_t cap);

/* What the last call changed, one line of text
 * ("opcode 0x0a->0x06; psn 0x000010->0xffffff; icrc fixed"). */
const char *ornic_mut_last(const ornic_mut *m);

/* Whether the last output was left broken on purpose (break_rate). */
int ornic_mut_last_broken(const ornic_mut *m);

/* Added by M1 beyond the agreed interface: */

/* Splice two frames (libFuzzer's CustomCrossOver): the headers of a with the
 * payload of b (or of a with b's BTH fields), re-encoded consistent.
 * Falls back to a byte splice when either does not decode. Same bounds as
 * ornic_mut_mutate. */
size_t ornic_mut_crossover(ornic_mut *m, const uint8_t *a, size_t alen, const uint8_t *b,
                           size_t blen, uint8_t *out, size_t cap);

/* Restart the generator from a new seed (AFL++/libFuzzer hand one per call). */
void ornic_mut_reseed(ornic_mut *m, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif
