/* SPDX-License-Identifier: MIT */
/* A stop asked for from outside the read loop (SIGINT, SIGTERM, SIGHUP while
 * a file, pipe or stdin is read). core/ installs no signal handler (fuzz/
 * links it): the program's handler (signals.c) calls dec_interrupt_raise;
 * the read loop checks dec_interrupted() before each packet; and a read(2)
 * that would block on a pipe or terminal waits in poll(2) on the input and
 * on a wake pipe the handler writes to (input.c), so a reader blocked on an
 * idle `tcpdump -w - |` wakes up and the input reads as ended. Without
 * dec_interrupt_init (the fuzzer) reads block as plain reads do. */
#ifndef DEC_INTERRUPT_H
#define DEC_INTERRUPT_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

/* An atomic, not a volatile sig_atomic_t: --threads' reader thread reads it
 * too (../ahead.c), and only atomics are defined across threads; a
 * lock-free one may be written by a signal handler (C11 7.14.1.1). */
extern atomic_int dec_interrupt_flag;

/* Creates the wake pipe. 0, or -1 (errno set): then only the per-packet
 * check sees a stop, and a read blocked on an idle pipe stays blocked. */
int dec_interrupt_init(void);

/* Asks for the stop. Async-signal-safe: a flag and a 1-byte write. */
void dec_interrupt_raise(void);

static inline bool dec_interrupted(void) {
  return atomic_load_explicit(&dec_interrupt_flag, memory_order_relaxed) != 0;
}

/* The wake pipe's read end (readable once a stop was asked for), or -1
 * without dec_interrupt_init. */
int dec_interrupt_fd(void);

#endif
