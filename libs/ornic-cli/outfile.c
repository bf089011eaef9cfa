/* SPDX-License-Identifier: MIT */
/* Output files replaced atomically (cli_outfile.h). */
#include "cli_outfile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *path, int e) {
  snprintf(err, errlen, "cannot create '%s': %s", path, strerror(e));
  return -1;
}

/* Length of the directory part of path, with its slash ("x" -> 0). */
static size_t dir_len(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) + 1 : 0;
}

/* realpath follows every link of an existing file; a new file is created
 * under the name given. */
static char *resolve(const char *path) {
  char buf[PATH_MAX];
  struct stat sb;
  if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && realpath(path, buf)) return strdup(buf);
  return strdup(path);
}

/* The temporary file replaces the target: it takes the target's mode, or
 * the mode a new file gets under the umask (mkstemp's is 0600). */
static void set_mode(int fd, const struct stat *old) {
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, old ? old->st_mode & 07777 : 0666 & ~mask) != 0) {
    /* the data is what matters; a mode we may not set stays mkstemp's */
  }
}

static int open_temp(cli_outfile *o, const struct stat *old) {
  size_t d = dir_len(o->path), n = strlen(o->path) + 48;
  if (!(o->tmp = malloc(n))) return ENOMEM;
  snprintf(o->tmp, n, "%.*s.%s.tmp.%ld.XXXXXX", (int)d, o->path, o->path + d, (long)getpid());
  int fd = mkstemp(o->tmp), e = errno;
  if (fd >= 0) {
    set_mode(fd, old);
    if ((o->fp = fdopen(fd, "wb"))) return 0;
    e = errno;
    close(fd);
    unlink(o->tmp);
  }
  free(o->tmp); /* after a failed mkstemp the name is no file of ours */
  o->tmp = NULL;
  return e;
}

/* A device or FIFO (/dev/null, a pipe to tshark): nothing to rename. */
static int open_in_place(cli_outfile *o) {
  o->fp = fopen(o->path, "wb");
  return o->fp ? 0 : errno;
}

int cli_outfile_open(cli_outfile *o, const char *path, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  if (strcmp(path, "-") == 0) {
    o->fp = stdout;
    return 0;
  }
  if (!*path) return fail(err, errlen, path, ENOENT);
  if (!(o->path = resolve(path))) return fail(err, errlen, path, ENOMEM);
  struct stat sb;
  bool exists = stat(o->path, &sb) == 0;
  int e = exists && S_ISDIR(sb.st_mode)    ? EISDIR
          : exists && !S_ISREG(sb.st_mode) ? open_in_place(o)
                                           : open_temp(o, exists ? &sb : NULL);
  if (!e) return 0;
  cli_outfile_discard(o);
  return fail(err, errlen, path, e);
}

int cli_outfile_commit(cli_outfile *o, char *err, size_t errlen) {
  int e = 0;
  if (o->fp && fflush(o->fp) != 0) e = errno;
  if (o->fp && ferror(o->fp) && !e) e = EIO;
  if (o->fp && o->fp != stdout && fclose(o->fp) != 0 && !e) e = errno;
  o->fp = NULL;
  if (!e && o->tmp && rename(o->tmp, o->path) != 0) e = errno;
  if (e) {
    if (o->path)
      snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(e));
    else
      snprintf(err, errlen, "cannot write standard output: %s", strerror(e));
    cli_outfile_discard(o);
    return -1;
  }
  free(o->tmp);
  free(o->path);
  o->tmp = o->path = NULL;
  return 0;
}

void cli_outfile_discard(cli_outfile *o) {
  if (o->fp && o->fp != stdout) fclose(o->fp);
  o->fp = NULL;
  if (o->tmp) unlink(o->tmp);
  free(o->tmp);
  free(o->path);
  o->tmp = o->path = NULL;
}
