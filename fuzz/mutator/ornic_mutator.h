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
 * mutations only (ornic_mut_last says "undecodable: bytes only"). Or a
 * sequence of frames in "frame records" form (ornic_mut_mutate_records);
 * and ornic_mut_fix repairs a frame another mutator damaged. */
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

/* 1 when ornic_mut_mutate mutates fields of in[0, len) (it decodes whole as
 * an Ethernet frame), 0 when it would make byte mutations only. */
int ornic_mut_decodes(const uint8_t *in, size_t len);

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

/* ---- Frame records: a sequence of frames, as a receiver of sprayed traffic sees it ----
 * The input is `prefix` bytes kept as they are (a harness's configuration),
 * then records: a 2-byte big-endian length n and n bytes. A record with
 * n >= 14 is a whole Ethernet frame (iCRC included, no FCS); one with n < 14
 * is a pause (the harness lets time pass; n = 0: one frame time). A last
 * record that runs past the end of the input is not whole: the outputs drop
 * it. docs/FUZZING.md, "Fuzz your own parser: the structure-aware mutator". */

/* Whole records in in[prefix, len) (0 when len <= prefix); *nframes, when
 * not NULL, gets how many of them are frames (n >= 14). Never reads past
 * in+len. */
size_t ornic_mut_records_count(const uint8_t *in, size_t len, size_t prefix, size_t *nframes);

/* One mutated variant of a records input into out (cap bytes): the prefix
 * copied, then mostly (7 in 10) one frame record, chosen at random, mutated
 * as ornic_mut_mutate mutates a frame (its length prefix rewritten), and
 * otherwise one change to the sequence, each a network event a receiver of
 * sprayed traffic meets (ORNIC paper, Sec. 2: the packets of one message
 * take many paths and arrive out of order, duplicated or not at all):
 *   "dup record i at j of n"      a copy of record i inserted later (a retransmission)
 *   "drop record i of n"          record i deleted (a loss)
 *   "swap records i and j of n"   two records trade places (out of order)
 *   "move record i to j of n"     record i arrives later
 *   "pause of k bytes at i"       a pause record inserted
 *   "unpause record i of n"       a pause record deleted
 * ornic_mut_last says which; a frame mutation as "record i of n: " and what
 * ornic_mut_mutate says (records counted from 1). An input without a frame
 * record gets a sequence change. Records that no longer fit cap are left
 * out, the last ones first; an input shorter than prefix gets byte
 * mutations ("short of the prefix: bytes only"). Never reads past in+len,
 * never writes past out+cap; in and out must not overlap. Returns the
 * output's length (0 when in or out is NULL, or len or cap is 0). */
size_t ornic_mut_mutate_records(ornic_mut *m, const uint8_t *in, size_t len, size_t prefix,
                                uint8_t *out, size_t cap);

/* Crossover of two records inputs (libFuzzer's CustomCrossOver, AFL++'s
 * add_buf): a's prefix and records with one record of b inserted ("cross:
 * record j of b at i"), or put in place of one of a's ("cross: record j of
 * b for record i"), or a's first records followed by b's from one on
 * ("cross: a[1,i) + b[j,n]"). b without whole records: as
 * ornic_mut_mutate_records on a. Same bounds as ornic_mut_mutate_records;
 * b's prefix is skipped. */
size_t ornic_mut_crossover_records(ornic_mut *m, const uint8_t *a, size_t alen, const uint8_t *b,
                                   size_t blen, size_t prefix, uint8_t *out, size_t cap);

/* ---- Repair: inputs another mutator (AFL++'s havoc) damaged ----
 * Rewrites in place, from the frame's real size, what a parser checks first:
 * the IPv4 total length and header checksum, or the IPv6 / GRH payload
 * length; the UDP length, the IPv6 UDP checksum and the iCRC (the last four
 * bytes). The headers are located by hand, so lengths damaged past decoding
 * do not stop it: EtherType after an optional 802.1Q/802.1ad tag; IPv4 with
 * version 4, IHL >= 5 and protocol 17, or IPv6 with version 6 and next
 * header 17, then UDP destination port 4791; or a GRH (EtherType 0x8915,
 * version 6, next header 0x1B); and room for a BTH and an iCRC. A frame
 * where they cannot be located is left alone. Then, for cfg.break_rate's
 * share of the frames it located, one consistency is broken on purpose as
 * ornic_mut_mutate breaks one (ornic_mut_last_broken says so); that choice
 * is a function of the seed and the frame's bytes, not of earlier calls: the
 * same input is always repaired the same way (AFL++ runs a queue entry
 * again and again). Returns 1 when the frame was located and rewritten, 0
 * when left alone; ornic_mut_last names the fields that changed ("fixed: ip
 * length, udp length, ipv4 checksum, icrc"; "fixed: nothing" when none did).
 * Never reads or writes outside frame[0, len). */
int ornic_mut_fix(ornic_mut *m, uint8_t *frame, size_t len);

/* ornic_mut_fix on every frame record of a records input, in place (prefix
 * and record lengths untouched). Returns how many frame records it located
 * and rewrote; ornic_mut_last_broken: whether one was broken on purpose. */
size_t ornic_mut_fix_records(ornic_mut *m, uint8_t *in, size_t len, size_t prefix);

#ifdef __cplusplus
}
#endif
#endif
