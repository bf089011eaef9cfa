/* SPDX-License-Identifier: MIT */
/* fuzz_frame: the frame decoder from every start it supports, then the iCRC
 * and the accessors a reader calls on what was decoded.
 *
 * Input: byte 0 picks the start (taken mod 6: 0 Ethernet, 1 raw IP,
 * 2 RoCEv1 GRH, 3 the BTH of a UDP payload via ornic_roce_decode, 4 a link
 * value the API does not define, which must be refused, 5 native
 * InfiniBand, LRH first); the rest is the frame. Besides the sanitizers, the oracle is the decoder's own
 * contract (frame.h): every offset and view it returns lies inside the
 * input, a whole frame's parts add up to its lengths, and a truncated one
 * says how far it got; and an Ethernet frame decodes the same through the
 * fast path (which ornic_frame_decode tries first) as through the general
 * one: the same return code and every byte of the frame but padding
 * (frame_fields.h). */
#include <string.h>

#include <ornic/ornic.h>

#include "../libornicproto/src/ornic_frame_fast.h"
#include "frame_fields.h"
#include "fuzz_driver.h"
#include "fuzz_frame_check.h"

/* Both paths over frames holding the same bytes beforehand (a field a path
 * leaves alone must be left alone by the other too). */
static void same_as_general(const uint8_t *p, size_t len) {
  static ornic_frame before, a, b;
  memset(&before, 0xa5, sizeof before);
  memcpy(&a, &before, sizeof a); /* padding included, as an assignment need not */
  memcpy(&b, &before, sizeof b);
  int rc = ornic_frame_decode(&a, p, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  int rc_general =
      ornic_frame_decode_general(&b, p, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  fuzz_check(rc == rc_general, "decode returned %d, the general path %d", rc, rc_general);
  ptrdiff_t at = frame_paths_diff(&a, &b, &before);
  fuzz_check(at < 0, "byte %td of ornic_frame differs from the general path's (return code %d)", at,
             rc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned mode = data[0] % 6;
  const uint8_t *p = data + 1;
  size_t len = size - 1;
  ornic_frame f;
  if (mode == 4) {
    unsigned link = 4 + data[0] / 6;
    int rc = ornic_frame_decode(&f, p, len, (ornic_link)link, ORNIC_ROCEV2_UDP_PORT);
    fuzz_check(rc == ORNIC_ERR_INVALID_ARG, "link %u accepted: %d", link, rc);
    return 0;
  }
  ornic_link link = mode == 5 ? ORNIC_LINK_IB : (ornic_link)mode;
  int rc = mode == 3 ? ornic_roce_decode(&f, p, len)
                     : ornic_frame_decode(&f, p, len, link, ORNIC_ROCEV2_UDP_PORT);
  fuzz_check_decoded(&f, p, len, rc);
  (void)ornic_cm_decode(&f, &(ornic_cm_msg){0}); /* ornic/cm.h: reads within the views */
  if (link == ORNIC_LINK_ETHERNET && mode != 3) same_as_general(p, len);
  return 0;
}
