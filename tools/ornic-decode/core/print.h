/* SPDX-License-Identifier: MIT */
/* Per-packet output: one text line, or one JSON object per line. */
#ifndef DEC_PRINT_H
#define DEC_PRINT_H

#include "outbuf.h"
#include "packet.h"

/* A RoCE or broken packet. */
void dec_text_packet(dec_out *o, const dec_packet *pk);
/* A skipped packet (printed only with --verbose). */
void dec_text_skipped(dec_out *o, const dec_packet *pk);

void dec_json_packet(dec_out *o, const dec_packet *pk);
void dec_json_skipped(dec_out *o, const dec_packet *pk);

#endif
