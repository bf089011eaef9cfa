/* SPDX-License-Identifier: MIT */
/* Classic pcap as libpcap's savefile.c reads it (tcpdump.org, "pcap savefile
 * format"): a 24-byte header, then a 16-byte header per record. */
#include "pcap_write.h"

#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define LINKTYPE_ETHERNET 1u

int mut_pcap_begin(FILE *fp) {
  struct {
    uint32_t magic;
    uint16_t major, minor;
    int32_t thiszone;
    uint32_t sigfigs, snaplen, linktype;
  } h = {PCAP_MAGIC_NSEC, 2, 4, 0, 0, MUT_SNAPLEN, LINKTYPE_ETHERNET};
  return fwrite(&h, sizeof h, 1, fp) == 1 ? 0 : -1;
}

int mut_pcap_frame(FILE *fp, int64_t sec, uint32_t nsec, const uint8_t *frame, size_t len) {
  /* pcap's seconds are 32 bits: a pcapng time past 2106 wraps, as
   * editcap's conversion does. */
  uint32_t rec[4] = {(uint32_t)sec, nsec, (uint32_t)len, (uint32_t)len};
  if (fwrite(rec, sizeof rec, 1, fp) != 1) return -1;
  return fwrite(frame, 1, len, fp) == len ? 0 : -1;
}
