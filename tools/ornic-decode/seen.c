/* SPDX-License-Identifier: MIT */
/* The note on a capture without RoCE (seen.h). */
#include "seen.h"

#include <stdio.h>
#include <string.h>

void dec_seen_add(dec_seen *s, const dec_packet *pk) {
  s->frames++;
  if (pk->cls != DEC_CLASS_SKIPPED) {
    s->roce++;
    return;
  }
  switch (pk->skip) {
  case DEC_SKIP_FRAGMENT: s->frag++; return;
  case DEC_SKIP_SNAPLEN: s->snap++; return;
  case DEC_SKIP_UNSUPPORTED: s->unsupported++; return;
  default: break;
  }
  /* The library stops at the first layer that is not RoCE's and fills in
   * no IP header for TCP: only "UDP to another port" is told apart. */
  if (pk->has_udp)
    s->udp++;
  else
    s->other++;
}

/* ", N WHAT" for each kind that occurred, after what buf holds. */
static void add_kind(char *buf, size_t len, uint64_t n, const char *what) {
  size_t k = strlen(buf);
  if (n && k < len)
    snprintf(buf + k, len - k, "%s%llu %s", k ? ", " : "", (unsigned long long)n, what);
}

bool dec_seen_note_no_roce(const dec_seen *s, const dec_seen_ctx *c) {
  if (s->roce) return false;
  char kinds[256] = "", filtered[256] = "";
  add_kind(kinds, sizeof kinds, s->udp, "UDP to other ports");
  add_kind(kinds, sizeof kinds, s->other, "other protocols");
  add_kind(kinds, sizeof kinds, s->frag, "IPv4 fragments");
  add_kind(kinds, sizeof kinds, s->snap, "cut by the snaplen before the BTH");
  add_kind(kinds, sizeof kinds, s->unsupported, "unsupported");
  if (c->filter)
    snprintf(filtered, sizeof filtered, ", %llu passed -f '%s'", (unsigned long long)s->frames,
             c->filter);
  fprintf(stderr,
          "ornic-decode: %llu frames %s%s, none RoCE (UDP port %u or EtherType 0x8915)%s%s; "
          "offloaded RDMA traffic does not reach tcpdump on most NICs: see README.md "
          "\"Capturing RoCE\"\n",
          (unsigned long long)c->records, c->live ? "captured" : "read", filtered, c->port,
          kinds[0] ? ": " : "", kinds);
  return true;
}
