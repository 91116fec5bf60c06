/*
 * field_check.h (private header of transform/) — a field's constraints on
 * the text of a value (enum, pattern, format, DECIMAL bounds): what decoding
 * checks a stored value against, and what key matching uses to tell entity
 * variants apart.
 */
#ifndef DDBPIPE_FIELD_CHECK_H
#define DDBPIPE_FIELD_CHECK_H

#include <stddef.h>

#include "ddbpipe/error.h"
#include "ddbpipe/mapping.h"

/* Does the text form of a value satisfy the field's type syntax and
 * constraints? Returns 1 or 0; with err, says why not. */
int ddb_field_accepts_text(const ddb_field *f, const char *s, size_t len, ddb_error *err);

/* For a field whose enum gives key spellings: the index of the enum value
 * spelt s in keys (keys = 1) or stored as s (keys = 0), or -1. */
int ddb_field_enum_index(const ddb_field *f, const char *s, size_t len, int keys);

/* A weekday in any spelling (valid_weekday's) written the field's way
 * (spelling, default "Monday") into out (>= 10 bytes, NUL-terminated).
 * Returns its length, or 0 when s is no weekday. */
size_t ddb_weekday_spell(const ddb_field *f, const char *s, size_t len, char *out);

/* A padded N field's number as it appears in a key: plain digits with an
 * optional fraction, no sign or exponent (1 for a field without "pad"). */
int ddb_field_padded_text_ok(const ddb_field *f, const char *s, size_t len);

#endif
