/* SPDX-License-Identifier: MIT */
/* Error texts. */
#include "ornic/errors.h"

typedef struct {
  int code;
  const char *name;
  const char *text;
} err_row;

static const err_row err_rows[] = {
    {ORNIC_OK, "ORNIC_OK", "success"},
    {ORNIC_ERR_TRUNCATED, "ORNIC_ERR_TRUNCATED", "truncated: input ends before the header does"},
    {ORNIC_ERR_MALFORMED, "ORNIC_ERR_MALFORMED",
     "malformed: lengths or fields contradict each other"},
    {ORNIC_ERR_NOT_ROCE, "ORNIC_ERR_NOT_ROCE", "not a RoCE packet"},
    {ORNIC_ERR_UNKNOWN_OPCODE, "ORNIC_ERR_UNKNOWN_OPCODE", "unknown BTH opcode"},
    {ORNIC_ERR_BAD_ICRC, "ORNIC_ERR_BAD_ICRC", "invariant CRC mismatch"},
    {ORNIC_ERR_NOBUF, "ORNIC_ERR_NOBUF", "output buffer too small"},
    {ORNIC_ERR_INVALID_ARG, "ORNIC_ERR_INVALID_ARG", "invalid argument"},
    {ORNIC_ERR_UNSUPPORTED, "ORNIC_ERR_UNSUPPORTED", "unsupported input"},
    {ORNIC_ERR_BAD_VCRC, "ORNIC_ERR_BAD_VCRC", "variant CRC mismatch"},
};

static const err_row *err_find(int err) {
  for (unsigned i = 0; i < sizeof err_rows / sizeof err_rows[0]; i++)
    if (err_rows[i].code == err) return &err_rows[i];
  return 0;
}

const char *ornic_strerror(int err) {
  const err_row *r = err_find(err);
  return r ? r->text : "unknown error code";
}

const char *ornic_errname(int err) {
  const err_row *r = err_find(err);
  return r ? r->name : "ORNIC_ERR_?";
}
