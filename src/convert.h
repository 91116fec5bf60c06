/*
 * convert.h (internal) — helpers shared by value conversion (convert.c) and
 * the transformer (transform.c). The conversions themselves are declared in
 * ddbpipe/mapping.h.
 */
#ifndef DDBPIPE_CONVERT_H
#define DDBPIPE_CONVERT_H

#include <stddef.h>

#include "ddbpipe/value.h"

/* Short printable rendering of v for messages, written into out (cap bytes,
 * always NUL-terminated): quoted text (cut at 60 bytes) for S and N, true or
 * false for BOOL, "a <type> value" otherwise. */
void ddb_value_describe(char *out, size_t cap, const ddb_value *v);

#endif
