/*
 * canon.h — one spelling per value: DynamoDB JSON in which two values that
 * DynamoDB holds equal are the same bytes, and values it holds different are
 * not. Numbers are written in canonical text ("1.0", "1", "1E0" -> "1"), set
 * members and map attributes are sorted bytewise, binary is base64 of its
 * bytes. Comparing records or items then means comparing bytes.
 */
#ifndef DDBPIPE_CANON_H
#define DDBPIPE_CANON_H

#include "ddbpipe/buf.h"
#include "ddbpipe/value.h"

/* Appends the canonical DynamoDB JSON of v ({"N":"1"}, {"SS":["a","b"]}...).
 * An N that is not a valid number is written as its text. Returns 0 or
 * DDB_ENOMEM. */
int ddb_canon_value(ddb_buf *out, const ddb_value *v);

/* Appends a map of attributes ({"a":{..},"b":{..}}, names sorted bytewise).
 * Returns 0 or DDB_ENOMEM. */
int ddb_canon_map(ddb_buf *out, const ddb_map *m);

/* Do a and b hold the same value as DynamoDB compares them (numbers by
 * value, sets and maps without order)? 1 or 0; -1 when out of memory. */
int ddb_canon_equal(const ddb_value *a, const ddb_value *b);

#endif
