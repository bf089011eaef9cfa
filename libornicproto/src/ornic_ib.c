/* SPDX-License-Identifier: MIT */
/* Native InfiniBand (IBA 7.7, 7.8): the LRH codec, the link-level part of
 * decoding a native IB packet (PktLen, the VCRC's place), the VCRC, and the
 * encoder of native IB frames. The GRH, BTH and everything after them are
 * read by ornic_frame_decode.c exactly as for RoCE; the iCRC is in
 * ornic_icrc.c. docs/PROTOCOL.md section 2.7 says what is IBA's and what is
 * ours. */
#include <string.h>

#include "ornic/errors.h"
#include "ornic/frame.h"
#include "ornic/ib.h"
#include "ornic/opcode.h"
#include "ornic_conv.h"
#include "ornic_ib_internal.h"
#include "ornic_internal.h"

#define GRH_LEN 40

/* ---- LRH ------------------------------------------------------------------ */

int ornic_lrh_decode(ornic_lrh *lrh, const uint8_t *p, size_t len) {
  if (len < ORNIC_LRH_LEN) return ORNIC_ERR_TRUNCATED;
  lrh->vl = p[0] >> 4;
  lrh->lver = p[0] & 0x0f;
  lrh->sl = p[1] >> 4;
  lrh->resv2 = (p[1] >> 2) & 3;
  lrh->lnh = p[1] & 3;
  lrh->dlid = ornic_get_u16(p + 2);
  lrh->resv5 = p[4] >> 3;
  lrh->pktlen = ornic_get_u16(p + 4) & ORNIC_LRH_PKTLEN_MAX;
  lrh->slid = ornic_get_u16(p + 6);
  return ORNIC_LRH_LEN;
}

ornic_ssize ornic_lrh_encode(uint8_t *out, size_t cap, const ornic_lrh *lrh) {
  if (cap < ORNIC_LRH_LEN) return ORNIC_ERR_NOBUF;
  if (lrh->vl > 15 || lrh->lver > 15 || lrh->sl > 15 || lrh->resv2 > 3 || lrh->lnh > 3 ||
      lrh->resv5 > 31 || lrh->pktlen > ORNIC_LRH_PKTLEN_MAX)
    return ORNIC_ERR_INVALID_ARG;
  uint8_t *p = out;
  p = ornic_put_u8(p, (uint8_t)(lrh->vl << 4 | lrh->lver));
  p = ornic_put_u8(p, (uint8_t)(lrh->sl << 4 | lrh->resv2 << 2 | lrh->lnh));
  p = ornic_put_u16(p, lrh->dlid);
  p = ornic_put_u16(p, (uint16_t)(lrh->resv5 << 11 | lrh->pktlen));
  ornic_put_u16(p, lrh->slid);
  return ORNIC_LRH_LEN;
}

/* ---- VCRC ----------------------------------------------------------------- */

/* CRC-16, polynomial x^16 + x^12 + x^3 + x + 1 (0x100B) bit-reversed, as the
 * IBA computes it LSB first (the way the iCRC's CRC-32 runs). Four bits at a
 * time: the 16-entry table is the polynomial itself, stepped at compile time,
 * so there is no table to keep in sync with a generator. */
#define VCRC_POLY_REFLECTED 0xD008u
#define VSTEP(c) (((c)&1u) ? ((c) >> 1) ^ VCRC_POLY_REFLECTED : (c) >> 1)
#define VNIB(n) (uint16_t) VSTEP(VSTEP(VSTEP(VSTEP((unsigned)(n)))))
static const uint16_t vcrc_nibble[16] = {VNIB(0),  VNIB(1),  VNIB(2),  VNIB(3), VNIB(4),  VNIB(5),
                                         VNIB(6),  VNIB(7),  VNIB(8),  VNIB(9), VNIB(10), VNIB(11),
                                         VNIB(12), VNIB(13), VNIB(14), VNIB(15)};

static uint16_t vcrc_calc(const uint8_t *p, size_t n) {
  unsigned c = 0xffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    c = (c >> 4) ^ vcrc_nibble[c & 15];
    c = (c >> 4) ^ vcrc_nibble[c & 15];
  }
  return (uint16_t)(c ^ 0xffffu);
}

