/* SPDX-License-Identifier: MIT */
/* The end-to-end integrity check of one WQE, done as its data arrives. The
 * source bytes are a pure function of (QP key, address) (pattern.h), so the
 * receiver compares each packet's payload with the source at the address it
 * places it at, the moment it places it, and keeps no copy of the WQE: per
 * WQE only a bit per packet (verified) and a count. A WQE is verified when
 * every one of its packets was compared once, i.e. every byte of it; a byte
 * that differs, a packet placed twice or a WQE completed with a packet never
 * compared is an integrity failure. Memory: n / 8 bytes for an n-packet WQE,
 * not the WQE's size (1000 QPs of 1 MiB WQEs needed 1 GB before). */
#ifndef PCAPGEN_VERIFY_H
#define PCAPGEN_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t key, addr, len; /* the source memory, the WQE's first byte, its bytes */
  uint32_t pmtu, n;        /* packet size (the last may be shorter), packets */
  uint32_t done;           /* packets verified */
  uint8_t *bits;           /* one per packet: verified; kept for the QP's next WQE */
  uint32_t cap;            /* packets bits can hold */
} wqe_verify;

/* What wv_place found. */
enum {
  WV_OK = 0,   /* the bytes are the source's */
  WV_BAD = 1,  /* a byte differs, or the packet has the wrong length or index */
  WV_TWICE = 2 /* this packet was verified already: the engine placed it twice */
};

/* A QP's verifier before its first WQE (holds no memory). */
void wv_init(wqe_verify *v);

/* A new WQE: len bytes at addr of the memory with pattern key `key`, sent
 * in packets of pmtu bytes. 0, or -1 when out of memory. */
int wv_start(wqe_verify *v, uint64_t key, uint64_t addr, uint64_t len, uint32_t pmtu);

/* The payload of packet idx (bytes idx * pmtu ...) is being placed: compares
 * its n bytes with the source. WV_BAD sets *bad_off to the offset in the WQE
 * of the first byte that differs (or that is missing or extra). */
int wv_place(wqe_verify *v, uint32_t idx, const uint8_t *payload, size_t n, uint64_t *bad_off);

/* Whether every packet of the WQE was verified. */
static inline bool wv_complete(const wqe_verify *v) { return v->done == v->n; }

/* Frees the bits. */
void wv_free(wqe_verify *v);

/* The check of every WRITE receiver (ornic's and roce's responders, the
 * research profiles' rxq), with the one wording of its failures: wv_place,
 * and on WV_BAD or WV_TWICE the run fails (sim_fail) naming the WQE's VA,
 * QP index q, and the byte or packet. true when the bytes are the source's. */
typedef struct sim sim;
bool wv_place_write(wqe_verify *v, sim *s, unsigned q, uint32_t idx, const uint8_t *payload,
                    size_t n);

/* At a WRITE's completion: true when every packet was verified, else the
 * run fails naming how many were. */
bool wv_complete_write(const wqe_verify *v, sim *s, unsigned q);

#endif
