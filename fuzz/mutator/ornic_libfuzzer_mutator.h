/* SPDX-License-Identifier: MIT */
/* libFuzzer's custom mutator hooks on the ORNIC mutator. Include this header
 * in exactly one source file of a libFuzzer harness (clang -fsanitize=fuzzer)
 * and link the ornic_mutator library: it defines LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver (libFuzzer docs, "Structure-Aware Fuzzing with
 * libFuzzer", and FuzzerInterface.h for the prototypes).
 *
 * Before including it a harness may define:
 *   ORNIC_LF_SKIP        leading bytes kept as they are (fuzz_frame: 1) (0)
 *   ORNIC_LF_BYTE_RATE   share of outputs with byte mutations too (0.1)
 *   ORNIC_LF_BREAK_RATE  share left with iCRC/lengths broken on purpose (0)
 *   ORNIC_LF_STEPS       field mutations per output, at most (4)
 *   ORNIC_LF_HAVOC_RATE  share of calls handed to libFuzzer's own
 *                        LLVMFuzzerMutate instead, in 1/256 (32)
 *   ORNIC_LF_RECORDS     1: inputs in "frame records" form (ornic_mutator.h),
 *                        the prefix ORNIC_LF_SKIP: ornic_mut_mutate_records
 *                        and ornic_mut_crossover_records (0)
 * Installed (cmake --install of ornic-tools' plain build) it is
 * include/ornic/mutator/ornic_libfuzzer_mutator.h and the library the CMake
 * target ornicproto::mutator (find_package(ornicproto)). */
#ifndef ORNIC_LIBFUZZER_MUTATOR_H
#define ORNIC_LIBFUZZER_MUTATOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ornic_mutator.h"

#ifndef ORNIC_LF_SKIP
#define ORNIC_LF_SKIP 0
#endif
#ifndef ORNIC_LF_BYTE_RATE
#define ORNIC_LF_BYTE_RATE 0.1
#endif
#ifndef ORNIC_LF_BREAK_RATE
#define ORNIC_LF_BREAK_RATE 0.0
#endif
#ifndef ORNIC_LF_STEPS
#define ORNIC_LF_STEPS 4
#endif
#ifndef ORNIC_LF_HAVOC_RATE
#define ORNIC_LF_HAVOC_RATE 32
#endif
#ifndef ORNIC_LF_RECORDS
#define ORNIC_LF_RECORDS 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
                                 size_t size2, uint8_t *out, size_t max_out_size,
                                 unsigned int seed);

/* One mutator for the process, made on first use; its scratch output holds
 * a whole encoded frame (64 KiB at most) or a records input. */
static ornic_mut *ornic_lf_mut(void) {
  static ornic_mut *m;
  if (!m) {
    ornic_mut_cfg cfg;
    ornic_mut_cfg_default(&cfg);
    cfg.byte_rate = ORNIC_LF_BYTE_RATE;
    cfg.break_rate = ORNIC_LF_BREAK_RATE;
    cfg.max_steps = ORNIC_LF_STEPS;
    m = ornic_mut_new(&cfg);
  }
  return m;
}

/* Records: up to libFuzzer's largest -max_len worth having, 1 MiB. */
static uint8_t ornic_lf_scratch[ORNIC_LF_RECORDS ? 1u << 20 : 65536 + 64];

/* libFuzzer mutates in place: data holds size bytes and room for max_size. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  ornic_mut *m = ornic_lf_mut();
  size_t skip = ORNIC_LF_SKIP < size ? ORNIC_LF_SKIP : size;
  if (!m || (seed & 0xff) < ORNIC_LF_HAVOC_RATE || skip >= max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  ornic_mut_reseed(m, seed);
  size_t cap = max_size - skip;
  if (cap > sizeof ornic_lf_scratch) cap = sizeof ornic_lf_scratch;
  size_t n;
  if (ORNIC_LF_RECORDS) { /* the prefix is copied by the call, into the scratch too */
    cap = max_size < sizeof ornic_lf_scratch ? max_size : sizeof ornic_lf_scratch;
    n = ornic_mut_mutate_records(m, data, size, ORNIC_LF_SKIP, ornic_lf_scratch, cap);
    if (!n) return LLVMFuzzerMutate(data, size, max_size);
    memcpy(data, ornic_lf_scratch, n);
    return n;
  }
  n = ornic_mut_mutate(m, data + skip, size - skip, ornic_lf_scratch, cap);
  if (!n) return LLVMFuzzerMutate(data, size, max_size);
  memcpy(data + skip, ornic_lf_scratch, n);
  return skip + n;
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
                                 size_t size2, uint8_t *out, size_t max_out_size,
                                 unsigned int seed) {
  ornic_mut *m = ornic_lf_mut();
  size_t skip = ORNIC_LF_SKIP < size1 ? ORNIC_LF_SKIP : size1;
  size_t skip2 = ORNIC_LF_SKIP < size2 ? ORNIC_LF_SKIP : size2;
  if (!m || skip >= max_out_size) return 0;
  ornic_mut_reseed(m, seed);
  if (ORNIC_LF_RECORDS)
    return ornic_mut_crossover_records(m, data1, size1, data2, size2, ORNIC_LF_SKIP, out,
                                       max_out_size);
  memcpy(out, data1, skip);
  size_t n = ornic_mut_crossover(m, data1 + skip, size1 - skip, data2 + skip2, size2 - skip2,
                                 out + skip, max_out_size - skip);
  return n ? skip + n : 0;
}

#ifdef __cplusplus
}
#endif
#endif
