/* SPDX-License-Identifier: MIT */
/* SIGINT and SIGTERM end a live capture the way its end of file would: the
 * read loop stops, --stats is printed, the output flushed, exit status 0. */
#ifndef DEC_SIGNALS_H
#define DEC_SIGNALS_H

#include "capture.h"

/* From now on SIGINT and SIGTERM stop c (dec_live_stop). A second signal
 * kills the process as usual, for when stopping hangs (a blocked write). */
void dec_stop_on_signals(dec_capture *c);

/* Reading a file with -w: SIGINT, SIGTERM, SIGHUP and SIGPIPE (`--print |
 * head`) remove the temporary file tmp (NULL: nothing to remove) and then
 * kill the process as usual, so no `.NAME.tmp.*` is left behind. tmp must
 * outlive the process's run. */
void dec_discard_on_signals(const char *tmp);

#endif
