/* SPDX-License-Identifier: MIT */
/* Frame -> verdict. The library says what it could read; this file decides
 * what that means for a capture: a frame cut by the capture's snaplen
 * (caplen < original length) is normal and shown as far as it goes, while a
 * frame that is whole on the wire but still too short is an error. */
#include "packet.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "linktype.h"

static const char *const skip_texts[DEC_SKIP_COUNT] = {
    [DEC_SKIP_NONE] = "",
    [DEC_SKIP_NOT_ROCE] = "not RoCE",
    [DEC_SKIP_FRAGMENT] = "IPv4 fragment",
    [DEC_SKIP_SNAPLEN] = "cut by snaplen before the BTH",
    [DEC_SKIP_UNSUPPORTED] = "unsupported by the decoder",
    [DEC_SKIP_PAUSE] = "PFC/PAUSE"};
static const char *const skip_keys[DEC_SKIP_COUNT] = {[DEC_SKIP_NONE] = "",
                                                      [DEC_SKIP_NOT_ROCE] = "not_roce",
                                                      [DEC_SKIP_FRAGMENT] = "ipv4_fragment",
                                                      [DEC_SKIP_SNAPLEN] = "snaplen_before_bth",
                                                      [DEC_SKIP_UNSUPPORTED] = "unsupported",
                                                      [DEC_SKIP_PAUSE] = "pfc_pause"};

const char *dec_skip_text(dec_skip s) { return s < DEC_SKIP_COUNT ? skip_texts[s] : "?"; }
const char *dec_skip_key(dec_skip s) { return s < DEC_SKIP_COUNT ? skip_keys[s] : "?"; }

static void set_skip(dec_packet *pk, dec_skip why) {
  pk->cls = DEC_CLASS_SKIPPED;
  pk->skip = why;
}

/* A frame shorter than its own IP/UDP lengths although nothing was cut. */
static void error_truncated(dec_packet *pk) {
  const ornic_frame *f = &pk->f;
  if (f->roce_end)
    snprintf(pk->errbuf, sizeof pk->errbuf,
             "truncated: the frame has %u bytes but its IP/UDP lengths end at byte %zu", pk->caplen,
             pk->link_off + f->roce_end);
  else
    snprintf(pk->errbuf, sizeof pk->errbuf, "truncated: the %u-byte frame ends inside a header",
             pk->caplen);
  pk->error = pk->errbuf;
}

static void error_code(dec_packet *pk, int rc) {
  if (rc == ORNIC_ERR_UNKNOWN_OPCODE) {
    snprintf(pk->errbuf, sizeof pk->errbuf, "unknown BTH opcode 0x%02x", pk->f.bth.opcode);
    pk->error = pk->errbuf;
  } else if (rc == ORNIC_ERR_TRUNCATED) {
    error_truncated(pk);
  } else if (rc == ORNIC_ERR_MALFORMED) {
    static const char lead[] = "malformed: ";
    memcpy(pk->errbuf, lead, sizeof lead);
    ornic_frame_explain_malformed(&pk->f, pk->errbuf + sizeof lead - 1,
                                  sizeof pk->errbuf - (sizeof lead - 1));
    pk->error = pk->errbuf;
  } else {
    pk->error = ornic_strerror(rc);
  }
}

/* What the library filled in: f->layers says which layers were read. */
static void note_layers(dec_packet *pk) {
  const ornic_frame *f = &pk->f;
  pk->has_vlan = f->link == ORNIC_LINK_ETHERNET && f->eth.has_vlan;
  pk->has_l3 = f->l3 != ORNIC_L3_NONE;
  pk->has_udp = (f->layers & ORNIC_LAYER_UDP) != 0;
  pk->has_bth = (f->layers & ORNIC_LAYER_BTH) != 0;
  /* The library sets the payload view only once PadCnt and the payload rules
   * held (a malformed frame whose UDP length ends early still has one). */
  pk->has_payload = f->payload != NULL;
}

