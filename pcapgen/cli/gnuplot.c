/* SPDX-License-Identifier: MIT */
#include "gnuplot.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

FILE *gp_temp_file(char *path, size_t cap, const char *tag) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, cap, "%s/ornic-pcapgen-%s-XXXXXX", dir && *dir ? dir : "/tmp", tag);
  int fd = mkstemp(path);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(path);
  }
  return f;
}

void gp_put_quoted(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'') fputc('\'', f);
    fputc(*s, f);
  }
  fputc('\'', f);
}

void gp_terminal(FILE *f, const char *plot_name, int width, int height) {
  size_t n = strlen(plot_name);
  bool png = n >= 4 && strcmp(plot_name + n - 4, ".png") == 0;
  if (png)
    fprintf(f, "set terminal pngcairo size %d,%d enhanced font 'sans,10'\n", width, height);
  else
    fprintf(f, "set terminal svg size %d,%d dynamic enhanced font 'sans,11' background '#ffffff'\n",
            width, height);
}

int gp_run(const char *script) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int gp_render(const char *script, char *err, size_t errlen) {
  int gp = gp_run(script);
  if (gp == 0) return 0;
  snprintf(err, errlen, "--plot: gnuplot failed (status %d); no plot written", gp);
  return -1;
}
