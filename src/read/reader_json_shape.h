/*
 * reader_json_shape.h (private header of read/) — what the JSON document reader
 * (reader_json.c: the cursor, the frames, the tables) asks of
 * reader_json_shape.c: what a document or an element of one is, judged from
 * its text, and how one element becomes a record.
 */
#ifndef DDBPIPE_READER_JSON_SHAPE_H
#define DDBPIPE_READER_JSON_SHAPE_H

#include <stddef.h>

#include "ddbpipe/json.h"
#include "ddbpipe/reader.h"

/* What the elements of an array of items look like, decided by its first:
 * items, {"Item": ..}, BatchWriteItem requests, TransactWriteItems actions
 * ({"Put"|"Update"|"Delete"|"ConditionCheck": {..}}), TransactGetItems
 * responses ({"Item": ..}, or {} / null for a key not found), DynamoDB Streams
 * records (reader_stream.c). */
enum jdoc_shape {
    JSH_UNKNOWN = 0,
    JSH_TYPED,
    JSH_PLAIN,
    JSH_WRAPPED,
    JSH_REQUEST,
    JSH_TRANSACT,
    JSH_RESPONSE,
    JSH_STREAM
};

/* What an object at the top of a document is. */
enum jdoc_class { JDOC_ITEM, JDOC_ENVELOPE, JDOC_TABLES };

/* What the object at p[i] ('{') is, from its first key and value read in
 * p[0, n). Owns nothing; cannot fail: what it cannot tell is JDOC_ITEM. */
enum jdoc_class ddb_jdoc_classify(const unsigned char *p, size_t i, size_t n);

/* Do the first bytes p[0, n) of an input begin the manifest of an AWS Data
 * Pipeline export ({"name":"DynamoDB-export", ..})? It holds no items: any
 * input format reads it as none. */
int ddb_jdoc_is_datapipeline_manifest(const unsigned char *p, size_t n);

/* The shape of the items of an array, from its first element p[i, n). Owns
 * nothing; cannot fail: what is not a typed item, a {"Item": ..} or a write
 * request is JSH_PLAIN (the plain parser then says what is wrong). */
enum jdoc_shape ddb_jdoc_element_shape(const unsigned char *p, size_t i, size_t n);

/* Parses the element text[0, len) of the given shape into rec: its kind
 * (put, or delete for a DeleteRequest or a transaction's Delete), typed flag
 * and item, whose values live in arena (not reset here). Owns nothing; cannot
 * fail: a bad element (and a transaction's Update or ConditionCheck, which
 * carry no item) makes rec DDB_REC_BAD with the reason copied into reason
 * (cap bytes). */
void ddb_jdoc_parse_element(ddb_record *rec, char *reason, size_t cap, ddb_json_parser *parser,
                            ddb_arena *arena, enum jdoc_shape shape, const char *text, size_t len);

/* The TableName of the TransactWriteItems action text[0, len), into *table
 * (its bytes in arena); table->ptr NULL when it names none or is not an
 * action. Owns nothing; cannot fail. */
void ddb_jdoc_transact_table(ddb_str *table, ddb_json_parser *parser, ddb_arena *arena,
                             const char *text, size_t len);

/* Is the element text[0, len) a TransactGetItems response holding no item
 * ({} or null: its key was not found)? */
int ddb_jdoc_holds_nothing(const char *text, size_t len);

#endif
