/*
 * shape.h — an item's shape: its top-level attribute names, in order.
 *
 * What follows from the names alone (that they are valid and distinct, where
 * a key schema's attributes are, which attribute a mapping's field reads) is
 * the same for every item of a shape. Items of a table come in a handful of
 * shapes, so each fact is worked out for the first item of a shape, kept
 * with the shape, and looked up for the others: the modules that work them
 * out (item.c, transform_decode.c, transform_memo.c) keep them as memos.
 *
 * A cache belongs to one thread. Shapes are compared byte for byte, never by
 * hash alone.
 */
#ifndef DDBPIPE_SHAPE_H
#define DDBPIPE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "ddbpipe/value.h"

typedef struct ddb_shape ddb_shape;
typedef struct ddb_shape_cache ddb_shape_cache;

#define DDB_SHAPE_MAX_NAMES 64 /* positions fit in a signed byte */

/* The memos kept with a shape, by the module that keeps each. */
enum ddb_shape_memo_tag {
    DDB_SHAPE_NAMES_PARSED = 1,   /* item.c: names passed, UTF-8 checked by a parser */
    DDB_SHAPE_NAMES_CHECKED,      /* item.c: names passed, UTF-8 checked there */
    DDB_SHAPE_KEY_POSITIONS,      /* item.c: a key schema's attributes */
    DDB_SHAPE_TABLE_KEYS,         /* transform_decode.c: a mapping's table key */
    DDB_SHAPE_FIELD_POSITIONS,    /* transform_decode.c: an entity's fields, then keys */
    DDB_SHAPE_KEY_ONLY_POSITIONS, /* transform_decode.c: an entity's keys */
    DDB_SHAPE_ROUND_TRIP          /* transform_memo.c: the types that round-tripped */
};

/* A new, empty cache, owned by the caller. Returns 0 or DDB_ENOMEM. */
int ddb_shape_cache_new(ddb_shape_cache **out);

/* Frees c and its shapes; accepts NULL. */
void ddb_shape_cache_free(ddb_shape_cache *c);

/*
 * The shape of item's names, made (with no memos) if c has not seen it or has
 * let it go. The shape is c's and stays valid until the next call on c.
 * NULL (never an error) when c is NULL or item has more than
 * DDB_SHAPE_MAX_NAMES names or too many bytes of them: such an item is
 * simply worked out in full.
 */
ddb_shape *ddb_shape_cache_find(ddb_shape_cache *c, const ddb_map *item);

/* ddb_shape_cache_find for an item whose names carry names_id (0: none;
 * see ddb_record.names_id): an id met before finds its shape without
 * reading the names. */
ddb_shape *ddb_shape_cache_find_named(ddb_shape_cache *c, const ddb_map *item, uint64_t names_id);

/* ddb_map_name_mask of the shape's items. */
uint64_t ddb_shape_name_mask(const ddb_shape *s);

/*
 * The memo kept for (owner, tag) with s: n bytes, *n_out set, or NULL when
 * none is kept. owner is a pointer that identifies what the facts are about
 * (a key schema, an entity); it must outlive the cache. tag tells apart the
 * memos of one owner. The bytes stay as they are until the next
 * ddb_shape_memo_put on s or call on its cache.
 */
const void *ddb_shape_memo(const ddb_shape *s, const void *owner, int tag, size_t *n_out);

/*
 * Room for the memo of (owner, tag) with s: n bytes for the caller to fill
 * before its next call on the cache. A shape keeps one memo per tag, so this
 * replaces the tag's memo of any owner and, when the shape's room is full,
 * the memos of the other tags. NULL when s or owner is NULL or n is larger
 * than a shape keeps: the caller then goes without.
 */
void *ddb_shape_memo_put(ddb_shape *s, const void *owner, int tag, size_t n);

#endif
