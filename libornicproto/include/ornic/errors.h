/* SPDX-License-Identifier: MIT */
/* Error codes returned by every libornicproto function that can fail. */
#ifndef ORNIC_ERRORS_H
#define ORNIC_ERRORS_H

#include "ornic/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Negative codes; 0 is success. "Truncated" (the bytes end before the
 * structure does) is kept apart from "malformed" (the bytes are there but
 * contradict themselves), as a reader must react differently to each. */
enum {
  ORNIC_OK = 0,
  ORNIC_ERR_TRUNCATED = -1,      /* input ends before the structure does */
  ORNIC_ERR_MALFORMED = -2,      /* a length or field contradicts the rest */
  ORNIC_ERR_NOT_ROCE = -3,       /* a valid frame, but not RoCE: skip it */
  ORNIC_ERR_UNKNOWN_OPCODE = -4, /* BTH opcode with no known layout */
  ORNIC_ERR_BAD_ICRC = -5,       /* iCRC present but wrong */
  ORNIC_ERR_NOBUF = -6,          /* caller's output buffer is too small */
  ORNIC_ERR_INVALID_ARG = -7,    /* a caller-supplied value is out of range */
  ORNIC_ERR_UNSUPPORTED = -8,    /* valid input this library does not handle */
  ORNIC_ERR_BAD_VCRC = -9        /* native InfiniBand: VCRC present but wrong (link damage) */
};

/* Returns a static, human-readable text for any code, including unknown ones. */
ORNIC_API const char *ornic_strerror(int err);

/* Returns the symbolic name ("ORNIC_ERR_TRUNCATED") of a code, or "ORNIC_ERR_?". */
ORNIC_API const char *ornic_errname(int err);

#ifdef __cplusplus
}
#endif
#endif
