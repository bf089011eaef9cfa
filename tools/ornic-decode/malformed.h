/* Which rule a malformed frame breaks. The library only says "malformed";
 * a hardware engineer needs to know which length or field is wrong. */
#ifndef DEC_MALFORMED_H
#define DEC_MALFORMED_H

#include <stdbool.h>
#include <stddef.h>

#include <ornic/frame.h>

/* Writes an explanation of an ORNIC_ERR_MALFORMED result into buf, naming the
 * docs/PROTOCOL.md section 5 rule. has_bth: the BTH was read. */
void dec_explain_malformed(const ornic_frame *f, bool has_bth, char *buf, size_t len);

#endif
