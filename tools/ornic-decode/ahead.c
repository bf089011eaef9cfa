/* SPDX-License-Identifier: MIT */
/* The reader thread of --threads and its ring of batches (ahead.h). A batch
 * is the unit handed over: one lock and one wake-up per AHEAD_BATCH packets,
 * not per packet. Its records' bytes are copied into the batch's own arena
 * because the reader reuses its buffer (and libpcap its own) at the next
 * record; the packets are decoded where they will be read, so the views of
 * a dec_packet (payload, bitmap, errbuf) stay inside the batch. */
#include "ahead.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"

enum {
  AHEAD_BATCH = 256,        /* packets per batch */
  AHEAD_RING = 4,           /* batches: the reader may run this far ahead */
  AHEAD_ARENA = 512 * 1024, /* bytes per batch; a larger record gets an arena of its size */
  AHEAD_OOM = -2            /* a record larger than any arena could be had */
};

typedef struct {
  dec_ahead_rec recs[AHEAD_BATCH];
  unsigned n;
  uint8_t *arena;
  size_t used, cap;
} ahead_batch;

struct dec_ahead {
  dec_merge *m;
  dec_decode_cfg cfg;
  ahead_batch *ring; /* AHEAD_RING batches */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t filled, emptied;
  uint64_t produced, consumed; /* batches; ring[k % AHEAD_RING] */
  bool done;                   /* the reader has published its last batch */
  int rc;                      /* its last result, once done */
  atomic_bool stop;            /* the main thread wants no more */
  ahead_batch *fill;           /* the reader's batch being filled, or NULL */
  ahead_batch *cur;            /* the main thread's batch, or NULL */
  unsigned next;               /* its next record */
};

/* The reader's next free batch, emptied; NULL when told to stop. */
static ahead_batch *take_free(dec_ahead *a) {
  pthread_mutex_lock(&a->mu);
  while (a->produced - a->consumed == AHEAD_RING && !atomic_load(&a->stop))
    pthread_cond_wait(&a->emptied, &a->mu);
  ahead_batch *b = atomic_load(&a->stop) ? NULL : &a->ring[a->produced % AHEAD_RING];
  pthread_mutex_unlock(&a->mu);
  if (b) b->n = 0, b->used = 0;
  return b;
}

/* The batch being filled goes to the main thread; done: with the end. */
static void publish(dec_ahead *a, bool done, int rc) {
  pthread_mutex_lock(&a->mu);
  if (a->fill && a->fill->n) a->produced++;
  a->fill = NULL;
  a->done = done;
  a->rc = rc;
  pthread_cond_signal(&a->filled);
  pthread_mutex_unlock(&a->mu);
}

/* Room for len bytes in b; an empty batch grows its arena. */
static bool fits(ahead_batch *b, size_t len) {
  if (b->cap - b->used >= len) return true;
  if (b->n) return false;
  uint8_t *p = realloc(b->arena, len);
  if (!p) return false;
  b->arena = p;
  b->cap = len;
  return true;
}

static void put(dec_ahead *a, ahead_batch *b, const struct pcap_pkthdr *h, const uint8_t *data) {
  const dec_capture *cap = &a->m->caps[a->m->cur];
  dec_ahead_rec *r = &b->recs[b->n++];
  uint8_t *copy = b->arena + b->used;
  memcpy(copy, data, h->caplen);
  b->used += h->caplen;
  r->h = *h;
  r->data = copy;
  r->dlt = cap->dlt;
  a->cfg.dlt = cap->dlt;                    /* pcapng: each interface has its own */
  a->cfg.pcapng = cap->pcapng || cap->live; /* 64-bit seconds */
  dec_packet_decode(&r->pk, &a->cfg, a->m->records, h, copy);
}

/* The one-thread loop's reading (main.c run), batch by batch: a stop
 * signal ends it before the next record, and a damage seen after one reads
 * as an end. Returns 0 or -1 as dec_merge_next ended, or AHEAD_OOM. */
