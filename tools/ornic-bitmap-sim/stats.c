/* SPDX-License-Identifier: MIT */
/* Mean, standard deviation and 95% confidence interval over seeds
 * (stats.h): Welford's running sums and Student's t. */
#include "stats.h"

#include <math.h>

void stat_add(stat_acc *s, double x) {
  if (s->n == 0 || x < s->min) s->min = x;
  if (s->n == 0 || x > s->max) s->max = x;
  s->n++;
  double d = x - s->mean;
  s->mean += d / s->n;
  s->m2 += d * (x - s->mean);
}

double stat_mean(const stat_acc *s) { return s->mean; }

double stat_sd(const stat_acc *s) {
  return s->n < 2 || s->m2 <= 0 ? 0.0 : sqrt(s->m2 / (s->n - 1));
}

/* Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom. */
static const double t975[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

double stat_ci95(const stat_acc *s) {
  if (s->n < 2) return 0.0;
  unsigned df = s->n - 1;
  double t = df <= 30 ? t975[df - 1] : 1.96;
  return t * stat_sd(s) / sqrt((double)s->n);
}
