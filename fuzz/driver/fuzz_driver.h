/* SPDX-License-Identifier: MIT */
/* The one entry point every harness implements (libFuzzer's), and the two
 * drivers that call it without libFuzzer: a replay main for files and
 * directories (crash reproduction, CI) and an AFL++ persistent-mode main. */
#ifndef ORNIC_FUZZ_DRIVER_H
#define ORNIC_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/* Runs one input. Returns 0; a bug aborts (sanitizer report or fuzz_check). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Optional one-time setup: harnesses that define it are called once first. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* Replays every file named in argv[1..] (a directory: every regular file in
 * it, sorted by name; arguments starting with '-' are ignored, so libFuzzer
 * flags do no harm). Each input gets a heap buffer of exactly its size, so
 * a sanitizer sees any read past its end. Returns the exit status. */
int fuzz_replay_main(int argc, char **argv);

/* Aborts with a message naming the broken property: a harness's oracle. */
#define fuzz_check(cond, ...)                                       \
  do {                                                              \
    if (!(cond)) fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (0)
void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

#endif