static int read_all(dec_ahead *a) {
  const struct pcap_pkthdr *h;
  const uint8_t *data;
  int rc;
  while (!atomic_load(&a->stop) && !dec_interrupted() && (rc = dec_merge_next(a->m, &h, &data))) {
    if (rc < 0) return dec_interrupted() ? 0 : -1;
    if (a->m->n > 1 && dec_interrupted()) return 0;
    if (a->fill && !fits(a->fill, h->caplen)) publish(a, false, 0);
    if (!a->fill && !(a->fill = take_free(a))) return 0;
    if (!fits(a->fill, h->caplen)) return AHEAD_OOM;
    put(a, a->fill, h, data);
    if (a->fill->n == AHEAD_BATCH) publish(a, false, 0);
  }
  return 0;
}

/* A partly filled batch goes with the end. */
static void *reader_main(void *arg) {
  dec_ahead *a = arg;
  int rc = read_all(a);
  publish(a, true, rc);
  return NULL;
}

static void free_ring(dec_ahead *a) {
  for (int i = 0; i < AHEAD_RING; i++) free(a->ring[i].arena);
  free(a->ring);
  free(a);
}

dec_ahead *dec_ahead_start(dec_merge *m, const dec_decode_cfg *cfg) {
  dec_ahead *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->m = m;
  a->cfg = *cfg;
  /* calloc: a packet the engine never sees (--no-analysis) keeps analysed false. */
  if (!(a->ring = calloc(AHEAD_RING, sizeof *a->ring))) goto fail;
  for (int i = 0; i < AHEAD_RING; i++) {
    if (!(a->ring[i].arena = malloc(AHEAD_ARENA))) goto fail;
    a->ring[i].cap = AHEAD_ARENA;
  }
  pthread_mutex_init(&a->mu, NULL);
  pthread_cond_init(&a->filled, NULL);
  pthread_cond_init(&a->emptied, NULL);
  atomic_init(&a->stop, false);
  if (pthread_create(&a->thread, NULL, reader_main, a) == 0) return a;
  pthread_cond_destroy(&a->filled);
  pthread_cond_destroy(&a->emptied);
  pthread_mutex_destroy(&a->mu);
fail:
  if (a->ring)
    free_ring(a);
  else
    free(a);
  return NULL;
}

/* The main thread's next filled batch, the one before it given back; NULL
 * at the end. */
static ahead_batch *take_filled(dec_ahead *a) {
  pthread_mutex_lock(&a->mu);
  if (a->cur) {
    a->consumed++;
    pthread_cond_signal(&a->emptied);
  }
  while (a->consumed == a->produced && !a->done) pthread_cond_wait(&a->filled, &a->mu);
  ahead_batch *b = a->consumed < a->produced ? &a->ring[a->consumed % AHEAD_RING] : NULL;
  pthread_mutex_unlock(&a->mu);
  return b;
}

dec_ahead_rec *dec_ahead_next(dec_ahead *a) {
  while (!a->cur || a->next == a->cur->n) {
    a->cur = take_filled(a);
    a->next = 0;
    if (!a->cur) return NULL;
  }
  return &a->cur->recs[a->next++];
}

int dec_ahead_finish(dec_ahead *a) {
  pthread_mutex_lock(&a->mu);
  atomic_store(&a->stop, true);
  pthread_cond_signal(&a->emptied);
  pthread_mutex_unlock(&a->mu);
  pthread_join(a->thread, NULL);
  int rc = a->rc;
  pthread_cond_destroy(&a->filled);
  pthread_cond_destroy(&a->emptied);
  pthread_mutex_destroy(&a->mu);
  free_ring(a);
  return rc;
}

static bool regular(const char *path) {
  struct stat st;
  if (!path || strcmp(path, "-") == 0) return fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode);
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool dec_ahead_applies(const char *const *paths, int n, bool line_buffered, bool filter) {
  if (line_buffered || filter) return false;
  for (int i = 0; i < n; i++)
    if (!regular(paths[i])) return false;
  return true;
}
