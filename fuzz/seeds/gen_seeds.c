/* SPDX-License-Identifier: MIT */
/* ornic-fuzz-seeds: writes the seed corpus of every harness (fuzz/corpus),
 * built with the library's public encoder, one named file per opcode and per
 * edge case. Usage: ornic-fuzz-seeds OUTDIR   (creates OUTDIR/<target>/...).
 * scripts/fuzz-corpus.sh runs it and adds captures from ornic-pcapgen. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include <ornic/ornic.h>

#include "seeds.h"

static const char *outdir;
static int failures;

void seed_write(const char *target, const uint8_t *prefix, size_t plen, const uint8_t *data,
                size_t len, const char *fmt, ...) {
  char name[160], path[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  snprintf(path, sizeof path, "%s/%s", outdir, target);
  if (mkdir(path, 0755) < 0 && errno != EEXIST) {
    perror(path);
    exit(1);
  }
  snprintf(path, sizeof path, "%s/%s/%s", outdir, target, name);
  FILE *fp = fopen(path, "wb");
  if (!fp || (plen && fwrite(prefix, 1, plen, fp) != plen) ||
      (len && fwrite(data, 1, len, fp) != len) || fclose(fp) != 0) {
    perror(path);
    failures++;
  }
}

size_t seed_gzip(const uint8_t *in, size_t len, uint8_t *out, size_t cap) {
  z_stream z;
  memset(&z, 0, sizeof z);
  /* Level 9 and a fixed (zero) mtime: the same bytes on every run. */
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)len;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  size_t n = cap - z.avail_out;
  deflateEnd(&z);
  return rc == Z_STREAM_END ? n : 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: ornic-fuzz-seeds OUTDIR\n");
    return 2;
  }
  outdir = argv[1];
  if (mkdir(outdir, 0755) < 0 && errno != EEXIST) {
    perror(outdir);
    return 1;
  }
  seeds_frames();
  seeds_ext();
  seeds_capture();
  seeds_responder();
  return failures ? 1 : 0;
}
