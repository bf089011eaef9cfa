/* SPDX-License-Identifier: MIT */
/* ornic-bitmap-sim: ORNIC's receive bitmap against MELO+, LEFT and LEFT+,
 * and the OTD loss detector against a shift register
 * (docs/BITMAP_MODELS.md). Exit: 0 ok, 1 run failed, 2 bad command line,
 * 3 tables printed but --plot could not be drawn. */
#include <stdio.h>

#include "results.h"

int main(int argc, char **argv) {
  options o;
  int rc = options_parse(argc, argv, &o);
  if (rc == 1) return 0;
  if (rc == 3) return 1;
  if (rc) return 2;
  results r;
  if (results_run(&o, &r) < 0) {
    results_free(&r);
    return 1;
  }
  if (o.json)
    report_json(stdout, &o, &r);
  else
    report_text(stdout, &o, &r);
  if (fflush(stdout) != 0) {
    perror("ornic-bitmap-sim: stdout");
    results_free(&r);
    return 1;
  }
  rc = o.plot && plot_svg(&o, &r) < 0 ? 3 : 0;
  results_free(&r);
  return rc;
}