int ornic_vcrc_compute_at(const uint8_t *lrh, size_t len, size_t vcrc_off, uint16_t *vcrc) {
  if (!lrh || !vcrc || vcrc_off < ORNIC_LRH_LEN) return ORNIC_ERR_INVALID_ARG;
  if (len < vcrc_off) return ORNIC_ERR_TRUNCATED;
  *vcrc = vcrc_calc(lrh, vcrc_off);
  return ORNIC_OK;
}

int ornic_vcrc_compute(const ornic_frame *f, const uint8_t *data, uint16_t *vcrc) {
  if (f->link != ORNIC_LINK_IB || !data || !vcrc) return ORNIC_ERR_INVALID_ARG;
  if (!f->vcrc_present) return ORNIC_ERR_TRUNCATED;
  return ornic_vcrc_compute_at(data, f->caplen, f->vcrc_off, vcrc);
}

int ornic_vcrc_verify(const ornic_frame *f, const uint8_t *data) {
  uint16_t want;
  int rc = ornic_vcrc_compute(f, data, &want);
  if (rc < 0) return rc;
  return want == f->vcrc ? ORNIC_OK : ORNIC_ERR_BAD_VCRC;
}

/* ---- decoding (called by ornic_frame_decode.c) ----------------------------- */

int ornic_ib_decode_lrh(ornic_frame *f, const uint8_t *data, size_t len) {
  if (ornic_lrh_decode(&f->lrh, data, len) < 0) return ORNIC_ERR_TRUNCATED;
  f->layers |= ORNIC_LAYER_LRH;
  /* PktLen counts the LRH through the iCRC; the VCRC follows. Trailing bytes
   * after the VCRC are ignored, as Ethernet padding is (PROTOCOL.md 2.7). */
  size_t end = (size_t)f->lrh.pktlen * 4;
  if (end >= ORNIC_LRH_LEN) {
    f->vcrc_off = end;
    if (len >= end + ORNIC_VCRC_LEN) {
      f->vcrc = (uint16_t)(data[end] | data[end + 1] << 8);
      f->vcrc_present = true;
    }
  }
  if (f->lrh.lnh != ORNIC_LNH_IBA_LOCAL && f->lrh.lnh != ORNIC_LNH_IBA_GLOBAL)
    return ORNIC_ERR_NOT_ROCE; /* raw or IP non-IBA transport: no BTH */
  size_t hdrs = ORNIC_LRH_LEN + (f->lrh.lnh == ORNIC_LNH_IBA_GLOBAL ? GRH_LEN : 0);
  f->roce_end = end;
  if (end < hdrs + ORNIC_BTH_LEN + ORNIC_ICRC_LEN) f->malformed |= ORNIC_MAL_LRH_LEN;
  if (end < hdrs) return ORNIC_ERR_MALFORMED; /* not even the GRH: nothing after the LRH */
  return (int)hdrs;
}

void ornic_ib_check_grh(ornic_frame *f) {
  /* GRH PayLen counts the bytes after the GRH through the iCRC (IBA 8.3.1),
   * total_len = 40 + PayLen; PktLen rules where they disagree (as Wireshark). */
  if (f->ip.total_len != (size_t)f->lrh.pktlen * 4 - ORNIC_LRH_LEN)
    f->malformed |= ORNIC_MAL_LRH_LEN;
}

int ornic_ib_decode_end(ornic_frame *f, int rc) {
  if (f->malformed & ORNIC_MAL_LRH_LEN) f->malformed &= (uint16_t)~ORNIC_MAL_ROCE_SHORT;
  if (rc == ORNIC_OK && !f->vcrc_present) rc = ORNIC_ERR_TRUNCATED;
  return f->malformed ? ORNIC_ERR_MALFORMED : rc;
}

/* ---- encoding (called by ornic_frame_encode) ------------------------------- */

typedef struct {
  const ornic_opcode_info *op;
  bool global; /* a GRH: f->l3 == ORNIC_L3_GRH */
  size_t hdrs; /* LRH [+ GRH] */
  size_t dc;   /* DC bytes after the BTH (opcode.h), written as zeros */
  size_t ext;  /* extension headers */
  uint8_t pad;
  size_t pkt; /* LRH through iCRC = PktLen * 4 */
} ib_plan;

/* Every check before the first byte is written, so that an error leaves
 * `out` untouched (the header encoders then cannot fail). */
