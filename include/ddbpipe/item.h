/*
 * item.h — DynamoDB's item rules: structure, sets, nesting, sizes, keys.
 */
#ifndef DDBPIPE_ITEM_H
#define DDBPIPE_ITEM_H

#include <stddef.h>

#include "ddbpipe/error.h"
#include "ddbpipe/value.h"

#define DDB_ITEM_MAX_SIZE (400u * 1024u)
#define DDB_MAX_DEPTH 32
#define DDB_PARTITION_KEY_MAX 2048
#define DDB_SORT_KEY_MAX 1024

typedef struct ddb_key_attr {
    const char *name; /* NUL-terminated attribute name */
    ddb_type type;    /* S, N or B */
} ddb_key_attr;

/*
 * The key schema an item is checked against: the table's partition key and
 * optional sort key, plus every secondary-index key attribute (which may be
 * absent from an item — sparse indexes — but when present must have the
 * declared type and be non-empty).
 */
typedef struct ddb_key_schema {
    ddb_key_attr partition;       /* name NULL = unknown schema: keys not checked */
    ddb_key_attr sort;            /* name NULL = no sort key */
    const ddb_key_attr *index_pk; /* index partition key attributes */
    size_t n_index_pk;
    const ddb_key_attr *index_sk; /* index sort key attributes */
    size_t n_index_sk;
} ddb_key_schema;

/*
 * Checks one value against DynamoDB's rules: valid N text, UTF-8 strings,
 * non-empty sets without duplicate members (NS duplicates compared
 * numerically), nesting depth at most 32 (depth counts the value itself: a
 * top-level scalar attribute is depth 1), no duplicate names in a map.
 * path names the attribute in messages ("tags[3].name"). Returns 0 or
 * DDB_EINVAL with a message naming the path and the rule.
 */
int ddb_value_validate(const ddb_value *v, const char *path, ddb_error *err);

/* Size DynamoDB counts for an attribute value (name not included). */
size_t ddb_value_size(const ddb_value *v);

/* Size of an item: sum over attributes of UTF-8 name bytes + value size. */
size_t ddb_item_size(const ddb_item *item);

/*
 * Validates a whole item: every attribute value (as above), no duplicate
 * attribute names, size <= 400 KB, and, when ks is not NULL and names a
 * partition key: the key attributes are present, of the declared type,
 * non-empty, partition key <= 2048 bytes, sort key <= 1024 bytes; index key
 * attributes, when present, of the declared type and within the same limits.
 * size_out (may be NULL) receives the item size. Returns 0 or DDB_EINVAL / DDB_ETOOBIG.
 */
int ddb_item_validate(const ddb_item *item, const ddb_key_schema *ks, size_t *size_out,
                      ddb_error *err);

/* Validates only the key part (used for delete requests, which carry keys only). */
int ddb_item_validate_key(const ddb_item *key, const ddb_key_schema *ks, ddb_error *err);

#endif
