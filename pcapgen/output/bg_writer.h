/* SPDX-License-Identifier: MIT */
/* Writes to a file descriptor from a background thread, so the kernel's copy
 * into the page cache overlaps the simulation instead of adding to it. The caller writes its
 * bytes straight into a small ring of 2 MiB buffers (bgw_reserve, then
 * bgw_commit: no copy of ours in between); it blocks only when all are full.
 *
 * Errors: the first failed write(2) is kept; the next bgw_reserve that
 * hands a buffer over fails with that errno, and bgw_finish reports it, so
 * no error is lost (bytes after it are dropped: the file is discarded). The thread
 * blocks every signal but SIGURG (its wake-up, see bgw_watch): SIGINT,
 * SIGTERM and SIGHUP reach the simulation's thread. */
#ifndef PCAPGEN_BG_WRITER_H
#define PCAPGEN_BG_WRITER_H

#include <signal.h>
#include <stddef.h>

typedef struct bgw bgw;

/* NULL when the thread or buffers cannot be had (the caller writes itself). */
bgw *bgw_start(int fd);

/* Once *quit is non-zero (a signal asked the run to stop), a write that
 * makes no progress for half a second (a FIFO nobody reads, a stalled pipe)
 * is interrupted with SIGURG and fails with EINTR, so the caller, blocked in
 * bgw_reserve or bgw_finish, gets control back. Writes that progress (a disk)
 * finish, so an interrupted capture is complete up to its last frame. */
void bgw_watch(bgw *b, const volatile sig_atomic_t *quit);

/* The largest bgw_reserve: one buffer (a huge page). */
#define BGW_MAX_RESERVE ((size_t)2 << 20)
/* Buffers in the ring, and the memory they take. */
#define BGW_SLOTS 4u
#define BGW_RING_BYTES (BGW_SLOTS * BGW_MAX_RESERVE)

/* Where the next n bytes (n <= BGW_MAX_RESERVE) go: a pointer into the
 * buffer being filled, contiguous, after the bytes committed so far, with
 * *room (>= n) bytes free there, which the caller may fill and commit in
 * one go. A buffer that cannot take n more bytes is handed to the thread
 * first (its write may end a few bytes short of 2 MiB). NULL, with errno
 * set to the first write error, once a write failed. The bytes count only
 * when committed; a second bgw_reserve before bgw_commit gives the same
 * place. */
unsigned char *bgw_reserve(bgw *b, size_t n, size_t *room);

/* The first n bytes of the last bgw_reserve (n at most its *room)
 * are complete: they are written in order after the bytes before them. */
void bgw_commit(bgw *b, size_t n);

/* Writes what is queued, stops the thread and frees b (the fd stays open).
 * 0, or -1 with errno set to the first write error. */
int bgw_finish(bgw *b);

#endif
