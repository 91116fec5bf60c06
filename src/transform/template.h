/*
 * template.h (private header of transform/) — key templates such as "Tag#{userId}" or
 * "{clipTime}#{dataId}": compiling, matching a stored key against one, and
 * rendering one from field values. The field constraints (enum, pattern,
 * date/weekday...) that matching uses to tell entity variants apart are in
 * field_check.h.
 */
#ifndef DDBPIPE_TEMPLATE_H
#define DDBPIPE_TEMPLATE_H

#include "ddbpipe/buf.h"
#include "ddbpipe/mapping.h"
#include "transform/field_check.h"

/* Compiles text into t (whose attr/attr_type/role are already set), resolving
 * {field} names against e's fields. "{{" and "}}" are literal braces. Fails
 * with DDB_EUSAGE naming path for: an unknown or unclosed placeholder, two
 * placeholders with nothing between them, a field type that cannot appear in
 * a key, or an N/B key attribute whose template is not exactly one field of
 * that type. */
int ddb_template_compile(ddb_template *t, const char *text, const ddb_entity *e, const char *path,
                         ddb_error *err);

void ddb_template_dispose(ddb_template *t);

/*
 * Matches the string key s against t. On success returns 1 and sets
 * caps[i] (i = segment index) to the slice of s captured by each field
 * segment; the slices satisfy the fields' constraints and are non-empty.
 * Returns 0 when s does not fit. Ambiguous splits are resolved by trying the
 * next occurrence of the separator when a constraint fails.
 */
int ddb_template_match(const ddb_template *t, const ddb_entity *e, const char *s, size_t len,
                       ddb_str *caps);

/*
 * Renders t from values[field index] (already of the fields' declared types;
 * NULL = absent) into out (appended). Returns 0; DDB_ENOMATCH when a field is
 * absent (*missing = its index); DDB_EINVAL when a value cannot be written
 * faithfully (empty, contains the separator that follows it, a negative or
 * too-wide padded number).
 */
/*
 * 1 when ddb_template_render would succeed and give exactly text[0, len)
 * for these values, as far as it can tell without rendering: every field
 * rendered as its own bytes (S without enum spellings or weekdays, unpadded
 * N). 0 means "render it to know": a difference, an error, or a field it
 * does not judge.
 */
int ddb_template_renders_as(const ddb_template *t, const ddb_entity *e,
                            const ddb_value *const *values, const char *text, size_t len);
/*
 * 1 when ddb_template_renders_as holds for the text that
 * ddb_template_match split into caps, known from the captures alone: every
 * field renders as its own bytes, its value is its capture itself (the same
 * bytes at the same place, not a value that only agrees), and no capture
 * holds the separator that follows it. 0 means "ask renders_as".
 */
int ddb_template_caps_come_back(const ddb_template *t, const ddb_value *const *values,
                                const ddb_str *caps);

/*
 * 1 when ddb_template_renders_as and ddb_template_match of text would give
 * back exactly these values: no separator begins inside a field's text (the
 * match would cut the field there) and every N field's text is a number.
 * The other checks of a match (constraints, enum spellings) the values must
 * have passed already, as decode's stored attributes and captures have.
 */
int ddb_template_matches_as(const ddb_template *t, const ddb_entity *e,
                            const ddb_value *const *values, const char *text, size_t len);

int ddb_template_render(ddb_buf *out, const ddb_template *t, const ddb_entity *e,
                        const ddb_value *const *values, int *missing, ddb_error *err);

#endif