static void check_icrc(dec_packet *pk, const dec_decode_cfg *cfg, const uint8_t *l2) {
  /* Whenever the lengths locate the iCRC and it was captured it is checked:
   * an unknown opcode or a malformed layout under a good iCRC is what the
   * sender meant; under a bad one, the frame was damaged. */
  if (!pk->f.icrc_present) {
    pk->icrc = DEC_ICRC_NA;
  } else if (!cfg->verify_icrc) {
    pk->icrc = DEC_ICRC_UNCHECKED;
  } else if (ornic_icrc_compute(&pk->f, l2, &pk->icrc_want) != ORNIC_OK) {
    pk->icrc = DEC_ICRC_NA;
  } else {
    pk->icrc = pk->icrc_want == pk->f.icrc ? DEC_ICRC_OK : DEC_ICRC_BAD;
  }
  /* Native InfiniBand: the VCRC the same way (--no-icrc skips it too). */
  if (!pk->f.vcrc_present)
    pk->vcrc = DEC_ICRC_NA;
  else if (!cfg->verify_icrc)
    pk->vcrc = DEC_ICRC_UNCHECKED;
  else if (ornic_vcrc_compute(&pk->f, l2, &pk->vcrc_want) != ORNIC_OK)
    pk->vcrc = DEC_ICRC_NA;
  else
    pk->vcrc = pk->vcrc_want == pk->f.vcrc ? DEC_ICRC_OK : DEC_ICRC_BAD;
}

static void classify(dec_packet *pk) {
  int rc = pk->rc;
  if (rc == ORNIC_OK) return;
  if (rc == ORNIC_ERR_NOT_ROCE) {
    set_skip(pk, DEC_SKIP_NOT_ROCE);
    return;
  }
  if (rc == ORNIC_ERR_UNSUPPORTED) {
    bool frag = pk->f.ip.version == 4 && (pk->f.ip.frag & 0x3fff);
    set_skip(pk, frag ? DEC_SKIP_FRAGMENT : DEC_SKIP_UNSUPPORTED);
    return;
  }
  if (rc == ORNIC_ERR_TRUNCATED && pk->snap_cut) {
    if (!pk->has_bth) set_skip(pk, DEC_SKIP_SNAPLEN);
    return; /* a snaplen cut is no error: show what was captured */
  }
  if (!pk->has_bth) pk->cls = DEC_CLASS_BROKEN;
  error_code(pk, rc);
}

static void decode_link(dec_packet *pk, const dec_decode_cfg *cfg, const uint8_t *data) {
  ornic_link link = ORNIC_LINK_ETHERNET;
  int lr = cfg->dlt == DLT_EN10MB
               ? DEC_LINK_OK /* the usual case, without a call */
               : dec_link_locate(cfg->dlt, data, pk->caplen, &link, &pk->link_off);
  if (lr != DEC_LINK_OK) {
    /* The library never sees this frame, and its decode is what resets f:
     * cleared here, or the printers would show the previous frame's layers
     * (a native IB frame's LRH) and, on a first frame, uninitialised bytes.
     * Rare frames only: a clean frame pays for no second reset. */
    memset(&pk->f, 0, sizeof pk->f);
  }
  if (lr == DEC_LINK_NOT_ROCE) {
    set_skip(pk, DEC_SKIP_NOT_ROCE);
    return;
  }
  if (lr == DEC_LINK_TRUNCATED) {
    if (pk->snap_cut) {
      set_skip(pk, DEC_SKIP_SNAPLEN);
    } else {
      pk->cls = DEC_CLASS_BROKEN;
      pk->error = "truncated: the frame ends inside its link-layer header";
    }
    return;
  }
  const uint8_t *l2 = data + pk->link_off;
  pk->rc = ornic_frame_decode(&pk->f, l2, pk->caplen - pk->link_off, link, cfg->udp_port);
  note_layers(pk);
  classify(pk);
  /* Not RoCE on Ethernet: an 802.3x PAUSE or 802.1Qbb PFC frame is told
   * apart (--stats counts them beside the RoCE flows, stats_fabric.c). */
  if (pk->skip == DEC_SKIP_NOT_ROCE && link == ORNIC_LINK_ETHERNET &&
      ornic_pause_decode(l2, pk->caplen - pk->link_off, link, &pk->pause) == ORNIC_OK)
    pk->skip = DEC_SKIP_PAUSE;
  if (cfg->later_crc)
    pk->crc_pending = true;
  else
    check_icrc(pk, cfg, l2);
  pk->warnings = ornic_lint(&pk->f, l2, cfg->pmtu);
}

