/* SPDX-License-Identifier: MIT */
/* The process's signal handling. It lives with the program, not in core/:
 * a library has no business installing handlers (fuzz/ links core/). */
#include "signals.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include "interrupt.h"
#include "live.h"

static volatile sig_atomic_t stop_sig;    /* the first stop signal; 0 until one came */
static dec_capture *volatile stop_target; /* a live capture to break out of, or NULL */
static const char *volatile discard_path; /* -w's temporary file, or NULL */

/* Removes -w's temporary file (async-signal-safe), then dies of sig as if
 * no handler had been there. */
static void die_of(int sig) {
  if (discard_path) unlink(discard_path);
  signal(sig, SIG_DFL);
  raise(sig); /* delivered when the handler returns: sig is blocked in it */
}

static void on_stop_signal(int sig) {
  if (stop_sig) { /* the second: stopping hangs (a blocked write) */
    die_of(sig);
    return;
  }
  stop_sig = sig;
  dec_interrupt_raise();
  if (stop_target) dec_live_stop(stop_target);
}

static void on_discard_signal(int sig) { die_of(sig); }

static void install(int sig, void (*fn)(int), bool keep_ignored) {
  struct sigaction sa = {0}, old;
  if (keep_ignored && sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN) return;
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  /* SA_RESTART: a write to a slow pipe the signal interrupts resumes instead
   * of failing as an output error. Reads notice the stop anyway: input.c
   * waits in poll (never restarted) with the wake pipe, and a live capture's
   * poll is woken by pcap_breakloop. */
  sa.sa_flags = SA_RESTART;
  sigaction(sig, &sa, NULL);
}

void dec_stop_on_signals(dec_capture *live) {
  stop_target = live;
  if (!live) (void)dec_interrupt_init(); /* without it only the per-packet check stops */
  /* INT and TERM even when ignored at start, as before for -i: a script's
   * background job starts with SIGINT ignored and is stopped with kill -INT.
   * HUP stays ignored under nohup. */
  install(SIGINT, on_stop_signal, false);
  install(SIGTERM, on_stop_signal, false);
  install(SIGHUP, on_stop_signal, true);
}

void dec_discard_on_signals(const char *tmp) {
  if (!tmp) return;
  discard_path = tmp;
  /* `--print | head`: the reader is gone, nothing more can be shown; the
   * temporary file goes with the process, as before. */
  install(SIGPIPE, on_discard_signal, false);
}

int dec_stop_signal(void) { return stop_sig; }

const char *dec_signal_name(int sig) {
  switch (sig) {
  case SIGINT: return "SIGINT";
  case SIGTERM: return "SIGTERM";
  case SIGHUP: return "SIGHUP";
  default: return "a signal";
  }
}
