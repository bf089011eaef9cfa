/* SPDX-License-Identifier: MIT */
/* -w FILE (dump.h). */
#include "dump.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int dec_dump_open(dec_dump *d, const char *path, int dlt, int snaplen, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  d->dlt = dlt;
  /* Nanoseconds: the reader keeps them (capture.h), and a microsecond file
   * would lose what tells sprayed packets apart. */
  d->dead = pcap_open_dead_with_tstamp_precision(dlt, snaplen, PCAP_TSTAMP_PRECISION_NANO);
  if (!d->dead) {
    snprintf(err, errlen, "-w: out of memory");
    return -1;
  }
  if (cli_outfile_open(&d->out, path, err, errlen) < 0) {
    pcap_close(d->dead);
    d->dead = NULL;
    return -1;
  }
  d->dumper = pcap_dump_fopen(d->dead, d->out.fp);
  if (d->dumper) return 0;
  snprintf(err, errlen, "-w: %s", pcap_geterr(d->dead));
  dec_dump_discard(d);
  return -1;
}

int dec_dump_packet(dec_dump *d, int dlt, uint64_t frame, const struct pcap_pkthdr *h,
                    const uint8_t *data, char *err, size_t errlen) {
  if (dlt != d->dlt) {
    const char *a = pcap_datalink_val_to_name(dlt), *b = pcap_datalink_val_to_name(d->dlt);
    snprintf(err, errlen,
             "-w: packet %llu has link type %s, the output %s: a pcap file holds one link type",
             (unsigned long long)frame, a ? a : "?", b ? b : "?");
    return -1;
  }
  pcap_dump((u_char *)d->dumper, h, data);
  /* pcap_dump says nothing of a failed write: the stream's error flag does,
   * and errno still names the cause (a full disk), which a later flush of
   * the emptied buffer would not. */
  if (ferror(d->out.fp)) {
    snprintf(err, errlen, "-w: cannot write '%s': %s",
             d->out.path ? d->out.path : "standard output", strerror(errno));
    return -1;
  }
  d->written++;
  return 0;
}

int dec_dump_commit(dec_dump *d, char *err, size_t errlen) {
  if (pcap_dump_flush(d->dumper) != 0) {
    snprintf(err, errlen, "-w: cannot write '%s': %s",
             d->out.path ? d->out.path : "standard output", strerror(errno));
    dec_dump_discard(d);
    return -1;
  }
  /* libpcap's dumper is the stream itself (pcap_dump_fopen returns the FILE
   * it was given): the commit closes it, pcap_dump_close would again. */
  int rc = cli_outfile_commit(&d->out, err, errlen);
  d->dumper = NULL;
  pcap_close(d->dead);
  d->dead = NULL;
  return rc;
}

void dec_dump_discard(dec_dump *d) {
  cli_outfile_discard(&d->out); /* closes the dumper's stream */
  d->dumper = NULL;
  if (d->dead) pcap_close(d->dead);
  d->dead = NULL;
}
