/* SPDX-License-Identifier: MIT */
/* SIGINT, SIGTERM and SIGHUP end the reading the way its end would: a live
 * capture drains what the kernel had buffered; a file, pipe or stdin stops
 * at the next packet (a read blocked on an idle pipe returns); then the
 * output is flushed, --stats printed and -w's file completed. */
#ifndef DEC_SIGNALS_H
#define DEC_SIGNALS_H

#include "capture.h"

/* From now on SIGINT, SIGTERM and SIGHUP (unless ignored, as under nohup)
 * stop the reading: dec_stop_signal() says which came, a file's read loop
 * sees it through core/interrupt.h, and `live` (NULL for a file, pipe or
 * stdin; call before opening it, whose first read may block) is stopped
 * with dec_live_stop. A second signal kills the process as usual, after
 * removing -w's temporary file, for when stopping hangs (a blocked write). */
void dec_stop_on_signals(dec_capture *live);

/* -w: SIGPIPE (`--print | head`) and a second stop signal remove the
 * temporary file tmp (NULL: nothing to remove) and then kill the process as
 * usual, so no `.NAME.tmp.*` is left behind. tmp must outlive the run. */
void dec_discard_on_signals(const char *tmp);

/* The signal that asked for the stop, or 0. */
int dec_stop_signal(void);

/* "SIGINT", "SIGTERM", "SIGHUP". */
const char *dec_signal_name(int sig);

#endif
