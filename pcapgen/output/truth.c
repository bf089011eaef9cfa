/* SPDX-License-Identifier: MIT */
#include "truth.h"

#include <stdbool.h>
#include <stdlib.h>

#include "ornic/ornic.h"

/* A growable list of 64-bit values (frame numbers, or packed records). */
typedef struct {
  uint64_t *a;
  size_t n, cap;
} list;

/* A lost or missed packet: where it was going and what it was. */
typedef struct {
  uint64_t frame;
  uint32_t qp, psn;
  uint8_t opcode;
} record;

typedef struct {
  record *a;
  size_t n, cap;
} records;

struct truth {
  double start_us;
  list retx, dups, naks, probes;
  records lost, missed;
  size_t entries;
  bool truncated;
};

truth *truth_new(double capture_start_us) {
  truth *t = calloc(1, sizeof *t);
  if (t) t->start_us = capture_start_us;
  return t;
}

void truth_free(truth *t) {
  if (!t) return;
  free(t->retx.a);
  free(t->dups.a);
  free(t->naks.a);
  free(t->probes.a);
  free(t->lost.a);
  free(t->missed.a);
  free(t);
}

/* Room for one more entry under the cap; false (and truncated) past it. */
static bool room(truth *t) {
  if (t->entries >= TRUTH_MAX_ENTRIES) {
    t->truncated = true;
    return false;
  }
  t->entries++;
  return true;
}

static void push(truth *t, list *l, uint64_t v) {
  if (!room(t)) return;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    uint64_t *a = realloc(l->a, cap * sizeof *a);
    if (!a) {
      t->truncated = true;
      return;
    }
    l->a = a;
    l->cap = cap;
  }
  l->a[l->n++] = v;
}

static void push_record(truth *t, records *l, uint64_t frame, const pkt *p) {
  ornic_frame f;
  if (!room(t) || ornic_frame_decode(&f, p->data, p->len, ORNIC_LINK_ETHERNET,
                                     ORNIC_ROCEV2_UDP_PORT) != ORNIC_OK)
    return;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    record *a = realloc(l->a, cap * sizeof *a);
    if (!a) {
      t->truncated = true;
      return;
    }
    l->a = a;
    l->cap = cap;
  }
  l->a[l->n++] = (record){frame, f.bth.destqp, f.bth.psn, f.bth.opcode};
}

/* A NAK by its bytes, the way an analyser sees it, whatever the profile. */
static bool is_nak(const pkt *p) {
  ornic_frame f;
  if (ornic_frame_decode(&f, p->data, p->len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT) !=
      ORNIC_OK)
    return false;
  if (f.bth.opcode == ORNIC_OP_NAK) return true;
  return f.bth.opcode == ORNIC_OP_RC_ACK && ornic_aeth_type(f.ext.aeth.syndrome) == ORNIC_AETH_NAK;
}

void truth_written(truth *t, uint64_t frame, const pkt *p) {
  bool resent = p->m.retx && (p->m.kind == PK_DATA || p->m.kind == PK_READ_REQ);
  if (resent) push(t, &t->retx, frame);
  if (p->m.probe) push(t, &t->probes, frame);
  if ((p->m.kind == PK_NAK || p->m.kind == PK_FATAL || p->m.kind == PK_ACK) && is_nak(p))
    push(t, &t->naks, frame);
}

void truth_missed(truth *t, uint64_t full_frame, const pkt *p) {
  push_record(t, &t->missed, full_frame, p);
}

void truth_lost(truth *t, const pkt *p) { push_record(t, &t->lost, 0, p); }

static void write_list(FILE *f, const char *name, const list *l) {
  fprintf(f, "    \"%s\": [", name);
  for (size_t i = 0; i < l->n; i++)
    fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)l->a[i]);
  fputs("],\n", f);
}

static void write_records(FILE *f, const char *name, const records *l, bool frames, bool comma) {
  fprintf(f, "    \"%s\": [", name);
  for (size_t i = 0; i < l->n; i++) {
    const record *r = &l->a[i];
    fprintf(f, "%s{", i ? ",\n      " : "\n      ");
    if (frames) fprintf(f, "\"frame\": %llu, ", (unsigned long long)r->frame);
    fprintf(f, "\"qp\": %u, \"psn\": %u, \"opcode\": %u}", r->qp, r->psn, r->opcode);
  }
  fprintf(f, "%s]%s\n", l->n ? "\n    " : "", comma ? "," : "");
}

void truth_write_json(FILE *f, const truth *t, uint64_t captured_frames, uint64_t full_frames) {
  fputs("  \"truth\": {\n", f);
  fprintf(f, "    \"captured_frames\": %llu,\n", (unsigned long long)captured_frames);
  fprintf(f, "    \"full_capture_frames\": %llu,\n", (unsigned long long)full_frames);
  fprintf(f, "    \"capture_start_us\": %.6f,\n", t->start_us);
  fprintf(f, "    \"truncated\": %s,\n", t->truncated ? "true" : "false");
  write_list(f, "retransmissions", &t->retx);
  write_list(f, "duplicates", &t->dups);
  write_list(f, "naks", &t->naks);
  write_list(f, "probes", &t->probes);
  write_records(f, "network_lost", &t->lost, false, true);
  write_records(f, "capture_dropped", &t->missed, true, false);
  fputs("  }", f);
}
