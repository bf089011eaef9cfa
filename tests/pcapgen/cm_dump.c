/* SPDX-License-Identifier: MIT */
/* ornic-test-cm-dump: prints every RDMA-CM message of a capture as
 * libornicproto's ornic_cm_decode reads it, one line of key=value pairs per
 * frame, for test_pcapgen_cm.py to compare with stock tshark's
 * infiniband.cm.* fields. A test program, not installed.
 *
 *   ornic-test-cm-dump FILE
 *
 * Lines: "frame=N attr=0x0010 name=REQ method=0x03 tid=0x... local=0x...
 * remote=0x... qpn=0x... psn=0x... resp=N init=N transport=N path_mtu=N
 * pmtu=N guid=0x... has=0x.. icrc=ok|bad", and "frame=N error=NAME" for a UD
 * SEND to QP 1 that ornic_cm_decode refuses for its bytes (truncated or
 * malformed). Frames that are not CM are not printed. Exit 0, or 2 when the
 * file cannot be read. */
#define _DEFAULT_SOURCE /* <pcap/pcap.h> needs u_char and u_int, which strict C11 hides */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>

#include "ornic/ornic.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: ornic-test-cm-dump FILE\n");
    return 2;
  }
  char err[PCAP_ERRBUF_SIZE];
  pcap_t *pc = pcap_open_offline(argv[1], err);
  if (!pc) {
    fprintf(stderr, "ornic-test-cm-dump: %s\n", err);
    return 2;
  }
  if (pcap_datalink(pc) != DLT_EN10MB) {
    fprintf(stderr, "ornic-test-cm-dump: %s: not an Ethernet capture\n", argv[1]);
    pcap_close(pc);
    return 2;
  }
  struct pcap_pkthdr *h;
  const u_char *data;
  unsigned long n = 0;
  int rc;
  while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
    n++;
    ornic_frame f;
    ornic_frame_decode(&f, data, h->caplen, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
    ornic_cm_msg m;
    int r = ornic_cm_decode(&f, &m);
    if (r == ORNIC_ERR_UNSUPPORTED) continue;
    if (r != ORNIC_OK) {
      printf("frame=%lu error=%s\n", n, ornic_errname(r));
      continue;
    }
    printf("frame=%lu attr=0x%04x name=%s method=0x%02x tid=0x%016" PRIx64
           " local=0x%08x remote=0x%08x qpn=0x%06x psn=0x%06x resp=%u init=%u transport=%u"
           " path_mtu=%u pmtu=%u guid=0x%016" PRIx64 " has=0x%02x icrc=%s\n",
           n, m.attr_id, ornic_cm_name(m.attr_id), m.method, m.tid, m.local_comm_id,
           m.remote_comm_id, m.local_qpn, m.start_psn, m.resp_resources, m.init_depth, m.transport,
           m.path_mtu, m.pmtu, m.local_ca_guid, m.has,
           ornic_icrc_verify(&f, data) == ORNIC_OK ? "ok" : "bad");
  }
  if (rc == PCAP_ERROR) {
    fprintf(stderr, "ornic-test-cm-dump: %s: %s\n", argv[1], pcap_geterr(pc));
    pcap_close(pc);
    return 2;
  }
  pcap_close(pc);
  return 0;
}
