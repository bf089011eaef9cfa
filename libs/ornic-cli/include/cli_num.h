/* SPDX-License-Identifier: MIT */
/* Numbers on the command line, one parser for every program of the tree
 * (ornic-decode, ornic-pcapgen, ornic-examples, ornic-bitmap-sim,
 * ornic-bench): decimal or 0x-hex, never octal ("010" is ten), no sign, no
 * spaces, no trailing text, overflow and range checked. Errors are a short
 * phrase the caller puts after the option's name: "expected a number from 1
 * to 4096, got '0'". */
#ifndef ORNIC_CLI_NUM_H
#define ORNIC_CLI_NUM_H

#include <stddef.h>
#include <stdint.h>

/* s as an unsigned integer in [min, max]. 0, or -1 with why[] filled. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                  size_t why_cap);

/* The same with an optional binary size suffix: K, M, G, T (also KiB, MiB,
 * GiB, TiB; case-insensitive), so "64K" is 65536. */
int cli_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                   size_t why_cap);

/* A finite decimal number (123, 0.5, 1e-3) in [min, max]; no hex, no inf or
 * nan. */
int cli_parse_double(const char *s, double min, double max, double *out, char *why, size_t why_cap);

#endif
