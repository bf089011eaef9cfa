/* SPDX-License-Identifier: MIT */
/* The handlers of signals.h: record which signal came and raise core's stop;
 * a second one (for when the stop hangs in a blocked write) removes the
 * temporary files and ends the process with the signal's default action. */
#include "signals.h"

#include <signal.h>
#include <stddef.h>
#include <unistd.h>

#include "interrupt.h"

static volatile sig_atomic_t stop_sig;
static const char *volatile tmps[2];

/* unlink, signal and raise are async-signal-safe (POSIX 2008, 2.4.3). */
static void die(int sig) {
  for (int i = 0; i < 2; i++)
    if (tmps[i]) unlink(tmps[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void on_stop(int sig) {
  if (stop_sig) die(sig);
  stop_sig = sig;
  dec_interrupt_raise();
}

void mut_stop_on_signals(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  (void)dec_interrupt_init(); /* without it only the per-frame check sees the stop */
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    /* SA_RESTART: a write to a slow pipe that the signal interrupts resumes
     * rather than failing the run; a read blocked on IN waits in poll(2),
     * which a signal always interrupts (core/input.c). */
    struct sigaction old, sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sigs[i], &sa, NULL);
  }
}

void mut_discard_on_signals(const char *out_tmp, const char *log_tmp) {
  tmps[0] = out_tmp;
  tmps[1] = log_tmp;
  struct sigaction sa = {.sa_handler = die};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPIPE, &sa, NULL);
}

int mut_stop_signal(void) { return stop_sig; }
