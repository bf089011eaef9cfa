/* SPDX-License-Identifier: MIT */
/* A libFuzzer harness on the installed mutator: ornic_libfuzzer_mutator.h
 * defines libFuzzer's custom mutator and crossover; the harness counts the
 * inputs whose iCRC libornicproto locates and verifies, and prints the tally at
 * exit (tests/consumer/mutator.sh checks that most are: libFuzzer's own byte
 * mutations would break nearly every iCRC). fuzz_frame's mode byte is kept. */
#include <stdio.h>
#include <stdlib.h>

#define ORNIC_LF_SKIP 1
#include <ornic/mutator/ornic_libfuzzer_mutator.h>
#include <ornic/ornic.h>

static unsigned long runs, whole;

static void tally(void) { printf("lf_mutator: %lu of %lu inputs consistent\n", whole, runs); }

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  atexit(tally);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
  ornic_frame f;
  runs++;
  if (n < 2) return 0;
  /* as mutate_frame.c: the iCRC located and right (the verdict may be MALFORMED) */
  int rc = ornic_frame_decode(&f, d + 1, n - 1, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  if ((rc == ORNIC_OK || rc == ORNIC_ERR_MALFORMED) && f.icrc_present &&
      ornic_icrc_verify(&f, d + 1) == ORNIC_OK)
    whole++;
  return 0;
}
