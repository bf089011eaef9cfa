/* SPDX-License-Identifier: MIT */
/* The mutator's frame records (ornic_mut_mutate_records, _crossover_records)
 * and its repair (ornic_mut_fix, _fix_records) on inputs built from the
 * committed seed frames (fuzz/corpus/frame, the Ethernet ones).
 *   test_records CORPUS_DIR records|shares|determinism|bounds|crossover|fix|fix_records
 * Outputs are judged by frame_oracle.h (its own parse and bitwise CRC-32),
 * and the sequence changes by replaying what ornic_mut_last says on the
 * input's record list, here, by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_oracle.h"
#include "ornic_mutator.h"
#include "seed_frames.h"

#define MAX_FRAMES 512
#define N_OUT 10000
#define CAP 300000
#define PREFIX 4
#define MAX_REC 64

static uint8_t *frames[MAX_FRAMES];
static size_t lens[MAX_FRAMES];
static size_t nframes;
static uint8_t in[CAP], in2[CAP], out[CAP + 64], out2[CAP];

/* Seed frames of at most 2000 bytes, so that sequences of them fit CAP. */
static void load_corpus(const char *dir) {
  nframes = seed_frames_load(dir, frames, lens, MAX_FRAMES, 2000, NULL);
  printf("%zu seed frames the oracle accepts\n", nframes);
  if (nframes < 50) {
    fprintf(stderr, "FAIL: too few seed frames\n");
    exit(1);
  }
}

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* A records input: 4 prefix bytes, 2..9 frames from the seeds and 1..2
 * pauses of 0..13 bytes, in a random order. */
static size_t make_input(uint8_t *p, uint64_t *s) {
  size_t n = 0;
  for (int k = 0; k < PREFIX; k++) p[n++] = (uint8_t)lcg(s);
  size_t nf = 2 + lcg(s) % 8, np = 1 + lcg(s) % 2, nr = nf + np;
  size_t p1 = lcg(s) % nr, p2 = np == 2 ? (p1 + 1 + lcg(s) % (nr - 1)) % nr : nr;
  for (size_t k = 0; k < nr; k++) {
    int pause = k == p1 || k == p2;
    size_t len = pause ? lcg(s) % 14 : 0;
    const uint8_t *src = NULL;
    if (!pause) {
      size_t f = lcg(s) % nframes;
      src = frames[f];
      len = lens[f];
    }
    p[n++] = (uint8_t)(len >> 8);
    p[n++] = (uint8_t)len;
    for (size_t b = 0; b < len; b++) p[n++] = src ? src[b] : (uint8_t)lcg(s);
  }
  return n;
}

typedef struct {
  const uint8_t *p[MAX_REC * 2];
  size_t len[MAX_REC * 2];
  size_t n;
  int exact; /* the records end exactly at the input's end */
} recs;

/* This test's own parse of the records form. */
static void parse(recs *r, const uint8_t *p, size_t len, size_t prefix) {
  size_t at = prefix;
  r->n = 0;
  while (at + 2 <= len && r->n < MAX_REC * 2) {
    size_t n = (size_t)p[at] << 8 | p[at + 1];
    if (at + 2 + n > len) break;
    r->p[r->n] = p + at + 2;
    r->len[r->n++] = n;
    at += 2 + n;
  }
  r->exact = at == len;
}

static int same(const recs *a, size_t i, const recs *b, size_t j) {
  return a->len[i] == b->len[j] && memcmp(a->p[i], b->p[j], a->len[i]) == 0;
}

