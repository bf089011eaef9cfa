/* SPDX-License-Identifier: MIT */
/* What the capture shows of the fabric (PFC and PAUSE frames) and of the
 * capture path (snaplen cuts, a rewritten UDP source port): stats_fabric.h.
 * The frames' fields are libornicproto's (ornic/pause.h, PROTOCOL.md 2.9);
 * this file only sums them. */
#include "stats_fabric.h"

#include <stdlib.h>
#include <string.h>

#include <ornic/ornic.h>

#define U(x) ((unsigned long long)(x))

static const uint8_t reserved_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

static uint32_t link_gbps(const dec_fabric *fb) {
  return fb->link_gbps ? fb->link_gbps : DEC_FABRIC_DEFAULT_GBPS;
}

/* The sender's entry, added when new; NULL past DEC_FABRIC_MAX_SENDERS or
 * when memory runs out. The last one found is tried first: a PFC storm
 * comes from one port. */
static dec_fabric_sender *sender(dec_fabric *fb, const uint8_t *mac) {
  if (fb->nsenders && memcmp(fb->senders[fb->last].mac, mac, 6) == 0) return &fb->senders[fb->last];
  for (size_t i = 0; i < fb->nsenders; i++) {
    if (memcmp(fb->senders[i].mac, mac, 6) != 0) continue;
    fb->last = i;
    return &fb->senders[i];
  }
  if (fb->nsenders == DEC_FABRIC_MAX_SENDERS) return NULL;
  if (fb->nsenders == fb->cap) {
    size_t cap = fb->cap ? 2 * fb->cap : 4;
    dec_fabric_sender *s = realloc(fb->senders, cap * sizeof *s);
    if (!s) return NULL;
    fb->senders = s;
    fb->cap = cap;
  }
  dec_fabric_sender *s = &fb->senders[fb->nsenders];
  memset(s, 0, sizeof *s);
  memcpy(s->mac, mac, 6);
  fb->last = fb->nsenders++;
  return s;
}

static void row_add(dec_fabric_row *r, uint16_t q, uint64_t ns, const dec_packet *pk) {
  if (!r->frames) {
    r->first_sec = pk->sec;
    r->first_nsec = pk->nsec;
  }
  r->last_sec = pk->sec;
  r->last_nsec = pk->nsec;
  r->frames++;
  if (q)
    r->xoff++;
  else
    r->xon++;
  r->quanta_total += q;
  if (q > r->quanta_max) r->quanta_max = q;
  r->pause_ns += ns;
}

static void add_pause(dec_fabric *fb, const dec_packet *pk) {
  const ornic_pause *p = &pk->pause;
  bool pfc = p->opcode == ORNIC_PAUSE_OP_PFC;
  if (pfc)
    fb->pfc_frames++;
  else
    fb->pause_frames++;
  if (memcmp(p->dst, reserved_dst, 6) != 0) fb->other_dst++;
  dec_fabric_sender *s = sender(fb, p->src);
  if (!s) {
    fb->untracked_frames++;
    return;
  }
  uint32_t gbps = link_gbps(fb);
  if (!pfc) {
    row_add(&s->row[DEC_FABRIC_PAUSE_ROW], p->quanta[0], ornic_pause_ns(p->quanta[0], gbps), pk);
    return;
  }
  /* A class's time counts only where the priority-enable vector sets its bit. */
  for (unsigned i = 0; i < ORNIC_PAUSE_CLASSES; i++)
    if (p->enable & (1u << i))
      row_add(&s->row[i], p->quanta[i], ornic_pause_ns(p->quanta[i], gbps), pk);
}

/* A RoCE frame the snaplen cut after its BTH: packet.c leaves the library's
 * ORNIC_ERR_TRUNCATED unreported (no error) when the record is shorter than
 * the frame; a malformed frame that was also cut has payload_caplen <
 * payload_len. */
static bool snaplen_cut(const dec_packet *pk) {
  if (!pk->snap_cut) return false;
  return pk->rc == ORNIC_ERR_TRUNCATED ||
         (pk->has_payload && pk->f.payload_caplen < pk->f.payload_len);
}

