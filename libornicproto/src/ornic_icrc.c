/* SPDX-License-Identifier: MIT */
/* The invariant CRC: RoCEv2 (IBA Annex A17.3.3), RoCEv1 (with the GRH) and
 * native InfiniBand from the LRH (IBA 7.8.1). */
#include <stdbool.h>
#include <string.h>

#include "ornic/errors.h"
#include "ornic/frame.h"
#include "ornic/icrc.h"
#include "ornic_conv.h"
#include "ornic_crc32_inline.h"
#include "ornic_ib_internal.h"
#include "ornic_internal.h"

/* ornic_crc32(0, eight 0xFF bytes): the masked LRH every RoCE iCRC starts with. */
#define ICRC_SEED_AFTER_LRH 0x2144df1cu
/* Largest masked prefix: IPv4 with 40 B of options, UDP, BTH. */
#define MASKED_MAX (60 + 8 + ORNIC_BTH_LEN)

#include "ornic_icrc_tables.inc"

/* Forcing byte j to 0xff changes it by ~b: the table row turns that change
 * into the equivalent change of the CRC's initial state. */
#define FLIP(j, b) icrc_unshift[ICRC_ROW_##j][(uint8_t) ~(b)]

/* The seed change that masks the variant fields of the three common layouts,
 * read from the frame itself: the CRC then runs once over the unmodified
 * bytes, with no copy and no short second call (CRC backends are slowest on
 * short, freshly written buffers). False for other layouts (IPv4 options). */
/* IPv4 without options, UDP, BTH: nearly every RoCEv2 frame. */
static inline bool ipv4_plain(const uint8_t *h, size_t bth_rel) {
  return h[0] == 0x45 && bth_rel == 20 + 8;
}

/* The seed change of that layout (ipv4_plain). */
static inline uint32_t ipv4_delta(const uint8_t *h) {
  return FLIP(1, h[1]) ^ FLIP(8, h[8]) ^ FLIP(10, h[10]) ^ FLIP(11, h[11]) /* TOS, TTL, csum */
         ^ FLIP(26, h[26]) ^ FLIP(27, h[27])                               /* UDP checksum */
         ^ FLIP(32, h[32]);                                                /* BTH[4] */
}

static bool seed_delta(const uint8_t *h, int l3_kind, size_t bth_rel, uint32_t *delta) {
  if (l3_kind == ORNIC_L3_IPV4) {
    if (!ipv4_plain(h, bth_rel)) return false;
    *delta = ipv4_delta(h);
    return true;
  }
  /* Byte 0 only has its low nibble forced; offset 0 needs no table. */
  uint32_t d = (uint32_t)(~h[0] & 0x0f) ^ FLIP(1, h[1]) ^ FLIP(2, h[2]) ^ FLIP(3, h[3]) ^
               FLIP(7, h[7]); /* traffic class, flow label, hop limit */
  if (l3_kind == ORNIC_L3_IPV6 && bth_rel == 40 + 8)
    *delta = d ^ FLIP(46, h[46]) ^ FLIP(47, h[47]) ^ FLIP(52, h[52]);
  else if (l3_kind == ORNIC_L3_GRH && bth_rel == 40)
    *delta = d ^ FLIP(44, h[44]);
  else
    return false;
  return true;
}

static void mask_variant_fields(uint8_t *h, int l3_kind, size_t bth_rel) {
  if (l3_kind == ORNIC_L3_IPV4) {
    size_t ihl = (size_t)(h[0] & 0x0f) * 4;
    h[1] = 0xff;                    /* TOS: DSCP + ECN */
    h[8] = 0xff;                    /* TTL */
    h[10] = h[11] = 0xff;           /* header checksum */
    h[ihl + 6] = h[ihl + 7] = 0xff; /* UDP checksum */
  } else {
    h[0] |= 0x0f;              /* traffic class (high nibble) */
    h[1] = h[2] = h[3] = 0xff; /* traffic class (low nibble), flow label */
    h[7] = 0xff;               /* hop limit */
    if (l3_kind == ORNIC_L3_IPV6) h[40 + 6] = h[40 + 7] = 0xff;
  }
  h[bth_rel + 4] = 0xff; /* BTH FECN, BECN, resv6 */
}

