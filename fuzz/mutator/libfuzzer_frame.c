/* SPDX-License-Identifier: MIT */
/* fuzz_frame_mut (ORNIC_FUZZ=LIBFUZZER only): fuzz/fuzz_frame.c's harness with
 * the structure-aware mutator as libFuzzer's custom mutator, the worked
 * example of ornic_libfuzzer_mutator.h. fuzz_frame's first byte picks the
 * decoder's start; the mutator keeps it and mutates the frame after it. */
#define ORNIC_LF_SKIP 1
#include "ornic_libfuzzer_mutator.h"
