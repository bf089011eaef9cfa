/* SPDX-License-Identifier: MIT */
/* Capture link types ornic-decode accepts, and where in each frame the
 * codec library starts decoding. */
#ifndef DEC_LINKTYPE_H
#define DEC_LINKTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ornic/frame.h>

enum {
  DEC_LINK_OK = 0,
  DEC_LINK_NOT_ROCE = 1, /* the link header says the payload is neither IP nor RoCEv1 */
  DEC_LINK_TRUNCATED = 2 /* the link header itself was not captured whole */
};

/* True for DLT_EN10MB, raw IP (DLT_RAW, LINKTYPE_RAW, DLT_IPV4/6), Linux SLL
 * and SLL2, DLT_INFINIBAND and DLT_ERF. */
bool dec_link_supported(int dlt);

/* Sets *link and *off (bytes of link header to skip) for one captured frame.
 * A link type dec_link_supported refuses (-1: unknown) is DEC_LINK_NOT_ROCE. */
int dec_link_locate(int dlt, const uint8_t *data, size_t caplen, ornic_link *link, size_t *off);

#endif
