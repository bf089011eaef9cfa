/* SPDX-License-Identifier: MIT */
/* fuzz_baseline: a harness that does nothing with its input. It is not a
 * fuzz target but a yardstick: scripts/fuzz-speed.sh runs it beside the real
 * harnesses, so each one's execs/s reads as a share of what AFL++'s own
 * per-input hand-over (afl-fuzz, the fork server, the persistent loop)
 * allows on the same core at the same moment. */
#include "fuzz_driver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)data;
  (void)size;
  return 0;
}
