/* SPDX-License-Identifier: MIT */
/* Frame records (ornic_mutator.h): a prefix, then 2-byte big-endian lengths
 * each followed by a whole Ethernet frame or, under 14 bytes, a pause. The
 * mutator changes one frame record with the frame pipeline or the sequence
 * itself: a duplicate, a loss, two records out of order, a record moved
 * later, a pause added or removed, the events a receiver of sprayed traffic
 * meets (ORNIC paper, Sec. 2). The output is written as an order of source
 * records (m->order), so that every operation is a permutation with at most
 * one record added or dropped, and cap is checked in one place (emit). */
#include <string.h>

#include "mut_internal.h"

#define MUT_PAUSE_MAX 13 /* a record under 14 bytes is a pause */

/* Order entries: a record of the first input (< MUT_MAX_RECORDS), of the
 * second (MUT_MAX_RECORDS + index), or one of these. */
enum { ORD_PAUSE = 0xfffe, ORD_FRAME = 0xffff };

static size_t be16(const uint8_t *p) { return (size_t)p[0] << 8 | p[1]; }

void mut_records_parse(mut_records *r, const uint8_t *in, size_t len, size_t prefix) {
  r->n = r->nframes = 0;
  size_t at = prefix < len ? prefix : len;
  r->tail_off = at;
  while (len - at >= 2 && be16(in + at) <= len - at - 2) {
    size_t n = be16(in + at);
    if (r->n < MUT_MAX_RECORDS) {
      r->off[r->n] = (uint32_t)(at + 2);
      r->len[r->n] = (uint16_t)n;
      r->nframes += n >= 14;
      r->n++;
      r->tail_off = at + 2 + n;
    }
    at += 2 + n;
  }
  r->tail_end = at;
}

size_t ornic_mut_records_count(const uint8_t *in, size_t len, size_t prefix, size_t *nframes) {
  size_t n = 0, frames = 0, at = prefix;
  if (in && at < len)
    while (len - at >= 2 && be16(in + at) <= len - at - 2) {
      frames += be16(in + at) >= 14;
      at += 2 + be16(in + at);
      n++;
    }
  if (nframes) *nframes = frames;
  return n;
}

/* Where the output goes; `full` once a record did not fit (the later ones
 * are dropped too, so that what is kept is a prefix of the sequence). */
typedef struct {
  uint8_t *out;
  size_t cap, n;
  int full;
} emit;

static void put_record(emit *e, const uint8_t *p, size_t n) {
  if (e->full || e->cap - e->n < 2 + n) {
    e->full = 1;
    return;
  }
  e->out[e->n] = (uint8_t)(n >> 8);
  e->out[e->n + 1] = (uint8_t)n;
  if (n) memcpy(e->out + e->n + 2, p, n);
  e->n += 2 + n;
}

/* The frame record m->frame_rec of a, mutated by the frame pipeline straight
 * into the output, leaving room for the records after it when it can. */
static void put_mutated(ornic_mut *m, emit *e, const uint8_t *a, size_t after) {
  const mut_records *r = &m->ra;
  size_t i = m->frame_rec, room = e->cap - e->n;
  if (e->full || room < 2 + 14) {
    e->full = 1;
    return;
  }
  size_t fcap = room - 2 >= after + r->len[i] ? room - 2 - after : room - 2;
  if (fcap > 0xffff) fcap = 0xffff;
  size_t n = ornic_mut_mutate(m, a + r->off[i], r->len[i], e->out + e->n + 2, fcap);
  e->out[e->n] = (uint8_t)(n >> 8);
  e->out[e->n + 1] = (uint8_t)n;
  e->n += 2 + n;
}

/* Writes m->order[0, norder) after a's prefix, then a's tail (records past
 * MUT_MAX_RECORDS) when with_tail. */
static size_t emit_order(ornic_mut *m, const uint8_t *a, const uint8_t *b, size_t prefix,
                         uint8_t *out, size_t cap, int with_tail) {
  emit e = {out, cap, prefix, 0};
  memcpy(out, a, prefix);
  for (size_t k = 0; k < m->norder; k++) {
    uint16_t o = m->order[k];
    if (o == ORD_PAUSE) {
      put_record(&e, m->pause, m->pause_len);
    } else if (o == ORD_FRAME) {
      const mut_records *r = &m->ra;
      size_t end = r->off[m->frame_rec] + r->len[m->frame_rec];
      put_mutated(m, &e, a, r->tail_end - end);
    } else if (o < MUT_MAX_RECORDS) {
      put_record(&e, a + m->ra.off[o], m->ra.len[o]);
    } else {
      put_record(&e, b + m->rb.off[o - MUT_MAX_RECORDS], m->rb.len[o - MUT_MAX_RECORDS]);
    }
  }
  size_t tail = m->ra.tail_end - m->ra.tail_off;
  if (with_tail && tail && !e.full && cap - e.n >= tail) {
    memcpy(out + e.n, a + m->ra.tail_off, tail);
    e.n += tail;
  }
  return e.n;
}

