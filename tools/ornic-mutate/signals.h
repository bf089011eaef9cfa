/* SPDX-License-Identifier: MIT */
/* SIGINT, SIGTERM and SIGHUP stop ornic-mutate before the next input frame,
 * through tools/ornic-decode/core/interrupt.h (whose wake pipe also ends a
 * read blocked on an idle pipe): what was written is completed and kept, as
 * README.md "Command-line conventions" asks of output files. */
#ifndef MUT_SIGNALS_H
#define MUT_SIGNALS_H

/* Installs the handlers (not for a signal ignored, as under nohup). */
void mut_stop_on_signals(void);

/* A second stop signal, or SIGPIPE, ends the process as if there were no
 * handler, after removing these temporary files (NULL: none), so that no
 * `.NAME.tmp.*` is left behind. They must outlive the run. */
void mut_discard_on_signals(const char *out_tmp, const char *log_tmp);

/* The signal that asked for the stop, or 0. */
int mut_stop_signal(void);

#endif
