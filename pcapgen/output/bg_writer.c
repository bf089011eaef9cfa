/* SPDX-License-Identifier: MIT */
#include "bg_writer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define SLOT_CAP BGW_MAX_RESERVE /* 2 MiB: a write(2) per 2 MiB, and few thread wake-ups */
#define NSLOTS BGW_SLOTS
/* The slots are one block, aligned for transparent huge pages: a few page
 * faults instead of two thousand 4 KiB ones. */
#define RING_ALIGN ((size_t)2 << 20)
/* The signal that interrupts the thread's write(2) (default action: ignore,
 * so a stray one harms nothing), and how long a write may make no progress
 * after a stop request before it is interrupted: long enough for a disk to
 * take the last buffers, so an interrupted capture stays complete. */
#define WAKE_SIGNAL SIGURG
#define STALL_NS 500000000ll
#define POLL_NS 50000000ll

struct bgw {
  int fd;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t ready, freed;
  uint8_t *ring; /* the slots, one after another */
  uint8_t *slot[NSLOTS];
  size_t used[NSLOTS];
  unsigned head, count; /* slots [head, head + count) wait for the thread */
  unsigned fill;        /* the slot the caller fills */
  bool stop;
  bool finished;                     /* the thread has left its loop */
  int error;                         /* first errno of a failed write, 0 */
  uint64_t progress;                 /* writes completed, to tell a slow disk from a stalled pipe */
  const volatile sig_atomic_t *quit; /* the run's stop flag (bgw_watch), or NULL */
  atomic_int cancel;                 /* give up: writes in progress end with EINTR */
};

static void on_wake(int sig) { (void)sig; /* only interrupts write(2) */ }

static int write_all(bgw *b, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t k = write(b->fd, p, n);
    if (k < 0 && errno == EINTR && !atomic_load(&b->cancel)) continue;
    if (k <= 0) return k < 0 ? errno : EIO;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static void *run(void *arg) {
  bgw *b = arg;
  pthread_mutex_lock(&b->mu);
  for (;;) {
    while (!b->count && !b->stop) pthread_cond_wait(&b->ready, &b->mu);
    if (!b->count) break;
    unsigned i = b->head;
    int failed = b->error;
    pthread_mutex_unlock(&b->mu);
    /* After an error the rest is dropped: the file is discarded anyway. */
    int e = failed ? 0 : write_all(b, b->slot[i], b->used[i]);
    pthread_mutex_lock(&b->mu);
    if (e && !b->error) b->error = e;
    b->progress++;
    b->used[i] = 0;
    b->head = (b->head + 1) % NSLOTS;
    b->count--;
    pthread_cond_signal(&b->freed);
  }
  b->finished = true;
  pthread_cond_signal(&b->freed);
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

static void destroy(bgw *b) {
  free(b->ring);
  pthread_mutex_destroy(&b->mu);
  pthread_cond_destroy(&b->ready);
  pthread_cond_destroy(&b->freed);
  free(b);
}

bgw *bgw_start(int fd) {
  bgw *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->fd = fd;
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->ready, NULL);
  pthread_cond_init(&b->freed, NULL);
  bool ok = (b->ring = aligned_alloc(RING_ALIGN, BGW_RING_BYTES)) != NULL;
#ifdef MADV_HUGEPAGE
  if (ok) madvise(b->ring, BGW_RING_BYTES, MADV_HUGEPAGE); /* a hint: may fail */
#endif
  for (unsigned i = 0; ok && i < NSLOTS; i++) b->slot[i] = b->ring + (size_t)i * SLOT_CAP;
  /* The thread takes no signal but the wake-up, which needs a handler (not
   * SIG_DFL, which discards it) installed without SA_RESTART. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_wake;
  sigaction(WAKE_SIGNAL, &sa, NULL);
  sigset_t all, old;
  sigfillset(&all);
  sigdelset(&all, WAKE_SIGNAL);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits this mask */
  ok = ok && pthread_create(&b->thread, NULL, run, b) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!ok) {
    destroy(b);
    return NULL;
  }
  return b;
}

void bgw_watch(bgw *b, const volatile sig_atomic_t *quit) { b->quit = quit; }

/* Interrupts the thread's write(2) for good. Signalled again at every poll,
 * as one may arrive between its check of `cancel` and its next write. Locked. */
static void cancel(bgw *b) {
  atomic_store(&b->cancel, 1);
  if (!b->error) b->error = EINTR;
  pthread_kill(b->thread, WAKE_SIGNAL);
}

/* Waits on `freed` for a while. Once a stop was asked and the writes have
 * made no progress for STALL_NS (a FIFO nobody reads, a stalled pipe), the
 * thread is interrupted. Locked. */
static void wait_freed(bgw *b, uint64_t *seen, long long *stalled_ns) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_nsec += POLL_NS;
  if (t.tv_nsec >= 1000000000l) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000l;
  }
  pthread_cond_timedwait(&b->freed, &b->mu, &t);
  bool quitting = b->quit && *b->quit;
  *stalled_ns = b->progress != *seen || !quitting ? 0 : *stalled_ns + POLL_NS;
  *seen = b->progress;
  if (atomic_load(&b->cancel) || *stalled_ns >= STALL_NS) cancel(b);
}

/* Hands the filled slot to the thread and waits for a free one. Locked. */
static void hand_off(bgw *b) {
  uint64_t seen = b->progress;
  long long stalled = 0;
  b->count++;
  pthread_cond_signal(&b->ready);
  while (b->count == NSLOTS && !b->finished) wait_freed(b, &seen, &stalled);
  b->fill = (b->head + b->count) % NSLOTS;
}

unsigned char *bgw_reserve(bgw *b, size_t n, size_t *room) {
  /* The thread never touches the slot being filled (nor its `used`): only a
   * hand-off, which moves `fill`, needs the lock. */
  if (n > SLOT_CAP) {
    errno = EINVAL;
    return NULL;
  }
  if (b->used[b->fill] + n > SLOT_CAP) {
    pthread_mutex_lock(&b->mu);
    if (!b->error) hand_off(b);
    int e = b->error;
    pthread_mutex_unlock(&b->mu);
    if (e) {
      errno = e;
      return NULL;
    }
  }
  *room = SLOT_CAP - b->used[b->fill];
  return b->slot[b->fill] + b->used[b->fill];
}

void bgw_commit(bgw *b, size_t n) { b->used[b->fill] += n; }

int bgw_finish(bgw *b) {
  pthread_mutex_lock(&b->mu);
  if (b->used[b->fill]) {
    b->count++;
    pthread_cond_signal(&b->ready);
  }
  b->stop = true;
  pthread_cond_signal(&b->ready);
  uint64_t seen = b->progress;
  long long stalled = 0;
  while (!b->finished) wait_freed(b, &seen, &stalled);
  pthread_mutex_unlock(&b->mu);
  pthread_join(b->thread, NULL);
  int e = b->error;
  destroy(b);
  if (e) errno = e;
  return e ? -1 : 0;
}
