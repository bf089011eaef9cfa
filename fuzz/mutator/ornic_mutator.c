/* SPDX-License-Identifier: MIT */
/* The mutator's pipeline: decode (ornic_frame_decode), 1..max_steps field
 * mutations (mut_fields.c), re-encode (ornic_frame_encode: lengths, IPv4
 * checksum, PadCnt, UDP checksum and iCRC computed), wire patches
 * (mut_wire.c), byte mutations at byte_rate inside BTH..iCRC with the iCRC
 * fixed again, and for break_rate's share one consistency broken on purpose.
 * Allocation happens in ornic_mut_new only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mut_internal.h"

#define MUT_MAX_STEPS 64

void ornic_mut_cfg_default(ornic_mut_cfg *c) {
  memset(c, 0, sizeof *c);
  c->byte_rate = 0.1;
  c->break_rate = 0;
  c->max_steps = 4;
}

static int rate_ok(double r) { return r >= 0 && r <= 1; } /* false for NaN */

ornic_mut *ornic_mut_new(const ornic_mut_cfg *cfg) {
  if (!cfg || !rate_ok(cfg->byte_rate) || !rate_ok(cfg->break_rate) || cfg->max_steps == 0 ||
      cfg->max_steps > MUT_MAX_STEPS || cfg->break_kinds > 0xf)
    return NULL;
  for (size_t i = 0; i < sizeof cfg->reserved / sizeof cfg->reserved[0]; i++)
    if (cfg->reserved[i]) return NULL;
  ornic_mut *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->cfg = *cfg;
  m->rng.s = cfg->seed;
  return m;
}

void ornic_mut_free(ornic_mut *m) { free(m); }

void ornic_mut_reseed(ornic_mut *m, uint64_t seed) { m->rng.s = seed; }

const char *ornic_mut_last(const ornic_mut *m) { return m->log; }

int ornic_mut_last_broken(const ornic_mut *m) { return m->broken; }

