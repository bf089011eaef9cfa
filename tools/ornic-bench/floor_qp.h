/* SPDX-License-Identifier: MIT */
/* The decode floor's per-QP counters: an open-addressing hash table keyed
 * by (source address, destination address, destination QP), the least
 * state a per-conversation report needs. */
#ifndef FLOOR_QP_H
#define FLOOR_QP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t src, dst, qpn; /* the key; qpn 0xffffffff marks an empty slot */
  uint32_t next_psn;      /* the PSN after the last one seen */
  uint64_t packets, bytes;
  uint64_t psn_jumps; /* packets whose PSN was not the one expected */
  uint64_t icrc_bad;
} floor_qp;

typedef struct {
  floor_qp *slot;
  size_t mask, used;
} floor_qp_table;

int floor_qp_init(floor_qp_table *t);
/* The counters of a key, created at its first packet; NULL if out of memory. */
floor_qp *floor_qp_get(floor_qp_table *t, uint32_t src, uint32_t dst, uint32_t qpn);
void floor_qp_free(floor_qp_table *t);

#endif
