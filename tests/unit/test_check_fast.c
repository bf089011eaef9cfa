/* SPDX-License-Identifier: MIT */
/* tests/check_fast.h still fails what should fail. Every unit test relies on
 * its ck_assert_msg: if the redefinition let a false assertion pass, every
 * suite would pass vacuously. Each case below must fail, with the message,
 * file and line of its own assertion; one passing case must pass. main()
 * runs them in a suite of its own and checks Check's verdict on each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static int never(void) { return 0; } /* not constant-folded away by the reader */

START_TEST(fails_msg) { ck_assert_msg(never(), "msg %d", 42); }
END_TEST
START_TEST(fails_plain) { ck_assert(never()); }
END_TEST
START_TEST(fails_int) { ck_assert_int_eq(never(), 1); }
END_TEST
START_TEST(fails_uint) { ck_assert_uint_gt((unsigned)never(), 1u); }
END_TEST
START_TEST(fails_str) { ck_assert_str_eq(never() ? "a" : "b", "a"); }
END_TEST
START_TEST(fails_ptr) { ck_assert_ptr_nonnull(never() ? "x" : NULL); }
END_TEST
START_TEST(passes) {
  for (int i = 0; i < 1000; i++) ck_assert_int_eq(i + never(), i);
}
END_TEST

/* The one case expected to pass is named "passes". */
static int check_results(SRunner *sr) {
  int bad = 0, n = srunner_ntests_run(sr);
  TestResult **res = srunner_results(sr);
  for (int i = 0; i < n; i++) {
    const char *name = tr_tcname(res[i]);
    int failed = tr_rtype(res[i]) == CK_FAILURE;
    int want_fail = strcmp(name, "passes") != 0;
    int here =
        tr_lfile(res[i]) && strstr(tr_lfile(res[i]), "test_check_fast.c") && tr_lno(res[i]) > 0;
    /* a message given to the assertion is the message reported */
    int said =
        strcmp(name, "fails_msg") != 0 || (tr_msg(res[i]) && strstr(tr_msg(res[i]), "msg 42"));
    if (failed != want_fail || (want_fail && (!here || !said))) {
      printf("check_fast: case %s: %s at %s:%d (%s)\n", name, failed ? "failed" : "passed",
             tr_lfile(res[i]) ? tr_lfile(res[i]) : "?", tr_lno(res[i]), tr_msg(res[i]));
      bad++;
    }
  }
  free(res);
  if (n != 7) {
    printf("check_fast: %d cases ran, 7 expected\n", n);
    bad++;
  }
  return bad;
}

int main(void) {
  Suite *s = suite_create("check_fast");
  const TTest *cases[] = {fails_msg, fails_plain, fails_int, fails_uint,
                          fails_str, fails_ptr,   passes};
  const char *names[] = {"fails_msg", "fails_plain", "fails_int", "fails_uint",
                         "fails_str", "fails_ptr",   "passes"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    TCase *tc = tcase_create(names[i]);
    tcase_add_test(tc, cases[i]);
    suite_add_tcase(s, tc);
  }
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_SILENT);
  int bad = check_results(sr);
  srunner_free(sr);
  printf("check_fast: %s\n", bad ? "FAILED" : "every assertion fails and passes as it should");
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
