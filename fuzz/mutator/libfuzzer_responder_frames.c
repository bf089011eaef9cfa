/* SPDX-License-Identifier: MIT */
/* fuzz_responder_frames_mut (ORNIC_FUZZ=LIBFUZZER only): fuzz/fuzz_responder_frames.c's
 * harness with the structure-aware mutator as libFuzzer's custom mutator in its
 * frame-records form: the 4 configuration bytes kept, then the frame records
 * (ornic_mut_mutate_records). libFuzzer's half of scripts/fuzz-compare.sh's
 * responder comparison (docs/FUZZING.md). */
#define ORNIC_LF_SKIP 4
#define ORNIC_LF_RECORDS 1
#include "ornic_libfuzzer_mutator.h"
