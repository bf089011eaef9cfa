/* SPDX-License-Identifier: MIT */
/* The harness without libFuzzer: each file on the command line is one input
 * (an Ethernet frame). A disagreement aborts inside the harness, so the exit
 * status says it; at the end, the tally (an empty comparison is visible). */
#include <stdio.h>
#include <stdlib.h>

#include "diff_harness.h"

/* The file's bytes in a buffer of exactly their size, so that a sanitizer
 * sees a read past the frame's end; NULL on error. */
static uint8_t *read_file(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  uint8_t *buf = NULL;
  long n = -1;
  if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0)
    buf = malloc(n ? (size_t)n : 1);
  if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(fp);
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FRAME_FILE...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    size_t len;
    uint8_t *frame = read_file(argv[i], &len);
    if (!frame) {
      perror(argv[i]);
      return 2;
    }
    fprintf(stderr, "diff replay: %s (%zu bytes)\n", argv[i], len);
    LLVMFuzzerTestOneInput(frame, len);
    free(frame);
  }
  const diff_tally *t = diff_harness_tally();
  printf(
      "diff replay: %d inputs: %lu accepted by both (fields compared), %lu rejected by both, "
      "%lu skipped by the DUT, no disagreement\n",
      argc - 1, t->both_accept, t->both_reject, t->dut_skip);
  return 0;
}
