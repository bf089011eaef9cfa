/* SPDX-License-Identifier: MIT */
/* Encode an ORNIC OOO WRITE FSpot frame, decode it back, verify its iCRC,
 * then see what a flipped bit and a short capture look like.
 * Build: cc api_example.c $(pkg-config --cflags --libs ornicproto) */
#include <stdio.h>
#include <string.h>

#include <ornic/ornic.h>

int main(void) {
  /* The library loaded at run time may be newer than these headers, never older. */
  if (ornic_version_number() < ORNIC_VERSION_NUMBER) {
    fprintf(stderr, "libornicproto %s is older than its headers (%s)\n", ornic_version(),
            ORNIC_VERSION_STRING);
    return 1;
  }

  /* 1. Encode. ornic_frame_init gives every field a sensible default
   * (Ethernet, IPv4 10.0.0.1 -> 10.0.0.2, UDP port 4791); set the BTH and the
   * extension headers the opcode carries (FSpot: RETH and OFFETH). Lengths,
   * PadCnt, checksums and the iCRC are computed. */
  static const uint8_t payload[] = {'h', 'e', 'l', 'l', 'o', ',', ' ',
                                    'O', 'R', 'N', 'I', 'C', '!'};
  ornic_frame tx;
  ornic_frame_init(&tx, ORNIC_LINK_ETHERNET, 4);
  tx.bth.opcode = ORNIC_OP_OOO_WRITE_FSPOT;
  tx.bth.destqp = 0x000112;
  tx.bth.psn = 0xffffff; /* PSNs are 24 bits: the next one is 0 */
  tx.ext.reth.va = 0x00007f0000001000u;
  tx.ext.reth.rkey = 0x1234abcdu;
  tx.ext.reth.dmalen = 65536;
  tx.ext.offeth.offset = 0;
  tx.payload = payload;
  tx.payload_len = sizeof payload;

  uint8_t wire[256];
  if (ornic_frame_encode_capacity(&tx) > sizeof wire) {
    fprintf(stderr, "frame too large for the buffer\n");
    return 1;
  }
  ornic_ssize n = ornic_frame_encode(wire, sizeof wire, &tx);
  if (n < 0) { /* a negative ORNIC_ERR_* code */
    fprintf(stderr, "encode: %s\n", ornic_strerror((int)n));
    return 1;
  }

  /* 2. Decode. rx is filled from the bytes; rx.payload points into wire,
   * so wire must outlive it. Nothing is allocated. */
  ornic_frame rx;
  int rc = ornic_frame_decode(&rx, wire, (size_t)n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  if (rc != ORNIC_OK) {
    fprintf(stderr, "decode: %s (%s)\n", ornic_errname(rc), ornic_strerror(rc));
    return 1;
  }

  /* 3. Verify the iCRC: decode locates it, ornic_icrc_verify checks it. */
  rc = ornic_icrc_verify(&rx, wire);
  printf("%td bytes: %s psn=%u destqp=0x%06x va=0x%016llx offset=%u payload=%zu pad=%u icrc=%s\n",
         n, ornic_opcode_name(rx.bth.opcode), rx.bth.psn, rx.bth.destqp,
         (unsigned long long)rx.ext.reth.va, rx.ext.offeth.offset, rx.payload_len, rx.pad_len,
         ornic_errname(rc));
  if (rc != ORNIC_OK || rx.payload_len != sizeof payload ||
      memcmp(rx.payload, payload, sizeof payload) != 0 || rx.ext.reth.rkey != tx.ext.reth.rkey) {
    fprintf(stderr, "the frame did not come back\n");
    return 1;
  }

  /* 4. A bit flipped in the payload: the frame still decodes, the iCRC says
   * it is corrupt. */
  wire[rx.payload_off] ^= 0x01;
  rc = ornic_frame_decode(&rx, wire, (size_t)n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  int icrc = ornic_icrc_verify(&rx, wire);
  printf("flipped bit: decode %s, icrc %s\n", ornic_errname(rc), ornic_errname(icrc));
  if (rc != ORNIC_OK || icrc != ORNIC_ERR_BAD_ICRC) return 1;
  wire[rx.payload_off] ^= 0x01;

  /* 5. A capture cut short (a snaplen): truncated, not malformed; the
   * headers that were captured whole are still filled in. */
  rc = ornic_frame_decode(&rx, wire, 60, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  printf("first 60 bytes: %s, psn=%u\n", ornic_errname(rc), rx.bth.psn);
  if (rc != ORNIC_ERR_TRUNCATED) return 1;

  printf("roundtrip ok (libornicproto %s)\n", ornic_version());
  return 0;
}