static void add_roce(dec_fabric *fb, const dec_packet *pk) {
  if (snaplen_cut(pk)) {
    if (!fb->roce_cut++ || pk->caplen < fb->cut_min) fb->cut_min = pk->caplen;
    if (pk->caplen > fb->cut_max) fb->cut_max = pk->caplen;
  }
  bool on_4791 = pk->has_udp && pk->f.udp.sport == ORNIC_ROCEV2_UDP_PORT;
  if (pk->icrc == DEC_ICRC_BAD) {
    if (on_4791)
      fb->bad_4791++;
    else
      fb->bad_other++;
  } else if (pk->icrc == DEC_ICRC_OK && pk->has_udp) {
    if (on_4791)
      fb->ok_4791++;
    else
      fb->ok_other++;
  }
}

void dec_fabric_add(dec_fabric *fb, const dec_packet *pk) {
  if (pk->cls == DEC_CLASS_ROCE) {
    add_roce(fb, pk);
  } else if (pk->cls == DEC_CLASS_SKIPPED) {
    if (pk->skip == DEC_SKIP_PAUSE) add_pause(fb, pk);
    if (pk->skip == DEC_SKIP_SNAPLEN) fb->cut_before_bth++;
  }
}

void dec_fabric_free(dec_fabric *fb) {
  free(fb->senders);
  fb->senders = NULL;
  fb->nsenders = fb->cap = fb->last = 0;
}

/* Every bad iCRC is on UDP source port 4791, and there is one: the capture
 * path (a mirror, a tap, a sniffer that rebuilds the UDP header) wrote 4791
 * over the sender's source port after the iCRC, which covers the port, had
 * been computed over the original. Frames from other ports all check. */
static bool sport_rewritten(const dec_fabric *fb) { return fb->bad_4791 && !fb->bad_other; }