void dec_packet_crc(dec_packet *pk, const dec_decode_cfg *cfg, const uint8_t *data) {
  if (pk->crc_pending) check_icrc(pk, cfg, data + pk->link_off);
}

#ifndef DLT_ERF
#define DLT_ERF 197
#endif
#define ERF_HDR_LEN 16

/* ERF's timestamp: 8 bytes little-endian, seconds in the upper 32 bits and
 * a binary fraction of a second (units of 2^-32 s, about 233 ps) in the
 * lower. The fraction times 10^9 fits 64 bits (below 2^62); bit 31 of the
 * product is the half that rounds up, and a fraction that rounds to 10^9
 * carries into the seconds: Wireshark's arithmetic (wiretap/pcap-common.c
 * pcap_read_erf_pseudoheader), which adds 2^32 when bit 31 is set, and
 * libpcap's pcap-dag.c, which adds 2^31: the same result. */
static void erf_time(const uint8_t *d, int64_t *sec, uint32_t *nsec) {
  uint64_t ts = 0;
  for (int i = 7; i >= 0; i--) ts = ts << 8 | d[i];
  uint64_t frac = (ts & 0xffffffffu) * 1000000000u;
  frac += (frac & 0x80000000u) << 1;
  *sec = (int64_t)(ts >> 32);
  *nsec = (uint32_t)(frac >> 32);
  if (*nsec >= 1000000000u) {
    *nsec -= 1000000000u;
    *sec += 1;
  }
}

/* A pcap record's seconds are unsigned 32-bit (1970 to 2106, as tshark
 * reads them), but libpcap copies them through its signed 32-bit
 * pcap_timeval, so from 2038 on tv_sec arrives negative. pcapng's are 64-bit
 * and libpcap's tv_sec holds them as they are. tv_usec holds nanoseconds:
 * the capture was opened with NANO precision. */
void dec_packet_time(int dlt, bool pcapng, const struct pcap_pkthdr *h, const uint8_t *data,
                     int64_t *sec, uint32_t *nsec) {
  /* pcapng: the block's time, whose resolution the interface gives, as
   * tshark 4.0 shows it. */
  if (dlt == DLT_ERF && !pcapng && h->caplen >= ERF_HDR_LEN) {
    erf_time(data, sec, nsec);
    return;
  }
  *sec = pcapng ? (int64_t)h->ts.tv_sec : (int64_t)(uint32_t)h->ts.tv_sec;
  *nsec = (uint32_t)h->ts.tv_usec;
}

void dec_packet_decode(dec_packet *pk, const dec_decode_cfg *cfg, uint64_t frame,
                       const struct pcap_pkthdr *h, const uint8_t *data) {
  /* Every verdict field (those before errbuf) starts from zero, so that a
   * field added later cannot carry the previous frame's value; errbuf is
   * read only through error, which this clears, and f is reset by the
   * library's decode (or by decode_link when the library never sees it). */
  memset(pk, 0, offsetof(dec_packet, errbuf));
  pk->frame = frame;
  dec_packet_time(cfg->dlt, cfg->pcapng, h, data, &pk->sec, &pk->nsec);
  pk->caplen = h->caplen;
  pk->wire_len = h->len;
  pk->snap_cut = h->caplen < h->len;
  pk->cls = DEC_CLASS_ROCE;
  pk->skip = DEC_SKIP_NONE;
  pk->rc = ORNIC_OK;
  pk->icrc = DEC_ICRC_NA;
  pk->vcrc = DEC_ICRC_NA;
  pk->analysed = false;
  decode_link(pk, cfg, data);
}
