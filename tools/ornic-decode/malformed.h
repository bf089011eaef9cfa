/* Which rules a malformed frame breaks, in words: the library gives them as
 * ORNIC_MAL_* bits; a hardware engineer needs to know which length or field
 * is wrong and by how much. */
#ifndef DEC_MALFORMED_H
#define DEC_MALFORMED_H

#include <stddef.h>

#include <ornic/frame.h>

/* Writes an explanation of an ORNIC_ERR_MALFORMED result into buf, naming
 * every docs/PROTOCOL.md section 5 rule the frame breaks. */
void dec_explain_malformed(const ornic_frame *f, char *buf, size_t len);

#endif
