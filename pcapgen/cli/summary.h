/* SPDX-License-Identifier: MIT */
/* How a run's measurements (stats.h) are reported: text on a terminal, one
 * JSON object for scripts, with the configuration that produced them and
 * where its values came from. */
#ifndef PCAPGEN_SUMMARY_H
#define PCAPGEN_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"
#include "stats.h"

void summary_print(FILE *f, const stats *st, const options *o);
/* 0, or -1 with errno set (the file could not be written). */
int summary_write_json(const char *path, const stats *st, const options *o);
/* The same object to f, flushed. 0, or -1 with errno set. */
int summary_write_json_stream(FILE *f, const stats *st, const options *o);

#endif
