/* SPDX-License-Identifier: MIT */
#include "distinct_files.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output_file.h"

#define PROG "ornic-pcapgen"
#define NFILES 4 /* --scenario, --output, --summary-json, --plot */

/* What a path names, compared by identity rather than by spelling. */
typedef struct {
  const char *opt;   /* "--output", for the message */
  const char *given; /* the path as given */
  const char *where; /* "" or " (a line of the scenario)" */
  bool dash_stdout;  /* "-" means stdout (-o, --summary-json: their --help) */
  bool is_stdout;    /* it does */
  bool exists;       /* dev and ino are valid */
  bool chr;          /* a character device: never a collision */
  dev_t dev;
  ino_t ino;
  char *name; /* !exists: realpath of the folder + "/" + the name */
} file_id;

/* A file that does not exist yet: its folder's real path and its own name,
 * so "./x", "x" and "sub/../x" agree. An unresolvable folder keeps the
 * path as it is (opening it fails later with its own message). */
static char *future_name(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  char dir[PATH_MAX], real[PATH_MAX];
  size_t dlen = slash ? (size_t)(slash - path) : 0;
  if (dlen >= sizeof dir) return strdup(path);
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", dlen ? (int)dlen : 1, dlen ? path : "/");
  if (!realpath(dir, real)) return strdup(path);
  size_t n = strlen(real) + strlen(base) + 2;
  char *out = malloc(n);
  if (out) snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", base);
  return out;
}

/* Fills the rest of id from id->given; -1 when out of memory. */
static int identify(file_id *id) {
  struct stat sb;
  id->is_stdout = id->dash_stdout && strcmp(id->given, "-") == 0;
  if (id->is_stdout) {
    id->exists = fstat(STDOUT_FILENO, &sb) == 0;
  } else {
    char *target = outpath_resolve(id->given); /* a link's target is what gets replaced */
    if (!target) return -1;
    id->exists = stat(target, &sb) == 0;
    if (!id->exists) id->name = future_name(target);
    free(target);
    if (!id->exists && !id->name) return -1;
  }
  if (id->exists) {
    id->dev = sb.st_dev;
    id->ino = sb.st_ino;
    id->chr = S_ISCHR(sb.st_mode);
  }
  return 0;
}

static bool same_file(const file_id *a, const file_id *b) {
  if (a->is_stdout && b->is_stdout) return true;
  if (a->exists != b->exists) return false;
  if (a->exists) return a->dev == b->dev && a->ino == b->ino && !a->chr;
  return a->name && b->name && strcmp(a->name, b->name) == 0;
}

/* Set in the scenario: the value points into its text. */
static const char *origin(const options *o, const char *value) {
  uintptr_t t = (uintptr_t)o->scenario_text, v = (uintptr_t)value;
  return t && v >= t && v < t + o->scenario_len ? " (a line of the scenario)" : "";
}

static int collision(FILE *err, const file_id *a, const file_id *b) {
  if (a->is_stdout && b->is_stdout) {
    cli_usage_error(err, PROG, "%s '-'%s and %s '-'%s both write to stdout: give one a file name",
                    a->opt, a->where, b->opt, b->where);
    return -1;
  }
  cli_usage_error(err, PROG,
                  "%s '%s'%s and %s '%s'%s are the same file: the one written last would "
                  "destroy the other; nothing was written",
                  a->opt, a->given, a->where, b->opt, b->given, b->where);
  return -1;
}

/* The run's files in a fixed order: the input first, then the outputs. */
static size_t collect(const options *o, file_id *ids) {
  const char *opt[NFILES] = {"--scenario", "--output", "--summary-json", "--plot"};
  const char *path[NFILES] = {o->scenario, o->output, o->summary_json, o->plot};
  size_t n = 0;
  for (size_t i = 0; i < NFILES; i++) {
    if (!path[i]) continue;
    memset(&ids[n], 0, sizeof ids[n]);
    ids[n].opt = opt[i];
    ids[n].where = i ? origin(o, path[i]) : "";
    ids[n].dash_stdout = i == 1 || i == 2;
    ids[n++].given = path[i];
  }
  return n;
}

int pathcheck_distinct(const options *o, FILE *err) {
  file_id ids[NFILES];
  size_t n = collect(o, ids);
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    if (identify(&ids[i]) < 0) {
      cli_usage_error(err, PROG, "%s '%s': out of memory", ids[i].opt, ids[i].given);
      rc = -1;
    }
  }
  for (size_t i = 0; i < n && rc == 0; i++)
    for (size_t j = i + 1; j < n && rc == 0; j++)
      if (same_file(&ids[i], &ids[j])) rc = collision(err, &ids[i], &ids[j]);
  for (size_t i = 0; i < n; i++) free(ids[i].name);
  return rc;
}
