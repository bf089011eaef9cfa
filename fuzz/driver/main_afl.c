/* SPDX-License-Identifier: MIT */
/* ORNIC_FUZZ=AFL: AFL++ persistent mode with the test case in shared memory
 * (no fork, no read() per input); with file arguments, the replay main. */
#include <unistd.h> /* __AFL_FUZZ_TESTCASE_LEN read()s stdin outside afl-fuzz */

#include "fuzz_driver.h"

#ifndef __AFL_FUZZ_TESTCASE_LEN
#error "ORNIC_FUZZ=AFL needs an AFL++ compiler: CC=afl-clang-fast (or afl-cc)"
#endif

__AFL_FUZZ_INIT();

/* Inputs per process before AFL++ starts a fresh one (bounds leaked state). */
#define PERSISTENT_ITERATIONS 100000

int main(int argc, char **argv) {
  if (argc > 1) return fuzz_replay_main(argc, argv);
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  __AFL_INIT();
  const unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
  while (__AFL_LOOP(PERSISTENT_ITERATIONS)) {
    size_t len = (size_t)__AFL_FUZZ_TESTCASE_LEN;
    LLVMFuzzerTestOneInput(buf, len);
  }
  return 0;
}
