/* SPDX-License-Identifier: MIT */
#include "verify.h"

#include <stdlib.h>
#include <string.h>

#include "bitset.h"
#include "pattern.h"
#include "sim.h"

void wv_init(wqe_verify *v) { memset(v, 0, sizeof *v); }

int wv_start(wqe_verify *v, uint64_t key, uint64_t addr, uint64_t len, uint32_t pmtu) {
  uint32_t n = len ? (uint32_t)((len + pmtu - 1) / pmtu) : 1; /* a 0-byte WQE is one packet */
  /* The bits are reused from WQE to WQE: they grow only for a larger one. */
  if (n > v->cap || !v->bits) {
    uint8_t *b = bs_new(n);
    if (!b) return -1;
    free(v->bits);
    v->bits = b;
    v->cap = n;
  } else {
    memset(v->bits, 0, n / 8 + 1);
  }
  v->key = key;
  v->addr = addr;
  v->len = len;
  v->pmtu = pmtu;
  v->n = n;
  v->done = 0;
  return 0;
}

int wv_place(wqe_verify *v, uint32_t idx, const uint8_t *payload, size_t n, uint64_t *bad_off) {
  uint64_t off = (uint64_t)idx * v->pmtu;
  if (idx >= v->n) {
    *bad_off = off;
    return WV_BAD;
  }
  if (bs_get(v->bits, idx)) return WV_TWICE;
  uint64_t want = idx == v->n - 1 ? v->len - off : v->pmtu;
  size_t k = n < want ? n : (size_t)want;
  size_t bad = pattern_check(payload, v->key, v->addr + off, k);
  if (bad != (size_t)-1 || n != want) {
    *bad_off = off + (bad != (size_t)-1 ? bad : k);
    return WV_BAD;
  }
  bs_set(v->bits, idx);
  v->done++;
  return WV_OK;
}

void wv_free(wqe_verify *v) {
  free(v->bits);
  wv_init(v);
}

bool wv_place_write(wqe_verify *v, sim *s, unsigned q, uint32_t idx, const uint8_t *payload,
                    size_t n) {
  uint64_t bad = 0;
  int rc = wv_place(v, idx, payload, n, &bad);
  if (rc == WV_BAD)
    sim_fail(s,
             "integrity check failed: WRITE to VA 0x%llx on QP %u: byte %llu of %llu "
             "differs from the source",
             (unsigned long long)v->addr, q, (unsigned long long)bad, (unsigned long long)v->len);
  else if (rc == WV_TWICE)
    sim_fail(s, "integrity check failed: WRITE to VA 0x%llx on QP %u: packet %u placed twice",
             (unsigned long long)v->addr, q, idx);
  return rc == WV_OK;
}

bool wv_complete_write(const wqe_verify *v, sim *s, unsigned q) {
  /* Every byte was compared as it was placed: complete means verified. */
  if (wv_complete(v)) return true;
  sim_fail(s,
           "integrity check failed: WRITE to VA 0x%llx on QP %u: completed with %u of %u "
           "packets verified",
           (unsigned long long)v->addr, q, v->done, v->n);
  return false;
}
