/* SPDX-License-Identifier: MIT */
/* -f on a file (filter.h). */
#include "filter.h"

#include <stdio.h>
#include <string.h>

#include "live.h"

/* The program for dlt, compiled on first use. NULL with a message in err. */
static const struct bpf_program *program(dec_filter *f, int dlt, char *err, size_t errlen) {
  for (int i = 0; i < f->n; i++)
    if (f->dlt[i] == dlt) return &f->prog[i];
  if (f->n == DEC_FILTER_DLTS) {
    snprintf(err, errlen, "-f: more than %d link types in one capture", DEC_FILTER_DLTS);
    return NULL;
  }
  pcap_t *p = pcap_open_dead(dlt, DEC_LIVE_SNAPLEN);
  if (!p) {
    snprintf(err, errlen, "-f: out of memory");
    return NULL;
  }
  /* The netmask only matters to "ip broadcast", as for a live capture. */
  int rc = pcap_compile(p, &f->prog[f->n], f->expr, 1, PCAP_NETMASK_UNKNOWN);
  if (rc < 0) {
    const char *name = pcap_datalink_val_to_name(dlt);
    snprintf(err, errlen, "bad filter '%s' for link type %s: %s", f->expr, name ? name : "?",
             pcap_geterr(p));
  }
  pcap_close(p);
  if (rc < 0) return NULL;
  f->dlt[f->n] = dlt;
  return &f->prog[f->n++];
}

int dec_filter_init(dec_filter *f, const char *expr, int dlt, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  f->expr = expr;
  return program(f, dlt, err, errlen) ? 0 : -1;
}

int dec_filter_match(dec_filter *f, int dlt, const struct pcap_pkthdr *h, const uint8_t *data,
                     char *err, size_t errlen) {
  const struct bpf_program *p = program(f, dlt, err, errlen);
  if (!p) return -1;
  return pcap_offline_filter(p, h, data) != 0;
}

void dec_filter_free(dec_filter *f) {
  for (int i = 0; i < f->n; i++) pcap_freecode(&f->prog[i]);
  f->n = 0;
}