static void put_mac(dec_out *o, const uint8_t *m) {
  dec_out_printf(o, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* ---- text ---- */

static void text_quality(dec_out *o, const dec_fabric *fb) {
  if (!fb->roce_cut && !fb->cut_before_bth && !fb->bad_4791 && !fb->bad_other) return;
  dec_out_lit(o, "quality   ");
  if (!fb->roce_cut) {
    dec_out_lit(o, "no RoCE frame cut by the snaplen");
  } else {
    dec_out_printf(o, "%llu RoCE frame%s cut by the snaplen (", U(fb->roce_cut),
                   fb->roce_cut == 1 ? "" : "s");
    if (fb->cut_min == fb->cut_max)
      dec_out_printf(o, "%u bytes kept", fb->cut_max);
    else
      dec_out_printf(o, "%u to %u bytes kept", fb->cut_min, fb->cut_max);
    dec_out_lit(o, ": headers shown, payload and iCRC not all captured)");
  }
  if (fb->cut_before_bth) dec_out_printf(o, ", %llu before the BTH", U(fb->cut_before_bth));
  dec_out_printf(o, "; bad iCRCs: %llu with UDP source port 4791, %llu other\n", U(fb->bad_4791),
                 U(fb->bad_other));
  if (!sport_rewritten(fb)) return;
  dec_out_printf(o, "quality   every bad iCRC has UDP source port 4791 (%llu) and ",
                 U(fb->bad_4791));
  if (fb->ok_other)
    dec_out_printf(o, "every frame from another source port has a good one (%llu)",
                   U(fb->ok_other));
  else
    dec_out_lit(o, "no frame has another source port");
  dec_out_lit(o,
              ": the capture path rewrote the source port after the iCRC was computed over"
              " the original, not corruption\n");
}

static void text_row(dec_out *o, const uint8_t *mac, unsigned prio, const dec_fabric_row *r) {
  dec_out_lit(o, "  ");
  put_mac(o, mac);
  if (prio == DEC_FABRIC_PAUSE_ROW)
    dec_out_printf(o, " %5s", "all");
  else
    dec_out_printf(o, " %5u", prio);
  dec_out_printf(o, " %8llu %8llu %8llu %13llu %10u %14llu  ", U(r->frames), U(r->xoff), U(r->xon),
                 U(r->quanta_total), r->quanta_max, U(r->pause_ns));
  dec_out_time(o, r->first_sec, r->first_nsec);
  dec_out_lit(o, "  ");
  dec_out_time(o, r->last_sec, r->last_nsec);
  dec_out_char(o, '\n');
}

static void text_pause(dec_out *o, const dec_fabric *fb) {
  uint64_t frames = fb->pfc_frames + fb->pause_frames;
  if (!frames) return;
  dec_out_printf(o,
                 "pause     %llu frames: %llu PFC (802.1Qbb), %llu PAUSE (802.3x) from %zu "
                 "senders; pause_ns at %u Gb/s (--link-gbps), a quantum is 512 bit times",
                 U(frames), U(fb->pfc_frames), U(fb->pause_frames), fb->nsenders, link_gbps(fb));
  if (fb->other_dst) dec_out_printf(o, "; %llu not to 01:80:c2:00:00:01", U(fb->other_dst));
  if (fb->untracked_frames)
    dec_out_printf(o, "; %llu from senders past the first %d, not tabled", U(fb->untracked_frames),
                   DEC_FABRIC_MAX_SENDERS);
  dec_out_printf(o, "\n  %-17s %5s %8s %8s %8s %13s %10s %14s  %-20s  %s\n", "sender", "prio",
                 "frames", "xoff", "xon", "quanta_total", "quanta_max", "pause_ns", "first",
                 "last");
  for (size_t i = 0; i < fb->nsenders; i++)
    for (unsigned prio = 0; prio < DEC_FABRIC_ROWS; prio++)
      if (fb->senders[i].row[prio].frames)
        text_row(o, fb->senders[i].mac, prio, &fb->senders[i].row[prio]);
}

void dec_fabric_print_text(dec_out *o, const dec_fabric *fb) {
  text_quality(o, fb);
  text_pause(o, fb);
}

/* ---- JSON ---- */

static void json_row(dec_out *o, const uint8_t *mac, unsigned prio, const dec_fabric_row *r) {
  dec_out_lit(o, "{\"src\":\"");
  put_mac(o, mac);
  if (prio == DEC_FABRIC_PAUSE_ROW)
    dec_out_lit(o, "\",\"kind\":\"pause\",\"priority\":null");
  else
    dec_out_printf(o, "\",\"kind\":\"pfc\",\"priority\":%u", prio);
  dec_out_printf(o,
                 ",\"frames\":%llu,\"xoff\":%llu,\"xon\":%llu,\"quanta_total\":%llu,"
                 "\"quanta_max\":%u,\"pause_ns\":%llu,\"time\":{\"first\":\"",
                 U(r->frames), U(r->xoff), U(r->xon), U(r->quanta_total), r->quanta_max,
                 U(r->pause_ns));
  dec_out_time(o, r->first_sec, r->first_nsec);
  dec_out_lit(o, "\",\"last\":\"");
  dec_out_time(o, r->last_sec, r->last_nsec);
  dec_out_lit(o, "\"}}");
}

static void json_pause(dec_out *o, const dec_fabric *fb) {
  dec_out_printf(o,
                 ",\"pause\":{\"frames\":%llu,\"pfc_frames\":%llu,\"pause_frames\":%llu,"
                 "\"senders\":%zu,\"not_reserved_dst\":%llu,\"untracked_frames\":%llu,\"rows\":[",
                 U(fb->pfc_frames + fb->pause_frames), U(fb->pfc_frames), U(fb->pause_frames),
                 fb->nsenders, U(fb->other_dst), U(fb->untracked_frames));
  bool first = true;
  for (size_t i = 0; i < fb->nsenders; i++)
    for (unsigned prio = 0; prio < DEC_FABRIC_ROWS; prio++) {
      if (!fb->senders[i].row[prio].frames) continue;
      if (!first) dec_out_char(o, ',');
      json_row(o, fb->senders[i].mac, prio, &fb->senders[i].row[prio]);
      first = false;
    }
  dec_out_lit(o, "]}");
}

static void json_quality(dec_out *o, const dec_fabric *fb) {
  dec_out_printf(o, ",\"capture_quality\":{\"snaplen_cut\":%llu,", U(fb->roce_cut));
  if (fb->roce_cut)
    dec_out_printf(o, "\"snaplen_kept\":{\"min\":%u,\"max\":%u},", fb->cut_min, fb->cut_max);
  else
    dec_out_lit(o, "\"snaplen_kept\":null,");
  dec_out_printf(o,
                 "\"snaplen_before_bth\":%llu,\"icrc_bad_sport_4791\":%llu,\"icrc_bad_other\":%llu,"
                 "\"icrc_ok_sport_4791\":%llu,\"icrc_ok_sport_other\":%llu,"
                 "\"sport_rewritten\":%s}",
                 U(fb->cut_before_bth), U(fb->bad_4791), U(fb->bad_other), U(fb->ok_4791),
                 U(fb->ok_other), sport_rewritten(fb) ? "true" : "false");
}

void dec_fabric_print_json(dec_out *o, const dec_fabric *fb) {
  dec_out_printf(o, ",\"fabric\":{\"link_gbps\":%u", link_gbps(fb));
  json_pause(o, fb);
  json_quality(o, fb);
  dec_out_char(o, '}');
}
