/* SPDX-License-Identifier: MIT */
/* Several captures as one (merge.h). The earliest head is found by a scan:
 * the files are few (a ring of tens), and each record then costs a handful
 * of comparisons beside its decode. */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packet.h"

enum { HEAD_UNREAD, HEAD_READY, HEAD_DONE };

struct dec_merge_head {
  int state;
  const struct pcap_pkthdr *h;
  const uint8_t *data;
  int64_t sec; /* the record's time, as it is shown (dec_packet_time) */
  uint32_t nsec;
};

/* "a.pcap + b.pcap + c.pcap.gz" */
static char *join_names(const dec_merge *m) {
  size_t len = 1;
  for (int i = 0; i < m->n; i++) len += strlen(m->caps[i].in.name) + 3;
  char *s = malloc(len);
  if (!s) return NULL;
  s[0] = '\0';
  for (int i = 0; i < m->n; i++) {
    if (i) strcat(s, " + ");
    strcat(s, m->caps[i].in.name);
  }
  return s;
}

static int alloc(dec_merge *m, int n) {
  memset(m, 0, sizeof *m);
  m->caps = calloc((size_t)n, sizeof *m->caps);
  m->heads = calloc((size_t)n, sizeof *m->heads);
  if (!m->caps || !m->heads) {
    free(m->caps);
    free(m->heads);
    return -1;
  }
  m->n = n;
  return 0;
}

int dec_merge_single(dec_merge *m) { return alloc(m, 1); }

int dec_merge_open(dec_merge *m, const char *const *paths, int n, int *failed, char *err,
                   size_t errlen) {
  *failed = -1;
  if (alloc(m, n) < 0) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (int i = 0; i < n; i++) {
    if (dec_capture_open(&m->caps[i], paths[i], err, errlen) == 0) continue;
    *failed = i;
    m->n = i; /* the ones opened */
    dec_merge_close(m);
    return -1;
  }
  m->name = n > 1 ? join_names(m) : NULL;
  if (n > 1 && !m->name) {
    snprintf(err, errlen, "out of memory");
    dec_merge_close(m);
    return -1;
  }
  return 0;
}

/* Reads file i's next record into its head. -1: the file is damaged. */
static int fill_head(dec_merge *m, int i) {
  dec_merge_head *hd = &m->heads[i];
  dec_capture *c = &m->caps[i];
  int rc = dec_capture_next(c, &hd->h, &hd->data);
  if (rc == 1) {
    hd->state = HEAD_READY;
    dec_packet_time(c->dlt, c->pcapng, hd->h, hd->data, &hd->sec, &hd->nsec);
    return 1;
  }
  hd->state = HEAD_DONE;
  return rc;
}

static bool earlier(const dec_merge_head *a, const dec_merge_head *b) {
  return a->sec < b->sec || (a->sec == b->sec && a->nsec < b->nsec);
}

int dec_merge_next_many(dec_merge *m, const struct pcap_pkthdr **hdr, const uint8_t **data) {
  int best = -1;
  for (int i = 0; i < m->n; i++) {
    /* A head is read only once the record before it was used: a record is
     * a view into its file's reader, valid until that file's next read. */
    if (m->heads[i].state == HEAD_UNREAD && fill_head(m, i) < 0) {
      m->cur = i;
      return -1;
    }
    if (m->heads[i].state != HEAD_READY) continue;
    /* Earlier or as early: of equal times the file named last goes first,
     * as in mergecap (Wireshark 4.0's merge.c, whose is_earlier counts a
     * tie as earlier): the same frame numbers as the files' mergecap'd
     * union. */
    if (best < 0 || !earlier(&m->heads[best], &m->heads[i])) best = i;
  }
  if (best < 0) return 0;
  m->cur = best;
  m->heads[best].state = HEAD_UNREAD;
  m->records++;
  *hdr = m->heads[best].h;
  *data = m->heads[best].data;
  return 1;
}

void dec_merge_close(dec_merge *m) {
  for (int i = 0; i < m->n; i++) dec_capture_close(&m->caps[i]);
  free(m->caps);
  free(m->heads);
  free(m->name);
  memset(m, 0, sizeof *m);
}