static int plan(const ornic_frame *f, ib_plan *pl) {
  const ornic_lrh *l = &f->lrh;
  pl->op = ornic_opcode_info_get(f->bth.opcode);
  if (!pl->op->name) return ORNIC_ERR_UNKNOWN_OPCODE;
  if (f->payload_len && (!f->payload || !(pl->op->flags & ORNIC_OPF_PAYLOAD)))
    return ORNIC_ERR_INVALID_ARG;
  if (l->vl > 15 || l->lver > 15 || l->sl > 15 || l->resv2 > 3 || l->resv5 > 31)
    return ORNIC_ERR_INVALID_ARG;
  pl->global = f->l3 == ORNIC_L3_GRH;
  if (pl->global && f->ip.flow_label > 0xfffff) return ORNIC_ERR_INVALID_ARG;
  pl->hdrs = ORNIC_LRH_LEN + (pl->global ? GRH_LEN : 0);
  ornic_bth bth = f->bth;
  bth.padcnt = 0; /* derived */
  if (!ornic_bth_valid(&bth) || !ornic_ext_valid(&f->ext, pl->op->hdrs))
    return ORNIC_ERR_INVALID_ARG;
  pl->ext = ornic_ext_size(&f->ext, pl->op->hdrs);
  if (f->payload_len > (size_t)ORNIC_LRH_PKTLEN_MAX * 4) return ORNIC_ERR_INVALID_ARG;
  pl->pad = (uint8_t)((4 - (pl->ext + f->payload_len) % 4) % 4);
  pl->dc = ornic_opcode_dc_len(f->bth.opcode, f->bth.se);
  pl->pkt = pl->hdrs + ORNIC_BTH_LEN + pl->dc + pl->ext + f->payload_len + pl->pad + ORNIC_ICRC_LEN;
  if (pl->pkt / 4 > ORNIC_LRH_PKTLEN_MAX) return ORNIC_ERR_INVALID_ARG;
  return ORNIC_OK;
}

size_t ornic_ib_frame_encode_capacity(const ornic_frame *f) {
  ib_plan pl;
  return plan(f, &pl) < 0 ? 0 : pl.pkt + ORNIC_VCRC_LEN;
}

static uint8_t *put_grh(uint8_t *p, const ornic_ip *ip, size_t paylen) {
  p = ornic_put_u32(p, 6u << 28 | (uint32_t)ip->tos << 20 | ip->flow_label);
  p = ornic_put_u16(p, (uint16_t)paylen);
  p = ornic_put_u8(p, ORNIC_GRH_NXTHDR_BTH);
  p = ornic_put_u8(p, ip->ttl); /* HopLmt */
  memcpy(p, ip->src, 16);       /* SGID */
  memcpy(p + 16, ip->dst, 16);  /* DGID */
  return p + 32;
}

ornic_ssize ornic_ib_frame_encode(uint8_t *out, size_t cap, const ornic_frame *f) {
  ib_plan pl;
  int rc = plan(f, &pl);
  if (rc < 0) return rc;
  if (cap < pl.pkt + ORNIC_VCRC_LEN) return ORNIC_ERR_NOBUF;
  ornic_lrh lrh = f->lrh;
  lrh.lnh = pl.global ? ORNIC_LNH_IBA_GLOBAL : ORNIC_LNH_IBA_LOCAL;
  lrh.pktlen = (uint16_t)(pl.pkt / 4);
  ornic_bth bth = f->bth;
  bth.padcnt = pl.pad;
  uint8_t *p = out;
  p += ornic_lrh_encode(p, ORNIC_LRH_LEN, &lrh);
  if (pl.global) p = put_grh(p, &f->ip, pl.pkt - pl.hdrs);
  p += ornic_bth_encode(p, ORNIC_BTH_LEN, &bth);
  memset(p, 0, pl.dc);
  p += pl.dc;
  if (pl.ext) p += ornic_ext_encode(p, pl.ext, &f->ext, pl.op->hdrs);
  if (f->payload_len) memcpy(p, f->payload, f->payload_len);
  p += f->payload_len;
  memset(p, 0, pl.pad);
  p += pl.pad;
  p = ornic_put_u32le(p, ornic_icrc_ib_calc(out, (size_t)(p - out)));
  uint16_t vcrc = vcrc_calc(out, pl.pkt);
  p = ornic_put_u8(p, (uint8_t)vcrc);
  p = ornic_put_u8(p, (uint8_t)(vcrc >> 8));
  return (ornic_ssize)(p - out);
}