/* Any layout: CRC a masked copy of the headers, then the rest in place. */
static uint32_t icrc_masked_copy(const uint8_t *l3, int l3_kind, size_t bth_rel, size_t icrc_rel) {
  uint8_t h[MASKED_MAX];
  size_t hlen = bth_rel + ORNIC_BTH_LEN;
  memcpy(h, l3, hlen);
  mask_variant_fields(h, l3_kind, bth_rel);
  uint32_t crc = ornic_crc32_inline(ICRC_SEED_AFTER_LRH, h, hlen);
  return ornic_crc32_inline(crc, l3 + hlen, icrc_rel - hlen);
}

static inline uint32_t icrc_calc(const uint8_t *l3, int l3_kind, size_t bth_rel, size_t icrc_rel) {
  uint32_t delta;
  if (seed_delta(l3, l3_kind, bth_rel, &delta))
    return ornic_crc32_inline(ICRC_SEED_AFTER_LRH ^ delta, l3, icrc_rel);
  return icrc_masked_copy(l3, l3_kind, bth_rel, icrc_rel);
}

uint32_t ornic_icrc_calc(const uint8_t *l3, int l3_kind, size_t bth_rel, size_t icrc_rel) {
  return icrc_calc(l3, l3_kind, bth_rel, icrc_rel);
}

/* Native InfiniBand (IBA 7.8.1, PROTOCOL.md 2.7), from the LRH. A global
 * packet (LNH 3) has its whole LRH counted as ones (routers rewrite it), so
 * from the GRH on it is RoCEv1's iCRC exactly; a local one (LNH 2) covers the
 * LRH with only VL as ones, and the BTH's byte 4 as ones. */
#define IB_BTH_LOCAL 8
#define IB_BTH_GLOBAL 48
static inline uint32_t icrc_ib_calc(const uint8_t *lrh, size_t icrc_off) {
  if ((lrh[1] & 3) == ORNIC_LNH_IBA_GLOBAL)
    return icrc_calc(lrh + IB_BTH_LOCAL, ORNIC_L3_GRH, IB_BTH_GLOBAL - IB_BTH_LOCAL,
                     icrc_off - IB_BTH_LOCAL);
  /* Byte 0's high nibble (VL) only; offset 0 needs no table. */
  uint32_t delta = (uint32_t)(~lrh[0] & 0xf0) ^ FLIP(12, lrh[12]);
  return ornic_crc32_inline(delta, lrh, icrc_off);
}

uint32_t ornic_icrc_ib_calc(const uint8_t *lrh, size_t icrc_off) {
  return icrc_ib_calc(lrh, icrc_off);
}

/* Where the bytes themselves put the BTH: ORNIC_OK, or INVALID_ARG. */
static inline int check_layout(const uint8_t *l3, int kind, size_t bth_off) {
  switch (kind) {
  case ORNIC_L3_IPV4: {
    size_t ihl = (size_t)(l3[0] & 0x0f) * 4;
    return l3[0] >> 4 == 4 && ihl >= 20 && bth_off == ihl + 8 ? ORNIC_OK : ORNIC_ERR_INVALID_ARG;
  }
  case ORNIC_L3_IPV6: return l3[0] >> 4 == 6 && bth_off == 48 ? ORNIC_OK : ORNIC_ERR_INVALID_ARG;
  case ORNIC_L3_GRH: return bth_off == 40 ? ORNIC_OK : ORNIC_ERR_INVALID_ARG;
  default: return ORNIC_ERR_INVALID_ARG;
  }
}

/* compute, verify and the _at entry points inline the whole path: on small
 * frames the CRC itself is a few ns, so every call level shows. */
