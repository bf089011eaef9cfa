/* SPDX-License-Identifier: MIT */
#include "profile.h"

#include <string.h>

/* Wire encodings: pcapgen/README.md; the models: the top of each file. */
static const profile table[] = {
    {"ornic",
     "ORNIC out-of-order WRITE and READ: sprayed packets placed on arrival, aggregated ACKs, "
     "NAK bitmaps",
     PROFILE_READ | PROFILE_BITMAP | PROFILE_ACK_OPTIONS | PROFILE_WINDOW | PROFILE_OTD,
     "nak-bitmap", "sprayed", NULL, &ornic_engines},
    {"roce",
     "standard RoCEv2 RC WRITE: in order, PSN sequence error NAK and go-back-N; --rnic ideal "
     "(instant reactions) or commodity (a hardware RNIC's delays, coalesced ACKs, ms timeouts)",
     PROFILE_ACK_OPTIONS | PROFILE_WINDOW | PROFILE_RNIC, "go-back-n", "sprayed", NULL,
     &roce_engines},
    {"irn",
     "IRN selective repeat: address in every packet, per-packet ACK, NACK with trigger PSN, "
     "BDP window; recovery after --irn-nack-threshold NACKs (OTD on a reordering fabric)",
     PROFILE_OTD | PROFILE_NACK_THRESHOLD, "selective-nack", "sprayed", NULL, &irn_engines},
    {"mprdma",
     "MP-RDMA: address in every packet, one ACK per packet on its path, ACK-clocked paths, "
     "receive bitmap of --otd packets (the maximum OOO degree; later packets are dropped), BDP "
     "window",
     PROFILE_OTD, "path-order", "ack-clocked", "outside the OTD-packet bitmap", &mprdma_engines},
    {"ioi",
     "HPE's phases: in-order head on one path (DSCP 24) until the first ACK, sprayed middle, "
     "in-order tail as long as the head then outstanding, held until the middle is acked; BDP "
     "window",
     0, "path-order", "pinned-ends", "before the WQE's First", &ioi_engines},
    {"left",
     "LEFT reorder buffer on standard RC WRITE: sprayed packets held or placed, no response to "
     "out-of-order arrivals, NAK of the cumulative PSN once --otd later PSNs arrived, selective "
     "resend; BDP window",
     PROFILE_OTD, "selective-nak", "sprayed", NULL, &left_engines},
    {"rc",
     "standard RoCEv2 RC between two hosts that are both requesters on each QP pair: SEND, "
     "WRITE (with or without immediate) and READ, many outstanding, coalesced ACKs, NAK and "
     "go-back-N",
     PROFILE_TWO_HOSTS, "go-back-n", "one-per-qp", NULL, &rc_engines},
};

#define NPROFILES (sizeof table / sizeof *table)

const profile *profile_at(size_t i) { return i < NPROFILES ? &table[i] : NULL; }
const profile *profile_default(void) { return &table[0]; }

const profile *profile_find(const char *name) {
  for (size_t i = 0; i < NPROFILES; i++)
    if (strcmp(name, table[i].name) == 0) return &table[i];
  return NULL;
}

void profile_names(char *buf, size_t len) {
  size_t n = 0;
  if (!len) return;
  buf[0] = 0;
  for (size_t i = 0; i < NPROFILES && n < len; i++) {
    const char *sep = i == 0 ? "" : i + 1 == NPROFILES ? " or " : ", ";
    int w = snprintf(buf + n, len - n, "%s%s", sep, table[i].name);
    n += w > 0 ? (size_t)w : 0;
  }
}

/* The capability words of --list-profiles, in this order. */
static void caps_words(FILE *f, const profile *p) {
  static const struct {
    unsigned cap;
    bool set; /* the word stands for the cap being set (else: not set) */
    const char *word;
  } words[] = {{PROFILE_READ, true, "read"},
               {PROFILE_TWO_HOSTS, false, "plot"},
               {PROFILE_TWO_HOSTS, true, "two-hosts"},
               {PROFILE_ACK_OPTIONS, true, "ack-every"},
               {PROFILE_WINDOW, true, "window"},
               {PROFILE_BITMAP, true, "bitmap-pool"},
               {PROFILE_OTD, true, "otd"},
               {PROFILE_RNIC, true, "rnic"},
               {PROFILE_NACK_THRESHOLD, true, "nack-threshold"}};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (((p->caps & words[i].cap) != 0) == words[i].set) fprintf(f, "%s ", words[i].word);
  if (p->rx_drops) fputs("receiver-drops ", f);
  fprintf(f, "recovery=%s paths=%s", p->recovery, p->paths);
}

void profile_list(FILE *f) {
  for (size_t i = 0; i < NPROFILES; i++) {
    fprintf(f, "%s\t%s\t", table[i].name, table[i].description);
    caps_words(f, &table[i]);
    fputc('\n', f);
  }
}
