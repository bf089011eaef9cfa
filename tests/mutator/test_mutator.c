/* SPDX-License-Identifier: MIT */
/* The mutator (fuzz/mutator/ornic_mutator.h) on the committed seed frames
 * (fuzz/corpus/frame, the Ethernet ones: mode byte 0, IPv4 or IPv6).
 *   test_mutator CORPUS_DIR determinism|valid|break|diversity|bounds|crossover
 * The outputs are judged by frame_oracle.h (its own parse and bitwise
 * CRC-32, no libornicproto code) and, for validity, by ornic_icrc_verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ornic/ornic.h>

#include "frame_oracle.h"
#include "ornic_mutator.h"
#include "seed_frames.h"

#define MAX_FRAMES 512
#define N_OUT 10000
#define OUT_CAP 70000

static uint8_t *frames[MAX_FRAMES];
static size_t lens[MAX_FRAMES];
static size_t nframes;
static uint8_t out[OUT_CAP], out2[OUT_CAP];

/* For every seed an IPv6 twin, every fourth with an 802.1Q tag, so that
 * the IPv6 UDP checksum and the tag are exercised too (the committed seeds
 * are nearly all IPv4); the twins are made by the library's encoder but
 * judged by the oracle before use. */
static void add_twins(void) {
  size_t n0 = nframes;
  for (size_t i = 0; i < n0 && nframes < MAX_FRAMES; i++) {
    ornic_frame f;
    static uint8_t buf[70000];
    if (ornic_frame_decode(&f, frames[i], lens[i], ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT) !=
            ORNIC_OK ||
        f.l3 != ORNIC_L3_IPV4)
      continue;
    f.l3 = ORNIC_L3_IPV6;
    f.ip.version = 6;
    f.ip.frag = 0;
    memset(f.ip.src, 0xfd, 16);
    memset(f.ip.dst, 0xfe, 16);
    if (i % 4 == 0) {
      f.eth.has_vlan = true;
      f.eth.vlan_tpid = ORNIC_ETHERTYPE_VLAN;
      f.eth.vlan_tci = 0x2005;
    }
    ornic_ssize n = ornic_frame_encode(buf, sizeof buf, &f);
    if (n <= 0 || oracle_check(buf, (size_t)n) != ORACLE_OK) continue;
    frames[nframes] = malloc((size_t)n);
    memcpy(frames[nframes], buf, (size_t)n);
    lens[nframes++] = (size_t)n;
  }
}

/* The seed frames (seed_frames.h) and their twins. */
static void load_corpus(const char *dir) {
  size_t v6;
  nframes = seed_frames_load(dir, frames, lens, MAX_FRAMES, sizeof out, &v6);
  size_t seeds = nframes;
  add_twins();
  printf("%zu seed frames the oracle accepts (%zu IPv6), %zu IPv6 twins\n", seeds, v6,
         nframes - seeds);
  if (nframes < 50) {
    fprintf(stderr, "FAIL: too few seed frames\n");
    exit(1);
  }
}

static void test_determinism(void) {
  ornic_mut *a = seed_mut_new(42, 0.1, 0.3), *b = seed_mut_new(42, 0.1, 0.3),
            *c = seed_mut_new(43, 0.1, 0.3);
  size_t differ = 0;
  for (size_t i = 0; i < N_OUT; i++) {
    const uint8_t *in = frames[i % nframes];
    size_t len = lens[i % nframes];
    size_t na = ornic_mut_mutate(a, in, len, out, OUT_CAP);
    size_t nb = ornic_mut_mutate(b, in, len, out2, OUT_CAP);
    CHECK(na == nb && memcmp(out, out2, na) == 0, "output %zu differs under the same seed", i);
    CHECK(strcmp(ornic_mut_last(a), ornic_mut_last(b)) == 0, "log %zu differs", i);
    size_t nc = ornic_mut_mutate(c, in, len, out2, OUT_CAP);
    differ += na != nc || memcmp(out, out2, na) != 0;
  }
  printf("seed 42 vs 42: identical over %d outputs; seed 42 vs 43: %zu differ\n", N_OUT, differ);
  CHECK(differ > N_OUT / 2, "another seed changes only %zu outputs", differ);
  ornic_mut_free(a);
  ornic_mut_free(b);
  ornic_mut_free(c);
}

