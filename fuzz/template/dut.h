/* SPDX-License-Identifier: MIT */
/* The one function a user of the differential harness writes (README.md here;
 * docs/FUZZING.md, "Fuzz your own parser: the differential harness"): the
 * parser under test, the DUT, says what it made of one frame, and
 * diff_harness.c compares that with what libornicproto makes of it. */
#ifndef DUT_H
#define DUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dut_verdict.version: the layout below. A later harness that adds fields
 * takes them from `reserved` and raises the version; it compares only the
 * fields of the version the DUT wrote. */
#define DUT_VERDICT_VERSION 1

/* dut_verdict.accepted */
enum {
  DUT_REJECT = 0, /* the DUT drops the frame: a header or length it does not accept, a bad iCRC */
  DUT_ACCEPT = 1, /* every check passed: the frame would reach the DUT's transport logic */
  DUT_SKIP = 2    /* not comparable: a frame outside what the DUT handles (IPv6, a VLAN tag,
                     RoCEv1, an opcode it does not implement), or dropped for a rule that
                     libornicproto does not check (the IPv4 header checksum: PROTOCOL.md D11) */
};

/* dut_verdict.icrc_ok */
enum {
  DUT_ICRC_BAD = 0,
  DUT_ICRC_OK = 1,
  DUT_ICRC_UNCHECKED = 2 /* the DUT stopped before its iCRC check (or has none) */
};

typedef struct {
  uint32_t version;      /* DUT_VERDICT_VERSION; the harness sets it before the call */
  uint8_t accepted;      /* DUT_REJECT, DUT_ACCEPT, DUT_SKIP */
  uint8_t icrc_ok;       /* DUT_ICRC_BAD, DUT_ICRC_OK, DUT_ICRC_UNCHECKED */
  uint8_t opcode;        /* BTH OpCode */
  uint8_t resv0;         /* zero */
  uint32_t psn;          /* BTH PSN, 24 bits */
  uint32_t destqp;       /* BTH DestQP, 24 bits */
  uint32_t payload_len;  /* payload bytes: after the extension headers, without the pad
                            (PROTOCOL.md 2.5) and the iCRC */
  uint32_t reserved[11]; /* zero: fields of later versions */
} dut_verdict;

/* Parse one Ethernet frame (no FCS; Ethernet padding may follow the IP
 * datagram) and fill *v. The harness zeroes *v and sets v->version and
 * v->icrc_ok = DUT_ICRC_UNCHECKED first, so a DUT fills only what it knows. Called once per input, from one thread;
 * frame[0..len) is readable and nothing past it (the fuzzer's sanitizers
 * catch a read past the end). opcode, psn, destqp and payload_len are
 * compared only when both the DUT and libornicproto accept the frame.
 * Returns 0, or a negative value when the DUT itself failed (out of memory,
 * a simulator that did not start): the harness then aborts. */
int dut_parse(const uint8_t *frame, size_t len, dut_verdict *v);

#ifdef __cplusplus
}
#endif
#endif