static void order_push(ornic_mut *m, uint16_t o) { m->order[m->norder++] = o; }

/* a's records [from, to) in order, but `skip` (pass to for none). */
static void order_range(ornic_mut *m, size_t from, size_t to, size_t skip) {
  for (size_t k = from; k < to; k++)
    if (k != skip) order_push(m, (uint16_t)k);
}

/* A pause record: 0..13 bytes from the generator (the harness derives a
 * duration from them). */
static void make_pause(ornic_mut *m) {
  m->pause_len = mut_rng_below(&m->rng, MUT_PAUSE_MAX + 1);
  for (size_t k = 0; k < m->pause_len; k++) m->pause[k] = (uint8_t)mut_rng_next(&m->rng);
}

/* The k-th (from 0) frame record (frames 1) or pause record (frames 0). */
static size_t nth_record(const mut_records *r, size_t k, int frames) {
  for (size_t i = 0; i < r->n; i++)
    if ((r->len[i] >= 14) == frames && k-- == 0) return i;
  return 0;
}

typedef enum { OP_FRAME, OP_DUP, OP_DROP, OP_SWAP, OP_MOVE, OP_PAUSE, OP_UNPAUSE } rec_op;

/* 7 in 10 a frame mutation; the rest shared among the sequence changes. An
 * operation that does not apply to this input falls to one that does. */
static rec_op pick_op(ornic_mut *m) {
  const mut_records *r = &m->ra;
  uint32_t x = mut_rng_below(&m->rng, 100);
  rec_op op = x < 70   ? OP_FRAME
              : x < 76 ? OP_DUP
              : x < 82 ? OP_DROP
              : x < 88 ? OP_SWAP
              : x < 92 ? OP_MOVE
              : x < 97 ? OP_PAUSE
                       : OP_UNPAUSE;
  if (op == OP_FRAME && !r->nframes) op = r->n ? OP_DUP : OP_PAUSE;
  if ((op == OP_DUP || op == OP_DROP) && !r->n) op = OP_PAUSE;
  if ((op == OP_SWAP || op == OP_MOVE) && r->n < 2) op = r->n ? OP_DUP : OP_PAUSE;
  if (op == OP_UNPAUSE && r->n == r->nframes) op = OP_PAUSE;
  return op;
}

/* Builds m->order for op on m->ra and logs it (records counted from 1). */
static void plan(ornic_mut *m, rec_op op) {
  const mut_records *r = &m->ra;
  size_t n = r->n, i, j;
  m->norder = 0;
  switch (op) {
  case OP_FRAME:
    m->frame_rec = nth_record(r, mut_rng_below(&m->rng, (uint32_t)r->nframes), 1);
    order_range(m, 0, m->frame_rec, n);
    order_push(m, ORD_FRAME);
    order_range(m, m->frame_rec + 1, n, n);
    break;
  case OP_DUP: /* the copy lands before record j (j == n: at the end) */
    i = mut_rng_below(&m->rng, (uint32_t)n);
    j = i + 1 + mut_rng_below(&m->rng, (uint32_t)(n - i));
    order_range(m, 0, j, n);
    order_push(m, (uint16_t)i);
    order_range(m, j, n, n);
    mut_log(m, "dup record %zu at %zu of %zu", i + 1, j + 1, n);
    break;
  case OP_DROP:
    i = mut_rng_below(&m->rng, (uint32_t)n);
    order_range(m, 0, n, i);
    mut_log(m, "drop record %zu of %zu", i + 1, n);
    break;
  case OP_SWAP:
    i = mut_rng_below(&m->rng, (uint32_t)(n - 1));
    j = i + 1 + mut_rng_below(&m->rng, (uint32_t)(n - 1 - i));
    order_range(m, 0, n, n);
    m->order[i] = (uint16_t)j;
    m->order[j] = (uint16_t)i;
    mut_log(m, "swap records %zu and %zu of %zu", i + 1, j + 1, n);
    break;
  case OP_MOVE: /* record i goes after record j > i */
    i = mut_rng_below(&m->rng, (uint32_t)(n - 1));
    j = i + 1 + mut_rng_below(&m->rng, (uint32_t)(n - 1 - i));
    order_range(m, 0, j + 1, i);
    order_push(m, (uint16_t)i);
    order_range(m, j + 1, n, n);
    mut_log(m, "move record %zu to %zu of %zu", i + 1, j + 1, n);
    break;
  case OP_PAUSE:
    make_pause(m);
    i = mut_rng_below(&m->rng, (uint32_t)n + 1);
    order_range(m, 0, i, n);
    order_push(m, ORD_PAUSE);
    order_range(m, i, n, n);
    mut_log(m, "pause of %zu bytes at %zu", m->pause_len, i + 1);
    break;
  case OP_UNPAUSE:
    i = nth_record(r, mut_rng_below(&m->rng, (uint32_t)(n - r->nframes)), 0);
    order_range(m, 0, n, i);
    mut_log(m, "unpause record %zu of %zu", i + 1, n);
    break;
  }
}

