/* SPDX-License-Identifier: MIT */
/* A program outside the project that uses the installed library: encodes an
 * RC RDMA WRITE Only frame, decodes it, verifies the iCRC and prints what it
 * got. Exits non-zero if any value does not come back. */
#include <stdio.h>
#include <string.h>

#include <ornic/ornic.h>

int main(void) {
  static const uint8_t payload[5] = {'h', 'e', 'l', 'l', 'o'};
  ornic_frame f, g;
  uint8_t buf[256];
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  f.bth.opcode = ORNIC_OP_RC_RDMA_WRITE_ONLY;
  f.bth.destqp = 0x123456;
  f.bth.psn = 0xffffff;
  f.bth.ackreq = 1;
  f.ext.reth.va = 0x00007f0012345678ull;
  f.ext.reth.rkey = 0xcafef00du;
  f.ext.reth.dmalen = 5;
  f.payload = payload;
  f.payload_len = sizeof payload;
  ornic_ssize n = ornic_frame_encode(buf, sizeof buf, &f);
  if (n < 0) {
    printf("encode: %s\n", ornic_strerror((int)n));
    return 1;
  }
  int rc = ornic_frame_decode(&g, buf, (size_t)n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  if (rc != ORNIC_OK) {
    printf("decode: %s\n", ornic_errname(rc));
    return 1;
  }
  int v = ornic_icrc_verify(&g, buf);
  printf("version %s\n", ORNIC_VERSION_STRING);
  printf(
      "frame %td bytes, %s, psn 0x%06x, destqp 0x%06x, va 0x%016llx, rkey 0x%08x, payload %zu, pad "
      "%u\n",
      n, ornic_opcode_name(g.bth.opcode), g.bth.psn, g.bth.destqp,
      (unsigned long long)g.ext.reth.va, g.ext.reth.rkey, g.payload_len, g.pad_len);
  printf("icrc %s\n", ornic_errname(v));
  int ok = v == ORNIC_OK && g.bth.opcode == f.bth.opcode && g.bth.psn == f.bth.psn &&
           g.bth.destqp == f.bth.destqp && g.ext.reth.va == f.ext.reth.va &&
           g.ext.reth.rkey == f.ext.reth.rkey && g.payload_len == sizeof payload &&
           memcmp(g.payload, payload, sizeof payload) == 0 && g.pad_len == 3 &&
           n == 14 + 20 + 8 + 12 + 16 + 8 + 4;
  printf("%s\n", ok ? "roundtrip ok" : "roundtrip FAILED");
  return ok ? 0 : 1;
}
