/* SPDX-License-Identifier: MIT */
/* Eq. 3 of the ORNIC paper (ornic/sizing.h). Rounded up by hand rather than
 * with ceil(), so that the library needs no libm. */
#include "ornic/sizing.h"

/* ceil(x - 1e-9) for x >= 0, saturated at UINT32_MAX; 0 for x <= 0 or NaN. */
static uint32_t ceil_forgiving(double x) {
  double t = x - 1e-9;
  if (!(t > 0)) return 0; /* also NaN */
  if (t >= 4294967295.0) return UINT32_MAX;
  uint32_t u = (uint32_t)t; /* floor: t is positive */
  return (double)u < t ? u + 1 : u;
}

uint32_t ornic_sizing_otd(double mdd_us, double rate_gbps, uint32_t len_bytes) {
  if (!len_bytes) return 0;
  /* The order of the operations is pcapgen's since its first --otd auto, so
   * that its captures keep their bytes. */
  return ceil_forgiving(mdd_us * rate_gbps * 1e3 / 8.0 / (double)len_bytes);
}