static int library_icrc_ok(const uint8_t *p, size_t n) {
  ornic_frame f;
  (void)ornic_frame_decode(&f, p, n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  return f.icrc_present && ornic_icrc_verify(&f, p) == ORNIC_OK;
}

static void test_valid(void) {
  ornic_mut *m = seed_mut_new(7, 0.1, 0);
  size_t ok = 0, changed = 0;
  for (size_t i = 0; i < N_OUT; i++) {
    size_t n = ornic_mut_mutate(m, frames[i % nframes], lens[i % nframes], out, OUT_CAP);
    int o = oracle_check(out, n);
    int good = n > 0 && o == ORACLE_OK && library_icrc_ok(out, n);
    ok += good;
    changed += n != lens[i % nframes] || memcmp(out, frames[i % nframes], n) != 0;
    if (!good && ok + 20 > i)
      fprintf(stderr, "output %zu: oracle %d: %s\n", i, o, ornic_mut_last(m));
    CHECK(!ornic_mut_last_broken(m), "output %zu broken with break_rate 0", i);
  }
  printf("break_rate 0: %zu of %d outputs consistent (oracle and ornic_icrc_verify), %zu changed\n",
         ok, N_OUT, changed);
  CHECK(ok * 100 >= (size_t)N_OUT * 99, "only %zu consistent", ok);
  CHECK(changed * 100 >= (size_t)N_OUT * 95, "only %zu outputs differ from their input", changed);
  ornic_mut_free(m);
}

/* break_kinds ORNIC_MUT_BREAK_ICRC: what is broken is the iCRC alone, per the
 * oracle's first failed check (it checks the lengths and checksums first). */
static void test_break_icrc_only(void) {
  ornic_mut_cfg c;
  ornic_mut_cfg_default(&c);
  c.seed = 13;
  c.break_rate = 0.3;
  c.break_kinds = ORNIC_MUT_BREAK_ICRC;
  ornic_mut *m = ornic_mut_new(&c);
  CHECK(m != NULL, "break_kinds ICRC refused");
  if (!m) return;
  size_t broken = 0, icrc_only = 0;
  for (size_t i = 0; i < N_OUT; i++) {
    size_t n = ornic_mut_mutate(m, frames[i % nframes], lens[i % nframes], out, OUT_CAP);
    if (!ornic_mut_last_broken(m)) continue;
    broken++;
    icrc_only += oracle_check(out, n) == ORACLE_ICRC;
  }
  printf("break_kinds ICRC, break_rate 0.3: %zu broken, %zu of them with the iCRC alone wrong\n",
         broken, icrc_only);
  CHECK(broken * 100 >= (size_t)N_OUT * 27 && broken * 100 <= (size_t)N_OUT * 33, "broken %zu",
        broken);
  CHECK(icrc_only == broken, "%zu of %zu broken outputs have something else wrong",
        broken - icrc_only, broken);
  ornic_mut_free(m);
}

static void test_break(void) {
  ornic_mut *m = seed_mut_new(11, 0.1, 0.3);
  size_t broken = 0, agree = 0;
  for (size_t i = 0; i < N_OUT; i++) {
    size_t n = ornic_mut_mutate(m, frames[i % nframes], lens[i % nframes], out, OUT_CAP);
    int said = ornic_mut_last_broken(m), is = oracle_check(out, n) != ORACLE_OK;
    broken += said;
    agree += said == is;
    if (said != is && agree + 5 > i)
      fprintf(stderr, "output %zu: said %d, oracle %d: %s\n", i, said, oracle_check(out, n),
              ornic_mut_last(m));
  }
  double share = (double)broken / N_OUT;
  printf("break_rate 0.3: %.4f broken; ornic_mut_last_broken agrees with the oracle on %zu of %d\n",
         share, agree, N_OUT);
  CHECK(share >= 0.27 && share <= 0.33, "broken share %.4f", share);
  /* The 1% the validity test allows: frames a mutation left inconsistent
   * without saying so. */
  CHECK(agree * 100 >= (size_t)N_OUT * 99, "agreement on %zu only", agree);
  ornic_mut_free(m);
  test_break_icrc_only();
}

static void test_diversity(void) {
  static const char *const kinds[] = {"opcode ",
                                      " within",
                                      " across",
                                      "psn ",
                                      "padcnt ",
                                      "dmalen ",
                                      "ext +",
                                      "ext -",
                                      "ext reordered",
                                      "nak blocks",
                                      "nak limit",
                                      "nak base",
                                      "nak reason",
                                      "aeth syndrome",
                                      "aeth msn",
                                      "resv ",
                                      "offset ",
                                      "payload ",
                                      "bytes: ",
                                      "broken: icrc",
                                      "broken: ip length",
                                      "broken: udp length",
                                      "broken: ipv4 checksum"};
  enum { NK = sizeof kinds / sizeof kinds[0] };
  size_t seen[NK] = {0};
  ornic_mut *m = seed_mut_new(5, 0.1, 0.3);
  for (size_t i = 0; i < N_OUT; i++) {
    (void)ornic_mut_mutate(m, frames[i % nframes], lens[i % nframes], out, OUT_CAP);
    for (size_t k = 0; k < NK; k++) seen[k] += strstr(ornic_mut_last(m), kinds[k]) != NULL;
  }
  for (size_t k = 0; k < NK; k++) {
    printf("  %-22s %zu\n", kinds[k], seen[k]);
    CHECK(seen[k] > 0, "mutation kind \"%s\" never fired", kinds[k]);
  }
  ornic_mut_free(m);
}

/* Tiny caps and random inputs: the result fits the cap and nothing past it
 * changes (a canary), under ASan in the sanitizer suite. */
static void test_bounds(void) {
  ornic_mut *m = seed_mut_new(3, 0.5, 0.5);
  uint64_t s = 1;
  for (size_t i = 0; i < 20000; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    size_t cap = (size_t)(s >> 33) % 200;
    const uint8_t *in;
    size_t len;
    uint8_t *rnd = NULL;
    if (i & 1) {
      in = frames[i % nframes];
      len = lens[i % nframes];
    } else {
      len = (size_t)(s >> 20) % 300;
      rnd = malloc(len ? len : 1);
      for (size_t k = 0; k < len; k++) rnd[k] = (uint8_t)((s >> (k % 56)) ^ k);
      if (len > 14) { /* sometimes an IPv4 RoCEv2 start, to go deeper */
        rnd[12] = 8;
        rnd[13] = 0;
      }
      in = rnd;
    }
    memset(out, 0xa5, cap + 64);
    size_t n = ornic_mut_mutate(m, in, len, out, cap);
    CHECK(n <= cap, "returned %zu for cap %zu", n, cap);
    for (size_t k = cap; k < cap + 64; k++)
      CHECK(out[k] == 0xa5, "byte %zu past cap %zu written", k, cap);
    free(rnd);
  }
  ornic_mut_cfg c;
  ornic_mut_cfg_default(&c);
  c.break_rate = 1.5;
  CHECK(ornic_mut_new(&c) == NULL, "break_rate 1.5 accepted");
  ornic_mut_cfg_default(&c);
  c.max_steps = 0;
  CHECK(ornic_mut_new(&c) == NULL, "max_steps 0 accepted");
  ornic_mut_cfg_default(&c);
  c.reserved[3] = 1;
  CHECK(ornic_mut_new(&c) == NULL, "reserved word accepted");
  ornic_mut_cfg_default(&c);
  c.break_kinds = 1u << 4;
  CHECK(ornic_mut_new(&c) == NULL, "an unknown break kind accepted");
  printf("bounds: 20000 calls with caps 0..199 and random inputs\n");
  ornic_mut_free(m);
}

static void test_crossover(void) {
  ornic_mut *m = seed_mut_new(9, 0.1, 0);
  size_t ok = 0;
  for (size_t i = 0; i < N_OUT; i++) {
    size_t a = i % nframes, b = (i * 7 + 3) % nframes;
    size_t n = ornic_mut_crossover(m, frames[a], lens[a], frames[b], lens[b], out, OUT_CAP);
    ok += n > 0 && oracle_check(out, n) == ORACLE_OK;
  }
  printf("crossover: %zu of %d consistent\n", ok, N_OUT);
  CHECK(ok * 100 >= (size_t)N_OUT * 99, "crossover consistent on %zu only", ok);
  ornic_mut_free(m);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s CORPUS_DIR determinism|valid|break|diversity|bounds|crossover\n",
            argv[0]);
    return 2;
  }
  load_corpus(argv[1]);
  const char *t = argv[2];
  if (!strcmp(t, "determinism"))
    test_determinism();
  else if (!strcmp(t, "valid"))
    test_valid();
  else if (!strcmp(t, "break"))
    test_break();
  else if (!strcmp(t, "diversity"))
    test_diversity();
  else if (!strcmp(t, "bounds"))
    test_bounds();
  else if (!strcmp(t, "crossover"))
    test_crossover();
  else
    return 2;
  for (size_t i = 0; i < nframes; i++) free(frames[i]);
  return failed;
}
