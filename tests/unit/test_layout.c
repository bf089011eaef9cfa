/* SPDX-License-Identifier: MIT */
/* ornic/layout.h: the field layout tables against the codecs.
 *
 * Both are expanded from the field lists of
 * libornicproto/src/ornic_hdr_fields.h, and so is the test's knowledge of
 * which struct member each field name stands for (below); what is checked
 * is that the expansions agree. For every field of every header the test
 * encodes the header through the library's encoder with that one member at
 * all ones (everything else zero), and checks that exactly the bits the
 * table names are set; then the complement (everything at all ones, the
 * field zero). The decoder is checked the other way: random header bytes,
 * decoded, give the value ornic_field_value() reads with the table. That
 * the lists themselves are right (each member at its place in the bytes) is
 * test_ext.c's and test_bth.c's known answers, written by hand. */
#include <stddef.h>
#include <string.h>

#include "../../libornicproto/src/ornic_hdr_fields.h"
#include "testutil.h"

/* Everything a header's fields live in. */
typedef struct {
  ornic_bth bth;
  ornic_ext ext;
} vals;

/* A field name and where the test keeps its value: a member of `vals` of
 * `msize` bytes holding a value of `bits` bits and, for fields that are
 * bits of another field's member (the OACKETH flags), the value's position
 * and width inside it (width 0: the whole member). */
typedef struct {
  const char *name;
  uint16_t hdr; /* ORNIC_HDR_* bit, 0 for the BTH */
  size_t moff, msize;
  unsigned pos, width;
  int parent; /* a sub-field: the index of its parent among its header's fields */
  int bytes;  /* a byte string (the CNP's reserved bytes) */
  unsigned bits;
} accessor;

/* Each header's bit and place in `vals`. */
#define BIT_OF(hdr, BIT, name, len) bit_##hdr = ORNIC_HDR_##BIT,
#define AT_OF(hdr, BIT, name, len) at_##hdr = offsetof(vals, ext.hdr),
enum { bit_bth = 0, ORNIC_EXT_HDRS(BIT_OF) at_bth = offsetof(vals, bth), ORNIC_EXT_HDRS(AT_OF) };

