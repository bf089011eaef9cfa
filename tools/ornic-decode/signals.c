/* SPDX-License-Identifier: MIT */
/* The process's signal handling. It lives with the program, not in core/:
 * a library has no business installing handlers (fuzz/ links core/). */
#include "signals.h"

#include <signal.h>
#include <stddef.h>
#include <unistd.h>

#include "live.h"

static dec_capture *volatile stop_target;

static void on_stop_signal(int sig) {
  (void)sig;
  if (stop_target) dec_live_stop(stop_target);
}

void dec_stop_on_signals(dec_capture *c) {
  struct sigaction sa = {0};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  /* SA_RESTART: a write to a slow pipe the signal interrupts resumes instead
   * of failing as an output error (poll, where the capture waits, is never
   * restarted, and pcap_breakloop wakes it anyway). SA_RESETHAND: the second
   * signal gets the default action. */
  sa.sa_flags = SA_RESTART | SA_RESETHAND;
  stop_target = c;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

static const char *volatile discard_path;

static void on_discard_signal(int sig) {
  if (discard_path) unlink(discard_path); /* async-signal-safe */
  signal(sig, SIG_DFL);
  raise(sig);
}

void dec_discard_on_signals(const char *tmp) {
  if (!tmp) return;
  struct sigaction sa = {0};
  sa.sa_handler = on_discard_signal;
  sigemptyset(&sa.sa_mask);
  discard_path = tmp;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sigaction(SIGPIPE, &sa, NULL);
}
