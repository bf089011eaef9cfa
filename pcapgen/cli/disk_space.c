/* SPDX-License-Identifier: MIT */
#include "disk_space.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "memory_budget.h"
#include "output_file.h"
#include "workload.h"
#include "writer.h"

bool space_capture_whole(const options *o) {
  return !o->snaplen && o->sim.capture.drop == 0 && o->sim.capture.start_us == 0 &&
         !o->sim.capture.ndrop_frames;
}

/* Bytes the capture holds at least, 0 when nothing can be said. A .gz
 * capture: its payload, which is pattern bytes (pattern.h) that deflate does
 * not shrink: `--wqes 2` (2 MiB of payload) gave 2131611, 2126451 and
 * 2126451 bytes at --gz-level 1, 6 and 9, the headers compressing away. */
static double least_size(const options *o) {
  if (o->sim.bench_packets || !space_capture_whole(o)) return 0;
  double need = writer_is_gz(o->output) ? wl_capture_payload(&o->sim) : wl_capture_floor(&o->sim);
  return o->max_output && need > (double)o->max_output ? (double)o->max_output : need;
}

/* Bytes free in `folder`, or -1 when statvfs cannot say: f_bavail, what an
 * unprivileged user may write. Not f_bfree, even for root: where this was
 * written, `stat -f /tmp` gave 194.7 GB free but 26.9 GB available, and
 * `ornic-pcapgen -q -o long.pcap --wqes 100000` (106.76 GB) run as root failed
 * with ENOSPC. A reserve root may use is reached with --space-check off. */
static double free_bytes(const char *folder) {
  struct statvfs vs;
  if (statvfs(folder, &vs) != 0) return -1;
  return (double)vs.f_bavail * (double)vs.f_frsize;
}

/* The folder part of path: "." for a bare name, "/" for a file at the root. */
static char *folder_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  char *out = malloc(n + 1);
  if (out) snprintf(out, n + 1, "%.*s", (int)n, path);
  return out;
}

static int refuse(FILE *err, const options *o, const char *folder, double need, double avail) {
  char needs[32], has[32];
  budget_format((uint64_t)need, needs, sizeof needs);
  budget_format((uint64_t)avail, has, sizeof has);
  fprintf(err,
          "ornic-pcapgen: '%s' will hold at least %s (%s), but its folder '%s' has %s free "
          "(statvfs); nothing was run (free some space, choose another folder, lower the "
          "workload or --max-output, or --space-check off runs anyway)\n",
          o->output, needs,
          writer_is_gz(o->output) ? "its payload, which gzip does not shrink"
                                  : "every data packet once with its headers, an ACK per WQE",
          folder, has);
  return -1;
}

int space_check(const options *o, FILE *err) {
  double need = o->space_check_off || !strcmp(o->output, "-") ? 0 : least_size(o);
  if (need <= 0) return 0;
  char *target = outpath_resolve(o->output); /* a link: its target's folder gets the bytes */
  struct stat sb;
  char *folder = NULL;
  int rc = 0;
  if (target && (stat(target, &sb) != 0 || S_ISREG(sb.st_mode)) && (folder = folder_of(target))) {
    double avail = free_bytes(folder);
    if (avail >= 0 && need > avail) rc = refuse(err, o, folder, need, avail);
  }
  free(folder);
  free(target);
  return rc;
}