/* Record i of b is record map[i] of a, for every i; map[i] == -1: skip. */
static int matches(const recs *a, const recs *b, const long *map, size_t n) {
  if (b->n != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (map[i] >= 0 && !same(a, (size_t)map[i], b, i)) return 0;
  return 1;
}

/* Replays the sequence change ornic_mut_last names on a's record list and
 * compares with b; for a frame mutation, every other record is unchanged.
 * Returns the kind's index in kinds[] below, or -1 on a mismatch. */
static const char *const kinds[] = {"record ", "dup ",   "drop ",   "swap ",
                                    "move ",   "pause ", "unpause "};
enum { NKINDS = 7 };
static int replay(const char *log, const recs *a, const recs *b) {
  size_t i, j, n, k;
  long map[MAX_REC * 2];
  if (sscanf(log, "record %zu of %zu:", &i, &n) == 2) {
    for (k = 0; k < a->n; k++) map[k] = k == i - 1 ? -1 : (long)k;
    return n == a->n && a->len[i - 1] >= 14 && matches(a, b, map, a->n) ? 0 : -1;
  }
  if (sscanf(log, "dup record %zu at %zu of %zu", &i, &j, &n) == 3) {
    for (k = 0; k <= a->n; k++)
      map[k] = k < j - 1 ? (long)k : k == j - 1 ? (long)i - 1 : (long)k - 1;
    return n == a->n && j > i && matches(a, b, map, a->n + 1) ? 1 : -1;
  }
  if (sscanf(log, "drop record %zu of %zu", &i, &n) == 2) {
    for (k = 0; k + 1 < a->n; k++) map[k] = k < i - 1 ? (long)k : (long)k + 1;
    return n == a->n && matches(a, b, map, a->n - 1) ? 2 : -1;
  }
  if (sscanf(log, "swap records %zu and %zu of %zu", &i, &j, &n) == 3) {
    for (k = 0; k < a->n; k++) map[k] = (long)k;
    map[i - 1] = (long)j - 1;
    map[j - 1] = (long)i - 1;
    return n == a->n && i < j && matches(a, b, map, a->n) ? 3 : -1;
  }
  if (sscanf(log, "move record %zu to %zu of %zu", &i, &j, &n) == 3) {
    for (k = 0; k < a->n; k++)
      map[k] = k < i - 1 || k > j - 1 ? (long)k : k == j - 1 ? (long)i - 1 : (long)k + 1;
    return n == a->n && i < j && matches(a, b, map, a->n) ? 4 : -1;
  }
  if (sscanf(log, "pause of %zu bytes at %zu", &n, &i) == 2) {
    for (k = 0; k <= a->n; k++) map[k] = k < i - 1 ? (long)k : k == i - 1 ? -1 : (long)k - 1;
    return n < 14 && b->n > i - 1 && b->len[i - 1] == n && matches(a, b, map, a->n + 1) ? 5 : -1;
  }
  if (sscanf(log, "unpause record %zu of %zu", &i, &n) == 2) {
    for (k = 0; k + 1 < a->n; k++) map[k] = k < i - 1 ? (long)k : (long)k + 1;
    return n == a->n && a->len[i - 1] < 14 && matches(a, b, map, a->n - 1) ? 6 : -1;
  }
  return -1;
}

/* Every frame record of r passes the oracle. */
static int frames_ok(const recs *r) {
  for (size_t k = 0; k < r->n; k++)
    if (r->len[k] >= 14 && oracle_check(r->p[k], r->len[k]) != ORACLE_OK) return 0;
  return 1;
}

/* records: the prefix kept, every output parses as records to its end, the
 * change is the one the log names, and at break_rate 0 every frame record
 * is consistent by the oracle (the mutated one too). shares: the kinds'
 * shares against the documented 70/6/6/6/4/5/3 in 100. */
static void test_records(int shares) {
  ornic_mut *m = seed_mut_new(21, 0.1, 0);
  uint64_t s = 5;
  size_t kept = 0, exact = 0, replayed = 0, valid = 0, seen[NKINDS] = {0};
  for (size_t t = 0; t < N_OUT; t++) {
    size_t len = make_input(in, &s);
    size_t n = ornic_mut_mutate_records(m, in, len, PREFIX, out, CAP);
    recs a, b;
    parse(&a, in, len, PREFIX);
    parse(&b, out, n, PREFIX);
    kept += n >= PREFIX && memcmp(in, out, PREFIX) == 0;
    exact += b.exact;
    int k = replay(ornic_mut_last(m), &a, &b);
    if (k < 0 && replayed + 5 > t) fprintf(stderr, "output %zu: %s\n", t, ornic_mut_last(m));
    if (k >= 0) seen[k]++;
    replayed += k >= 0;
    valid += frames_ok(&b);
  }
  printf(
      "%d outputs: prefix kept %zu, parse to the end %zu, change as logged %zu, every frame "
      "record consistent %zu\n",
      N_OUT, kept, exact, replayed, valid);
  CHECK(kept == N_OUT && exact == N_OUT, "prefix or parse");
  CHECK(replayed == N_OUT, "%zu outputs differ from what their log says", N_OUT - replayed);
  CHECK(valid * 100 >= (size_t)N_OUT * 99, "only %zu outputs with every frame consistent", valid);
  if (shares) {
    static const double want[NKINDS] = {0.70, 0.06, 0.06, 0.06, 0.04, 0.05, 0.03};
    for (int k = 0; k < NKINDS; k++) {
      double got = (double)seen[k] / N_OUT;
      printf("  %-8s %.4f (documented %.2f)\n", kinds[k], got, want[k]);
      CHECK(got > want[k] - 0.015 && got < want[k] + 0.015, "%s share %.4f", kinds[k], got);
    }
  }
  ornic_mut_free(m);
}

static void test_determinism(void) {
  ornic_mut *a = seed_mut_new(42, 0.1, 0.3), *b = seed_mut_new(42, 0.1, 0.3),
            *c = seed_mut_new(43, 0.1, 0.3);
  uint64_t s = 9;
  size_t differ = 0;
  for (size_t t = 0; t < N_OUT; t++) {
    size_t len = make_input(in, &s);
    size_t na = ornic_mut_mutate_records(a, in, len, PREFIX, out, CAP);
    size_t nb = ornic_mut_mutate_records(b, in, len, PREFIX, out2, CAP);
    CHECK(na == nb && memcmp(out, out2, na) == 0, "output %zu differs under the same seed", t);
    CHECK(strcmp(ornic_mut_last(a), ornic_mut_last(b)) == 0, "log %zu differs", t);
    size_t nc = ornic_mut_mutate_records(c, in, len, PREFIX, out2, CAP);
    differ += na != nc || memcmp(out, out2, na) != 0;
  }
  printf("records, seed 42 vs 42: identical over %d outputs; 42 vs 43: %zu differ\n", N_OUT,
         differ);
  CHECK(differ > N_OUT / 2, "another seed changes only %zu outputs", differ);
  ornic_mut_free(a);
  ornic_mut_free(b);
  ornic_mut_free(c);
}

/* Random bytes, random prefixes, caps of 0..399, a canary past the cap; and
 * records inputs cut anywhere (the last record then runs past the end). */
static void test_bounds(void) {
  ornic_mut *m = seed_mut_new(3, 0.5, 0.5);
  uint64_t s = 1;
  for (size_t t = 0; t < 20000; t++) {
    size_t cap = lcg(&s) % 400, prefix = lcg(&s) % 6, len, alen;
    uint8_t *a, *b;
    if (t & 1) {
      len = make_input(in, &s);
      len = lcg(&s) % (len + 1);
      alen = make_input(in2, &s);
      a = malloc(len ? len : 1);
      memcpy(a, in, len);
    } else {
      len = lcg(&s) % 300;
      alen = lcg(&s) % 300;
      a = malloc(len ? len : 1);
      for (size_t k = 0; k < len; k++) a[k] = (uint8_t)(k < 8 ? lcg(&s) % 3 : lcg(&s));
      for (size_t k = 0; k < alen; k++) in2[k] = (uint8_t)lcg(&s);
    }
    b = malloc(alen ? alen : 1); /* exactly sized: ASan sees a read past the end */
    memcpy(b, in2, alen);
    memset(out, 0xa5, cap + 64);
    size_t n = t % 3 == 2 ? ornic_mut_crossover_records(m, a, len, b, alen, prefix, out, cap)
                          : ornic_mut_mutate_records(m, a, len, prefix, out, cap);
    CHECK(n <= cap, "returned %zu for cap %zu", n, cap);
    for (size_t k = cap; k < cap + 64; k++) CHECK(out[k] == 0xa5, "byte %zu past cap %zu", k, cap);
    memcpy(out, a, len < cap ? len : cap);
    (void)ornic_mut_fix_records(m, out, len < cap ? len : cap, prefix);
    (void)ornic_mut_fix(m, a, len);
    free(a);
    free(b);
  }
  printf("bounds: 20000 calls, caps 0..399, random and cut inputs\n");
  ornic_mut_free(m);
}

/* Every output record is one of a's or b's, a's prefix kept. */
static void test_crossover(void) {
  ornic_mut *m = seed_mut_new(17, 0.1, 0);
  uint64_t s = 77;
  size_t good = 0, kinds3[3] = {0};
  for (size_t t = 0; t < N_OUT; t++) {
    size_t alen = make_input(in, &s), blen = make_input(in2, &s);
    size_t n = ornic_mut_crossover_records(m, in, alen, in2, blen, PREFIX, out, CAP);
    recs a, b, o;
    parse(&a, in, alen, PREFIX);
    parse(&b, in2, blen, PREFIX);
    parse(&o, out, n, PREFIX);
    int ok = o.exact && memcmp(out, in, PREFIX) == 0;
    for (size_t k = 0; k < o.n && ok; k++) {
      int found = 0;
      for (size_t x = 0; x < a.n && !found; x++) found = same(&a, x, &o, k);
      for (size_t x = 0; x < b.n && !found; x++) found = same(&b, x, &o, k);
      ok = found;
    }
    const char *log = ornic_mut_last(m);
    kinds3[0] += strstr(log, " at ") != NULL;
    kinds3[1] += strstr(log, " for record ") != NULL;
    kinds3[2] += strstr(log, "a[1,") != NULL;
    good += ok;
  }
  printf(
      "crossover: %zu of %d outputs made of a's prefix and a's and b's records; inserted %zu, "
      "replaced %zu, spliced %zu\n",
      good, N_OUT, kinds3[0], kinds3[1], kinds3[2]);
  CHECK(good == N_OUT, "%zu bad crossovers", N_OUT - good);
  CHECK(kinds3[0] > N_OUT / 5 && kinds3[1] > N_OUT / 5 && kinds3[2] > N_OUT / 5, "kinds");
  ornic_mut_free(m);
}

/* An 802.1Q or 802.1ad tag (EtherType 0x8100, 0x88a8). */
static int tagged(const uint8_t *p) {
  return (p[12] == 0x81 && p[13] == 0x00) || (p[12] == 0x88 && p[13] == 0xa8);
}

/* Damage as havoc does it, where the frame stays locatable: the IP and UDP
 * lengths and checksums overwritten, bytes changed from the BTH on, bytes
 * inserted or deleted in the payload. */
static size_t damage(uint8_t *p, const uint8_t *src, size_t len, uint64_t *s) {
  memcpy(p, src, len);
  size_t l3 = tagged(p) ? 18 : 14, l4 = l3 + (p[l3] >> 4 == 4 ? (size_t)(p[l3] & 15) * 4 : 40);
  size_t bth = l4 + 8, n = 1 + lcg(s) % 4;
  for (size_t k = 0; k < n; k++) {
    switch (lcg(s) % 4) {
    case 0: p[l3 + 2 + lcg(s) % 4] ^= (uint8_t)(1 + lcg(s) % 255); break; /* IP lengths */
    case 1: p[l4 + 4 + lcg(s) % 4] ^= (uint8_t)(1 + lcg(s) % 255); break; /* UDP length, csum */
    case 2: p[bth + lcg(s) % (len - bth)] ^= (uint8_t)(1 + lcg(s) % 255); break;
    default: /* a byte in or out after the BTH's 12 bytes */
      if (lcg(s) & 1) {
        size_t at = bth + 12 + lcg(s) % (len - bth - 12);
        memmove(p + at + 1, p + at, len - at);
        p[at] = (uint8_t)lcg(s);
        len++;
      } else if (len > bth + 12 + 4 + 1) {
        size_t at = bth + 12 + lcg(s) % (len - bth - 12 - 4);
        memmove(p + at, p + at + 1, len - at - 1);
        len--;
      }
    }
  }
  return len;
}

/* fix: damaged frames come back consistent by the oracle; consistent ones
 * unchanged; unlocatable ones untouched; at break_rate 0.3 the same input
 * always gets the same result, 0.3 of them broken as the oracle sees it. */
/* Frames that end right after their Ethernet header (with and without a
 * tag), each in an allocation of its exact size, so that ASan (the
 * sanitizer suite runs mutator_records_fix) sees a read of the IP header
 * that is not there. */
static void fix_cut_after_ethernet(ornic_mut *m) {
  static const uint8_t hdr[18] = {[12] = 0x81, [13] = 0x00, [16] = 0x08, [17] = 0x00};
  for (size_t len = 14; len <= 18; len += 4) {
    uint8_t *f = malloc(len);
    memcpy(f, hdr, len);
    if (len == 14) f[12] = 0x08, f[13] = 0x00; /* untagged IPv4 */
    CHECK(ornic_mut_fix(m, f, len) == 0, "a %zu-byte frame was repaired", len);
    free(f);
  }
}

static void test_fix(void) {
  ornic_mut *m = seed_mut_new(1, 0.1, 0);
  uint64_t s = 11;
  fix_cut_after_ethernet(m);
  size_t damaged = 0, fixed = 0, identity = 0, alone = 0;
  for (size_t t = 0; t < N_OUT; t++) {
    size_t f = t % nframes, len = damage(in, frames[f], lens[f], &s);
    damaged += oracle_check(in, len) != ORACLE_OK;
    int fr = ornic_mut_fix(m, in, len), oc = oracle_check(in, len);
    fixed += fr == 1 && oc == ORACLE_OK && !ornic_mut_last_broken(m);
    memcpy(in2, frames[f], lens[f]);
    identity += ornic_mut_fix(m, in2, lens[f]) == 1 && memcmp(in2, frames[f], lens[f]) == 0 &&
                strcmp(ornic_mut_last(m), "fixed: nothing") == 0;
    memcpy(in2, frames[f], lens[f]); /* ARP's EtherType, then UDP port 4792: not RoCE */
    in2[12] = 0x08, in2[13] = 0x06;
    int r = ornic_mut_fix(m, in2, lens[f]);
    in2[12] = frames[f][12], in2[13] = frames[f][13];
    alone += r == 0 && memcmp(in2, frames[f], lens[f]) == 0;
  }
  printf(
      "fix: %zu of %d damaged frames inconsistent; %zu consistent after ornic_mut_fix; %zu "
      "consistent frames unchanged; %zu non-RoCE frames left alone\n",
      damaged, N_OUT, fixed, identity, alone);
  CHECK(damaged * 10 >= (size_t)N_OUT * 9, "the damage did not damage");
  CHECK(fixed == N_OUT && identity == N_OUT && alone == N_OUT, "fix");
  ornic_mut_free(m);
  m = seed_mut_new(2, 0.1, 0.3);
  ornic_mut *m2 = seed_mut_new(2, 0.1, 0.3);
  size_t broken = 0, agree = 0, stable = 0;
  for (size_t t = 0; t < N_OUT; t++) {
    size_t f = t % nframes, len = damage(in, frames[f], lens[f], &s);
    memcpy(in2, in, len);
    /* m2's history differs from m's (a mutation in between): the result must not */
    (void)ornic_mut_mutate(m2, frames[f], lens[f], out2, CAP);
    ornic_mut_fix(m, in, len);
    int said = ornic_mut_last_broken(m);
    ornic_mut_fix(m2, in2, len);
    stable += memcmp(in, in2, len) == 0 && said == ornic_mut_last_broken(m2);
    broken += said;
    agree += said == (oracle_check(in, len) != ORACLE_OK);
  }
  printf(
      "fix at break_rate 0.3: %.4f broken, the oracle agreeing on %zu, the same result on "
      "another history %zu of %d\n",
      (double)broken / N_OUT, agree, stable, N_OUT);
  CHECK(broken * 100 >= (size_t)N_OUT * 27 && broken * 100 <= (size_t)N_OUT * 33, "share");
  CHECK(agree * 100 >= (size_t)N_OUT * 99 && stable == N_OUT, "agree or stable");
  ornic_mut_free(m);
  ornic_mut_free(m2);
}

/* fix_records: every damaged frame record of a records input repaired, the
 * prefix, the pauses and the record lengths untouched. */
static void test_fix_records(void) {
  ornic_mut *m = seed_mut_new(4, 0.1, 0);
  uint64_t s = 13;
  size_t good = 0;
  for (size_t t = 0; t < 2000; t++) {
    size_t len = make_input(in, &s);
    memcpy(in2, in, len);
    recs a, b;
    parse(&a, in2, len, PREFIX);
    size_t frames_in = 0;
    for (size_t k = 0; k < a.n; k++) /* damage in place: lengths and a BTH byte */
      if (a.len[k] >= 14) {
        uint8_t *p = (uint8_t *)a.p[k];
        size_t l3 = tagged(p) ? 18 : 14;
        p[l3 + 3] ^= 0x10;
        p[a.len[k] - 5] ^= 0x01;
        frames_in++;
      }
    size_t fixed = ornic_mut_fix_records(m, in2, len, PREFIX);
    parse(&b, in2, len, PREFIX);
    parse(&a, in, len, PREFIX);
    int ok = fixed == frames_in && memcmp(in, in2, PREFIX) == 0 && b.n == a.n && frames_ok(&b);
    for (size_t k = 0; k < a.n && ok; k++)
      ok = a.len[k] == b.len[k] && (a.len[k] >= 14 || same(&a, k, &b, k));
    good += ok;
  }
  printf("fix_records: %zu of 2000 inputs with every frame record repaired\n", good);
  CHECK(good == 2000, "fix_records");
  ornic_mut_free(m);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr,
            "usage: %s CORPUS_DIR records|shares|determinism|bounds|crossover|fix|"
            "fix_records\n",
            argv[0]);
    return 2;
  }
  load_corpus(argv[1]);
  const char *t = argv[2];
  if (!strcmp(t, "records"))
    test_records(0);
  else if (!strcmp(t, "shares"))
    test_records(1);
  else if (!strcmp(t, "determinism"))
    test_determinism();
  else if (!strcmp(t, "bounds"))
    test_bounds();
  else if (!strcmp(t, "crossover"))
    test_crossover();
  else if (!strcmp(t, "fix"))
    test_fix();
  else if (!strcmp(t, "fix_records"))
    test_fix_records();
  else
    return 2;
  for (size_t i = 0; i < nframes; i++) free(frames[i]);
  return failed;
}
