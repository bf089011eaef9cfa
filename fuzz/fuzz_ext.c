/* SPDX-License-Identifier: MIT */
/* fuzz_ext: every header decoder of the public API (headers.h) on its own:
 * the BTH, each extension header by its ORNIC_HDR_* bit, the named ORNIC
 * codecs (OFFETH, OACKETH, NAKETH with its bitmap accessors), and whole
 * header chains. headers.h promises that reserved bits are kept, so every
 * header that decodes must re-encode to exactly the bytes it came from.
 *
 * Input: byte 0 picks the decoder (below); for chains, bytes 1-2 give the
 * ORNIC_HDR_* mask (any 16 bits) or byte 1 an opcode; the rest is the header. */
#include <string.h>

#include <ornic/ornic.h>

#include "fuzz_driver.h"
#include "fuzz_frame_check.h"

enum {
  SEL_ONE_FIRST = 0,         /* 0..13: ornic_ext_decode_one(1 << sel) */
  SEL_BTH = ORNIC_HDR_COUNT, /* 14 */
  SEL_OFFETH,
  SEL_OACKETH,
  SEL_NAKETH,       /* 15..17: the named codecs */
  SEL_CHAIN_MASK,   /* 18: ornic_ext_decode(any mask) */
  SEL_CHAIN_OPCODE, /* 19: the headers of an opcode */
  SEL_COUNT
};

#define OUT_MAX 1024 /* > the largest chain: every header + a 255-block NAK */

/* Re-encoding n decoded bytes gives them back, and one byte less of room is refused. */
static void check_reencoded(const uint8_t *in, int n, ornic_ssize wrote, const uint8_t *out,
                            const char *what) {
  fuzz_check(wrote == n, "%s: decoded %d bytes, encoded %td", what, n, wrote);
  fuzz_check(memcmp(in, out, (size_t)n) == 0, "%s: re-encoded bytes differ", what);
}

static void one_header(uint16_t bit, const uint8_t *p, size_t len) {
  ornic_ext e;
  uint8_t out[OUT_MAX];
  e.present = 0;
  int n = ornic_ext_decode_one(&e, bit, p, len);
  const char *name = ornic_hdr_name(bit);
  fuzz_check(n > 0 || n == ORNIC_ERR_TRUNCATED || n == ORNIC_ERR_MALFORMED, "%s: %d", name, n);
  fuzz_check((n > 0) == (e.present == bit), "%s: present %#x after %d", name, e.present, n);
  if (n == ORNIC_ERR_MALFORMED)
    fuzz_check(bit == ORNIC_HDR_NAKETH && p[4] == 0, "%s malformed", name);
  if (n < 0) return;
  fuzz_check((size_t)n <= len && (size_t)n == ornic_ext_size(&e, bit), "%s size", name);
  check_reencoded(p, n, ornic_ext_encode_one(out, sizeof out, &e, bit), out, name);
  fuzz_check(ornic_ext_encode_one(out, (size_t)n - 1, &e, bit) == ORNIC_ERR_NOBUF, "%s: no room",
             name);
  if (bit == ORNIC_HDR_NAKETH) fuzz_check_nak(&e.naketh, p, len);
}

static void bth(const uint8_t *p, size_t len) {
  ornic_bth b;
  uint8_t out[ORNIC_BTH_LEN];
  int n = ornic_bth_decode(&b, p, len);
  fuzz_check(n == (len < ORNIC_BTH_LEN ? ORNIC_ERR_TRUNCATED : ORNIC_BTH_LEN), "BTH: %d", n);
  if (n > 0) check_reencoded(p, n, ornic_bth_encode(out, sizeof out, &b), out, "BTH");
}

/* The named wrappers must agree with the by-bit decoder. */
static void named(unsigned sel, const uint8_t *p, size_t len) {
  uint8_t out[OUT_MAX];
  ornic_ext e;
  e.present = 0;
  int n;
  ornic_ssize w = 0;
  uint16_t bit;
  if (sel == SEL_OFFETH) {
    ornic_offeth h;
    bit = ORNIC_HDR_OFFETH;
    if ((n = ornic_offeth_decode(&h, p, len)) > 0) w = ornic_offeth_encode(out, sizeof out, &h);
  } else if (sel == SEL_OACKETH) {
    ornic_oacketh h;
    bit = ORNIC_HDR_OACKETH;
    if ((n = ornic_oacketh_decode(&h, p, len)) > 0) w = ornic_oacketh_encode(out, sizeof out, &h);
  } else {
    ornic_naketh h;
    bit = ORNIC_HDR_NAKETH;
    if ((n = ornic_naketh_decode(&h, p, len)) > 0) {
      w = ornic_naketh_encode(out, sizeof out, &h);
      fuzz_check_nak(&h, p, len);
    }
  }
  fuzz_check(n == ornic_ext_decode_one(&e, bit, p, len), "%s: named and by-bit decoders differ",
             ornic_hdr_name(bit));
  if (n > 0) check_reencoded(p, n, w, out, ornic_hdr_name(bit));
}

static void chain(uint16_t hdrs, const uint8_t *p, size_t len) {
  ornic_ext e;
  uint8_t out[OUT_MAX];
  e.present = 0;
  int n = ornic_ext_decode(&e, hdrs, p, len);
  uint16_t known = hdrs & ((1u << ORNIC_HDR_COUNT) - 1);
  fuzz_check(n >= 0 || n == ORNIC_ERR_TRUNCATED || n == ORNIC_ERR_MALFORMED, "chain: %d", n);
  fuzz_check((e.present & ~known) == 0, "chain: present %#x outside %#x", e.present, known);
  if (n < 0) return;
  fuzz_check(e.present == known, "chain: present %#x of %#x", e.present, known);
  fuzz_check((size_t)n <= len && (size_t)n == ornic_ext_size(&e, hdrs), "chain size %d", n);
  check_reencoded(p, n, ornic_ext_encode(out, sizeof out, &e, hdrs), out, "chain");
  if (n > 0)
    fuzz_check(ornic_ext_encode(out, (size_t)n - 1, &e, hdrs) == ORNIC_ERR_NOBUF, "chain room");
  if (e.present & ORNIC_HDR_NAKETH) fuzz_check_nak(&e.naketh, p, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned sel = data[0] % SEL_COUNT;
  /* Every code, known or not, has a name and a text. */
  fuzz_check(ornic_errname((int)data[0] - 128)[0] && ornic_strerror((int)data[0] - 128)[0],
             "texts");
  const uint8_t *p = data + 1;
  size_t len = size - 1;
  if (sel < ORNIC_HDR_COUNT) {
    one_header((uint16_t)(1u << sel), p, len);
  } else if (sel == SEL_BTH) {
    bth(p, len);
  } else if (sel <= SEL_NAKETH) {
    named(sel, p, len);
  } else if (sel == SEL_CHAIN_MASK && len >= 2) {
    uint16_t hdrs = (uint16_t)(p[0] << 8 | p[1]);
    (void)ornic_hdr_size(hdrs); /* any 16 bits: 0 unless exactly one known bit */
    (void)ornic_hdr_name(hdrs);
    chain(hdrs, p + 2, len - 2);
  } else if (sel == SEL_CHAIN_OPCODE && len >= 1) {
    const ornic_opcode_info *op = ornic_opcode_info_get(p[0]);
    fuzz_check(op->name || op->hdrs == 0, "unknown opcode %#x with headers", p[0]);
    chain(op->hdrs, p + 1, len - 1);
  }
  return 0;
}
