#include "bgwrite.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOT_CAP (1u << 20)
#define NSLOTS 4u

struct bgw {
  int fd;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t ready, freed;
  uint8_t *slot[NSLOTS];
  size_t used[NSLOTS];
  unsigned head, count; /* slots [head, head + count) wait for the thread */
  unsigned fill;        /* the slot the caller fills */
  bool stop;
  int error;            /* first errno of a failed write, 0 */
};

static int write_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
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
    int e = failed ? 0 : write_all(b->fd, b->slot[i], b->used[i]);
    pthread_mutex_lock(&b->mu);
    if (e && !b->error) b->error = e;
    b->used[i] = 0;
    b->head = (b->head + 1) % NSLOTS;
    b->count--;
    pthread_cond_signal(&b->freed);
  }
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

static void destroy(bgw *b) {
  for (unsigned i = 0; i < NSLOTS; i++) free(b->slot[i]);
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
  bool ok = true;
  for (unsigned i = 0; i < NSLOTS; i++) ok = ok && (b->slot[i] = malloc(SLOT_CAP)) != NULL;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits this mask */
  ok = ok && pthread_create(&b->thread, NULL, run, b) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!ok) {
    destroy(b);
    return NULL;
  }
  return b;
}

/* Hands the filled slot to the thread and waits for a free one. Locked. */
static void hand_off(bgw *b) {
  b->count++;
  pthread_cond_signal(&b->ready);
  while (b->count == NSLOTS) pthread_cond_wait(&b->freed, &b->mu);
  b->fill = (b->head + b->count) % NSLOTS;
}

int bgw_write(bgw *b, const void *p, size_t n) {
  const uint8_t *src = p;
  pthread_mutex_lock(&b->mu);
  while (n && !b->error) {
    unsigned i = b->fill;
    size_t k = SLOT_CAP - b->used[i] < n ? SLOT_CAP - b->used[i] : n;
    /* The thread never touches the slot being filled: copying unlocked is safe. */
    pthread_mutex_unlock(&b->mu);
    memcpy(b->slot[i] + b->used[i], src, k);
    pthread_mutex_lock(&b->mu);
    b->used[i] += k;
    src += k;
    n -= k;
    if (b->used[i] == SLOT_CAP) hand_off(b);
  }
  int e = b->error;
  pthread_mutex_unlock(&b->mu);
  if (e) errno = e;
  return e ? -1 : 0;
}

int bgw_finish(bgw *b) {
  pthread_mutex_lock(&b->mu);
  if (b->used[b->fill]) {
    b->count++;
    pthread_cond_signal(&b->ready);
  }
  b->stop = true;
  pthread_cond_signal(&b->ready);
  pthread_mutex_unlock(&b->mu);
  pthread_join(b->thread, NULL);
  int e = b->error;
  destroy(b);
  if (e) errno = e;
  return e ? -1 : 0;
}
