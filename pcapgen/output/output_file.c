/* SPDX-License-Identifier: MIT */
#include "output_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINK_HOPS 40 /* as the kernel's ELOOP limit */

static int fail(char *err, size_t errlen, const char *what, const char *path, int e) {
  snprintf(err, errlen, "cannot create '%s' (%s): %s", path, what, strerror(e));
  return -1;
}

/* Length of the directory part of path, with its slash ("" -> 0). */
static size_t dir_len(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) + 1 : 0;
}

/* The file a chain of symbolic links ends at, existing or not: the target is
 * what gets replaced, so the link itself survives. A loop or an unreadable
 * link stops the walk; opening then reports the error. */
static char *follow_links(const char *path) {
  char *p = strdup(path);
  for (int hop = 0; p && hop < MAX_LINK_HOPS; hop++) {
    struct stat sb;
    char target[PATH_MAX];
    if (lstat(p, &sb) != 0 || !S_ISLNK(sb.st_mode)) return p;
    ssize_t n = readlink(p, target, sizeof target - 1);
    if (n < 0) return p;
    target[n] = 0;
    size_t d = target[0] == '/' ? 0 : dir_len(p);
    char *next = malloc(d + (size_t)n + 1);
    if (next) {
      memcpy(next, p, d);
      memcpy(next + d, target, (size_t)n + 1);
    }
    free(p);
    p = next;
  }
  return p;
}

/* `.NAME.tmp.PID.XXXXXX`: the PID of the run that owns it, or 0 when the
 * name has no PID (an older version's) or is not ours. */
static long temp_owner(const char *entry, const char *prefix) {
  size_t k = strlen(prefix);
  if (strncmp(entry, prefix, k) != 0) return -1;
  char *end;
  long pid = strtol(entry + k, &end, 10);
  return end != entry + k && *end == '.' && strlen(end + 1) == 6 && pid > 0 ? pid : 0;
}

/* A run killed by SIGKILL or the OOM killer leaves its temporary file:
 * remove the ones whose process is gone, name the others. */
static void sweep_stale(const char *final_path) {
  size_t d = dir_len(final_path);
  char dir[PATH_MAX], prefix[NAME_MAX + 16], victim[PATH_MAX + NAME_MAX + 2];
  snprintf(dir, sizeof dir, "%.*s", d ? (int)d : 1, d ? final_path : ".");
  snprintf(prefix, sizeof prefix, ".%s.tmp.", final_path + d);
  DIR *dp = opendir(dir);
  for (struct dirent *e; dp && (e = readdir(dp));) {
    long pid = temp_owner(e->d_name, prefix);
    if (pid < 0) continue;
    snprintf(victim, sizeof victim, "%s%s%s", dir, d ? "" : "/", e->d_name);
    if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH &&
        unlink(victim) == 0)
      fprintf(stderr, "ornic-pcapgen: removed '%s', left by process %ld, which no longer runs\n",
              victim, pid);
    else if (pid != (long)getpid())
      fprintf(stderr, "ornic-pcapgen: note: '%s' looks like the temporary file of another run%s\n",
              victim, pid ? " (still running?)" : "; remove it if no ornic-pcapgen writes there");
  }
  if (dp) closedir(dp);
}

/* The directory refuses new files but the target exists and we may write it. */
static bool can_fall_back(int e) { return e == EACCES || e == EPERM || e == EROFS; }

static int open_in_place(outpath *op, int flags) {
  op->fd = open(op->final_path, O_WRONLY | O_CLOEXEC | flags);
  return op->fd < 0 ? -1 : 0;
}

/* The temporary file gets the target's mode and owner when it exists (it
 * replaces it), else the mode a new file gets under the umask. */
static void copy_mode(int fd, const struct stat *old) {
  if (old) {
    fchmod(fd, old->st_mode & 07777);
    if (fchown(fd, old->st_uid, old->st_gid) != 0) { /* only root may give files away */
    }
    return;
  }
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
}

static int open_temp(outpath *op, const struct stat *old, int *e) {
  size_t d = dir_len(op->final_path), n = strlen(op->final_path) + 48;
  if (!(op->tmp_path = malloc(n))) return *e = ENOMEM, -1;
  snprintf(op->tmp_path, n, "%.*s.%s.tmp.%ld.XXXXXX", (int)d, op->final_path, op->final_path + d,
           (long)getpid());
  if ((op->fd = mkstemp(op->tmp_path)) < 0) {
    *e = errno;
    free(op->tmp_path);
    op->tmp_path = NULL;
    return -1;
  }
  copy_mode(op->fd, old);
  return 0;
}

int outpath_open(outpath *op, const char *path, const char *what, char *err, size_t errlen) {
  memset(op, 0, sizeof *op);
  op->fd = -1;
  if (!*path) return fail(err, errlen, what, path, ENOENT);
  if (!(op->final_path = follow_links(path))) return fail(err, errlen, what, path, ENOMEM);
  struct stat sb;
  bool exists = stat(op->final_path, &sb) == 0;
  int e = 0;
  if (exists && S_ISDIR(sb.st_mode))
    e = EISDIR;
  else if (exists && !S_ISREG(sb.st_mode)) {
    /* A device or FIFO: nothing to rename. Opening a FIFO waits for a reader
     * (a signal interrupts the wait: SA_RESTART is off). */
    op->special = true;
    if (open_in_place(op, 0) < 0) e = errno;
  } else {
    sweep_stale(op->final_path);
    if (open_temp(op, exists ? &sb : NULL, &e) < 0 && exists && can_fall_back(e))
      e = open_in_place(op, 0) < 0 ? e : 0;
  }
  if (e) {
    fail(err, errlen, what, path, e);
    free(op->final_path);
    op->final_path = NULL;
    return -1;
  }
  return 0;
}

char *outpath_resolve(const char *path) { return follow_links(path); }

const char *outpath_current(const outpath *op) {
  return op->tmp_path ? op->tmp_path : op->final_path;
}

static void release(outpath *op) {
  if (op->fd >= 0) close(op->fd);
  op->fd = -1;
  free(op->tmp_path);
  free(op->final_path);
  op->tmp_path = op->final_path = NULL;
}

int outpath_commit(outpath *op, bool sync, char *err, size_t errlen) {
  int e = 0;
  if (op->fd >= 0 && !op->special && sync && fsync(op->fd) != 0) e = errno;
  if (op->fd >= 0 && close(op->fd) != 0 && !e) e = errno;
  op->fd = -1;
  if (!e && op->tmp_path && rename(op->tmp_path, op->final_path) != 0) e = errno;
  if (e) {
    snprintf(err, errlen, "cannot write '%s': %s", op->final_path, strerror(e));
    outpath_discard(op);
    return -1;
  }
  release(op);
  return 0;
}

void outpath_discard(outpath *op) {
  if (op->fd >= 0) close(op->fd);
  op->fd = -1;
  if (op->tmp_path)
    unlink(op->tmp_path);
  else if (op->final_path && !op->special && truncate(op->final_path, 0) != 0) {
    /* in place and not even truncatable: nothing more can be done */
  }
  release(op);
}