/* Input shorter than its prefix, or a cap below it: no records to work on. */
static size_t short_input(ornic_mut *m, const uint8_t *in, size_t len, size_t prefix, uint8_t *out,
                          size_t cap) {
  size_t n = len < cap ? len : cap;
  memcpy(out, in, n);
  if (len < prefix) {
    mut_log(m, "short of the prefix: bytes only");
    mut_bytes(m, out, 0, n);
  } else {
    mut_log(m, "cap below the prefix: prefix only");
  }
  return n;
}

/* "record i of n: " before what the frame pipeline logged. */
static void log_frame_record(ornic_mut *m) {
  char what[MUT_LOG_LEN];
  memcpy(what, m->log, sizeof what);
  m->log[0] = 0;
  m->log_len = 0;
  mut_log(m, "record %zu of %zu: %s", m->frame_rec + 1, m->ra.n, what);
}

size_t ornic_mut_mutate_records(ornic_mut *m, const uint8_t *in, size_t len, size_t prefix,
                                uint8_t *out, size_t cap) {
  mut_begin(m);
  if (!in || !out || len == 0 || cap == 0) return 0;
  if (len < prefix || cap < prefix) return short_input(m, in, len, prefix, out, cap);
  mut_records_parse(&m->ra, in, len, prefix);
  rec_op op = pick_op(m);
  plan(m, op);
  size_t n = emit_order(m, in, NULL, prefix, out, cap, 1);
  if (op == OP_FRAME) log_frame_record(m);
  return n;
}

size_t ornic_mut_crossover_records(ornic_mut *m, const uint8_t *a, size_t alen, const uint8_t *b,
                                   size_t blen, size_t prefix, uint8_t *out, size_t cap) {
  mut_begin(m);
  if (!a || !out || alen == 0 || cap == 0) return 0;
  if (alen < prefix || cap < prefix) return short_input(m, a, alen, prefix, out, cap);
  if (b) mut_records_parse(&m->rb, b, blen, prefix);
  if (!b || m->rb.n == 0) return ornic_mut_mutate_records(m, a, alen, prefix, out, cap);
  mut_records_parse(&m->ra, a, alen, prefix);
  size_t na = m->ra.n, nb = m->rb.n;
  size_t j = mut_rng_below(&m->rng, (uint32_t)nb), i = mut_rng_below(&m->rng, (uint32_t)na + 1);
  uint32_t kind = mut_rng_below(&m->rng, 3);
  m->norder = 0;
  if (kind == 1 && i < na) { /* b's record j in place of a's record i */
    order_range(m, 0, na, na);
    m->order[i] = (uint16_t)(MUT_MAX_RECORDS + j);
    mut_log(m, "cross: record %zu of b for record %zu", j + 1, i + 1);
  } else if (kind == 2) { /* a's first i records, then b's from j on */
    order_range(m, 0, i, na);
    for (size_t k = j; k < nb; k++) order_push(m, (uint16_t)(MUT_MAX_RECORDS + k));
    mut_log(m, "cross: a[1,%zu) + b[%zu,%zu]", i + 1, j + 1, nb);
    return emit_order(m, a, b, prefix, out, cap, 0);
  } else { /* b's record j inserted before a's record i */
    order_range(m, 0, i, na);
    order_push(m, (uint16_t)(MUT_MAX_RECORDS + j));
    order_range(m, i, na, na);
    mut_log(m, "cross: record %zu of b at %zu", j + 1, i + 1);
  }
  return emit_order(m, a, b, prefix, out, cap, 1);
}
