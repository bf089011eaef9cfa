/* SPDX-License-Identifier: MIT */
/* How options.c allocates (issue 28 item 7): --capture-drop-frames grew its
 * array one element per frame number, a realloc(3) each, 140 000 of them for
 * a 140 000-entry list; it grows geometrically now. This executable is
 * linked with -Wl,--wrap=realloc (tests/pcapgen/CMakeLists.txt), so the
 * calls from pcapgen_core are counted here, then passed on to libc's. */
#include "../check_fast.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "options.h"

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);

static size_t g_reallocs;

void *__wrap_realloc(void *p, size_t n) {
  g_reallocs++;
  return __real_realloc(p, n);
}

/* "N,N-1,...,1" then "1,...,N" again: unsorted, every number twice. */
static char *frame_list(unsigned n) {
  char *s = malloc((size_t)n * 2 * 8 + 1), *p = s;
  ck_assert_ptr_nonnull(s);
  for (unsigned i = n; i >= 1; i--) p += sprintf(p, "%u,", i);
  for (unsigned i = 1; i <= n; i++) p += sprintf(p, "%u,", i);
  p[-1] = 0;
  return s;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

START_TEST(capture_drop_frames_grow_geometrically) {
  enum { N = 140000 };
  char *list = frame_list(N);
  char prog[] = "ornic-pcapgen", o_opt[] = "-o", out[] = "/dev/null",
       drop[] = "--capture-drop-frames";
  char *argv[] = {prog, o_opt, out, drop, list, NULL};
  options o;
  g_reallocs = 0;
  double t0 = now_ms();
  int rc = options_parse(&o, 5, argv, stderr);
  double ms = now_ms() - t0;
  size_t calls = g_reallocs;
  ck_assert_int_eq(rc, 0);
  ck_assert_uint_eq(o.sim.capture.ndrop_frames, N); /* sorted, each number once */
  for (size_t i = 0; i < N; i++) ck_assert_uint_eq(o.sim.capture.drop_frames[i], i + 1);
  printf("--capture-drop-frames, %u numbers given twice: %zu realloc calls, %.1f ms\n", 2u * N,
         calls, ms);
  fflush(stdout);
  /* doubling from a few entries to 280 000 takes about 20; one per number took 280 000 */
  ck_assert_msg(calls <= 40, "%zu realloc calls for %u numbers", calls, 2u * N);
  options_free(&o);
  free(list);
}
END_TEST

int main(void) {
  TCase *tc = tcase_create("options");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, capture_drop_frames_grow_geometrically);
  return run_tcase("pcapgen_options", tc);
}
