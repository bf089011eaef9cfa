/* SPDX-License-Identifier: MIT */
/* The seed writers of ornic-fuzz-seeds, one file per harness family. */
#ifndef ORNIC_FUZZ_SEEDS_H
#define ORNIC_FUZZ_SEEDS_H

#include <stddef.h>
#include <stdint.h>

#include <ornic/ornic.h>

/* Writes prefix then data to OUTDIR/target/<name>. */
void seed_write(const char *target, const uint8_t *prefix, size_t plen, const uint8_t *data,
                size_t len, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* gzip of in into out; its size, or 0. */
size_t seed_gzip(const uint8_t *in, size_t len, uint8_t *out, size_t cap);

/* A typical frame of `opcode` (headers filled with recognisable values,
 * payload of payload_len bytes where the opcode allows one) into out. */
size_t seed_frame(uint8_t *out, size_t cap, ornic_link link, int ipv, uint8_t opcode,
                  size_t payload_len);

/* Recognisable values in every header field, and a payload where allowed. */
void seed_fill(ornic_frame *f, uint8_t opcode, size_t plen);
extern uint8_t seed_ones[2 * ORNIC_NAKETH_MAX_BLOCKS]; /* all bits set */
extern uint8_t seed_payload[4096];                     /* a counting pattern */

void seeds_frames(void);    /* fuzz_frame and fuzz_roundtrip */
void seeds_ext(void);       /* fuzz_ext */
void seeds_capture(void);   /* fuzz_capture */
void seeds_responder(void); /* fuzz_responder */

#endif
