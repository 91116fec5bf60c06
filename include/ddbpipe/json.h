/*
 * json.h — JSON for data records: a parser that builds ddb_values directly in
 * an arena, and writers for DynamoDB JSON (typed) and plain JSON.
 *
 * Why not json-c here: it clamps integers above 2^64 and allocates an object
 * per node. This parser keeps every number as its text, decodes base64 once,
 * and points unescaped strings straight into the input text, so a record's
 * values are valid as long as both the arena and the input text are.
 */
#ifndef DDBPIPE_JSON_H
#define DDBPIPE_JSON_H

#include <stddef.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/buf.h"
#include "ddbpipe/error.h"
#include "ddbpipe/value.h"

typedef struct ddb_json_parser ddb_json_parser;

/* A reusable parser (its scratch space grows to the largest record and stays).
 * Free with ddb_json_parser_free(). Returns 0 or DDB_ENOMEM. */
DDB_MUST_USE int ddb_json_parser_new(ddb_json_parser **out);
void ddb_json_parser_free(ddb_json_parser *p);

/*
 * Plain JSON -> value: object -> M, array -> L, string -> S, number -> N (its
 * text, verbatim), true/false -> BOOL, null -> NULL. The text must hold exactly
 * one JSON value (whitespace around it is fine). Errors: DDB_EINVAL with
 * "byte N: <reason>"; strings must be valid UTF-8 and escapes valid (lone
 * surrogates rejected).
 */
int ddb_json_parse_plain(ddb_json_parser *p, ddb_value *out, const char *text, size_t len,
                         ddb_arena *a, ddb_error *err);

/* DynamoDB JSON attribute map: {"name":{"S":"x"},"n":{"N":"1"},...}. */
int ddb_json_parse_typed_map(ddb_json_parser *p, ddb_map *out, const char *text, size_t len,
                             ddb_arena *a, ddb_error *err);

/* The shapes a DynamoDB JSON line can take. */
typedef enum ddb_json_line_kind {
    DDB_JSON_LINE_ITEM,  /* {"Item":{...}} (Export to S3 / Import from S3) */
    DDB_JSON_LINE_BARE,  /* {"attr":{"S":..},...} */
    DDB_JSON_LINE_CHANGE /* incremental export:
                            {"Metadata":..,"Keys":..,"NewImage":..,"OldImage":..} */
} ddb_json_line_kind;

typedef struct ddb_json_change {
    ddb_map keys;      /* Keys */
    ddb_map new_image; /* NewImage (has_new_image says if present) */
    ddb_map old_image; /* OldImage */
    int has_new_image;
    int has_old_image;
    ddb_str write_time; /* Metadata.WriteTimestampMicros N text, len 0 if absent */
} ddb_json_change;

/*
 * Parses one line of the given kind. For ITEM and BARE the item goes to
 * *item; for CHANGE to *change (item unused). Unknown envelope keys are
 * an error for ITEM and CHANGE, so a malformed line is never half-read.
 */
int ddb_json_parse_line(ddb_json_parser *p, ddb_json_line_kind kind, ddb_map *item,
                        ddb_json_change *change, const char *text, size_t len, ddb_arena *a,
                        ddb_error *err);

/*
 * The DynamoDB JSON attribute map (an item) that begins text[0, len)
 * (white space before it allowed), in a longer text: read as a BARE line is
 * (the same checks, skeletons, names id and item text), but only up to its
 * closing '}': *used is one past that, and what follows is not looked at.
 * For a document of items one after another (a Scan answer's Items), so
 * each is parsed once, where it lies, with no pass to find its end first.
 * Returns 0, DDB_EINVAL (malformed, or cut short: the message names the
 * column from text) or DDB_ENOMEM.
 */
int ddb_json_parse_item_prefix(ddb_json_parser *p, ddb_map *item, size_t *used, const char *text,
                               size_t len, ddb_arena *a, ddb_error *err);

/* The item object of the last line p parsed successfully as ITEM or BARE,
 * verbatim (strict typed DynamoDB JSON, so a request may carry it as it is);
 * {NULL, 0} otherwise. Points into that line's text. */
ddb_str ddb_json_parser_item_text(const ddb_json_parser *p);

/* An id for the names of the item of the last line p parsed (in order), or
 * 0: every item that carries an id carries the same names as every other
 * item with that id, in any parser of the process (a line read by one
 * skeleton carries the skeleton's). Lets a cache of names (ddb_shape) skip
 * reading them. */
uint64_t ddb_json_parser_names_id(const ddb_json_parser *p);

/*
 * Guesses the shape of a DynamoDB JSON line from its text (used on the first
 * line of a file): 1 and *kind set when the line is DynamoDB JSON of some
 * shape, 0 when it looks like plain JSON (or is not JSON at all).
 */
int ddb_json_sniff_line(ddb_json_line_kind *kind, const char *text, size_t len);

/* ------------------------------------------------------------ writers */

/* Appends s as a JSON string literal ("..." with escapes; UTF-8 passes through). */
int ddb_json_put_string(ddb_buf *b, const char *s, size_t len);

/* The same for text meant for people (a message, a file name) that may not
 * be UTF-8: each byte that is not part of a valid character becomes U+FFFD,
 * so the JSON stays valid. Never for data, which must stay exact. */
int ddb_json_put_text(ddb_buf *b, const char *s, size_t len);

/* Appends a value in DynamoDB JSON ({"S":"x"}). */
int ddb_json_put_typed_value(ddb_buf *b, const ddb_value *v);

/* Appends a map in DynamoDB JSON ({"a":{"S":"x"},...}). */
int ddb_json_put_typed_map(ddb_buf *b, const ddb_map *m);

/*
 * Appends a value as plain JSON: S -> string, N -> number (its text when that
 * is valid JSON number syntax, else its canonical plain form: same value),
 * B -> base64 string, BOOL -> true/false, NULL -> null, L/sets -> arrays,
 * M -> object.
 */
int ddb_json_put_plain_value(ddb_buf *b, const ddb_value *v);

/* Appends a map as a plain JSON object. */
int ddb_json_put_plain_map(ddb_buf *b, const ddb_map *m);

/* Appends the body of v's DynamoDB JSON {"T":body}, v a map, list or set:
 * {"a":{"S":"x"}} for a map, [...] for the others. */
int ddb_json_put_typed_body(ddb_buf *b, const ddb_value *v);

/*
 * The same writers, each quote they write doubled: the inside of a quoted
 * CSV cell, written in one pass. Byte for byte what the writer without _dq
 * gives, with '"' turned into '""'.
 */
int ddb_json_put_string_dq(ddb_buf *b, const char *s, size_t len);
int ddb_json_put_typed_value_dq(ddb_buf *b, const ddb_value *v);
int ddb_json_put_typed_map_dq(ddb_buf *b, const ddb_map *m);
int ddb_json_put_typed_body_dq(ddb_buf *b, const ddb_value *v);
int ddb_json_put_plain_value_dq(ddb_buf *b, const ddb_value *v);
int ddb_json_put_plain_map_dq(ddb_buf *b, const ddb_map *m);

/* Is text[0..len) a JSON number literal (RFC 8259 grammar)? */
int ddb_json_is_number(const char *text, size_t len);

#endif
