/*
 * item_internal.h (private header of core/) — what item.c (an item's values validated) uses of
 * item_keys.c (its key attributes checked).
 */
#ifndef DDBPIPE_CORE_ITEM_INTERNAL_H
#define DDBPIPE_CORE_ITEM_INTERNAL_H

#include <stdatomic.h>

#include "ddbpipe/item.h"
#include "ddbpipe/shape.h"

/* Values of parsed items that validation's quick walk turned back to the
 * full walk (something to word); tests read it. */
extern atomic_ulong ddb_item_walks_worded;

/* Checks item's key attributes against ks (its partition key set): the table's keys, required,
 * and with_indexes the indexes' keys where the item has them (a sparse index). validate: the
 * key values were not walked by the item's validation (a key-only request), so a string's
 * UTF-8 is checked here. sh: the item's shape (its names distinct), whose memo keeps the key
 * positions, or NULL. Returns 0, DDB_EINVAL, DDB_ETOOBIG or DDB_EUSAGE (a key declared of a
 * type a key cannot have). */
int ddb_item_check_keys(const ddb_item *item, const ddb_key_schema *ks, int with_indexes,
                        int validate, ddb_shape *sh, ddb_error *err);

#endif
