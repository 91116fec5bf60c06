/*
 * transform.h — the transformer: decodes single-table items into per-entity
 * records with readable field names and types, and encodes records back into
 * items with every key and index attribute computed, under a mapping
 * (mapping.h). Decode with one mapping and encode with another to re-key.
 */
#ifndef DDBPIPE_TRANSFORM_H
#define DDBPIPE_TRANSFORM_H

#include <stddef.h>

#include "ddbpipe/arena.h"
#include "ddbpipe/error.h"
#include "ddbpipe/item.h"
#include "ddbpipe/mapping.h"
#include "ddbpipe/shape.h"
#include "ddbpipe/value.h"

/* A decoded item: the entity and its record. */
typedef struct ddb_decoded {
    const ddb_entity *entity;
    ddb_map record;    /* declared fields present (declared order), then undeclared attributes */
    size_t n_declared; /* record.attrs[0..n_declared) are declared fields */
} ddb_decoded;

/*
 * Decodes an item. Returns 0 with *out filled; DDB_ENOMATCH when no entity
 * matches (err says why; out->entity NULL); DDB_EINVAL when the item belongs
 * to an entity (out->entity set) but cannot be decoded faithfully: a key that
 * does not fit its template, a field captured twice with different values, a
 * value that does not convert to its declared type, an undeclared attribute
 * under the "reject" policy. Record values may point into the item's memory.
 */
DDB_MUST_USE int ddb_transform_decode(ddb_decoded *out, const ddb_mapping *m, const ddb_item *item,
                                      ddb_arena *a, ddb_error *err);

/*
 * Decodes only the key attributes of an item (a delete in an incremental
 * export carries just the keys). Same returns as ddb_transform_decode.
 */
DDB_MUST_USE int ddb_transform_decode_key(ddb_decoded *out, const ddb_mapping *m,
                                          const ddb_item *key, ddb_arena *a, ddb_error *err);

/*
 * ddb_transform_decode (keys_only 0) or _decode_key (1) of an item of the
 * given shape (shape.h; NULL: none), which keeps with the shape where the
 * mapping's attributes are in such items. Same returns and messages.
 */
DDB_MUST_USE int ddb_transform_decode_shaped(ddb_decoded *out, const ddb_mapping *m,
                                             const ddb_item *item, int keys_only, ddb_shape *shape,
                                             ddb_arena *a, ddb_error *err);

/*
 * The entity an item is of, as ddb_transform_decode would find it (its type
 * attribute, else its table key against each entity's key templates), without
 * decoding it: *out is NULL when none matches. An import of items with a
 * mapping counts them per entity this way. Returns 0, or DDB_ENOMEM.
 */
DDB_MUST_USE int ddb_transform_entity_of(const ddb_entity **out, const ddb_mapping *m,
                                         const ddb_item *item, ddb_shape *shape, ddb_arena *a);

/*
 * Encodes a record of entity e into an item with every key and index
 * attribute computed. typed = 0 means values come from CSV/plain JSON and are
 * converted to the declared types; typed = 1 means they are DynamoDB values
 * (converted only when the declared type differs). An `_extra` field holds
 * undeclared attributes (DynamoDB JSON text, or a map in that shape). An index
 * template whose fields are missing is left out (sparse index); a missing
 * table-key field, a value that cannot be converted, a value containing the
 * separator that follows it in a template, or an item breaking DynamoDB's
 * rules is DDB_EINVAL with the reason. The item is validated against the
 * table's key schema.
 */
DDB_MUST_USE int ddb_transform_encode(ddb_item *out, const ddb_mapping *m, const ddb_entity *e,
                                      const ddb_map *record, int typed, ddb_arena *a,
                                      ddb_error *err);

/*
 * Would the record decoded from item (d, from ddb_transform_decode or
 * _decode_key) encode back to that very item? Returns 0 when it would;
 * DDB_EINVAL with the first difference ("re-encoding would add attribute
 * 'gsiOnePk'") or why encoding fails; DDB_ENOMEM. The item is taken as
 * already checked against DynamoDB's rules, so the re-encoded one is not
 * checked again. shape (item's, from a shape cache; may be NULL) remembers
 * the types of items that round-tripped, so a later item of the same names
 * and types skips the re-encoding: transform_memo.c says why the verdict is
 * the same.
 */
DDB_MUST_USE int ddb_transform_round_trip(const ddb_mapping *m, const ddb_decoded *d,
                                          const ddb_item *item, int keys_only, ddb_shape *shape,
                                          ddb_arena *a, ddb_error *err);

/* Encodes only the table key attributes of a (key-only) record. */
DDB_MUST_USE int ddb_transform_encode_key(ddb_item *out, const ddb_mapping *m, const ddb_entity *e,
                                          const ddb_map *record, int typed, ddb_arena *a,
                                          ddb_error *err);

#endif
