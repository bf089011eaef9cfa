/* SPDX-License-Identifier: MIT */
/* Output files (the capture, --summary-json, --plot), each opened before the
 * simulation starts, so a path that cannot be written costs no run, and
 * replaced atomically at the end:
 *
 *  - a hidden temporary file `.NAME.tmp.PID.XXXXXX` in the target's
 *    directory, renamed over the target by outpath_commit and removed by
 *    outpath_discard, so a failed or killed run never leaves a
 *    complete-looking file. The PID in the name lets a later run remove the
 *    temporaries of a process that no longer runs (SIGKILL, the OOM killer);
 *  - a symbolic link is followed: its target is replaced, the link stays;
 *  - an existing file keeps its mode (and owner, when we may set it);
 *  - a directory we cannot create files in (read-only, or not ours) but a
 *    target that exists and is writable: written in place, as tcpdump and
 *    editcap do (not atomic: on error the file is truncated to 0 bytes);
 *  - a device or FIFO (/dev/null, a pipe to tshark) is written in place. */
#ifndef PCAPGEN_OUTPUT_FILE_H
#define PCAPGEN_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char *final_path; /* what is replaced: the path, or the file a symlink names */
  char *tmp_path;   /* NULL: written in place */
  int fd;           /* -1 once the caller took it over (and closes it) */
  bool special;     /* a device or FIFO */
} outpath;

/* Opens `path` for writing as described above; `what` names the option in
 * messages ("--summary-json"). Stale temporaries of the same name are
 * removed (their process is gone) or reported on stderr. 0, or -1 with a
 * message in err (nothing created). */
int outpath_open(outpath *op, const char *path, const char *what, char *err, size_t errlen);

/* The file outpath_open(path) would replace: path with its chain of symbolic
 * links followed, existing or not (malloc'd; NULL when out of memory). */
char *outpath_resolve(const char *path);

/* The name the bytes go to now: the temporary file, or the target itself. */
const char *outpath_current(const outpath *op);

/* Closes fd (after fsync when `sync`) unless the caller took it, and renames
 * the temporary file over the target. 0, or -1 with a message in err (the
 * temporary file is removed). Frees the names either way. */
int outpath_commit(outpath *op, bool sync, char *err, size_t errlen);

/* Closes fd, removes the temporary file (in place: truncates the target to 0
 * bytes, as nothing valid is left in it), frees the names. Safe twice. */
void outpath_discard(outpath *op);

#endif
