/* SPDX-License-Identifier: MIT */
/* The stop flag and its wake pipe (interrupt.h). The pipe closes the race a
 * flag alone leaves: a signal that lands after the flag was checked but
 * before poll(2) starts waiting would otherwise go unseen until the next
 * byte arrives; its byte in the pipe makes that poll return at once. The
 * byte is never read: a stop is final, and every later poll returns too. */
#define _GNU_SOURCE /* pipe2 */
#include "interrupt.h"

#include <fcntl.h>
#include <unistd.h>

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop flag is written by a signal handler");
atomic_int dec_interrupt_flag;
static int wake[2] = {-1, -1};

int dec_interrupt_init(void) {
  if (wake[0] >= 0) return 0;
  /* Non-blocking: the handler's write never waits, even on a full pipe. */
  return pipe2(wake, O_CLOEXEC | O_NONBLOCK);
}

void dec_interrupt_raise(void) {
  atomic_store(&dec_interrupt_flag, 1);
  if (wake[1] >= 0) {
    ssize_t n = write(wake[1], "", 1); /* a full pipe is already readable */
    (void)n;
  }
}

int dec_interrupt_fd(void) { return wake[0]; }