void mut_log(ornic_mut *m, const char *fmt, ...) {
  if (m->log_len + 3 >= sizeof m->log) return;
  if (m->log_len) {
    memcpy(m->log + m->log_len, "; ", 3);
    m->log_len += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(m->log + m->log_len, sizeof m->log - m->log_len, fmt, ap);
  va_end(ap);
  if (n > 0)
    m->log_len +=
        (size_t)n < sizeof m->log - m->log_len ? (size_t)n : sizeof m->log - m->log_len - 1;
}

void mut_begin(ornic_mut *m) {
  m->log[0] = 0;
  m->log_len = 0;
  m->broken = 0;
  m->wire_op_set = 0;
  m->wire_padcnt = -1;
  m->wire_reorder = 0;
}

/* Input that is not a whole RoCE frame over Ethernet: byte mutations of a
 * copy (cut to cap), nothing fixed. */
static size_t bytes_only(ornic_mut *m, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                         const char *why) {
  size_t n = len < cap ? len : cap;
  memcpy(out, in, n);
  mut_log(m, "%s: bytes only", why);
  mut_bytes(m, out, 0, n);
  return n;
}

/* Takes the decoded frame's variable parts into m's own buffers. */
static int load(ornic_mut *m, const uint8_t *in, size_t len) {
  int rc = ornic_frame_decode(&m->f, in, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  if (rc != ORNIC_OK || m->f.payload_len > MUT_MAX_FRAME - 256) return 0;
  if (m->f.payload_len) memcpy(m->pay, m->f.payload, m->f.payload_len);
  m->f.payload = m->pay;
  if (m->f.ext.present & ORNIC_HDR_NAKETH) {
    memcpy(m->bitmap, m->f.ext.naketh.bitmap, 2u * m->f.ext.naketh.nblocks);
  }
  m->f.ext.naketh.bitmap = m->bitmap;
  return 1;
}

int ornic_mut_decodes(const uint8_t *in, size_t len) {
  ornic_frame f;
  return in && len &&
         ornic_frame_decode(&f, in, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT) == ORNIC_OK &&
         f.payload_len <= MUT_MAX_FRAME - 256;
}

/* One field mutation that still encodes into cap; undone when it does not. */
static void field_step(ornic_mut *m, size_t cap) {
  ornic_frame keep = m->f;
  size_t keep_log = m->log_len;
  int keep_op_set = m->wire_op_set, keep_pad = m->wire_padcnt, keep_reorder = m->wire_reorder;
  uint8_t keep_op = m->wire_op;
  for (int tries = 0; tries < 8; tries++)
    if (mut_field_step(m)) break;
  size_t need = ornic_frame_encode_capacity(&m->f);
  if (need && need <= cap) return;
  m->f = keep;
  m->log_len = keep_log;
  m->log[keep_log] = 0;
  m->wire_op_set = keep_op_set;
  m->wire_op = keep_op;
  m->wire_padcnt = keep_pad;
  m->wire_reorder = keep_reorder;
}

size_t ornic_mut_mutate(ornic_mut *m, const uint8_t *in, size_t len, uint8_t *out, size_t cap) {
  mut_begin(m);
  if (!in || !out || len == 0 || cap == 0) return 0;
  if (!load(m, in, len)) return bytes_only(m, in, len, out, cap, "undecodable");
  size_t need = ornic_frame_encode_capacity(&m->f);
  if (!need || need > cap) return bytes_only(m, in, len, out, cap, "over cap");
  unsigned steps = 1 + mut_rng_below(&m->rng, m->cfg.max_steps);
  for (unsigned i = 0; i < steps; i++) field_step(m, cap);
  ornic_ssize n = ornic_frame_encode(out, cap, &m->f);
  if (n <= 0) return bytes_only(m, in, len, out, cap, "not encodable");
  mut_wire_patch(m, out, (size_t)n);
  if (mut_rng_chance(&m->rng, m->cfg.byte_rate)) {
    ornic_frame f;
    (void)ornic_frame_decode(&f, out, (size_t)n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
    if (f.icrc_present) {
      mut_bytes(m, out, f.bth_off, f.icrc_off);
      mut_wire_fix_icrc(out, (size_t)n);
    }
  }
  if (mut_rng_chance(&m->rng, m->cfg.break_rate)) {
    mut_wire_break(m, out, (size_t)n);
    m->broken = 1;
  } else {
    mut_log(m, "icrc fixed");
  }
  return (size_t)n;
}

/* libFuzzer's CustomCrossOver: a's headers with b's payload, or a's frame
 * with b's BTH transport fields (opcode, PSN, QP). */
size_t ornic_mut_crossover(ornic_mut *m, const uint8_t *a, size_t alen, const uint8_t *b,
                           size_t blen, uint8_t *out, size_t cap) {
  mut_begin(m);
  if (!a || !b || !out || alen == 0 || cap == 0) return 0;
  ornic_frame fb;
  int rb = blen ? ornic_frame_decode(&fb, b, blen, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT)
                : ORNIC_ERR_TRUNCATED;
  if (!load(m, a, alen) || rb != ORNIC_OK || fb.payload_len > MUT_MAX_FRAME - 256) {
    size_t cut = mut_rng_below(&m->rng, (uint32_t)(alen < cap ? alen : cap) + 1);
    size_t from_b = blen < cap - cut ? blen : cap - cut;
    memcpy(out, a, cut);
    if (from_b) memcpy(out + cut, b, from_b);
    mut_log(m, "undecodable: byte splice at %zu", cut);
    return cut + from_b;
  }
  ornic_frame keep = m->f;
  if (mut_rng_below(&m->rng, 2) &&
      (ornic_opcode_info_get(m->f.bth.opcode)->flags & ORNIC_OPF_PAYLOAD)) {
    if (fb.payload_len) memcpy(m->pay, fb.payload, fb.payload_len);
    m->f.payload_len = fb.payload_len;
    mut_log(m, "cross: payload of b (%zu bytes)", fb.payload_len);
  } else {
    m->f.bth.psn = fb.bth.psn;
    m->f.bth.destqp = fb.bth.destqp;
    mut_log(m, "cross: psn 0x%06x, qp 0x%06x of b", fb.bth.psn, fb.bth.destqp);
  }
  size_t need = ornic_frame_encode_capacity(&m->f);
  if (!need || need > cap) m->f = keep;
  ornic_ssize n = ornic_frame_encode(out, cap, &m->f);
  if (n <= 0) return bytes_only(m, a, alen, out, cap, "not encodable");
  mut_log(m, "icrc fixed");
  return (size_t)n;
}
