/*
 * number.h — DynamoDB Number rules on decimal text, without floating point.
 *
 * A Number is at most 38 significant digits with a magnitude of 0 or between
 * 1E-130 and 9.9999999999999999999999999999999999999E+125. Leading and trailing
 * zeros are accepted in the text but are not precision. Everything here works
 * on the digits themselves so no value is ever rounded.
 */
#ifndef DDBPIPE_NUMBER_H
#define DDBPIPE_NUMBER_H

#include <stddef.h>

#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"

#define DDB_NUMBER_MAX_DIGITS 38

/*
 * Normalized form: value = (-1)^negative * 0.d1 d2 ... dn * 10^exponent, with
 * d1 != 0 and dn != 0 (no leading or trailing zeros), n <= 38. Zero has
 * ndigits == 0, negative == 0, exponent == 0.
 */
typedef struct ddb_number {
    int negative;
    int ndigits;
    int exponent;
    char digits[DDB_NUMBER_MAX_DIGITS + 1]; /* ASCII '1'..'9' first, NUL-terminated */
} ddb_number;

/*
 * Parses and validates text. Accepted syntax:
 *   [+|-] ( digits [ "." [digits] ] | "." digits ) [ (e|E) [+|-] digits ]
 * No spaces, no hex, no "NaN"/"Infinity". Zero in any spelling ("-0",
 * "0.000", "0E+99999") is valid: it has no magnitude to limit. Exponent text
 * of any length is handled without overflow. Never converts to double or
 * integer. Returns 0, or DDB_EINVAL with a message quoting the text (cut to
 * 60 bytes + "..."): "not a number: '1..2' (unexpected '.' at offset 2)",
 * "number '...' has more than 38 significant digits (39)", "number '1E+126'
 * is too large: magnitude above 9.99...E+125", "number '1E-131' is too small:
 * magnitude below 1E-130". out may be NULL when only validation is wanted.
 */
int ddb_number_parse(ddb_number *out, const char *text, size_t len, ddb_error *err);

/* Shorthand for ddb_number_parse(NULL, ...). */
int ddb_number_validate(const char *text, size_t len, ddb_error *err);

/* -1, 0, 1 comparing exact numeric values of two normalized numbers. */
int ddb_number_compare(const ddb_number *a, const ddb_number *b);

/* Compares two texts numerically; both must be valid. Returns -1, 0, 1, or
 * DDB_EINVAL (with err) when either is invalid. */
int ddb_number_compare_text(const char *a, size_t alen, const char *b, size_t blen, ddb_error *err);

/* Bytes DynamoDB counts for the value: 1 + ceil(significant digits / 2),
 * following its documented approximation; a zero counts 1 byte. */
size_t ddb_number_size(const ddb_number *n);

/* ddb_number_size of text when it is nothing but 1 to 38 decimal digits,
 * with at most one point between two of them (most numbers: ids, counts,
 * epoch times, prices), found without parsing it; 0 when it is anything
 * else, which ddb_number_parse must judge. Such a text is always a number
 * DynamoDB holds: 38 digits put its magnitude well inside 1E-130..1E+126. */
size_t ddb_number_plain_size(const char *text, size_t len);

/* Appends the canonical text: plain notation without exponent ("-0.00012",
 * "1200", "0"), as DynamoDB returns numbers; negative zero prints "0", 1E+125
 * prints 126 digits. Returns 0 or DDB_ENOMEM. */
int ddb_number_format(ddb_buf *out, const ddb_number *n);

/* Is the text a non-negative integer in plain digits (no sign, dot, exponent)?
 * 1 or 0. Syntax only: leading zeros are allowed and the range is not checked. */
int ddb_number_is_plain_uint(const char *text, size_t len);

#endif
