/* SPDX-License-Identifier: MIT */
/* Check's assertions without a write(2) per passing assertion.
 *
 * <check.h>'s ck_assert_msg (and every ck_assert_* built on it) calls
 * _mark_point() when the assertion holds, which sends the file and line to
 * the runner: one write(2) per assertion. The randomised and exhaustive
 * loops of the unit tests make millions of them (test_ext: 4.6 million
 * write calls, most of its run time, more under ASan). Here a passing
 * assertion costs only its comparison; a failing one reports its file, line
 * and message exactly as before. What is lost is the "last checkpoint" Check
 * names when a test crashes without a failed assertion; the sanitizer builds
 * print the crash's stack instead. Include this instead of <check.h>. */
#ifndef ORNIC_TESTS_CHECK_FAST_H
#define ORNIC_TESTS_CHECK_FAST_H

#include <check.h>

#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
  ((expr) ? (void)0              \
          : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

#endif
