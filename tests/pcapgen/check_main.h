/* SPDX-License-Identifier: MIT */
/* The main of every pcapgen unit test, in one place: its test case in a
 * suite of its own, run by Check's default runner (each test forked, so one
 * that crashes fails alone); exit status EXIT_SUCCESS when all passed. */
#ifndef PCAPGEN_TEST_CHECK_MAIN_H
#define PCAPGEN_TEST_CHECK_MAIN_H

#include "../check_fast.h"
#include <stdlib.h>

static inline int run_tcase(const char *suite_name, TCase *tc) {
  Suite *s = suite_create(suite_name);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