#define MEMBER(hdr, m) at_##hdr + offsetof(ornic_##hdr, m), sizeof(((ornic_##hdr *)0)->m)
#define ACC_N(hdr, m, name, display, off, size, bits, shift, kind) \
  {name, bit_##hdr, MEMBER(hdr, m), 0, 0, -1, 0, bits},
#define ACC_S(hdr, name, display, off, bits, shift, kind, parent) \
  {name, bit_##hdr, 0, 0, shift, bits, parent, 0, bits},
#define ACC_Y(hdr, m, name, display, off, size, kind) \
  {name, bit_##hdr, MEMBER(hdr, m), 0, 0, -1, 1, 8 * (size)},
#define ACC_HDR(hdr, BIT, name, len) ORNIC_FIELDS_##hdr(ACC_N, ACC_S, ACC_Y, ORNIC_FIELD_SKIP)
static accessor accessors[] = {ACC_HDR(bth, BTH, "BTH", ORNIC_BTH_LEN) ORNIC_EXT_HDRS(ACC_HDR)};
#define NACC (sizeof accessors / sizeof accessors[0])

/* A sub-field's value lives in its parent's member. */
static void accessors_init(void) {
  for (size_t i = 0, first = 0; i < NACC; i++) {
    if (i > 0 && accessors[i].hdr != accessors[i - 1].hdr) first = i;
    if (accessors[i].parent < 0) continue;
    const accessor *p = &accessors[first + (size_t)accessors[i].parent];
    accessors[i].moff = p->moff;
    accessors[i].msize = p->msize;
  }
}

static uint64_t ones(unsigned bits) {
  return bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

static uint64_t get_member(const vals *v, const accessor *a) {
  const uint8_t *p = (const uint8_t *)v + a->moff;
  uint64_t x = 0;
  switch (a->msize) {
  case 1: x = *p; break;
  case 2: {
    uint16_t t;
    memcpy(&t, p, 2);
    x = t;
    break;
  }
  case 4: {
    uint32_t t;
    memcpy(&t, p, 4);
    x = t;
    break;
  }
  case 8: memcpy(&x, p, 8); break;
  default: ck_abort_msg("%s: member of %zu bytes", a->name, a->msize);
  }
  return a->width ? (x >> a->pos) & ones(a->width) : x;
}

static void set_member(vals *v, const accessor *a, uint64_t x) {
  uint8_t *p = (uint8_t *)v + a->moff;
  if (a->bytes) {
    memset(p, x ? 0xff : 0, a->msize);
    return;
  }
  if (a->width) {
    uint64_t m = ones(a->width) << a->pos;
    x = (get_member(v, &(accessor){a->name, a->hdr, a->moff, a->msize, 0, 0, -1, 0, 0}) & ~m) |
        ((x << a->pos) & m);
  }
  switch (a->msize) {
  case 1: *p = (uint8_t)x; break;
  case 2: {
    uint16_t t = (uint16_t)x;
    memcpy(p, &t, 2);
    break;
  }
  case 4: {
    uint32_t t = (uint32_t)x;
    memcpy(p, &t, 4);
    break;
  }
  case 8: memcpy(p, &x, 8); break;
  default: ck_abort_msg("%s: member of %zu bytes", a->name, a->msize);
  }
}

/* The largest value the field can hold. */
static uint64_t field_ones(const accessor *a) { return ones(a->bits); }

static const accessor *accessor_of(const char *name) {
  for (size_t i = 0; i < NACC; i++)
    if (!strcmp(accessors[i].name, name)) return &accessors[i];
  return NULL;
}

static const ornic_field_layout *layout_of(uint16_t hdr, size_t *n) {
  return hdr ? ornic_hdr_layout(hdr, n) : ornic_bth_layout(n);
}

static size_t hdr_fixed_size(uint16_t hdr) { return hdr ? tu_hdr_size(hdr, 0) : ORNIC_BTH_LEN; }

/* The bytes a field's bits occupy, per the table. */
static void layout_bits(const ornic_field_layout *fl, uint8_t *out, size_t len) {
  memset(out, 0, len);
  ck_assert_uint_le((size_t)fl->offset + fl->size, len);
  if (fl->size > 8) {
    memset(out + fl->offset, 0xff, fl->size);
    return;
  }
  for (unsigned i = 0; i < fl->size; i++)
    out[fl->offset + i] = (uint8_t)(fl->mask >> (8 * (fl->size - 1u - i)));
}

/* Encodes one header from v. NAKETH: zero bitmap blocks. */
static size_t encode(uint16_t hdr, vals *v, uint8_t *out, size_t cap) {
  static const uint8_t zero_block[2 * ORNIC_NAKETH_MAX_BLOCKS];
  ornic_ssize n;
  if (hdr == 0) {
    n = ornic_bth_encode(out, cap, &v->bth);
  } else {
    if (hdr == ORNIC_HDR_NAKETH) v->ext.naketh.bitmap = zero_block;
    n = ornic_ext_encode_one(out, cap, &v->ext, hdr);
  }
  ck_assert_int_gt(n, 0);
  return (size_t)n;
}

#define BIT_LIST(hdr, BIT, name, len) ORNIC_HDR_##BIT,
static const uint16_t all_hdrs[] = {0, ORNIC_EXT_HDRS(BIT_LIST)};
#define NHDRS (sizeof all_hdrs / sizeof all_hdrs[0])

static const char *hdr_label(uint16_t hdr) { return hdr ? ornic_hdr_name(hdr) : "BTH"; }

/* Every header has a table, every table entry an accessor here and every
 * accessor a table entry, names are "<header>.<field>" and unique. */
START_TEST(tables_cover_every_header_and_field) {
  size_t seen = 0;
  ck_assert_uint_eq(NHDRS, ORNIC_HDR_COUNT + 1);
  for (size_t h = 0; h < NHDRS; h++) {
    size_t n = 99;
    const ornic_field_layout *fl = layout_of(all_hdrs[h], &n);
    ck_assert_msg(fl != NULL && n > 0, "%s: no layout", hdr_label(all_hdrs[h]));
    for (size_t i = 0; i < n; i++) {
      const accessor *a = accessor_of(fl[i].name);
      ck_assert_msg(a != NULL, "%s: the test does not know field %s", hdr_label(all_hdrs[h]),
                    fl[i].name);
      ck_assert_msg(a->hdr == all_hdrs[h], "%s is listed under %s", fl[i].name,
                    hdr_label(all_hdrs[h]));
      ck_assert_ptr_nonnull(fl[i].display);
      ck_assert_ptr_nonnull(strchr(fl[i].name, '.'));
      for (size_t j = 0; j < i; j++) ck_assert_str_ne(fl[i].name, fl[j].name);
      seen++;
    }
  }
  ck_assert_msg(seen == NACC, "the tables name %zu fields, the test knows %zu", seen, NACC);
}
END_TEST

/* The top-level fields of a header cover each of its bits exactly once, in
 * wire order; sub-fields lie inside their parent; the descriptive numbers
 * agree with each other (bits = popcount(mask), mask >> shift is the value's
 * width of ones). */
START_TEST(fields_tile_their_header) {
  for (size_t h = 0; h < NHDRS; h++) {
    uint16_t hdr = all_hdrs[h];
    size_t n, len = hdr_fixed_size(hdr);
    const ornic_field_layout *fl = layout_of(hdr, &n);
    uint8_t cover[32] = {0}, bits[32];
    unsigned last_off = 0;
    ck_assert_uint_le(len, sizeof cover);
    for (size_t i = 0; i < n; i++) {
      const ornic_field_layout *f = &fl[i];
      ck_assert_msg(f->size == 1 || f->size == 2 || f->size == 3 || f->size == 4 || f->size == 8 ||
                        f->size == 16,
                    "%s: size %u", f->name, f->size);
      ck_assert_uint_le(f->kind, ORNIC_FIELD_QPN);
      if (f->size > 8) {
        ck_assert_uint_eq(f->mask, 0);
        ck_assert_uint_eq(f->shift, 0);
        ck_assert_uint_eq(f->bits, 8u * f->size);
      } else {
        ck_assert_uint_eq((unsigned)__builtin_popcountll(f->mask), f->bits);
        ck_assert_uint_eq(f->mask >> f->shift, ones(f->bits));
        ck_assert_uint_le(f->mask, ones(8u * f->size));
      }
      if (f->kind == ORNIC_FIELD_PSN || f->kind == ORNIC_FIELD_QPN) ck_assert_uint_eq(f->bits, 24);
      if (f->kind == ORNIC_FIELD_FLAG) ck_assert_uint_eq(f->bits, 1);
      layout_bits(f, bits, len);
      if (f->parent >= 0) {
        ck_assert_int_lt(f->parent, (int)i);
        const ornic_field_layout *p = &fl[f->parent];
        ck_assert_int_eq(p->parent, -1);
        ck_assert_uint_eq(p->kind, ORNIC_FIELD_FLAGS);
        uint8_t pbits[32];
        layout_bits(p, pbits, len);
        for (size_t k = 0; k < len; k++)
          ck_assert_msg((bits[k] & ~pbits[k]) == 0, "%s: bits outside %s", f->name, p->name);
        continue;
      }
      ck_assert_msg(f->offset >= last_off, "%s: not in wire order", f->name);
      last_off = f->offset;
      for (size_t k = 0; k < len; k++) {
        ck_assert_msg((cover[k] & bits[k]) == 0, "%s: byte %zu bits 0x%02x named twice", f->name, k,
                      cover[k] & bits[k]);
        cover[k] |= bits[k];
      }
    }
    for (size_t k = 0; k < len; k++)
      ck_assert_msg(cover[k] == 0xff, "%s: byte %zu bits 0x%02x named by no field", hdr_label(hdr),
                    k, (unsigned)(uint8_t)~cover[k]);
    /* The bits of a FLAGS field are named by its sub-fields, each once. */
    for (size_t i = 0; i < n; i++) {
      if (fl[i].kind != ORNIC_FIELD_FLAGS) continue;
      uint8_t pbits[32], sub[32] = {0};
      unsigned nsub = 0;
      layout_bits(&fl[i], pbits, len);
      for (size_t j = 0; j < n; j++) {
        if (fl[j].parent != (int)i) continue;
        layout_bits(&fl[j], bits, len);
        for (size_t k = 0; k < len; k++) {
          ck_assert_msg((sub[k] & bits[k]) == 0, "%s: bits named twice", fl[j].name);
          sub[k] |= bits[k];
        }
        nsub++;
      }
      ck_assert_uint_gt(nsub, 0);
      ck_assert_mem_eq(sub, pbits, len);
    }
  }
}
END_TEST

/* The heart of it: one field at all ones through the encoder sets exactly the
 * table's bits; everything else at all ones and the field at zero clears
 * exactly them. */
START_TEST(encoder_sets_exactly_the_fields_bits) {
  size_t checked = 0;
  for (size_t h = 0; h < NHDRS; h++) {
    uint16_t hdr = all_hdrs[h];
    size_t n, len = hdr_fixed_size(hdr);
    const ornic_field_layout *fl = layout_of(hdr, &n);
    /* The base every field is added to: all zero, but a NAK has at least one
     * block (the encoder refuses 0). */
    vals zero;
    memset(&zero, 0, sizeof zero);
    if (hdr == ORNIC_HDR_NAKETH) zero.ext.naketh.nblocks = 1;
    uint8_t base[600], out[600], bits[32];
    encode(hdr, &zero, base, sizeof base);
    vals full;
    memset(&full, 0, sizeof full);
    for (size_t i = 0; i < NACC; i++)
      if (accessors[i].hdr == hdr && !accessors[i].width)
        set_member(&full, &accessors[i], field_ones(&accessors[i]));
    uint8_t all[600];
    encode(hdr, &full, all, sizeof all);
    for (size_t k = 0; k < len; k++) ck_assert_uint_eq(all[k], 0xff);

    for (size_t i = 0; i < n; i++) {
      const accessor *a = accessor_of(fl[i].name);
      layout_bits(&fl[i], bits, len);
      vals v = zero;
      set_member(&v, a, field_ones(a));
      memset(out, 0xee, sizeof out);
      ck_assert_uint_eq(encode(hdr, &v, out, sizeof out),
                        len + (hdr == ORNIC_HDR_NAKETH ? 2u * v.ext.naketh.nblocks : 0));
      for (size_t k = 0; k < len; k++)
        ck_assert_msg(out[k] == (base[k] | bits[k]),
                      "%s at all ones: byte %zu is 0x%02x, the table says 0x%02x", fl[i].name, k,
                      out[k], base[k] | bits[k]);
      if (fl[i].size <= 8) ck_assert_uint_eq(ornic_field_value(&fl[i], out), field_ones(a));
      /* The complement (a NAK's block count cannot be 0). */
      if (strcmp(fl[i].name, "naketh.nblocks") != 0) {
        vals w = full;
        set_member(&w, a, 0);
        encode(hdr, &w, out, sizeof out);
        for (size_t k = 0; k < len; k++) {
          unsigned want = 0xffu & ~(unsigned)bits[k];
          ck_assert_msg(out[k] == want,
                        "%s at zero, the rest at all ones: byte %zu is 0x%02x, expected 0x%02x",
                        fl[i].name, k, out[k], want);
        }
        if (fl[i].size <= 8) ck_assert_uint_eq(ornic_field_value(&fl[i], out), 0);
      }
      checked++;
    }
  }
  ck_assert_uint_eq(checked, NACC);
}
END_TEST

/* The decoder the other way: random bytes decode to the values the table reads. */
START_TEST(decoder_reads_what_the_table_says) {
  tu_rng r;
  tu_seed(&r, 0x1a7047);
  for (int round = 0; round < 200; round++) {
    for (size_t h = 0; h < NHDRS; h++) {
      uint16_t hdr = all_hdrs[h];
      size_t n, len = hdr_fixed_size(hdr);
      const ornic_field_layout *fl = layout_of(hdr, &n);
      uint8_t buf[16 + 2 * 255];
      tu_fill(&r, buf, sizeof buf);
      if (hdr == ORNIC_HDR_NAKETH && buf[4] == 0) buf[4] = 1;
      vals v;
      memset(&v, 0, sizeof v);
      int rc = hdr ? ornic_ext_decode_one(&v.ext, hdr, buf, sizeof buf)
                   : ornic_bth_decode(&v.bth, buf, sizeof buf);
      ck_assert_int_gt(rc, 0);
      for (size_t i = 0; i < n; i++) {
        const accessor *a = accessor_of(fl[i].name);
        if (a->bytes) {
          ck_assert_mem_eq((const uint8_t *)&v + a->moff, buf + fl[i].offset, fl[i].size);
          continue;
        }
        ck_assert_msg(ornic_field_value(&fl[i], buf) == get_member(&v, a),
                      "%s round %d: table reads 0x%llx, decoder 0x%llx", fl[i].name, round,
                      (unsigned long long)ornic_field_value(&fl[i], buf),
                      (unsigned long long)get_member(&v, a));
      }
      (void)len;
    }
  }
}
END_TEST

START_TEST(bad_header_bits) {
  static const uint16_t bad[] = {0, ORNIC_HDR_RETH | ORNIC_HDR_AETH, 1u << ORNIC_HDR_COUNT, 0x8000,
                                 0xffff};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t n = 99;
    ck_assert_ptr_null(ornic_hdr_layout(bad[i], &n));
    ck_assert_uint_eq(n, 0);
  }
  size_t n = 0;
  ck_assert_ptr_nonnull(ornic_bth_layout(&n));
  ck_assert_uint_eq(n, 13);
}
END_TEST

/* ornic_frame_hdr_offset / _size on decoded frames of every opcode with a
 * layout: the header's bytes are where the offsets say (they decode to the
 * same values), in wire order, and absent headers give 0. */
START_TEST(frame_header_offsets) {
  tu_rng r;
  tu_seed(&r, 0x0ff5e7);
  static tu_store st;
  static uint8_t buf[2048];
  unsigned frames = 0;
  for (unsigned op = 0; op < 256; op++) {
    const ornic_opcode_info *info = ornic_opcode_info_get((uint8_t)op);
    if (!info->name) continue;
    for (size_t vi = 0; vi < tu_nvariants; vi++) {
      ornic_frame want, got;
      size_t paylen = (info->flags & ORNIC_OPF_PAYLOAD) ? 8 : 0;
      tu_random_frame(&want, &st, &r, (uint8_t)op, &tu_variants[vi], paylen);
      size_t len = tu_encode(&want, buf, sizeof buf);
      ck_assert_int_eq(ornic_frame_decode(&got, buf, len, want.link, 0), ORNIC_OK);
      size_t expect = got.ext_off;
      for (unsigned i = 0; i < ORNIC_HDR_COUNT; i++) {
        uint16_t bit = (uint16_t)(1u << i);
        size_t off = ornic_frame_hdr_offset(&got, bit), sz = ornic_frame_hdr_size(&got, bit);
        if (!(info->hdrs & bit)) {
          ck_assert_uint_eq(off, 0);
          ck_assert_uint_eq(sz, 0);
          continue;
        }
        unsigned nb = bit == ORNIC_HDR_NAKETH ? got.ext.naketh.nblocks : 0;
        ck_assert_msg(off == expect, "opcode 0x%02x %s at %zu, expected %zu", op,
                      ornic_hdr_name(bit), off, expect);
        ck_assert_uint_eq(sz, tu_hdr_size(bit, nb));
        ornic_ext one;
        memset(&one, 0, sizeof one);
        ck_assert_int_eq(ornic_ext_decode_one(&one, bit, buf + off, len - off), (int)sz);
        tu_assert_ext_eq(&got.ext, &one, bit, ornic_hdr_name(bit));
        expect += sz;
      }
      ck_assert_uint_eq(expect, got.payload_off);
      frames++;
    }
  }
  ck_assert_uint_gt(frames, 100);
  /* Not a single header bit. */
  ornic_frame f;
  memset(&f, 0, sizeof f);
  f.ext.present = ORNIC_HDR_RETH;
  f.ext_off = 12;
  ck_assert_uint_eq(ornic_frame_hdr_offset(&f, ORNIC_HDR_RETH), 12);
  ck_assert_uint_eq(ornic_frame_hdr_offset(&f, 0), 0);
  ck_assert_uint_eq(ornic_frame_hdr_offset(&f, ORNIC_HDR_RETH | ORNIC_HDR_AETH), 0);
  ck_assert_uint_eq(ornic_frame_hdr_size(&f, 0x8000), 0);
}
END_TEST

static Suite *suite(void) {
  accessors_init();
  Suite *s = suite_create("layout");
  TCase *tc = tu_tcase("layout");
  tcase_add_test(tc, tables_cover_every_header_and_field);
  tcase_add_test(tc, fields_tile_their_header);
  tcase_add_test(tc, encoder_sets_exactly_the_fields_bits);
  tcase_add_test(tc, decoder_reads_what_the_table_says);
  tcase_add_test(tc, bad_header_bits);
  tcase_add_test(tc, frame_header_offsets);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
