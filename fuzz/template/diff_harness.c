/* SPDX-License-Identifier: MIT */
/* The differential harness: every input, an Ethernet frame, goes through
 * libornicproto (the oracle: ornic_frame_decode, then ornic_icrc_verify) and
 * through the user's parser (dut_parse, dut.h); the two verdicts are
 * compared under the rules below, and any disagreement prints both verdicts
 * and the frame, then aborts, which libFuzzer, AFL++ and replay_main.c all
 * report as a crash. README.md here and docs/FUZZING.md ("Fuzz your own
 * parser: the differential harness") say how to use it.
 *
 * The oracle accepts a frame when ornic_frame_decode returns ORNIC_OK (every
 * rule of docs/PROTOCOL.md section 5 holds) and its iCRC verifies (D10).
 * The rules, in order:
 *   1. DUT_SKIP: nothing is compared.
 *   2. The oracle rejects: the DUT must not accept.
 *   3. The oracle accepts: the DUT must accept too.
 *   4. Both accept: opcode, PSN, DestQP and payload length must be equal.
 *   5. The frame decodes whole (ORNIC_OK, so its iCRC is located) and the
 *      DUT checked its iCRC: both must say the same of it.
 *
 * Defined before compiling:
 *   ORNIC_DIFF_MUTATOR  libFuzzer build: fuzz/mutator's structure-aware mutator
 *                       drives the run (ornic_libfuzzer_mutator.h), so mutated
 *                       frames keep valid lengths and iCRC and reach the DUT's
 *                       field logic instead of its first check. */
#include "diff_harness.h"

#include <ornic/ornic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dut.h"

#ifdef ORNIC_DIFF_MUTATOR
#include "ornic_libfuzzer_mutator.h"
#endif

static diff_tally tally;

const diff_tally *diff_harness_tally(void) { return &tally; }

/* The oracle's view, in the DUT's terms. */
typedef struct {
  int rc;      /* ornic_frame_decode */
  int icrc_rc; /* ornic_icrc_verify, when rc is ORNIC_OK */
  dut_verdict v;
  char why[256]; /* why it rejects */
} oracle_view;