static inline int icrc_at(const uint8_t *l3, size_t len, int kind, size_t bth_off, size_t icrc_off,
                          uint32_t *icrc) {
  if (!l3 || !icrc) return ORNIC_ERR_INVALID_ARG;
  if (kind != ORNIC_L3_IPV4 && kind != ORNIC_L3_IPV6 && kind != ORNIC_L3_GRH)
    return ORNIC_ERR_INVALID_ARG;
  if (icrc_off < bth_off + ORNIC_BTH_LEN) return ORNIC_ERR_INVALID_ARG;
  if (len < icrc_off) return ORNIC_ERR_TRUNCATED;
  /* bth_off + 12 <= len: l3[0] is there. IPv4 without options, nearly every
   * RoCEv2 frame, passes check_layout by construction: its seed change
   * directly, without the general layout checks. */
  if (kind == ORNIC_L3_IPV4 && ipv4_plain(l3, bth_off)) {
    *icrc = ornic_crc32_inline(ICRC_SEED_AFTER_LRH ^ ipv4_delta(l3), l3, icrc_off);
    return ORNIC_OK;
  }
  int rc = check_layout(l3, kind, bth_off);
  if (rc == ORNIC_OK) *icrc = icrc_calc(l3, kind, bth_off, icrc_off);
  return rc;
}

static inline int icrc_ib_at(const uint8_t *lrh, size_t len, size_t icrc_off, uint32_t *icrc) {
  if (!lrh || !icrc) return ORNIC_ERR_INVALID_ARG;
  if (len < IB_BTH_LOCAL) return ORNIC_ERR_TRUNCATED;
  unsigned lnh = lrh[1] & 3;
  if (lnh != ORNIC_LNH_IBA_LOCAL && lnh != ORNIC_LNH_IBA_GLOBAL) return ORNIC_ERR_INVALID_ARG;
  size_t bth_off = lnh == ORNIC_LNH_IBA_GLOBAL ? IB_BTH_GLOBAL : IB_BTH_LOCAL;
  if (icrc_off < bth_off + ORNIC_BTH_LEN) return ORNIC_ERR_INVALID_ARG;
  if (len < icrc_off) return ORNIC_ERR_TRUNCATED;
  *icrc = icrc_ib_calc(lrh, icrc_off);
  return ORNIC_OK;
}

int ornic_icrc_compute_at(const uint8_t *l3, size_t len, ornic_l3 l3_kind, size_t bth_off,
                          size_t icrc_off, uint32_t *icrc) {
  return icrc_at(l3, len, (int)l3_kind, bth_off, icrc_off, icrc);
}

int ornic_icrc_compute_ib_at(const uint8_t *lrh, size_t len, size_t icrc_off, uint32_t *icrc) {
  return icrc_ib_at(lrh, len, icrc_off, icrc);
}

static inline int frame_icrc(const ornic_frame *f, const uint8_t *data, uint32_t *icrc) {
  if (!data || !icrc) return ORNIC_ERR_INVALID_ARG;
  /* Anything cut before the iCRC's last byte is "not verifiable". */
  if (!f->icrc_present) return ORNIC_ERR_TRUNCATED;
  if (f->link == ORNIC_LINK_IB) return icrc_ib_at(data, f->caplen, f->icrc_off, icrc);
  if (f->l3 == ORNIC_L3_NONE) return ORNIC_ERR_INVALID_ARG;
  return icrc_at(data + f->l3_off, f->caplen - f->l3_off, (int)f->l3, f->bth_off - f->l3_off,
                 f->icrc_off - f->l3_off, icrc);
}

int ornic_icrc_compute(const ornic_frame *f, const uint8_t *data, uint32_t *icrc) {
  return frame_icrc(f, data, icrc);
}

int ornic_icrc_verify(const ornic_frame *f, const uint8_t *data) {
  uint32_t want;
  int rc = frame_icrc(f, data, &want);
  if (rc < 0) return rc;
  return want == f->icrc ? ORNIC_OK : ORNIC_ERR_BAD_ICRC;
}
