/* SPDX-License-Identifier: MIT */
/* Writes to a file descriptor from a background thread, so the kernel's copy
 * into the page cache (about 1.5 GB/s for a new file on this kind of VM)
 * overlaps the simulation instead of adding to it. Bytes are copied into a
 * small ring of 1 MiB buffers; the caller blocks only when all are full.
 *
 * Errors: the first failed write(2) is kept; later bgw_write calls fail with
 * that errno, and bgw_finish reports it, so no error is lost. The thread
 * blocks every signal but SIGURG (its wake-up, see bgw_watch): SIGINT,
 * SIGTERM and SIGHUP reach the simulation's thread. */
#ifndef PCAPGEN_BGWRITE_H
#define PCAPGEN_BGWRITE_H

#include <signal.h>
#include <stddef.h>

typedef struct bgw bgw;

/* NULL when the thread or buffers cannot be had (the caller writes itself). */
bgw *bgw_start(int fd);

/* Once *quit is non-zero (a signal asked the run to stop), a write that
 * makes no progress for half a second (a FIFO nobody reads, a stalled pipe)
 * is interrupted with SIGURG and fails with EINTR, so the caller, blocked in
 * bgw_write or bgw_finish, gets control back. Writes that progress (a disk)
 * finish, so an interrupted capture is complete up to its last frame. */
void bgw_watch(bgw *b, const volatile sig_atomic_t *quit);

/* 0, or -1 with errno set to the first write error. */
int bgw_write(bgw *b, const void *p, size_t n);

/* Writes what is queued, stops the thread and frees b (the fd stays open).
 * 0, or -1 with errno set to the first write error. */
int bgw_finish(bgw *b);

#endif