static void oracle_run(const uint8_t *data, size_t size, oracle_view *o) {
  ornic_frame f;
  memset(o, 0, sizeof *o);
  o->v.version = DUT_VERDICT_VERSION;
  o->v.icrc_ok = DUT_ICRC_UNCHECKED;
  o->icrc_rc = ORNIC_ERR_TRUNCATED;
  o->rc = ornic_frame_decode(&f, data, size, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  if (o->rc == ORNIC_OK || (o->rc == ORNIC_ERR_MALFORMED && f.icrc_present)) {
    /* D10: a malformed frame's iCRC is verified too when its lengths locate it
     * (shown in a disagreement; rule 5 compares it only for whole frames). */
    o->icrc_rc = ornic_icrc_verify(&f, data);
    o->v.icrc_ok = o->icrc_rc == ORNIC_OK ? DUT_ICRC_OK : DUT_ICRC_BAD;
  }
  if (f.layers & ORNIC_LAYER_BTH) {
    o->v.opcode = f.bth.opcode;
    o->v.psn = f.bth.psn;
    o->v.destqp = f.bth.destqp;
  }
  o->v.payload_len = (uint32_t)f.payload_len;
  o->v.accepted = o->rc == ORNIC_OK && o->icrc_rc == ORNIC_OK ? DUT_ACCEPT : DUT_REJECT;
  if (o->rc == ORNIC_ERR_MALFORMED) {
    int n = snprintf(o->why, sizeof o->why, "%s: ", ornic_strerror(o->rc));
    ornic_frame_explain_malformed(&f, o->why + n, sizeof o->why - (size_t)n);
  } else if (o->rc != ORNIC_OK) {
    snprintf(o->why, sizeof o->why, "%s", ornic_strerror(o->rc));
  } else if (o->icrc_rc != ORNIC_OK) {
    snprintf(o->why, sizeof o->why, "%s", ornic_strerror(o->icrc_rc));
  }
}

static const char *accepted_name(uint8_t a) {
  return a == DUT_ACCEPT ? "accept" : a == DUT_REJECT ? "reject" : a == DUT_SKIP ? "skip" : "?";
}

static const char *icrc_name(uint8_t c) {
  return c == DUT_ICRC_OK          ? "ok"
         : c == DUT_ICRC_BAD       ? "bad"
         : c == DUT_ICRC_UNCHECKED ? "unchecked"
                                   : "?";
}

static void print_verdict(const char *who, const dut_verdict *v) {
  fprintf(stderr, "  %-15s %-6s icrc %-9s opcode 0x%02x psn 0x%06x destqp 0x%06x payload %u\n", who,
          accepted_name(v->accepted), icrc_name(v->icrc_ok), v->opcode, (unsigned)v->psn,
          (unsigned)v->destqp, (unsigned)v->payload_len);
}

static void print_hex(const uint8_t *data, size_t size) {
  for (size_t i = 0; i < size; i++)
    fprintf(stderr, "%s%02x%s", i % 16 ? "" : "  ", data[i],
            i % 16 == 15 || i + 1 == size ? "\n" : " ");
}

/* Disagreement: both verdicts and the frame, then abort (the fuzzer's crash). */
static void disagree(const char *what, const oracle_view *o, const dut_verdict *d,
                     const uint8_t *data, size_t size) {
  fprintf(stderr, "DIFF: %s\n", what);
  print_verdict("libornicproto:", &o->v);
  if (o->why[0]) fprintf(stderr, "  %-15s %s\n", "", o->why);
  print_verdict("dut_parse:", d);
  fprintf(stderr, "  frame (%zu bytes):\n", size);
  print_hex(data, size);
  fflush(stderr);
  abort();
}

/* Rule 4: the fields, when both accept. */
static void compare_fields(const oracle_view *o, const dut_verdict *d, const uint8_t *data,
                           size_t size) {
  if (d->opcode != o->v.opcode) disagree("opcode differs", o, d, data, size);
  if (d->psn != o->v.psn) disagree("PSN differs", o, d, data, size);
  if (d->destqp != o->v.destqp) disagree("DestQP differs", o, d, data, size);
  if (d->payload_len != o->v.payload_len) disagree("payload length differs", o, d, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  oracle_view o;
  dut_verdict d;
  oracle_run(data, size, &o);
  memset(&d, 0, sizeof d);
  d.version = DUT_VERDICT_VERSION;
  d.icrc_ok = DUT_ICRC_UNCHECKED;
  if (dut_parse(data, size, &d) < 0 || d.version != DUT_VERDICT_VERSION || d.accepted > DUT_SKIP ||
      d.icrc_ok > DUT_ICRC_UNCHECKED) {
    fprintf(stderr, "diff_harness: dut_parse failed or broke its contract (dut.h)\n");
    abort();
  }
  if (d.accepted == DUT_SKIP) { /* rule 1 */
    tally.dut_skip++;
    return 0;
  }
  if (o.rc == ORNIC_OK && d.icrc_ok != DUT_ICRC_UNCHECKED && d.icrc_ok != o.v.icrc_ok) /* rule 5 */
    disagree("iCRC verdicts differ", &o, &d, data, size);
  if (o.v.accepted == DUT_REJECT && d.accepted == DUT_ACCEPT) /* rule 2 */
    disagree("the DUT accepts a frame libornicproto rejects", &o, &d, data, size);
  if (o.v.accepted == DUT_ACCEPT && d.accepted == DUT_REJECT) /* rule 3 */
    disagree("the DUT rejects a frame libornicproto accepts", &o, &d, data, size);
  if (d.accepted == DUT_ACCEPT) {
    compare_fields(&o, &d, data, size);
    tally.both_accept++;
  } else {
    tally.both_reject++;
  }
  return 0;
}
