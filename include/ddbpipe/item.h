/*
 * item.h — DynamoDB's item rules: structure, sets, nesting, sizes, keys.
 */
#ifndef DDBPIPE_ITEM_H
#define DDBPIPE_ITEM_H

#include <stddef.h>

#include "ddbpipe/error.h"
#include "ddbpipe/shape.h"
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
 * Checks one value against DynamoDB's rules:
 *   - S is well-formed UTF-8; N is valid per number.h;
 *   - SS/NS/BS are non-empty, every member has the set's member type (S, N,
 *     B), and no two members are equal: SS and BS bytewise, NS numerically
 *     ("1" and "1.00" are duplicates); empty strings/binaries are allowed;
 *   - map attribute names are valid UTF-8, under 64 KB, and unique (an
 *     empty name is accepted inside a nested map);
 *   - nesting depth at most DDB_MAX_DEPTH (32). Depth counts values along
 *     the path, the value itself included: a top-level attribute value is
 *     level 1 and an element of an L or M at level d is level d + 1; set
 *     members are not levels. So 31 maps wrapped around a scalar (the scalar
 *     at level 32) pass and 32 maps around a scalar (level 33) fail, which is
 *     the boundary DynamoDB enforces ("Nesting Levels have exceeded supported
 *     limits"). An empty L or M at level 32 passes.
 * path names the value in messages ("tags[3].name"; NULL or "" for none);
 * nested paths extend it with ".name" and "[i]". Allocates nothing unless
 * a map or set is large (> 512 entries) or a number set has more than 32
 * members. Returns 0, DDB_EINVAL with "attribute '<path>': <reason>", or
 * DDB_ENOMEM.
 */
int ddb_value_validate(const ddb_value *v, const char *path, ddb_error *err);

/*
 * Size DynamoDB counts for an attribute value (name not included), per its
 * documented rules: S = UTF-8 bytes, B = raw bytes, N = ddb_number_size()
 * (1 + ceil(significant digits / 2)), BOOL and NULL = 1, L and M = 3 + one
 * byte per element + the elements' sizes (+ each entry's name bytes for M),
 * SS/NS/BS = sum of member sizes with no overhead. Never fails: an invalid N
 * counts 1 + ceil(digit characters / 2).
 */
size_t ddb_value_size(const ddb_value *v);

/* Size of an item: sum over attributes of UTF-8 name bytes + value size. */
size_t ddb_item_size(const ddb_item *item);

/*
 * Validates a whole item: every attribute value (as above), top-level
 * attribute names non-empty, valid UTF-8, under 64 KB and unique, size
 * <= 400 KB (409600 bytes), and, when ks is not NULL and names a partition
 * key: the key attributes are present, of the declared type, non-empty,
 * partition key <= 2048 bytes, sort key <= 1024 bytes; index key
 * attributes, when present, of the declared type and within the same limits
 * (index partition keys 2048, index sort keys 1024). A key value's bytes are
 * the UTF-8 bytes of S, the raw bytes of B, ddb_number_size() of N.
 * size_out (may be NULL) receives the item size once every value is valid
 * (0 when a value is invalid). Returns 0; DDB_EINVAL for a broken rule;
 * DDB_ETOOBIG for the item size or a key over its byte limit; DDB_EUSAGE when
 * the schema declares a key type other than S, N or B; DDB_ENOMEM.
 */
int ddb_item_validate(const ddb_item *item, const ddb_key_schema *ks, size_t *size_out,
                      ddb_error *err);

/*
 * ddb_item_validate for an item whose names and strings, at every depth, a
 * parser has already checked as UTF-8 (ddb_record.utf8_checked: the JSON
 * lexer checks each string it reads): those are not checked again; every
 * other rule is.
 */
int ddb_item_validate_parsed(const ddb_item *item, const ddb_key_schema *ks, size_t *size_out,
                             ddb_error *err);

/*
 * ddb_item_validate (utf8_checked 0) or ddb_item_validate_parsed (1) of an
 * item of the given shape (shape.h; NULL: none), which keeps with the shape
 * what depends only on the names: that they passed, where the key attributes
 * are. Same returns and messages.
 */
int ddb_item_validate_shaped(const ddb_item *item, const ddb_key_schema *ks, ddb_shape *shape,
                             int utf8_checked, size_t *size_out, ddb_error *err);

/*
 * The key checks ddb_item_validate_shaped ends with, alone, for an item that
 * passed all its other checks already (ddb_record.checked_size): ks's
 * partition and sort key present, of their types and sizes, index keys when
 * present. Same returns and messages.
 */
int ddb_item_check_keys_shaped(const ddb_item *item, const ddb_key_schema *ks, ddb_shape *shape,
                               ddb_error *err);

/*
 * Validates only the key part (used for delete requests, which carry keys
 * only): the table's partition and sort key as in ddb_item_validate(),
 * including that S is UTF-8 and N is valid. Index keys and any other
 * attributes are ignored. Returns 0 (also when ks is NULL or names no
 * partition key), DDB_EINVAL, DDB_ETOOBIG or DDB_EUSAGE as above.
 */
int ddb_item_validate_key(const ddb_item *key, const ddb_key_schema *ks, ddb_error *err);

/* How far back DynamoDB's Time to Live still deletes: items whose TTL
 * attribute is more than five years in the past are left alone (the
 * Developer Guide's TTL page). Five years of days, one of them leap. */
#define DDB_TTL_HORIZON_S (1826ull * 86400ull)

/*
 * Has the item expired by Time to Live, at now (seconds since the epoch)?
 * As DynamoDB judges it: its attribute attr is a Number (top level) of epoch
 * seconds that is less than now and not more than DDB_TTL_HORIZON_S before
 * it. Compared exactly, on the number's text (a fraction, an exponent and
 * any size are fine). Anything else (attr absent, another type, a date to
 * come, one too old, milliseconds that read as a date far ahead) has not
 * expired: DynamoDB would not delete it. Returns 1 or 0.
 */
int ddb_item_expired(const ddb_item *item, const char *attr, uint64_t now);

#endif
