/* SPDX-License-Identifier: MIT */
/* Mean, spread and 95% confidence interval of per-seed figures (Welford's
 * running mean and sum of squared deviations). */
#ifndef BM_STATS_H
#define BM_STATS_H

typedef struct {
  unsigned n;
  double mean, m2, min, max;
} stat_acc;

void stat_add(stat_acc *s, double x);
double stat_mean(const stat_acc *s);
double stat_sd(const stat_acc *s); /* sample standard deviation; 0 when n < 2 */
/* Half-width of the 95% confidence interval of the mean (Student's t). */
double stat_ci95(const stat_acc *s);

#endif
