/* SPDX-License-Identifier: MIT */
/* Classic pcap (libpcap's savefile format), written in host byte order: the
 * magic number tells readers which order that is. */
#include "pcap_out.h"

#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define LINKTYPE_ETHERNET 1

int pcap_out_begin(FILE *fp) {
  struct {
    uint32_t magic;
    uint16_t major, minor;
    int32_t thiszone;
    uint32_t sigfigs, snaplen, linktype;
  } h = {PCAP_MAGIC_NSEC, 2, 4, 0, 0, 65535, LINKTYPE_ETHERNET};
  return fwrite(&h, sizeof h, 1, fp) == 1 ? 0 : -1;
}

int pcap_out_frame(FILE *fp, uint64_t ts_ns, const uint8_t *frame, size_t len) {
  uint32_t rec[4] = {(uint32_t)(ts_ns / 1000000000u), (uint32_t)(ts_ns % 1000000000u),
                     (uint32_t)len, (uint32_t)len};
  if (fwrite(rec, sizeof rec, 1, fp) != 1) return -1;
  return fwrite(frame, 1, len, fp) == len ? 0 : -1;
}
