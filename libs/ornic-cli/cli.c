/* SPDX-License-Identifier: MIT */
/* The command-line convention (cli.h). Every message is built here, so the
 * five programs cannot drift apart in wording, stream or exit status. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include <ornic/icrc.h>
#include <ornic/version.h>

int cli_usage_error(FILE *err, const char *prog, const char *fmt, ...) {
  FILE *f = err ? err : stderr;
  va_list ap;
  fprintf(f, "%s: ", prog);
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fprintf(f, " (see %s --help)\n", prog);
  return CLI_EXIT_USAGE;
}

/* The long option argv[optind - 1] names ("--otd=5" and the abbreviation
 * "--ot" both name otd) if its value is val; NULL otherwise. */
static const struct option *long_named(const char *arg, int val, const struct option *longopts) {
  if (!longopts || strncmp(arg, "--", 2) != 0) return NULL;
  size_t n = strcspn(arg + 2, "=");
  for (const struct option *o = longopts; o->name; o++)
    if (o->val == val && !o->flag && strncmp(o->name, arg + 2, n) == 0) return o;
  return NULL;
}

/* An abbreviation getopt_long refused because several options start with
 * it: "ambiguous option '--st' (--stats, --strict)". 0 if arg is none. */
static int ambiguous(FILE *err, const char *prog, const char *arg, int len,
                     const struct option *longopts) {
  char names[256] = "";
  int n = 0;
  size_t k = 0;
  for (const struct option *o = longopts; o && o->name && len > 2; o++)
    if (strncmp(o->name, arg + 2, (size_t)len - 2) == 0 && k < sizeof names) {
      k += (size_t)snprintf(names + k, sizeof names - k, "%s--%s", n ? ", " : "", o->name);
      n++;
    }
  if (n < 2) return 0;
  return cli_usage_error(err, prog, "ambiguous option '%.*s' (%s)", len, arg, names);
}

/* getopt_long moves optind past a long option before it complains, but
 * past a short one only when it ends its cluster ("-xv": not yet), so a
 * short option is named by optopt and a long one by its argv word. */
int cli_getopt_error(FILE *err, const char *prog, int c, char *const argv[],
                     const struct option *longopts) {
  const char *arg = optind > 0 ? argv[optind - 1] : "";
  int len = (int)strcspn(arg, "=");
  if (c == ':') {
    if (long_named(arg, optopt, longopts))
      return cli_usage_error(err, prog, "option '%.*s' needs a value", len, arg);
    return cli_usage_error(err, prog, "option '-%c' needs a value", optopt);
  }
  if (optopt == 0) /* an unknown or ambiguous long option */
    return ambiguous(err, prog, arg, len, longopts)
               ? CLI_EXIT_USAGE
               : cli_usage_error(err, prog, "unknown option '%.*s'", len, arg);
  if (arg[len] == '=' && long_named(arg, optopt, longopts))
    return cli_usage_error(err, prog, "option '%.*s' takes no value", len, arg);
  if (optopt > 0 && optopt < 128) return cli_usage_error(err, prog, "unknown option '-%c'", optopt);
  return cli_usage_error(err, prog, "unknown option '%.*s'", len, arg);
}

int cli_unexpected(FILE *err, const char *prog, const char *arg) {
  return cli_usage_error(err, prog, "unexpected argument '%s'", arg);
}

/* A full disk or a closed pipe must not look like success, even for help. */
static int flushed(const char *prog) {
  if (fflush(stdout) == 0 && !ferror(stdout)) return CLI_EXIT_OK;
  fprintf(stderr, "%s: standard output: %s\n", prog, strerror(errno ? errno : EIO));
  return CLI_EXIT_FAILURE;
}

int cli_version(const char *prog, const char *extra) {
  /* The program is this tree's release (the headers it was built with); the
   * library line is what runs, which a shared build may have updated. */
  printf("%s %s\n", prog, ORNIC_VERSION_STRING);
  printf("libornicproto %s (CRC-32: %s)\n", ornic_version(), ornic_crc32_backend());
  if (extra) printf("%s\n", extra);
  return flushed(prog);
}

int cli_help(const char *prog, const char *text) {
  fputs(text, stdout);
  return flushed(prog);
}
